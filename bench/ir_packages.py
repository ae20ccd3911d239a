"""Which IR-evaluation package computes recall@5/10, MRR@10 and nDCG@10: installed size and speed.

For each candidate that imports (ir-measures, pytrec-eval-terrier, ranx): the size of the files its
distributions installed that the project did not have already (importlib.metadata), the import time
in a fresh interpreter, and the time to evaluate 77 questions (the bundled set's size) and 10,000
synthetic questions (10 ranked papers, 1-3 relevant), best of 3 (ranx: its first call includes the
numba JIT compile, reported separately).

    .venv/bin/python bench/ir_packages.py [--extra-path DIR]   # DIR: a `pip install --target` holding ranx

The project pins only pytrec-eval-terrier; to measure the others, install them outside the venv, e.g.
`pip install --target /tmp/ir ranx==0.3.21 ir-measures==0.4.3` and pass `--extra-path /tmp/ir`.
Measured 2026-12-01 (shared 2-core machine): pytrec_eval +1.1 MB, 10k questions 0.18 s; ir-measures
+1.5 MB, 2.8 s; ranx +256 MB, import 17 s, first call 252 s (numba JIT), 10k questions 4.1 s.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = {  # package -> distributions it adds to this project (its other dependencies are pinned already)
    "ir_measures": ["ir-measures", "pytrec-eval-terrier"],
    "pytrec_eval": ["pytrec-eval-terrier"],
    "ranx": ["ranx", "numba", "llvmlite", "ir-datasets", "lxml", "fastparquet", "cramjam", "cbor2", "lz4",
             "seaborn", "tabulate", "inscriptis", "trec-car-tools", "unlzw3", "warc3-wet", "warc3-wet-clueweb09",
             "zlib-state", "ijson", "pyautocorpus"],
}


def dist_size(name: str, paths: list[str]) -> int | None:
    try:
        dist = metadata.distribution(name) if not paths else next(
            metadata.distributions(path=paths + sys.path, name=name))
    except (metadata.PackageNotFoundError, StopIteration):
        return None
    total = 0
    for f in dist.files or []:
        p = Path(dist.locate_file(f))
        if p.is_file():
            total += p.stat().st_size
    return total


def synthetic(n: int, seed: int = 0):
    rnd = random.Random(seed)
    qrels, run = {}, {}
    for q in range(n):
        docs = [f"d{q}_{i}" for i in range(30)]
        rel = rnd.sample(docs, rnd.randint(1, 3))
        ranked = rnd.sample(docs, 10)
        qrels[f"q{q}"] = dict.fromkeys(rel, 1)
        run[f"q{q}"] = {d: float(10 - i) for i, d in enumerate(ranked)}
    return qrels, run


def eval_ir_measures(qrels, run):
    import ir_measures
    from ir_measures import RR, R, nDCG

    return list(ir_measures.iter_calc([R @ 5, R @ 10, RR @ 10, nDCG @ 10], qrels, run))


def eval_pytrec(qrels, run):
    import pytrec_eval

    ev = pytrec_eval.RelevanceEvaluator(qrels, {"recall.5,10", "recip_rank", "ndcg_cut.10"})
    return ev.evaluate(run)


def eval_ranx(qrels, run):
    from ranx import Qrels, Run, evaluate

    return evaluate(Qrels(qrels), Run(run), ["recall@5", "recall@10", "mrr@10", "ndcg@10"])


FUNCS = {"ir_measures": eval_ir_measures, "pytrec_eval": eval_pytrec, "ranx": eval_ranx}


def best_of(fn, qrels, run, times: int = 3) -> float:
    out = []
    for _ in range(times):
        t = time.perf_counter()
        fn(qrels, run)
        out.append(time.perf_counter() - t)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extra-path", action="append", default=[], help="Extra directory on sys.path (after the venv).")
    args = ap.parse_args()
    sys.path.extend(args.extra_path)
    small, large = synthetic(77), synthetic(10_000, seed=1)
    results = {}
    for name, fn in FUNCS.items():
        code = (f"import sys, time; sys.path.extend({args.extra_path!r}); t = time.perf_counter(); import {name}; "
                "print(time.perf_counter() - t)")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if proc.returncode:
            results[name] = {"available": False}
            print(f"{name:12} not importable here")
            continue
        sizes = {d: dist_size(d, args.extra_path) for d in CANDIDATES[name]}
        t = time.perf_counter()
        fn(*small)  # first call (ranx: numba compiles here)
        first = time.perf_counter() - t
        r = {"available": True, "import_s": round(float(proc.stdout.strip()), 3), "first_call_77_s": round(first, 4),
             "eval_77_s": round(best_of(fn, *small), 5), "eval_10000_s": round(best_of(fn, *large), 4),
             "added_mb": round(sum(v or 0 for v in sizes.values()) / 1e6, 1),
             "added_distributions": {d: round(v / 1e6, 2) for d, v in sizes.items() if v}}
        results[name] = r
        print(f"{name:12} +{r['added_mb']:6.1f} MB  import {r['import_s']:.2f} s  "
              f"first call {r['first_call_77_s']:.3f} s  "
              f"77 q {r['eval_77_s'] * 1000:.1f} ms  10k q {r['eval_10000_s']:.2f} s")
    out = ROOT / "bench" / "results" / "ir_packages.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"python": sys.version.split()[0], "results": results}, indent=2) + "\n")
    print(f"-> {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
