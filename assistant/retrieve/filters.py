"""The filter records of retrieval: `Filters` (what a search is restricted to) and, for filters stated in a
question, `Span` (a phrase that became a filter) and `QueryFilters` (what `query_filters.parse_filters` returns).

Plain frozen dataclasses, below the modules that use them (catalog, filter_check, filter_merge, query_filters,
hybrid); `hybrid` and `query_filters` re-export them where callers have always imported them from.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import Record


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


@dataclass(frozen=True)
class Span:
    """A phrase of the question that became a filter: its kind, the text as written and its place."""

    kind: str  # year | author | venue | categories
    text: str
    start: int
    end: int
    value: str  # what it became, for display ("year >= 2025", "author Chen")


@dataclass(frozen=True)
class QueryFilters:
    filters: Filters
    cleaned: str  # the question without the filter phrases (what retrieval searches for)
    spans: tuple[Span, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.spans)
