"""An embedding server on the same machine against the local ONNX embedder, and the client's own overhead.

Over exactly the texts `Index.add` embeds for the first N arXiv abstracts (each chunk with its title):

* `local`  - the default backend: int8 ONNX Runtime in this process (`embedding.backend=onnx`).
* `server` - `embedding.backend=openai` against Infinity (its own venv, `make embed-server`) serving the
  bundled MiniLM (torch fp32, its default engine) on 127.0.0.1, on the same two cores.
  The two run slice by slice in turn (the shared machine's load falls on both alike).
* `client overhead` - the same client against a stub server in its own process that answers every text
  with one precomputed vector (`tests/openai_stub.py --instant`): no model compute, so the time per batch
  is the client's work (JSON out, JSON in, checks, normalising) plus loopback HTTP. Reported per batch as
  wall ms and this process's CPU ms, with one request in flight and with `embedding.concurrency`.

    .venv/bin/python bench/embed_server.py --n 500    # -> bench/results/embed_server.json
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, ROOT, Timing, bar, machine_info, offline, settings_for, timed, write_json
from bench.embed_throughput import arxiv_records, chunk_texts

sys.path.insert(0, str(ROOT / "tests"))


def _server_cpu(pid: int) -> float:
    import psutil

    p = psutil.Process(pid)
    procs = [p, *p.children(recursive=True)]
    return sum(x.cpu_times().user + x.cpu_times().system for x in procs)


def compare(texts: list[str], batch: int, concurrency: int, slice_size: int) -> dict:
    from servers import infinity_process

    from assistant.index.embedder import get_embedder

    tmp = Path(tempfile.mkdtemp())
    local = get_embedder(settings_for(tmp, "onnx").embedding)
    out: dict = {}
    with infinity_process(log=tmp / "infinity.log", batch_size=batch) as (url, proc):
        s = settings_for(tmp, "openai", **{"embedding.server_url": url, "embedding.server_model": "all-MiniLM-L6-v2",
                                           "embedding.batch_size": batch, "embedding.concurrency": concurrency})
        remote = get_embedder(s.embedding)
        pid = proc.pid
        warm = texts[:16]
        local.embed_documents(warm)
        remote.embed_documents(warm)
        times = {"local": Timing(), "server": Timing()}
        server_cpu, vecs = 0.0, {"local": [], "server": []}
        slices = [texts[lo : lo + slice_size] for lo in range(0, len(texts), slice_size)]
        with bar(len(texts), "local vs server", unit="text") as b:
            for i, part in enumerate(slices):
                for name in (("local", "server") if i % 2 == 0 else ("server", "local")):
                    c0 = _server_cpu(pid) if name == "server" else 0.0
                    with timed(times[name]):
                        v = (local if name == "local" else remote).embed_documents(part)
                    if name == "server":
                        server_cpu += _server_cpu(pid) - c0
                    vecs[name].append(v)
                b.update(len(part))
    import numpy as np

    cos = (np.concatenate(vecs["local"]) * np.concatenate(vecs["server"])).sum(axis=1)
    for name, t in times.items():
        out[name] = {**t.as_dict(), "texts_per_s": round(len(texts) / t.wall_s, 1)}
    out["server"]["embedder"], out["local"]["embedder"] = remote.name, local.name
    out["server"]["server_process_cpu_s"] = round(server_cpu, 2)
    out["throughput_ratio_server_vs_local"] = round(times["local"].wall_s / times["server"].wall_s, 3)
    out["cosine_server_vs_local"] = {"mean": round(float(cos.mean()), 4), "min": round(float(cos.min()), 4)}
    return out


def client_overhead(texts: list[str], batch: int, concurrency: int) -> dict:
    from servers import free_port

    from assistant.index.embedder import OpenAIEmbedder, local_token_counter
    from assistant.settings import load_settings

    port = free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "openai_stub.py"), "--port", str(port),
                             "--dim", "384", "--instant"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out: dict = {}
    try:
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.time() + 30
        while True:  # the stub answers POST only: wait for its port
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        for conc in sorted({1, concurrency}):
            s = load_settings(None, {"embedding.backend": "openai", "embedding.server_url": url,
                                     "embedding.server_model": "stub", "embedding.batch_size": batch,
                                     "embedding.concurrency": conc}, env={})
            emb = OpenAIEmbedder(s.embedding, local_token_counter(s.embedding.model))
            emb.embed_documents(texts[: batch * 2])  # warm: connections, imports
            t = Timing()
            n0 = emb.requests
            with timed(t):
                emb.embed_documents(texts)
            batches = emb.requests - n0
            out[f"concurrency_{conc}"] = {"batches": batches, "batch_size": batch, **t.as_dict(),
                                          "wall_ms_per_batch": round(1000 * t.wall_s / batches, 2),
                                          "client_cpu_ms_per_batch": round(1000 * t.cpu_s / batches, 2),
                                          "texts_per_s": round(len(texts) / t.wall_s, 1)}
            emb.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500, help="arXiv abstracts (their chunks are embedded).")
    ap.add_argument("--batch", type=int, default=64, help="Texts per request / per local batch.")
    ap.add_argument("--concurrency", type=int, default=4, help="Requests in flight.")
    ap.add_argument("--slice", type=int, default=256, help="Texts per turn of the interleaving.")
    ap.add_argument("--out", type=Path, default=RESULTS / "embed_server.json")
    args = ap.parse_args(argv)
    offline()
    from assistant.index.indexer import Index

    records = arxiv_records(args.n)
    texts = chunk_texts(Index(settings_for(Path(tempfile.mkdtemp()), "onnx")), records)
    result = {"machine": machine_info(), "n_abstracts": len(records), "n_texts": len(texts), "batch": args.batch,
              "concurrency": args.concurrency,
              "server": "infinity-emb 0.0.78, engine torch (fp32), same 2 cores, 127.0.0.1",
              "compare": compare(texts, args.batch, args.concurrency, args.slice),
              "client_overhead": client_overhead(texts, args.batch, args.concurrency)}
    write_json(args.out, result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
