"""The benchmark functions run end to end on tiny inputs and return the JSON shape run.py reports.

No timing assertions: the machine is shared, figures come from `make bench`. Uses the real MiniLM
weights (ONNX int8 when the `onnx` package is there to export it, else torch) and ../shared/data.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (SHARED / "arxiv").is_dir() or not (SHARED / "scifact").is_dir(),
                       reason="needs ../shared/data (arXiv and SciFact)"),
]
HAVE_ONNX = importlib.util.find_spec("onnx") is not None
BACKEND = "onnx" if HAVE_ONNX else "torch"


@pytest.fixture
def bench_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from bench import common, embed_throughput, quality, scale

    cache = tmp_path / "bench-cache"
    for mod in (common, embed_throughput, quality, scale):
        monkeypatch.setattr(mod, "CACHE", cache)
    return cache


def _stage_summary(d: dict) -> None:
    assert set(d) >= {"n", "p50_ms", "p95_ms", "mean_ms", "max_ms"}
    assert d["p50_ms"] <= d["p95_ms"] <= d["max_ms"]


def test_machine_info_and_helpers() -> None:
    from bench.common import machine_info, percentile, summary_ms

    m = machine_info()
    assert m["cpu_count"] >= 1 and m["ram_gb"] > 0 and m["date"]
    assert percentile([3, 1, 2], 50) == 2 and percentile([1.0] * 10, 95) == 1.0
    _stage_summary(summary_ms([0.001, 0.002, 0.003]))


def test_scale_latency_and_table(bench_cache: Path) -> None:
    from bench import run, scale
    from bench.latency import STAGES, measure

    built = scale.build(24, BACKEND)
    assert built["papers"] == 24 and built["chunks"] >= 24 and built["segments"] == 1
    assert built["disk_bytes"] > 0 and built["disk_mb_per_1k_abstracts"] > 0
    again = scale.build(24, BACKEND)  # resumes / re-runs: nothing re-embedded
    assert again["this_run"]["unchanged"] == 24 and again["this_run"]["added"] == 0 and again["segments"] == 2

    lat = measure(Path(built["data_dir"]), BACKEND, queries=5, preset="scale")
    assert lat["papers"] == 24 and lat["queries"] == 5
    _stage_summary(lat["search"])
    assert set(lat["stages"]) == set(STAGES)
    for s in lat["stages"].values():
        _stage_summary(s)
    assert lat["rss_mb"]["peak"] >= lat["rss_mb"]["before_open"] > 0

    res = {"mode": "quick", "machine": {"date": "d", "cpu_count": 2, "cpu_model": "x", "cpu_flags": "", "ram_gb": 1,
                                        "load_avg_at_start": [0]},
           "scale": {"24": built}, "latency": {"24": lat}}
    rows = run.table(res)
    assert any(r[0].startswith("ingest 24") for r in rows) and any(r[0].startswith("search p50/p95") for r in rows)
    assert all(len(r) == 5 for r in rows)
    json.dumps(res)
    run.print_table(res)


@pytest.mark.skipif(not HAVE_ONNX, reason="the optimised embedder needs the onnx package to export once")
def test_throughput_shape(bench_cache: Path) -> None:
    from bench import embed_throughput

    out = embed_throughput.measure(n=6, slice_size=3)
    assert out["n"] == 6 and set(out["contenders"]) == {"plain", "plain_abstracts", "before", "after"}
    for c in out["contenders"].values():
        assert c["wall_s"] > 0 and c["abstracts_per_s"] > 0 and c["chunks"] >= 6
    assert out["contenders"]["after"]["embedder"].endswith("+onnx-int8")
    assert {"ratio_after_vs_plain", "ratio_before_vs_plain", "ratio_after_vs_plain_abstracts", "target_met"} <= set(out)
    assert out["contenders"]["plain_abstracts"]["chunks"] == 6  # one text per abstract
    json.dumps(out)


@pytest.mark.skipif(not HAVE_ONNX, reason="compares the torch and ONNX indexes")
def test_quality_shape(bench_cache: Path) -> None:
    from bench import quality

    out = quality.evaluate(docs=20, n_claims=4)
    assert out["claims"] == 4 and out["docs"] >= 4
    for b in ("torch", "onnx"):
        for mode in ("hybrid", "dense"):
            assert 0.0 <= out["backends"][b][mode]["ndcg@10"] <= 1.0
    assert "delta_hybrid_ndcg@10" in out and "target_met" in out


def test_answer_questions_list() -> None:
    from bench.answer_latency import questions

    qs = questions(10)
    assert len(qs) == 10 and all(isinstance(q, str) and q for q in qs)
