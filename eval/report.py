"""Markdown report and PNG plots of one eval run (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .metrics import ALL_METRICS, RETRIEVAL_METRICS

KIND_ORDER = ("factoid", "paraphrase", "multi", "compare", "followup", "absent", "nearmiss", "feedback", "dataset",
              "claim-support", "claim-contradict", "claim-nei", "answer-yes", "answer-no", "answer-maybe")
PLOTS = {
    "retrieval": "retrieval_by_kind.png",
    "answers": "citations_by_kind.png",
    "latency": "latency.png",
    "abstention": "abstention.png",
}
DEFINITIONS = {
    "recall@5": "share of a question's gold evidence found in the top 5 retrieved papers",
    "recall@10": "same, top 10",
    "mrr": "1 / rank of the first relevant paper (top 10)",
    "ndcg@10": "binary-gain nDCG of the top 10 against the gold papers",
    "citation_precision": "share of cited papers that hold gold evidence (answered questions with gold)",
    "citation_recall": "share of gold papers cited (answered questions with gold)",
    "verified_sentences": "share of answer claims the claim verifier (assistant/verify) finds supported by the "
    "abstracts they cite",
    "supported_sentences": "share of answer claims whose content words are >= {support:.0%} covered by the sentences "
                           "they cite (or that occur verbatim in a cited abstract), pooled over answers",
    "abstention_precision": "of the abstentions, share on questions the corpus cannot answer",
    "abstention_recall": "of the questions the corpus cannot answer, share abstained on",
    "must_mention": "share of the key terms of the reference answer present in the answer",
    "multi_set_recall": "'which papers' questions: share of the gold papers cited (abstentions count 0)",
    "judge_correctness": "judge model: correctness against the reference answer (1-5 mapped to 0-1), judged answers only",
    "judge_faithfulness": "judge model: every statement supported by the cited abstracts (1-5 mapped to 0-1)",
    "judge_relevance": "judge model: the answer addresses the question (1-5 mapped to 0-1)",
    "first_token_p50_s": "median seconds to the first streamed token (whole answer for non-streamed kinds)",
    "first_token_p95_s": "95th percentile of the same",
    "total_p50_s": "median seconds per answer",
    "total_p95_s": "95th percentile of the same",
}


def definitions(config: Mapping) -> dict[str, str]:
    """DEFINITIONS with the run's own numbers (summary.json "config") where a definition quotes one."""
    support = config.get("answer.support_threshold")
    support = 0.5 if support is None else float(support)
    return {m: d.format(support=support) for m, d in DEFINITIONS.items()}


def ordered_kinds(kinds) -> list[str]:
    ks = list(kinds)
    return [k for k in KIND_ORDER if k in ks] + sorted(k for k in ks if k not in KIND_ORDER)


def fmt(v, metric: str = "") -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if metric.endswith("_s"):
        return f"{v:.2f}" if abs(v) >= 1 else f"{v:.3f}"
    return f"{v:.3f}"


