"""The Evaluation tab's comparison view as HTML (pure functions, no gradio): the paired metric table with
95% CIs and verdicts, and the questions whose outcome changed, A and B side by side, each citation a link
to its cited abstract (with the supporting sentences marked) in an evidence box under the answers.

Everything from a run file (answers, titles, abstracts, ids) is escaped; answers are shown as text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from .render import esc, highlight_abstract

MAX_RUNS = 50
_MARKER = re.compile(r"\[(\d+)\]")


def list_runs(*roots: tuple[Path, str]) -> dict[str, Path]:
    """{label: run directory} of finished runs (with summary.json and results.jsonl), newest first, under each
    (root, label prefix); a root that is itself a run is listed as its prefix."""
    found: list[tuple[float, str, Path]] = []
    for root, prefix in roots:
        if not root.is_dir():
            continue
        dirs = [root] if (root / "summary.json").is_file() else sorted(d for d in root.iterdir() if d.is_dir())
        for d in dirs:
            if (d / "summary.json").is_file() and (d / "results.jsonl").is_file():
                label = prefix if d == root else f"{prefix}/{d.name}"
                found.append(((d / "summary.json").stat().st_mtime, label, d))
    found.sort(key=lambda t: -t[0])
    return {label: d for _, label, d in found[:MAX_RUNS]}


def _num(v, metric: str, signed: bool = False) -> str:
    if v is None:
        return "–"
    if metric.endswith("_s"):
        return f"{v:+.2f}" if signed else f"{v:.2f}"
    return f"{v:+.3f}" if signed else f"{v:.3f}"


def metrics_html(table: Mapping[str, Mapping], caption: str) -> str:
    rows = []
    for m, r in table.items():
        verdict = r["verdict"]
        cls = {"B better": "pc-better", "B worse": "pc-worse"}.get(verdict, "pc-noise")
        ci = "–" if r["ci_low"] is None else f"[{_num(r['ci_low'], m, True)}, {_num(r['ci_high'], m, True)}]"
        p = "–" if r["p_value"] is None else ("&lt;0.001" if r["p_value"] < 0.001 else f"{r['p_value']:.3f}")
        need = "–" if r.get("n_needed") is None else f"{r['n_needed']:,}"
        rows.append(f'<tr class="{cls}"><td>{esc(m)}</td><td>{_num(r["a"], m)}</td><td>{_num(r["b"], m)}</td>'
                    f'<td>{_num(r["diff"], m, True)}</td><td>{ci}</td><td>{p}</td><td>{r["n"]}</td><td>{need}</td>'
                    f'<td>{esc(verdict)}</td></tr>')
    return (f'<table class="pc-cmp-table"><caption>{esc(caption)}</caption><thead><tr><th>metric</th><th>A</th>'
            "<th>B</th><th>B − A</th><th>95% CI</th><th>p</th><th>n</th><th>questions needed</th><th>verdict</th>"
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _anchor(qid: str, side: str, marker) -> str:
    h = hashlib.sha1(str(qid).encode("utf-8")).hexdigest()[:10]
    return f"pc-cmp-{h}-{side}-{int(marker) if str(marker).isdigit() else 0}"


def _answer_html(qid: str, side: str, s: Mapping) -> str:
    if s.get("error"):
        return f'<p class="pc-cmp-error">{esc(s["error"])}</p>'
    markers = {str(c.get("marker")) for c in s.get("citations") or []}
    text = esc(s.get("answer") or "")

    def link(m: re.Match) -> str:
        n = m.group(1)
        return f'<a href="#{_anchor(qid, side, n)}">[{n}]</a>' if n in markers else m.group(0)

    return f'<p class="pc-cmp-answer">{_MARKER.sub(link, text) or "<em>(no answer)</em>"}</p>'


def _evidence_html(qid: str, side: str, label: str, s: Mapping) -> str:
    cards = []
    for c in s.get("citations") or []:
        body = highlight_abstract(c.get("text") or "", (), c.get("sentences") or ())
        cards.append(f'<div class="pc-card pc-cmp-card" id="{_anchor(qid, side, c.get("marker"))}">'
                     f'<header>{esc(label)} [{esc(c.get("marker"))}] {esc(c.get("title") or "")}</header>'
                     f'<div class="pc-meta"><code>{esc(c.get("paper_id"))}</code></div>'
                     f'<p class="pc-abstract">{body or "<em>(abstract text not in the run file)</em>"}</p></div>')
    return "".join(cards)


def _cites_html(qid: str, side: str, s: Mapping) -> str:
    cs = s.get("citations") or []
    if not cs:
        return '<p class="pc-empty">No citations.</p>'
    items = "".join(f'<li><a href="#{_anchor(qid, side, c.get("marker"))}">[{esc(c.get("marker"))}] '
                    f'{esc(c.get("title") or c.get("paper_id"))}</a></li>' for c in cs)
    return f'<ul class="pc-cmp-cites">{items}</ul>'


def changed_html(changed: Sequence[Mapping], name_a: str, name_b: str, regressions_only: bool) -> str:
    shown = [c for c in changed if c["direction"] == "regressed"] if regressions_only else list(changed)
    reg = sum(1 for c in changed if c["direction"] == "regressed")
    head = (f'<h4 class="pc-cmp-h">Questions whose outcome changed: {len(changed)} ({reg} regressed)'
            + (f", showing the {len(shown)} regression(s)" if regressions_only else "") + "</h4>")
    if not shown:
        empty = "No regressions." if regressions_only else "No question changed its outcome."
        return head + f'<p class="pc-empty">{empty}</p>'
    blocks = []
    for c in shown:
        qid, a, b = str(c["id"]), c["a"], c["b"]
        cols = "".join(
            f'<div class="pc-cmp-side"><div class="pc-cmp-label">{esc(label)}: {esc(name)} — '
            f'<span class="pc-outcome pc-o-{esc(s.get("outcome") or "na")}">{esc(s.get("outcome") or "n/a")}</span>'
            "</div>"
            f"{_answer_html(qid, side, s)}{_cites_html(qid, side, s)}</div>"
            for side, label, name, s in (("a", "A", name_a, a), ("b", "B", name_b, b)))
        evidence = _evidence_html(qid, "a", "A", a) + _evidence_html(qid, "b", "B", b)
        ev = ('<details class="pc-cmp-evidence" open><summary>Evidence: the cited abstracts</summary>'
              f"{evidence}</details>"
              if evidence else "")
        ref = (f'<p class="pc-meta">Reference answer: {esc(c["reference_answer"])}</p>' if c.get("reference_answer")
               else "")
        blocks.append(f'<section class="pc-cmp-q pc-{esc(c["direction"])}" data-qid="{esc(qid)}">'
                      f'<h5><code>{esc(qid)}</code> ({esc(c.get("kind"))}): '
                      f'{esc(c["change"])} — {esc(c["direction"])}</h5>'
                      f'<p class="pc-cmp-question">{esc(c.get("question") or "")}</p>{ref}'
                      f'<div class="pc-cmp-cols">{cols}</div>{ev}</section>')
    return head + "".join(blocks)


def comparison_html(cmp: Mapping, regressions_only: bool = False) -> str:
    """The whole comparison view for one A-vs-B comparison."""
    cfg = "".join(f"<li>{esc(k)}: <code>{esc(a)}</code> → <code>{esc(b)}</code></li>"
                  for k, (a, b) in cmp["config_diff"].items())
    intro = (f'<p>A = <b>{esc(cmp["a"])}</b> (baseline), B = <b>{esc(cmp["b"])}</b>; '
             f'{cmp["questions"]} paired questions. '
             "A difference counts only when its 95% CI excludes 0 and p &lt; 0.05 (rows in green / red); grey rows are "
             "within noise on this many questions.</p>" + (f"<ul class='pc-meta'>{cfg}</ul>" if cfg else ""))
    judge = ""
    if not any((cmp.get("judge") or {}).get(s) for s in ("a", "b")):
        judge = '<p class="pc-meta">Judge metrics (correctness, faithfulness, relevance): not measured.</p>'
    kinds = "".join(metrics_html(t, f"{k} ({cmp.get('counts', {}).get(k, 0)} questions)")
                    for k, t in (cmp.get("by_kind") or {}).items() if t)
    by_kind = f'<details class="pc-cmp-kinds"><summary>By question kind</summary>{kinds}</details>' if kinds else ""
    return (f'<div class="pc-cmp">{intro}{metrics_html(cmp["overall"], "Overall")}{judge}{by_kind}'
            f'{changed_html(cmp["changed"], cmp["a"], cmp["b"], regressions_only)}</div>')
