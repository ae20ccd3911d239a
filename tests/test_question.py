"""Question understanding (linker, analysis, follow-ups, asked-detail checks) on a small hand-written
corpus. The questions are written for these tests; none comes from a dev or evaluation set."""

from __future__ import annotations

import pytest

from assistant.answer.answerable import missing_detail
from assistant.answer.conversation import Conversation
from assistant.answer.linker import Lexicon
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
])
def test_comparisons_find_every_side(lex, question, sides):
    q = analyze(question, None, lex)
    assert q.kind is Kind.COMPARE
    assert [s.paper_ids[0] for s in q.sides] == sides


def test_two_named_papers_without_a_comparison_cue_are_one_answer_about_both(lex):
    q = analyze("Summarize Kite and Orca.", None, lex)
    assert q.kind is Kind.SINGLE and q.topic == ("p-kite", "p-orca")


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
    text = dict((p, t) for p, _, t, _ in CORPUS)
    assert missing_detail(("Orca",), q.details, q.asked, q.numeric, text["p-orca"]) == ""
    q = analyze("What BLEU score does Orca reach on CoVoST?", None, lex)
    assert missing_detail(("Orca",), q.details, q.asked, q.numeric, text["p-orca"]).startswith("The Orca abstract reports no")
    q = analyze("What batch size was used to train Kite?", None, lex)
    assert missing_detail(("Kite",), q.details, q.asked, q.numeric, text["p-kite"]) == "The Kite abstract reports no batch size."
    q = analyze("What fraction of tokens does Lumen keep?", None, lex)
    assert missing_detail(("Lumen",), q.details, q.asked, q.numeric, text["p-lumen"]) == ""
    q = analyze("What fraction of clients does Kite sample?", None, lex)
    assert missing_detail(("Kite",), q.details, q.asked, q.numeric, text["p-kite"]) != ""


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
