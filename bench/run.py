"""paperchat benchmarks (GitHub issue #6): throughput, ingest at scale, search latency, answers, memory, disk.

    make bench        ->  bench/run.py --quick   (a few minutes: 1k arXiv, small SciFact slice, 3 answers)
    make bench-full   ->  bench/run.py           (1k, 10k and all 74,728 arXiv abstracts; full SciFact)

Writes bench/results/<date>-<mode>.json and prints a table with each target, the figure before and
after the optimisation, and whether it is met. See bench/README.md for what each step measures.
Index builds are kept under ~/.cache/paperchat-bench/ (PAPERCHAT_BENCH_CACHE): a re-run reuses them,
and an interrupted 75k build resumes where it stopped (its time is the sum of its run segments).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ARXIV_TOTAL, CACHE, RESULTS, ROOT, SCALE_PRESET, machine_info, offline, write_json

QUICK = {"throughput_n": 200, "sizes": [1000], "scifact_docs": 300, "scifact_claims": 60, "queries": 200,
         "questions": 3, "answer_before": False}
FULL = {"throughput_n": 1000, "sizes": [1000, 10000, ARXIV_TOTAL], "scifact_docs": None, "scifact_claims": None,
        "queries": 300, "questions": 10, "answer_before": True}


def _step(results: dict, name: str, fn):
    """Run one step; a failure is recorded (with its traceback) and the other steps still run."""
    print(f"\n== {name}", file=sys.stderr, flush=True)
    t = time.perf_counter()
    try:
        results[name] = fn()
    except Exception as e:  # noqa: BLE001 - reported in the JSON and the table
        results[name] = {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-3000:]}
        print(f"!! {name} failed: {e}", file=sys.stderr)
    results.setdefault("step_seconds", {})[name] = round(time.perf_counter() - t, 1)
    return results[name]


def latency_subprocess(data_dir: Path, backend: str, queries: int, preset: str | None = None) -> dict:
    """bench/latency.py in a fresh process, so its peak RSS is that of a process serving this index."""
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "latency.py"), str(data_dir), "--backend", backend,
                        "--queries", str(queries), *(["--preset", preset] if preset else [])],
                       stdout=subprocess.PIPE, text=True, cwd=ROOT, timeout=3600)
    if p.returncode != 0:
        raise RuntimeError(f"latency.py exited {p.returncode}")
    return json.loads(p.stdout)


def run(cfg: dict, mode: str) -> dict:
    offline()
    from bench import answer_latency, embed_throughput, quality, scale

    res: dict = {"mode": mode, "config": cfg, "machine": machine_info()}
    _step(res, "throughput", lambda: embed_throughput.measure(cfg["throughput_n"]))
    _step(res, "quality", lambda: quality.evaluate(cfg["scifact_docs"], cfg["scifact_claims"]))
    res["scale"] = {}
    for n in cfg["sizes"]:
        _step(res["scale"], str(n), lambda n=n: scale.build(n, "onnx"))
    res["latency"] = {}
    for n in cfg["sizes"]:
        d = scale.data_dir_for(min(n, ARXIV_TOTAL), "onnx")
        _step(res["latency"], str(n), lambda d=d: latency_subprocess(d, "onnx", cfg["queries"], SCALE_PRESET))
    before_dir = CACHE / "throughput" / "before"
    if before_dir.exists():  # the torch-embedded index the throughput step built (same abstracts)
        _step(res["latency"], f"{cfg['throughput_n']}-torch",
              lambda: latency_subprocess(before_dir, "torch", cfg["queries"]))
        after_dir = CACHE / "throughput" / "after"
        _step(res["latency"], f"{cfg['throughput_n']}-onnx",
              lambda: latency_subprocess(after_dir, "onnx", cfg["queries"]))
    res["answer"] = {}
    _step(res["answer"], "onnx", lambda: answer_latency.measure(cfg["questions"], "onnx"))
    if cfg["answer_before"]:
        _step(res["answer"], "torch", lambda: answer_latency.measure(cfg["questions"], "torch"))
    res["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %z")
    return res


# -- the table ------------------------------------------------------------------------------------
def _g(d: dict, *path, default=None):
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return default
        d = d[p]
    return d


def _ok(flag) -> str:
    return "-" if flag is None else ("MET" if flag else "not met")


def table(res: dict) -> list[tuple[str, str, str, str, str]]:
    """(figure, target, before, after, status) rows."""
    rows = []
    t = res.get("throughput", {})
    c = t.get("contenders", {})
    if c:
        rows.append((
            f"embed+index throughput ({t.get('n')} arXiv)", ">= 2x plain encode",
            f"{_g(c, 'before', 'abstracts_per_s')}/s = {t.get('ratio_before_vs_plain')}x plain",
            f"{_g(c, 'after', 'abstracts_per_s')}/s = {t.get('ratio_after_vs_plain')}x plain "
            f"(plain {_g(c, 'plain', 'abstracts_per_s')}/s; CPU-time ratio {t.get('cpu_ratio_after_vs_plain')}x)",
            _ok(t.get("target_met")),
        ))
    if "plain_abstracts" in c:
        rows.append((
            "  same, vs plain encode of whole abstracts (truncated at 256)", ">= 2x",
            f"plain {_g(c, 'plain_abstracts', 'abstracts_per_s')}/s",
            f"{t.get('ratio_after_vs_plain_abstracts')}x (CPU-time {t.get('cpu_ratio_after_vs_plain_abstracts')}x)",
            _ok((t.get("ratio_after_vs_plain_abstracts") or 0) >= 2),
        ))
    q = res.get("quality", {})
    if "backends" in q:
        rows.append((
            f"SciFact nDCG@10 hybrid ({q.get('docs')} docs, {q.get('claims')} claims)", "within 0.005",
            f"{_g(q, 'backends', 'torch', 'hybrid', 'ndcg@10')}", f"{_g(q, 'backends', 'onnx', 'hybrid', 'ndcg@10')} "
            f"(delta {q.get('delta_hybrid_ndcg@10')}; dense delta {q.get('delta_dense_ndcg@10')})",
            _ok(q.get("target_met")),
        ))
    for s in res.get("scale", {}).values():
        if not isinstance(s, dict) or "n" not in s:
            continue
        before_rate = _g(t, "contenders", "before", "abstracts_per_s")
        proj = f"~{s['n'] / before_rate / 60:.0f} min projected at the torch rate" if before_rate else "-"
        rows.append((
            f"ingest {s['n']} abstracts", "< 30 min (75k)" if s["n"] >= ARXIV_TOTAL else "-", proj,
            f"{s['total_wall_s'] / 60:.1f} min wall ({s['abstracts_per_s']}/s, {s['segments']} segment(s)); "
            f"CPU {s['total_cpu_s'] / 60:.1f} min = ~{s['idle_machine_estimate_s'] / 60:.0f} min on an idle machine",
            _ok(s["under_30_min"]) if s["n"] >= ARXIV_TOTAL else "-",
        ))
        rows.append((f"index on disk ({s['n']})", "reported", "-",
                     f"{s['disk_mb_per_1k_abstracts']} MB per 1,000 abstracts "
                     f"({s['disk_bytes'] / 2**20:.0f} MB, {s['chunks']} chunks)", "-"))
    lat = res.get("latency", {})
    for key, m in lat.items():
        if not isinstance(m, dict) or "search" not in m:
            continue
        big = m["papers"] >= 70000
        st = m["stages"]
        rows.append((
            f"search p50/p95 warm ({key}: {m['papers']} papers, {m['queries']} q)", "p95 < 30 ms (75k)" if big else "-",
            "-",
            f"{m['search']['p50_ms']}/{m['search']['p95_ms']} ms (embed {st['embed_query']['p50_ms']}, chroma "
            f"{st['chroma_query']['p50_ms']}, bm25 {st['bm25']['p50_ms']}, gen {st['generation_check']['p50_ms']}, "
            f"meta {st['chunk_meta_get']['p50_ms']}, records {st['records_get']['p50_ms']} ms p50)",
            _ok(m["search"]["p95_ms"] < 30) if big else "-",
        ))
        rows.append((f"peak RSS serving ({key})", "< 2 GB (75k)" if big else "-", "-",
                     f"{m['rss_mb']['peak']} MB", _ok(m["rss_mb"]["peak"] < 2048) if big else "-"))
    ans = res.get("answer", {})
    a, b = ans.get("onnx", {}), ans.get("torch", {})
    if "warm" in a:
        def fmt(x, key):
            return "-" if not x or "warm" not in x else f"{x['warm'].get(key)} s"
        rows.append(("answer first token p50 (question -> first token)", "< 2 s", fmt(b, "first_token_wall_p50_s"),
                     fmt(a, "first_token_wall_p50_s") + f" (prompt ~{a['warm']['prompt_tokens_p50']} tokens; "
                     f"model call {a['warm']['first_token_p50_s']} s)", _ok(a["targets"]["first_token_lt_2s"])))
        rows.append(("answer total p50", "< 8 s", fmt(b, "total_p50_s"), fmt(a, "total_p50_s"),
                     _ok(a["targets"]["total_p50_lt_8s"])))
        cb = _g(b, "cold", "cold_start_s")
        rows.append(("cold start to first answer", "< 30 s", f"{cb} s" if cb else "-",
                     f"{_g(a, 'cold', 'cold_start_s')} s (setup {_g(a, 'cold', 'setup_s')} s; first run on a machine, "
                     f"converting the GGUF: {_g(a, 'cold_first_run', 'cold_start_s')} s)",
                     _ok(a["targets"]["cold_start_lt_30s"])))
    return rows


def print_table(res: dict) -> None:
    m = res["machine"]
    print(f"\npaperchat bench ({res['mode']}), {m['date']}: {m['cpu_count']} x {m['cpu_model']} ({m['cpu_flags']}), "
          f"{m['ram_gb']} GB RAM, load average at start {m['load_avg_at_start']}")
    rows = table(res)
    widths = [max(len(r[i]) for r in [*rows, ("figure", "target", "before", "after", "status")]) for i in range(5)]
    widths[3] = min(widths[3], 110)
    head = ("figure", "target", "before", "after", "status")
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)))
    errors = [k for k, v in _walk(res) if isinstance(v, dict) and "error" in v]
    for k in errors:
        print(f"step {k} failed; see the JSON", file=sys.stderr)


def _walk(d: dict, prefix: str = ""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield prefix + k, v
            if "error" not in v:
                yield from _walk(v, prefix + k + ".")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1k arXiv only, a SciFact slice, 3 answers (minutes).")
    ap.add_argument("--sizes", help="Comma-separated arXiv index sizes (default: quick 1000; full 1000,10000,74728).")
    ap.add_argument("--throughput-n", type=int, help="Abstracts for the interleaved throughput comparison.")
    ap.add_argument("--scifact-docs", type=int, help="SciFact documents (default: quick 300, full all).")
    ap.add_argument("--scifact-claims", type=int, help="SciFact claims (default: quick 60, full all).")
    ap.add_argument("--queries", type=int, help="Search queries per index (>= 200).")
    ap.add_argument("--questions", type=int, help="Answer-latency questions.")
    ap.add_argument("--out", type=Path, help="JSON path (default bench/results/<date>-<mode>.json).")
    ap.add_argument("--table", type=Path, help="Only print the table of an existing results JSON.")
    args = ap.parse_args(argv)
    if args.table:
        print_table(json.loads(args.table.read_text(encoding="utf-8")))
        return 0
    mode = "quick" if args.quick else "full"
    cfg = dict(QUICK if args.quick else FULL)
    if args.sizes:
        cfg["sizes"] = [int(x) for x in args.sizes.split(",")]
    for key in ("throughput_n", "scifact_docs", "scifact_claims", "queries", "questions"):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    out = args.out or RESULTS / f"{time.strftime('%Y-%m-%d')}-{mode}.json"
    res = run(cfg, mode)
    write_json(out, res)
    print_table(res)
    print(f"\n-> {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
