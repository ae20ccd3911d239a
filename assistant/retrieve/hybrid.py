"""Hybrid retrieval: dense (Chroma) + lexical (BM25) chunk rankings, fused, grouped into k papers.

    retriever = HybridRetriever(index, settings.retrieval)
    hits = retriever.search("How much does Prune&Comp reduce perplexity?", k=5, filters=Filters(year_min=2020))

Each Hit carries the fused score and the score and rank from each retriever, the matching chunk ids
and the sentence indices of its best chunk. Versions of one paper (`duplicate_of`) share a group, so
k means k distinct papers. Filters apply inside both retrievers (Chroma `where` / BM25 weight mask),
never after the top-k cut, so a filter cannot silently empty a page of results.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ..errors import StoreError
from ..index.indexer import Index
from ..settings import RetrievalSettings
from ..types import Hit, Record
from .fusion import group_by, normalised_score_fusion, reciprocal_rank_fusion


@dataclass(frozen=True)
class Filters:
    year_min: int | None = None
    year_max: int | None = None
    author: str = ""  # case-insensitive substring of any author
    source: str = ""  # source file name
    paper_ids: frozenset[str] = frozenset()  # only these papers (a follow-up about papers in focus)
    venue: str = ""  # case-insensitive substring of the venue
    categories: frozenset[str] = frozenset()  # arXiv categories: a paper passes with any of them
    # kinds of filter stated in the question NOT to apply ("year", "author", "venue", "categories", or
    # "all"): how a user removes a filter the question implied (see retrieve/query_filters.py)
    ignore_from_question: frozenset[str] = frozenset()

    def active(self) -> bool:
        return bool(self.year_min or self.year_max or self.author or self.source or self.paper_ids
                    or self.venue or self.categories)

    def metadata_active(self) -> bool:
        """True when a filter other than `paper_ids` is set (those need the catalog)."""
        return bool(self.year_min or self.year_max or self.author or self.source or self.venue or self.categories)

    def matches(self, r: Record) -> bool:
        if self.year_min and (r.year is None or r.year < self.year_min):
            return False
        if self.year_max and (r.year is None or r.year > self.year_max):
            return False
        if self.author and not any(self.author.lower() in a.lower() for a in r.authors):
            return False
        if self.paper_ids and r.paper_id not in self.paper_ids:
            return False
        if self.venue and self.venue.lower() not in r.venue.lower():
            return False
        if self.categories and not self.categories.intersection(r.categories):
            return False
        return not self.source or r.source == self.source

    def describe(self) -> dict:
        """The filters that are set, as plain JSON (what an answer shows as "filters applied")."""
        out: dict = {}
        for name in ("year_min", "year_max", "author", "venue", "source"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.categories:
            out["categories"] = sorted(self.categories)
        return out


class HybridRetriever:
    def __init__(self, index: Index, settings: RetrievalSettings) -> None:
        self.index, self.settings = index, settings
        self._catalog: tuple[str, list[Record]] | None = None  # (generation, records) for filters
        self._lock = threading.Lock()

    def search(self, query: str, k: int | None = None, filters: Filters | None = None, mode: str | None = None) -> list[Hit]:
        s = self.settings
        k = k or s.k
        mode = mode or s.mode
        n = max(s.candidates, k * 4)
        allowed = self.matching_papers(filters) if filters and filters.active() else None
        if allowed is not None and not allowed:
            return []
        dense: list[tuple[str, float]] = []
        meta: dict[str, dict] = {}
        if mode in ("hybrid", "dense"):
            where = {"paper_id": {"$in": sorted(allowed)}} if allowed is not None else None
            for cid, sim, _ in self.index.store.query_chunks(self.index.embedder.embed_query(query), n, where, metadata=False):
                dense.append((cid, sim))
        lexical: list[tuple[str, float]] = []
        try:
            lex = self.index.refresh_lexical()  # also knows each chunk's group and sentence span
        except StoreError:
            if mode != "dense":
                raise
            lex = None  # dense-only search still works; metadata then comes from Chroma
        if mode in ("hybrid", "bm25"):
            allowed_chunks = None
            if allowed is not None:
                allowed_chunks = {c for c in lex.ids if c.rsplit("::", 1)[0] in allowed}
            lexical = lex.search(query, n, allowed_chunks)
        rankings = {"dense": dense, "bm25": lexical}
        weights = {"dense": s.dense_weight, "bm25": s.lexical_weight}
        if s.fusion == "rrf":
            fused = reciprocal_rank_fusion({kname: [c for c, _ in v] for kname, v in rankings.items()}, s.rrf_k, weights)
        else:
            fused = normalised_score_fusion(rankings, weights)
        # chunk metadata (group, sentence span) of the chunks near the top only, from the lexical index's
        # copy; a Chroma `get` only for chunks it does not know yet (written within the last second)
        head = [cid for cid, _ in fused[: max(k * 10, 50)]]
        unknown = []
        for cid in head:
            m = lex.chunk_meta(cid) if lex is not None else None
            if m is None:
                unknown.append(cid)
            else:
                meta[cid] = m
        if unknown:
            got = self.index.store.chunks.get(ids=unknown, include=["metadatas"])
            meta.update(dict(zip(got["ids"], got["metadatas"])))
        groups = group_by(fused[: len(head)], {c: str(meta[c].get("group", meta[c]["paper_id"])) for c in head if c in meta}, k)
        best_ids = [str(meta[m[0]]["paper_id"]) if m[0] in meta else m[0].rsplit("::", 1)[0] for _, m, _ in groups]
        records = self.index.records(best_ids)
        per = {name: {c: (rank, sc) for rank, (c, sc) in enumerate(v, start=1)} for name, v in rankings.items()}
        hits = []
        for (group, members, score), pid in zip(groups, best_ids):
            if pid not in records:
                continue  # deleted between the query and the fetch
            scores, ranks = {"fused": score}, {}
            for name, table in per.items():
                found = [table[c] for c in members if c in table]
                if found:
                    rank, sc = min(found)
                    scores[name], ranks[name] = sc, rank
            m = meta.get(members[0], {})
            sents = tuple(range(int(m.get("sent_start", 0)), int(m.get("sent_end", 0))))
            hits.append(Hit(pid, records[pid], score, scores, ranks, tuple(members), sents))
        return hits

    def matching_papers(self, filters: Filters) -> set[str]:
        """Ids of the papers that pass `filters` (catalog cached per store generation)."""
        if filters.paper_ids and not (filters.year_min or filters.year_max or filters.author or filters.source):
            return set(filters.paper_ids)
        gen = self.index.store.generation()
        with self._lock:
            if self._catalog is None or self._catalog[0] != gen:
                self._catalog = (gen, list(self.index.all_records()))
            records = self._catalog[1]
        return {r.paper_id for r in records if filters.matches(r)}
