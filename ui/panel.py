"""The evidence panel of a whole chat: one section per answer, so the [n] links of every answer open
their own cards (pure functions + the page script that follows those links).

    panel_html([answer1, answer2, answer3])   # the latest answer's section is shown, the others hidden

Each section is `render.evidence_html(answer)` (cards with ids `pc-ev-<answer>-<n>`) inside
`<section class="pc-ans" data-answer=...>`. `PANEL_JS` (loaded once by `ui.launch` into the page head)
catches a click on any `#pc-ev-...` link before the browser follows it: it shows that answer's section,
opens the collapsed lists around the card, and scrolls the panel (its own scroll box) - never the page
or the chat - to the card, which flashes. Without the script the links still work as plain anchors.

Compromise: the panel keeps the last `MAX_ANSWERS` answers; a line at its top says how many earlier
ones were let go, and their markers do nothing (never a jump to a wrong paper).
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.types import Answer

from .markup import esc
from .render import answer_key, evidence_html

MAX_ANSWERS = 30


def _question(answer: Answer) -> str:
    q = " ".join((answer.question or "").split())
    return q if len(q) <= 90 else q[:89] + "…"


def panel_html(answers: Sequence[Answer], working: bool = False) -> str:
    """Evidence of every answer in the chat (oldest first); the last one is shown. `working`: an answer
    is being written, so the panel says so above the earlier sections (all hidden)."""
    if not answers and not working:
        return evidence_html(None)
    kept = list(answers)[-MAX_ANSWERS:]
    dropped = len(answers) - len(kept)
    out = ['<div class="pc-panel" id="pc-panel">']
    if dropped:
        out.append(f'<p class="pc-empty">The evidence of the first {dropped} answers of this chat is no '
                   "longer kept; their citation links do nothing.</p>")
    for i, a in enumerate(kept):
        active = (i == len(kept) - 1) and not working
        n = dropped + i + 1
        out.append(
            f'<section class="pc-ans{" pc-active" if active else ""}" data-answer="{esc(answer_key(a))}">'
            f'<p class="pc-ans-q">Evidence for answer {n}: <q>{esc(_question(a))}</q></p>'
            f"{evidence_html(a)}</section>"
        )
    if working:
        out.append('<div class="pc-evidence pc-working"><p class="pc-empty">Collecting evidence…</p></div>')
    out.append("</div>")
    return "".join(out)


# Runs once per page (gradio `head`). Capture phase: it sees the click before the chat's own handlers.
PANEL_JS = """
<script>
(() => {
  if (window.__pcPanel) return;
  window.__pcPanel = true;
  document.addEventListener('click', (e) => {
    const a = e.target && e.target.closest ? e.target.closest('a[href^="#pc-ev-"]') : null;
    if (!a) return;
    const id = decodeURIComponent(a.getAttribute('href').slice(1));
    const card = document.getElementById(id);
    e.preventDefault();
    e.stopPropagation();
    if (!card) return;
    const panel = card.closest('.pc-panel');
    const section = card.closest('.pc-ans');
    if (panel && section) {
      panel.querySelectorAll('.pc-ans').forEach(s => s.classList.toggle('pc-active', s === section));
    }
    for (let d = card.parentElement; d; d = d.parentElement) {
      if (d.tagName === 'DETAILS') d.open = true;
    }
    const box = card.closest('#pc-evidence') || panel;
    if (box) {
      const top = card.getBoundingClientRect().top - box.getBoundingClientRect().top;
      box.scrollTop += top - 8;
    }
    document.querySelectorAll('.pc-card.pc-flash').forEach(c => c.classList.remove('pc-flash'));
    card.classList.add('pc-flash');
  }, true);
})();
</script>
"""
