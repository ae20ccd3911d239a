"""eval.stats / eval.compare / eval.compare_report on synthetic runs whose differences are known by construction."""

from __future__ import annotations

import json

import numpy as np
import pytest
from eval_helpers import KINDS, _rec, base_records, write_run

from assistant.cli import main
from eval import stats
from eval.compare import compare_runs, outcome
from eval.compare_report import render, write_comparison


def test_a_run_compared_with_itself_shows_no_difference(tmp_path):
    run = write_run(tmp_path / "a", base_records())
    cmp = compare_runs(run, run)
    assert cmp["questions"] == 90 and cmp["changed"] == []
    for table in [cmp["overall"], *cmp["by_kind"].values()]:
        for m, r in table.items():
            assert r["diff"] == 0 and not r["distinguishable"] and r["verdict"] == "no distinguishable difference", m
            assert r["p_value"] == 1.0 and r["ci_low"] == r["ci_high"] == 0


def test_runs_differing_on_known_questions_find_exactly_those(tmp_path):
    a = base_records()
    b = json.loads(json.dumps(a))
    # known changes: 12 answerable questions that A got right become wrong in B, 3 absent ones A abstained
    # on are answered by B, 2 answerable ones A got wrong are abstained on by B
    right = [i for i, r in enumerate(a) if r["kind"] != "absent" and r["metrics"]["gold_cited"]]
    wrong = [i for i, r in enumerate(a) if r["kind"] != "absent" and not r["metrics"]["gold_cited"]]
    absent_abst = [i for i, r in enumerate(a) if r["kind"] == "absent" and r["abstained"]]
    regress, answered_absent, abstain = right[:12], absent_abst[:3], wrong[:2]
    for i in regress:
        b[i] = _rec(i, a[i]["kind"], False, r5=a[i]["metrics"]["recall@5"], latency=a[i]["metrics"]["total_s"])
    for i in answered_absent:
        b[i] = _rec(i, "absent", False, abstain=False)
    for i in abstain:
        b[i] = _rec(i, a[i]["kind"], False, abstain=True, r5=a[i]["metrics"]["recall@5"],
                    latency=a[i]["metrics"]["total_s"])
    cmp = compare_runs(write_run(tmp_path / "a", a), write_run(tmp_path / "b", b, model="local"))

    changed = {c["id"]: c for c in cmp["changed"]}
    assert set(changed) == {a[i]["id"] for i in regress + answered_absent + abstain}
    assert {changed[a[i]["id"]]["change"] for i in regress} == {"newly wrong"}
    assert {changed[a[i]["id"]]["direction"] for i in regress + answered_absent} == {"regressed"}
    assert {changed[a[i]["id"]]["change"] for i in abstain} == {"newly abstained"}
    assert {changed[a[i]["id"]]["direction"] for i in abstain} == {"changed"}  # wrong -> abstained: not right either
    c = changed[a[regress[0]]["id"]]
    assert c["a"]["outcome"] == "right" and c["b"]["outcome"] == "wrong"
    assert c["a"]["citations"][0]["paper_id"] != c["b"]["citations"][0]["paper_id"]  # both sides' evidence

    o = cmp["overall"]
    assert o["outcome_right"]["diff"] == pytest.approx(-15 / 90)
    assert o["outcome_right"]["distinguishable"] and o["outcome_right"]["verdict"] == "B worse"
    assert o["outcome_right"]["ci_high"] < 0 and o["outcome_right"]["p_value"] < 0.01
    # retrieval was left alone: same values, nothing to find
    for m in ("recall@5", "mrr", "ndcg@10", "total_mean_s"):
        assert o[m]["diff"] == 0 and not o[m]["distinguishable"], m
    assert cmp["config_diff"] == {"answer.model": ["extractive", "local"]}
    assert set(cmp["by_kind"]) == set(KINDS)
    assert cmp["by_kind"]["absent"]["abstention_recall"]["diff"] < 0


