"""Compare two eval runs: metric table (A, B, delta) overall and per kind, plots, changed questions.

    paperchat eval compare eval/runs/base eval/runs/new --out eval/runs/base-vs-new
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from .metrics import ALL_METRICS, HIGHER_IS_BETTER, LATENCY_METRICS
from .report import fmt, grouped_bars, ordered_kinds
from .runner import load_run


def _delta(a, b):
    return None if a is None or b is None else b - a


def metric_rows(a: Mapping, b: Mapping) -> list[dict]:
    """[{metric, a, b, delta, better}] for the metrics present in either side."""
    rows = []
    for m in ALL_METRICS:
        va, vb = a.get(m), b.get(m)
        if va is None and vb is None:
            continue
        d = _delta(va, vb)
        better = None if d is None or abs(d) < 1e-9 else (d > 0) == HIGHER_IS_BETTER[m]
        rows.append({"metric": m, "a": va, "b": vb, "delta": d, "better": better})
    return rows


def _metric(rec: Mapping, name: str):
    return (rec.get("metrics") or {}).get(name)


def changed_questions(recs_a: list[dict], recs_b: list[dict]) -> list[dict]:
    """Questions (matched by id) whose abstention, gold-cited outcome or recall@5 differs between runs."""
    by_b = {r.get("id"): r for r in recs_b}
    out = []
    for ra in recs_a:
        rb = by_b.get(ra.get("id"))
        if rb is None:
            continue
        changes = []
        for name, label in (("abstained", "abstained"), ("gold_cited", "gold cited")):
            va, vb = _metric(ra, name), _metric(rb, name)
            if va is not None and vb is not None and bool(va) != bool(vb):
                changes.append(f"{label}: {va} -> {vb}")
        ra5, rb5 = _metric(ra, "recall@5"), _metric(rb, "recall@5")
        if ra5 is not None and rb5 is not None and abs(ra5 - rb5) > 1e-9:
            changes.append(f"recall@5: {ra5:.2f} -> {rb5:.2f}")
        if changes:
            out.append({"id": ra.get("id"), "kind": ra.get("kind"), "question": ra.get("question"), "changes": changes})
    return out


def compare_runs(dir_a: Path | str, dir_b: Path | str) -> dict:
    sa, ra = load_run(dir_a)
    sb, rb = load_run(dir_b)
    kinds = ordered_kinds(set(sa.get("by_kind", {})) | set(sb.get("by_kind", {})))
    cfg_a, cfg_b = sa.get("config", {}), sb.get("config", {})
    config_diff = {k: [cfg_a.get(k), cfg_b.get(k)] for k in sorted(set(cfg_a) | set(cfg_b)) if cfg_a.get(k) != cfg_b.get(k)}
    return {
        "a": str(dir_a),
        "b": str(dir_b),
        "config_diff": config_diff,
        "overall": metric_rows(sa["overall"], sb["overall"]),
        "by_kind": {k: metric_rows(sa["by_kind"].get(k, {}), sb["by_kind"].get(k, {})) for k in kinds},
        "changed": changed_questions(ra, rb),
        "_summaries": (sa, sb),
    }


def _table(rows: list[dict]) -> list[str]:
    lines = ["| metric | A | B | delta |", "|---|---:|---:|---:|"]
    for r in rows:
        d = r["delta"]
        mark = "" if r["better"] is None else (" ▲" if r["better"] else " ▼")
        ds = "–" if d is None else (f"{d:+.2f}" if r["metric"].endswith("_s") else f"{d:+.3f}")
        lines.append(f"| {r['metric']} | {fmt(r['a'], r['metric'])} | {fmt(r['b'], r['metric'])} | {ds}{mark} |")
    return lines


def render(cmp: Mapping, plots: Mapping[str, Path] | None = None) -> str:
    lines = ["# paperchat eval comparison", "", f"- A: `{cmp['a']}`", f"- B: `{cmp['b']}`", ""]
    if cmp["config_diff"]:
        lines += ["Settings that differ:", "", "| setting | A | B |", "|---|---|---|"]
        lines += [f"| {k} | `{a}` | `{b}` |" for k, (a, b) in cmp["config_diff"].items()]
        lines.append("")
    lines += ["## Overall", "", "▲ = B better, ▼ = B worse (latency: lower is better).", "", *_table(cmp["overall"]), ""]
    for kind, rows in cmp["by_kind"].items():
        if rows:
            lines += [f"## {kind}", "", *_table(rows), ""]
    lines += ["## Questions whose outcome changed", ""]
    if cmp["changed"]:
        lines += [f"- `{c['id']}` ({c['kind']}): {'; '.join(c['changes'])} — {c['question']}" for c in cmp["changed"]]
    else:
        lines.append("None.")
    lines.append("")
    for name, p in (plots or {}).items():
        lines += [f"![{name}]({Path(p).name})", ""]
    return "\n".join(lines)


def write_comparison(cmp: Mapping, out: Path | str) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sa, sb = cmp["_summaries"]
    la, lb = f"A: {Path(cmp['a']).name}", f"B: {Path(cmp['b']).name}"
    plots: dict[str, Path] = {}
    quality = [r["metric"] for r in cmp["overall"] if r["metric"] not in LATENCY_METRICS]
    if quality:
        plots["overall metrics"] = grouped_bars(
            out / "compare_overall.png", quality,
            {la: [sa["overall"].get(m) for m in quality], lb: [sb["overall"].get(m) for m in quality]},
            title="Run A vs run B: overall metrics", ylabel="score (0–1, higher is better)", xlabel="metric",
            value_labels=True, ylim=(0, 1.15),
        )
    lat = [r["metric"] for r in cmp["overall"] if r["metric"] in LATENCY_METRICS]
    if lat:
        top = max([v for m in lat for v in (sa["overall"].get(m), sb["overall"].get(m)) if v is not None] or [1.0])
        plots["latency"] = grouped_bars(
            out / "compare_latency.png", lat,
            {la: [sa["overall"].get(m) for m in lat], lb: [sb["overall"].get(m) for m in lat]},
            title="Run A vs run B: latency percentiles", ylabel="seconds (lower is better)", xlabel="percentile",
            ylim=(0, top * 1.2 or 1), value_labels=False,
        )
    kinds = [k for k, rows in cmp["by_kind"].items() if any(r["metric"] == "recall@5" for r in rows)]
    if kinds:
        plots["recall@5 by kind"] = grouped_bars(
            out / "compare_recall5_by_kind.png", kinds,
            {la: [sa["by_kind"].get(k, {}).get("recall@5") for k in kinds],
             lb: [sb["by_kind"].get(k, {}).get("recall@5") for k in kinds]},
            title="Run A vs run B: recall@5 by question kind", ylabel="recall@5 (0–1)", xlabel="question kind",
            value_labels=True, ylim=(0, 1.15),
        )
    md = out / "compare.md"
    md.write_text(render(cmp, plots), encoding="utf-8")
    data = {k: v for k, v in cmp.items() if not k.startswith("_")}
    (out / "compare.json").write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return md
