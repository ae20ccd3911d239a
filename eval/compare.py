"""Compare eval runs question by question: is B really better than A, by how much, and where it differs.

    paperchat eval compare eval/runs/base eval/runs/new --out eval/runs/base-vs-new
    paperchat eval compare base new1 new2 --baseline base --out cmp     # each run against the baseline

Questions are paired by id (only ids in both runs count). For every metric, overall and per question
kind, the difference b - a comes with a 95% paired-bootstrap CI, a sign-flip permutation p-value and
the number of questions a difference of that size would need (see `eval.stats`). `changed` lists the
questions whose outcome changed (right / wrong / abstained), with both answers and their citations.
Rendering (compare.md, plots) is `eval.compare_report`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from . import stats
from .metrics import ABSTENTION_METRICS, ANSWER_METRICS, JUDGE_METRICS, RETRIEVAL_METRICS
from .report import ordered_kinds
from .runner import load_run

LATENCY_MEANS = ("first_token_mean_s", "total_mean_s")
COMPARE_METRICS = (RETRIEVAL_METRICS + ("outcome_right",) + ANSWER_METRICS + ABSTENTION_METRICS + JUDGE_METRICS
                   + LATENCY_MEANS)
LOWER_IS_BETTER = frozenset(LATENCY_MEANS)
_MEAN_FIELD = {"first_token_mean_s": "first_token_s", "total_mean_s": "total_s"}
LEVEL = 0.95  # confidence level of the CIs (and 1 - the p-value threshold of "distinguishable")


# -- per-question outcome ------------------------------------------------------------------------------
def outcome(rec: Mapping) -> str:
    """'right', 'wrong', 'abstained', 'error' or '' (not applicable) for one result record.

    Answer runs: an answerable question is right when a gold paper is cited; abstaining on it is
    'abstained'; a question the corpus cannot answer is right when abstained on ('abstained') and
    wrong when answered. Retrieval-only runs: right when a gold paper is in the top 5.
    """
    m = rec.get("metrics") or {}
    if rec.get("error"):
        return "error"
    if rec.get("retrieval_only"):
        r5 = m.get("recall@5")
        return "" if r5 is None else ("right" if r5 > 0 else "wrong")
    if m.get("unanswerable") is None and m.get("gold_cited") is None:
        return ""
    if m.get("abstained"):
        return "abstained"
    if m.get("unanswerable"):
        return "wrong"
    return "right" if m.get("gold_cited") else "wrong"


def is_right(rec: Mapping) -> bool | None:
    o = outcome(rec)
    if not o:
        return None
    m = rec.get("metrics") or {}
    return o == "right" or (o == "abstained" and bool(m.get("unanswerable")))


# -- metric pairs ------------------------------------------------------------------------------------
def _pair_values(name: str, rec: Mapping) -> tuple[float, float]:
    """(numerator, denominator) one question contributes to the run-level value of metric `name`."""
    m = rec.get("metrics") or {}
    if name == "supported_sentences":
        return float(m.get("supported") or 0), float(m.get("claims") or 0)
    if name == "verified_sentences":
        return float(m.get("verified") or 0), float(m.get("verified_claims") or 0)
    if name in ABSTENTION_METRICS:
        un, ab = m.get("unanswerable"), m.get("abstained")
        if un is None or ab is None:
            return 0.0, 0.0
        tp = float(bool(un) and bool(ab))
        return tp, float(bool(ab) if name == "abstention_precision" else bool(un))
    if name == "outcome_right":
        r = is_right(rec)
        return (0.0, 0.0) if r is None else (float(r), 1.0)
    v = m.get(_MEAN_FIELD.get(name, name))
    if v is None or isinstance(v, str):
        return 0.0, 0.0
    return float(v), 1.0


def metric_table(recs_a: Sequence[Mapping], recs_b: Sequence[Mapping], *, resamples: int, seed: int,
                 level: float = LEVEL) -> dict:
    """{metric: PairedDiff json + verdict} for the metrics measured in at least one of the paired runs."""
    out: dict[str, dict] = {}
    for name in COMPARE_METRICS:
        pa = [_pair_values(name, r) for r in recs_a]
        pb = [_pair_values(name, r) for r in recs_b]
        if not any(d for _, d in pa) and not any(d for _, d in pb):
            continue
        d = stats.paired_diff([x for x, _ in pa], [y for _, y in pa], [x for x, _ in pb], [y for _, y in pb],
                              resamples=resamples, seed=seed, level=level)
        row = d.to_json()
        row["higher_is_better"] = name not in LOWER_IS_BETTER
        row["verdict"] = verdict(d, row["higher_is_better"])
        out[name] = row
    return out


def verdict(d: stats.PairedDiff, higher_is_better: bool) -> str:
    if d.diff is None:
        return "not measured in both runs"
    if not d.distinguishable:
        return "no distinguishable difference"
    return "B better" if (d.diff > 0) == higher_is_better else "B worse"


# -- changed questions -------------------------------------------------------------------------------
def _side(rec: Mapping) -> dict:
    m = rec.get("metrics") or {}
    return {
        "outcome": outcome(rec),
        "answer": rec.get("answer", ""),
        "abstained": rec.get("abstained"),
        "citations": [{"marker": c.get("marker"), "paper_id": c.get("paper_id"), "title": c.get("title", ""),
                       "sentences": list(c.get("sentences") or []), "text": c.get("text", "")}
                      for c in rec.get("citations") or []],
        "top5": [str(h.get("paper_id")) for h in (rec.get("retrieved") or [])[:5]],
        "recall@5": m.get("recall@5"),
        "error": rec.get("error", ""),
        "judge": {k: m.get(k) for k in JUDGE_METRICS if m.get(k) is not None},
    }


def changed_questions(recs_a: Sequence[Mapping], recs_b: Sequence[Mapping]) -> list[dict]:
    """Paired questions whose outcome differs: newly right, newly wrong, newly abstained (or now failing)."""
    out = []
    for ra, rb in zip(recs_a, recs_b):
        oa, ob = outcome(ra), outcome(rb)
        if oa == ob or not (oa or ob):
            continue
        ok_a, ok_b = is_right(ra), is_right(rb)
        direction = ("improved" if ok_b and not ok_a else "regressed" if ok_a and not ok_b else "changed")
        out.append({
            "id": ra.get("id"), "kind": ra.get("kind"), "question": ra.get("question"),
            "reference_answer": ra.get("reference_answer", ""),
            "change": f"newly {ob}" if ob else f"no longer {oa}", "direction": direction,
            "a": _side(ra), "b": _side(rb),
        })
    return out


# -- runs ----------------------------------------------------------------------------------------------
def pair_records(recs_a: Sequence[Mapping], recs_b: Sequence[Mapping]) -> tuple[list, list, list[str], list[str]]:
    """Records of the ids in both runs (in A's order), and the ids only in A / only in B."""
    by_b = {r.get("id"): r for r in recs_b}
    ids_a = {r.get("id") for r in recs_a}
    pa = [r for r in recs_a if r.get("id") in by_b]
    pb = [by_b[r.get("id")] for r in pa]
    return pa, pb, sorted(str(i) for i in ids_a - set(by_b)), sorted(str(i) for i in set(by_b) - ids_a)


def compare_pair(run_a: tuple[str, Path, dict, list], run_b: tuple[str, Path, dict, list], *,
                 resamples: int = 10_000, seed: int = 0, level: float = LEVEL) -> dict:
    """One comparison (A = baseline) in the compare.json shape: overall, by_kind, changed (+ context)."""
    (name_a, dir_a, sa, ra), (name_b, dir_b, sb, rb) = run_a, run_b
    pa, pb, only_a, only_b = pair_records(ra, rb)
    kinds = ordered_kinds({str(r.get("kind", "factoid")) for r in pa})
    cfg_a, cfg_b = sa.get("config", {}), sb.get("config", {})
    return {
        "a": name_a, "b": name_b, "a_path": str(dir_a), "b_path": str(dir_b),
        "config_diff": {k: [cfg_a.get(k), cfg_b.get(k)] for k in sorted(set(cfg_a) | set(cfg_b))
                        if cfg_a.get(k) != cfg_b.get(k)},
        "questions": len(pa), "only_in_a": only_a, "only_in_b": only_b,
        "text_differs": [str(x.get("id")) for x, y in zip(pa, pb) if x.get("question") != y.get("question")],
        "counts": {k: sum(1 for r in pa if str(r.get("kind", "factoid")) == k) for k in kinds},
        "overall": metric_table(pa, pb, resamples=resamples, seed=seed, level=level),
        "by_kind": {k: metric_table([r for r in pa if str(r.get("kind", "factoid")) == k],
                                    [r for r in pb if str(r.get("kind", "factoid")) == k],
                                    resamples=resamples, seed=seed, level=level) for k in kinds},
        "changed": changed_questions(pa, pb),
        "judge": {"a": sa.get("judge"), "b": sb.get("judge")},
    }


def run_names(dirs: Sequence[Path]) -> list[str]:
    """Short unique names of run directories (their last path part, made unique with the parent)."""
    names = [Path(d).name for d in dirs]
    names = [n if names.count(n) == 1 else f"{Path(d).parent.name}/{n}" for n, d in zip(names, dirs)]
    return [n if names.count(n) == 1 else f"{n} ({i + 1})" for i, n in enumerate(names)]


def compare_settings(resamples: int = 10_000, seed: int = 0, level: float = LEVEL) -> dict:
    """Every number the comparison's text quotes (compare.md says what compare.json holds, from here)."""
    return {"resamples": resamples, "seed": seed, "level": level, "needed_alpha": stats.NEEDED_ALPHA,
            "needed_power": stats.NEEDED_POWER, "exact_flips_max_n": stats.EXACT_FLIPS_MAX_N,
            "p_value": f"paired sign-flip permutation test (exact for n <= {stats.EXACT_FLIPS_MAX_N})"}


def compare_runs(*dirs: Path | str, baseline: str | None = None, resamples: int = 10_000, seed: int = 0,
                 level: float = LEVEL) -> dict:
    """Compare two or more run directories, each against the baseline (default: the first).

    The result has the two-run shape ({overall, by_kind, changed, ...} of the first comparison) and, with
    more than two runs, one such block per non-baseline run in `comparisons`."""
    paths = [Path(d) for d in dirs]
    if len(paths) < 2:
        raise ValueError("compare needs at least two runs")
    names = run_names(paths)
    runs = [(n, p, *load_run(p)) for n, p in zip(names, paths)]
    base = 0
    if baseline is not None:
        matches = [i for i, (n, p) in enumerate(zip(names, paths)) if baseline in (n, str(p), p.name)]
        if not matches:
            raise KeyError(baseline)
        base = matches[0]
    comparisons = [compare_pair(runs[base], r, resamples=resamples, seed=seed, level=level)
                   for i, r in enumerate(runs) if i != base]
    first = comparisons[0]
    return {**first, "baseline": names[base], "runs": [{"name": n, "path": str(p)} for n, p in zip(names, paths)],
            "settings": compare_settings(resamples, seed, level),
            "comparisons": comparisons if len(comparisons) > 1 else []}
