"""Hybrid retrieval: dense (Chroma) + lexical (BM25) chunk rankings, fused, grouped into k papers.

    retriever = HybridRetriever(index, settings.retrieval)
    hits = retriever.search("How much does Prune&Comp reduce perplexity?", k=5, filters=Filters(year_min=2020))

Each Hit carries the fused score and the score and rank from each retriever, the matching chunk ids
and the sentence indices of its best chunk. Versions of one paper (`duplicate_of`) share a group, so
k means k distinct papers. Filters apply inside both retrievers, never after the top-k cut, so a filter
cannot silently empty a page of results: the papers that pass come from a per-generation `Catalog`
(memoised per filters); BM25 masks their chunk rows (the lexical index maps paper -> rows); the dense
side over-fetches unfiltered when the filter passes a good share of the chunks (and keeps the top n
that pass: the filtered top n whenever n survive; a query far from every allowed paper keeps those among
its GROW_MAX nearest chunks and BM25 ranks the rest), else asks Chroma for exactly the allowed chunk ids.
Filters stated in a question are parsed by `query_filters.py`.
"""

from __future__ import annotations

import threading

from ..errors import StoreError
from ..index.indexer import Index
from ..index.lexical import LexicalIndex
from ..index.store import translated
from ..settings import RetrievalSettings
from ..types import Hit
from ..user_text import clean_user_text
from .catalog import Catalog, overfetch_size
from .filter_check import FilterFinding, check_filters
from .filters import Filters
from .fusion import group_by, normalised_score_fusion, reciprocal_rank_fusion

OVERFETCH_MAX = 2000  # a filtered dense search over-fetches unfiltered up to this many chunks, then filters
# a growing over-fetch stops here: Chroma's query time grows with the results asked (~22 ms per 2,000 at 75k)
GROW_MAX = 2000
IDS_MAX = 20000  # longest id list sent to Chroma (`ids=` / `$in` become SQL variables: SQLite allows 32,766)