def summary_table(summary: Mapping) -> str:
    """Markdown table: one row per metric, columns overall + each question kind."""
    kinds = ordered_kinds(summary.get("by_kind", {}))
    counts = summary.get("counts", {})
    head = "| metric | overall | " + " | ".join(kinds) + " |"
    sep = "|---|" + "---:|" * (len(kinds) + 1)
    lines = [head, sep, "| questions | " + " | ".join(str(counts.get(k, "")) for k in ["overall", *kinds]) + " |"]
    for m in ALL_METRICS:
        vals = [summary["overall"].get(m)] + [summary["by_kind"][k].get(m) for k in kinds]
        if all(v is None for v in vals):
            continue
        lines.append(f"| {m} | " + " | ".join(fmt(v, m) for v in vals) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- plots


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def grouped_bars(path: Path, groups: Sequence[str], series: Mapping[str, Sequence[float | None]], *, title: str,
                 ylabel: str, xlabel: str, ylim: tuple[float, float] | None = (0, 1.05), value_labels: bool = False) -> Path:
    """Grouped bar chart: one group per x label, one bar per series; None values drawn as a small 'n/a'."""
    plt = _plt()
    n = max(1, len(series))
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(7.0, 1.1 * len(groups) * max(1, n / 2.5) + 2.5), 4.8), dpi=110)
    xs = list(range(len(groups)))
    for i, (name, vals) in enumerate(series.items()):
        pos = [x - 0.4 + width * (i + 0.5) for x in xs]
        heights = [v if v is not None else 0 for v in vals]
        bars = ax.bar(pos, heights, width * 0.92, label=name)
        for p, v, b in zip(pos, vals, bars):
            if v is None:
                ax.text(p, 0.01, "n/a", ha="center", va="bottom", fontsize=6, rotation=90, color="grey")
            elif v == 0 and not value_labels:
                ax.text(p, 0.01, "0", ha="center", va="bottom", fontsize=7, color="black")
            elif value_labels:
                ax.text(p, b.get_height() + 0.01, f"{v:.2f}", ha="center", va="bottom", fontsize=7, rotation=90)
    ax.set_xticks(xs)
    ax.set_xticklabels(groups, rotation=20 if len(groups) > 6 else 0, ha="right" if len(groups) > 6 else "center")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    if ylim:
        ax.set_ylim(*ylim)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def _by_kind_series(summary: Mapping, metrics: Sequence[str]) -> tuple[list[str], dict[str, list]]:
    kinds = [k for k in ordered_kinds(summary["by_kind"]) if any(summary["by_kind"][k].get(m) is not None for m in metrics)]
    groups = ["overall", *kinds]
    series = {m: [summary["overall"].get(m)] + [summary["by_kind"][k].get(m) for k in kinds] for m in metrics}
    return groups, series


def plot_latency(path: Path, rows: Sequence[Mapping]) -> Path | None:
    plt = _plt()
    first = [r["first_token_s"] for r in rows if r.get("first_token_s") is not None]
    total = [r["total_s"] for r in rows if r.get("total_s") is not None]
    if not total:
        return None
    fig, ax = plt.subplots(figsize=(8, 3.8), dpi=110)
    data, labels = [], []
    if first:
        data.append(first)
        labels.append(f"first token (n={len(first)})")
    data.append(total)
    labels.append(f"total answer (n={len(total)})")
    ax.boxplot(data, orientation="horizontal", widths=0.5, showfliers=False)
    import random

    rnd = random.Random(0)
    for i, vals in enumerate(data, start=1):
        ax.scatter(vals, [i + rnd.uniform(-0.15, 0.15) for _ in vals], s=10, alpha=0.5, color="tab:blue", zorder=3)
    ax.set_yticks(range(1, len(labels) + 1))
    ax.set_yticklabels(labels)
    ax.set_xlabel("latency per question (seconds)")
    ax.set_title("Answer latency per question (box = quartiles, dots = questions)")
    ax.set_xlim(left=0)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_confusion(path: Path, c: Mapping[str, int]) -> Path | None:
    if not sum(c.values()):
        return None
    plt = _plt()
    import numpy as np

    m = np.array([[c["tp"], c["fn"]], [c["fp"], c["tn"]]])
    fig, ax = plt.subplots(figsize=(5.8, 4.6), dpi=110)
    ax.imshow(m, cmap="Blues", vmin=0)
    names = [["correct abstention", "wrongly answered"], ["wrongly abstained", "answered"]]
    for i in range(2):
        row = m[i].sum()
        for j in range(2):
            share = f" ({m[i, j] / row:.0%})" if row else ""
            ax.text(j, i, f"{m[i, j]}{share}\n{names[i][j]}", ha="center", va="center", fontsize=12,
                    color="white" if m[i, j] > m.max() / 2 else "black")
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["abstained", "answered"])
    ax.set_yticks([0, 1])
    ax.set_yticklabels(["not answerable\n(no gold)", "answerable\n(has gold)"])
    ax.set_xlabel("assistant's decision")
    ax.set_ylabel("question (by gold evidence)")
    ax.set_title("Abstention confusion (number of questions, row share)")
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def write_plots(out: Path, summary: Mapping, rows: Sequence[Mapping]) -> dict[str, Path]:
    made: dict[str, Path] = {}
    groups, series = _by_kind_series(summary, RETRIEVAL_METRICS)
    if len(groups) > 1 or any(v[0] is not None for v in series.values()):
        made["retrieval"] = grouped_bars(out / PLOTS["retrieval"], groups, series, title="Retrieval quality by question kind",
                                         ylabel="score (0–1, higher is better)", xlabel="question kind")
    ans = ("citation_precision", "citation_recall", "supported_sentences")
    groups, series = _by_kind_series(summary, ans)
    if any(v is not None for vals in series.values() for v in vals):
        made["answers"] = grouped_bars(out / PLOTS["answers"], groups, series,
                                       title="Citations and sentence support by question kind",
                                       ylabel="share (0–1, higher is better)", xlabel="question kind")
    p = plot_latency(out / PLOTS["latency"], rows)
    if p:
        made["latency"] = p
    p = plot_confusion(out / PLOTS["abstention"], summary.get("confusion") or {"tp": 0, "fn": 0, "fp": 0, "tn": 0})
    if p:
        made["abstention"] = p
    return made


