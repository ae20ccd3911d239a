"""Answer latency with the bundled local model (SmolLM2-135M): cold start, first token, total.

The bundled corpus (data/corpus.jsonl) is ingested into a temp data directory first (not timed).
* cold start: a fresh `python` process that imports the package, opens the index, loads the models
  and answers one question; timed from spawn to the answer being ready (printed by the child). Twice,
  with a model cache of its own: the first run on a machine (de-quantizes the GGUF and caches the
  copy) and every later start (reads the copy).
* warm: in this process, `Assistant.stream` over ~10 factoid questions of eval/questions.jsonl:
  first token (the assistant's own `first_token_s`: retrieval + model call to its first token; and
  `first_token_wall_s`: from the question to the first streamed token, all steps included), total,
  retrieval, tokens generated, and the prompt size in model tokens (system + user message).

    .venv/bin/python bench/answer_latency.py [--questions 10] [--backend onnx]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, bar, offline, percentile, settings_for

QUESTIONS = ROOT / "eval" / "questions.jsonl"


def questions(n: int) -> list[str]:
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    factoid = [r["question"] for r in rows if r.get("kind") == "factoid"]
    return (factoid or [r["question"] for r in rows])[:n]


def ingest_bundled(data_dir: Path, backend: str) -> dict:
    from assistant.index.indexer import Index
    from assistant.pipeline import ingest_paths
    from assistant.settings import BUNDLED_CORPUS

    t = time.perf_counter()
    index = Index(settings_for(data_dir, backend))
    report = ingest_paths(index, [BUNDLED_CORPUS])
    return {"papers": index.store.count()[0], "added": report.added, "ingest_s": round(time.perf_counter() - t, 1)}


def _child(data_dir: str, backend: str, question: str, spawned: float) -> int:
    """Runs in the fresh process: everything from imports to the first answer."""
    t_import = time.time()
    from assistant.answer.assistant import Assistant

    settings = settings_for(Path(data_dir), backend, **{"answer.model": "local"})
    a = Assistant(settings)
    t_ready = time.time()
    ans = a.ask(question)
    done = time.time()
    print(json.dumps({"cold_start_s": round(done - spawned, 2), "interpreter_s": round(t_import - spawned, 2),
                      "setup_s": round(t_ready - t_import, 2), "first_answer_s": round(done - t_ready, 2),
                      "timings": ans.timings, "kind": ans.kind}))
    return 0


def cold_start(data_dir: Path, backend: str, question: str, model_cache: Path | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if model_cache is not None:
        env["PAPERCHAT_MODEL_CACHE"] = str(model_cache)
    code = ("import sys, time; spawned=float(sys.argv[1]); from bench.answer_latency import _child; "
            "sys.exit(_child(sys.argv[2], sys.argv[3], sys.argv[4], spawned))")
    spawned = time.time()
    p = subprocess.run([sys.executable, "-c", code, repr(spawned), str(data_dir), backend, question],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    if p.returncode != 0:
        return {"error": p.stderr[-2000:]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def warm(data_dir: Path, backend: str, qs: list[str]) -> dict:
    from assistant.answer.assistant import Assistant
    from assistant.answer.events import Done, Token

    settings = settings_for(data_dir, backend, **{"answer.model": "local"})
    a = Assistant(settings)
    chat = a.model()
    prompt_tokens: list[int] = []
    orig_stream = chat.stream

    def stream(messages, *args, **kw):
        prompt_tokens.append(sum(chat.count_tokens(m["content"]) for m in messages))
        return orig_stream(messages, *args, **kw)

    chat.stream = stream
    a.ask(qs[0])  # warm-up: model weights, kernels, caches (not counted)
    rows = []
    for q in _each(qs, f"answers ({backend})"):
        n_tok, t0, first = 0, time.perf_counter(), None
        before = len(prompt_tokens)
        for ev in a.stream(q):
            if isinstance(ev, Token):
                n_tok += 1
                if first is None:
                    first = time.perf_counter() - t0
            elif isinstance(ev, Done):
                ans = ev.answer
        rows.append({"question": q[:80], "kind": ans.kind, "first_token_s": ans.timings.get("first_token_s"),
                     "first_token_wall_s": round(first, 3) if first is not None else None,
                     "total_s": round(time.perf_counter() - t0, 3), "retrieval_s": ans.timings.get("retrieval_s"),
                     "stream_pieces": n_tok, "generated": len(prompt_tokens) > before,
                     "prompt_tokens": prompt_tokens[-1] if len(prompt_tokens) > before else None})
    gen = [r for r in rows if r["generated"]] or rows
    ft = [r["first_token_s"] for r in gen if r["first_token_s"] is not None]
    fw = [r["first_token_wall_s"] for r in gen if r["first_token_wall_s"] is not None]
    tot = [r["total_s"] for r in rows]
    pt = [r["prompt_tokens"] for r in gen if r["prompt_tokens"]]
    return {
        "questions": len(rows), "generated_answers": sum(r["generated"] for r in rows),
        "first_token_p50_s": round(percentile(ft, 50), 3) if ft else None,
        "first_token_max_s": round(max(ft), 3) if ft else None,
        # as the user sees it: from the question to the first streamed token (evidence, prompt, prefill)
        "first_token_wall_p50_s": round(percentile(fw, 50), 3) if fw else None,
        "first_token_wall_max_s": round(max(fw), 3) if fw else None,
        "total_p50_s": round(percentile(tot, 50), 3), "total_max_s": round(max(tot), 3),
        "retrieval_p50_s": round(percentile([r["retrieval_s"] or 0 for r in rows], 50), 3),
        "prompt_tokens_p50": percentile(pt, 50) if pt else None, "max_new_tokens": settings.answer.max_new_tokens,
        "sources": settings.answer.sources, "rows": rows,
    }


def _each(items, desc):
    with bar(len(items), desc, unit="question") as b:
        for x in items:
            yield x
            b.update(1)


def measure(n_questions: int = 10, backend: str = "onnx", data_dir: Path | None = None) -> dict:
    offline()
    qs = questions(n_questions + 1)
    tmp = None
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="pc-answer-")
        data_dir = Path(tmp.name)
    try:
        setup = ingest_bundled(data_dir, backend)
        # first run on a machine: the GGUF is de-quantized and cached; every later start reads the copy
        first = cold_start(data_dir, backend, qs[1], model_cache=data_dir / "model-cache")
        cold = cold_start(data_dir, backend, qs[1], model_cache=data_dir / "model-cache")
        w = warm(data_dir, backend, qs)
        return {"backend": backend, "corpus": setup, "cold_first_run": first, "cold": cold, "warm": w,
                "targets": {"first_token_lt_2s": (w["first_token_wall_p50_s"] or 99) < 2.0,
                            "total_p50_lt_8s": w["total_p50_s"] < 8.0,
                            "cold_start_lt_30s": cold.get("cold_start_s", 99) < 30.0}}
    finally:
        if tmp is not None:
            tmp.cleanup()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=10)
    ap.add_argument("--backend", default="onnx", choices=["torch", "onnx"])
    args = ap.parse_args(argv)
    print(json.dumps(measure(args.questions, args.backend), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
