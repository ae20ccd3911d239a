"""Reader for plain text: one abstract per paragraph, paragraphs separated by blank lines.

Lines of a paragraph are joined with spaces (a line ending in a hyphen is joined without one, keeping
the hyphen). Paragraphs of fewer than `MIN_WORDS` words are reported, not ingested (headings, page
numbers, stray lines). Records get content-hash ids; their line is the paragraph's first line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ..types import IngestIssue, Record
from .clean import clean_text, has_undecodable, word_count
from .fields import build_record
from .sources import decode_lenient, iter_lines

MIN_WORDS = 20
MAX_PARAGRAPH_CHARS = 1_000_000


def _paragraph(source: str, start: int, lines: list[str]) -> Record | IngestIssue:
    joined = ""
    for line in lines:
        line = line.strip()
        if joined.endswith(("-", "‐")) and line:
            joined += line
        else:
            joined = f"{joined} {line}" if joined else line
    if has_undecodable(joined):
        return IngestIssue(source, start, "paragraph holds invalid UTF-8 bytes; re-save the file as UTF-8")
    text = clean_text(joined)
    words = word_count(text)
    if words < MIN_WORDS:
        return IngestIssue(
            source,
            start,
            f"paragraph of {words} words is too short for an abstract ({text[:60]!r}); an abstract needs at "
            f"least {MIN_WORDS} words -- merge it with its abstract or remove it",
        )
    return build_record(text=text, source=source, line=start, source_type="text")


def _too_long(source: str, start: int) -> IngestIssue:
    return IngestIssue(
        source,
        start,
        f"paragraph longer than {MAX_PARAGRAPH_CHARS:,} characters; separate abstracts with blank lines",
    )


def read_text(
    path: Path, *, source: str, lines: Iterable[tuple[int, bytes]] | None = None
) -> Iterator[Record | IngestIssue]:
    source_lines = iter_lines(path) if lines is None else lines
    start = 0
    lines = []
    size = 0
    for lineno, raw in source_lines:
        line = decode_lenient(raw, lineno)
        if line.strip():
            if not lines and not size:
                start = lineno
            size += len(line)
            if size <= MAX_PARAGRAPH_CHARS:
                lines.append(line)
            else:
                lines = []
        elif size:
            yield _paragraph(source, start, lines) if lines else _too_long(source, start)
            lines, size = [], 0
    if size:
        yield _paragraph(source, start, lines) if lines else _too_long(source, start)