class HybridRetriever:
    def __init__(self, index: Index, settings: RetrievalSettings) -> None:
        self.index, self.settings = index, settings
        self._catalog: Catalog | None = None  # the papers of the current generation, for filters
        self._lock = threading.Lock()
        self.renormalise = True  # partial coverage fusion (False: a missing vector scores 0, for the benchmark)

    def search(self, query: str, k: int | None = None, filters: Filters | None = None,
               mode: str | None = None) -> list[Hit]:
        s = self.settings
        query = clean_user_text(query, what="query", max_chars=None, allow_empty=True)  # the one door for user text
        k = k or s.k
        mode = mode or s.mode
        n = max(s.candidates, k * 4)
        allowed = self.matching_papers(filters) if filters and filters.active() else None
        if allowed is not None and not allowed:
            return []
        meta: dict[str, dict] = {}
        try:
            lex = self.index.refresh_lexical()  # also knows each chunk's group and sentence span
        except StoreError:
            if mode != "dense":
                raise
            lex = None  # dense-only search still works; metadata then comes from Chroma
        dense: list[tuple[str, float]] = []
        unembedded = self.index.unembedded() if mode != "bm25" else frozenset()
        if mode in ("hybrid", "dense"):
            dense = self._dense(self.index.embedder.embed_query(query), n, allowed, lex, unembedded)
        lexical: list[tuple[str, float]] = []
        if mode in ("hybrid", "bm25"):
            lexical = lex.search(query, n, papers=allowed)
        rankings = {"dense": dense, "bm25": lexical}
        weights = {"dense": s.dense_weight, "bm25": s.lexical_weight}
        # partial dense coverage: a chunk of a paper without vectors is fused over BM25 alone (weights
        # renormalised) rather than losing the dense share (bench/lexfirst_quality.py measured both)
        cannot = ({"dense": lambda cid: cid.rsplit("::", 1)[0] in unembedded} if unembedded and self.renormalise
                  else None)
        if s.fusion == "rrf":
            fused = reciprocal_rank_fusion({kname: [c for c, _ in v] for kname, v in rankings.items()}, s.rrf_k,
                                           weights, cannot)
        else:
            fused = normalised_score_fusion(rankings, weights, cannot)
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
        groups = group_by(fused[: len(head)],
                          {c: str(meta[c].get("group", meta[c]["paper_id"])) for c in head if c in meta}, k)
        best_ids = [str(meta[m[0]]["paper_id"]) if m[0] in meta else m[0].rsplit("::", 1)[0] for _, m, _ in groups]
        records = self.index.records(best_ids)
        per = {name: {c: (rank, sc) for rank, (c, sc) in enumerate(v, start=1)} for name, v in rankings.items()}
        hits = []
        for (_group, members, score), pid in zip(groups, best_ids):
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

    def _dense(self, vector, n: int, allowed: frozenset[str] | None, lex: LexicalIndex | None,
               unembedded: frozenset[str] = frozenset()) -> list[tuple[str, float]]:
        """Top-n chunks by vector among the allowed papers' chunks. A filter passing a good share of the
        chunks over-fetches unfiltered and keeps the allowed (exactly the filtered top n when n survive;
        a broad filter grows the fetch until they do); a narrower one asks Chroma for those chunk ids.
        `where paper_id $in` (10x slower at 3k papers; "too many SQL variables" past ~32k ids) only when
        the lexical index does not know the chunks and the list is short."""
        store = self.index.store
        if allowed is None:
            return [(c, s) for c, s, _ in store.query_chunks(vector, n, None, metadata=False)]
        chunk_ids = lex.restrict(allowed)[1] if lex is not None and lex.ids else None
        if chunk_ids is not None and unembedded:  # only chunks that have vectors can be asked of Chroma
            chunk_ids = [c for c in chunk_ids if c.rsplit("::", 1)[0] not in unembedded]
        if chunk_ids is not None and not chunk_ids:
            return []
        if chunk_ids is not None and lex is not None:
            share = len(chunk_ids) / len(lex.ids)
        else:
            share = len(allowed) / max(1, len(self.catalog().ids))
        m = overfetch_size(n, share)  # n pass among them but for a query far off the filter's average
        small = len(chunk_ids if chunk_ids is not None else allowed) <= IDS_MAX
        if m <= OVERFETCH_MAX or not small:
            kept = self._overfetch(vector, n, allowed, min(m, OVERFETCH_MAX), grow=not small)
            if kept is not None:
                return kept
        if chunk_ids is not None:
            try:
                return _query_ids(store, vector, n, chunk_ids)
            except StoreError:
                pass  # a chunk the index knows was deleted since: the filters below
        if small:
            where = {"paper_id": {"$in": sorted(allowed)}}
            return [(c, s) for c, s, _ in store.query_chunks(vector, n, where, metadata=False)]
        return self._overfetch(vector, n, allowed, OVERFETCH_MAX, grow=True) or []

    def _overfetch(self, vector, n: int, allowed: frozenset[str], m: int, grow: bool) -> list[tuple[str, float]] | None:
        """The first n allowed among the top m unfiltered (more while fewer pass, with `grow`); None when
        fewer than n pass and not growing."""
        while True:
            got = self.index.store.query_chunks(vector, m, None, metadata=False)
            kept = [(c, s) for c, s, _ in got if c.rsplit("::", 1)[0] in allowed]
            if len(kept) >= n or len(got) < m:
                return kept[:n]
            if not grow:
                return None
            if m >= GROW_MAX:  # a query far from every allowed paper: its allowed chunks among the GROW_MAX nearest
                return kept  # (BM25 ranks the rest; growing on to the whole collection cost ~450 ms at 75k)
            # grow by the pass rate seen: enough for n at that rate, between 1.5x and 4x
            m = max(m * 3 // 2 + 1, min(m * 4, overfetch_size(n, len(kept) / len(got)))) if kept else m * 4
            m = GROW_MAX if m >= GROW_MAX // 2 else m  # one query of GROW_MAX, not two steps toward it

    def catalog(self) -> Catalog:
        """The papers of the store's current generation (rebuilt when it changes)."""
        gen = self.index.searchable_generation()
        with self._lock:
            if self._catalog is None or self._catalog.generation != gen:
                self._catalog = Catalog(gen, list(self.index.all_records()))
            return self._catalog

    def check_filters(self, filters: Filters | None) -> FilterFinding | None:
        """Why `filters` leave no paper of the corpus (a typed finding to report), or None (filter_check.py)."""
        if filters is None or not filters.metadata_active():
            return None
        return check_filters(filters, self.catalog())

    def matching_papers(self, filters: Filters) -> frozenset[str]:
        """Ids of the papers that pass `filters` (memoised per filters and store generation)."""
        if filters.paper_ids and not filters.metadata_active():
            return frozenset(filters.paper_ids)
        return self.catalog().allowed(filters)


@translated
def _query_ids(store, vector, n: int, chunk_ids: list[str]) -> list[tuple[str, float]]:
    got = store.chunks.query(query_embeddings=[vector], n_results=max(1, min(n, len(chunk_ids))), ids=chunk_ids,
                             include=["distances"])
    return [(i, 1.0 - float(d)) for i, d in zip(got["ids"][0], got["distances"][0])]