def test_a_small_difference_is_noise_and_says_how_many_questions_it_needs(tmp_path):
    a = base_records()
    b = json.loads(json.dumps(a))
    i = next(i for i, r in enumerate(a) if r["kind"] == "factoid" and r["metrics"]["gold_cited"])
    b[i] = _rec(i, "factoid", False, r5=a[i]["metrics"]["recall@5"], latency=a[i]["metrics"]["total_s"])
    r = compare_runs(write_run(tmp_path / "a", a), write_run(tmp_path / "b", b))["overall"]["outcome_right"]
    assert r["diff"] == pytest.approx(-1 / 90)
    assert r["ci_low"] < 0 <= r["ci_high"] and not r["distinguishable"] and r["p_value"] == 1.0
    assert r["n_needed"] > 90  # a one-question difference needs far more questions


def test_bootstrap_ci_coverage_is_nominal_by_simulation():
    """Draw paired samples with a known mean difference; the 95% interval must hold it ~95% of the time."""
    rng = np.random.default_rng(2026)
    true, n, sims, hits = 0.1, 60, 500, 0
    for s in range(sims):
        a = rng.normal(0.5, 0.2, n)
        b = a + true + rng.normal(0, 0.25, n)
        boots = stats.bootstrap_diffs(a, np.ones(n), b, np.ones(n), resamples=2000, seed=s)
        lo, hi = np.percentile(boots, [2.5, 97.5])
        hits += lo <= true <= hi
    assert 0.92 <= hits / sims <= 0.98


def test_bootstrap_ci_coverage_for_paired_right_wrong_outcomes():
    """Binary per-question outcomes, B correlated with A (right where A is right below 0.8, 10% flipped):
    the interval of the difference of the share right must also hold the true difference ~95% of the time."""
    rng = np.random.default_rng(11)
    n, sims, hits = 80, 400, 0
    true = (0.8 * 0.9 + 0.2 * 0.1) - 0.7
    for s in range(sims):
        u = rng.random(n)
        a, b = (u < 0.7).astype(float), (u < 0.8).astype(float)
        flip = rng.random(n) < 0.1
        b[flip] = 1 - b[flip]
        boots = stats.bootstrap_diffs(a, np.ones(n), b, np.ones(n), resamples=2000, seed=s)
        lo, hi = np.percentile(boots, [2.5, 97.5])
        hits += lo <= true <= hi
    assert 0.92 <= hits / sims <= 0.98


def test_sign_flip_p_value_is_exact_for_small_n():
    # 5 of 5 questions improve by 1: 2 of the 32 swap patterns are as extreme -> p = 1/16
    p = stats.sign_flip_p([0] * 5, [1] * 5, [1] * 5, [1] * 5)
    assert p == pytest.approx(2 / 32)
    d = stats.paired_diff([0] * 5, [1] * 5, [1] * 5, [1] * 5)
    assert d.ci_low == d.ci_high == 1.0 and not d.distinguishable  # degenerate CI alone does not decide
    big = stats.paired_diff([0] * 30, [1] * 30, [1] * 30, [1] * 30)
    assert big.distinguishable and big.p_value < 1e-3


def test_pooled_metrics_pair_numerators_and_denominators():
    # supported sentences pooled: A 1/2 + 1/2 = 2/4, B 2/2 + 0/1 = 2/3
    d = stats.paired_diff([1, 1], [2, 2], [2, 0], [2, 1], resamples=500)
    assert d.a == 0.5 and d.b == pytest.approx(2 / 3) and d.diff == pytest.approx(1 / 6)
    assert stats.paired_diff([0, 0], [0, 0], [1, 0], [1, 1]).diff is None  # not measured in A
    # B writes twice as many claims per answer at the same support rate: not a difference
    rng = np.random.default_rng(3)
    sup_a = rng.integers(0, 3, 40).astype(float)
    d = stats.paired_diff(sup_a, np.full(40, 2.0), 2 * sup_a, np.full(40, 4.0), resamples=2000)
    assert d.diff == pytest.approx(0) and d.p_value == 1.0 and not d.distinguishable
    # A writes 8 supported claims per answer, B 2, and 3 of B's answers have one unsupported claim:
    # 3 discordant questions, so p is that of 3 coin flips agreeing (2/8), whatever the claim counts
    nb = np.full(40, 2.0)
    nb[:3] = 1
    d = stats.paired_diff(np.full(40, 8.0), np.full(40, 8.0), nb, np.full(40, 2.0), resamples=4000)
    assert d.diff == pytest.approx(-0.0375) and d.p_value == pytest.approx(0.25, abs=0.03) and not d.distinguishable


