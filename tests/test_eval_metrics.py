"""eval.metrics on hand-made cases; every expected value is worked out by hand in the comments."""

from __future__ import annotations

import math

import pytest

from eval import metrics as M
from eval.ir import retrieval_scores

A, B, C = frozenset({"a"}), frozenset({"b"}), frozenset({"c"})

CORPUS = {
    "a": "FedMerge merges several global models into one personalised model per client.",
    "b": "Prune&Comp reduces perplexity by 24.72% on LLaMA-3-8B after layer pruning.",
    "c": "We sparsify 2-FWL graph neural networks and keep full expressivity.",
    "c2": "We sparsify 2-FWL graph neural networks and keep full expressivity (journal version).",
}


def test_resolve_keys_maps_each_key_to_the_abstract_containing_it():
    idx = M.resolve_keys(["merges several global models", "reduces  PERPLEXITY by 24.72%", "not anywhere"], CORPUS)
    assert idx["merges several global models"] == {"a"}
    assert idx["reduces  PERPLEXITY by 24.72%"] == {"b"}  # whitespace and case are normalised
    assert idx["not anywhere"] == frozenset()
    # a key in two versions of one paper: both ids belong to the unit
    idx = M.resolve_keys(["sparsify 2-FWL graph"], CORPUS, {"c": "c", "c2": "c"})
    assert idx["sparsify 2-FWL graph"] == {"c", "c2"}


def test_gold_units_dedupe_and_unresolved_keys():
    units = M.gold_units(["k1", "k2", "k3"], ["b"], {"k1": A, "k2": A, "k3": frozenset()})
    # k1 and k2 are in the same abstract -> one unit; k3 unresolved -> its own unmatched unit; gold id b -> {b}
    assert units == [A, frozenset({"?key:k3"}), B]


def S(ranking, units):
    """The retrieval metrics as the harness computes them (trec_eval over unit ids, eval/ir.py)."""
    return retrieval_scores(ranking, units)


def test_recall_at_k():
    # 3 gold keys in 3 abstracts a, b, c; top-5 = [x, a, y, b, z] holds 2 of them -> 2/3 = 0.667
    ranking = ["x", "a", "y", "b", "z", "c"]
    assert S(ranking, [A, B, C])["recall@5"] == pytest.approx(0.667, abs=1e-3)
    # top-10 also holds c (rank 6) -> 3/3
    assert S(ranking, [A, B, C])["recall@10"] == 1.0
    assert S(ranking, [])["recall@5"] is None  # no gold: not applicable
    # two versions of one paper in the top 5 find one unit once: {a, a2} + {b} -> 1/2
    assert S(["a", "a2", "x"], [frozenset({"a", "a2"}), B])["recall@5"] == 0.5


def test_reciprocal_rank():
    # first relevant paper at rank 3 -> 1/3
    assert S(["x", "y", "b", "a"], [A, B])["mrr"] == pytest.approx(1 / 3)
    assert S(["x", "y"], [A])["mrr"] == 0.0
    # cut at 10: relevant only at rank 11 -> 0
    assert S([f"x{i}" for i in range(10)] + ["a"], [A])["mrr"] == 0.0
    assert S(["a"], [])["mrr"] is None
    assert S([], [A])["mrr"] == 0.0  # nothing retrieved: 0, not missing


def test_ndcg_at_10_by_hand():
    # gold units {a}, {b}; ranking [a, x, b]:
    #   DCG  = 1/log2(2) + 1/log2(4) = 1 + 0.5 = 1.5
    #   IDCG = 1/log2(2) + 1/log2(3) = 1 + 0.63093 = 1.63093
    #   nDCG = 1.5 / 1.63093 = 0.91972
    assert S(["a", "x", "b"], [A, B])["ndcg@10"] == pytest.approx(0.91972, abs=1e-4)
    # a single relevant paper at rank 2 -> (1/log2 3) / 1 = 0.63093
    assert S(["x", "a"], [A])["ndcg@10"] == pytest.approx(1 / math.log2(3))
    # perfect ranking -> 1; nothing relevant -> 0
    assert S(["a", "b"], [A, B])["ndcg@10"] == pytest.approx(1.0)
    assert S(["x", "y"], [A, B])["ndcg@10"] == 0.0
    # a second version of an already-found paper gains nothing: unit {c, c2}, ranking [c, c2] -> 1/1
    assert S(["c", "c2"], [frozenset({"c", "c2"})])["ndcg@10"] == pytest.approx(1.0)
    # 12 gold units: the ideal DCG counts only 10
    units = [frozenset({f"g{i}"}) for i in range(12)]
    assert S([f"g{i}" for i in range(10)], units)["ndcg@10"] == pytest.approx(1.0)


def test_citation_precision_and_recall():
    # cited a, x (x not gold): precision 1/2; gold units a, b: recall 1/2
    assert M.citation_precision(["a", "x"], [A, B]) == 0.5
    assert M.citation_recall(["a", "x"], [A, B]) == 0.5
    # the same paper cited twice counts once: [a, a, b] -> precision 2/2
    assert M.citation_precision(["a", "a", "b"], [A, B]) == 1.0
    assert M.citation_precision([], [A]) is None  # no citations: precision undefined
    assert M.citation_recall([], [A]) == 0.0
    assert M.citation_recall(["a"], []) is None


