"""The papers of one store generation, arranged for filtering: `Catalog.allowed(filters)`.

Years are a numpy column and categories an inverted list, so a year or category filter is a few
vectorised operations over the papers, not a Python call per paper; author, venue and source are
substring tests over prepared lower-case strings. Results are memoised per `Filters` (a conversation
asks with the same filters again and again), and each result is the same frozenset object, so the
lexical index can memoise its chunk mask for it.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..types import Record
from .filters import Filters

MEMO = 64


def overfetch_size(n: int, share: float, z: float = 3.0) -> int:
    """How many unfiltered nearest chunks to fetch so that `n` of them pass a filter passing `share` of
    the chunks: the smallest m whose expected passing count, less z standard deviations (binomial),
    reaches n. For n=100 at share 0.21: 622 (the earlier 4n/share + n asked 2,005; Chroma's query time
    grows about linearly with the results asked for: ~22 ms for 2,000 at 75k abstracts, ~6 ms for 620).
    A query whose neighbourhood the filter passes less often than average gets fewer than n and the
    caller grows the fetch, so the result stays the filtered top n either way.

    >>> overfetch_size(100, 0.21), overfetch_size(100, 1.0), overfetch_size(100, 0.5)
    (622, 100, 248)
    """
    p = min(1.0, max(share, 1e-9))
    if p >= 1.0:
        return n
    # solve p*m - z*sqrt(m*p*(1-p)) = n for sqrt(m): a quadratic in x = sqrt(m)
    b = z * math.sqrt(p * (1 - p))
    x = (b + math.sqrt(b * b + 4 * p * n)) / (2 * p)
    return math.ceil(x * x)


class Catalog:
    def __init__(self, generation: str, records: Sequence[Record]) -> None:
        self.generation = generation
        self.records = list(records)
        self.ids = [r.paper_id for r in self.records]
        self.years = np.array([r.year or 0 for r in self.records], dtype=np.int32)
        self._authors: list[str] | None = None
        self._cats: dict[str, np.ndarray] | None = None
        self._memo: OrderedDict[Any, frozenset[str]] = OrderedDict()
        self._derived: dict[str, Any] = {}
        self._lock = threading.Lock()

    def derived(self, name: str, build: Callable[[list[Record]], Any]) -> Any:
        """Something built from the records once per generation (e.g. the question-filter vocabulary)."""
        with self._lock:
            if name not in self._derived:
                self._derived[name] = build(self.records)
            return self._derived[name]

    def allowed(self, f: Filters) -> frozenset[str]:
        key = replace(f, ignore_from_question=frozenset())
        with self._lock:
            got = self._memo.get(key)
            if got is not None:
                self._memo.move_to_end(key)
                return got
        got = frozenset(self._compute(key))
        with self._lock:
            self._memo[key] = got
            while len(self._memo) > MEMO:
                self._memo.popitem(last=False)
        return got

    def _compute(self, f: Filters) -> list[str]:
        mask = np.ones(len(self.ids), dtype=bool)
        if f.year_min:
            mask &= self.years >= f.year_min
        if f.year_max:
            mask &= (self.years <= f.year_max) & (self.years > 0)
        if f.categories:
            cats = self._categories()
            in_cat = np.zeros(len(self.ids), dtype=bool)
            for c in f.categories:
                if c in cats:
                    in_cat[cats[c]] = True
            mask &= in_cat
        rows = np.flatnonzero(mask)
        if f.author:
            authors, a = self._author_text(), f.author.lower()
            rows = [i for i in rows if a in authors[i]]
        if f.venue:
            v = f.venue.lower()
            rows = [i for i in rows if v in self.records[i].venue.lower()]
        if f.source:
            rows = [i for i in rows if self.records[i].source == f.source]
        if f.paper_ids:
            rows = [i for i in rows if self.ids[i] in f.paper_ids]
        return [self.ids[i] for i in rows]

    def _author_text(self) -> list[str]:
        with self._lock:
            if self._authors is None:  # "\x1f" between names: a filter never matches across two authors
                self._authors = ["\x1f".join(r.authors).lower() for r in self.records]
            return self._authors

    def _categories(self) -> dict[str, np.ndarray]:
        with self._lock:
            if self._cats is None:
                rows: dict[str, list[int]] = {}
                for i, r in enumerate(self.records):
                    for c in r.categories:
                        rows.setdefault(c, []).append(i)
                self._cats = {c: np.array(v, dtype=np.int64) for c, v in rows.items()}
            return self._cats
