"""Lexical-first ingest at scale: `paperchat ingest` of the first N arXiv abstracts (default all 74,728)
with default settings, as a user runs it, watched from outside.

Measures: time until the first question is answered from the new corpus (a separate `paperchat ask`
process, started as soon as the BM25 index exists, repeated until it answers from the new papers);
time until the lexical phase ends and until full hybrid coverage; peak RSS of the ingest process
(sampled every second, with its children); coverage over time (from the records store, read-only);
disk per 1,000 abstracts. Progress is appended to the JSON as it goes, so a run stopped early still
reports the coverage it reached and the embedding rate (an extrapolation, labelled as such).

    nice -n 15 .venv/bin/python bench/lexfirst.py [--n 74728] [--data-dir /tmp/lexfirst-75k]
        [--out bench/results/lexfirst_75k.json]
    nice -n 15 .venv/bin/python bench/lexfirst.py --data-dir /tmp/lexfirst-75k --embed-tail 3000   # afterwards
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ARXIV, ARXIV_TOTAL, RESULTS, ROOT, arxiv_slice, dir_size, machine_info, offline, write_json

QUESTION = "Which methods reduce hallucinations of large language models?"
BEFORE = {"first_question_min": 76, "note": "issue 12: 74,728 abstracts, scale preset, nothing searchable before "
          "the whole ingest finished (~87 min projected with the default chunking); peak RSS 2.0 GB at ~25k"}


def _rss(pid: int) -> int:
    import psutil

    try:
        p = psutil.Process(pid)
        return p.memory_info().rss + sum(c.memory_info().rss for c in p.children(recursive=True))
    except psutil.Error:
        return 0


def _coverage(data_dir: Path) -> tuple[int, int] | None:
    path = data_dir / "records.sqlite3"
    if not path.exists():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            total = db.execute("SELECT count(*) FROM records").fetchone()[0]
            pending = db.execute("SELECT count(*) FROM records WHERE state='pending'").fetchone()[0]
        finally:
            db.close()
        return total - pending, total
    except sqlite3.Error:
        return None


def _cli(data_dir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "assistant.cli", "--data-dir", str(data_dir), *args]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=ARXIV_TOTAL)
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/lexfirst-bench"))
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--embed-tail", type=int, metavar="N", help="On a finished --data-dir: make its last N papers "
                    "pending again (vectors deleted) and time a fresh `paperchat embed` of them, with its peak RSS "
                    "(= the end of a full run's embed phase: every other vector loaded). Adds `embed_tail` to --out.")
    ap.add_argument("--resume", action="store_true", help="On a --data-dir whose ingest was stopped part-way: run "
                    "`paperchat embed` to full coverage, with its coverage timeline and peak RSS "
                    "(adds `resume` to --out).")
    args = ap.parse_args(argv)
    offline()
    if args.embed_tail:
        return embed_tail(args)
    if args.resume:
        return resume(args)
    n = min(args.n, ARXIV_TOTAL)
    out = args.out or RESULTS / f"lexfirst_{n // 1000}k.json"
    src = ARXIV if n == ARXIV_TOTAL else arxiv_slice(n)
    shutil.rmtree(args.data_dir, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log_path = args.data_dir.with_name(args.data_dir.name + ".ingest.log")
    res: dict = {"n": n, "source": str(src), "data_dir": str(args.data_dir), "question": args.question,
                 "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine_info(),
                 "settings": "default", "before": BEFORE, "timeline": [], "complete": False}
    t0 = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(_cli(args.data_dir, "ingest", str(src)), stdout=log, stderr=log, cwd=ROOT, env=env)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss(proc.pid))
            time.sleep(1.0)

    threading.Thread(target=sample, daemon=True).start()
    answered = False
    last_log = 0.0
    while proc.poll() is None or not answered:
        now = time.monotonic() - t0
        cov = _coverage(args.data_dir)
        if not answered and list(args.data_dir.glob("lexical/*/meta.json")):
            t_ask = time.monotonic()
            p = subprocess.run(_cli(args.data_dir, "ask", args.question, "--json"), capture_output=True, text=True,
                               cwd=ROOT, env=env, timeout=600)
            if p.returncode == 0:
                ans = json.loads(p.stdout)
                hits = len(ans.get("retrieved", []))
                if hits:
                    answered = True
                    res["first_answer"] = {
                        "s_from_start": round(time.monotonic() - t0, 1), "ask_s": round(time.monotonic() - t_ask, 1),
                        "papers_stored": cov[1] if cov else None, "abstained": ans.get("abstained"),
                        "retrieved": hits, "citations": len(ans.get("citations", [])),
                        "dense_coverage": ans.get("dense_coverage"), "answer": ans.get("answer", "")[:300]}
                    print(f"first answer after {res['first_answer']['s_from_start']} s "
                          f"({res['first_answer']['papers_stored']} papers stored)", flush=True)
            else:
                res.setdefault("ask_errors", []).append(p.stderr[-300:])
        if now - last_log >= 15 or proc.poll() is not None:
            last_log = now
            res["timeline"].append({"s": round(now, 1), "embedded": cov[0] if cov else 0,
                                    "stored": cov[1] if cov else 0,
                                    "rss_mb": round(_rss(proc.pid) / 2**20), "peak_rss_mb": round(peak[0] / 2**20)})
            res["peak_rss_mb"] = round(peak[0] / 2**20)
            _rates(res, n)
            write_json(out, res)
            print(json.dumps(res["timeline"][-1]), flush=True)
        if proc.poll() is not None and answered:
            break
        if proc.poll() is not None and not answered and len(res.get("ask_errors", [])) > 3:
            break
        time.sleep(2.0)
    rc = proc.wait()
    done.set()
    total_s = time.monotonic() - t0
    cov = _coverage(args.data_dir) or (0, 0)
    size = dir_size(args.data_dir)
    res.update(complete=rc == 0 and cov[0] == cov[1] == n, exit_code=rc, full_coverage_s=round(total_s, 1),
               full_coverage_min=round(total_s / 60, 1), peak_rss_mb=round(peak[0] / 2**20),
               disk_mb=round(size / 2**20, 1), disk_mb_per_1000=round(size / 2**20 / max(1, cov[1]) * 1000, 2),
               final_coverage={"embedded": cov[0], "papers": cov[1]})
    _rates(res, n)
    write_json(out, res)
    print(json.dumps({k: v for k, v in res.items() if k not in ("timeline", "machine")}, indent=2))
    print(f"-> {out}; ingest log {log_path}")
    return 0 if res["complete"] else 1


def resume(args) -> int:
    out = args.out or RESULTS / "lexfirst_75k.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.monotonic()
    start = _coverage(args.data_dir)
    with open(args.data_dir.with_name(args.data_dir.name + ".resume.log"), "wb") as log:
        proc = subprocess.Popen(_cli(args.data_dir, "embed"), stdout=log, stderr=log, cwd=ROOT, env=env)
    peak, last, timeline = 0, -1e9, []
    while proc.poll() is None:
        peak = max(peak, _rss(proc.pid))
        if time.monotonic() - last >= 15:
            last = time.monotonic()
            cov = _coverage(args.data_dir) or (0, 0)
            timeline.append({"s": round(last - t0, 1), "embedded": cov[0], "rss_mb": round(_rss(proc.pid) / 2**20),
                             "peak_rss_mb": round(peak / 2**20)})
            res = json.loads(out.read_text()) if out.exists() else {}
            res["resume"] = {"started_at_coverage": start, "timeline": timeline, "peak_rss_mb": round(peak / 2**20),
                             "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
            write_json(out, res)
            print(json.dumps(timeline[-1]), flush=True)
        time.sleep(0.5)
    cov = _coverage(args.data_dir) or (0, 0)
    res = json.loads(out.read_text()) if out.exists() else {}
    res["resume"] = {"started_at_coverage": start, "timeline": timeline, "peak_rss_mb": round(peak / 2**20),
                     "s": round(time.monotonic() - t0, 1), "final_coverage": cov, "exit_code": proc.returncode,
                     "disk_mb": round(dir_size(args.data_dir) / 2**20, 1),
                     "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    write_json(out, res)
    print(json.dumps({k: v for k, v in res["resume"].items() if k != "timeline"}, indent=2))
    return 0 if proc.returncode == 0 else 1


def embed_tail(args) -> int:
    from assistant.index.indexer import Index
    from assistant.index.records import PENDING
    from assistant.settings import load_settings

    out = args.out or RESULTS / "lexfirst_75k.json"
    index = Index(load_settings(None, {"store.data_dir": str(args.data_dir)}, env={}))
    db = index.records_db
    drop = sorted(db.ids())[-args.embed_tail:]
    index.store.delete_papers(drop)
    index.store.bump_generation()
    with db._lock:
        db._db.executemany("UPDATE records SET state=? WHERE paper_id=?", [(PENDING, p) for p in drop])
    db.bump_generation()
    del index, db
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.monotonic()
    proc = subprocess.Popen(_cli(args.data_dir, "embed", "--quiet"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, env=env, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _rss(proc.pid))
        time.sleep(0.5)
    stdout, stderr = proc.communicate()
    tail = {"papers": len(drop), "s": round(time.monotonic() - t0, 1), "peak_rss_mb": round(peak / 2**20),
            "exit_code": proc.returncode, "output": stdout.strip()[-200:] or stderr.strip()[-300:],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    res = json.loads(out.read_text()) if out.exists() else {}
    res["embed_tail"] = tail
    write_json(out, res)
    print(json.dumps(tail, indent=2))
    return 0 if proc.returncode == 0 else 1


def _rates(res: dict, n: int) -> None:
    """The lexical phase's end and the embedding rate from the timeline (an extrapolation while incomplete)."""
    tl = res["timeline"]
    lex = next((p for p in tl if p["stored"] >= n), None)
    if lex:
        res["lexical_phase_s"] = lex["s"]
    emb = [p for p in tl if p["embedded"] > 0]
    if len(emb) >= 2 and emb[-1]["s"] > emb[0]["s"]:
        rate = (emb[-1]["embedded"] - emb[0]["embedded"]) / (emb[-1]["s"] - emb[0]["s"])
        res["embed_rate_per_s"] = round(rate, 2)
        if rate > 0 and emb[-1]["embedded"] < n:
            res["extrapolated_full_coverage_min"] = round((emb[-1]["s"] + (n - emb[-1]["embedded"]) / rate) / 60, 1)


if __name__ == "__main__":
    sys.exit(main())