def test_content_words_and_stemming():
    assert M.content_words("The models were trained") == {"model", "train"}
    assert M.stem("experiments") == "experiment"
    assert "24.72" in M.content_words("a gain of 24.72% points")


def test_sentence_support_overlap_and_verbatim():
    support = ["Experiments on CIFAR-10 show FedMerge beats clustering-based personalised federated learning."]
    # verbatim (markers stripped) -> 1.0
    assert M.sentence_support("FedMerge beats clustering-based personalised federated learning [1].", support) == 1.0
    # content words: fedmerge, evaluat, cifar, 10, imagenet -> 3 of 5 in support (fedmerge, cifar, 10) = 0.6
    assert M.sentence_support("FedMerge is evaluated on CIFAR-10 and ImageNet.", support) == pytest.approx(0.6)
    # fedmerge, train, imagenet, mnist -> only fedmerge = 0.25
    assert M.sentence_support("FedMerge trains on ImageNet and MNIST.", support) == pytest.approx(0.25)


def test_support_counts_on_an_answer():
    citations = [
        {"marker": 1, "paper_id": "a", "title": "FedMerge", "text": CORPUS["a"],
         "sentences": ["FedMerge merges several global models into one personalised model per client."]},
        {"marker": 2, "paper_id": "b", "title": "Prune&Comp", "text": CORPUS["b"], "sentences": []},
    ]
    answer = (
        "FedMerge merges several global models into a personalised model for each client [1]. "  # supported
        "Prune&Comp reduces perplexity by 24.72% [2]. "  # supported (whole abstract used: no sentences listed)
        # prune, comp, train, imagenet, reinforcement, learn: 2/6
        "Prune&Comp was trained on ImageNet with reinforcement learning [2]. "
        "Both methods improve robustness against adversarial attacks.\n\n"  # no marker -> unsupported
        "*Not covered by the indexed abstracts: ImageNet.*"  # note line: not a claim
    )
    supported, claims, details = M.support_counts(answer, citations)
    assert (supported, claims) == (2, 4)
    assert [d["supported"] for d in details] == [True, True, False, False]


def test_claim_units_tables_lists_and_leading_markers():
    text = (
        "**2 papers** in the indexed abstracts match “federated learning”:\n\n"  # lead-in ending with ':'
        "1. **FedMerge** — FedMerge merges several global models per client [1]\n"
        "2. **PAC-Bayes FL** — derives a PAC-Bayes upper bound for federated models [2]"
    )
    units = M.claim_units(text)
    assert [m for _, m in units] == [[1], [2]]
    table = "| Paper | Method |\n|---|---|\n| **FedMerge** [1] | merges several global models per client [1] |\n" \
            "| **Other** [2] | not reported in the abstract |"
    assert M.claim_units(table) == [("merges several global models per client [1]", [1])]
    # a cell without its own marker takes the row's (first cell's) marker; the first cell itself is a label
    row = "| A | B |\n|---|---|\n| **Prune&Comp layer pruning scheme** [2] | rescales remaining weights offline |"
    assert M.claim_units(row) == [("rescales remaining weights offline", [2])]
    # a marker that opens the next sentence belongs to the previous one
    assert M.claim_units("Layer pruning compresses large models. [1] Gains hold across model sizes.") == [
        ("Layer pruning compresses large models.", [1]), ("Gains hold across model sizes.", [])]
    # fewer than three content words ("It works well" -> work, well is a stopword) is not a claim
    assert M.claim_units("It works well.") == []


def test_abstention_precision_recall():
    # (unanswerable, abstained): TP=2 (abstained on 2 of 3 unanswerable), FN=1, FP=1 (abstained on an answerable), TN=2
    c = M.abstention_counts([(True, True), (True, True), (True, False), (False, True), (False, False), (False, False)])
    assert c == {"tp": 2, "fn": 1, "fp": 1, "tn": 2}
    assert M.abstention_precision(c) == pytest.approx(2 / 3)  # 2 / (2 + 1)
    assert M.abstention_recall(c) == pytest.approx(2 / 3)  # 2 / (2 + 1)
    assert M.abstention_precision({"tp": 0, "fn": 3, "fp": 0, "tn": 1}) is None  # never abstained


def test_must_mention_and_percentiles():
    assert M.must_mention_coverage("Evaluated on CIFAR-10 and  Tiny ImageNet.",
                                   ["cifar-10", "tiny imagenet", "MNIST"]) == pytest.approx(2 / 3)
    assert M.must_mention_coverage("anything", []) is None
    # p50 of [1, 2, 3, 10] = (2 + 3) / 2 = 2.5; p95: position 0.95 * 3 = 2.85 -> 3 + 0.85 * (10 - 3) = 8.95
    assert M.percentile([3, 1, 10, 2], 50) == 2.5
    assert M.percentile([3, 1, 10, 2], 95) == pytest.approx(8.95)
    assert M.percentile([], 50) is None


