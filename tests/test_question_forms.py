"""Ways of asking that a new corpus's readers used and the analysis had to learn to read: papers named by their
titles (quoted in part, or written whole), a nationality describing a paper's setting, an acronym joined to a word
that the abstract spells out, an exclusion inside a list's criterion, "it" after a list, a named measure asked of a
described paper. The corpus and questions are written for these tests; none comes from a dev or evaluation set."""

from __future__ import annotations

import pytest

from assistant.answer.answerable import missing_detail
from assistant.answer.conversation import Conversation
from assistant.answer.linker import Lexicon
from assistant.answer.question import Kind, analyze
from assistant.types import Turn

CORPUS = [
    ("p-hedge", "Feature Hedging: Correlated Features Break Narrow Sparse Autoencoders", "We show that sparse "
     "autoencoders merge correlated features. Feature hedging harms steering.", False),
    ("p-steer", "SAEs Are Good for Steering -- If You Select the Right Features", "We score features by their output "
     "effect. Selected SAE features steer Gemma models well.", False),
    ("p-next", "Looking beyond the next token", "We rearrange training data so that models predict spans. Planning "
     "tasks improve.", False),
    ("p-neg", "No Hard Negatives Required: Concept Centric Learning for Compositionality", "We obtain concept centric "
     "caption parts. Compositionality improves without hard negatives.", False),
    ("p-rick", "RickNet: three-wheeler detection", "We detect auto-rickshaws in Dhaka traffic. RickNet is trained on "
     "9,000 annotated images from Bangladesh.", False),
    ("p-geo", "GeoChat-X: a geolocation assistant", "We build GeoChat-X, a conversational geolocation model. Its "
     "dataset holds 800K images and around 1.6M question answer pairs.", False),
    ("p-tree", "TreeNet: a lightweight learned image codec", "TreeNet is a tree-structured codec for low bitrates. "
     "TreeNet improves BD-rate by 4.8% over JPEG AI.", False),
    ("p-dino", "DinoLink: token-centric image coding", "DinoLink codes images as tokens. It beats VVC at low rates.",
     False),
    ("p-wave", "Learnable Wavelet Transformer: an alternative to attention", "We replace attention with a learnable "
     "wavelet transform. We evaluate on WMT16 En-De with BLEU score and perplexity. The model is efficient.", False),
]


@pytest.fixture(scope="module")
def lex() -> Lexicon:
    return Lexicon.build(CORPUS)


