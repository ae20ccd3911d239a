"""compare.md / compare.json / compare_diffs.png of a comparison made by `eval.compare.compare_runs`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from .compare import JUDGE_METRICS, compare_settings
from .report import fmt


def _pct(x: float) -> str:
    """
    >>> _pct(0.95), _pct(0.8), _pct(0.995)
    ('95%', '80%', '99.5%')
    """
    return f"{x * 100:.10g}%"


def how_to_read(settings: Mapping) -> str:
    """The reading guide, quoting the numbers the comparison was made with (compare.json "settings")."""
    s = {**compare_settings(), **(settings or {})}
    return (
        "How to read this: **B − A** is the difference of the run-level metric over the questions both runs "
        f"answered (paired by id). The **{_pct(s['level'])} CI** comes from {s['resamples']:,} paired bootstrap "
        f"resamples of the questions (seed {s['seed']}); when it contains 0 the difference is **not distinguishable "
        "from noise** on this many questions. **p** is a paired sign-flip permutation test (the chance of a "
        f"difference at least this large if A and B were interchangeable; exact for n <= {s['exact_flips_max_n']}, "
        f"else {s['resamples']:,} random sign patterns). **needed** estimates how many questions a difference of "
        f"this size would need to be distinguishable ({_pct(s['needed_power'])} power, {_pct(s['needed_alpha'])} level)."
    )


MAX_ANSWER_CHARS = 700


def _num(v, metric: str = "", signed: bool = False) -> str:
    if v is None:
        return "–"
    if signed:
        return f"{v:+.2f}" if metric.endswith("_s") else f"{v:+.3f}"
    return fmt(v, metric)


def _p(p) -> str:
    return "–" if p is None else ("<0.001" if p < 0.001 else f"{p:.3f}")


def metric_lines(table: Mapping[str, Mapping], level: float = 0.95) -> list[str]:
    lines = [f"| metric | A | B | B − A | {_pct(level)} CI | p | n | needed | verdict |",
             "|---|---:|---:|---:|---|---:|---:|---:|---|"]
    for m, r in table.items():
        ci = "–" if r["ci_low"] is None else f"[{_num(r['ci_low'], m, True)}, {_num(r['ci_high'], m, True)}]"
        v = r["verdict"]
        v = f"**{v}**" if v in ("B better", "B worse") else v
        need = "–" if r.get("n_needed") is None else f"{r['n_needed']:,}"
        lines.append(f"| {m} | {_num(r['a'], m)} | {_num(r['b'], m)} | {_num(r['diff'], m, True)} | {ci} | "
                     f"{_p(r['p_value'])} | {r['n']} | {need} | {v} |")
    return lines


def _cell(text: str) -> str:
    t = " ".join((text or "").replace("\r", "").split("\n"))
    if len(t) > MAX_ANSWER_CHARS:
        t = t[:MAX_ANSWER_CHARS].rstrip() + " …"
    return t.replace("|", "\\|") or "–"


def _cites(side: Mapping) -> str:
    cs = side.get("citations") or []
    if not cs:
        return "–"
    return "<br>".join(f"[{c.get('marker')}] {_cell(c.get('title', ''))} (`{c.get('paper_id')}`)" for c in cs)


def changed_lines(changed: Sequence[Mapping], name_a: str, name_b: str) -> list[str]:
    if not changed:
        return ["No question changed its outcome.", ""]
    reg = sum(1 for c in changed if c["direction"] == "regressed")
    imp = sum(1 for c in changed if c["direction"] == "improved")
    lines = [f"{len(changed)} question(s): {imp} improved, {reg} regressed, {len(changed) - imp - reg} changed "
             "without becoming right or wrong (e.g. wrong -> abstained on an answerable question).", ""]
    for c in changed:
        a, b = c["a"], c["b"]
        lines += [f"### `{c['id']}` ({c.get('kind')}): {c['change']} — {c['direction']}", "",
                  f"**Question:** {_cell(c.get('question') or '')}", ""]
        if c.get("reference_answer"):
            lines += [f"**Reference answer:** {_cell(str(c['reference_answer']))}", ""]
        lines += [f"| | A: {name_a} | B: {name_b} |", "|---|---|---|",
                  f"| outcome | {a['outcome'] or '–'} | {b['outcome'] or '–'} |",
                  f"| answer | {_cell(a['error'] or a['answer'])} | {_cell(b['error'] or b['answer'])} |",
                  f"| citations | {_cites(a)} | {_cites(b)} |",
                  f"| top 5 retrieved | {', '.join(f'`{p}`' for p in a['top5']) or '–'} | "
                  f"{', '.join(f'`{p}`' for p in b['top5']) or '–'} |", ""]
    return lines


def judge_lines(cmp: Mapping) -> list[str]:
    j = cmp.get("judge") or {}
    if not any(j.get(s) for s in ("a", "b")):
        return ["Judge metrics (" + ", ".join(JUDGE_METRICS) + "): **not measured** — neither run was judged "
                "(`paperchat eval run --judge openai` or `--judge hf:DIR`, or `paperchat eval judge RUN`).", ""]
    out = []
    for side in ("a", "b"):
        info = j.get(side)
        name = cmp[side]
        if not info:
            out.append(f"- {name}: judge metrics not measured.")
            continue
        parts = [f"{m}: {c['scored']} scored, {c['parse_failures']} unparseable, {c['errors']} failed"
                 for m, c in (info.get("counts") or {}).items()]
        out.append(f"- {name}: judged by `{info.get('judge')}` — " + "; ".join(parts))
    return [*out, ""]


def _comparison_lines(cmp: Mapping, plot: str | None, level: float) -> list[str]:
    lines = [f"## {cmp['b']} vs {cmp['a']} (baseline)", "",
             f"{cmp['questions']} paired questions."]
    if cmp["only_in_a"] or cmp["only_in_b"]:
        lines.append(f" Left out (not in both runs): {len(cmp['only_in_a'])} only in A, {len(cmp['only_in_b'])} only in B.")
    if cmp.get("text_differs"):
        lines.append(f" **Warning:** {len(cmp['text_differs'])} paired id(s) have different question texts: "
                     + ", ".join(f"`{i}`" for i in cmp["text_differs"][:10]))
    lines.append("")
    if cmp["config_diff"]:
        lines += ["| setting | A | B |", "|---|---|---|"]
        lines += [f"| {k} | `{a}` | `{b}` |" for k, (a, b) in cmp["config_diff"].items()]
        lines.append("")
    lines += ["### Overall", "", *metric_lines(cmp["overall"], level), ""]
    if plot:
        lines += [f"![differences with {_pct(level)} CI]({plot})", ""]
    lines += judge_lines(cmp)
    for kind, table in cmp["by_kind"].items():
        if table:
            lines += [f"### {kind} ({cmp['counts'].get(kind, 0)} questions)", "", *metric_lines(table, level), ""]
    lines += ["### Questions whose outcome changed", "", *changed_lines(cmp["changed"], cmp["a"], cmp["b"])]
    return lines


def render(cmp: Mapping, plot: str | None = None) -> str:
    runs = cmp.get("runs") or [{"name": cmp["a"], "path": cmp.get("a_path", "")}, {"name": cmp["b"], "path": cmp.get("b_path", "")}]
    lines = ["# paperchat eval comparison", ""]
    lines += [f"- `{r['name']}`: `{r['path']}`" + (" (baseline)" if r["name"] == cmp.get("baseline", cmp["a"]) else "")
              for r in runs]
    settings = {**compare_settings(), **(cmp.get("settings") or {})}
    lines += ["", how_to_read(settings), ""]
    for c in cmp.get("comparisons") or [cmp]:
        lines += _comparison_lines(c, plot, settings["level"])
    return "\n".join(lines)


def plot_diffs(path: Path, cmp: Mapping) -> Path | None:
    """Forest plot: B − A with its CI (compare.json "settings" level) per 0–1 metric, one colour per compared run."""
    level = {**compare_settings(), **(cmp.get("settings") or {})}["level"]
    comps = cmp.get("comparisons") or [cmp]
    metrics = [m for m in comps[0]["overall"] if not m.endswith("_s") and comps[0]["overall"][m]["diff"] is not None]
    if not metrics:
        return None
    from .report import _plt

    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(metrics) * max(1, len(comps) * 0.7) + 1.6), dpi=110)
    step = 0.7 / max(1, len(comps))
    for j, c in enumerate(comps):
        color = f"C{j}"
        for filled in (True, False):
            ys, xs, lo, hi = [], [], [], []
            for i, m in enumerate(metrics):
                r = c["overall"].get(m)
                if r is None or r["diff"] is None or bool(r["distinguishable"]) != filled:
                    continue
                ys.append(i + (j - (len(comps) - 1) / 2) * step)
                xs.append(r["diff"])
                lo.append(r["diff"] - r["ci_low"])
                hi.append(r["ci_high"] - r["diff"])
            if xs:
                ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o", capsize=3, color=color,
                            mfc=color if filled else "white",
                            label=f"{c['b']} − {c['a']}" + ("" if filled else " (within noise)"))
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(range(len(metrics)))
    ax.set_yticklabels(metrics)
    ax.invert_yaxis()
    ax.set_xlabel(f"difference B − A with {_pct(level)} paired-bootstrap CI; filled = distinguishable "
                  f"(CI excludes 0, p < {1 - level:.10g})")
    ax.set_title("Run comparison: differences per metric")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=2, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def write_comparison(cmp: Mapping, out: Path | str, plots: bool = True) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plot = plot_diffs(out / "compare_diffs.png", cmp) if plots else None
    md = out / "compare.md"
    md.write_text(render(cmp, plot.name if plot else None), encoding="utf-8")
    (out / "compare.json").write_text(json.dumps(cmp, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return md
