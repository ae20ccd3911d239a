"""Retrieval metrics (recall@5, recall@10, MRR@10, nDCG@10) computed by trec_eval through
`pytrec_eval` (the pytrec-eval-terrier wheel), not by hand.

Chosen by measurement (bench/ir_packages.py; README "Measuring it"): pytrec-eval-terrier adds 1.1 MB
installed and evaluates 10,000 questions in ~0.2 s; ir-measures (a friendlier API over the same
pytrec_eval) adds 0.4 MB more and took ~15x longer (2.8 s); ranx adds ~256 MB (numba, llvmlite, lxml,
fastparquet, ...), took 17 s to import and 250 s of numba JIT compilation on its first call on this
2-core machine.

Gold comes as *units* (eval.metrics.gold_units): a unit is satisfied by any of its papers (versions of one
paper share a unit). trec_eval counts documents, so each question is turned into qrels over unit ids:
walking the ranking, the first paper of a still-open unit is renamed to that unit's id (relevant, gain 1)
and the unit closes; every other paper keeps its own id (not relevant). Only the top 10 are passed, so
trec_eval's recip_rank is MRR@10. With that mapping trec_eval's recall_5, recall_10, recip_rank and
binary ndcg_cut_10 (ideal DCG over min(#units, 10)) are exactly the definitions in eval.metrics.
(Edge case: one paper that belongs to two *different* units satisfies only the first.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pytrec_eval

DEPTH = 10
MEASURES = {"recall@5": "recall_5", "recall@10": "recall_10", "mrr": "recip_rank", "ndcg@10": "ndcg_cut_10"}
NAMES = tuple(MEASURES)


def unit_docs(ranking: Sequence[str], units: Sequence[frozenset[str]]) -> tuple[dict[str, int], dict[str, float]]:
    """(qrels {doc: 1}, run {doc: score}) of one question in unit ids (see module doc).

    >>> unit_docs(["x", "a2", "a1", "b"], [frozenset({"a1", "a2"}), frozenset({"b"})])
    ({'u0': 1, 'u1': 1}, {'d:x': 4.0, 'u0': 3.0, 'd:a1': 2.0, 'u1': 1.0})
    """
    open_units = dict(enumerate(units))
    run: dict[str, float] = {}
    ranking = list(ranking)[:DEPTH]
    for rank, pid in enumerate(ranking):
        j = next((j for j, u in open_units.items() if pid in u), None)
        doc = f"u{j}" if j is not None else f"d:{pid}"
        if j is not None:
            del open_units[j]
        run.setdefault(doc, float(len(ranking) - rank))
    return {f"u{j}": 1 for j in range(len(units))}, run


def batch_scores(
        items: Iterable[tuple[str, Sequence[str], Sequence[frozenset[str]]]]) -> dict[str, dict[str, float | None]]:
    """{qid: {recall@5, recall@10, mrr, ndcg@10}} for (qid, ranking, gold units) items; None without gold."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    out: dict[str, dict[str, float | None]] = {}
    for qid, ranking, units in items:
        if not units:
            out[qid] = dict.fromkeys(NAMES)
            continue
        qrels[qid], run[qid] = unit_docs([str(p) for p in ranking], units)
        out[qid] = dict.fromkeys(NAMES, 0.0)  # an empty ranking scores 0 (trec_eval skips it)
    runs = {q: r for q, r in run.items() if r}
    if runs:
        ev = pytrec_eval.RelevanceEvaluator({q: qrels[q] for q in runs}, {"recall.5,10", "recip_rank", "ndcg_cut.10"})
        for qid, vals in ev.evaluate(runs).items():
            out[qid].update({name: float(vals[key]) for name, key in MEASURES.items()})
    return out


def retrieval_scores(ranking: Sequence[str], units: Sequence[frozenset[str]]) -> Mapping[str, float | None]:
    """The four retrieval metrics of one question.

    >>> s = retrieval_scores(["x", "a"], [frozenset({"a"})]); (s["recall@5"], s["mrr"], round(s["ndcg@10"], 4))
    (1.0, 0.5, 0.6309)
    """
    return batch_scores([("q", ranking, units)])["q"]
