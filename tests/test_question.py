"""Question understanding (linker, analysis, follow-ups, asked-detail checks) on a small hand-written
corpus. The questions are written for these tests; none comes from a dev or evaluation set."""

from __future__ import annotations

import pytest

from assistant.answer.answerable import missing_detail
from assistant.answer.asked import asked_parts
from assistant.answer.conversation import Conversation
from assistant.answer.linker import Lexicon
from assistant.answer.phrasing import DESCRIBED_PAPER
from assistant.answer.question import Kind, analyze
from assistant.types import Turn

CORPUS = [
    ("p-orca", "Orca: sparse routing for speech models", "We propose Orca, a sparse routing method for speech "
     "recognition. Orca lowers the word error rate to 4.1% on LibriSpeech while using 30% fewer FLOPs than a dense "
     "Conformer. Unlike Whisper, Orca is trained on 960 hours of audio.", False),
    ("p-kite", "Kite: federated distillation", "Federated learning suffers from client drift. We introduce Kite, a "
     "federated distillation framework. Kite distils a server ensemble into each client and beats FedAvg by 6.2 points "
     "on CIFAR-100. Kite needs no public data.", False),
    ("p-lumen", "Lumen: token pruning for vision transformers", "Vision transformers are slow on large images. Our "
     "method, Lumen, prunes redundant tokens in every layer. Lumen keeps 40% of the tokens and loses 0.3% top-1 "
     "accuracy on ImageNet-1K. Lumen also speeds up DeiT by 1.8x.", False),
    ("p-fedavg-study", "Federated averaging under churn", "Federated averaging (FedAvg) is the standard aggregation "
     "rule. We study FedAvg when clients join and leave, and show FedAvg can diverge under heavy churn.", True),
    ("p-detr-note", "Object detection with set prediction", "Set prediction makes detection end to end. Compared "
     "with Faster R-CNN, our detector removes anchor design and non-maximum suppression.", True),
]


@pytest.fixture(scope="module")
def lex() -> Lexicon:
    return Lexicon.build(CORPUS)


def test_names_link_to_their_papers_in_order(lex):
    links = lex.link("How do Kite and Orca compare with Lumen?")
    assert [(link.name, link.paper_ids) for link in links] == [("Kite", ("p-kite",)), ("Orca", ("p-orca",)),
                                                               ("Lumen", ("p-lumen",))]
    assert lex.status("R-CNN") == "passing" and lex.status("Whisper") == "passing" and lex.status("Mamba") == "missing"
    assert lex.status("FedAvg") == "subject"  # an abstract that repeats it is about it


