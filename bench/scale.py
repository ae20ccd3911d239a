"""Index builds at scale: the first N arXiv abstracts (or all 74,728) through the normal ingest pipeline,
with the `scale` preset (250-token chunks without overlap: ~13% fewer embedded tokens than the default).

Each build has its own data directory under ~/.cache/paperchat-bench/ (kept, so a later run reuses it:
re-running an interrupted build resumes it, skipping the committed batches). Every run segment of a
build is appended to `bench-ingest.json` in that directory as it goes (after each batch), so a build
killed part-way and resumed reports its total time as the sum of its segments.

    .venv/bin/python bench/scale.py --n 74728 [--backend onnx] [--fresh]      # standalone
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    ARXIV_TOTAL,
    CACHE,
    SCALE_PRESET,
    arxiv_slice,
    bar,
    cores,
    cpu_seconds,
    dir_size,
    offline,
    settings_for,
    write_json,
)

LOG = "bench-ingest.json"


def data_dir_for(n: int, backend: str, overrides: dict | None = None) -> Path:
    """One directory per size and index (backend, model, chunking): a settings change builds afresh."""
    name = settings_for(CACHE, backend, SCALE_PRESET, **(overrides or {})).index_name()
    return CACHE / f"arxiv-{n}-{backend}-{name}"


def load_log(data_dir: Path) -> dict:
    try:
        return json.loads((data_dir / LOG).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"segments": []}


def build(n: int, backend: str = "onnx", data_dir: Path | None = None, fresh: bool = False,
          overrides: dict | None = None) -> dict:
    """Ingest the first `n` arXiv abstracts into `data_dir` (resuming what is there); figures as a dict."""
    from assistant.index.indexer import Index
    from assistant.pipeline import ingest_paths

    offline()
    n = min(n, ARXIV_TOTAL)
    data_dir = data_dir or data_dir_for(n, backend, overrides)
    if fresh and data_dir.exists():
        shutil.rmtree(data_dir)
    src = arxiv_slice(n)
    log = load_log(data_dir)
    settings = settings_for(data_dir, backend, SCALE_PRESET, **(overrides or {}))
    t_load = time.perf_counter()
    index = Index(settings)
    load_s = time.perf_counter() - t_load
    seg = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "wall_s": 0.0, "cpu_s": 0.0, "handled": 0,
           "complete": False, "model_load_s": round(load_s, 2)}
    log["segments"].append(seg)
    log.update(n=n, backend=backend, source=str(src), embedder=index.embedder.name)
    w0, c0 = time.perf_counter(), cpu_seconds()

    def tick(k: int) -> None:
        seg["handled"] += k
        seg["wall_s"], seg["cpu_s"] = round(time.perf_counter() - w0, 2), round(cpu_seconds() - c0, 2)
        write_json(data_dir / LOG, log)

    with bar(n, f"ingest {n} ({backend})") as b:
        def progress(k: int) -> None:
            b.update(k)
            tick(k)

        report = ingest_paths(index, [src], progress=progress)
    tick(0)  # includes the BM25 rebuild at the end
    seg.update(complete=True, added=report.added, updated=report.updated, unchanged=report.unchanged,
               chunks=report.chunks, skipped=report.skipped, duplicates=report.duplicates)
    write_json(data_dir / LOG, log)
    papers, chunks = index.store.count()
    size = dir_size(data_dir)
    total_wall = sum(s["wall_s"] for s in log["segments"])
    total_cpu = sum(s["cpu_s"] for s in log["segments"])
    embedded = sum(s.get("added", s["handled"]) for s in log["segments"])
    return {
        "n": n, "backend": backend, "embedder": index.embedder.name, "data_dir": str(data_dir),
        "papers": papers, "chunks": chunks, "segments": len(log["segments"]),
        "this_run": {"wall_s": seg["wall_s"], "cpu_s": seg["cpu_s"], "added": report.added,
                     "unchanged": report.unchanged},
        "total_wall_s": round(total_wall, 1), "total_cpu_s": round(total_cpu, 1),
        "abstracts_per_s": round(n / total_wall, 2) if total_wall and embedded else None,
        "idle_machine_estimate_s": round(total_cpu / cores(), 1),
        "disk_bytes": size, "disk_mb_per_1k_abstracts": round(size / 2**20 / (papers / 1000), 2) if papers else None,
        "under_30_min": total_wall < 1800,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=ARXIV_TOTAL)
    ap.add_argument("--backend", default="onnx", choices=["torch", "onnx"])
    ap.add_argument("--data-dir", type=Path)
    ap.add_argument("--fresh", action="store_true", help="Delete the build's data directory first.")
    args = ap.parse_args(argv)
    print(json.dumps(build(args.n, args.backend, args.data_dir, args.fresh), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