def _rec(ranking, cited, abstained=False, answer="", timings=None):
    return {"ranking": ranking, "abstained": abstained, "answer": answer,
            "citations": [{"marker": i + 1, "paper_id": p, "title": "", "text": CORPUS.get(p, ""), "sentences": []}
                          for i, p in enumerate(cited)],
            "timings": timings or {"first_token_s": 1.0, "total_s": 2.0}}


def test_score_question_and_aggregate_by_kind():
    key_index = M.resolve_keys(["merges several global models", "reduces perplexity by 24.72%"], CORPUS)
    q_multi = {"id": "m1", "kind": "multi", "gold": ["merges several global models", "reduces perplexity by 24.72%"]}
    q_fact = {"id": "f1", "kind": "factoid", "gold": ["merges several global models"],
              "must_mention": ["FedMerge", "CIFAR"]}
    q_absent = {"id": "x1", "kind": "absent", "gold": []}
    rows = [
        M.score_question(q_multi, _rec(["a", "x", "y", "z", "w", "b"], ["a", "x"], answer="FedMerge [1]."), key_index),
        M.score_question(q_fact, _rec(["x", "x2", "a"], ["a"], answer="FedMerge merges models [1].",
                                      timings={"first_token_s": 3.0, "total_s": 4.0}), key_index),
        M.score_question(q_absent, _rec(["a"], [], abstained=True, timings={"first_token_s": 0.5, "total_s": 0.5}),
                         key_index),
    ]
    m, f, x = rows
    # multi: gold a (rank 1), b (rank 6): recall@5 = 1/2, recall@10 = 2/2, mrr = 1;
    #   ndcg@10 = (1 + 1/log2 7) / (1 + 1/log2 3) = (1 + 0.35621) / 1.63093 = 0.83155
    assert (m["recall@5"], m["recall@10"], m["mrr"]) == (0.5, 1.0, 1.0)
    assert m["ndcg@10"] == pytest.approx(0.83155, abs=1e-4)
    # cited a, x: precision 1/2; recall 1/2; multi set recall 1/2; gold cited
    assert (m["citation_precision"], m["citation_recall"], m["multi_set_recall"], m["gold_cited"]) == (
        0.5, 0.5, 0.5, True)
    # factoid: first relevant at rank 3 -> mrr 1/3; must-mention FedMerge yes, CIFAR no -> 0.5
    assert f["mrr"] == pytest.approx(1 / 3) and f["must_mention"] == 0.5 and f["multi_set_recall"] is None
    # absent: no gold -> retrieval and citation metrics n/a; unanswerable and abstained
    assert x["recall@5"] is None and x["citation_precision"] is None and x["unanswerable"] and x["abstained"]

    overall = M.aggregate(rows)
    # recall@5 over the 2 questions with gold: (0.5 + 1.0) / 2 = 0.75   (f: a at rank 3 -> 1.0)
    assert overall["recall@5"] == pytest.approx(0.75)
    # abstention: TP = 1 (x), FP = 0, FN = 0 -> precision 1, recall 1
    assert overall["abstention_precision"] == 1.0 and overall["abstention_recall"] == 1.0
    # total seconds [2, 4, 0.5]: p50 = 2.0; p95: pos 0.95*2 = 1.9 -> 2 + 0.9 * (4 - 2) = 3.8
    assert overall["total_p50_s"] == 2.0 and overall["total_p95_s"] == pytest.approx(3.8)
    kinds = M.by_kind(rows)
    assert set(kinds) == {"multi", "factoid", "absent"}
    assert kinds["factoid"]["mrr"] == pytest.approx(1 / 3)
    assert kinds["absent"]["recall@5"] is None and kinds["absent"]["abstention_recall"] == 1.0
    # every metric name is reported
    assert set(overall) == set(M.ALL_METRICS)


def test_scorecard_list_precision_counts_answered_lists_only():
    """A list citing two gold papers and two that are not scores recall 1 and precision 0.5; an abstained list
    scores recall 0 and lists nothing, so it counts for no precision. (Records written for this test.)"""
    from eval.scorecard import score_records

    key_index = {"k-a": frozenset({"a"}), "k-b": frozenset({"b"})}
    rows = [{"id": "m1", "kind": "multi", "gold": ["k-a", "k-b"], "abstained": False,
             "citations": [{"paper_id": p} for p in ("a", "x", "b", "y")]},
            {"id": "m2", "kind": "multi", "gold": ["k-a"], "abstained": True, "citations": []}]
    card = score_records(rows, {}, key_index=key_index)
    assert card["list_recall"] == 0.5 and card["n"]["list_recall"] == 2
    assert card["list_precision"] == 0.5 and card["n"]["list_precision"] == 1


def test_feedback_questions_are_unlabelled_for_abstention():
    row = M.score_question({"id": "fb", "kind": "feedback", "gold": [], "todo": "fill in"},
                           _rec([], [], abstained=True))
    assert row["unanswerable"] is None
    assert M.aggregate([row])["abstention_recall"] is None


@pytest.mark.parametrize("module", ["eval.metrics", "eval.datasets", "eval.questionset", "eval.compare_report"])
def test_doctests(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
