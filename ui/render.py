"""Pure functions: Answers, Records and ingest reports -> chat Markdown and evidence HTML (escaping in
`markup.py`, export documents in `export_text.py`).

No gradio import and no I/O, so every rule here is unit-tested on hand-made Answers.

Two kinds of text, two rules:
- Model output (`Answer.answer`, streamed tokens) is Markdown we pass on after `safe_markdown`: raw
  HTML is neutralised (`<` -> `&lt;`), images are removed (nothing remote is ever loaded), link
  reference definitions are dropped, and a link survives only if its target is http(s), mailto or
  an in-page `#anchor` (`javascript:`, `data:`, obfuscated or relative targets lose their link).
- Corpus text (abstracts, titles, labels, authors, file names) is never trusted as markup: it is
  `html.escape`d in HTML and `md_escape`d in Markdown.

Citation markers `[n]` in an answer become links to `#pc-ev-<answer>-<n>`, the id of that source's
card in the evidence panel (`evidence_html`), where the supporting sentences are wrapped in <mark>.
Compromise: markers of older answers in the chat point at cards that are no longer shown (the panel
holds the current answer only); clicking them does nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from assistant.index.sentences import split_sentences
from assistant.retrieve.query_filters import summary as filters_summary
from assistant.types import Answer, Citation, Hit, IngestIssue, Record

from .markup import esc, is_safe_url, md_escape, safe_error_text, safe_markdown  # noqa: F401 -- re-exported

_STAGES = MappingProxyType({
    "retrieving": "Searching the abstracts",
    "rewriting": "Rewriting the follow-up",
    "generating": "Writing the answer",
    "verifying": "Checking every citation against its abstract",
})
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                 "eleven", "twelve")


# -- citations ---------------------------------------------------------------------------------------
def answer_key(answer: Answer) -> str:
    """A short id for `answer`, safe inside an HTML id: its own id, else a hash of its text."""
    raw = answer.id or hashlib.sha1(f"{answer.question}\x1f{answer.answer}".encode()).hexdigest()[:10]
    return re.sub(r"[^A-Za-z0-9_-]", "", raw)[:32] or "a"


def anchor_id(answer: Answer, marker: int) -> str:
    return f"pc-ev-{answer_key(answer)}-{int(marker)}"


def _label(c: Citation, hit: Hit | None = None) -> str:
    """A citation's label; one paperchat derived from the abstract (no title in the source) says so."""
    label = c.title or (hit.record.display if hit else "") or c.paper_id
    derived = c.label_derived or bool(hit and hit.record.label_derived and label == hit.record.display)
    return f"untitled: {label}" if derived else label


def _card_label_html(c: Citation, hit: Hit | None) -> str:
    label = _label(c, hit)
    return f"<i>{esc(label)}</i>" if label.startswith("untitled: ") and label != c.title else esc(label)


def _hit_label_html(h: Hit) -> str:
    """A retrieved paper's label as HTML: a label paperchat derived (no title in the source) in italics, marked."""
    return f"<i>untitled: {esc(h.title)}</i>" if h.record.label_derived else esc(h.title)


def _hits_by_id(answer: Answer) -> dict[str, Hit]:
    return {h.paper_id: h for h in answer.retrieved}


_MARKERS = re.compile(r"(?<![\\!\]])\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?![(\[:])")


def link_markers(text: str, answer: Answer) -> str:
    """`[n]` (and `[1, 2]`) -> links to the evidence cards; markers with no citation stay as text."""
    hits = _hits_by_id(answer)
    cites = {c.marker: c for c in answer.citations}

    def _one(n: int) -> str:
        c = cites.get(n)
        if c is None:
            return f"\\[{n}\\]"
        title = " ".join(_label(c, hits.get(c.paper_id)).split()).replace("\\", "").replace('"', "'")
        title = title.replace("<", "&lt;").replace(">", "&gt;")
        return f'[\\[{n}\\]](#{anchor_id(answer, n)} "{title}")'

    return _MARKERS.sub(lambda m: "".join(_one(int(x)) for x in m.group(1).split(",")), text)


_LIST_ITEM = re.compile(r"(?m)^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+\S")


def _number_word(n: int) -> str:
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def _with_count(body: str, answer: Answer) -> str:
    """A "which papers" answer as a list with its count (built from the citations if it is prose)."""
    items = _LIST_ITEM.findall(body)
    if not items and answer.citations:
        hits = _hits_by_id(answer)
        body = body.rstrip() + "\n\n" + "\n".join(
            f"- {md_escape(_label(c, hits.get(c.paper_id)))} [{c.marker}]" for c in answer.citations
        )
        items = answer.citations
    n = len(items)
    if not n:
        return body
    head = body.lstrip().split("\n", 1)[0]
    words = re.sub(r"\[[\d,\s]+\]", "", head)  # the count, not a citation marker
    if _LIST_ITEM.match(head) or not re.search(rf"\b({n}|{_number_word(n)})\b", words, re.I):
        body = f"**{n} paper{'s' if n != 1 else ''} found:**\n\n" + body.lstrip()
    return body


