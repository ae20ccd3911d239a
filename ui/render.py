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
The panel keeps every answer of the session (`ui.panel.panel_html`), so the markers of older answers
still open their own cards. Long lists are collapsed behind a "show all" control (`<details>`, in the
chat as in the panel); paper ids, sources and retrieval scores sit behind a "details" toggle per card.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from types import MappingProxyType

from assistant.answer.decide import RULES
from assistant.retrieve.query_filters import summary as filters_summary
from assistant.types import Answer, Citation, Hit, Record

from .cards import SHOWN_CARDS, _authors, collapse_html, highlight_abstract, meta_html, paper_html, scores_html  # noqa: F401 -- re-exported
from .corpus_render import SEARCH_HEADERS, FileOutcome, abstract_html, ingest_markdown, search_rows  # noqa: F401
from .markup import esc, is_safe_url, md_escape, safe_error_text, safe_markdown  # noqa: F401 -- re-exported

_STAGES = MappingProxyType({
    "retrieving": "Searching the abstracts",
    "rewriting": "Rewriting the follow-up",
    "generating": "Writing the answer",
    "verifying": "Verifying: checking each sentence against the abstract it cites",
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


SHOWN_ITEMS = 8  # list items and sources shown before a "show all" control (chat and evidence panel)


def collapse_markdown(items: Sequence[str], summary: str, shown: int = SHOWN_ITEMS) -> str:
    """Markdown list lines with the ones after the first `shown` folded into a <details> block (the
    Chatbot's sanitiser keeps standard tags; model text cannot add any: `safe_markdown` escapes `<`)."""
    if len(items) <= shown + 2:  # folding away one or two lines helps nobody
        return "\n".join(items)
    head, rest = items[:shown], items[shown:]
    return ("\n".join(head) + f'\n\n<details class="pc-more"><summary>{esc(summary)}</summary>\n\n'
            + "\n".join(rest) + "\n\n</details>")


def _collapse_list(body: str) -> str:
    """A long Markdown list in `body` (one item per line) folded after SHOWN_ITEMS items."""
    lines = body.split("\n")
    idx = [i for i, line in enumerate(lines) if _LIST_ITEM.match(line)]
    if len(idx) <= SHOWN_ITEMS + 2 or idx[-1] - idx[0] != len(idx) - 1:  # not one contiguous list
        return body
    first, last = idx[0], idx[-1]
    folded = collapse_markdown(lines[first:last + 1], f"Show all {len(idx)}")
    return "\n".join([*lines[:first], folded, *lines[last + 1:]])


def sources_markdown(answer: Answer, links: bool = True) -> str:
    """The "Sources" section: one line `[n] label (paper_id)` per citation (long ones folded)."""
    if not answer.citations:
        return ""
    hits = _hits_by_id(answer)
    lines = []
    for c in answer.citations:
        marker = f"[\\[{c.marker}\\]](#{anchor_id(answer, c.marker)})" if links else f"[{c.marker}]"
        pid = f" ({md_escape(c.paper_id)})" if not links else ""  # ids are in each card's details
        lines.append(f"- {marker} {md_escape(_label(c, hits.get(c.paper_id)))}{pid}")
    body = collapse_markdown(lines, f"Show all {len(lines)} sources") if links else "\n".join(lines)
    return "**Sources**\n\n" + body


def _norm(s: str) -> str:
    return " ".join((s or "").lower().split()).rstrip("?.! ")


def _words(text: str) -> list[str]:
    return re.sub(r"\[[\d,\s-]+\]|[^\w]+", " ", (text or "").lower()).split()


def replaced_line(draft: str, answer: Answer) -> str:
    """One line saying why the answer differs from the model's streamed draft (it was verified), or ""."""
    said, shown = _words(draft), _words(answer.answer)
    if not said or said == shown or (answer.incomplete and not answer.unsupported):
        return ""
    n = len(answer.unsupported)
    failed = (f"{n} of its sentences {'were' if n != 1 else 'was'} not supported by the cited abstracts" if n
              else "its sentences could not be matched to the abstracts")
    kept = len(set(shown) & set(said)) / max(len(set(shown)), 1)
    if not answer.citations:
        why = "nothing in it could be verified against the abstracts"
    elif kept < 0.6:  # the answer was composed from the evidence instead
        why = f"{failed}, so the answer quotes the evidence instead"
    else:
        why = f"{failed} and {'were' if n != 1 else 'was'} removed" if n else failed
    return f"_The draft above was replaced after checking: {why}._"


def answer_markdown(answer: Answer, links: bool = True, draft: str = "") -> str:
    """The chat message for a finished answer: body with linked [n] markers, notices, standalone
    query (for a rewritten follow-up) and the Sources list. `links=False` is the plain API form.
    `draft`: the model's streamed text, when the chat showed one (a line says why it was replaced)."""
    body = safe_markdown(answer.answer.strip()) or "_(no answer text)_"
    if answer.kind == "list":
        body = _with_count(body, answer)
    if links:
        body = _collapse_list(link_markers(body, answer))
    replaced = replaced_line(draft, answer)
    parts = [body, replaced] if replaced else [body]
    if answer.incomplete:
        parts.append("_Stopped before the end: this answer is incomplete._")
    if answer.unsupported and not replaced:  # (the replaced line already says it)
        n = len(answer.unsupported)
        parts.append(
            f"_⚠ {n} sentence{'s' if n != 1 else ''} removed: the cited abstracts do not support "
            f"{'them' if n != 1 else 'it'} (shown in the evidence panel)._"
        )
    if answer.abstained and why_markdown(answer):
        parts.append(why_markdown(answer))
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
    """The chat message while an answer streams: the current stage first (in bold, so a slow step is
    visibly going on), then the model's unverified draft so far."""
    label = _STAGES.get(stage, stage.capitalize() if stage else "")
    status = f"⏳ **{md_escape(label)}…**" if label else ""
    body = safe_markdown(text)
    if not body:
        return status or "_…_"
    note = "_Draft, not yet checked:_" if stage == "generating" else "_Draft being checked:_"
    return f"{status}\n\n{note}\n\n{body}".strip()


def question_markdown(question: str) -> str:
    """A user's question as shown in the chat (their own text, still sanitised)."""
    return safe_markdown(question)


# -- evidence panel -------------------------------------------------------------------------------------
def citation_card(answer: Answer, c: Citation, hit: Hit | None) -> str:
    record = hit.record if hit else None
    return (
        f'<article class="pc-card" id="{anchor_id(answer, c.marker)}">'
        f'<header><span class="pc-marker">[{int(c.marker)}]</span> '
        f'<span class="pc-title">{_card_label_html(c, hit)}</span></header>'
        f"{meta_html(record, c.paper_id, hit)}"
        '<p class="pc-abstract">'
        f'{highlight_abstract(c.text or (record.text if record else ""), c.sentence_ids, c.sentences)}</p>'
        "</article>"
    )


def why_markdown(answer: Answer) -> str:
    """Under an abstention: the rule that decided it, in plain words, with what it saw ("" without a trace)."""
    step = answer.deciding_step
    if step is None or step.verdict != "abstain":
        return ""
    said = RULES.get(step.rule, step.rule)
    detail = f" ({md_escape(step.detail)})" if step.detail else ""
    return f"_Why: {md_escape(said[:1].upper() + said[1:])}{detail}._ <sub>rule `{step.rule}`</sub>"


def evidence_html(answer: Answer | None) -> str:
    """The evidence panel for one answer: a card per cited abstract (label, metadata, scores,
    abstract with the supporting sentences marked), the answer sentences that failed verification,
    the verification notes, and the papers retrieved but not cited."""
    if answer is None:
        return ('<div class="pc-evidence"><p class="pc-empty">'
                "Ask a question: the abstracts behind the answer appear here.</p></div>")
    hits = _hits_by_id(answer)
    out = ['<div class="pc-evidence">']
    if answer.citations:
        n = len(answer.citations)
        out.append(f'<p class="pc-h">{n} cited abstract{"s" if n != 1 else ""}; '
                   "supporting sentences are highlighted.</p>")
        cards = [citation_card(answer, c, hits.get(c.paper_id)) for c in answer.citations]
        out.append(collapse_html(cards, f"Show all {n} cited abstracts", shown=SHOWN_CARDS))
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
        rows = "".join(f"<li>{paper_html(h.title, h.record, h.paper_id, h, label_html=_hit_label_html(h))}</li>"
                       for h in answer.related)
        out.append(f'<section class="pc-related"><h4>Related, but not answering this ({len(answer.related)})</h4>'
                   f"<ul>{rows}</ul></section>")
    related = {h.paper_id for h in answer.related}
    others = [h for h in answer.retrieved if h.paper_id not in cited and h.paper_id not in related]
    if others:
        rows = "".join(f"<li>{paper_html(h.title, h.record, h.paper_id, h, label_html=_hit_label_html(h))}</li>"
                       for h in others)
        out.append(f'<details class="pc-others"><summary>Also retrieved, not cited ({len(others)})</summary>'
                   f"<ul>{rows}</ul></details>")
    out.append("</div>")
    return "".join(out)


def _focus_label_html(label: str | None, record: Record | None) -> str:
    """A focus label for a paper whose label paperchat derived: its name where it has one, then the derived
    label in italics marked "untitled"; never the derived label's first words alone shown as a name ("Federated
    learning"). '' for a titled paper (its label is shown as it is)."""
    if record is None or not record.label_derived:
        return ""
    label, d = (label or "").strip(), record.display
    if label and d.startswith(f"{label}:"):  # "FedMerge: approach that ...": the name the labeller found
        name, rest = label, d[len(label) + 1:].strip()
    elif not label or d.lower().startswith(label.lower()):  # the derived label's first words: no name
        name, rest = "", d
    else:  # a name the abstract gives (an acronym it defines)
        name, rest = label, d
    return (f"{esc(name)} " if name else "") + f"<i>untitled: {esc(rest)}</i>"


def focus_html(paper_ids: Sequence[str], labels: dict[str, str] | None = None, limit: int = 8,
               records: dict[str, Record] | None = None) -> str:
    """The conversation's papers in focus (newest turn first), as the follow-ups will resolve them; each
    opens its abstract when `records` has it."""
    labels, records = labels or {}, records or {}
    if not paper_ids:
        return ('<div class="pc-focus"><p class="pc-empty">No papers in focus yet. Papers cited in this chat appear '
                'here, so follow-ups like "compare the first two" resolve.</p></div>')
    shown = [paper_html(labels.get(p) or p, records.get(p), p,
                        label_html=_focus_label_html(labels.get(p), records.get(p))) for p in paper_ids[:limit]]
    items = "".join(f"<li>{s}</li>" for s in shown)
    more = f'<p class="pc-more">and {len(paper_ids) - limit} more</p>' if len(paper_ids) > limit else ""
    return f'<div class="pc-focus"><ol>{items}</ol>{more}</div>'
