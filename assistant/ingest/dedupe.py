"""Duplicates: exact repeats inside one source, and near-duplicate abstracts across records.

Scope: `drop_exact_duplicates` filters a record stream (same paper_id twice); `jaccard` and
`near_duplicates` are pure functions over text. Near-duplicates use word 3-gram shingles of the
normalised text; large inputs go through MinHash-LSH banding (numpy) so 75k abstracts take seconds,
and every candidate pair is verified with the exact Jaccard, so results never include false positives.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from ..types import IngestIssue, Record

# Two versions of one paper (e.g. conference and journal abstracts) share ~0.3-0.5 of their word 3-grams;
# unrelated abstracts share < 0.05. See data/README.md.
NEAR_DUP_THRESHOLD = 0.3
BRUTE_FORCE_MAX = 400  # up to this many records, compare all pairs exactly
# MinHash-LSH: 30 bands of 2 rows. P(candidate | J) = 1 - (1 - J**2)**30: 0.94 at J=0.3, 0.99 at 0.375.
# Candidates whose signatures agree on < _MIN_AGREEMENT of the values are dropped before the exact check.
_BANDS, _ROWS = 30, 2
_MIN_AGREEMENT = 0.15
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def drop_exact_duplicates(items: Iterable[Record | IngestIssue]) -> Iterator[Record | IngestIssue]:
    """Pass records through, replacing a repeated paper_id by an IngestIssue.

    Same id and same content (title + text): "duplicate of line N"; same id, other content: "id collision".
    The first occurrence is kept. Issues pass through unchanged.
    """
    seen: dict[str, tuple[int, str]] = {}
    for item in items:
        if isinstance(item, Record):
            prev = seen.get(item.paper_id)
            if prev is not None:
                line, digest = prev
                if digest == item.hash:
                    msg = f"duplicate of line {line} (same id {item.paper_id!r}, same content); this copy was skipped"
                else:
                    msg = (
                        f"id collision: id {item.paper_id!r} is used by line {line} and line {item.source_line} "
                        "with different content; this one was skipped -- give each record its own id"
                    )
                yield IngestIssue(item.source, item.source_line, msg, item.paper_id)
                continue
            seen[item.paper_id] = (item.source_line, item.hash)
        yield item


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def shingles(text: str, n: int = 3) -> set[str]:
    """Word n-grams of the normalised text (case-folded words, punctuation dropped).

    >>> sorted(shingles("The cat, the CAT sat.", n=2))
    ['cat sat', 'cat the', 'the cat']
    """
    toks = _tokens(text)
    if len(toks) < n:
        return {" ".join(toks)} if toks else set()
    return {" ".join(toks[i : i + n]) for i in range(len(toks) - n + 1)}


def jaccard(a: str, b: str, n: int = 3) -> float:
    """Jaccard similarity of the word n-gram shingle sets of two texts (1.0 for two empty texts).

    >>> jaccard("we propose a new method for graphs", "we propose a new method for graphs")
    1.0
    >>> round(jaccard("a b c d e", "a b c d f"), 3)
    0.5
    """
    sa, sb = shingles(a, n), shingles(b, n)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def _hashed_shingles(texts: Sequence[str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """All word n-gram hashes of all texts, as (hashes, doc index) arrays sorted by doc then hash, unique."""
    vocab: dict[str, int] = {}
    ids: list[int] = []
    starts: list[int] = []
    for text in texts:
        starts.append(len(ids))
        ids.extend(vocab.setdefault(w, len(vocab)) for w in _tokens(text))
    rng = np.random.default_rng(7)
    table = rng.integers(1, 2**63, size=max(len(vocab), 1), dtype=np.uint64)
    v = table[np.asarray(ids, dtype=np.int64)]
    doc = np.repeat(np.arange(len(texts)), np.diff(np.r_[starts, len(ids)]))
    if len(v) < n:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    mult = rng.integers(1, 2**63, size=n, dtype=np.uint64) | np.uint64(1)
    grams = np.zeros(len(v) - n + 1, dtype=np.uint64)
    for k in range(n):
        grams += v[k : len(v) - n + 1 + k] * mult[k]
    gdoc = doc[: len(grams)]
    valid = doc[n - 1 :] == gdoc  # the n-gram does not cross into the next text
    # one sort of (doc << 40 | 40-bit hash) groups each text's shingles, sorted and then made unique
    key = np.unique((gdoc[valid].astype(np.uint64) << np.uint64(40)) | (grams[valid] >> np.uint64(24)))
    return key & np.uint64((1 << 40) - 1), (key >> np.uint64(40)).astype(np.int64)


def _lsh_pairs(grams: np.ndarray, gdoc: np.ndarray) -> set[tuple[int, int]]:
    """Pairs (i < j) of texts that agree on all rows of at least one MinHash band (and on enough values)."""
    docs, seg_starts = np.unique(gdoc, return_index=True)
    if not len(docs):
        return set()
    rng = np.random.default_rng(20240601)  # fixed: the same candidates on every run
    k = _BANDS * _ROWS
    a = rng.integers(1, 2**63, size=k, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, 2**63, size=k, dtype=np.uint64)
    sigs = np.empty((len(docs), k), dtype=np.uint64)
    for p in range(k):
        sigs[:, p] = np.minimum.reduceat((grams * a[p] + b[p]) >> np.uint64(16), seg_starts)
    mix = rng.integers(1, 2**63, size=_ROWS, dtype=np.uint64) | np.uint64(1)
    pairs: set[tuple[int, int]] = set()
    for band in range(_BANDS):
        keys = (sigs[:, band * _ROWS : (band + 1) * _ROWS] * mix).sum(axis=1, dtype=np.uint64)
        order = np.argsort(keys, kind="stable")
        sk = keys[order]
        bounds = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1], True])
        for s, e in itertools.pairwise(bounds):
            if e - s > 1:
                members = sorted(int(docs[x]) for x in order[s:e])
                pairs.update((members[x], members[y]) for x in range(len(members)) for y in range(x + 1, len(members)))
    if not pairs:
        return pairs
    # drop candidates whose estimated Jaccard (share of equal MinHash values) is far below any threshold of use
    row = {int(d): r for r, d in enumerate(docs)}
    cand = np.array(sorted(pairs), dtype=np.int64)
    ri = np.array([row[int(i)] for i in cand[:, 0]])
    rj = np.array([row[int(j)] for j in cand[:, 1]])
    agree = (sigs[ri] == sigs[rj]).mean(axis=1)
    return {(int(i), int(j)) for (i, j), ok in zip(cand, agree >= _MIN_AGREEMENT) if ok}


def near_duplicates(
    records: Sequence[Record],
    *,
    threshold: float = NEAR_DUP_THRESHOLD,
    n: int = 3,
    brute_force_max: int = BRUTE_FORCE_MAX,
) -> dict[str, str]:
    """Map a later record's paper_id to the paper_id of the earliest record it nearly duplicates.

    "Later"/"earlier" is the order of `records`; similarity is `jaccard(text_a, text_b, n) >= threshold`.
    Chains resolve to the first version (if C copies B and B copies A, both map to A). Records with
    the same paper_id as the one they match are not reported (that is an exact duplicate).

    >>> r = [Record("a", "We propose a new method for graph pooling that works well on many benchmarks."),
    ...      Record("b", "We propose a new method for graph pooling that works well on most benchmarks."),
    ...      Record("c", "Something else entirely about federated learning on edge devices.")]
    >>> near_duplicates(r)
    {'b': 'a'}
    """
    texts = [r.text for r in records]
    sims: dict[tuple[int, int], float] = {}
    if len(records) <= brute_force_max:
        sets = [shingles(t, n) for t in texts]
        for j in range(len(sets)):
            for i in range(j):
                union = len(sets[i] | sets[j])
                sim = len(sets[i] & sets[j]) / union if union else 1.0
                if sim >= threshold:
                    sims[(i, j)] = sim
    else:
        grams, gdoc = _hashed_shingles(texts, n)
        bounds = np.searchsorted(gdoc, np.arange(len(texts) + 1))
        for i, j in _lsh_pairs(grams, gdoc):
            x, y = grams[bounds[i] : bounds[i + 1]], grams[bounds[j] : bounds[j + 1]]
            inter = len(np.intersect1d(x, y, assume_unique=True))
            sim = inter / (len(x) + len(y) - inter)
            if sim >= threshold:
                sims[(i, j)] = sim
    best: dict[int, int] = {}
    for i, j in sorted(sims):
        if records[i].paper_id != records[j].paper_id and j not in best:
            best[j] = i
    out: dict[str, str] = {}
    for j in sorted(best):
        root = best[j]
        while root in best:
            root = best[root]
        out[records[j].paper_id] = records[root].paper_id
    return out
