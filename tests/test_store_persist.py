"""RELIABILITY #12 (clean shutdown with fewer writes than Chroma's sync threshold, then restart) and #15
(every write checked from an independent process against what was written). The checks run in a fresh
Python process (tests/store_check.py): count, id set, text and metadata, `get`, `query` and recall@5."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow

WORDS = ["quorum", "biofilm", "lattice", "phonon", "glacier", "monsoon", "enzyme", "spindle", "tensor", "lichen",
         "plasma", "rotor", "isotope", "caldera", "estuary", "myelin", "pulsar", "aquifer", "boson", "dune"]


def manifest(path: Path, n: int) -> Path:
    """n abstracts, each with its own pair of words (so a sentence of it finds it), year and authors."""
    rows = []
    for i in range(n):
        a, b = WORDS[i % len(WORDS)], f"{WORDS[(i * 7 + 3) % len(WORDS)]}{i}x"
        rows.append({"id": f"p-{i:03d}", "title": f"On {a} and {b}",
                     "abstract": f"We measure {b} in {a} samples collected over {i + 2} seasons. "
                                 f"The {b} signal decays slowly. Our method needs no labels.",
                     "year": 2000 + i % 25, "authors": [f"Author {i}", "Second Author"]})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def env(data: Path) -> dict[str, str]:
    return {**os.environ, "PAPERCHAT_PRESET": "debug", "PAPERCHAT_DATA_DIR": str(data), "PYTHONPATH": str(ROOT),
            "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}


def fresh_check(data: Path, man: Path) -> dict:
    p = subprocess.run([sys.executable, str(ROOT / "tests" / "store_check.py"), str(data), str(man)], env=env(data),
                       capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def assert_whole(res: dict, n: int) -> None:
    assert (res["manifest"], res["records"], res["papers_get"], res["query_first"]) == (n, n, n, n), res
    assert not (res["missing"] or res["extra"] or res["differ"] or res["documents_differ"]), res
    assert res["recall"] == 1.0, res


WRITER = """
import signal, sys, time
# Ctrl+C as in a terminal: a shell starts background jobs with SIGINT ignored, and that is inherited
signal.signal(signal.SIGINT, signal.default_int_handler)
from pathlib import Path
from assistant.index.indexer import Index
from assistant.pipeline import ingest_paths
from assistant.settings import load_settings

data, src, threshold, wait = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "wait"
index = Index(load_settings("debug", {"store.data_dir": data}, env={}))
if threshold:  # widen the window: HNSW is synced to disk every `threshold` writes
    index.open_vectors()
    for col in (index.store.chunks, index.store.papers):
        col.modify(configuration={"hnsw": {"sync_threshold": threshold}})
report = ingest_paths(index, [Path(src)])
print("written", report.summary(), flush=True)
if wait:
    print("waiting", flush=True)
    time.sleep(300)  # until Ctrl+C (SIGINT)
"""


@pytest.mark.parametrize(("threshold", "stop"), [(0, "exit"), (10, "exit"), (10, "ctrl-c")])
def test_clean_shutdown_below_the_sync_threshold_keeps_every_write(tmp_path, threshold, stop, record_property):
    """#12: 25 records (with threshold 10: five never synced by count) survive a clean exit or Ctrl+C; a fresh
    process's `get` and `query` both find all of them."""
    data, man = tmp_path / "store", manifest(tmp_path / "m.jsonl", 25)
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(data), str(man), str(threshold),
                             "wait" if stop == "ctrl-c" else "exit"], env=env(data), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = proc.stdout.readline()
    assert line.startswith("written 25 added"), (line, proc.stderr.read() if proc.poll() is not None else "")
    if stop == "ctrl-c":  # pressed once the writer idles, as a user would (not while it prints)
        assert proc.stdout.readline().startswith("waiting")
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    res = fresh_check(data, man)
    record_property("chromadb", res["chromadb"])  # the version this ran against (RELIABILITY #12 asks for it)
    assert_whole(res, 25)


def _digest(paths: list[Path]) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


def test_every_write_checked_from_an_independent_process(tmp_path):
    """#15: after `paperchat ingest`, a separate process verifies count, ids, text, metadata, get/query and
    recall@5 of 20 questions against the manifest -- and changes nothing but Chroma's own files."""
    data, man = tmp_path / "store", manifest(tmp_path / "m.jsonl", 30)
    p = subprocess.run([sys.executable, "-m", "assistant.cli", "ingest", "--quiet", str(man)], env=env(data),
                       capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)
    assert p.returncode == 0, p.stderr
    ours = [data / "records.sqlite3", *sorted((data / "lexical").rglob("*"))]
    before = _digest(ours)
    res = fresh_check(data, man)
    assert_whole(res, 30)
    assert res["questions"] == 20
    assert _digest(ours) == before  # the check wrote nothing
