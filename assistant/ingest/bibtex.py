"""Reader for BibTeX: entries with an `abstract` field become Records.

The file is split into entries by a linear scan (an entry starts at a line beginning with `@type{` or
`@type(`), so one broken entry -- unbalanced braces, an unclosed quote, a file cut off mid-entry --
is reported with its line and cite key and every entry after it is still read; nothing is
backtracked over, so no input can make the reader hang. Each entry is parsed by `bibtexparser` (v2)
with the @string macros defined before it; undefined macros (`month = jul`) are kept as
their raw text. LaTeX in titles, authors and abstracts is turned into plain text (braces stripped).
id: the DOI (normalised) if present, else the cite key. A file with no entry at all (an SVG or HTML
page renamed .bib) is one issue, "no BibTeX entries found", so `--strict` fails on it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import bibtexparser
from bibtexparser.library import Library
from bibtexparser.model import DuplicateFieldKeyBlock, Entry, String

from ..types import IngestIssue, Record
from .clean import has_undecodable, latex_to_text
from .fields import bibtex_name, build_record, parse_authors, parse_year
from .sources import decode_lenient, iter_lines

_ENTRY_START = re.compile(r"^\s*@\s*([A-Za-z][\w-]*)\s*[{(]")
_KEY = re.compile(r"^\s*@\s*[A-Za-z][\w-]*\s*[{(]\s*([^,\s{}()]+)\s*,")
_IGNORED_TYPES = {"comment", "preamble"}


@contextmanager
def _quiet_bibtexparser() -> Iterator[None]:
    """bibtexparser logs each failed block as a warning; this reader reports them as IngestIssues instead."""
    logger = logging.getLogger("bibtexparser")
    previous = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(previous)


def _parse(block: str, strings: list[String]) -> Library:
    with _quiet_bibtexparser():
        return bibtexparser.parse_string(block, library=Library(blocks=list(strings)))


def split_names(value: str) -> list[str]:
    """Split a BibTeX author list on " and " outside braces.

    >>> split_names("Lovelace, Ada and {Barnes and Noble} and others")
    ['Lovelace, Ada', '{Barnes and Noble}', 'others']
    """
    names, depth, start = [], 0, 0
    i = 0
    lower = value.lower()
    while i < len(value):
        ch = value[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and (lower.startswith(" and ", i)
                             or (ch in "\n\t" and lower[i + 1 : i + 5] == "and " and i > start)):
            names.append(value[start:i].strip())
            i += 5
            start = i
            continue
        i += 1
    names.append(value[start:].strip())
    return [n for n in names if n]


def _diagnose(block: str, is_last: bool) -> str:
    """Say what is wrong with an entry bibtexparser could not parse."""
    depth, quoted, opened, closed = 0, False, 0, 0
    prev = ""
    for ch in block:
        if ch == "{" and prev != "\\":
            depth += 1
            opened += 1
        elif ch == "}" and prev != "\\":
            depth -= 1
            closed += 1
        elif ch == '"' and depth == 1 and prev != "\\":
            quoted = not quoted
        prev = ch
    if quoted:
        return 'a field value opened with " is never closed; add the closing quote'
    if opened > closed and is_last:
        return "the entry is cut off at the end of the file (missing closing brace); complete or remove it"
    if opened != closed:
        return f"unbalanced braces ({opened} '{{' but {closed} '}}'); fix the braces of this entry"
    return "this entry could not be parsed; check its braces, quotes and commas"


def _entry_record(entry: Entry, *, source: str, line: int) -> Record | IngestIssue:
    fields = {f.key.lower(): f.value if isinstance(f.value, str) else str(f.value) for f in entry.fields}
    key = entry.key
    abstract = fields.get("abstract", "")
    if not abstract.strip():
        return IngestIssue(source, line, "no abstract: add `abstract = {...}` to this entry", key)
    if any(has_undecodable(v) for v in fields.values()):
        return IngestIssue(source, line, "the entry holds invalid UTF-8 bytes; re-save the file as UTF-8", key)
    authors = parse_authors([bibtex_name(latex_to_text(n)) for n in split_names(fields.get("author", ""))])
    doi = fields.get("doi", "").strip()
    return build_record(
        text=latex_to_text(abstract),
        title=latex_to_text(fields.get("title", "")),
        source_id=doi or key,
        key=key,
        authors=authors,
        year=parse_year(fields.get("year", "")),
        venue=latex_to_text(fields.get("journal") or fields.get("booktitle") or ""),
        doi=doi,
        source=source,
        line=line,
        source_type="bibtex",
    )


def _blocks(path: Path,
            source_lines: Iterable[tuple[int, bytes]] | None = None) -> Iterator[tuple[int, str, str, bool]]:
    """(start line, entry type, text, is_last) per entry; text before the first entry is skipped."""
    start, kind, lines = 0, "", []
    for lineno, raw in iter_lines(path) if source_lines is None else source_lines:
        line = decode_lenient(raw, lineno)
        m = _ENTRY_START.match(line)
        if m:
            if lines:
                yield start, kind, "\n".join(lines), False
            start, kind, lines = lineno, m.group(1).lower(), [line]
        elif lines:
            lines.append(line)
    if lines:
        yield start, kind, "\n".join(lines), True


def read_bibtex(
    path: Path, *, source: str, lines: Iterable[tuple[int, bytes]] | None = None
) -> Iterator[Record | IngestIssue]:
    strings: list[String] = []  # @string macros defined so far
    entries = 0
    for start, kind, block, is_last in _blocks(path, lines):
        entries += kind not in _IGNORED_TYPES and kind != "string"
        if kind in _IGNORED_TYPES:
            continue
        library = _parse(block, strings)
        if kind == "string":
            if library.failed_blocks:
                yield IngestIssue(source, start, "this @string definition could not be parsed; fix or remove it")
            else:
                strings = list(library.strings)
            continue
        m = _KEY.match(block)
        key = m.group(1) if m else ""
        for failed in library.failed_blocks:
            line = start + failed.start_line
            if isinstance(failed, DuplicateFieldKeyBlock):
                dup = re.search(r"'([^']+)'", str(failed.error))
                name = dup.group(1) if dup else "a field"
                yield IngestIssue(source, line, f"field {name!r} appears twice in this entry; remove one", key)
            else:
                yield IngestIssue(source, line, _diagnose(block, is_last), key)
        for entry in library.entries:
            yield _entry_record(entry, source=source, line=start + entry.start_line)
        if not library.entries and not library.failed_blocks:
            yield IngestIssue(source, start, "no BibTeX entry found here; check the `@type{key,` line", key)
    if not entries:
        yield IngestIssue(source, 1, "no BibTeX entries found (no line starts with `@article{key,` or another "
                          "`@type{key,`); is this a BibTeX file? Export the abstracts as .bib, .jsonl, .csv or .txt")
