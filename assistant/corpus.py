"""`Corpus`: the indexed papers as the UI and other front ends see them -- search, look up, list, stats,
facets, add files -- over the index and the retriever, so callers never reach `assistant.index` or
`assistant.retriever` themselves.

    corpus = assistant.corpus                      # or Corpus(index, retriever)
    hits = corpus.search_papers("federated learning", k=5, filters=Filters(year_min=2023))
    rec = corpus.paper("2507.12345")               # Record or None
    report = corpus.add_files([Path("more.jsonl")], progress=tick)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import AssistantError

if TYPE_CHECKING:  # the index and the retriever are handed in, not built here
    from .index.indexer import Index
    from .pipeline import IngestReport
    from .retrieve.filter_check import FilterFinding
    from .retrieve.hybrid import Filters, HybridRetriever
    from .types import Hit, Record


@dataclass(frozen=True)
class Facets:
    """Which metadata filters make sense: the year range and whether any paper lists authors.
    `known` is False when the store could not be read (then every filter is offered)."""

    year_min: int | None = None
    year_max: int | None = None
    authors: bool = True
    known: bool = False

    def to_dict(self) -> dict:
        return {"year_min": self.year_min, "year_max": self.year_max, "authors": self.authors, "known": self.known}


@dataclass(frozen=True)
class StoreHealth:
    """Whether the records store (the source of truth) is whole; when not, what is wrong and the repair."""

    problem: str = ""
    fix: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


class Corpus:
    """A thin facade: every method is one call into the index, the retriever or the ingest pipeline."""

    def __init__(self, index: Index, retriever: HybridRetriever) -> None:
        self._index, self._retriever = index, retriever

    def search_papers(self, query: str, k: int | None = None, filters: Filters | None = None) -> list[Hit]:
        """Hybrid search: up to k distinct papers, best first (k defaults to retrieval.k)."""
        return self._retriever.search(query, k=k, filters=filters)

    def check_filters(self, filters: Filters | None) -> FilterFinding | None:
        """Why `filters` leave no paper of the corpus (rule and message to show), or None when some pass."""
        return self._retriever.check_filters(filters)

    def paper(self, paper_id: str) -> Record | None:
        """One paper by id, or None when it is not indexed."""
        return self._index.records([paper_id]).get(paper_id) if paper_id else None

    def papers(self, paper_ids: Sequence[str]) -> dict[str, Record]:
        """The indexed papers among `paper_ids`, by id (missing ids are left out)."""
        return self._index.records(list(paper_ids)) if paper_ids else {}

    def all_papers(self) -> Iterable[Record]:
        return self._index.all_records()

    def stats(self) -> dict:
        """{papers, chunks, index, embedding_model, ...} of the store."""
        return self._index.stats()

    def facets(self) -> Facets:
        years: list[int] = []
        authors = False
        try:
            for r in self._index.all_records():
                if r.year:
                    years.append(r.year)
                authors = authors or bool(r.authors)
        except AssistantError:
            return Facets()
        return Facets(min(years) if years else None, max(years) if years else None, authors, True)

    def health(self) -> StoreHealth:
        """The records store checked now (issue 23): removed, emptied, truncated, or missing papers."""
        from .index.recordfile import repair_hint

        check = getattr(self._index, "records_lost", None)  # (a stand-in index in tests may not have it)
        problem = check() if check is not None else ""
        return StoreHealth(problem, repair_hint(serving=True)) if problem else StoreHealth()

    def require_content(self) -> None:
        """Raise EmptyIndexError (with the ingest hint) when nothing is indexed."""
        self._index.require_content()

    def add_files(self, paths: Sequence[Path], progress: Callable[[int], None] | None = None) -> IngestReport:
        """Ingest files (jsonl, csv, bib, txt); only adds, nothing stored is removed."""
        from .pipeline import ingest_paths

        return ingest_paths(self._index, list(paths), progress=progress)