# --------------------------------------------------------------------------------------------- report


def _misses(rows: Sequence[Mapping]) -> list[str]:
    out = []
    wrong_abstain = [r["id"] for r in rows if r.get("unanswerable") is False and r.get("abstained")]
    answered_absent = [r["id"] for r in rows if r.get("unanswerable") and r.get("abstained") is False]
    no_recall = [r["id"] for r in rows if r.get("recall@10") == 0]
    errors = [r["id"] for r in rows if r.get("error")]
    for label, ids in (("abstained although the corpus answers it", wrong_abstain),
                       ("answered although the corpus cannot answer it", answered_absent),
                       ("no gold evidence in the top 10", no_recall), ("failed with an error", errors)):
        if ids:
            out.append(f"- {label} ({len(ids)}): " + ", ".join(f"`{i}`" for i in ids))
    return out


def _scorecard_section(summary: Mapping) -> list[str]:
    card = summary.get("scorecard")
    if not card:
        return []
    from .scorecard import table

    split = f" (split: {summary['split']})" if summary.get("split") else ""
    return ["## Scorecard" + split, "", "Per figure: value (questions it applies to); definitions in eval/scorecard.py.",
            "", table({"this run": card}), ""]


def write_report(out: Path, summary: Mapping, rows: Sequence[Mapping], plots: bool = True) -> Path:
    out = Path(out)
    made = write_plots(out, summary, rows) if plots else {}
    cfg = summary.get("config", {})
    lines = [
        "# paperchat evaluation report",
        "",
        f"Questions: `{summary.get('questions', '')}` ({summary.get('counts', {}).get('overall', len(rows))}), "
        f"run started {summary.get('started', '')}, {summary.get('elapsed_s', 0):.0f} s.",
        "",
        "## Summary (overall and by question kind)",
        "",
        summary_table(summary),
        "",
        "`–` = not applicable (e.g. retrieval metrics for questions without gold, abstention precision when "
        "the assistant never abstained).",
        "",
        *_scorecard_section(summary),
        "## Notes",
        "",
        *[f"- {n}" for n in summary.get("notes", [])],
        "",
    ]
    miss = _misses(rows)
    if miss:
        lines += ["## Questions to look at", "", *miss, ""]
    if made:
        lines += ["## Plots", ""]
        captions = {
            "retrieval": "Retrieval metrics by question kind",
            "answers": "Citation precision / recall and supported sentences by question kind",
            "latency": "Latency distribution (seconds)",
            "abstention": "Abstention confusion matrix",
        }
        for key, p in made.items():
            lines += [f"### {captions[key]}", "", f"![{captions[key]}]({Path(p).name})", ""]
    lines += ["## Configuration", "", "| setting | value |", "|---|---|"]
    lines += [f"| {k} | `{v}` |" for k, v in cfg.items()]
    lines += ["", "## Metric definitions", ""]
    lines += [f"- **{m}**: {d}" for m, d in definitions(cfg).items()]
    lines.append("")
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
