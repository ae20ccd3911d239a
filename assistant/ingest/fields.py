"""Field normalisation shared by the readers, and `build_record`, the one place a Record is made.

Scope: ids (source id, DOI, content hash), authors, years, and the checks every record passes
(non-empty abstract, decodable text). Readers map their own field names and call `build_record`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..types import IngestIssue, Record, content_hash
from .clean import clean_text, has_undecodable, scrub
from .labels import derive_label

YEAR_MIN, YEAR_MAX = 1900, 2100
_DOI_PREFIX = re.compile(r"^(?:https?://)?(?:dx\.)?(?:doi\.org/)|^doi:\s*", re.IGNORECASE)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")


def normalise_doi(value: str) -> str:
    """Lower-case a DOI and drop its resolver prefix.

    >>> normalise_doi(" https://doi.org/10.1145/ABC.123 ")
    '10.1145/abc.123'
    >>> normalise_doi("doi:10.1000/XYZ")
    '10.1000/xyz'
    """
    return _DOI_PREFIX.sub("", value.strip()).strip().lower()


def looks_like_doi(value: str) -> bool:
    return bool(_DOI.match(normalise_doi(value)))


def parse_year(value: object) -> int | None:
    """A year in 1900..2100 from an int or a string such as "2019", "2019a", "2019-05-01"; else None.

    >>> parse_year("2019-05-01"), parse_year(2025), parse_year("n.d."), parse_year(1066)
    (2019, 2025, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        year: int | None = value
    elif isinstance(value, float) and value.is_integer():
        year = int(value)
    elif isinstance(value, str):
        m = _YEAR.search(value)
        year = int(m.group(1)) if m else None
    else:
        year = None
    return year if year is not None and YEAR_MIN <= year <= YEAR_MAX else None


def bibtex_name(name: str) -> str:
    """ "Last, First" -> "First Last"; "Last, Jr, First" -> "First Last Jr"."""
    parts = [p.strip() for p in name.split(",")]
    parts = [p for p in parts if p]
    if len(parts) == 2:
        return f"{parts[1]} {parts[0]}"
    if len(parts) == 3:
        return f"{parts[2]} {parts[0]} {parts[1]}"
    return " ".join(parts)


def parse_authors(value: object, *, bibtex: bool = False) -> tuple[str, ...]:
    """Author names from a list, or from a string joined by ";", " and " or commas.

    "others" (BibTeX's et al.) and empty names are dropped; with `bibtex`, "Last, First" is reordered.

    >>> parse_authors("Ada Lovelace and Alan Turing")
    ('Ada Lovelace', 'Alan Turing')
    >>> parse_authors("Lovelace, Ada and Turing, Alan and others, ", bibtex=True)
    ('Ada Lovelace', 'Alan Turing')
    >>> parse_authors("Ada Lovelace, Alan Turing, Grace Hopper")
    ('Ada Lovelace', 'Alan Turing', 'Grace Hopper')
    >>> parse_authors([{"name": "Ada Lovelace"}, "Alan Turing", 3])
    ('Ada Lovelace', 'Alan Turing')
    """
    names: list[str] = []
    if isinstance(value, str):
        pieces = value.split(";") if ";" in value else re.split(r"\s+and\s+", value.strip())
        for piece in pieces:
            piece = piece.strip().strip(",").strip()
            if bibtex:
                names.append(bibtex_name(piece))
                continue
            commas = [c.strip() for c in piece.split(",") if c.strip()]
            # "A B, C D" is a list of names; "Last, First" is one name.
            if len(commas) > 2 or (len(commas) == 2 and all(" " in c for c in commas)):
                names.extend(commas)
            else:
                names.append(piece)
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, dict)):
        for item in value:
            if isinstance(item, dict):
                item = item.get("name", "")
            if isinstance(item, str):
                names.append(item)
    out = []
    for name in names:
        name = clean_text(name)
        if name and name.casefold() not in {"others", "et al", "et al."}:
            out.append(name)
    return tuple(out)


