"""Per-record size bounds applied to every reader's output (settings group `ingest`).

A record larger than `max_record_chars` (all fields together) is skipped with an issue; an abstract
longer than `max_abstract_chars` is kept, truncated at the last sentence end before the limit (or the
last space when no sentence ends there), and reported with an issue whose message starts "truncated",
which the ingest report counts apart from skipped records. The id is computed before truncation, so
re-ingesting the same file gives the same ids.
"""

from __future__ import annotations

import dataclasses
import re

from ..types import IngestIssue, Record

TRUNCATED = "truncated"
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s")


def record_chars(r: Record) -> int:
    return (len(r.text) + len(r.title) + len(r.label) + len(r.venue) + len(r.doi) + len(r.paper_id)
            + len(r.duplicate_of) + sum(len(a) for a in r.authors))


def truncate_at_sentence(text: str, limit: int) -> str:
    """The longest prefix of `text` up to `limit` characters that ends a sentence (else a word).

    >>> truncate_at_sentence("One two. Three four. Five six.", 22)
    'One two. Three four.'
    >>> truncate_at_sentence("no sentence ends here at all", 12)
    'no sentence'
    """
    if len(text) <= limit:
        return text
    head = text[: limit + 1]
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    if ends and ends[-1] >= limit // 2:
        return head[: ends[-1]].rstrip()
    cut = head.rfind(" ")
    return (head[:cut] if cut > 0 else text[:limit]).rstrip()


def bound_record(r: Record, max_record_chars: int, max_abstract_chars: int) -> list[Record | IngestIssue]:
    """[record], [issue] (too large: skipped) or [truncated record, note] (abstract cut)."""
    size = record_chars(r)
    if size > max_record_chars:
        return [IngestIssue(
            r.source, r.source_line,
            f"record of {size:,} characters is larger than ingest.max_record_chars ({max_record_chars:,}); skipped "
            "-- split it, or raise the bound with --set ingest.max_record_chars=N", r.paper_id,
        )]
    if len(r.text) <= max_abstract_chars:
        return [r]
    short = truncate_at_sentence(r.text, max_abstract_chars)
    note = IngestIssue(
        r.source, r.source_line,
        f"{TRUNCATED}: the abstract of {len(r.text):,} characters was cut to {len(short):,} at a sentence boundary "
        f"(ingest.max_abstract_chars={max_abstract_chars:,})", r.paper_id,
    )
    return [dataclasses.replace(r, text=short), note]
