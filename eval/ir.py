"""Retrieval metrics (recall@5, recall@10, MRR, nDCG@10) computed by `ir-measures` (trec_eval through
pytrec_eval), not by hand.

Chosen by measurement (bench/ir_packages.py, README "Measuring it"): ir-measures + pytrec-eval-terrier add
~1.8 MB installed and evaluate the bundled set in milliseconds; ranx adds ~250 MB (numba, llvmlite,
lxml, fastparquet, ...) and pays a numba JIT warm-up; pytrec_eval alone is as fast but its measure names
and per-query dicts are the lower-level API ir-measures wraps.

Gold comes as *units* (eval.metrics.gold_units): a unit is satisfied by any of its papers (versions of one
paper share a unit). trec_eval counts documents, so each question is turned into qrels over unit ids:
walking the ranking, the first paper of a still-open unit is renamed to that unit's id (relevant, gain 1)
and the unit closes; every other paper keeps its own id (not relevant). With that mapping trec_eval's
R@k, RR@10 and binary nDCG@10 (ideal DCG over min(#units, 10)) are exactly the definitions in
eval.metrics. (Edge case: one paper that belongs to two *different* units satisfies only the first.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import ir_measures
from ir_measures import RR, R, nDCG

MEASURES = {"recall@5": R @ 5, "recall@10": R @ 10, "mrr": RR @ 10, "ndcg@10": nDCG @ 10}
NAMES = tuple(MEASURES)
_BY_MEASURE = {str(m): name for name, m in MEASURES.items()}


def unit_docs(ranking: Sequence[str], units: Sequence[frozenset[str]]) -> tuple[dict[str, int], dict[str, float]]:
    """(qrels {doc: 1}, run {doc: score}) of one question in unit ids (see module doc).

    >>> unit_docs(["x", "a2", "a1", "b"], [frozenset({"a1", "a2"}), frozenset({"b"})])
    ({'u0': 1, 'u1': 1}, {'d:x': 4.0, 'u0': 3.0, 'd:a1': 2.0, 'u1': 1.0})
    """
    open_units = dict(enumerate(units))
    run: dict[str, float] = {}
    for rank, pid in enumerate(ranking):
        j = next((j for j, u in open_units.items() if pid in u), None)
        doc = f"u{j}" if j is not None else f"d:{pid}"
        if j is not None:
            del open_units[j]
        run.setdefault(doc, float(len(ranking) - rank))
    return {f"u{j}": 1 for j in range(len(units))}, run


def batch_scores(items: Iterable[tuple[str, Sequence[str], Sequence[frozenset[str]]]]) -> dict[str, dict[str, float | None]]:
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
    if qrels:
        for m in ir_measures.iter_calc(list(MEASURES.values()), qrels, {q: r for q, r in run.items() if r}):
            out[m.query_id][_BY_MEASURE[str(m.measure)]] = float(m.value)
    return out


def retrieval_scores(ranking: Sequence[str], units: Sequence[frozenset[str]]) -> Mapping[str, float | None]:
    """The four retrieval metrics of one question.

    >>> s = retrieval_scores(["x", "a"], [frozenset({"a"})]); (s["recall@5"], s["mrr"], round(s["ndcg@10"], 4))
    (1.0, 0.5, 0.6309)
    """
    return batch_scores([("q", ranking, units)])["q"]
