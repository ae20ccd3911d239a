"""Answers as files a researcher keeps: a standalone Markdown document (question, answer, every source in
full) and BibTeX entries for the cited papers. Pure functions; `exports.py` writes them."""

from __future__ import annotations

import re

from assistant.types import Answer, Record

from .markup import md_escape, safe_markdown
from .render import _authors, _hits_by_id, _label, _norm, answer_key


def export_markdown(answer: Answer, records: dict[str, Record] | None = None) -> str:
    """An answer as a standalone Markdown document: question, answer, then each source in full."""
    records = records or {}
    hits = _hits_by_id(answer)
    out = [f"# {md_escape(answer.question)}", ""]
    if answer.standalone_query and _norm(answer.standalone_query) != _norm(answer.question):
        out += [f"_Searched for:_ {md_escape(answer.standalone_query)}", ""]
    out += [safe_markdown(answer.answer.strip()), ""]
    if answer.incomplete:
        out += ["_This answer is incomplete (generation was stopped)._", ""]
    if answer.unsupported:
        out += ["## Removed by verification", ""] + [f"- {md_escape(s)}" for s in answer.unsupported] + [""]
    if answer.citations:
        out += ["## Sources", ""]
        for c in answer.citations:
            hit = hits.get(c.paper_id)
            rec = records.get(c.paper_id) or (hit.record if hit else None)
            out.append(f"### [{c.marker}] {md_escape(_label(c, hit))}")
            meta = [f"paper_id `{c.paper_id.replace('`', '')}`"]
            if rec is not None:
                meta += [str(rec.year)] if rec.year else []
                meta += [md_escape(_authors(rec.authors, 10))] if rec.authors else []
                meta += [md_escape(rec.venue)] if rec.venue else []
                meta += [f"doi {md_escape(rec.doi)}"] if rec.doi else []
            out += ["", " · ".join(meta), ""]
            if c.sentences:
                out += ["Supporting sentences:", ""] + [f"> {md_escape(s)}" for s in c.sentences] + [""]
            text = c.text or (rec.text if rec else "")
            if text:
                out += ["Abstract:", "", md_escape(text), ""]
    out += [f"_Model: {md_escape(answer.model or 'unknown')}. "
            f"Answer id: {md_escape(answer.id or answer_key(answer))}._", ""]
    return "\n".join(out)


def _bib_escape(s: str) -> str:
    s = " ".join((s or "").split())
    s = s.replace("\\", r"\textbackslash{}")
    s = re.sub(r"([{}%&#_$])", r"\\\1", s)
    return s.replace("~", r"\textasciitilde{}").replace("^", r"\textasciicircum{}")


def bib_key(record: Record, taken: set[str]) -> str:
    surname = record.authors[0].split()[-1] if record.authors and record.authors[0].split() else ""
    word = next((w for w in re.findall(r"[A-Za-z]+", record.display) if len(w) > 3), "")
    base = (re.sub(r"[^A-Za-z0-9]", "", f"{surname}{record.year or ''}{word}")
            or re.sub(r"[^A-Za-z0-9]", "", record.paper_id))
    base = base[:40] or "paper"
    key, i = base, 1
    while key in taken:
        i += 1
        key = f"{base}{chr(ord('a') + (i - 2) % 26)}{'' if i < 28 else i}"
    taken.add(key)
    return key


def bibtex(answer: Answer, records: dict[str, Record] | None = None) -> str:
    """BibTeX (@misc) entries for the papers `answer` cites, from the stored metadata."""
    records = records or {}
    hits = _hits_by_id(answer)
    taken: set[str] = set()
    entries = []
    for c in answer.citations:
        hit = hits.get(c.paper_id)
        rec = records.get(c.paper_id) or (hit.record if hit else None) or Record(c.paper_id, c.text, title=c.title)
        fields = [("title", "{" + _bib_escape(rec.title or rec.display) + "}")]
        if rec.authors:
            fields.append(("author", " and ".join(_bib_escape(a) for a in rec.authors)))
        if rec.year:
            fields.append(("year", str(rec.year)))
        if rec.venue:
            fields.append(("howpublished", _bib_escape(rec.venue)))
        if rec.doi:
            fields.append(("doi", _bib_escape(rec.doi)))
        fields.append(("note", f"paperchat paper\\_id {_bib_escape(rec.paper_id)}"))
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
        entries.append(f"@misc{{{bib_key(rec, taken)},\n{body}\n}}\n")
    return "\n".join(entries)
