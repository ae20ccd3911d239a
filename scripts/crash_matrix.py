"""Crash matrix (issue 13): SIGKILL an ingest at random points, check the store, re-run, count the damage.

A clean ingest of the first N arXiv abstracts (debug preset: hash embedder) gives the reference counts.
Then for each point: a fresh data dir, an ingest killed with SIGKILL after a random delay, a fresh
process that must open the store (`stats`), the same ingest re-run to completion, and `doctor --json` in
another fresh process. Per point: records lost (N - papers), duplicated (chunks beyond the reference
count, or the same paper twice), orphaned (chunks whose paper has no record), pending left, doctor ok.

    python scripts/crash_matrix.py [--points 20] [--records 1500] [--seed 13]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARXIV = ROOT.parent / "shared" / "data" / "arxiv" / "arxiv_cs_abstracts_2025-2026.jsonl.gz"


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}


def _ingest_cmd(data: Path, src: Path) -> list[str]:
    return [sys.executable, "-m", "assistant.cli", "--preset", "debug", "--set", "store.add_batch=64", "--data-dir",
            str(data), "ingest", "--quiet", str(src)]


_STATE = """
import contextlib, io, json, sys
from assistant.cli import main
res = {}
for name, argv in (("stats", ["stats", "--json"]), ("doctor", ["doctor", "--json"])):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["--preset", "debug", "--data-dir", sys.argv[1], *argv])
        except BaseException as e:
            code, _ = 99, err.write(repr(e))
    res[name] = {"code": code, "out": out.getvalue(), "err": err.getvalue()[-300:]}
print(json.dumps(res))
"""


def _state(data: Path) -> dict:
    """Counts seen by a fresh process: papers/chunks/records/pending, and doctor's findings."""
    p = subprocess.run([sys.executable, "-c", _STATE, str(data)], capture_output=True, text=True, cwd=ROOT, env=_env())
    try:
        res = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        res = {"stats": {"code": 99, "out": "", "err": p.stderr[-300:]}, "doctor": {"code": 99, "out": ""}}
    st, doc = res["stats"], res["doctor"]
    stats = json.loads(st["out"]) if st["code"] == 0 else {}
    findings = json.loads(doc["out"])["findings"] if doc["out"].strip().startswith("{") else []
    return {"opens": st["code"] == 0, "stats_error": st["err"] if st["code"] else "",
            "papers": stats.get("papers", -1), "chunks": stats.get("chunks", -1), "records": stats.get("records", -1),
            "pending": stats.get("pending", -1), "doctor_ok": doc["code"] == 0,
            "bad": [f"{f['check']}: {f['message']}" for f in findings if not f["ok"]]}


def make_source(n: int, path: Path) -> Path:
    with gzip.open(ARXIV, "rt", encoding="utf-8") as fh, path.open("w", encoding="utf-8") as out:
        for i, line in enumerate(fh):
            if i >= n:
                break
            out.write(line)
    return path


def matrix(points: int, n: int, work: Path, seed: int = 13) -> dict:
    src = make_source(n, work / "src.jsonl")
    ref_dir = work / "reference"
    t0 = time.monotonic()
    p = subprocess.run(_ingest_cmd(ref_dir, src), capture_output=True, text=True, cwd=ROOT, env=_env())
    full_s = time.monotonic() - t0
    if p.returncode:
        raise SystemExit(f"reference ingest failed: {p.stderr}")
    ref = _state(ref_dir)
    rng = random.Random(seed)
    rows = []
    for i in range(points):
        data = work / f"kill-{i}"
        delay = rng.uniform(0.15, 0.95) * full_s
        proc = subprocess.Popen(_ingest_cmd(data, src), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                                env=_env())
        try:
            proc.wait(timeout=delay)
            finished = True
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            finished = False
        after_kill = _state(data)
        rerun = subprocess.run(_ingest_cmd(data, src), capture_output=True, text=True, cwd=ROOT, env=_env())
        final = _state(data)
        rows.append({
            "point": i, "kill_after_s": round(delay, 2), "finished_before_kill": finished,
            "after_kill": {k: after_kill[k] for k in ("opens", "papers", "records", "pending", "doctor_ok", "bad")},
            "rerun_exit": rerun.returncode, "rerun_summary": rerun.stdout.strip()[-160:],
            "rerun_error": rerun.stderr.strip()[-400:] if rerun.returncode else "",
            "lost": n - final["papers"] if final["papers"] >= 0 else n,
            "duplicated": max(0, final["chunks"] - ref["chunks"]) + max(0, final["papers"] - ref["papers"]),
            "orphaned": sum(1 for b in final["bad"] if b.startswith("orphans")),
            "pending_left": final["pending"], "doctor_ok": final["doctor_ok"], "bad": final["bad"],
        })
        shutil.rmtree(data, ignore_errors=True)
    return {"records": n, "reference": {k: ref[k] for k in ("papers", "chunks", "records")},
            "full_ingest_s": round(full_s, 1), "points": rows}


def summary(res: dict) -> str:
    rows = res["points"]
    lines = [f"crash matrix: {len(rows)} SIGKILLs over a {res['records']}-record ingest "
             f"(reference {res['reference']['papers']} papers / {res['reference']['chunks']} chunks, "
             f"{res['full_ingest_s']} s)"]
    for r in rows:
        ak = r["after_kill"]
        lines.append(f"  kill@{r['kill_after_s']:>5}s  after kill: opens={ak['opens']} papers={ak['papers']} "
                     f"records={ak['records']} pending={ak['pending']} doctor_ok={ak['doctor_ok']}  | after re-run: "
                     f"lost={r['lost']} duplicated={r['duplicated']} orphaned={r['orphaned']} "
                     f"pending={r['pending_left']} "
                     f"doctor_ok={r['doctor_ok']}")
    tot = {k: sum(r[k] for r in rows) for k in ("lost", "duplicated", "orphaned")}
    opens = sum(r["after_kill"]["opens"] for r in rows)
    lines.append(f"TOTAL: lost={tot['lost']} duplicated={tot['duplicated']} orphaned={tot['orphaned']}; "
                 f"store opened after {opens}/{len(rows)} kills; doctor healthy after re-run "
                 f"{sum(r['doctor_ok'] for r in rows)}/{len(rows)}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=20)
    ap.add_argument("--records", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "crash_matrix.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="paperchat-crash-") as tmp:
        res = matrix(args.points, args.records, Path(tmp), args.seed)
    print(summary(res))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
