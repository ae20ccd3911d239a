"""Filters checked against the corpus: a filter that leaves no paper is reported, never dropped.

    finding = check_filters(Filters(year_min=2031, year_max=2031), catalog)
    finding.rule     -> "years_outside_corpus"
    finding.message  -> "No paper in this corpus is from 2031; the newest is 2025."

One pure function over the filters and the papers of a store generation (`Catalog`), whatever the
filters came from (the question, the UI, the CLI, the API). It says why the filtered set is empty, most
specific first:

- contradictory_years: year_min > year_max ("in 2022 ... before 2021", `--year-min 2025 --year-max 2020`);
- no_years_in_corpus: a year filter on a corpus whose papers carry no year;
- years_outside_corpus: the years asked lie wholly after the newest or before the oldest paper;
- no_paper_in_years: the years lie inside the corpus's span, but no paper is from them;
- no_match: one filter (author, venue, category, source) matches no paper of the corpus;
- none_together: each filter matches papers, but no paper passes all of them.

`None` when at least one paper passes (or nothing is filtered). The answer layer reports the finding as
its abstention reason; `paperchat search` prints it instead of an empty list.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .filters import Filters

if TYPE_CHECKING:
    from .catalog import Catalog

RULES = ("contradictory_years", "no_years_in_corpus", "years_outside_corpus", "no_paper_in_years", "no_match",
         "none_together")


@dataclass(frozen=True)
class FilterFinding:
    """Why the filters leave no paper: the rule (one of RULES), the filter kinds at fault and the sentence to show."""

    rule: str
    kinds: tuple[str, ...]  # year | author | venue | categories | source
    message: str

    def to_json(self) -> dict:
        return {"rule": self.rule, "kinds": list(self.kinds), "message": self.message}


def years_text(lo: int | None, hi: int | None, compact: bool = False) -> str:
    """A year range in words for a message, or `compact` as an applied filter is shown (query_filters).

    >>> years_text(2031, 2031), years_text(2031, None), years_text(None, 2019), years_text(2019, 2020)
    ('from 2031', 'from 2031 or later', 'from 2019 or earlier', 'from 2019 to 2020')
    >>> [years_text(*r, compact=True) for r in ((2031, 2031), (2031, None), (None, 2019), (2019, 2020))]
    ['year 2031', 'year >= 2031', 'year <= 2019', 'year 2019-2020']
    """
    if lo is not None and lo == hi:
        return f"year {lo}" if compact else f"from {lo}"
    if lo is not None and hi is not None:
        return f"year {lo}-{hi}" if compact else f"from {lo} to {hi}"
    if lo is not None:
        return f"year >= {lo}" if compact else f"from {lo} or later"
    return f"year <= {hi}" if compact else f"from {hi} or earlier"


def _part(kind: str, f: Filters) -> str:
    """One filter in words, as a message names it."""
    if kind == "year":
        return "year " + years_text(f.year_min or None, f.year_max or None).removeprefix("from ")
    if kind == "categories":
        return "category " + " or ".join(sorted(f.categories))
    return f"{kind} “{getattr(f, kind)}”"


def _only(kind: str, f: Filters) -> Filters:
    """`f` reduced to its filter of one kind."""
    if kind == "year":
        return Filters(year_min=f.year_min, year_max=f.year_max)
    return Filters(**{kind: getattr(f, kind)})


def _no_match(kind: str, f: Filters) -> str:
    if kind == "author":
        return f"No paper in this corpus has an author matching “{f.author}”."
    if kind == "venue":
        return f"No paper in this corpus has the venue “{f.venue}”."
    if kind == "categories":
        return f"No paper in this corpus is in the arXiv category {' or '.join(sorted(f.categories))}."
    return f"No paper in this corpus comes from the source file “{f.source}”."


def _year_finding(lo: int | None, hi: int | None, years) -> FilterFinding | None:
    """The finding for the year filter alone over the corpus's `years` (0 = no year), or None."""
    if lo is not None and hi is not None and lo > hi:
        return FilterFinding("contradictory_years", ("year",),
                             "The year filters contradict each other: "
                             f"no year is both {lo} or later and {hi} or earlier.")
    known = years[years > 0]
    if not known.size:
        return FilterFinding("no_years_in_corpus", ("year",),
                             f"No paper in this corpus has a year, so none is {years_text(lo, hi)}.")
    oldest, newest = int(known.min()), int(known.max())
    if lo is not None and lo > newest:
        return FilterFinding("years_outside_corpus", ("year",),
                             f"No paper in this corpus is {years_text(lo, hi)}; the newest is {newest}.")
    if hi is not None and hi < oldest:
        return FilterFinding("years_outside_corpus", ("year",),
                             f"No paper in this corpus is {years_text(lo, hi)}; the oldest is {oldest}.")
    inside = (known >= (lo if lo is not None else oldest)) & (known <= (hi if hi is not None else newest))
    if not inside.any():
        span = f"{oldest}" if oldest == newest else f"{oldest}–{newest}"
        return FilterFinding("no_paper_in_years", ("year",),
                             f"No paper in this corpus is {years_text(lo, hi)}; its papers span {span}.")
    return None


def check_filters(filters: Filters | None, catalog: Catalog) -> FilterFinding | None:
    """Why `filters` leave no paper of `catalog` (a FilterFinding), or None when some paper passes.

    Only metadata filters are checked (`paper_ids`, a follow-up's papers in focus, is the caller's)."""
    if filters is None:
        return None
    f = replace(filters, paper_ids=frozenset(), ignore_from_question=frozenset())
    if not f.metadata_active():
        return None
    lo, hi = f.year_min or None, f.year_max or None
    if lo is not None and hi is not None and lo > hi:  # whatever the corpus holds
        return _year_finding(lo, hi, catalog.years)
    if catalog.allowed(f):
        return None
    kinds = ["year"] * (lo is not None or hi is not None) + [k for k in ("author", "venue", "categories", "source")
                                                             if getattr(f, k)]
    if "year" in kinds:
        found = _year_finding(lo, hi, catalog.years)
        if found is not None:
            return found
    for k in kinds:
        if k != "year" and not catalog.allowed(_only(k, f)):
            return FilterFinding("no_match", (k,), _no_match(k, f))
    counts = "; ".join(f"{len(catalog.allowed(_only(k, f)))} match {_part(k, f)}" for k in kinds)
    return FilterFinding("none_together", tuple(kinds),
                         f"No paper in this corpus matches {' and '.join(_part(k, f) for k in kinds)} together "
                         f"({counts}).")