@pytest.mark.parametrize("question, sides", [
    # quoted parts of titles, beside a name: three sides, and the quoted words are no details asked of any paper
    ("Feature Hedging, 'SAEs Are Good for Steering', and 'no hard negatives' - which are upbeat and which skeptical?",
     ["p-hedge", "p-steer", "p-neg"]),
    # a whole title, written as is, beside a quoted one
    ("Looking beyond the next token and the 'SAEs Are Good for Steering' paper: how does each train?",
     ["p-next", "p-steer"]),
])
def test_papers_named_by_their_titles_are_the_sides(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE
    assert [s.paper_ids[:1] for s in q.sides] == [(p,) for p in sides]
    assert not q.details


def test_a_quote_or_words_no_single_title_holds_name_no_paper(lex):
    assert not lex.titled("Which papers use 'sparse autoencoders' for steering?")  # inside a title: a term
    words = Lexicon.build([*CORPUS, ("p-llm", "Large Language Models", "Large language models plan. We study "
                                                                          "large language models.", False)])
    assert not words.titled("Do large language models plan?")  # a title of words the corpus uses: words
    assert words.titled("Do 'Large Language Models' plan?")[0].paper_ids == ("p-llm",)  # ... unless quoted
    assert lex.titled("is 'looking beyond the next token' about planning?")[0].paper_ids == ("p-next",)


def test_a_nationality_describes_the_setting_and_names_no_missing_method(lex):
    q = analyze("how many annotated pictures did the Bangladeshi three-wheeler detector use?", None, lex)
    assert not q.unlinked
    q = analyze("How does the Dhakaformer detector count rickshaws?", None, lex)
    assert q.unlinked == (("Dhakaformer", "missing"),)


def test_an_acronym_joined_to_a_word_is_there_when_the_abstract_spells_it_out():
    text = CORPUS[5][2]
    assert missing_detail(("GeoChat-X",), ("QA-pair",), "", True, text) is None
    assert missing_detail(("GeoChat-X",), ("QA-session",), "", True, text) is not None


@pytest.mark.parametrize("question, criterion", [
    ("which papers put quantum circuits inside a model (not just quantum-inspired tricks)?",
     "put quantum circuits inside a model"),
    ("Which papers study image codecs but not for video?", "study image codecs"),
    ("any papers on sparse autoencoders, excluding steering?", "sparse autoencoders"),
    # the papers asked for by the words before "papers", tersely, or with a gloss restating them
    ("image codec papers?", "image codec"),
    ("Any wavelet transformer papers here, meaning ones that replace attention by wavelets?", "wavelet transformer"),
])
def test_a_lists_criterion_is_what_its_papers_must_be(lex, question, criterion):
    """What a listed paper must not be is no part of the criterion, nor is a gloss restating it."""
    q = analyze(question, None, lex)
    assert q.kind is Kind.LIST and q.criterion == criterion


@pytest.mark.parametrize("question", ["and the papers?", "okay, the other papers?", "Summarize both papers?",
                                      "Contrast these two papers?", "Explain the DinoLink papers?",
                                      "Compare the DinoLink and TreeNet papers?", "DinoLink and TreeNet papers?"])
def test_papers_referred_back_to_or_named_are_no_list_criterion(lex, question):
    """Only a bare noun phrase before "papers?" asks for a list; a request, a determiner or named papers do not."""
    assert analyze(question, None, lex).kind is not Kind.LIST


def test_an_exclusion_is_read_only_where_it_excludes(lex):
    q = analyze("Which papers set agents apart from humans by their memory?", None, lex)
    assert q.kind is Kind.LIST and "humans" in q.criterion


def test_it_after_a_list_is_the_listed_paper_the_question_names_things_of(lex):
    conv = Conversation()
    conv.add(Turn("any learned image codecs for low bitrates?", focus=("p-dino", "p-tree")),
             {"p-dino": "DinoLink", "p-tree": "TreeNet"},
             {pid: f"{label} {text}" for pid, label, text, _ in CORPUS})
    assert analyze("and what does it gain over JPEG AI?", conv, lex).topic == ("p-tree",)
    assert analyze("and what does it gain at low rates?", conv, lex).topic == ("p-dino",)  # no name: the first
    assert analyze("does it use RL?", conv, lex).topic == ("p-dino",)  # "RL" is in no abstract as a word ("for low")
    one = Conversation()  # a turn about one paper that cited two: "it" is that paper, whatever the question names
    one.add(Turn("What is TreeNet?", focus=("p-tree",), paper_ids=("p-tree", "p-dino")),
            {"p-dino": "DinoLink", "p-tree": "TreeNet"}, {pid: f"{label} {text}" for pid, label, text, _ in CORPUS})
    assert analyze("does it beat VVC?", one, lex).topic == ("p-tree",)


def test_a_named_measure_asked_of_a_described_paper_needs_a_figure_beside_it():
    text = CORPUS[8][2]
    missing = missing_detail((), (), "BLEU score", True, text, heads_only=True)
    assert missing is not None and missing.firm
    assert missing_detail((), (), "BLEU score", True, text.replace("BLEU score", "a BLEU score of 27.1"),
                          heads_only=True) is None


def test_a_second_question_in_one_turn_is_a_second_thing_asked(lex):
    q = analyze("what data is RickNet trained on? how many images", None, lex)
    assert (q.asked, q.numeric) == ("data", False)  # not "how many data"
    assert [(a.asked, a.numeric) for a in q.more] == [("images", True)]


def test_an_acronym_defined_by_ordinary_capitalised_words_is_no_named_instance():
    """"Which LLM is X built on?" is not answered by "X feeds Knowledge Graphs (KGs) to LLMs": the acronym stands for
    ordinary words (the corpus writes them in lower case), a concept, not a named model."""
    from assistant.answer.instances import names_instance

    sents = ["Several systems combine LLMs and Knowledge Graphs (KGs).", "X feeds food KGs to the LLM as context."]
    common = {"knowledge", "graphs", "llms", "llm"}.__contains__
    assert not names_instance("llm", sents, ("X",), lambda t: common(t.lower()))
    assert names_instance("llm", [*sents, "X is built on Llama-3 as its LLM."], ("X",), lambda t: common(t.lower()))
    # ... and is no part of a name: a dataset named with it still names one
    vad = ["Video Anomaly Detection (VAD) is hard.", "QuVAD generalises to the single-scene ComplexVAD dataset."]
    assert names_instance("dataset", vad, ("QuVAD",), lambda t: t.lower() in {"video", "anomaly", "detection"})
    # "Applied to A, B and C, X ...": the models it is applied to are named
    assert names_instance("model", ["Applied to OpenSora, Latte, and CogVideoX, Foresee runs 1.6x faster."],
                          ("Foresee",))


@pytest.mark.parametrize("question, asked, more", [
    # a counted noun in capitals ends its clause: "GPUs" is asked, then the second clause
    ("How many GPUs and how much training time did RickNet need?", "GPUs", [("training time", True)]),
    # a possessive inside the counted noun phrase
    ("How many annotators' labels were used to train RickNet?", "annotators' labels", []),
])
def test_a_counted_noun_is_asked_whatever_its_case_or_possessive(lex, question, asked, more):
    q = analyze(question, None, lex)
    assert (q.asked, q.numeric) == (asked, True)
    assert [(a.asked, a.numeric) for a in q.more] == more


def test_a_paper_asked_for_as_one_on_a_topic_in_any_singular_frame():
    """"Is there a trial of X?", "I need a paper on X - is there one here?" ask for one paper described by X (checked
    as "the paper on X" is); a question asking several papers or something of one is not one."""
    from assistant.answer.asked_topic import described_topic
    assert described_topic("Is there a trial of vitamin D supplements to prevent falls?") == (
        "vitamin D supplements to prevent falls", True)
    assert described_topic("I need a paper on EEG-based emotion recognition - is there one here?") == (
        "EEG-based emotion recognition", True)
    assert described_topic("Is there a paper in the collection on formal theorem proving?") == (
        "formal theorem proving", True)
    for q in ("Has anyone here worked on speech?", "Is there anyone who used KANs?",
              "How does Kite compare with FedAvg?", "Is Kite a paper on speech?"):
        assert described_topic(q) == ("", False), q