def test_outcome_of_records():
    assert outcome(_rec(1, "factoid", True)) == "right"
    assert outcome(_rec(1, "factoid", False)) == "wrong"
    assert outcome(_rec(1, "absent", True, abstain=True)) == "abstained"
    assert outcome(_rec(1, "absent", True, abstain=False)) == "wrong"
    assert outcome({"error": "RuntimeError: boom"}) == "error"
    assert outcome({"retrieval_only": True, "metrics": {"recall@5": 0.0}}) == "wrong"


def test_three_runs_against_a_named_baseline_and_the_files(tmp_path):
    a = base_records(30)
    b = json.loads(json.dumps(a))
    i = next(i for i, r in enumerate(a) if r["kind"] == "factoid" and r["metrics"]["gold_cited"])
    b[i] = _rec(i, "factoid", False)
    ra, rb, rc = write_run(tmp_path / "base", a), write_run(tmp_path / "new", b), write_run(tmp_path / "same", a)
    cmp = compare_runs(ra, rb, rc, baseline="new")
    assert cmp["baseline"] == "new" and [c["b"] for c in cmp["comparisons"]] == ["base", "same"]
    assert all(len(c["changed"]) == 1 and c["changed"][0]["direction"] == "improved" for c in cmp["comparisons"])
    md = write_comparison(cmp, tmp_path / "cmp")
    data = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert set(data) >= {"overall", "by_kind", "changed", "comparisons"}
    assert set(data["overall"]["outcome_right"]) >= {"a", "b", "diff", "ci_low", "ci_high", "p_value"}
    text = md.read_text()
    assert "## base vs new (baseline)" in text and "## same vs new (baseline)" in text
    assert "95% CI" in text and "newly right" in text and "| citations |" in text
    assert "Judge metrics" in text and "not measured" in text
    assert (tmp_path / "cmp" / "compare_diffs.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_compare(tmp_path, capsys):
    ra = write_run(tmp_path / "a", base_records(12))
    rb = write_run(tmp_path / "b", base_records(12))
    assert main(["eval", "compare", str(ra), str(rb), "--out", str(tmp_path / "cmp"), "--resamples", "500"]) == 0
    out = capsys.readouterr().out
    assert "| metric | A | B | B − A | 95% CI | p | n | needed | verdict |" in out
    assert json.loads((tmp_path / "cmp" / "compare.json").read_text())["settings"]["resamples"] == 500
    assert main(["eval", "compare", str(ra), str(rb), "--baseline", "nope"]) == 2
    assert "--baseline nope" in capsys.readouterr().err
    assert main(["eval", "compare", str(ra)]) == 2
    assert main(["eval", "compare", str(ra), str(tmp_path)]) == 2  # not a run


def test_render_escapes_pipes_and_shortens_long_answers(tmp_path):
    a = base_records(6)
    b = json.loads(json.dumps(a))
    b[0] = _rec(0, "factoid", not a[0]["metrics"]["gold_cited"])
    b[0]["answer"] = "| a | table |\n|---|---|\n" + "x" * 2000
    text = render(compare_runs(write_run(tmp_path / "a", a), write_run(tmp_path / "b", b), resamples=200))
    row = next(line for line in text.splitlines() if line.startswith("| answer |"))
    assert "\\| a \\| table" in row and "…" in row and len(row) < 2000
