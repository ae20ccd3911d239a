"""Reader for CSV (and TSV) files with a header row.

Columns are matched case-insensitively: id (paper_id, _id, doc_id), title, abstract (text, summary),
authors (author), year, venue (journal, booktitle), doi; other columns are ignored. A UTF-8 BOM is
dropped; quoted fields may span lines; each row's line is the physical line where it starts. A row that
repeats the header (or whose values are all column names) and a header with no rows are issues. A field
over `FIELD_LIMIT` characters (often an unclosed quote) and a row with missing or extra fields are
per-row issues. Text such as "=HYPERLINK(...)" is stored as written, as plain text.
The csv module's field size limit is process-wide: it is set around each row read and restored.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import IngestError
from ..types import IngestIssue, Record
from .clean import has_undecodable
from .fields import build_record, parse_authors, parse_year
from .sources import decode_lenient, iter_lines

FIELD_LIMIT = 1_000_000
COLUMNS = {
    "id": ("id", "paper_id", "_id", "doc_id", "paperid"),
    "title": ("title",),
    "abstract": ("abstract", "text", "summary"),
    "authors": ("authors", "author"),
    "year": ("year",),
    "venue": ("venue", "journal", "booktitle"),
    "doi": ("doi",),
}


def _next_row(reader: Iterator[list[str]]) -> list[str]:
    """next(reader) with the bounded field size limit in force only while the row is read."""
    previous = csv.field_size_limit(FIELD_LIMIT)
    try:
        return next(reader)
    finally:
        csv.field_size_limit(previous)


def _map_header(header: list[str], source: str) -> dict[str, int]:
    names = [h.strip().lstrip("\ufeff").strip().lower() for h in header]
    mapping: dict[str, int] = {}
    for field, aliases in COLUMNS.items():
        for alias in aliases:
            if alias in names:
                mapping[field] = names.index(alias)
                break
    if "abstract" not in mapping:
        found = ", ".join(h for h in names if h) or "nothing"
        raise IngestError(
            f"{source}: the CSV header has no 'abstract' column (found: {found})",
            hint="Name the column with the abstracts 'abstract' (or 'text'); other columns: id, title, authors, "
            "year, venue, doi.",
        )
    return mapping


def _names(row: list[str]) -> list[str]:
    return [c.strip().lstrip("\ufeff").strip().casefold() for c in row]


def _repeats_header(row: list[str], header: list[str]) -> bool:
    """True for the header row again (a concatenated file), or a row whose values are all column names.

    >>> _repeats_header(["ID", "Title ", "abstract"], ["id", "title", "abstract"])
    True
    >>> _repeats_header(["paper_id", "title", "abstract"], ["id", "title", "abstract"])
    True
    >>> _repeats_header(["p1", "Title", "An abstract about titles."], ["id", "title", "abstract"])
    False
    """
    cells, names = _names(row), _names(header)
    if cells == names:
        return True
    known = {a for aliases in COLUMNS.values() for a in aliases} | set(names)
    filled = [c for c in cells if c]
    return len(filled) >= 2 and all(c in known for c in filled)


def check_header(head_lines: list[str], source: str, delimiter: str = ",") -> None:
    """Raise IngestError now if the header (in the file's first lines) has no abstract column."""
    reader = csv.reader((line + "\n" for line in head_lines), delimiter=delimiter)
    while True:
        try:
            row = _next_row(reader)
        except (StopIteration, csv.Error):
            return  # no complete header in the sniffed lines: the reader itself will tell
        if any(cell.strip() for cell in row):
            _map_header(row, source)
            return


def read_csv(
    path: Path, *, source: str, delimiter: str = ",", lines: Iterable[tuple[int, bytes]] | None = None
) -> Iterator[Record | IngestIssue]:
    text_lines = (decode_lenient(raw, lineno) + "\n" for lineno, raw in (iter_lines(path) if lines is None else lines))
    reader = csv.reader(text_lines, delimiter=delimiter)
    header: list[str] | None = None
    mapping: dict[str, int] = {}
    consumed = 0  # physical lines read so far
    data_rows = 0
    while True:
        start = consumed + 1
        try:
            row = _next_row(reader)
        except StopIteration:
            if header is not None and not data_rows:
                yield IngestIssue(source, consumed, "no data rows after the header: nothing to ingest")
            return
        except csv.Error as e:
            consumed = reader.line_num
            if "field larger than field limit" in str(e):
                msg = (
                    f"a field is longer than {FIELD_LIMIT:,} characters (an unclosed quote?); "
                    "check the quotes of this row"
                )
            else:
                msg = f"unreadable CSV row ({e}); check its quotes and delimiters"
            yield IngestIssue(source, start, msg)
            continue
        consumed = reader.line_num
        if not any(cell.strip() for cell in row):
            continue  # blank line
        if header is None:
            header = row
            mapping = _map_header(row, source)
            continue
        key = row[mapping["id"]].strip() if "id" in mapping and mapping["id"] < len(row) else ""
        if _repeats_header(row, header):
            yield IngestIssue(source, start, "this row repeats the header (its values are the column names); "
                              "skipped: remove it (were files joined with their header rows?)")
            data_rows += 1
            continue
        data_rows += 1
        if len(row) != len(header):
            counts = f"row has {len(row)} fields but the header has {len(header)}"
            if len(row) < len(header):
                missing = ", ".join(header[len(row) :])
                detail = f"missing: {missing}" if missing.strip() else "missing fields"
                msg = f"{counts} ({detail}); fix the row's quotes and delimiters"
            else:
                msg = f"{counts} (extra fields); quote fields that contain the delimiter"
            yield IngestIssue(source, start, msg, key)
            continue
        if any(has_undecodable(cell) for cell in row):
            yield IngestIssue(source, start, "the row holds invalid UTF-8 bytes; re-save the file as UTF-8", key)
            continue

        def col(name: str, row: list[str] = row, mapping: dict[str, int] = mapping) -> str:
            return row[mapping[name]] if name in mapping else ""

        yield build_record(
            text=col("abstract"),
            title=col("title"),
            source_id=col("id"),
            key=key,
            authors=parse_authors(col("authors")),
            year=parse_year(col("year")),
            venue=col("venue"),
            doi=col("doi"),
            source=source,
            line=start,
            source_type="csv",
        )