@pytest.mark.parametrize("question, sides", [
    ("Kite vs Orca vs Lumen: which needs the least data?", ["p-kite", "p-orca", "p-lumen"]),
    ("What does Lumen add on top of Orca?", ["p-lumen", "p-orca"]),
    ("Which is faster, Orca or Lumen?", ["p-orca", "p-lumen"]),
    ("What do Kite and Orca have in common?", ["p-kite", "p-orca"]),
    ("How is sparsity used in Orca compared with Lumen?", ["p-orca", "p-lumen"]),
    # "Compare how A and B each ...": the wh-word and the predicate after the last side are not sides
    ("Compare how Kite and Orca each use sparse experts.", ["p-kite", "p-orca"]),
    # "Both A and B <predicate>. What does each ...?": a comparison of the two
    ("Both Kite and Lumen use sparse experts. What task does each tackle?", ["p-kite", "p-lumen"]),
    # "Across A, B and C, what ... each ...?"
    ("Across Kite, Orca, and Lumen, what speed-up did each report?", ["p-kite", "p-orca", "p-lumen"]),
    # "How does A relate to B?"
    ("How does Kite relate to Lumen? Does each use experts?", ["p-kite", "p-lumen"]),
    # "Take A, and B. How does each ...?": the sides set out by an imperative, a question asking of each
    ("Take Kite, and Orca. How does each save compute?", ["p-kite", "p-orca"]),
    ("Consider Orca and Lumen. Which of them needs less data?", ["p-orca", "p-lumen"]),
])
def test_comparisons_find_every_side(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE
    assert [s.paper_ids[0] for s in q.sides] == sides


def test_both_a_and_b_then_each_compares_a_described_side_too(lex):
    q = analyze("Both the token-pruning paper and Orca use sparse experts. What does each save?", None, lex)
    assert q.kind is Kind.COMPARE and [(s.text, s.paper_ids) for s in q.sides] == [
        ("token-pruning", ()), ("Orca", ("p-orca",))]


def test_sides_stated_before_the_question_that_asks_of_each_are_a_comparison(lex):
    """"Topic: the paper that A vs the one where B. How does each ...?": the sides come in a statement after a lead,
    the question asks of each of them."""
    q = analyze("Sparse models: the paper that routes speech tokens vs the one where image tokens get pruned. How "
                "much compute does each save?", None, lex)
    assert q.kind is Kind.COMPARE
    assert [s.text for s in q.sides] == ["routes speech tokens", "one where image tokens get pruned"]


def test_a_described_side_runs_on_past_a_to_or_with_until_the_next_side_starts(lex):
    """"Compare the paper that X to Y with the one Z": the frame's first "to" is inside the first description; the
    second side starts where a determiner follows "with". Names in lower case still split at the first word."""
    q = analyze("Compare the paper that prunes tokens to save compute with the one routing speech tokens by sparsity.",
                None, lex)
    assert q.kind is Kind.COMPARE
    assert [s.text for s in q.sides] == ["prunes tokens to save compute", "one routing speech tokens by sparsity"]
    q = analyze("compare kite with orca", None, lex)
    assert [s.paper_ids[:1] for s in q.sides] == [("p-kite",), ("p-orca",)]


def test_listed_papers_are_each_answered_and_a_name_in_passing_is_not_a_side(lex):
    # "A, B and C" standing in one list: every one of them is asked about, a cue word or not
    for question in ("Summarize Kite and Orca.", "How do Kite, Orca and Lumen avoid overfitting?"):
        q = analyze(question, None, lex)
        assert q.kind is Kind.COMPARE and len(q.sides) == question.count(",") + 2, question
    q = analyze("Does Kite reuse the encoder of Orca?", None, lex)  # two names, not a list of them
    assert q.kind is Kind.SINGLE and q.topic[0] == "p-kite"
    # "versus" inside a description is not a comparison of papers
    q = analyze("How many prompts were collected in the study of global versus local harms?", None, lex)
    assert q.kind is Kind.SINGLE
    # "take" asking something of one paper, and "relate" between two things of one paper, compare no papers
    for question in ("Take Kite: how much compute does it save?", "How does Kite's loss relate to its batch size?",
                     "How is Kite's sparsity related to accuracy?"):
        q = analyze(question, None, lex)
        assert q.kind is Kind.SINGLE and q.topic[0] == "p-kite", question


@pytest.mark.parametrize("question, criterion", [
    ("Which benchmarks in the collection test speech models in Welsh?", "benchmarks test speech models in Welsh"),
    ("What routing methods across the corpus use sparse experts?", "routing methods use sparse experts"),
    ("Which federated frameworks are evaluated on both CIFAR-100 and FEMNIST?",
     "federated frameworks evaluated on both CIFAR-100 and FEMNIST"),
    # "in the collection" / "in my library" says where to look, it is no part of the criterion
    ("Which papers in the collection involve speech?", "involve speech"),
    ("Which papers in my library use sparse experts?", "use sparse experts"),
    # "... are in the collection?", "... here?" after the criterion say where to look too
    ("What approaches to federated distillation are in the collection?", "federated distillation"),
    ("Which papers study client drift here?", "study client drift"),
    # "are there <kinds of work> for X?": the kind is part of the criterion
    ("are there new benchmarks for evaluating speech models?", "benchmarks for evaluating speech models"),
    ("Are there any datasets with Welsh speech?", "datasets with Welsh speech"),
    # a generic kind of contribution is any paper doing the thing, whatever it calls its work: no criterion word
    ("Are there tools that use LLMs to summarise meetings?", "use LLMs to summarise meetings"),
    ("are there methods for pruning speech models?", "pruning speech models"),
    ("Are there systems in the collection that do speech routing?", "do speech routing"),
])
def test_a_plural_asked_across_the_corpus_is_a_list(lex, question, criterion):
    q = analyze(question, None, lex)
    assert q.kind is Kind.LIST and q.criterion == criterion


@pytest.mark.parametrize("question, criterion", [
    # whether the collection holds work on a topic, in a frame of collection and looking words: a list
    ("Has anyone here used sparse routing for speech recognition?", "sparse routing for speech recognition"),
    ("token pruning for vision transformers - any papers?", "token pruning for vision transformers"),
    ("what work is there on federated distillation (server ensembles)?", "federated distillation (server ensembles)"),
    ("I'm looking for client drift work; what does the collection have?", "client drift"),
    # a paper described, a finding asked, a named paper's detail, one paper asked for: not a list
    ("Has anyone tried to predict which clients drift most under churn?", None),
    ("Is there a study using sparse routing?", None),
    ("Has anyone beaten Orca's word error rate on LibriSpeech?", None),
    ("What does Kite report on client drift?", None),
])
def test_asking_whether_the_collection_has_work_on_a_topic_is_a_list(lex, question, criterion):
    q = analyze(question, None, lex)
    assert (q.criterion if q.kind is Kind.LIST else None) == criterion, (q.kind, q.criterion)


def test_the_kind_of_work_asked_is_a_part_every_listed_paper_has(lex):
    assert "benchmark" in analyze("are there benchmarks for evaluating speech models?", None, lex).parts
    assert "corpus" in analyze("Are there corpora of Welsh speech?", None, lex).parts
    # a generic kind ("tools", "methods", "frameworks") is no word a listed paper must write ("a simple application")
    assert not analyze("Are there tools that use LLMs to summarise meetings?", None, lex).parts
    assert not analyze("are there frameworks for pruning speech models?", None, lex).parts


def test_a_code_availability_sentence_is_no_evidence_that_a_paper_meets_a_list():
    from assistant.answer.prose import is_debris

    assert is_debris("Our code and benchmark datasets are publicly available at https://github.com/x/y")
    assert not is_debris("We present SwiftEval, the first Swift-oriented benchmark of 28 problems.")


def test_are_there_differences_or_limitations_is_no_list(lex):
    """Only kinds of work ("benchmarks", "datasets", "methods") asked with "are there" make a list."""
    assert analyze("Are there limitations in the Kite approach?", None, lex).kind is not Kind.LIST
    assert analyze("Are there differences between Kite and Lumen?", None, lex).kind is not Kind.LIST


def test_a_plural_asked_of_a_named_paper_is_not_a_list(lex):
    assert analyze("Which datasets are used by Kite?", None, lex).kind is Kind.SINGLE
    assert analyze("Which tokens are pruned by Lumen?", None, lex).kind is Kind.SINGLE
    assert analyze("Which layers are pruned in the work on token pruning?", None, lex).kind is Kind.SINGLE
    # a paper described by lower-case modifiers before "study"/"trial"/"paper"/"work", then "of ..." or the end
    assert analyze("Which layers were pruned in the 4- vs 8-bit study of routing?", None, lex).kind is Kind.SINGLE
    assert analyze("which tokens were kept in the sparse expert trial?", None, lex).kind is Kind.SINGLE
    # not a description: a setting ("in the federated setting") or a named paper ("in the Kite paper")
    assert analyze("Which papers report results in the federated trial setting?", None, lex).kind is Kind.LIST
    assert not DESCRIBED_PAPER.search("What objectives are used in the Kite paper?")


def test_list_criterion_has_named_parts(lex):
    q = analyze("Which papers report results on CIFAR-100 with a DeiT backbone?", None, lex)
    assert q.kind is Kind.LIST and set(q.parts) == {"CIFAR-100", "DeiT"}
    assert analyze("Are there papers on protein folding?", None, lex).kind is Kind.LIST


def test_near_miss_subject_is_unlinked(lex):
    for question, term in [("How does Whisper handle long audio?", "Whisper"),
                           ("Explain how Faster R-CNN proposes regions.", "R-CNN"),
                           ("What loss is used in Mamba?", "Mamba")]:
        q = analyze(question, None, lex)
        assert not q.topic_strong, question
        assert term in {t for t, _ in q.unlinked} or any(term in t for t, _ in q.unlinked), (question, q.unlinked)
    q = analyze("What does Orca gain over Whisper?", None, lex)
    assert q.topic == ("p-orca",) and not q.unlinked


def test_asked_detail_and_numbers(lex):
    q = analyze("What word error rate does Orca achieve?", None, lex)
    assert q.topic == ("p-orca",) and q.asked == "word error rate" and q.numeric
    text = {p: t for p, _, t, _ in CORPUS}
    assert missing_detail(("Orca",), q.details, q.asked, q.numeric, text["p-orca"]) is None
    q = analyze("What BLEU score does Orca reach on CoVoST?", None, lex)
    got = missing_detail(("Orca",), q.details, q.asked, q.numeric, text["p-orca"])
    assert got.why.startswith("The Orca abstract reports no") and got.firm  # a name is missing: no wording explains it
    q = analyze("What batch size was used to train Kite?", None, lex)
    got = missing_detail(("Kite",), q.details, q.asked, q.numeric, text["p-kite"])
    assert got.why == "The Kite abstract reports no batch size." and not got.firm
    q = analyze("What fraction of tokens does Lumen keep?", None, lex)
    assert missing_detail(("Lumen",), q.details, q.asked, q.numeric, text["p-lumen"]) is None
    q = analyze("What fraction of clients does Kite sample?", None, lex)
    assert missing_detail(("Kite",), q.details, q.asked, q.numeric, text["p-kite"]) is not None


def test_a_count_asked_with_a_main_verb_and_a_later_what_is_each_name_the_thing_asked(lex):
    """"How many annotators labelled X?" asks for annotators (the counted noun is plural, its verb no auxiliary);
    "..., and what was their agreement?" asks for the agreement, not "was their agreement". Each then must be in
    the abstract."""
    text = {p: t for p, _, t, _ in CORPUS}
    q = analyze("How many annotators labelled the Kite clients?", None, lex)
    assert q.topic == ("p-kite",) and q.asked == "annotators" and q.numeric
    assert missing_detail(("Kite",), q.details, q.asked, q.numeric, text["p-kite"]).firm
    q = analyze("How many hours of audio trained Orca?", None, lex)
    assert q.asked == "hours" and q.numeric  # the plural the count asks for
    assert missing_detail(("Orca",), q.details, q.asked, q.numeric, text["p-orca"]) is None
    # the noun is there, but the figure counts something else: soft (counted in other words it would be answered)
    said = "Kite's 115 abstracts were labelled by annotators."
    got = missing_detail(("Kite",), (), "annotators", True, said, measure="count")
    assert got is not None and got.why == "The Kite abstract reports no number of annotators." and not got.firm
    said = "Three annotators labelled Kite's 115 abstracts."
    assert missing_detail(("Kite",), (), "annotators", True, said, measure="count") is None
    q = analyze("How many tokens does Lumen keep, and what was its top-1 accuracy loss?", None, lex)
    assert q.asked == "tokens" and [a.asked for a in q.more] == ["top-1 accuracy loss"]


def test_a_dimension_asked_is_of_its_modifier_not_any_such_dimension():
    """"What bougie size ...?": the abstract's "sample size" answers nothing; "a 36-Fr bougie" answers, though it
    never says "size". A thing asked with its own head noun is unchanged: the head word suffices."""
    said = "Patients were randomised; the sample size was 145 and the mean tumour size 3 cm."
    for asked in ("bougie size", "gelatin sponge particle size", "dropout rate"):
        got = missing_detail((), (), asked, False, said, heads_only=True)
        assert got is not None and got.why.endswith(f"reports no {asked}."), asked
    assert missing_detail((), (), "bougie size", False, "A 36-Fr bougie calibrated it.", heads_only=True) is None
    assert missing_detail((), (), "particle size", False, "Particles of 500 um were injected.", heads_only=True) is None
    assert missing_detail((), (), "sample size", False, said, heads_only=True) is None
    assert missing_detail((), (), "tumour markers", False, "Markers of the tumours rose.", heads_only=True) is None
    # the modifier alone, without a figure, is no value of it: "deep learning" gives no learning rate
    got = missing_detail(("Q",), (), "learning rate", False, "Q is a deep learning model with 5 qubits. It is fast.")
    assert got is not None and got.why == "The Q abstract reports no learning rate."
    assert missing_detail(("Q",), (), "learning rate", False, "Q trains with a learning rate of 0.01.") is None
    # the dimension named without a value is none either: "a learning rate scheduler" gives no learning rate
    got = missing_detail(("Q",), (), "learning rate", False, "Q trains with AdamW and a learning rate scheduler.")
    assert got is not None and got.why == "The Q abstract reports no learning rate." and got.firm



def test_a_kind_of_generic_collective_is_answered_by_any_description():
    """"What kinds of groups / categories did they find?" asks for a description ("4 clusters: Potentials ..."),
    as "what kinds of methods" does; a specific noun must still occur ("what kinds of acupoints")."""
    said = "The authors identified 4 clusters: Potentials (45%) and Doubters (27%) among them."
    for asked in ("kinds of groups", "types of categories", "kinds of classes"):
        assert missing_detail((), (), asked, False, said, heads_only=True) is None, asked
    assert missing_detail((), (), "kinds of acupoints", False, said, heads_only=True) is not None


def test_follow_ups_resolve_to_the_paper_meant(lex):
    conv = Conversation()
    conv.add(Turn("Tell me about Orca and Lumen.", focus=("p-orca", "p-lumen")), {"p-orca": "Orca", "p-lumen": "Lumen"})
    q = analyze("How many tokens does the latter keep?", conv, lex)
    assert q.followup and q.topic == ("p-lumen",) and q.standalone == "How many tokens does Lumen keep?"
    q = analyze("What data does the first one use?", conv, lex)
    assert q.topic == ("p-orca",) and q.standalone == "What data does Orca use?"
    q = analyze("How do both reduce compute?", conv, lex)
    assert q.kind is Kind.COMPARE and [s.paper_ids[0] for s in q.sides] == ["p-orca", "p-lumen"]
    conv.add(Turn("What is Kite?", focus=("p-kite",), paper_ids=("p-kite", "p-orca")), {"p-kite": "Kite"})
    q = analyze("Does it need public data?", conv, lex)
    assert q.topic == ("p-kite",) and q.standalone == "Does Kite need public data?"
    q = analyze("Why is drift a problem there?", conv, lex)
    assert q.standalone == "Why is drift a problem in Kite?"
    q = analyze("What does Lumen prune?", conv, lex)  # names its own paper: not a follow-up
    assert not q.followup and q.topic == ("p-lumen",)


@pytest.mark.parametrize("module", ["linker", "answerable", "conversation", "compose"])
def test_answer_core_doctests(module):
    """The docstring examples of the answer core (linking, asked details, follow-ups) are tests too."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"assistant.answer.{module}"))
    assert result.attempted > 0 and result.failed == 0


def test_names_written_with_accents_or_latex_and_variants_of_a_name_link_to_their_paper():
    lx = Lexicon.build([
        ("p-tyr", "Structural pruning", r"We propose T\'yr-the-Pruner, a search-based pruner. T\'yr-the-Pruner keeps "
         "97% of the dense accuracy.", True),
        ("p-migo", "MIGO: experts for stock prediction", "We present MIGO, a mixture of experts. Notably, MIGO-Conv "
         "reaches a 24% excess return.", False),
        ("p-other", "Other work", "Unlike R-CNN, this detector is fast.", False),
    ])
    q = analyze("How much accuracy does Tyr-the-Pruner keep?", None, lx)
    assert q.topic == ("p-tyr",) and not q.unlinked
    q = analyze("What excess return does MIGO-Conv reach?", None, lx)
    assert q.topic == ("p-migo",) and not q.unlinked
    assert lx.status("R-CNN") == "passing"  # a name mentioned once elsewhere stays a near-miss


def test_which_named_thing_needs_a_name_and_a_kind_question_a_description():
    kite = "We introduce Kite, a federated framework. We evaluate Kite on a variety of datasets and models."
    assert missing_detail(("Kite",), (), "specific datasets", False, kite).firm
    assert missing_detail(("Kite",), (), "base LLM", False, "Kite fine-tunes the same base model for all runs.").firm
    assert missing_detail(("Kite",), (), "datasets", False, "Kite is evaluated on two real-world medical datasets.")
    assert missing_detail(("Kite",), (), "kind of datasets", False,
                          "Kite is evaluated on two real-world medical datasets.") is None
    assert missing_detail(("Kite",), (), "type of model", False,
                          "Kite is an ensemble of oblique decision trees.") is None
    assert missing_detail(("Kite",), (), "datasets", False,
                          "Experiments on FEMNIST and CIFAR-10 show Kite helps.") is None
    # a name written in lower case with a digit, in parts ("o3-mini") names a model
    assert missing_detail(("Kite",), (), "model", False,
                          "Among 18 models evaluated on Kite, o3-mini performs best.") is None
    # a metric asked by name must be there by name, however strong the rest of the evidence
    assert missing_detail(("Kite",), ("Recall@50",), "Recall@50", True, "Kite improves recall on Visual Genome.").firm


def test_asked_phrase_in_other_words_counts_only_with_a_close_span():
    text = "SELMA employs low-rank adaptation modules for parameter-efficient training of the encoder."
    sim = {("parameter-efficient fine-tuning", text): 0.74, ("batch size", text): 0.41}
    similar = lambda phrase, t: sim.get((phrase, t), 0.0)  # noqa: E731 -- a fake of SupportScorer.phrase_similarity
    assert missing_detail(("SELMA",), (), "parameter-efficient fine-tuning technique", False, text) is not None
    assert missing_detail(("SELMA",), (), "parameter-efficient fine-tuning technique", False, text,
                          similar=similar) is None
    assert missing_detail(("SELMA",), (), "batch size", False, text, similar=similar) is not None


def test_an_asked_phrase_the_abstract_abbreviates_by_its_own_definition_is_stated():
    """"how many question-answer pairs?" of an abstract defining "question-answer (QA)" and giving "69,225 QA pairs":
    stated. The same two letters neither defined for those words nor followed by a value are no abbreviation."""
    defined = "Kite is a question-answer (QA) benchmark for tools. It comprises 69,225 QA pairs from a codebase."
    assert missing_detail(("Kite",), (), "question-answer pairs", True, defined) is None
    undefined = "Kite is a benchmark for quality assurance of tools. It comprises 69,225 QA pairs from a codebase."
    assert missing_detail(("Kite",), (), "question-answer pairs", True, undefined) is not None


def test_the_one_about_x_is_that_paper_of_the_last_answer_and_one_paper_asked_is_no_list(lex):
    conv = Conversation()
    conv.add(Turn("Which papers use sparse experts?", focus=("p-kite", "p-orca", "p-lumen")),
             {"p-kite": "Kite", "p-orca": "Orca", "p-lumen": "Lumen"},
             {"p-kite": "Kite routes speech tokens to experts.", "p-orca": "Orca turns robot instructions into plans.",
              "p-lumen": "Lumen prunes image tokens."})
    got = conv.resolve("the one about robot instructions - what does it output?")
    assert got.referents == ("p-orca",) and got.standalone == "Orca - what does Orca output?"
    # a paper the last answer did not cite: not one of its papers by a single shared word
    assert conv.resolve("the paper that uses robot arms for protein folding - what does it output?").referents == (
        "p-kite",)
    got = conv.resolve("the one pruning image-level tokens: how much faster is it?")  # "<verb>ing ...", hyphens inside
    assert got.referents == ("p-lumen",) and got.standalone.startswith("Lumen: how much faster")
    conv = Conversation()
    conv.add(Turn("What is Kite?", focus=("p-kite",)), {"p-kite": "Kite"})
    q = analyze("What models did they fine-tune?", conv, lex)  # a plural asked of one paper: not a list
    assert q.kind is Kind.SINGLE and q.topic == ("p-kite",)


def test_a_question_going_on_about_the_paper_in_focus_is_about_it_without_a_reference_word(lex):
    """"What were the event rates with each stent?" after a turn on one stent trial uses the trial's words: it goes
    on about that paper. A question on something else, or one asking for papers, is a new question; a name that
    is another paper's own still wins."""
    conv = Conversation()
    conv.add(Turn("Tell me about the Kite trial.", focus=("p-kite",)), {"p-kite": "Kite"},
             {"p-kite": "Kite randomised 828 patients to a coated stent or a bare-metal stent followed by 30 days of "
                        "dual antiplatelet therapy; major adverse events occurred in 22.6% and 29% at 12 months."})
    got = conv.resolve("What were the 12-month adverse event rates with each stent, and how long was dual "
                       "antiplatelet therapy given?")
    assert got.referents == ("p-kite",) and got.implicit and got.standalone.endswith("therapy given?")
    assert conv.resolve("How many tokens does an image pruner keep on ImageNet?").referents == ()
    assert conv.resolve("Which papers compare a coated stent with a bare-metal stent?").referents == ()
    assert conv.resolve("Is there another trial of dual antiplatelet therapy after stent implantation?").referents == ()
    q = analyze("What were the 12-month adverse event rates with each stent, and how long was dual antiplatelet "
                "therapy given?", conv, lex)
    assert q.followup and q.topic == ("p-kite",)
    q = analyze("How many tokens does Lumen keep with each stent?", conv, lex)
    assert q.topic == ("p-lumen",)


def test_a_detail_asked_is_a_name_in_the_asked_part_not_a_capitalised_description_or_the_lead(lex):
    """Only names the question asks about must be in the abstract: not a description capitalised because it opens
    the question ("Sparse-routing Orca reaches ...?"), nor a name in the lead that describes the paper ("for
    the pruning method that speeds up DeiT: ..."); a name in the asked part still is ("... on COCO?")."""
    q = analyze("Sparse-routing Orca reaches what word error rate on LibriSpeech?", None, lex)
    assert q.topic == ("p-orca",) and "Sparse-routing" not in q.details
    q = analyze("Does Orca use a CLIP text tower or a BERT-style encoder?", None, lex)  # a name in it: a detail
    assert "BERT-style" in q.details
    q = analyze("For the pruning method that speeds up DeiT on big images: how many tokens does it keep?", None, lex)
    assert "DeiT" not in q.details
    q = analyze("For the pruning method that speeds up DeiT on big images: how many tokens does it keep on COCO?",
                None, lex)
    assert "COCO" in q.details and "DeiT" not in q.details


def test_names_written_in_tex_with_plus_signs_or_in_words_before_their_acronym_link_to_their_paper():
    """"we propose \\texttt{D-STT}", "we introduce MGR-LF++", "we introduce Audio-Aware Decoding (AAD)": each is that
    paper's name, so a comparison naming them finds both sides instead of asking one paper for the other's name."""
    lx = Lexicon.build([
        ("p-d", "One trigger token is enough", r"Jailbreaks are common. We propose \texttt{D-STT}, a simple defense "
         "that decodes one safety trigger token. It lowers attack success.", False),
        ("p-m", "Beyond unimodal boundaries", "Recommenders fuse modalities. We introduce MGR-LF++, an enhanced late "
         "fusion framework. It beats early fusion.", False),
        ("p-a", "Reducing hallucination in audio models", "Audio models hallucinate sounds. We introduce Audio-Aware "
         "Decoding (AAD), a lightweight inference-time strategy. AAD lowers hallucination.", False),
        ("p-s", "AdaSteer: adaptive steering", "We present AdaSteer, an adaptive activation steering method. AdaSteer "
         "resists jailbreaks.", False),
    ])
    for name, pid in (("D-STT", "p-d"), ("MGR-LF++", "p-m"), ("Audio-Aware Decoding", "p-a"), ("AAD", "p-a")):
        assert [link.paper_ids for link in lx.link(f"How does {name} work?")] == [(pid,)], name
    q = analyze("How do AdaSteer and D-STT defend against jailbreaks differently?", None, lx)
    assert q.kind is Kind.COMPARE and [s.paper_ids for s in q.sides] == [("p-s",), ("p-d",)]


@pytest.mark.parametrize("question, criterion", [
    ("any spiking neural network papers?", "spiking neural network"),
    ("any work here on generative retrieval?", "generative retrieval"),
    ("I work on retrieval beyond English. Which papers introduce non-English benchmarks?",
     "introduce non-English benchmarks"),
])
def test_terse_and_prefaced_requests_for_papers_are_lists(lex, question, criterion):
    q = analyze(question, None, lex)
    assert q.kind is Kind.LIST and q.criterion == criterion


def test_a_name_followed_by_what_its_letters_stand_for_is_that_papers_name():
    """"The ZEUS (Zotarolimus-Eluting ... Candidates) is a ... trial" defines ZEUS as "Byte Pair Encoding (BPE)"
    defines BPE: a question about the ZEUS trial is about that paper, not a name it only mentions in passing."""
    lx = Lexicon.build([
        ("p-z", "", "Outcomes after stenting are debated. The ZEUS (Zotarolimus-Eluting Endeavor Sprint Stent in "
         "Uncertain DES Candidates) is a randomized trial of 828 patients. Events were fewer with the coated stent.",
         True),
        ("p-icu", "", "Sedation in the ICU (mean age 64 years) was studied in a cohort. Delirium was common.", True),
    ])
    assert lx.status("ZEUS") == "subject"
    q = analyze("Tell me about the ZEUS trial in patients at high bleeding risk.", None, lx)
    assert q.topic == ("p-z",)
    assert lx.status("ICU") != "subject"  # "(mean age 64 years)" spells nothing


def test_they_with_it_after_a_list_is_one_paper_its_authors():
    """"which models did they test it on?" after a list: "they" are the authors of "it", the list's first paper;
    "which datasets did they use?" alone means every paper of the list."""
    conv = Conversation()
    conv.add(Turn("Any work on caching diffusion layers?", focus=("a", "b", "c")),
             {"a": "Kite", "b": "Orca", "c": "Lumen"})
    got = conv.resolve("which video models did they test it on, and what speedup?")
    assert got.referents == ("a",) and got.standalone == "which video models did they test Kite on, and what speedup?"
    assert conv.resolve("Which datasets did they use?").referents == ("a", "b", "c")
    assert conv.resolve("which of them needs no fine-tuning, and what does it cost?").referents == ("a", "b", "c")


def test_former_and_latter_span_turns_and_an_elliptical_follow_up_keeps_the_question(lex):
    conv = Conversation()
    conv.add(Turn("What is Kite?", focus=("p-kite",)), {"p-kite": "Kite"})
    conv.add(Turn("And Orca?", focus=("p-orca",)), {"p-orca": "Orca"})
    assert conv.resolve("Which datasets was the former evaluated on?").referents == ("p-kite",)
    assert conv.resolve("Which datasets was the latter evaluated on?").referents == ("p-orca",)
    conv.add(Turn("What WER does Orca reach on LibriSpeech?", focus=("p-orca",),
                  standalone_query="What WER does Orca reach on LibriSpeech?"))
    got = conv.resolve("And on CommonVoice?")
    assert got.standalone == "What WER does Orca reach on CommonVoice?" and got.referents == ("p-orca",)


def test_a_second_clause_is_a_second_thing_asked(lex):
    from assistant.answer.question import Ask

    q = analyze("Which datasets is Kite evaluated on, and how many clients does it sample?", None, lex)
    assert (q.asked, q.numeric) == ("datasets", False)  # the "how many" belongs to the second clause
    assert q.more == (Ask("clients", True, "count"),)
    q = analyze("What WER does Orca reach, and with which model?", None, lex)
    assert q.numeric and q.more == (Ask("model", False),)


@pytest.mark.parametrize("question, sides", [
    ("Contrast Kite, Orca and the token-pruning vision model: what does each prune?",
     [("Kite", "p-kite"), ("Orca", "p-orca"), ("token-pruning vision model", None)]),
    ("What separates Kite from the dense speech baseline in how they train?",
     [("Kite", "p-kite"), ("dense speech baseline", None)]),
    ("Do Kite and the clustering approach for hospitals group clients the same way?",
     [("Kite", "p-kite"), ("clustering approach for hospitals", None)]),
    ("Which reports the lower error rate, Orca or the token-pruning vision model?",
     [("Orca", "p-orca"), ("token-pruning vision model", None)]),
    ("Kite, Orca and the token-pruning vision model all cut compute. Which budget does each cut?",
     [("Kite", "p-kite"), ("Orca", "p-orca"), ("token-pruning vision model", None)]),
    ("Two papers prune things: one for speech routing and one called Lumen for vision transformers. "
     "What does each prune?",
     [("speech routing", None), ("Lumen", "p-lumen")]),  # a paper's own name inside a description names it
    # a choice whose options stand mid-sentence; terms after the coordinated phrases are not sides
    ("Which of the two, the federated distillation one or the token pruning one, needs no public data?",
     [("federated distillation", None), ("token pruning", None)]),
    ("Which looked more useful: sparse speech routing, or pruning tokens in every layer?",
     [("sparse speech routing", None), ("pruning tokens in every layer", None)]),
    ("Kite vs the token-pruning vision model: which saves more on ImageNet-1K with DeiT?",
     [("Kite", "p-kite"), ("token-pruning vision model", None)]),
    ("Compare the Orca routing paper and the study of FedAvg under churn on their data.",
     [("Orca", "p-orca"), ("study of FedAvg under churn on their data", None)]),
    # a lead before a colon names the group, the sides follow it
    ("Compare how three papers save compute: the sparse speech router, the token pruner for vision transformers, "
     "and Kite.", [("sparse speech router", None), ("token pruner for vision transformers", None), ("Kite", "p-kite")]),
    ("Three efficiency papers: Orca, the token pruning one and Kite. What does each save?",
     [("Orca", "p-orca"), ("token pruning", None), ("Kite", "p-kite")]),
    # papers described by what they are ("the X one") and one named beside them: each is a side
    ("Compare the speech routing one, the token pruning one, and Kite: what does each save?",
     [("speech routing", None), ("token pruning", None), ("Kite", "p-kite")]),
])
def test_a_side_may_be_a_description(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE
    assert [(s.text, s.paper_ids[0] if s.paper_ids else None) for s in q.sides] == sides


def test_is_there_a_paper_asks_for_one_and_are_there_papers_for_a_list(lex):
    assert analyze("Is there work that routes speech to sparse experts?", None, lex).kind is Kind.SINGLE
    assert analyze("Is there a paper that distils a server ensemble?", None, lex).kind is Kind.SINGLE
    assert analyze("Are there papers on federated distillation?", None, lex).kind is Kind.LIST
    assert analyze("Is there any research on sparse routing?", None, lex).kind is Kind.LIST
    assert analyze("Which LLM serves as the judge in Kite?", None, lex).asked == "LLM"


@pytest.mark.parametrize("question, asked, numeric", [
    # terse questions put the description first and ask after a dash or colon
    ("sparse routing for speech recognition with fewer FLOPs - which corpus was it evaluated on?", "corpus", False),
    ("server-ensemble distillation into clients: # datasets and # baselines?", "datasets", True),
    ("token pruning in every layer - how many x speed-up on DeiT?", "x speed-up on DeiT", True),
    # an asked noun phrase ends where its verb starts
    ("Which method says a sparse router can replace dense attention?", "method", False),
    ("names of the two benchmarks Orca introduces?", "benchmarks", False),
    ("What is the name of the new speech corpus that Kite is evaluated on?", "new speech corpus", False),
    # the asked noun phrase may have three words
    ("Which specific open-source LLM scored highest in Kite?", "specific open-source LLM", False),
    # a question that is only a noun phrase asks for its head; "mean X" asks for a value
    ("mean age of the speakers in the Kite corpus?", "mean age", True),
    ("correlation between sparsity and accuracy in Orca?", "correlation", False),
    ("Kite and Orca, which of them is faster?", "", False),  # a phrase with a verb is no bare noun phrase
    ("Storage of vaccines in Kite clinics: a weak link?", "", False),  # capitalised: a paper's title
    ("What does sparse mean for Orca?", "", False),  # "mean" as a verb asks no value
    ("What exactly does Orca prune, and how much?", "", False),  # an adverb qualifies the question
    # an irregular past tense ends the asked noun phrase, and alone asks for no noun
    ("Which optimizer gave the best accuracy in Kite?", "optimizer", False),  # the best one's name is asked
    ("Which code LLM got the highest score on Kite?", "code LLM", False),
    ("Orca pretraining on speech vs on text - which won?", "", False),
])
def test_terse_questions_ask_what_follows_the_dash(lex, question, asked, numeric):
    q = analyze(question, None, lex)
    assert (q.asked, q.numeric) == (asked, numeric)


def test_the_items_behind_a_stated_count_are_asked_by_name(lex):
    q = analyze("what are the 12 languages covered by Kite?", None, lex)
    assert (q.asked, q.numeric, q.measure) == ("languages", False, "names")
    q = analyze("list the three routing benchmarks of Orca", None, lex)
    assert q.measure == "names" and not q.numeric
    assert analyze("how many languages does Kite cover?", None, lex).measure == "count"  # a number counting them


def test_which_one_was_best_asks_for_the_abstract_to_say_which_was_best(lex):
    """"Which optimizer gave the best accuracy?" asks for the best one: an abstract that evaluates several and says
    none was best or better lacks it (firmly); one saying so has an answer, if perhaps in lower-case words ("the
    best optimizer reached 91.7%", "deeper ablation gave higher levels"). (Abstracts written for this test.)"""
    q = analyze("In Kite, which optimizer gave the best accuracy?", None, lex)
    assert q.measure == "winner" and not q.numeric
    assert analyze("Which model did best on Kite, and what accuracy did it get?", None, lex).measure == "winner"
    assert analyze("What is the best accuracy of Kite?", None, lex).measure == ""  # a value, not a winner
    assert analyze("Which value of the margin works best for Kite?", None, lex).measure == ""

    def miss(text):
        return missing_detail(("Kite",), (), "optimizer", False, text, measure="winner")

    none = miss("Kite classifies bananas. We compare Adam, SGD and RMSprop for 30 epochs.")
    assert none.why == "The Kite abstract does not say which optimizer was best." and none.firm
    assert miss("Kite classifies bananas. The best optimizer reached 91.7% accuracy.") is None
    assert miss("Kite ablates at four depths. Peak levels were higher at 250 um than at 500 um.") is None
    assert miss("Kite classifies bananas. With AdamW, Kite reaches the highest accuracy of 91.7%.") is None
    assert miss("Of 18 optimizers evaluated, Lion performs best.") is None


def test_a_phrase_fronted_before_the_question_word_sets_it_up_and_is_not_what_is_asked(lex):
    """"In Kite, which base LLM ...?", "For the Orca paper, how many annotators ...?": what is asked follows the
    comma, as it would without the fronted phrase; the names in that phrase still count as details, and a yes/no
    question after it is one."""
    from assistant.answer.name_finding import yes_no as _yes_no

    q = analyze("In Kite, which base LLM did the authors distil?", None, lex)
    assert q.topic == ("p-kite",) and q.asked == "base LLM"
    q = analyze("For the Orca paper, how many annotators labelled the audio?", None, lex)
    assert (q.asked, q.numeric) == ("annotators", True)
    text = {p: t for p, _, t, _ in CORPUS}
    assert missing_detail(q.topic_names, q.details, q.asked, q.numeric, text["p-orca"]).firm
    q = analyze("On CIFAR-100, which model did best in Kite?", None, lex)
    assert (q.asked, q.measure) == ("model", "winner") and "CIFAR-100" in q.details
    assert _yes_no("For clients that drift, does Kite need public data?")
    assert not _yes_no("For clients that drift, what does Kite distil?")


def test_what_is_the_noun_phrase_asks_that_phrase(lex):
    """"What was the word error rate of Orca on X?", "what daily dose (units/day) did ...": the noun phrase is
    asked and checked; "the name of X" asks X."""
    text = {p: t for p, _, t, _ in CORPUS}
    q = analyze("What was the word error rate of Orca on LibriSpeech?", None, lex)
    assert (q.asked, q.numeric) == ("word error rate", True)
    assert missing_detail(q.topic_names, q.details, q.asked, q.numeric, text["p-orca"]) is None
    q = analyze("What was the rebleeding rate after Kite?", None, lex)
    assert q.asked == "rebleeding rate"
    assert missing_detail(q.topic_names, q.details, q.asked, q.numeric, text["p-kite"]) is not None
    assert analyze("what daily dose (units/day) did Kite clients get?", None, lex).asked == "daily dose"
    assert analyze("What is the name of the token pruning method in Lumen?", None, lex).asked == "token pruning method"


def test_what_is_asked_of_a_paper_is_no_side_and_an_appositive_describes_it(lex):
    """"What PSNR does X reach compared with Y?": the thing asked of the papers is no side, though some paper's
    abstract is about it (here FedAvg, the subject of a study). "Kite (the paper that beats ...)": the asker's
    description, whose names are not asked of Kite."""
    q = analyze("What FedAvg does Kite beat, compared with Lumen?", None, lex)
    assert q.asked == "FedAvg" and q.kind is Kind.COMPARE
    assert [s.paper_ids for s in q.sides] == [("p-kite",), ("p-lumen",)]
    q = analyze("For Kite (the paper that beats FedAvg on FEMNIST), how many clients take part?", None, lex)
    assert "FEMNIST" not in q.details and q.asked == "clients"


def test_a_value_asked_in_other_words_finds_the_sentence_through_hyphenated_words():
    """A paraphrase asking "what level of agreement with pathologist scores" is answered by "evaluated against
    pathologist-assigned scores, achieving a kappa of 0.71": the hyphenated word shares "pathologist"."""
    text = ("We built a pipeline. Tissue was graded as low, medium or high levels. The pipeline was evaluated "
            "against pathologist-assigned scores, achieving a kappa of 0.71 on the external test set.")
    assert missing_detail((), (), "level of agreement with pathologist scores", True, text, heads_only=True) is None


def test_a_comparative_asks_for_a_difference_not_a_word_to_find(lex):
    """"How much leaner is Lumen's token budget than DeiT's?": "leaner" is no thing the abstract must write."""
    text = {p: t for p, _, t, _ in CORPUS}
    q = analyze("How much leaner is the token budget of Lumen than a dense ViT?", None, lex)
    assert q.numeric and missing_detail(q.topic_names, q.details, q.asked, q.numeric, text["p-lumen"]) is None


def test_sides_a_frame_cuts_at_an_inner_and_are_read_whole_and_two_papers_a_question_has_are_compared(lex):
    """"How do Kite, the study of pruning and routing in speech models, and Lumen differ?": the description holds
    an "and"; the coordinated list reads it whole. "The collection has two papers on X. How do they differ?": the
    two that fit X best."""
    q = analyze("How do Kite, the study of pruning and routing in speech models, and Lumen differ in cost?", None, lex)
    assert q.kind is Kind.COMPARE and [s.text for s in q.sides][1].endswith("pruning and routing in speech models")
    q = analyze("The collection has two papers on federated distillation. How do they differ?", None, lex)
    assert q.kind is Kind.COMPARE and len(q.sides) == 2 and "federated distillation" in q.sides[0].text


def test_a_best_one_of_a_named_kind_must_be_named(lex):
    """"Which open-source LLM scored highest?" asks for a name: "proprietary models outperform open-source models"
    says something was better but names no LLM. (Abstracts written for this test.)"""
    def miss(asked, text):  # (every capitalised term common in the corpus: a widely used name still names one)
        return missing_detail(("Kite",), (), asked, False, text, measure="winner", common=lambda t: True)

    got = miss("open-source LLM", "Kite evaluates 15 open LLMs. Proprietary models outperform open-source models.")
    assert got.why == "The Kite abstract does not name the open-source LLM that was best." and got.firm
    assert miss("open-source LLM", "Among open-source LLMs, Qwen2.5-72B scored highest.") is None
    assert miss("model", "Kite compares 14 models; the most efficient solution was the Covid-Net model.") is None
    assert miss("model", "Sycophancy is widespread, with the best model, GPT-5, agreeing 29% of the time.") is None
    assert miss("optimizer", "Kite compares optimizers. The best optimizer reached 91.7% accuracy.") is None


def test_a_contracted_question_word_is_read_as_its_auxiliary(lex):
    # "what's Mamba's ...": the name in subject position is found (and judged) as in "what is Mamba's ..."
    q = analyze("what's Mamba's memory architecture?", None, lex)
    assert ("Mamba", "missing") in q.unlinked and q.asked == "memory architecture"
    assert analyze("what's Kite's router?", None, lex).topic == ("p-kite",)


@pytest.mark.parametrize("question", [
    "papers on federated distillation?", "any paper on token pruning?", "which ones are speech recognition papers?",
    "anything on protein folding?", "what does the corpus say about robot grasping?",
    "Which federated learning papers distil a server ensemble?",
])
def test_terse_list_questions_are_lists(lex, question):
    assert analyze(question, None, lex).kind is Kind.LIST


def test_names_joined_by_or_in_a_list_criterion_are_alternatives(lex):
    q = analyze("Which papers evaluate on CIFAR-100 or LibriSpeech?", None, lex)
    assert q.kind is Kind.LIST and q.parts == ()
    q = analyze("Which papers evaluate on CIFAR-100?", None, lex)
    assert q.parts == ("CIFAR-100",)


def test_a_named_instance_must_stand_near_its_kind_and_not_be_the_papers_own_name():
    text = ("Modern LLMs are usually improved at test time by picking one sample out of many, "
            "known as Best-of-N (BoN). We propose Fuse, which uses a general LLM judge to merge samples.")
    assert missing_detail(("Fuse",), (), "LLM", False, text).why == "The Fuse abstract names no LLM."
    text = "Incomplete multi-view clustering (IMVC) is hard. We test Gavi on five benchmark IMVC datasets."
    assert missing_detail(("Gavi",), (), "datasets", False, text) is not None  # IMVC names the task, not a dataset
    assert missing_detail(("Gavi",), (), "datasets", False, "Experiments on the Kiritan dataset show gains.") is None
    # a lower-case list near the kind's word is no named instance of it (only of the items behind a stated count)
    text = "Gavi tunes LLMs and beats baselines in automatic, human, and expert evaluations."
    assert missing_detail(("Gavi",), (), "base LLM", False, text) is not None
    assert missing_detail(("Gavi",), (), "evaluations", False, text, measure="names") is None


def test_a_bare_one_is_not_a_figure():
    text = "One global model cannot serve many clients. Mergo merges models per client and beats baselines."
    assert missing_detail(("Mergo",), (), "clients", True, text) is not None
    assert missing_detail(("Mergo",), (), "clients", True, "Mergo serves five clients.") is None


def test_an_acronym_a_named_paper_defines_for_another_work_is_not_its_name():
    lex = Lexicon.build([
        ("p-gc", "GC: global context blocks", "The global context block shares structure with the Squeeze-Excitation "
         "Network (SENet). We propose GC, which unifies SENet with non-local blocks.", False),
        ("p-other", "Channel attention study", "Channel attention such as SENet is widely used.", True),
    ])
    assert lex.papers_about("GC") == ("p-gc",)
    assert lex.papers_about("SENet") == ()
    q = analyze("How does SENet recalibrate channels?", None, lex)
    assert q.unlinked and q.unlinked[0][0] == "SENet"


def test_an_acronym_defined_for_cited_work_is_not_the_papers_name_but_one_it_introduces_is():
    lex = Lexicon.build([
        ("p-vol", "Volatility forecasting with graphs", "Traditional models like Generalized Autoregressive "
         "Conditional Heteroskedasticity (GARCH) capture volatility clustering. "
         "We model stocks as a graph of GARCH residuals.", True),
        ("p-enf", "When recommendations fail", "Users skip videos. We then introduce the Agentic Explainable Negative "
         "Feedback (ENF) framework. ENF explains dislikes.", False),
    ])
    assert lex.papers_about("GARCH") == ()
    assert lex.papers_about("ENF") == ("p-enf",)


def test_a_name_written_right_after_another_is_its_property_not_a_second_topic():
    lex = Lexicon.build([
        ("p-mix", "Mixa: mixture of diffusion experts", "We propose Mixa, a mixture of experts for diffusion models "
         "that scales on ImageNet.", False),
        ("p-flex", "Flexo: token density for diffusion", "We propose Flexo. Flexo keeps FID within 0.1 while FID "
         "of the baseline drifts.", False),
    ])
    q = analyze("Mixa FID on ImageNet?", None, lex)
    assert q.topic == ("p-mix",) and "FID" in q.details
    assert missing_detail(q.topic_names, q.details, q.asked, q.numeric, "We propose Mixa, a mixture of experts for "
                          "diffusion models that scales on ImageNet.").why == "The Mixa abstract reports no FID."



@pytest.mark.parametrize("question, kind, asked", [
    ("What ablation studies does Kite run?", Kind.SINGLE, "ablation studies"),  # not a list of papers
    ("Which method works best for speech recognition?", Kind.SINGLE, "method"),
    ("Which language models does Orca compare against?", Kind.SINGLE, "language models"),  # "models" is a noun here
    ("What self-supervised pretrained backbone does Lumen use?", Kind.SINGLE, "self-supervised pretrained backbone"),
    ("Which datasets does Kite use: are they public?", Kind.SINGLE, "datasets"),  # the question comes first
    ("Is there anything on the memory cost of Lumen?", Kind.SINGLE, ""),  # about one paper, not a list
])
def test_new_patterns_leave_ordinary_questions_alone(lex, question, kind, asked):
    q = analyze(question, None, lex)
    assert (q.kind, q.asked) == (kind, asked)


def test_one_is_a_figure_unless_it_opens_the_sentence_or_is_a_pronoun():
    assert missing_detail(("Mixa",), (), "forward passes", True, "Mixa needs only one forward pass per image.") is None
    assert missing_detail(("Mixa",), (), "forward passes", True, "One of the forward passes is shared.") is not None


def test_an_acronym_for_the_papers_own_component_stays_its_name():
    lex = Lexicon.build([("p-mix", "Mixa: mixture routing", "We propose Mixa. Its router is a Dual Gating Unit (DGU). "
                          "The DGU halves the cost.", False)])
    assert lex.papers_about("DGU") == ("p-mix",)


def test_one_plain_word_qualifying_a_generic_thing_is_not_the_asked_detail():
    text = "GC ViT surpasses ConvNeXt and Swin at comparable cost. Experiments on six datasets beat ten baselines."
    assert missing_detail(("GC ViT",), (), "established architectures", False, text) is None
    assert missing_detail(("GC ViT",), (), "datasets and competing methods", True, text) is None
    assert missing_detail(("GC ViT",), (), "batch size", False, text) is not None


def test_a_capitalised_word_no_abstract_uses_is_a_named_detail_of_a_named_paper(lex):
    q = analyze("How does Kite perform on Shakespeare?", None, lex)
    assert "Shakespeare" in q.details
    assert "Shakespeare" not in analyze("Which papers study Shakespeare?", None, lex).details


def test_how_long_needs_a_time_or_length_not_any_number(lex):
    q = analyze("How long did it take to train Orca?", None, lex)
    assert q.measure == "duration"
    text = "Orca lowers the word error rate to 4.1% on LibriSpeech with 30% fewer FLOPs."
    assert missing_detail(("Orca",), (), q.asked, q.numeric, text, measure=q.measure).firm
    assert missing_detail(("Orca",), (), q.asked, q.numeric, "Orca trains in 3 days on 8 GPUs.",
                          measure=q.measure) is None


def test_how_long_inside_a_clause_is_not_what_is_asked(lex):
    q = analyze("Is it sensible to prune data without considering how long Orca is trained?", None, lex)
    assert q.measure == ""


def test_a_figure_in_the_sentence_that_refers_back_to_the_named_setting_counts():
    text = ("Kite is tested on the Leaf-Text and Leaf-Image benchmarks. Results on them beat FedAvg by 4.2% and 3.9% "
            "respectively. Kite needs no public data.")
    assert missing_detail(("Kite",), ("Leaf-Text", "Leaf-Image"), "", True, text) is None
    # a later sentence that does not refer back gives no figure for that setting
    text = "Kite is tested on the Leaf-Text benchmark. Training uses 8 GPUs in another study of ours."
    assert missing_detail(("Kite",), ("Leaf-Text",), "", True, text).firm


def test_an_acronym_the_abstract_spells_out_is_present():
    text = "Orca improves automatic speech recognition and reports the Frechet Inception Distance of its samples."
    assert missing_detail(("Orca",), ("ASR",), "", False, text) is None
    assert missing_detail(("Orca",), ("FID",), "", False, text) is None
    assert missing_detail(("Orca",), ("ASR",), "", False, "Orca improves end-to-end speech recognition.") is None
    assert missing_detail(("Orca",), ("BLEU",), "", False, text).firm  # no spelled-out BLEU
    # two letters: no
    assert missing_detail(("Orca",), ("RL",), "", False, "We learn representations with rich labels.").firm


def test_a_capitalised_word_joined_to_ordinary_words_is_a_description_not_a_name(lex):
    assert lex.is_common("Speech-recognition")
    assert lex.is_common("Sparse-routing")
    assert not lex.is_common("Orca-Conv")  # a variant of a name
    assert not lex.is_common("Tyr-the-Pruner")  # a capitalised last part: a name
    assert not lex.is_common("Earth-churners")  # a word the corpus never uses: not known to be ordinary


def test_a_digit_inside_a_name_or_formula_is_not_a_figure():
    text = "Kite is evaluated on CIFAR-10 with GPT-4o as a judge. The loss is sum_{i=1} f_i p_i over experts."
    assert missing_detail(("Kite",), (), "experts", True, text).firm
    assert missing_detail(("Kite",), (), "experts", True, "Kite routes tokens to 64 experts per layer.") is None
    assert missing_detail(("Kite",), (), "", True, "Kite trains on 42.8B tokens.") is None
    assert missing_detail(("Kite",), (), "", True, "Kite pools and routes: (1) pooling and (2) routing.") is not None


def test_a_value_asked_for_a_named_setting_needs_a_figure_for_that_setting():
    text = ("We test Lumen on ImageNet-1K and COCO. On ImageNet-1K it keeps 99% of the accuracy. Lumen also halves "
            "the FLOPs.")
    assert missing_detail(("Lumen",), ("ImageNet-1K",), "accuracy", True, text) is None
    got = missing_detail(("Lumen",), ("COCO",), "accuracy", True, text)  # the figure is ImageNet-1K's
    assert got.firm and got.why == "The Lumen abstract reports no accuracy for COCO."


def test_a_value_whose_quantity_the_abstract_never_names_is_firmly_missing():
    text = "Kite was evaluated on 96 patients and 100 controls. Kite lowered the error rate (p=0.04)."
    got = missing_detail(("Kite",), (), "mean age", True, text)  # no "age", "aged" anywhere
    assert got.firm and got.why == "The Kite abstract reports no mean age."
    got = missing_detail(("Kite",), (), "mean error", True, "Kite had a lower error on 96 images; aged 40 years.")
    assert not got.firm  # the quantity is named, only not beside a figure: other wording may explain it
    assert missing_detail(("Kite",), (), "mean age", True, "Patients (mean age 61 years) received Kite.") is None


def test_a_named_competitor_the_papers_abstract_never_names_is_missing(lex):
    q = analyze("By how much does Kite beat Whisper?", None, lex)  # Whisper: named only in the Orca abstract
    assert "Whisper" in q.details
    assert missing_detail(q.topic_names, q.details, q.asked, q.numeric, CORPUS[1][2]).firm


def test_a_unit_in_the_question_asks_for_a_value_in_that_unit(lex):
    q = analyze("How many millijoules per image does Orca use?", None, lex)
    assert q.measure == "energy" and q.numeric
    assert missing_detail(("Orca",), (), q.asked, q.numeric, "Orca is energy-efficient and 30% faster.",
                          measure=q.measure).firm
    assert missing_detail(("Orca",), (), q.asked, q.numeric, "Orca uses 2.1 mJ per image.", measure=q.measure) is None
    q = analyze("How much GPU memory does Orca need?", None, lex)
    assert q.measure == "memory"
    assert analyze("Does Orca reduce energy consumption?", None, lex).measure == ""
    q = analyze("What is Orca's latency in seconds?", None, lex)  # a unit asked: a number in that unit
    assert q.measure == "time"
    assert missing_detail(("Orca",), (), q.asked, q.numeric, "Orca handles clips from seconds to hours.",
                          measure=q.measure).firm
    assert missing_detail(("Orca",), (), q.asked, q.numeric, "Orca answers in 120 ms.", measure=q.measure) is None
    q = analyze("How long are the clips Orca handles?", None, lex)  # "how long": a span of units answers
    assert missing_detail(("Orca",), (), q.asked, q.numeric, "Orca handles clips from seconds to hours.",
                          measure=q.measure) is None


def test_a_number_the_question_states_is_not_the_answer(lex):
    q = analyze("How many clips are in the two benchmarks Orca introduces?", None, lex)
    text = "Orca introduces two new benchmarks of speech clips."
    from assistant.answer.answerable import figures_in
    assert missing_detail(("Orca",), (), q.asked, q.numeric, text, given=figures_in(q.standalone)).firm
    assert missing_detail(("Orca",), (), q.asked, q.numeric, "Orca introduces two benchmarks of 900 clips each.",
                          given=figures_in(q.standalone)) is None


def test_which_two_things_asks_for_named_ones_and_a_defined_concept_is_not_one(lex):
    q = analyze("Which two speech models was Orca tested on?", None, lex)
    assert q.asked == "speech models"
    text = ("Recently, Omni-modal large language models (OLLMs) have spread. We propose Orca for OLLMs. Experiments "
            "on two OLLMs show gains.")
    lx = Lexicon.build([("p-orca", "Orca", text, False), ("p-b", "Bee", "An omni and modal split of the data.", False)])
    assert missing_detail(("Orca",), (), "omni-modal LLMs", False, text, common=lx.is_common).firm
    named = text.replace("Experiments on two OLLMs", "Experiments on Qwen2.5-Omni and two other OLLMs")
    assert missing_detail(("Orca",), (), "omni-modal LLMs", False, named, common=lx.is_common) is None


def test_a_value_for_a_named_setting_needs_a_figure_in_the_sentences_on_it():
    text = "Orca is a sparse router with 4 experts. Experiments on LibriSpeech show Orca beats the dense baseline."
    got = missing_detail(("Orca",), ("LibriSpeech",), "error points", True, text)
    assert got.firm and "for LibriSpeech" in got.why


def test_a_derived_label_naming_what_the_abstract_discusses_is_not_the_papers_name():
    corpus = [("p-mm", "CLIP", "CLIP (Contrastive Language-Image Pre-training) has attracted attention. Its "
               "pre-training is costly. This inspires us to propose MM-LG, a framework that extracts components "
               "from CLIP.", True),
              ("p-x", "Kite: distillation", "We introduce Kite, which distils CLIP into small models.", False)]
    lx = Lexicon.build(corpus)
    assert lx.display["p-mm"] == "MM-LG"
    assert lx.papers_about("MM-LG") == ("p-mm",)
    assert lx.about["clip"]["p-mm"] == 1  # only a repeated term of that abstract, not its name


def test_it_after_a_list_is_its_first_paper_and_an_ordinal_inside_one_paper_keeps_the_context():
    c = Conversation()
    c.add(Turn("Which papers use federated distillation?", focus=("p-kite", "p-fedavg-study")),
          {"p-kite": "Kite", "p-fedavg-study": "FedAvg study"})
    got = c.resolve("Which datasets was it tested on?")
    assert got.referents == ("p-kite",) and got.standalone == "Which datasets was Kite tested on?"
    assert c.resolve("Which datasets were they tested on?").referents == ("p-kite", "p-fedavg-study")
    c = Conversation()
    c.add(Turn("What is Kite?", focus=("p-kite",)), {"p-kite": "Kite"})
    c.add(Turn("What are its three steps?", focus=("p-kite",), standalone_query="What are Kite's three steps?"))
    got = c.resolve("What does the second one do?")
    assert got.referents == ("p-kite",)
    assert got.standalone == "What does the second one do? (What are Kite's three steps?)"


def test_how_much_better_than_is_answered_by_an_improvement_over_it():
    text = "Kite distils an ensemble. It achieves an 8.6% improvement over FedAvg in accuracy."
    assert missing_detail(("Kite",), ("FedAvg",), "better than FedAvg", True, text) is None
    assert missing_detail(("Kite",), ("FedAvg",), "worse than FedAvg", True, text) is not None


def test_which_has_the_higher_value_asks_for_a_value(lex):
    assert analyze("Which reports the lower error rate, Orca or the token-pruning vision model?", None, lex).numeric
    assert analyze("Which is faster at inference, Orca or Lumen?", None, lex).kind is Kind.COMPARE
    assert not analyze("Which papers use better data?", None, lex).numeric
    assert analyze("Which encoder does Kite use, a CNN or a transformer?", None, lex).kind is Kind.SINGLE


def test_a_question_that_goes_on_is_about_the_paper_in_focus_and_a_spaced_compound_is_the_word():
    c = Conversation()
    c.add(Turn("What does Lumen prune?", focus=("p-lumen",)), {"p-lumen": "Lumen"})
    assert c.resolve("And how much smaller are the resulting networks?").referents == ("p-lumen",)
    assert c.resolve("And how fast is training?").referents == ("p-lumen",)
    assert missing_detail(("Lumen",), (), "run time", True, "Lumen cuts the runtime by 40%.") is None


# Papers whose names are English words: a pronoun, a determiner, a common word (written for these tests).
WORDY = [
    ("p-it", "IT: iterative tuning of adapters", "We propose IT, an iterative tuning method for adapters. IT "
     "converges in three epochs on GLUE and matches full fine-tuning.", False),
    ("p-it2", "It: a tokenizer for source code", "It splits source code into subword tokens. It is trained on "
     "GitHub repositories and halves sequence length.", False),
    ("p-all", "ALL: an active learning loop", "We present the Active Learning Loop (ALL). ALL selects 20% of the "
     "samples to label and keeps 98% of the accuracy.", False),
    ("p-sort", "Sort: learned sorting networks", "We introduce Sort, which learns sorting networks with "
     "transformers. Sort orders 1,000 keys in 12 comparator layers.", False),
    ("p-track", "SORT: simple online realtime tracking", "We propose Simple Online and Realtime Tracking (SORT). "
     "SORT associates detections with a Kalman filter and runs at 260 Hz.", False),
    ("p-kite", "Kite: federated distillation", "We introduce Kite, a federated distillation framework. Kite "
     "beats FedAvg by 6.2 points on CIFAR-100.", False),
]


@pytest.mark.parametrize("question", [
    "What is it about?", "Which datasets does it use?", "Are all of them evaluated on GLUE?",
    "How do I sort the results by year?", "What does the it abstract report?",
    "IT departments and ALL hands: any papers?",
    "What is all the fuss about sorting?", "Is It fast?", "Sort the papers by year.",
])
def test_english_words_never_link_as_names_whatever_their_case(question):
    lex = Lexicon.build(WORDY)
    assert lex.link(question) == [], question
    assert analyze(question, None, lex).topic == ()


def test_a_defined_acronym_that_is_an_english_word_still_links_and_other_names_do():
    lex = Lexicon.build(WORDY)
    assert [(k.name, k.paper_ids) for k in lex.link("How does SORT associate detections?")] == [("SORT", ("p-track",))]
    assert [(k.name, k.paper_ids) for k in lex.link("How does it compare with Kite?")] == [("Kite", ("p-kite",))]
    assert lex.status("it") == lex.status("All") == "common" and lex.link("How does Sort order keys?") == []


def test_an_acronym_the_corpus_also_writes_as_a_lower_case_word_links_only_as_written():
    # "guide" is an ordinary word of this corpus; "we propose GUIDE (...)" still names a paper
    guided = [(f"p-{i}", f"Paper {i}", f"We guide robot {i} with prompts that guide its planner.", False)
              for i in range(5)] + [
        ("p-guide", "Generative auto-bidding", "We propose GUIDE (Generative Unified Design Exploration), a bidder. "
         "GUIDE raises ROI by 9%.", False)]
    lex = Lexicon.build(guided)
    assert [(k.name, k.paper_ids) for k in lex.link("What does GUIDE raise?")] == [("GUIDE", ("p-guide",))]
    assert lex.link("How do they guide the planner?") == [] and lex.link("Guide me through the papers.") == []
    assert lex.restore_case("how do they guide the planner?") == "how do they guide the planner?"


def test_a_question_naming_two_things_is_about_the_paper_that_mentions_both():
    lex = Lexicon.build([
        ("p-a", "", "We measure vascular endothelial growth factor (VEGF) in polyps. VEGF rises with age.", False),
        ("p-b", "", "Tumour VEGF expression was scored in pT3 carcinoma. VEGF predicted survival in pT3 cases.", False),
        ("p-pan", "", "Polyarteritis nodosa (PAN) is rare. We ask whether PAN remits.", False)])
    q = analyze("Is VEGF associated with survival in pT3 carcinoma?", None, lex)
    assert q.topic == ("p-b",)  # not p-a, which defines VEGF but never mentions pT3
    assert analyze("Does VEGF rise with age?", None, lex).topic == ("p-a",)
    # an acronym that is an English word names its paper only in capitals
    assert lex.link("Is Pan Masala harmful?") == []
    assert [k.paper_ids for k in lex.link("Does PAN remit?")] == [("p-pan",)]


def test_a_shared_term_means_the_paper_retrieval_ranks_first():
    lex = Lexicon.build([
        ("p-a", "", "Gestational diabetes mellitus (GDM) rose in the cohort. GDM risk grew with age.", False),
        ("p-b", "", "Nuchal translucency and gestational diabetes mellitus (GDM). GDM onset was predicted.", False),
        ("p-own", "FedMerge: merged models", "We propose FedMerge, which merges models. FedMerge is fast.", False),
        ("p-c", "", "Unlike FedMerge, our clients keep one model. FedMerge needs a server.", False)])
    assert lex.by_retrieval("GDM", "p-a", ["p-x", "p-b", "p-a"]) == "p-b"  # no paper coins GDM: retrieval decides
    assert lex.by_retrieval("GDM", "p-a", ["p-x"]) == "p-a"  # none of its papers retrieved: the link stands
    assert lex.by_retrieval("FedMerge", "p-own", ["p-c", "p-own"]) == "p-own"  # a paper's own name keeps it


def test_a_lower_case_question_is_understood_like_its_capitalised_form(lex):
    for capitalised in ("What word error rate does Orca reach on LibriSpeech?", "How does Lumen speed up DeiT?",
                        "Does Kite beat FedAvg on CIFAR-100?", "How do Kite and Orca differ?"):
        a, b = analyze(capitalised, None, lex), analyze(capitalised.lower(), None, lex)
        assert ((b.kind, b.topic, b.details, b.asked, b.numeric, b.sides)
                == (a.kind, a.topic, a.details, a.asked, a.numeric, a.sides))
    assert lex.restore_case("what does orca reach on librispeech?") == "what does Orca reach on LibriSpeech?"
    # an English word stays a word unless it is a paper's own name; capitals inside a sentence: nothing restored
    react = Lexicon.build([*CORPUS, ("p-agent", "Tool agents", "Unlike ReAct, our agent plans ahead.", False)])
    assert react.restore_case("do brains react to jokes?") == "do brains react to jokes?"
    assert react.restore_case("does kite beat fedavg?") == "does Kite beat FedAvg?"
    assert react.restore_case("Does kite beat FedAvg?") == "Does kite beat FedAvg?"
    pooling = Lexicon.build([("p-tp", "Token Pooling: fewer tokens",
                              "Token Pooling clusters tokens. Token Pooling is fast.", False)])
    # English words
    assert pooling.restore_case("how much does token pooling save?") == "how much does token pooling save?"


def test_a_multi_word_name_is_judged_whole_not_by_its_last_word(lex):
    # "Kite" alone is a paper; "Quantum Kite Sampler" is written nowhere: the whole name is what is missing
    q = analyze("How does Quantum Kite Sampler work?", None, lex)
    assert ("Quantum Kite Sampler", "missing") in q.unlinked
    q = analyze("How does Faster R-CNN propose regions?", None, lex)  # written once, in another paper's abstract
    assert ("Faster R-CNN", "passing") in q.unlinked


@pytest.mark.parametrize("question, sides", [
    ("How does the paper on token pruning compare with the one based on federated distillation?",
     ["token pruning", "federated distillation"]),
    ("Compare the speech recognition paper and the federated distillation paper.",
     ["speech recognition", "federated distillation"]),
    # papers given by descriptions headed by their kind of report, however they are coordinated
    ("Compare the Kite distillation vs FedAvg trial with the Lumen pruning study: designs and results.",
     ["Kite", "Lumen"]),  # a paper's own name heading the description names the side
    ("two speech experiments - the sparse routing study and the churn one. what did each find?",
     ["sparse routing", "churn"]),
    ("How does accuracy compare between the token pruning study that used DeiT and the 10-year churn review?",
     ["token pruning study that used DeiT", "10-year churn review"]),
])
def test_comparison_sides_given_as_descriptions_are_searched_by_their_description(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE and [s.text for s in q.sides] == sides


def test_own_work_cue_positive_and_negative_examples():
    import re

    from assistant.answer.words import OWN_WORK

    rx = re.compile(OWN_WORK)
    for yes in ("We propose Kite, a method.", "In this work we then introduce a loss.", "This paper presents Orca.",
                "This study develops a probe.", "which allows us to design a router"):
        assert rx.search(yes), yes
    for no in ("Prior work proposed pruning.", "They introduce noise.", "We evaluate on GLUE.",
               "the presented results"):
        assert not rx.search(no), no


@pytest.mark.parametrize("question, sides", [
    ("The two papers on speech routing each cut compute - how?", ["speech routing", "speech routing"]),
    ("compare the two token pruning studies of vision transformers: what does each keep?",
     ["token pruning vision transformers"] * 2),
    ("the speech routing study and the federated distillation work: which data does each use?",
     ["speech routing", "federated distillation"]),
    ("How do the token pruning paper and the federated distillation framework each save compute?",
     ["token pruning", "federated distillation framework"]),
    ("The paper that routes speech sparsely, and the one that distils a server ensemble - what do they report?",
     ["routes speech sparsely", "distils a server ensemble"]),
])
def test_two_papers_given_by_descriptions_are_a_comparison(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE and [s.text for s in q.sides] == sides


@pytest.mark.parametrize("question", ["What do the two benchmarks measure?", "Is the cat and the dog study good?",
                                      "Which of the two methods is faster?",
                                      "Does Kite use the server and the clients?"])
def test_descriptions_that_are_not_two_papers_are_not_a_comparison(lex, question):
    assert analyze(question, None, lex).kind is Kind.SINGLE


def test_only_a_short_criterion_naming_a_topic_has_distinctive_words():
    from assistant.answer.topics import TopicWords

    class Cache:
        def get(self):
            return Lexicon.build(CORPUS)

    t = TopicWords(Cache(), scorer=None)
    # (six abstracts: a word at most two of them use is distinctive; English words never are)
    assert t.distinctive("speech routing") == [["rout"]]
    assert t.distinctive("token pruning or speech routing") == [["token", "prun"], ["rout"]]  # one list per alternative
    assert t.distinctive("learning models") == []  # English words and list words only
    assert t.distinctive("pruning or learning") == []  # an alternative any paper may meet
    assert t.distinctive("predict where speech is routed") == []  # a clause: a description, not a topic


def test_a_term_some_abstract_repeats_does_not_name_the_side_it_stands_in():
    from assistant.answer.linker import Link
    from assistant.answer.sides import Side, side_in

    weak, strong = Link("SNP", 0, ("p-snp-mention",), strong=False), Link("Kite", 0, ("p-kite",))
    assert side_in("oestrogen receptor SNP study", [weak]) == Side("oestrogen receptor SNP study")
    assert side_in("Kite distillation paper", [strong, weak]) == Side("Kite", ("p-kite",))  # the name heads it
    assert side_in("federated Kite variant", [strong]) == Side("federated Kite variant")  # inside: searched
    assert side_in("SNP", [weak]) == Side("SNP", ("p-snp-mention",))  # the whole side is the name: linked as written


def test_a_compound_of_a_common_acronym_and_plain_words_is_a_description_not_a_name():
    """"AI-agent platform" asks about a kind of thing; a title writing "AI-Agent" does not make it a name. A coined
    name with a capital after the hyphen ("MLP-Mixer") stays one. (Papers written for this test.)"""
    papers = [(f"p-{i}", f"Study {i}", f"AI systems help here. AI tools and an agent platform vary ({i}).", False)
              for i in range(5)]
    papers += [("p-comm", "Autonomous AI-Agent Communities", "We study AI-Agent communities and their posts.", False),
               ("p-mix", "MLP-Mixer: all-MLP vision", "We propose MLP-Mixer, an architecture of plain MLP layers.",
                False)]
    lex = Lexicon.build(papers)
    assert lex.status("AI") == "common" and lex.status("AI-agent") == "subject"
    assert lex.is_common("AI-agent") and not lex.is_common("MLP-Mixer")


def test_contracted_pronouns_and_names_inside_longer_proper_names_never_link():
    lex = Lexicon.build([
        ("p-im", "", "Ketamine given intramuscularly (IM) sedates children. IM ketamine caused vomiting in 8%.", True),
        ("p-nih", "", "Of 210 radiology professors, 48 held a National Institutes of Health (NIH) grant. NIH funding "
         "tracked the h-index, and a stroke scale score did not.", True),
    ])
    assert [k.name for k in lex.link("How much IM ketamine was given?")] == ["IM"]
    assert analyze("I'm looking for the sedation trial in children", None, lex).topic == ()
    assert [k.name for k in lex.link("Which professors had NIH funding?")] == ["NIH"]
    # "the NIH Stroke Scale" is a scale's name (the corpus writes "stroke" as a word); NIH only modifies it
    assert lex.link("Does the NIH Stroke Scale underrate right-hemisphere strokes?") == []


@pytest.mark.parametrize("question, kind", [
    ("Which experiments used sparse routing?", Kind.LIST),  # experiments, trials, cohorts: papers of the corpus
    ("churn studies in here?", Kind.LIST),
    ("Which trials were pooled in the churn meta-analysis?", Kind.SINGLE),  # the items of one paper
])
def test_studies_asked_across_the_corpus_are_lists_and_inside_one_report_are_not(lex, question, kind):
    assert analyze(question, None, lex).kind is kind


def test_how_long_wants_a_duration_not_a_lone_unit_word():
    lone = "Anxiety fell on the day before surgery in the intervention group (P=0.001)."
    assert missing_detail(("Kite",), (), "", True, lone, measure="duration").firm
    # "over what period" asks for a time span too ("a 15-year study" gives one)
    assert asked_parts("Over what period and how many indices was Kite tested?", ("Kite",))[1].measure == "duration"
    span = "A 15-year study of eight indices."
    assert missing_detail(("Kite",), (), "period", True, span, measure="duration") is None
    # "a"/"one" run into a word are no "a s", "one s": "as", "ones"
    for text in ("Kite uses per-face Jacobians as a mesh representation.", "Kite keeps the ones that move."):
        assert missing_detail(("Kite",), (), "", True, text, measure="duration").firm, text
    for text in ("Each session lasted 45 min.", "Follow-up was one year.", "It cut training from days to hours.",
                 "Sessions took an hour."):
        assert missing_detail(("Kite",), (), "", True, text, measure="duration") is None, text


def test_a_missing_part_of_an_asked_phrase_leaves_the_rest_answered():
    text = "Of 426 patients, one was not repairable (repair rate, 99.8%). Five died within a month."
    got = missing_detail(("Kite",), (), "repair rate and 30-day mortality", True, text)
    assert got.partial and not got.firm and got.why == "The Kite abstract reports no 30-day mortality."
    assert missing_detail(("Kite",), (), "repair rate and 30-day mortality", True,
                          text + " The 30-day mortality was 1.2%.") is None
    got = missing_detail(("Kite",), (), "bleeding rate and 30-day mortality", True, text)
    assert not got.partial  # no part is there: the whole asked detail is missing


def test_an_acronym_several_abstracts_define_and_none_coins_links_weakly():
    lex = Lexicon.build([
        ("p-a", "", "ST-elevation myocardial infarction (STEMI) patients got stents. STEMI deaths fell to 4%.", True),
        ("p-b", "", "In ST-elevation myocardial infarction (STEMI), thrombus aspiration helped. STEMI is rare.", True),
        ("p-c", "", "We propose AspirNet (ASPN), a thrombus detector. ASPN finds 90% of thrombi in STEMI scans.", True),
    ])
    assert [(k.name, k.strong) for k in lex.link("What did the STEMI study find?")] == [("STEMI", False)]
    assert [(k.name, k.strong) for k in lex.link("How accurate is ASPN?")] == [("ASPN", True)]  # coined: its name


def test_a_term_no_abstract_coins_after_an_indefinite_article_is_a_common_noun():
    lex = Lexicon.build([
        ("p-a", "", "ST-elevation myocardial infarction (STEMI) patients got stents. STEMI deaths fell to 4%.", True),
        ("p-b", "", "In ST-elevation myocardial infarction (STEMI), thrombus aspiration helped. STEMI is rare.", True),
        ("p-c", "", "We propose AspirNet (ASPN), a thrombus detector. ASPN finds 90% of thrombi in STEMI scans.", True),
    ])
    assert lex.link("Is there a STEMI of the right ventricle here?") == []  # "a STEMI": any such infarction
    assert lex.link("any STEMI?") == []
    assert [k.name for k in lex.link("What did the STEMI study find?")] == ["STEMI"]  # the one the corpus has
    assert [k.name for k in lex.link("Is there a STEMI trial here?")] == ["STEMI"]  # a modifier of "trial"
    assert [(k.name, k.strong) for k in lex.link("Is there an ASPN variant?")] == [("ASPN", True)]  # coined: a name


def test_a_term_many_abstracts_use_is_no_side_of_a_comparison():
    lex = Lexicon.build([
        ("p-a", "", "We propose KneeNet for bone-loss screening. KneeNet reached an AUROC of 0.93 on 224 knees.", True),
        ("p-b", "", "Retinal grading with CLIP. The area under the ROC curve (AUROC) was 0.98; AUROC rose with data.",
         True),
        ("p-c", "", "A sepsis score from vitals. Its AUROC was 0.81 in the test cohort.", True),
        ("p-e", "", "We propose HipNet for fracture detection. HipNet beats KneeNet on hips.", True),
    ])
    q = analyze("What AUROC did KneeNet reach for normal vs bone loss?", None, lex)
    assert q.kind is Kind.SINGLE and [s.text for s in q.sides] == []
    q = analyze("KneeNet vs HipNet: which detects more?", None, lex)  # two papers' own names: a comparison
    assert q.kind is Kind.COMPARE and [s.text for s in q.sides] == ["KneeNet", "HipNet"]


def test_an_asked_quantity_the_abstract_writes_as_its_acronym_is_there():
    text = "We propose LegoSLM. It gets an average of 49% WERR over the USM-CTC baseline on 8 MLS test sets."
    assert missing_detail(("LegoSLM",), (), "relative WER reduction", True, text) is None  # "WERR"
    got = missing_detail(("LegoSLM",), (), "relative WER reduction", True, text.replace("WERR", "BLEU gain"))
    assert got is not None and "relative" in got.why


def test_a_paper_using_every_distinctive_word_of_a_list_criterion_meets_it_at_a_lower_bar(monkeypatch):
    """"Which papers involve Minecraft?": a paper whose abstract says Minecraft only in passing ("its tasks run in
    Minecraft") has no sentence restating the criterion, yet uses its distinctive word: it meets the criterion at
    LEXICAL_RELIEF below the bar. A word is matched as a word: "conformance" is no "conformal". What the papers do
    with the topic ("involve") is no word a paper must use. (Papers written for this test; the scorer is a stub
    giving each paper's sentences one score.)"""
    import numpy as np

    from assistant.answer.criterion import uses_every_word
    from assistant.answer.listsize import LEXICAL_RELIEF, weigh_list
    from assistant.answer.state import Prepared
    from assistant.answer.topics import TopicWords
    from assistant.types import Hit, Record

    papers = [(f"p-{i}", f"Study {i}", f"Agents learn to plan in grid worlds ({i}).", False) for i in range(6)]
    papers += [("p-mc", "Agents in Minecraft", "We build agents that play Minecraft with language models.", False),
               ("p-mc2", "Team play", "A benchmark of cooperation between agents. Its tasks run in Minecraft.", False),
               ("p-conf", "Trace clustering", "Conformance checking of process traces.", False)]
    lex = Lexicon.build(papers)
    hits = [Hit(pid, Record(pid, text, label=label), 1.0) for pid, label, text, _ in papers]
    score = {"p-mc": 0.5, "p-mc2": 0.35 - LEXICAL_RELIEF + 0.05}

    class Scorer:
        def __init__(self):
            self.paper = ""

        def matrix(self, queries, sents):
            return np.full((len(queries), len(sents)), score.get(self.paper, 0.25), np.float32)

        def phrase_similarity(self, phrase, text):
            return 0.0

    class Cache:
        def get(self):
            return lex

    scorer = Scorer()
    topics = TopicWords(Cache(), scorer)
    assert uses_every_word(hits[7], [["Minecraft"]]) and not uses_every_word(hits[8], [["conformal"]])
    q = analyze("Which papers involve Minecraft?", None, lex)
    ordered = [hits[6], hits[7], *hits[:6]]

    class Tracking(list):  # the stub scorer scores each candidate's sentences by the paper being checked
        def __iter__(self):
            for h in list.__iter__(self):
                scorer.paper = h.paper_id
                yield h

    import assistant.answer.listsize as listsize

    real = listsize.candidates
    monkeypatch.setattr(listsize, "candidates", lambda hs, criterion, show=30: Tracking(real(hs, criterion, show)))
    p = Prepared(q, k=5, hits=list(ordered))
    found = weigh_list(p, topics, scorer, 0.35, calibrated=False)
    assert {h.paper_id for h, _, _ in p.rows} == {"p-mc", "p-mc2"} and found.matched == 2
    score["p-mc2"] = 0.35 - LEXICAL_RELIEF - 0.05  # below the relieved bar: not listed
    p = Prepared(q, k=5, hits=list(ordered))
    weigh_list(p, topics, scorer, 0.35, calibrated=False)
    assert {h.paper_id for h, _, _ in p.rows} == {"p-mc"}


def test_a_proper_word_of_a_list_criterion_is_a_part_every_listed_paper_writes():
    """"Which papers study the Moltbook AI-agent platform?": a paper on AI agents that never names Moltbook does
    not qualify, however well its sentences match the rest (the stub scorer gives every sentence 0.6); without the
    proper word every paper on agent platforms does. (Papers written for this test.)"""
    import numpy as np

    from assistant.answer.listsize import weigh_list
    from assistant.answer.state import Prepared
    from assistant.answer.topics import TopicWords
    from assistant.types import Hit, Record

    papers = [("p-molt", "Agents on Moltbook", "We study posts by AI agents on Moltbook, an agent platform.", False),
              ("p-plat", "Agent platforms", "AI agents meet on open agent platforms; we study their trust.", False),
              ("p-tf", "Speech", "Transformers are strong. We study speech transformers on agent platforms.", False)]
    lex = Lexicon.build(papers)
    hits = [Hit(pid, Record(pid, text, label=label), 1.0) for pid, label, text, _ in papers]

    class Scorer:
        def matrix(self, queries, sents):
            return np.full((len(queries), len(sents)), 0.6, np.float32)

        def phrase_similarity(self, phrase, text):
            return 0.0

        def vectors(self, texts):
            return np.ones((len(texts), 4), np.float32) / 2.0

    class Cache:
        def get(self):
            return lex

    topics = TopicWords(Cache(), Scorer())
    p = Prepared(analyze("Which papers study the Moltbook AI-agent platform?", None, lex), k=5, hits=list(hits))
    weigh_list(p, topics, Scorer(), 0.35, calibrated=False)
    assert {h.paper_id for h, _, _ in p.rows} == {"p-molt"}
    p = Prepared(analyze("Which papers study agent platforms?", None, lex), k=5, hits=list(hits))
    weigh_list(p, topics, Scorer(), 0.35, calibrated=False)
    assert {h.paper_id for h, _, _ in p.rows} == {"p-molt", "p-plat", "p-tf"}


def test_a_stated_topic_then_a_question_pointing_back_at_it_is_asked_of_the_topic(lex):
    q = analyze("I'm interested in token pruning. Which papers cover it?", None, lex)
    assert q.kind is Kind.LIST and "token pruning" in q.criterion
    q = analyze("My thesis is about speech routing. Are there papers on this topic?", None, lex)
    assert q.kind is Kind.LIST and "speech routing" in q.criterion
    # no pointer: the question as it opens (the statement is the asker's background), so "Which papers ...?" is a list
    q = analyze("I work on speech. What does Kite report?", None, lex)
    assert q.standalone == "What does Kite report?" and q.topic == ("p-kite",)
    q = analyze("I work on speech. Which papers use sparse routing?", None, lex)
    assert q.kind is Kind.LIST and q.criterion == "use sparse routing"
    # ... but a question pointing back at what the statement describes keeps it ("What did it find?")
    q = analyze("I remember a paper on sparse routing for speech. What did it find about FLOPs?", None, lex)
    assert q.standalone.startswith("I remember a paper on sparse routing")
    q = analyze("A study on token pruning found a surprise. What did it use?", None, lex)  # "it" is the study
    assert q.standalone == "A study on token pruning found a surprise. What did it use?"


@pytest.mark.parametrize("question, sides", [
    ("how do Orca and the token pruning method (Lumen) decide what to drop?", [("Orca", ("p-orca",)),
                                                                             ("Lumen", ("p-lumen",))]),
    ("For efficiency, what did Kite and Lumen each trade away?", [("Kite", ("p-kite",)), ("Lumen", ("p-lumen",))]),
    ("How do the speech Orca paper and Kite handle data?", [("Orca", ("p-orca",)), ("Kite", ("p-kite",))]),
])
def test_names_that_are_the_coordinated_subject_of_one_verb_are_each_answered(lex, question, sides):
    """'How do A and the X method (B) decide ...?': both papers are asked about, so both are sides."""
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE and [(s.text, s.paper_ids) for s in q.sides] == sides, q.sides


def test_a_comparison_frame_keeps_its_described_side_beside_co_subjects(lex):
    q = analyze("How do Orca, Kite and the token pruning paper differ in cost?", None, lex)
    assert q.kind is Kind.COMPARE and len(q.sides) == 3, q.sides


@pytest.mark.parametrize("question", [
    "How do Orca's FLOPs relate to Lumen?",  # a relation between the names, not one subject
    "How does Orca use fewer FLOPs on LibriSpeech?",  # one paper
    "What do we know about Orca and how it beats Whisper?",
])
def test_a_name_after_a_relation_word_is_no_co_subject(lex, question):
    assert analyze(question, None, lex).kind is Kind.SINGLE


def test_a_relation_between_two_things_is_no_comparison_unless_each_is_asked_about(lex):
    """"How is sleep duration related to obesity?" asks a finding (of one study, or of several), not a comparison of
    two papers; "How does Kite relate to Lumen? Does each use experts?" asks of each."""
    assert analyze("How is sleep duration related to obesity in children?", None, lex).kind is not Kind.COMPARE
    assert analyze("How does Kite relate to Lumen? Does each use experts?", None, lex).kind is Kind.COMPARE


@pytest.mark.parametrize("criterion, expected", [
    ("spiking neural networks for object detection", ["object detection"]),
    ("3D object detection from LiDAR point clouds for self-driving cars", ["LiDAR point clouds", "self-driving cars"]),
    ("federated learning for hospital or medical imaging data", ["hospital or medical imaging data"]),
    ("robots that learn to walk in the wild", []),  # one content word after the preposition: a word, not a facet
    ("papers on graph neural networks", ["graph neural networks"]),
    ("video frame interpolation", []),  # no preposition: a topic named in its own words
    # "for X or for Y": one facet whose alternatives a paper may cover either of
    ("mixture-of-experts models for diffusion image generation or for federated personalization",
     ["diffusion image generation or federated personalization"]),
])
def test_a_facet_is_what_a_preposition_attaches_to_the_topic(criterion, expected):
    from assistant.answer.criterion import facets

    assert [f for f, _ in facets(criterion)] == expected


def test_a_listed_paper_must_cover_an_essential_facet_not_one_of_its_words():
    """"Spiking neural networks for object detection": a spiking network for image enhancement shares the topic's
    head but not what it is for; "trajectory prediction for autonomous driving": a paper on "autonomous operation"
    of a wheel loader uses one word of the facet, not the facet. A paper covers a facet by using every content word
    of one of its alternatives ("hospital or medical imaging data") in some form, or by a best sentence nearer the
    criterion with the facet than without it; a list's facet that barely moves the criterion ("... for self-driving
    cars") by some sentence saying it on its own (`FACET_SAID`: a crop-mapping robot with LiDAR does not). (Abstracts
    written for this test; the scorer is a stub saying which of the two a sentence is nearer, and how near each
    sentence comes to the facet alone.)"""
    from assistant.answer.criterion import facets
    from assistant.answer.topics import TopicWords
    from assistant.types import Hit, Record

    nearer, alone = {}, {}

    class Scorer:
        def cosines(self, sentence, texts):  # (with the facet, without it)
            return (0.6, 0.4) if nearer.get(sentence) == "whole" else (0.4, 0.6)

        def matrix(self, claims, sentences):  # each sentence against the facet alone
            import numpy as np

            return np.array([[alone.get(s, 0.1) for s in sentences]])

    t = TopicWords(lexicon=None, scorer=Scorer())
    crit = "spiking neural networks for object detection"
    essential = facets(crit)
    enhance = Hit("p1", Record("p1", "We apply spiking neural networks to underwater image enhancement."), 1.0)
    detect = Hit("p2", Record("p2", "Spiking networks for the detection of objects in event streams."), 1.0)
    assert t.lacks(essential, crit, enhance, "We apply spiking neural networks to image enhancement.") \
        == ("object detection",)
    assert t.lacks(essential, crit, detect, "Spiking networks for the detection of objects.") == ()  # any form
    crit2 = "trajectory prediction for autonomous driving"  # one word of the facet is not the facet
    loader = "Accurate excavation force prediction enables autonomous operation of wheel loaders."
    assert t.lacks(facets(crit2), crit2, Hit("p7", Record("p7", loader), 1.0), loader) == ("autonomous driving",)
    said = "Spiking networks locate cars and pedestrians in traffic scenes."
    nearer[said] = "whole"  # no facet word, but the sentence is nearer the criterion with the facet
    assert t.lacks(essential, crit, Hit("p3", Record("p3", said), 1.0), said) == ()
    # a list's facet that barely moves its criterion (no "without"): some sentence must say it on its own
    crit3 = "3D object detection from LiDAR point clouds for self-driving cars"
    crop = "A ground robot maps cover crop biomass from LiDAR point clouds and optical images."
    alone[crop] = 0.07
    assert t.lacks((("self-driving cars", ""),), crit3, Hit("p8", Record("p8", crop), 1.0), crop) == \
        ("self-driving cars",)
    car = "We detect vehicles and pedestrians around autonomous cars from LiDAR scans."
    alone[car] = 0.5
    assert t.lacks((("self-driving cars", ""),), crit3, Hit("p9", Record("p9", car), 1.0), car) == ()

    crit = "federated learning for hospital or medical imaging data"
    essential = facets(crit)
    mobile = Hit("p4", Record("p4", "Federated learning on mobile devices with heterogeneous image quality."), 1.0)
    clinic = Hit("p5", Record("p5", "Federated learning across hospitals keeps patient records local."), 1.0)
    assert t.lacks(essential, crit, mobile, "Federated learning on mobile devices.") == (essential[0][0],)
    assert t.lacks(essential, crit, clinic, "Federated learning across hospitals.") == ()  # one alternative, whole
    crit = "benchmarks for measuring cultural bias in vision-language models"  # the verb opening a facet: any verb
    bias = Hit("p6", Record("p6", "A benchmark evaluating cultural bias of vision-language models."), 1.0)
    assert t.lacks(facets(crit), crit, bias, "A benchmark evaluating cultural bias.") == ()


def test_a_lists_facet_is_essential_however_little_its_removal_moves_the_criterion():
    """Leaving out one word of "spiking neural networks for object detection" barely moves it, and neither, for
    MiniLM, does leaving out a long facet ("3D object detection from LiDAR point clouds | for self-driving cars"):
    what the asker restricts a list to is essential all the same, a word only when its removal moves the criterion.
    (A stub scorer: only the criterion without "spiking" is far.)"""
    import numpy as np

    from assistant.answer.topics import TopicWords

    class Scorer:
        def vectors(self, texts):
            far = np.array([0.5, 0.866], np.float32)
            near = np.array([1.0, 0.0], np.float32)
            return np.stack([far if "spiking" not in t else near for t in texts])

    topics = TopicWords(lexicon=None, scorer=Scorer())
    essential = topics.essential_words("spiking neural networks for object detection", every_facet=True)
    assert essential == (("spiking", "neural networks for object detection"),
                         ("object detection", ""))  # (no "without" to compare with: its own sentence must say it)
    crit = "3D object detection from LiDAR point clouds for self-driving cars"
    assert [w for w, _ in topics.essential_words(crit, every_facet=True) if " " in w] == ["LiDAR point clouds",
                                                                                        "self-driving cars"]
    # a paper described in the asker's own words keeps only the facets that move it
    assert topics.essential_words("spiking neural networks for object detection") == (
        ("spiking", "neural networks for object detection"),)


def test_the_x_paper_asked_is_declined_when_many_abstracts_mention_x_and_none_is_about_it():
    """In a library of realistic size a popular method ("EAGLE-3") is mentioned by several abstracts, so the name
    links to none of them and no near-miss fires; "What does the EAGLE-3 paper propose?" still asks for a paper no
    abstract is (none heads its label with the name, coins it or defines it): declined. A name some abstract coins
    is answered however many others mention it. (Abstracts written for this test.)"""
    from assistant.answer.linker import Lexicon as Lx

    papers = [(f"p-{i}", f"Faster drafting {i}", f"Our drafter beats EAGLE-3 on chat. EAGLE-3 is slower here ({i}).",
               False) for i in range(5)]
    papers.append(("p-kite", "Kite: speculative decoding", "We propose Kite, a drafter. Kite beats EAGLE-3.", False))
    lx = Lx.build(papers)
    assert not lx.is_own_name("EAGLE-3") and lx.is_own_name("Kite")
    assert lx.link("What does the EAGLE-3 paper propose?") == []  # shared by many: links nowhere


@pytest.mark.parametrize("question, asked", [
    ("orca BLEU on which test sets?", "BLEU"),  # a question word after a preposition asks of the head
    ("Kite CIFAR-100 accuracy vs FedAvg?", "CIFAR-100"),  # its names: the rest is the asker's wording
    ("Kite avg accuracy gain vs FedAvg?", ""),
    ("What does Orca report?", ""),  # a full question: its own patterns read it
    ("kite, which datasets?", ""),  # the question word opens a clause of its own
    ("speech recognition with sparse routing?", ""),  # no paper named: a description, not an asked detail
])
def test_a_terse_question_asks_what_its_words_name(lex, question, asked):
    assert analyze(question, None, lex).asked == asked


def test_a_terse_question_for_a_metric_the_abstract_never_names_is_missing(lex):
    """"orca BLEU on which test sets?": the terse form asks the same as "What BLEU does Orca get?", and the Orca
    abstract names no BLEU; its WER it does report (written out in the abstract)."""
    text = {pid: body for pid, _, body, _ in CORPUS}
    for question in ("orca BLEU on which test sets?", "What BLEU does Orca get?"):
        q = analyze(question, None, lex)
        got = missing_detail(q.topic_names, q.details, q.asked, q.numeric, text["p-orca"])
        assert got and got.firm and "BLEU" in got.why
    q = analyze("orca WER on librispeech?", None, lex)
    assert q.asked == "WER"
    assert missing_detail(q.topic_names, q.details, q.asked, q.numeric, text["p-orca"]) is None
    q = analyze("orca avg error gain?", None, lex)  # the asker's own words for a value: nothing to find verbatim
    assert q.asked == "" and missing_detail(q.topic_names, q.details, q.asked, q.numeric, text["p-orca"]) is None


def test_names_in_the_askers_description_of_a_paper_are_not_asked_of_it(lex):
    """"I remember a study that ran OpenAI recognizers on Urdu. Which ...?": the asker describes the paper in their own
    words (the abstract may say "Whisper"); a name in that description is not a detail its abstract must hold. A paper
    named outright keeps every name asked of it."""
    q = analyze("I remember a study that ran small off-the-shelf OpenAI recognizers on Urdu speech, with no "
                "fine-tuning at all. Which size did best, and what was its error rate?", None, lex)
    assert "OpenAI" not in q.details
    assert "Whisper" in analyze("Does Kite beat Whisper?", None, lex).details  # a paper named: every name is asked


def test_a_follow_ups_details_are_its_own_words_not_the_earlier_turns(lex):
    """The standalone form of "which dataset did the second one use?" carries the earlier turn's words ("one that beats
    Whisper on LibriSpeech"); those say which paper is meant, and are not details asked of it."""
    conv = Conversation()
    conv.add(Turn("I have two papers in mind: one that beats Whisper on LibriSpeech, and a federated one.", "...", "",
                  ("p-kite",), ("p-kite",)))
    q = analyze("for the second one, which dataset did they use?", conv, lex)
    assert q.followup and "Whisper" in q.standalone  # the earlier turn says which paper is meant ...
    assert q.details == ()  # ... and asks nothing of it


def test_the_experiments_one_named_paper_reports_are_no_list_of_papers(lex):
    """"What experiments and results does the X paper report?" asks about one paper, as "Which trials were pooled in
    the X meta-analysis?" does; "Which experiments study sparse routing?" asks the collection."""
    assert analyze("What experiments and results does the Orca paper by Kim et al. report?", None, lex).kind \
        is Kind.SINGLE
    assert analyze("Which trials were pooled in the Orca meta-analysis?", None, lex).kind is Kind.SINGLE
    assert analyze("Which experiments study sparse routing?", None, lex).kind is Kind.LIST


def test_a_named_instance_asked_by_its_own_name_is_there_when_the_abstract_writes_it():
    text = "We introduce the Minimal Video Pairs (MVP) benchmark, 55K video QA pairs. Models are tested on benchmarks."
    # the corpus writes "minimal", "video", "pairs" in lower case: "MVP" reads as a concept's acronym, no named one
    common = lambda t: all(w.lower() in {"minimal", "video", "pairs", "qa", "models"} for w in t.split())  # noqa: E731
    got = missing_detail((), (), "Minimal Video Pairs benchmark", False, text, common=common)
    assert got is None, got  # "What is the Minimal Video Pairs benchmark?"
    # a capitalised kind is no name of one: "Which LLM backbone does X use?" still needs a named LLM
    assert missing_detail(("X",), (), "LLM backbone", False, "X pairs a vision encoder with an LLM backbone.")


def test_how_big_asks_the_size_of_its_noun_phrase():
    """"How big is the dataset they collected?" asks a figure for the dataset (not nothing): an abstract that only
    says it collected a dataset lacks it, one that counts the dataset's items has it."""
    for question, asked in (("How big is the dataset the toxicity paper collected?", "dataset"),
                            ("how big is the corpus Kite was pretrained on?", "corpus"),
                            ("How large were the gains, and which platform did it use?", "gains")):
        ask = asked_parts(question, ())[1]
        assert (ask.asked, ask.numeric) == (asked, True), question
    assert asked_parts("How big is it?", ())[1].asked == ""  # (no noun phrase: "it" is the paper)
    assert asked_parts("What top-1 does it reach, and how big is that variant?", ())[2][0].asked == ""  # (referred)
    ask = asked_parts("How big is the dataset the toxicity paper collected?", ())[1]
    assert ask.measure == "size"

    def miss(ask, text):
        return missing_detail((), (), ask.asked, ask.numeric, text, heads_only=True, measure=ask.measure)

    got = miss(ask, "We detect toxicity. We use a dataset we collected.")
    assert got is not None and got.firm and got.why.endswith("reports no size of the dataset.")
    assert miss(ask, "We collected a dataset of 12,000 posts.") is None
    # a thing the abstract never names may be sized in its own words: any figure may be it
    assert miss(asked_parts("How large was the cohort?", ())[1], "We enrolled 1,204 patients at 12 sites.") is None
    assert miss(ask, "We collected 12,000 dialogues.") is None


def test_a_quantity_per_unit_is_one_thing_asked_not_two_parts():
    """"How much money per patient ...?" asks one quantity: the abstract counting patients does not answer part of
    it (a partial answer), it lacks the whole; "what cost and how many patients" asks two."""
    text = "The programme was tested in clinics. Thirty patients were recruited."
    got = missing_detail(("F",), (), "money per patient", True, text)
    assert got is not None and not got.partial
    got = missing_detail(("F",), (), "cost and patients", True, text)
    assert got is not None and got.partial
    # one quantity whose every part has a figure is there: 300 patients, 120 of them with diabetes
    assert missing_detail(("F",), (), "patients with diabetes", True,
                          "F enrolled 300 patients. Of these, 120 had diabetes.", measure="count") is None


def test_an_acronym_another_abstract_tests_at_length_is_not_its_own_name():
    """An abstract with a name of its own that defines another's method and discusses it ("even against Greedy
    Coordinate Gradient (GCG), a white-box attack ...") is about GCG but no GCG paper: "the GCG paper" is not in this
    corpus. An acronym it presents as new, or its own name, stays its own. (Abstracts written for this test.)"""
    lx = Lexicon.build([
        ("p-press", "Alignment Under Pressure: defences against suffix attacks", "Defences report near-zero success "
         "even against Greedy Coordinate Gradient (GCG), a white-box attack that optimises adversarial suffixes. We "
         "show that GCG variants break them. Adaptive GCG reaches 90% success, and GCG transfers.", False),
        ("p-mist", "Mist: gradient-free jailbreaks", "We study suffix attacks. A novel Masked Iterative Suffix "
         "Tuning (MIST) attack is proposed. MIST needs no gradients, MIST is fast, and MIST transfers.", False),
    ])
    assert lx.status("GCG") == "subject" and not lx.is_own_name("GCG")
    assert lx.is_own_name("MIST") and lx.is_own_name("Mist")
    q = analyze("What does the GCG attack paper propose?", None, lx)
    assert q.topic == ("p-press",) and not q.topic_strong  # (linked by repetition only: the near-miss rules judge it)
    # a component the paper's own name introduces stays its own, without "our" or "novel"
    kite = Lexicon.build([("p-kite", "Kite: fast routing", "The core of Kite is a Hierarchical Routing Module (HRM). "
                           "HRM routes tokens, HRM is fast and HRM scales.", False)])
    assert kite.is_own_name("HRM")


def test_a_polite_request_reads_like_the_request():
    """"Can you explain how X ...?" asks what "Explain how X ..." asks: X in the subject position is read (a name
    only mentioned in passing stays a near-miss)."""
    lx = Lexicon.build([
        ("p-bit", "BitDecoding: low-bit KV caches", "We propose BitDecoding, a GPU kernel for low-bit KV caches. It "
         "is 7x faster than FP16 FlashDecoding-v2.", False),
    ])
    from assistant.answer.name_finding import yes_no

    for q in ("Can you explain how FlashDecoding-v2 parallelizes attention?",
              "Explain how FlashDecoding-v2 parallelizes attention?"):
        assert ("FlashDecoding-v2", "passing") in analyze(q, None, lx).unlinked, q
        assert not yes_no(q), q  # a request, not whether a finding holds
    assert yes_no("Can FlashDecoding-v2 run on CPUs?")
