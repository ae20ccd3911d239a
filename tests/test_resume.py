"""A killed ingest resumes: kill -9 `paperchat ingest` part-way, run it again, and it finishes with
every record stored once, the same counts as an uninterrupted ingest, and the records stored before
the kill reported as `already stored` (lexical-first: a stored record is not stored again; its vectors,
if they were missing, are made by the rerun). Debug preset (hash embeddings): no model weights."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
N_RECORDS = 2000
BATCH = 64
_WORDS = ("graph neural network transformer attention diffusion model federated learning pruning layer token "
          "retrieval dense sparse benchmark dataset robust adversarial image segmentation detection speech audio "
          "language reasoning agent policy reward quantum circuit compiler kernel memory cache latency energy").split()
_SUMMARY = re.compile(r"(\d+) added, (\d+) updated, (\d+) duplicate \((\d+) already stored, (\d+) repeated in input\)")


def _write_records(path: Path, n: int) -> None:
    rnd = random.Random(7)
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            sents = [" ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(8, 18))).capitalize() + "."
                     for _ in range(5)]
            f.write(json.dumps({
                "id": f"2601.{i:05d}", "title": f"Synthetic paper {i} on {rnd.choice(_WORDS)}",
                "abstract": f"Record {i} studies item {i * 7919 % 100003}. " + " ".join(sents),
                "authors": [f"Author {i % 97}"], "categories": ["cs.LG"], "first_seen": "2026-01-02",
            }) + "\n")


def _cmd(data_dir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "assistant.cli", "--data-dir", str(data_dir), "--preset", "debug",
            "--set", f"store.add_batch={BATCH}", *args]


def _env() -> dict:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "PYTHONPATH": str(ROOT)}


def _ingest(data_dir: Path, src: Path) -> subprocess.CompletedProcess:
    return subprocess.run(_cmd(data_dir, "ingest", str(src)), capture_output=True, text=True, cwd=ROOT,
                          env=_env(), timeout=600)


def _stats(data_dir: Path) -> dict:
    p = subprocess.run(_cmd(data_dir, "stats", "--json"), capture_output=True, text=True, cwd=ROOT, env=_env(),
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _kill_midway(data_dir: Path, src: Path, at_least: int) -> int:
    """Start an ingest, SIGKILL it once its progress bar shows >= `at_least` records; the count seen."""
    proc = subprocess.Popen(_cmd(data_dir, "ingest", str(src)), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            cwd=ROOT, env=_env())
    seen = [0]
    reached = threading.Event()

    def watch() -> None:
        buf = b""
        while True:
            ch = proc.stderr.read(1)
            if not ch:
                return
            buf = (buf + ch)[-200:]
            m = re.findall(rb"(\d+)/(\d+) \[", buf)
            if m:
                seen[0] = int(m[-1][0])
                if seen[0] >= at_least:
                    reached.set()

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    if not reached.wait(timeout=300):
        proc.kill()
        pytest.fail(f"the ingest never reached {at_least} records (last seen {seen[0]})")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    t.join(timeout=5)
    return seen[0]


@pytest.mark.slow
def test_killed_ingest_resumes_without_redoing_batches(tmp_path: Path) -> None:
    src = tmp_path / "synthetic.jsonl"
    _write_records(src, N_RECORDS)
    data = tmp_path / "store"

    done_before_kill = _kill_midway(data, src, at_least=4 * BATCH)
    assert done_before_kill < N_RECORDS, "the ingest finished before it could be killed; use more records"
    partial = _stats(data)
    assert 0 < partial["records"] <= N_RECORDS  # committed batches survived the kill
    assert partial["papers"] == partial["dense_coverage"]["embedded"] < N_RECORDS

    again = _ingest(data, src)  # the write lock of the killed process is stale and must not block
    assert again.returncode == 0, again.stderr[-2000:]
    added, updated, _dup, unchanged, repeated = map(int, _SUMMARY.search(again.stdout).groups())
    assert unchanged == partial["records"] > 0  # stored records skipped by their content hash
    assert added + updated + unchanged == N_RECORDS and repeated == 0 and updated == 0
    assert added == N_RECORDS - partial["records"]  # only what was never stored is stored again

    resumed = _stats(data)
    clean_dir = tmp_path / "clean"
    clean = _ingest(clean_dir, src)
    assert clean.returncode == 0, clean.stderr[-2000:]
    reference = _stats(clean_dir)
    assert resumed["papers"] == reference["papers"] == N_RECORDS  # no duplicates, nothing lost
    assert resumed["chunks"] == reference["chunks"] and resumed["pending"] == 0

    third = _ingest(data, src)  # and a third run changes nothing
    assert _SUMMARY.search(third.stdout).group(4) == str(N_RECORDS)
