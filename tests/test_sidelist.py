"""A comparison's sides read as one coordinated list wherever the question puts it (assistant/answer/sidelist.py),
checked through `analyze` on a small hand-written corpus. The questions are written for these tests; none comes
from a dev or evaluation set."""

from __future__ import annotations

import pytest

from assistant.answer.linker import Lexicon
from assistant.answer.question import Kind, _compares_inside, analyze
from assistant.answer.sidelist import listed_sides, stated_count
from assistant.answer.sides import framed_sides

CORPUS = [
    ("p-orca", "Orca: sparse routing for speech models", "We propose Orca, a sparse routing method for speech "
     "recognition. Orca lowers the word error rate to 4.1% on LibriSpeech.", False),
    ("p-kite", "Kite: federated distillation", "We introduce Kite, a federated distillation framework. Kite distils "
     "a server ensemble into each client.", False),
    ("p-lumen", "Lumen: token pruning for vision transformers", "Our method, Lumen, prunes redundant tokens in every "
     "layer of a vision transformer.", False),
    ("p-vexa", "VexaNet: graph planning", "We present VexaNet, a planner over learned graphs.", False),
]


@pytest.fixture(scope="module")
def lex() -> Lexicon:
    return Lexicon.build(CORPUS)


@pytest.mark.parametrize("question, sides", [
    # a lead before the clause; a description first, names after it
    ("Speech and vision: how do Orca, the paper that prunes tokens layer by layer, and Kite differ in cost?",
     ["Orca", "prunes tokens layer by layer", "Kite"]),
    ("Efficient models: contrast the one that distils a server ensemble, Orca, and Lumen. What does each save?",
     ["distils a server ensemble", "Orca", "Lumen"]),
    # three descriptions after a colon, the last running to the clause's end
    ("Compare three pruning papers: the one that drops whole layers, the one that merges similar tokens, and the "
     "one arguing that pruning hurts calibration.",
     ["drops whole layers", "merges similar tokens", "arguing that pruning hurts calibration"]),
    # the sides in a lead of their own, the group counted in the question
    ("How do these three cut compute: the sparse attention one, Orca, and Lumen?",
     ["sparse attention", "Orca", "Lumen"]),
])
def test_every_side_of_a_listed_comparison_is_found(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE
    assert sorted(s.text for s in q.sides) == sorted(sides)


@pytest.mark.parametrize("question, sides", [
    # the subject of a statement, then a question asking of both
    ("Orca and the planner that searches a learned graph with beam search are both tested on MazeBench. "
     "How do they plan differently?", ["Orca", "planner that searches a learned graph with beam search"]),
    ("Kite and VexaNet are both small. How do they differ in size?", ["Kite", "VexaNet"]),
    ("orca, the mixture-of-experts speech paper, and lumen all route tokens. how does each do it?",
     ["Orca", "mixture-of-experts speech", "Lumen"]),
    # "one X, another Y" / "one X, the other Y"
    ("one paper removes the verifier from training, another builds a better verifier. how do they differ?",
     ["removes the verifier from training", "builds a better verifier"]),
    ("Two federated papers: one clusters clients, the other lets clients pick whom to trust. How does each decide?",
     ["clusters clients", "lets clients pick whom to trust"]),
])
def test_a_comparison_outside_the_frames_is_read_as_one(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE
    assert [s.text.lower() for s in q.sides] == [s.lower() for s in sides]


@pytest.mark.parametrize("question", [
    # a paper described with "both"/"each"/"and": one paper, not a comparison
    "Is there a planner that is equivariant both to rotations and to where the sequence starts?",
    "I remember a method that fits a small model per rule and has an LLM generate examples where the two disagree. "
    "Which base model did it use?",
    "Is there a speech method for settings where clients are many and data is scarce that weights each client?",
    "One of the papers recasts tokens as graph nodes using optimal transport and quasiconformal mapping. What does "
    "it report?",
    "What accuracy does Orca reach on LibriSpeech and on TED-LIUM?",
    # "A versus B" asked of one paper: a contrast inside it, unless the question says its papers are several
    "What did the Orca study conclude about sparse routing versus Dense routing for long audio?",
])
def test_a_described_paper_is_no_comparison(lex, question):
    assert analyze(question, None, lex).kind is Kind.SINGLE


@pytest.mark.parametrize("question, sides", [
    # attributes after the sides are no sides; "and" inside a side that "vs" separates stays in it
    ("Compare the Orca study and the Lumen study on sample size and main finding.", 2),
    ("The paper that compresses embeddings with quantization and pruning vs the one that drops patches: how much "
     "does each save?", 2),
    ("Compare Kite and Orca on how they store and retrieve client updates.", 2),
])
def test_what_is_asked_of_the_sides_adds_no_side(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE and len(q.sides) == sides


def test_the_count_the_question_states_must_match():
    assert stated_count("How do these three handle noise?") == 3
    assert stated_count("Two speech papers: one X, the other Y.") == 2
    assert listed_sides("How do these three cache keys: Kaptor and Zelvo?", []) == ()


@pytest.mark.parametrize("question, sides", [
    # a question word with words before its auxiliary ("which datasets did"); a side that gives its name in a bracket
    ("Which datasets did Orca, the token pruning paper (Lumen), and the graph planner each evaluate on?",
     ["Orca", "Lumen", "graph planner"]),
    # the lead counts the papers, then each is given by "one ..."
    ("There are two speech papers here, one about sparse routing and one about distillation. What does each report?",
     ["sparse routing", "distillation"]),
    # a "versus" in a later sentence is what is asked, not where the sides are
    ("One study routes speech tokens sparsely, another prunes vision tokens. Do they find pruning better versus "
     "routing?", ["routes speech tokens sparsely", "prunes vision tokens"]),
])
def test_sides_outside_the_frames_keep_every_item_and_the_lead_that_counts_them_is_none(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE
    assert [s.text.lower() for s in q.sides] == [s.lower() for s in sides]


def test_a_name_written_in_lower_case_is_a_side_where_vs_lists_it():
    # the name is used, not defined as a title's head: a weak link, and the question writes it in lower case
    forget = ("p-forget", "Prompted forgetting in GANs", "Unlearning in GANs is unexplored. We address this gap by "
              "proposing Prompt-to-Unlearn, a framework that erases concepts from pre-trained GANs using only text "
              "prompts. Prompt-to-Unlearn keeps image quality.", False)
    lower = Lexicon.build([*CORPUS, forget])
    q = analyze("erasure: prompt-to-unlearn vs Orca vs the graph planner. what does each remove?", None, lower)
    assert not next(k for k in q.links if k.name == "prompt-to-unlearn").strong
    assert q.kind is Kind.COMPARE
    assert [s.text.lower() for s in q.sides] == ["prompt-to-unlearn", "orca", "graph planner"]
    assert q.sides[0].paper_ids == ("p-forget",)


def test_a_choice_between_two_counted_reports_keeps_its_frame(lex):
    q = analyze("Which of the two speech analyses, the routing one or the distillation one, found a lower error "
                "rate?", None, lex)
    assert q.kind is Kind.COMPARE
    assert [s.text for s in q.sides] == ["routing", "distillation"]


def test_a_bracketed_name_ending_a_description_names_that_side(lex):
    q = analyze("How do Orca and the tool for reading and writing transcripts (Kite) differ?", None, lex)
    assert [s.text for s in q.sides] == ["Orca", "Kite"]


@pytest.mark.parametrize("question, sides", [
    ("U.S. adults vs. U.K. adults: which group used statins more?", ["U.S. adults", "U.K. adults"]),  # abbreviations
    ("Orca vs the pruning paper. Which one reports lower error?", ["Orca", "pruning"]),  # a side ends with its sentence
])
def test_a_vs_frame_reads_abbreviations_and_stops_at_the_sentence_end(question, sides):
    assert [s.text for s in framed_sides(question, [])] == sides


@pytest.mark.parametrize("question, inside", [
    ("How do humans compare with the best open-source model on it?", True),
    ("and how did the model do on the first try versus after iterating with their framework?", True),
    ("How does it compare with Orca?", False),  # "it" is a side
    ("How does the proposed approach compare with the pruning paper we discussed?", False),
    ("How do these results compare to the earlier paper?", False),
    ("how does the former approach differ from the latter?", False),
])
def test_a_follow_up_compares_inside_its_paper_only_when_no_side_is_a_paper(lex, question, inside):
    assert _compares_inside(question, lex.link(question)) is inside