def sources_markdown(answer: Answer, links: bool = True) -> str:
    """The "Sources" section: one line `[n] label (paper_id)` per citation."""
    if not answer.citations:
        return ""
    hits = _hits_by_id(answer)
    lines = []
    for c in answer.citations:
        marker = f"[\\[{c.marker}\\]](#{anchor_id(answer, c.marker)})" if links else f"[{c.marker}]"
        lines.append(f"- {marker} {md_escape(_label(c, hits.get(c.paper_id)))} ({md_escape(c.paper_id)})")
    return "**Sources**\n\n" + "\n".join(lines)


def _norm(s: str) -> str:
    return " ".join((s or "").lower().split()).rstrip("?.! ")


def answer_markdown(answer: Answer, links: bool = True) -> str:
    """The chat message for a finished answer: body with linked [n] markers, notices, standalone
    query (for a rewritten follow-up) and the Sources list. `links=False` is the plain API form."""
    body = safe_markdown(answer.answer.strip()) or "_(no answer text)_"
    if answer.kind == "list":
        body = _with_count(body, answer)
    if links:
        body = link_markers(body, answer)
    parts = [body]
    if answer.incomplete:
        parts.append("_Stopped before the end: this answer is incomplete._")
    if answer.unsupported:
        n = len(answer.unsupported)
        parts.append(
            f"_⚠ {n} sentence{'s' if n != 1 else ''} removed: the cited abstracts do not support "
            f"{'them' if n != 1 else 'it'} (shown in the evidence panel)._"
        )
    if answer.standalone_query and _norm(answer.standalone_query) != _norm(answer.question):
        parts.append(f"_Searched for:_ {md_escape(answer.standalone_query)}")
    if filters_markdown(answer):
        parts.append(filters_markdown(answer))
    src = sources_markdown(answer, links)
    if src:
        parts.append(src)
    return "\n\n".join(parts)


def filters_markdown(answer: Answer) -> str:
    """ "_Filters applied:_ year >= 2025 · author Chen (from your question: “from 2025 on”, “by Chen”)", or ""."""
    f = answer.filters or {}
    text = filters_summary(f.get("applied") or {})
    if not text:
        return ""
    said = ", ".join(f"“{md_escape(s['text'].strip())}”" for s in f.get("from_question") or [])
    tail = f" (from your question: {said}; untick one below and press *Ask again* to drop it)" if said else ""
    return f"_Filters applied:_ {md_escape(text)}{tail}"


def question_filter_choices(answer: Answer | None) -> list[tuple[str, str]]:
    """(label, kind) of each filter the answer took from its question, for the removal checkboxes."""
    spans = ((answer.filters or {}).get("from_question") or []) if answer is not None else []
    out: dict[str, str] = {}
    for s in spans:
        out.setdefault(s["kind"], f"{s['value']} (“{s['text'].strip()}”)")
    return [(label, kind) for kind, label in out.items()]


def progress_markdown(text: str, stage: str = "") -> str:
    """The chat message while an answer streams: unverified text so far plus the current stage."""
    label = _STAGES.get(stage, stage.capitalize() if stage else "")
    status = f"_{md_escape(label)}…_" if label else ""
    body = safe_markdown(text)
    return f"{body}\n\n{status}".strip() if body else (status or "_…_")


def question_markdown(question: str) -> str:
    """A user's question as shown in the chat (their own text, still sanitised)."""
    return safe_markdown(question)


# -- evidence panel -------------------------------------------------------------------------------------
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


def meta_html(record: Record | None, paper_id: str) -> str:
    parts = [f"<code>{esc(paper_id)}</code>"]
    if record is not None:
        if record.year:
            parts.append(esc(record.year))
        if record.authors:
            parts.append(esc(_authors(record.authors)))
        if record.venue:
            parts.append(f"<i>{esc(record.venue)}</i>")
        if record.doi:
            parts.append(f"doi {esc(record.doi)}")
        if record.source:
            where = f"{record.source}:{record.source_line}" if record.source_line else record.source
            parts.append(f"source {esc(where)}")
        if record.duplicate_of:
            parts.append(f"version of <code>{esc(record.duplicate_of)}</code>")
    return '<div class="pc-meta">' + " · ".join(parts) + "</div>"


