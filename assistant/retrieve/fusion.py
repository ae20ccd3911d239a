"""Rank fusion: pure functions from per-retriever rankings to one ranking. Keyed on item id.

Reciprocal rank fusion (Cormack et al., 2009) ignores score scales, which differ wildly between
cosine similarity (0..1) and BM25 (unbounded): score(d) = sum_r w_r / (k + rank_r(d)).

>>> reciprocal_rank_fusion({"dense": ["a", "b", "c"], "bm25": ["b", "d"]}, k=60)[:2]
[('b', 0.03252247488101534), ('a', 0.01639344262295082)]

Normalised score fusion min-max scales each retriever's scores to 0..1 and adds them (weighted);
an item a retriever did not return gets 0 from it.

>>> normalised_score_fusion({"dense": [("a", 0.9), ("b", 0.5)], "bm25": [("b", 12.0), ("c", 3.0)]})
[('a', 1.0), ('b', 1.0), ('c', 0.0)]

Which one is the default was decided by measurement (bench/scifact.py, eval --retrieval-only;
2026-12-01): normalised score fusion, which keeps how far ahead a top hit is, beat RRF on SciFact
(809 training claims, nDCG@10 0.730 vs 0.718; dense 0.686, BM25 0.663) and on the bundled question
set (nDCG@10 0.920 vs 0.903). RRF stays available (`retrieval.fusion=rrf`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

Unscorable = Mapping[str, Callable[[str], bool]]  # retriever -> "this item could not have been scored by it"


def _renormalise(total: dict[str, float], weights: Mapping[str, float], unscorable: Unscorable | None) -> None:
    """Partial coverage (lexical-first ingest): an item a retriever could not score (no vector yet) is
    fused over the retrievers that could, with their weights scaled up to the full weight, instead of
    getting 0 from the one that could not. Items every retriever could score are untouched."""
    if not unscorable:
        return
    full = sum(weights.values())
    for item in total:
        missing = sum(weights[name] for name, cannot in unscorable.items() if name in weights and cannot(item))
        if missing and full > missing:
            total[item] *= full / (full - missing)


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]], k: int = 60, weights: Mapping[str, float] | None = None,
    unscorable: Unscorable | None = None,
) -> list[tuple[str, float]]:
    """Fuse best-first id lists. Ties keep the order of first appearance. Duplicates count once.
    `unscorable`: see `_renormalise` (partial dense coverage)."""
    scores: dict[str, float] = {}
    used = {name: 1.0 if weights is None else weights.get(name, 1.0) for name in rankings}
    for name, ids in rankings.items():
        w = used[name]
        for rank, item in enumerate(dict.fromkeys(ids), start=1):  # a repeat neither counts nor takes a rank
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    _renormalise(scores, used, unscorable)
    return sorted(scores.items(), key=lambda kv: -kv[1])


def normalised_score_fusion(
    scored: Mapping[str, Sequence[tuple[str, float]]], weights: Mapping[str, float] | None = None,
    unscorable: Unscorable | None = None,
) -> list[tuple[str, float]]:
    """Fuse (id, score) lists by summing min-max normalised scores. Ties keep first appearance.
    `unscorable`: see `_renormalise` (partial dense coverage).

    >>> normalised_score_fusion({"dense": [("a", 0.9), ("b", 0.5)], "bm25": [("c", 12.0), ("a", 3.0)]},
    ...                         unscorable={"dense": lambda i: i == "c"})
    [('c', 2.0), ('a', 1.0), ('b', 0.0)]
    """
    total: dict[str, float] = {}
    used = {name: 1.0 if weights is None else weights.get(name, 1.0) for name in scored}
    for name, items in scored.items():
        if not items:
            continue
        w = 1.0 if weights is None else weights.get(name, 1.0)
        vals = [s for _, s in items]
        lo, hi = min(vals), max(vals)
        for item, s in items:
            norm = (s - lo) / (hi - lo) if hi > lo else 1.0
            total[item] = total.get(item, 0.0) + w * norm
    _renormalise(total, used, unscorable)
    return sorted(total.items(), key=lambda kv: -kv[1])


def group_by(ranked: Sequence[tuple[str, float]], key: Mapping[str, str],
             limit: int) -> list[tuple[str, list[str], float]]:
    """Collapse a fused ranking of items (chunks) into groups (papers), best first.

    Returns (group, member ids best first, best member's score) for the first `limit` groups, so
    `limit` means that many distinct papers. Items missing from `key` form their own group.

    >>> group_by([("p1::0", .9), ("p2::0", .8), ("p1::1", .7), ("p3::0", .6)],
    ...          {"p1::0": "p1", "p1::1": "p1", "p2::0": "p2", "p3::0": "p3"}, limit=2)
    [('p1', ['p1::0', 'p1::1'], 0.9), ('p2', ['p2::0'], 0.8)]
    """
    groups: dict[str, tuple[list[str], float]] = {}
    for item, score in ranked:
        g = key.get(item, item)
        if g in groups:
            groups[g][0].append(item)
        else:
            groups[g] = ([item], score)
    ordered = list(groups.items())[:limit]
    return [(g, members, score) for g, (members, score) in ordered]
