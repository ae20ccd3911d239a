"""Pure HTML pieces for papers (no gradio, no I/O): an abstract with its supporting sentences marked,
a paper's metadata with a "details" toggle for ids, source lines and retrieval scores, a paper as a
clickable line that opens its abstract, and the "show all" fold for long runs of cards.

Corpus text is always escaped (`markup.esc`). `ui.render` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assistant.index.sentences import split_sentences
from assistant.types import Hit, Record

from .markup import esc


def _norm(s: str) -> str:
    return " ".join((s or "").lower().split()).rstrip("?.! ")


def highlight_abstract(text: str, sentence_ids: Iterable[int] = (), sentences: Iterable[str] = ()) -> str:
    """The abstract as escaped HTML with the supporting sentences wrapped in <mark>.

    Sentences are found by index (`split_sentences`) and, as a fallback, by their text."""
    text = text or ""
    spans = split_sentences(text)
    marked: list[tuple[int, int]] = []
    ids = set(sentence_ids)
    for s in spans:
        if s.index in ids:
            marked.append((s.start, s.end))
    for sent in sentences:
        sent = (sent or "").strip()
        if not sent:
            continue
        match = next((s for s in spans if _norm(s.text) == _norm(sent)), None)
        if match is not None:
            marked.append((match.start, match.end))
            continue
        i = text.find(sent)
        if i >= 0:
            marked.append((i, i + len(sent)))
    merged: list[list[int]] = []
    for a, b in sorted(marked):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out, pos = [], 0
    for a, b in merged:
        out.append(esc(text[pos:a]))
        out.append(f"<mark>{esc(text[a:b])}</mark>")
        pos = b
    out.append(esc(text[pos:]))
    return "".join(out)


def _authors(authors: Sequence[str], limit: int = 3) -> str:
    names = [a for a in authors if a]
    if not names:
        return ""
    return ", ".join(names[:limit]) + (" et al." if len(names) > limit else "")


def meta_html(record: Record | None, paper_id: str, hit: Hit | None = None) -> str:
    """What a reader needs in view (year, authors, venue, doi), then a "details" toggle with what only a
    curious or debugging reader wants: the paper id, its source line and the retrieval scores."""
    parts = []
    if record is not None:
        if record.year:
            parts.append(esc(record.year))
        if record.authors:
            parts.append(esc(_authors(record.authors)))
        if record.venue:
            parts.append(f"<i>{esc(record.venue)}</i>")
        if record.doi:
            parts.append(f"doi {esc(record.doi)}")
    more = [f"id <code>{esc(paper_id)}</code>"]
    if record is not None:
        if record.source:
            where = f"{record.source}:{record.source_line}" if record.source_line else record.source
            more.append(f"source {esc(where)}")
        if record.duplicate_of:
            more.append(f"version of <code>{esc(record.duplicate_of)}</code>")
    shown = " · ".join(parts)
    return (f'<div class="pc-meta">{shown} <details class="pc-details"><summary>details</summary>'
            f'{" · ".join(more)}{scores_html(hit)}</details></div>')


def scores_html(hit: Hit | None) -> str:
    if hit is None or not hit.scores:
        return ""
    chips = []
    for name, value in hit.scores.items():
        rank = hit.ranks.get(name)
        r = f" (#{rank})" if rank else ""
        chips.append(f'<span class="pc-score">{esc(name)} {value:.3g}{esc(r)}</span>')
    return '<div class="pc-scores">' + "".join(chips) + "</div>"


SHOWN_CARDS = 5  # evidence cards shown before "Show all N cited abstracts"


def collapse_html(blocks: Sequence[str], summary: str, shown: int = SHOWN_CARDS) -> str:
    """HTML blocks with the ones after the first `shown` inside a closed <details> ("show all")."""
    if len(blocks) <= shown + 1:
        return "".join(blocks)
    return ("".join(blocks[:shown]) + f'<details class="pc-more"><summary>{esc(summary)}</summary>'
            + "".join(blocks[shown:]) + "</details>")


def paper_html(label: str, record: Record | None, paper_id: str, hit: Hit | None = None, *,
               label_html: str = "") -> str:
    """A paper as a clickable line: its name opens (a <details>) its metadata and abstract. `label_html`: the
    name already as HTML (a label paperchat derived, marked untitled in italics)."""
    name = f'<span class="pc-title">{label_html or esc(label or paper_id)}</span>'
    if record is None:
        return f'<span class="pc-paper">{name}</span>'
    return (f'<details class="pc-paper"><summary>{name}</summary>{meta_html(record, paper_id, hit)}'
            f'<p class="pc-abstract">{esc(record.text)}</p></details>')
