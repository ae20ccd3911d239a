"""Pure renderers of the Corpus tab (no gradio, no I/O): one abstract, the search table's rows, and the
per-file report of an upload. `ui.render` re-exports these names."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assistant.types import Hit, IngestIssue, Record

from .cards import _authors, meta_html
from .markup import esc, md_escape


def abstract_html(record: Record | None, paper_id: str = "") -> str:
    """One abstract for the corpus tab: label, metadata, escaped text."""
    if record is None:
        return (f'<div class="pc-evidence"><p class="pc-empty">No abstract with id <code>{esc(paper_id)}</code>.</p>'
                "</div>")
    title = f'<p class="pc-subtitle">{esc(record.title)}</p>' if record.title and record.title != record.display else ""
    return (
        '<div class="pc-evidence"><article class="pc-card">'
        f'<header><span class="pc-title">{esc(record.display)}</span></header>{title}'
        f'{meta_html(record, record.paper_id)}<p class="pc-abstract">{esc(record.text)}</p>'
        "</article></div>"
    )


def search_rows(hits: Sequence[Hit]) -> list[list]:
    """Rows of the corpus search table: rank, label, year, authors, paper id, fused score."""
    return [
        [i, h.title, h.record.year or "", _authors(h.record.authors, 2), h.paper_id, round(h.score, 4)]
        for i, h in enumerate(hits, 1)
    ]


SEARCH_HEADERS = ("#", "Paper", "Year", "Authors", "paper_id", "Score")


# -- ingest reports -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FileOutcome:
    """What happened to one uploaded file: a pipeline report, or a whole-file error message."""

    name: str
    summary: str = ""
    issues: tuple[IngestIssue, ...] = ()
    error: str = ""


def ingest_markdown(outcomes: Sequence[FileOutcome], max_issues: int = 50) -> str:
    """Per-file result of an upload: the summary or the error, then each skipped record."""
    if not outcomes:
        return "_No file uploaded._"
    out = []
    for o in outcomes:
        if o.error:
            out.append(f"**{md_escape(o.name)}**: ✗ {md_escape(o.error)}")
            continue
        out.append(f"**{md_escape(o.name)}**: {md_escape(o.summary)}")
        if o.issues:
            lines = [
                f"- line {i.line}{' (key ' + md_escape(i.key) + ')' if i.key else ''}: {md_escape(i.message)}"
                for i in o.issues[:max_issues]
            ]
            if len(o.issues) > max_issues:
                lines.append(f"- … and {len(o.issues) - max_issues} more")
            out.append(f"{len(o.issues)} record(s) not added:\n\n" + "\n".join(lines))
    return "\n\n".join(out)
