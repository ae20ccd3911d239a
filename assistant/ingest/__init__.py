"""Ingest stage: read abstracts from a file into `Record`s, reporting each bad record as an `IngestIssue`.

Public API:
    read_source(path, fmt=None) -> Iterator[Record | IngestIssue]   (streams; never loads a file whole)
    detect_format(path) -> str                                       (one of FORMATS)
    FORMATS = ("seed", "jsonl", "csv", "bibtex", "text", "beir", "arxiv")

Format detection (when `fmt` is None), by name first (a trailing .gz is ignored), then by content:
    .jsonl .json .ndjson -> jsonl, beir or arxiv, from the keys of the first good object
    .csv -> csv (.tsv: tab-separated)      .bib .bibtex -> bibtex
    .txt .text .md (and unknown names whose content is text) -> "seed" when the file shows the seed
    debris (a "PDF ↗" prefix, "Daily Papers", short mostly-CJK lines) or when its non-empty lines are
    whole abstracts, one per line (>= 80% of them are >= 200 characters long); otherwise "text" (one
    abstract per blank-line-separated paragraph, hard-wrapped lines joined). Only the first 64 KiB is read.
    Unknown names: first character "{" -> jsonl family, "@" -> bibtex, a first line with commas that
    names an abstract column -> csv, else the text rule above.

Within one file a repeated paper_id is reported ("duplicate ..." or "id collision ..."), and derived
labels are made unique. Whole-file problems (missing, a directory, binary, unknown format) raise
IngestError with a hint; a .gz cut off part-way ends the stream with one IngestIssue.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from ..errors import IngestError
from ..settings import IngestSettings
from ..types import IngestIssue, Record
from .bibtex import read_bibtex
from .clean import is_page_debris, strip_pdf_prefix
from .csv_reader import check_header, read_csv
from .dedupe import drop_exact_duplicates, jaccard, near_duplicates
from .jsonl import JSON_KINDS, read_jsonl, sniff_kind
from .labels import derive_label, unique_labels
from .limits import bound_record
from .seed import read_seed
from .sources import MB, SNIFF_BYTES, LineSource, SourceTruncated, check_readable
from .text import read_text

FORMATS: tuple[str, ...] = ("seed", "jsonl", "csv", "bibtex", "text", "beir", "arxiv")

__all__ = [
    "FORMATS",
    "derive_label",
    "detect_format",
    "jaccard",
    "near_duplicates",
    "read_source",
    "unique_labels",
]

_JSON_EXT = {".jsonl", ".json", ".ndjson"}
_TEXT_EXT = {".txt", ".text", ".md"}
SEED_LINE_CHARS = 200


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _head_lines(head: bytes) -> list[str]:
    lines = head.decode("utf-8", errors="replace").lstrip("\ufeff").split("\n")
    if len(head) >= SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut by the sniff window
    return [line.rstrip("\r") for line in lines]


def _json_kind(lines: list[str]) -> str:
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            return sniff_kind(obj)
    return "jsonl"


def _seed_or_text(lines: list[str]) -> str:
    non_empty = [line for line in lines if line.strip()]
    if not non_empty:
        return "text"
    if any(strip_pdf_prefix(line)[1] or is_page_debris(line) for line in non_empty):
        return "seed"
    long_lines = sum(len(line.strip()) >= SEED_LINE_CHARS for line in non_empty)
    return "seed" if long_lines >= 0.8 * len(non_empty) else "text"


def detect_format(path: Path, head: bytes | None = None) -> str:
    """Guess the format of `path` (see the module docstring for the rules); IngestError if unknown."""
    path = Path(path)
    if head is None:
        head = check_readable(path)
    ext = _suffix(path)
    lines = _head_lines(head)
    if ext in _JSON_EXT:
        return _json_kind(lines)
    if ext in (".csv", ".tsv"):
        return "csv"
    if ext in (".bib", ".bibtex"):
        return "bibtex"
    if ext in _TEXT_EXT:
        return _seed_or_text(lines)
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("{"):
        return _json_kind(lines)
    if first.startswith("@"):
        return "bibtex"
    if re.search(r"[,\t;]", first) and re.search(r"\b(abstract|text|summary)\b", first, re.IGNORECASE):
        return "csv"
    if first:
        return _seed_or_text(lines)
    raise IngestError(
        f"{path}: cannot tell the format of this file",
        hint=f"Pass the format explicitly (one of: {', '.join(FORMATS)}) or use a known extension "
        "(.jsonl, .csv, .bib, .txt).",
    )


def _check_json_lines(path: Path, lines: list[str]) -> None:
    first = next((line.strip() for line in lines if line.strip()), "")
    if first in ("[", "{"):
        raise IngestError(
            f"{path} looks like a pretty-printed JSON document, not JSON Lines (one object per line)",
            hint="Convert it: `jq -c '.[]' FILE > FILE.jsonl` (for an array of records), then ingest the .jsonl.",
        )


def _csv_delimiter(path: Path, lines: list[str]) -> str:
    first = next((line for line in lines if line.strip()), "")
    if _suffix(path) == ".tsv" or ("\t" in first and "," not in first):
        return "\t"
    if ";" in first and "," not in first:
        return ";"
    return ","


_FORMAT_NAMES = {"bibtex": "BibTeX", "csv": "CSV", "jsonl": "JSON Lines", "beir": "JSON Lines", "arxiv": "JSON Lines",
                 "seed": "plain text", "text": "plain text"}
_MARKUP = ((b"<svg", "SVG"), (b"<!doctype html", "HTML"), (b"<html", "HTML"), (b"<?xml", "XML"), (b"<!--", "HTML/XML"),
           (b"<head", "HTML"), (b"<body", "HTML"), (b"<rss", "RSS"), (b"<feed", "Atom"))


def markup_kind(head: bytes) -> str:
    """"SVG", "HTML", ... when the file starts like a markup document (no reader's format does), else "".

    >>> markup_kind(b'<?xml version="1.0"?>\\n<svg xmlns="http://www.w3.org/2000/svg">')
    'SVG'
    >>> markup_kind(b"  <!DOCTYPE html><html>"), markup_kind(b"@article{k, title={<b>x</b>}}")
    ('HTML', '')
    """
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1024].lower()
    kind = next((name for tag, name in _MARKUP if start.startswith(tag)), "")
    if kind in ("XML", "HTML/XML"):  # a prolog or comment first: name what follows
        kind = "SVG" if b"<svg" in start else "HTML" if b"<html" in start else kind
    return kind


def read_source(
    path: Path, *, fmt: str | None = None, limits: IngestSettings | None = None
) -> Iterator[Record | IngestIssue]:
    """Read one file: yield a Record per good record and an IngestIssue per bad one.

    `fmt` is one of FORMATS, or None to detect it; `limits` bounds lines, records, abstracts and
    decompression (settings group `ingest`; defaults when None). Raises IngestError (with a hint) only
    when the whole file can't be read: missing, a directory, binary, unknown format, or no abstract column.
    """
    path = Path(path)
    limits = limits or IngestSettings()
    if fmt is not None and fmt not in FORMATS:
        raise IngestError(f"unknown format {fmt!r}", hint=f"Use one of: {', '.join(FORMATS)}.")
    head = check_readable(path)
    lines = _head_lines(head)
    auto = fmt is None
    if fmt is None:
        fmt = detect_format(path, head)
    source = path.name
    if not head.strip():
        return iter([IngestIssue(source, 0, "the file is empty; nothing to ingest")])
    markup = markup_kind(head)
    if markup:
        what = {"bibtex": "no BibTeX entries found", "csv": "no CSV rows found"}.get(fmt, "no abstracts found")
        return iter([IngestIssue(source, 1, f"{what}: the file holds {markup} markup, "
                                 f"not {_FORMAT_NAMES.get(fmt, fmt)}; "
                                 "export the abstracts as .bib, .jsonl, .csv or .txt and ingest that file")])
    src = LineSource(path, int(limits.max_line_mb * MB), limits.max_decompressed_mb * MB)
    if fmt in JSON_KINDS:
        _check_json_lines(path, lines)
        items = read_jsonl(path, source=source, kind=None if auto else fmt, lines=src)
    elif fmt == "csv":
        delimiter = _csv_delimiter(path, lines)
        check_header(lines, source, delimiter)
        items = read_csv(path, source=source, delimiter=delimiter, lines=src)
    elif fmt == "bibtex":
        items = read_bibtex(path, source=source, lines=src)
    elif fmt == "seed":
        items = read_seed(path, source=source, lines=src)
    else:
        items = read_text(path, source=source, lines=src)
    return _stream(_bounded(items, src, limits), source)


def _bounded(items: Iterator[Record | IngestIssue], src: LineSource,
             limits: IngestSettings) -> Iterator[Record | IngestIssue]:
    """Apply the record and abstract bounds; report each over-long line the reader was spared."""
    seen = 0
    for item in items:
        while seen < len(src.oversize):
            yield _long_line(src.path.name, src.oversize[seen], limits)
            seen += 1
        if isinstance(item, Record):
            yield from bound_record(item, limits.max_record_chars, limits.max_abstract_chars)
        else:
            yield item
    for lineno in src.oversize[seen:]:
        yield _long_line(src.path.name, lineno, limits)


def _long_line(source: str, lineno: int, limits: IngestSettings) -> IngestIssue:
    return IngestIssue(
        source, lineno, f"line longer than ingest.max_line_mb ({limits.max_line_mb:g} MB); skipped without reading it "
        "whole -- split the record, or raise the bound with --set ingest.max_line_mb=N",
    )


def _stream(items: Iterator[Record | IngestIssue], source: str) -> Iterator[Record | IngestIssue]:
    try:
        yield from unique_labels(drop_exact_duplicates(items))
    except SourceTruncated as e:
        yield IngestIssue(source, e.line, f"{e.message} ({e.hint})" if e.hint else e.message)
