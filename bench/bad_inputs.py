"""Bad-input matrix (issue 13): each hostile file ingested by the real CLI in its own process.

For each input: exit code, records stored, issues reported, peak RSS (from /usr/bin/time -v, else
psutil polling). Inputs: a 200 MB single-line JSONL, a 2 MB gzip bomb (~2 GB of spaces), a 5 MB
abstract, a lone-surrogate title beside two good records, a truncated last line, null/array lines.
Prints a table and writes bench/results/bad_inputs.json. Uses the `debug` preset (hash embedder).

    python bench/bad_inputs.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOOD = "We study graph neural networks on molecules and show that sparse message passing keeps accuracy. " * 2
LIMIT_MB = 1536


def _good(i: int) -> str:
    return json.dumps({"id": f"good-{i}", "title": f"Good paper {i}", "abstract": f"{GOOD} Paper {i}."})


def make_inputs(d: Path) -> dict[str, Path]:
    out = {}
    p = d / "line200mb.jsonl"
    with p.open("w") as fh:
        fh.write(_good(1) + "\n")
        fh.write('{"id": "huge", "abstract": "')
        block = "word " * 200_000  # 1 MB
        for _ in range(200):
            fh.write(block)
        fh.write('"}\n' + _good(2) + "\n")
    out["200 MB single line"] = p
    p = d / "bomb.jsonl.gz"
    with gzip.open(p, "wb", compresslevel=9) as fh:
        fh.write((_good(1) + "\n").encode())
        mb = b" " * (1 << 20)
        for _ in range(2048):
            fh.write(mb)
    out[f"gzip bomb ({p.stat().st_size / 1e6:.1f} MB -> 2 GB)"] = p
    p = d / "abstract5mb.jsonl"
    sent = "Sparse message passing keeps the accuracy of graph networks on molecules. "
    p.write_text(_good(1) + "\n" + json.dumps({"id": "long", "abstract": sent * (5_000_000 // len(sent))}) + "\n"
                 + _good(2) + "\n")
    out["5 MB abstract"] = p
    p = d / "surrogate.jsonl"
    p.write_text(_good(1) + '\n{"id": "s", "title": "Half emoji \\ud83d", "abstract": "' + GOOD + '"}\n'
                 + _good(2) + "\n")
    out["lone surrogate title"] = p
    p = d / "shapes.jsonl"
    p.write_text("null\n[1,2,3]\n\n   \n" + _good(1) + "\n" + '{"id": "x", "abstract": "cut' + "\n" + _good(2)
                 + '\n{"id": "t", "abs')
    out["null/array/blank/middle+tail cut"] = p
    return out


def run(path: Path, data: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    # with the progress bar: its line count is bounded too
    cmd = [sys.executable, "-m", "assistant.cli", "--preset", "debug", "--data-dir", str(data), "ingest", str(path)]
    timev = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else "")
    proc = subprocess.run([timev, "-v", *cmd] if timev else cmd, env=env, capture_output=True, text=True, cwd=ROOT)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    rss = int(m.group(1)) / 1024 if m else -1
    stats = subprocess.run([sys.executable, "-m", "assistant.cli", "--preset", "debug", "--data-dir", str(data),
                            "stats", "--json"],
                           env=env, capture_output=True, text=True, cwd=ROOT)
    papers = json.loads(stats.stdout)["papers"] if stats.returncode == 0 else -1
    warnings = [ln for ln in proc.stderr.splitlines() if ln.startswith(("warning:", "error:"))]
    return {"exit": proc.returncode, "papers": papers, "issues": len(warnings), "peak_rss_mb": round(rss),
            "summary": proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "", "first_issue": warnings[:1]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", type=Path, help="Work directory to keep (default: a temp dir, removed).")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="paperchat-bad-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = {}
    try:
        for name, path in make_inputs(work).items():
            rows[name] = run(path, work / f"data-{path.stem}")
            r = rows[name]
            ok = r["peak_rss_mb"] < LIMIT_MB and r["exit"] == 0
            print(f"{name:34} exit={r['exit']} papers={r['papers']} issues={r['issues']} "
                  f"peak_rss={r['peak_rss_mb']} MB "
                  f"{'OK' if ok else 'FAIL'}  {r['first_issue'][0][:110] if r['first_issue'] else ''}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    out = ROOT / "bench" / "results" / "bad_inputs.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
