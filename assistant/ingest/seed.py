"""Reader for the seed text format: abstracts copied from a paper-listing website, one per line.

Format: each non-empty line is one abstract (blank lines between abstracts are allowed). Debris is
dropped: page headers ("Daily Papers"), lines written mostly in CJK (the site's search UI), and the
"PDF ↗" link label glued to the start of an abstract. A short line (no final period, < 300 characters)
directly followed -- blank lines aside -- by a "PDF ↗..." abstract is that abstract's title.
Other lines of fewer than `MIN_WORDS` words are reported, not ingested. Records get content-hash ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ..types import IngestIssue, Record
from .clean import clean_text, is_page_debris, strip_pdf_prefix, word_count
from .fields import build_record
from .sources import bad_utf8_message, decode_strict, iter_lines

MIN_WORDS = 20
TITLE_MAX_CHARS = 300


def looks_like_title(line: str) -> bool:
    """A short line without a final period: a title when an abstract follows it."""
    return len(line) < TITLE_MAX_CHARS and not line.rstrip().endswith(".")


def _short(source: str, line: int, text: str) -> IngestIssue:
    return IngestIssue(
        source,
        line,
        f"line has {word_count(text)} words, too short for an abstract ({text[:60]!r}); "
        f"join it to its abstract or remove it (an abstract needs at least {MIN_WORDS} words)",
    )


def _flush(source: str, line: int, text: str, source_type: str) -> Record | IngestIssue:
    """A title-like line that no "PDF ↗" abstract followed: an abstract if long enough, else an issue."""
    if word_count(text) >= MIN_WORDS:
        return build_record(text=text, source=source, line=line, source_type=source_type)
    return _short(source, line, text)


def read_seed(
    path: Path, *, source: str, source_type: str = "seed", lines: Iterable[tuple[int, bytes]] | None = None
) -> Iterator[Record | IngestIssue]:
    pending: tuple[int, str] | None = None  # a possible title waiting for its "PDF ↗" abstract
    for lineno, raw in iter_lines(path) if lines is None else lines:
        decoded = decode_strict(raw, lineno)
        if decoded is None:
            yield IngestIssue(source, lineno, bad_utf8_message(raw))
            continue
        line = clean_text(decoded)
        if not line or is_page_debris(line):
            continue
        body, had_pdf = strip_pdf_prefix(line)
        body = clean_text(body)
        if had_pdf and body:
            title_line, title = pending if pending else (lineno, "")
            pending = None
            if word_count(body) < MIN_WORDS:
                yield _short(source, lineno, body)
                continue
            yield build_record(text=body, title=title, source=source, line=title_line, source_type=source_type)
            continue
        if pending:
            yield _flush(source, *pending, source_type)
            pending = None
        if word_count(body) >= MIN_WORDS and not (looks_like_title(body) and word_count(body) < 40):
            yield build_record(text=body, source=source, line=lineno, source_type=source_type)
        elif looks_like_title(body):
            pending = (lineno, body)
        else:
            yield _short(source, lineno, body)
    if pending:
        yield _flush(source, *pending, source_type)
