"""Question filters meet explicit ones, and what an answer shows of them.

    filters = merge(explicit, parsed.filters)            # explicit (UI/CLI) filters win field by field
    spans = applied_from_question(explicit, parsed)      # the question's phrases that were applied
    describe(filters, spans, finding)                    # {"applied", "from_question"[, "finding"]}
    summary(describe(...)["applied"])                    # "year >= 2025 · author Chen"

Split from `query_filters.py` (which parses the question and re-exports these).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from .filters import Filters

if TYPE_CHECKING:
    from .filter_check import FilterFinding
    from .filters import QueryFilters, Span


def describe(applied: Filters | None, spans: Iterable[Span], finding: FilterFinding | None = None) -> dict:
    """What an answer shows: {"applied": the filters used, "from_question": [{kind, text, value}]}, and
    "finding": {rule, kinds, message} when the filters leave no paper (see filter_check.py)."""
    out = {"applied": applied.describe() if applied is not None else {},
           "from_question": [{"kind": s.kind, "text": s.text, "value": s.value} for s in spans]}
    if finding is not None:
        out["finding"] = finding.to_json()
    return out


def summary(applied: dict) -> str:
    """ "year >= 2025 · author Chen · category cs.CL or cs.LG" for a `describe()["applied"]` dict; "" if none."""
    parts = []
    lo, hi = applied.get("year_min"), applied.get("year_max")
    if lo and hi:
        parts.append(f"year {lo}" if lo == hi else f"year {lo}-{hi}")
    elif lo or hi:
        parts.append(f"year >= {lo}" if lo else f"year <= {hi}")
    for key in ("author", "venue", "source"):
        if applied.get(key):
            parts.append(f"{key} {applied[key]}")
    if applied.get("categories"):
        parts.append("category " + " or ".join(applied["categories"]))
    return " · ".join(parts)


def merge(explicit: Filters | None, parsed: Filters) -> Filters:
    """`explicit` (UI/CLI) filters win field by field; the question's fill what is not set, except
    the kinds listed in `explicit.ignore_from_question` (or all with "all")."""
    base = explicit or Filters()
    ignore = base.ignore_from_question
    if "all" in ignore:
        return base
    out = base
    if "year" not in ignore and base.year_min is None and base.year_max is None:
        out = replace(out, year_min=parsed.year_min, year_max=parsed.year_max)
    if "author" not in ignore and not base.author:
        out = replace(out, author=parsed.author)
    if "venue" not in ignore and not base.venue:
        out = replace(out, venue=parsed.venue)
    if "categories" not in ignore and not base.categories:
        out = replace(out, categories=parsed.categories)
    return out


def applied_from_question(explicit: Filters | None, parsed: QueryFilters) -> tuple[Span, ...]:
    """The spans of `parsed` whose filter was applied: not overridden by an explicit filter, not ignored."""
    base = explicit or Filters()
    ignore = base.ignore_from_question
    overridden = {
        "year": base.year_min is not None or base.year_max is not None,
        "author": bool(base.author), "venue": bool(base.venue), "categories": bool(base.categories),
    }
    return tuple(s for s in parsed.spans if "all" not in ignore and s.kind not in ignore and not overridden[s.kind])
