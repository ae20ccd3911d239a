"""Reader for JSON Lines: generic records, BEIR corpora (`_id`, `title`, `text`) and arXiv dumps.

One JSON object per line, read as bytes and decoded line by line (a bad byte spoils one line, not the
file; `.gz` is decompressed on the fly, nothing is loaded whole). Blank lines are skipped silently.
A line that is not valid JSON is reported with its number -- as a partial write when it is the last line;
a line that is valid JSON but not an object (null, [1,2]) is rejected on its own.

Fields: id|_id|paper_id|doc_id, title, abstract|text|summary (a list of sentences is joined), authors
(list, or "A and B" / "A; B"), year (or first_seen/date/published, or the arXiv id), venue|journal|
booktitle, doi, categories (arXiv: a list or "cs.CL cs.LG"); label, label_derived and duplicate_of are kept,
so a written corpus reads back as is.
With `kind=None` the kind (jsonl, beir or arxiv) is sniffed from the first good object's keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..types import IngestIssue, Record
from .clean import scrub
from .fields import build_record, parse_authors, parse_categories, parse_year
from .sources import bad_utf8_message, decode_strict, iter_lines

JSON_KINDS = ("jsonl", "beir", "arxiv")
ID_KEYS = ("id", "_id", "paper_id", "doc_id")
TEXT_KEYS = ("abstract", "text", "summary")
_ARXIV_ID = re.compile(
    r"^(?:arXiv:)?(\d{2})(\d{2})\.\d{4,5}(?:v\d+)?$"  # new style: YYMM.NNNNN
    r"|^[a-z\-]+(?:\.[A-Z]{2})?/(\d{2})(\d{2})\d{3}",  # old style: archive/YYMMNNN
    re.IGNORECASE,
)


def sniff_kind(obj: dict[str, Any]) -> str:
    """ "beir" for {_id, text}, "arxiv" for {id, abstract, categories|first_seen|arxiv url}, else "jsonl"."""
    if "_id" in obj and "text" in obj and "abstract" not in obj:
        return "beir"
    url = obj.get("url")
    if "id" in obj and "abstract" in obj and (
        "categories" in obj or "first_seen" in obj or (isinstance(url, str) and "arxiv.org" in url)
    ):
        return "arxiv"
    return "jsonl"


def arxiv_year(arxiv_id: str) -> int | None:
    """Year from an arXiv id: "2501.01234" -> 2025, "hep-th/9901001" -> 1999.

    >>> arxiv_year("2501.01234"), arxiv_year("hep-th/9901001"), arxiv_year("W19-1234")
    (2025, 1999, None)
    """
    m = _ARXIV_ID.match(arxiv_id.strip())
    if not m:
        return None
    yy = int(m.group(1) or m.group(3))
    return 2000 + yy if yy < 91 else 1900 + yy


def _text_field(obj: dict[str, Any], key: str) -> str | None:
    """A string field; None when it holds something that is not text."""
    value = obj.get(key)
    if value is None:
        return ""
    if isinstance(value, bool):
        return None
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def record_from_object(obj: dict[str, Any], *, source: str, line: int, kind: str) -> Record | IngestIssue:
    """Map one JSON object to a Record (or an IngestIssue naming the bad field)."""
    source_id = ""
    key = ""
    for k in ID_KEYS:
        if obj.get(k) not in (None, ""):
            value = obj[k]
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                return IngestIssue(source, line, f"field {k!r} must be a string or a number; fix the id", "")
            source_id = str(value)
            key = scrub(source_id)
            break
    text_value: Any = None
    for k in TEXT_KEYS:
        if obj.get(k) not in (None, ""):
            text_value = obj[k]
            break
    if isinstance(text_value, list) and all(isinstance(s, str) for s in text_value):
        text_value = " ".join(text_value)  # abstracts stored as a list of sentences
    if text_value is None or (isinstance(text_value, str) and not text_value.strip()):
        return IngestIssue(
            source, line, "no abstract: add an 'abstract' (or 'text') field with the abstract, or remove the line", key
        )
    if not isinstance(text_value, str):
        return IngestIssue(source, line, "the 'abstract' field must be a string (or a list of sentences)", key)
    fields: dict[str, str] = {}
    for name, keys in {
        "title": ("title",),
        "venue": ("venue", "journal", "booktitle"),
        "doi": ("doi",),
        "label": ("label",),
        "duplicate_of": ("duplicate_of",),
    }.items():
        fields[name] = ""
        for k in keys:
            value = _text_field(obj, k)
            if value is None:
                return IngestIssue(source, line, f"field {k!r} must be a string; fix or remove it", key)
            if value:
                fields[name] = value
                break
    year = parse_year(obj.get("year"))
    for k in ("first_seen", "date", "published"):
        if year is None and isinstance(obj.get(k), str):
            year = parse_year(obj[k])
    if year is None and kind == "arxiv" and source_id:
        year = arxiv_year(source_id)
    venue = fields["venue"] or ("arXiv" if kind == "arxiv" else "")
    return build_record(
        text=text_value,
        title=fields["title"],
        source_id=source_id,
        key=key,
        authors=parse_authors(obj.get("authors", obj.get("author"))),
        year=year,
        venue=venue,
        doi=fields["doi"],
        label=fields["label"],
        label_derived=bool(obj.get("label_derived")) if fields["label"] else False,
        duplicate_of=fields["duplicate_of"],
        source=source,
        line=line,
        source_type=kind,
        categories=parse_categories(obj.get("categories")),
    )


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "an array (a JSON array of records? convert it with `jq -c '.[]' FILE > FILE.jsonl`)"
    return f"a {type(value).__name__}"


def read_jsonl(
    path: Path, *, source: str, kind: str | None = None, lines: Iterable[tuple[int, bytes]] | None = None
) -> Iterator[Record | IngestIssue]:
    """Yield a Record or an IngestIssue per non-blank line of a JSON Lines file."""
    pending: tuple[int, str] | None = None  # (line, reason) of a bad line: a partial write if nothing follows
    for lineno, raw in iter_lines(path) if lines is None else lines:
        if not raw.strip():
            continue
        if pending:
            yield IngestIssue(source, pending[0], f"not valid JSON ({pending[1]}); fix or delete this line")
            pending = None
        text = decode_strict(raw, lineno)
        if text is None:
            yield IngestIssue(source, lineno, bad_utf8_message(raw))
            continue
        if not text.strip():
            continue  # only Unicode whitespace
        try:
            obj = json.loads(text)
        except RecursionError:
            yield IngestIssue(source, lineno, "JSON nested too deeply; fix or delete this line")
            continue
        except ValueError as e:  # JSONDecodeError, or an integer too long to convert
            if isinstance(e, json.JSONDecodeError):
                reason = f"{e.msg} column {e.colno}" if e.msg.endswith(" at") else f"{e.msg} at column {e.colno}"
            else:
                reason = str(e)
            pending = (lineno, reason)
            continue
        if not isinstance(obj, dict):
            yield IngestIssue(source, lineno, f"expected a JSON object, got {_describe(obj)}; skipped")
            continue
        if kind is None:
            kind = sniff_kind(obj)
        yield record_from_object(obj, source=source, line=lineno, kind=kind)
    if pending:
        yield IngestIssue(
            source,
            pending[0],
            f"the last line is cut off, probably a partial write ({pending[1]}); re-export the file or delete the line",
        )
