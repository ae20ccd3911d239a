"""N concurrent gradio_client sessions against the launched UI (extractive model, default queue).

Each session asks about its own made-up method (a unique word: the session's canary, found in one
abstract only), then a follow-up that only its own history can resolve. Counted: errors (any exception,
"queue is full" included), leaks (another session's canary in a session's rewritten follow-up query),
follow-ups resolved to the right paper and dataset, answers citing the session's paper first, and
p50/p95 latency per turn. Writes
bench/results/ui_sessions.json.

    python bench/ui_sessions.py [--sessions 50] [--queue-size 16]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))


def _word(rng: random.Random, n: int = 8) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz") + rng.choice("aeiou") for _ in range(n // 2))


TOPICS = [
    ("compresses sparse graph signals with learned filters", "accuracy"),
    ("denoises underwater sonar images with a diffusion prior", "PSNR"),
    ("schedules cluster jobs with a learned cost model", "makespan"),
    ("translates legal contracts between languages", "BLEU"),
    ("detects fraud in card payments from transaction graphs", "recall"),
    ("forecasts river floods from satellite rainfall maps", "error"),
    ("plans robot grasps for deformable objects", "success rate"),
    ("compresses language models by pruning attention heads", "perplexity"),
    ("segments tumours in MRI scans with few labels", "Dice score"),
    ("summarises meeting transcripts with speaker turns", "ROUGE"),
]


def corpus(n: int, seed: int = 13):
    """One made-up paper per session: a unique method name (its canary) and a unique dataset."""
    from assistant.types import Record

    rng = random.Random(seed)
    people = []
    for i in range(n):
        method, data = _word(rng).capitalize(), _word(rng).capitalize() + "Set"
        what, metric = TOPICS[i % len(TOPICS)]
        rec = Record(f"s-{i}", f"{method} is a method that {what}. {method} was evaluated on the {data} dataset, "
                     f"where {method} improves {metric} over strong baselines.", title=f"{method}: a new method")
        people.append({"method": method, "data": data, "record": rec, "id": f"s-{i}"})
    return people


def storm(url: str, people: list[dict], turns_out: dict) -> dict:
    from gradio_client import Client

    lat: list[float] = []
    errors: list[str] = []
    outputs: dict[int, list[str]] = {}
    barrier = threading.Barrier(len(people))
    lock = threading.Lock()

    def session(i: int, p: dict) -> None:
        try:
            c = Client(url, verbose=False, download_files=False)
            barrier.wait(timeout=120)  # every session asks at the same moment
            outs = []
            for q in (f"What does {p['method']} do?", "Which dataset was it evaluated on?"):
                t = time.perf_counter()
                outs.append(c.predict(q, api_name="/ask"))
                with lock:
                    lat.append(time.perf_counter() - t)
            outputs[i] = outs
        except Exception as e:  # noqa: BLE001 - every failure is counted
            with lock:
                errors.append(f"{type(e).__name__}: {e}"[:200])

    threads = [threading.Thread(target=session, args=(i, p)) for i, p in enumerate(people)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=900)
    wall = time.perf_counter() - t0
    leaks, resolved, own_first = 0, 0, 0
    for i, outs in outputs.items():
        me = people[i]
        searched = outs[1].split("_Searched for:_", 1)[1].split("\n", 1)[0] if "_Searched for:_" in outs[1] else ""
        # another session's method in this session's rewritten follow-up = history crossed sessions
        leaks += sum(1 for j, q in enumerate(people) if j != i and q["method"] in searched)
        resolved += me["method"] in searched and me["data"] in outs[1]
        own_first += all(f"[1] {me['method']}" in o for o in outs)
    lat.sort()
    return {"sessions": len(people), "turns": len(lat), "errors": len(errors),
            "queue_full": sum("queue" in e.lower() for e in errors), "error_samples": errors[:3], "leaks": leaks,
            "followups_resolved": resolved, "own_paper_cited_first": own_first,
            "p50_s": round(statistics.median(lat), 2) if lat else None,
            "p95_s": round(lat[int(0.95 * (len(lat) - 1))], 2) if lat else None, "wall_s": round(wall, 1)}


def run(n: int, tmp: Path, queue_size: int | None = None) -> dict:
    from conftest import PAPERS
    from ui_helpers import make_settings, running

    from assistant.answer.assistant import Assistant
    from ui.app import build_app

    people = corpus(n)
    extra = {"ui.queue_size": queue_size} if queue_size else {}
    settings = make_settings(tmp, **{"answer.model": "extractive", **extra})
    a = Assistant(settings)
    a.index.add(list(PAPERS) + [p["record"] for p in people])
    app = build_app(a, settings, env={})
    with running(app, settings) as url:
        return {"queue_size": settings.ui.queue_size, **storm(url, people, {})}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--queue-size", type=int, help="Override ui.queue_size (the old default was 16).")
    args = ap.parse_args()
    from bench.common import offline

    offline()
    with tempfile.TemporaryDirectory(prefix="paperchat-ui-") as tmp:
        res = run(args.sessions, Path(tmp), args.queue_size)
    print(json.dumps(res, indent=2))
    out = ROOT / "bench" / "results" / "ui_sessions.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