def parse_categories(value: object) -> tuple[str, ...]:
    """arXiv categories from a list or a space/comma separated string; anything else gives ().

    >>> parse_categories("cs.CL cs.LG"), parse_categories(["cs.CV", "cs.RO", 3]), parse_categories(None)
    (('cs.CL', 'cs.LG'), ('cs.CV', 'cs.RO'), ())
    """
    if isinstance(value, str):
        items: list = re.split(r"[\s,;]+", value)
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        return ()
    return tuple(c.strip() for c in items if isinstance(c, str) and c.strip() and len(c.strip()) <= 40)


def paper_id_for(title: str, text: str, source_id: str = "", doi: str = "") -> str:
    """The id rule: the source's own id; else the normalised DOI; else "h:" + content hash.

    An id that is a DOI (or DOI URL) is normalised like a DOI.

    >>> paper_id_for("", "x", source_id=" 2501.01234 ")
    '2501.01234'
    >>> paper_id_for("", "x", doi="https://doi.org/10.1/AB")
    '10.1/ab'
    >>> paper_id_for("T", "x") == "h:" + content_hash("T", "x")
    True
    """
    source_id = clean_text(source_id)
    if source_id:
        return normalise_doi(source_id) if looks_like_doi(source_id) else source_id
    if doi and normalise_doi(doi):
        return normalise_doi(doi)
    return "h:" + content_hash(title, text)


# Words that name a field rather than fill it: an abstract that is only one of them is a header row
# (a CSV header repeated mid-file) or a template placeholder, never a paper.
COLUMN_WORDS = frozenset({"abstract", "abstracts", "text", "summary", "title", "id", "paper_id", "content", "body"})


def build_record(
    *,
    text: str,
    source: str,
    line: int,
    source_type: str,
    title: str = "",
    source_id: str = "",
    key: str = "",
    authors: tuple[str, ...] = (),
    year: int | None = None,
    venue: str = "",
    doi: str = "",
    label: str = "",
    label_derived: bool = False,
    duplicate_of: str = "",
    categories: tuple[str, ...] = (),
) -> Record | IngestIssue:
    """Clean the fields and make a Record, or an IngestIssue saying what is wrong and what to do.

    `key` names the record in issues (cite key, id). A given `label` is kept (e.g. re-reading a
    corpus file); otherwise label = title, or a label derived from the text.
    """
    key = scrub(key)
    fields = {"text": text, "title": title, "venue": venue, "doi": doi, "id": source_id, "label": label,
              "duplicate_of": duplicate_of}
    for name, value in fields.items():
        if has_undecodable(value):
            return IngestIssue(source, line, f"the {name} holds invalid UTF-8 bytes (or an escaped lone surrogate); "
                               "re-save the file as UTF-8", key)
    if any(has_undecodable(a) for a in authors):
        return IngestIssue(source, line, "the authors hold invalid UTF-8 bytes; re-save the file as UTF-8", key)
    text, title, venue = clean_text(text), clean_text(title), clean_text(venue)
    if not text:
        msg = "the abstract is missing or empty; add the abstract text or remove this record"
        return IngestIssue(source, line, msg, key)
    if text.strip(" :.").casefold() in COLUMN_WORDS:
        msg = (f"the abstract is just the word {text!r}: a header row or a placeholder, not data; "
               "remove this record (files joined with their header rows?)")
        return IngestIssue(source, line, msg, key)
    doi = normalise_doi(doi) if doi else ""
    paper_id = paper_id_for(title, text, source_id, doi)
    label = clean_text(label)
    if label:
        pass
    elif title:
        label, label_derived = title, False
    else:
        label, label_derived = derive_label(text), True
    return Record(
        paper_id=paper_id,
        text=text,
        title=title,
        label=label,
        label_derived=label_derived,
        authors=authors,
        year=year,
        venue=venue,
        doi=doi,
        source=source,
        source_line=line,
        source_type=source_type,
        duplicate_of=clean_text(duplicate_of),
        categories=tuple(dict.fromkeys(c for c in (clean_text(c) for c in categories) if c)),
    )
