"""Shared helpers of the benchmarks: machine info, arXiv slices, timers (wall + CPU), percentiles, bars.

Every timed step records wall seconds *and* process CPU seconds: the machine is shared and busy, so
wall time depends on the neighbours while CPU time (the work done) mostly does not. `cpu_s / cores`
is what the wall time would be on an idle machine if the step kept every core busy.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import os
import platform
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
ARXIV = SHARED / "arxiv" / "arxiv_cs_abstracts_2025-2026.jsonl.gz"
ARXIV_TOTAL = 74728
SCIFACT = SHARED / "scifact"
CACHE = Path(os.environ.get("PAPERCHAT_BENCH_CACHE") or Path.home() / ".cache" / "paperchat-bench")
RESULTS = ROOT / "bench" / "results"

if str(ROOT) not in sys.path:  # `python bench/run.py` from the project root
    sys.path.insert(0, str(ROOT))


def offline() -> None:
    for k, v in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
                 "TOKENIZERS_PARALLELISM": "false"}.items():
        os.environ.setdefault(k, v)


def machine_info() -> dict:
    import psutil

    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor()
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        cores = os.cpu_count() or 1
    flags = ""
    try:
        text = Path("/proc/cpuinfo").read_text()
        fl = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
        flags = " ".join(f for f in ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8") if f" {f}" in fl)
    except OSError:
        pass
    vers = {}
    for pkg in ("torch", "onnxruntime", "sentence-transformers", "chromadb", "bm25s", "transformers", "onnx"):
        try:
            from importlib.metadata import version

            vers[pkg] = version(pkg)
        except Exception:  # noqa: BLE001 - not installed
            vers[pkg] = None
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "cpu_count": cores, "cpu_model": model, "cpu_flags": flags,
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1), "python": platform.python_version(),
        "load_avg_at_start": [round(x, 2) for x in os.getloadavg()], "packages": vers,
    }


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (all threads) so far."""
    t = os.times()
    return t.user + t.system


@dataclass
class Timing:
    wall_s: float = 0.0
    cpu_s: float = 0.0
    load: list[float] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"wall_s": round(self.wall_s, 3), "cpu_s": round(self.cpu_s, 3),
                "load_avg": round(sum(self.load) / len(self.load), 2) if self.load else None}


@contextmanager
def timed(acc: Timing | None = None) -> Iterator[Timing]:
    """Add the block's wall and CPU time to `acc` (a new Timing when None)."""
    acc = acc if acc is not None else Timing()
    w, c = time.perf_counter(), cpu_seconds()
    try:
        yield acc
    finally:
        acc.wall_s += time.perf_counter() - w
        acc.cpu_s += cpu_seconds() - c
        acc.load.append(os.getloadavg()[0])


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    v = sorted(values)
    k = max(0, min(len(v) - 1, round(p / 100 * len(v) + 0.5) - 1))
    return v[k]


def summary_ms(values_s: list[float]) -> dict:
    ms = [1000 * x for x in values_s]
    return {"n": len(ms), "p50_ms": round(percentile(ms, 50), 2), "p95_ms": round(percentile(ms, 95), 2),
            "mean_ms": round(sum(ms) / len(ms), 2), "max_ms": round(max(ms), 2)}


def bar(total: int | None, desc: str, unit: str = "abstract"):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True, smoothing=0.1)


def arxiv_slice(n: int | None, source: Path = ARXIV) -> Path:
    """The first `n` records of the arXiv file as their own .jsonl.gz (streamed, made once); None = all."""
    if n is None or n >= ARXIV_TOTAL:
        return source
    out = CACHE / "slices" / f"arxiv-first{n}.jsonl.gz"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    with gzip.open(source, "rb") as f, gzip.open(tmp, "wb", compresslevel=1) as o:
        for line in itertools.islice(f, n):
            o.write(line)
    os.replace(tmp, out)
    return out


def arxiv_titles(n: int, skip: int = 0, source: Path = ARXIV) -> list[str]:
    """`n` titles (queries) from the arXiv file, every 37th record from `skip` (spread over the file)."""
    out: list[str] = []
    with gzip.open(source, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i >= skip and (i - skip) % 37 == 0:
                t = json.loads(line).get("title", "").strip()
                if t:
                    out.append(t)
                if len(out) >= n:
                    break
    return out


def dir_size(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):  # removed meanwhile
                total += os.path.getsize(os.path.join(root, f))
    return total


def settings_for(data_dir: Path, backend: str = "onnx", preset: str | None = None, **overrides):
    from assistant.settings import load_settings

    return load_settings(preset, {"store.data_dir": str(data_dir), "embedding.backend": backend, **overrides}, env={})


SCALE_PRESET = "scale"  # the arXiv index builds (1k/10k/75k): 250-token chunks, no overlap


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)