def scores_html(hit: Hit | None) -> str:
    if hit is None or not hit.scores:
        return ""
    chips = []
    for name, value in hit.scores.items():
        rank = hit.ranks.get(name)
        r = f" (#{rank})" if rank else ""
        chips.append(f'<span class="pc-score">{esc(name)} {value:.3g}{esc(r)}</span>')
    return '<div class="pc-scores">' + "".join(chips) + "</div>"


def citation_card(answer: Answer, c: Citation, hit: Hit | None) -> str:
    record = hit.record if hit else None
    return (
        f'<article class="pc-card" id="{anchor_id(answer, c.marker)}">'
        f'<header><span class="pc-marker">[{int(c.marker)}]</span> '
        f'<span class="pc-title">{_card_label_html(c, hit)}</span></header>'
        f"{meta_html(record, c.paper_id)}{scores_html(hit)}"
        f'<p class="pc-abstract">{highlight_abstract(c.text or (record.text if record else ""), c.sentence_ids, c.sentences)}</p>'
        "</article>"
    )


def evidence_html(answer: Answer | None) -> str:
    """The evidence panel for one answer: a card per cited abstract (label, metadata, scores,
    abstract with the supporting sentences marked), the answer sentences that failed verification,
    the verification notes, and the papers retrieved but not cited."""
    if answer is None:
        return '<div class="pc-evidence"><p class="pc-empty">Ask a question: the abstracts behind the answer appear here.</p></div>'
    hits = _hits_by_id(answer)
    out = ['<div class="pc-evidence">']
    if answer.citations:
        n = len(answer.citations)
        out.append(f'<p class="pc-h">{n} cited abstract{"s" if n != 1 else ""}; supporting sentences are highlighted.</p>')
        out.extend(citation_card(answer, c, hits.get(c.paper_id)) for c in answer.citations)
    elif answer.abstained or answer.kind == "abstain":
        out.append('<p class="pc-empty">No abstract in the corpus supports an answer, so nothing is cited.</p>')
    else:
        out.append('<p class="pc-empty">This answer cites no abstract.</p>')
    if answer.unsupported:
        items = "".join(f"<li><s>{esc(s)}</s></li>" for s in answer.unsupported)
        out.append(
            '<section class="pc-unsupported"><h4>Failed verification (removed from the answer)</h4>'
            f"<ul>{items}</ul></section>"
        )
    if answer.notes:
        items = "".join(f"<li>{esc(n)}</li>" for n in answer.notes)
        out.append(f'<section class="pc-notes"><h4>Notes</h4><ul>{items}</ul></section>')
    cited = {c.paper_id for c in answer.citations}
    if answer.related:
        rows = "".join(f"<li><span class=\"pc-title\">{_hit_label_html(h)}</span> <code>{esc(h.paper_id)}</code></li>"
                       for h in answer.related)
        out.append(f'<section class="pc-related"><h4>Related, but not answering this ({len(answer.related)})</h4>'
                   f"<ul>{rows}</ul></section>")
    related = {h.paper_id for h in answer.related}
    others = [h for h in answer.retrieved if h.paper_id not in cited and h.paper_id not in related]
    if others:
        rows = "".join(
            f"<li><span class=\"pc-title\">{_hit_label_html(h)}</span> <code>{esc(h.paper_id)}</code>{scores_html(h)}</li>"
            for h in others
        )
        out.append(f'<details class="pc-others"><summary>Also retrieved, not cited ({len(others)})</summary><ul>{rows}</ul></details>')
    out.append("</div>")
    return "".join(out)


def focus_html(paper_ids: Sequence[str], labels: dict[str, str] | None = None, limit: int = 8) -> str:
    """The conversation's papers in focus (newest turn first), as the follow-ups will resolve them."""
    labels = labels or {}
    if not paper_ids:
        return '<div class="pc-focus"><p class="pc-empty">No papers in focus yet. Papers cited in this chat appear here, so follow-ups like "compare the first two" resolve.</p></div>'
    items = "".join(
        f'<li><span class="pc-title">{esc(labels.get(p) or p)}</span> <code>{esc(p)}</code></li>' for p in paper_ids[:limit]
    )
    more = f'<p class="pc-more">and {len(paper_ids) - limit} more</p>' if len(paper_ids) > limit else ""
    return f'<div class="pc-focus"><ol>{items}</ol>{more}</div>'


def abstract_html(record: Record | None, paper_id: str = "") -> str:
    """One abstract for the corpus tab: label, metadata, escaped text."""
    if record is None:
        return f'<div class="pc-evidence"><p class="pc-empty">No abstract with id <code>{esc(paper_id)}</code>.</p></div>'
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
