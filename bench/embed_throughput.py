"""Embedding + indexing throughput: the optimised pipeline against a plain encode loop, interleaved.

Three contenders over the same first N arXiv abstracts, run slice by slice in turn (so the background
load of a shared machine falls on all three alike):

* `plain`  - `SentenceTransformer(path).encode(texts, batch_size=32)`, fp32, in input order, over
  exactly the texts the index embeds (each chunk with its title prefix). Embedding only, no store.
* `plain_abstracts` - the same call over one text per abstract ("title. abstract", which the model
  truncates at its 256-token window: 65% of these arXiv abstracts are longer). The literal reading of
  "a plain encode loop over the same abstracts"; it embeds fewer tokens than the index does.
* `before` - the full pipeline (`Index.add`: chunking, embedding, near-duplicate check, Chroma writes)
  with `embedding.backend=torch` (fp32, length-sorted batches).
* `after`  - the same pipeline with `embedding.backend=onnx` (int8 ONNX Runtime, fused, two workers).

The BM25 build runs once per contender at the end (it is counted in `before`/`after`). Rates are
abstracts per second; `ratio_after_vs_plain` is the issue's target (>= 2).

    .venv/bin/python bench/embed_throughput.py --n 1000
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import CACHE, Timing, arxiv_slice, bar, offline, settings_for, timed


def arxiv_records(n: int):
    from assistant.ingest import read_source
    from assistant.types import Record

    return [r for r in itertools.islice(read_source(arxiv_slice(n)), n) if isinstance(r, Record)]


def chunk_texts(index, records) -> list[str]:
    """Exactly the texts `Index.add` embeds for these records."""
    return [index._embed_text(r, ch) for r in records for ch in index.chunk(r)]


def measure(n: int = 1000, slice_size: int = 256, batch: int = 64,
            contenders=("plain", "plain_abstracts", "before", "after"), keep_after: Path | None = None) -> dict:
    """Interleaved throughput of the contenders over the first `n` arXiv abstracts."""
    offline()
    from sentence_transformers import SentenceTransformer

    from assistant.index.embedder import minilm_path
    from assistant.index.indexer import Index

    records = arxiv_records(n)
    dirs = {name: CACHE / "throughput" / name for name in ("before", "after")}
    if keep_after is not None:
        dirs["after"] = keep_after
    for d in dirs.values():
        shutil.rmtree(d, ignore_errors=True)
    indexes, load = {}, {}
    for name, backend in (("before", "torch"), ("after", "onnx")):
        if name in contenders:
            t = time.perf_counter()
            indexes[name] = Index(settings_for(dirs[name], backend, **{"store.add_batch": min(batch, slice_size)}))
            load[name] = round(time.perf_counter() - t, 2)
            indexes[name].refresh_lexical = lambda force=False: None  # once at the end, timed below
    plain = None
    if "plain" in contenders or "plain_abstracts" in contenders:
        t = time.perf_counter()
        plain = SentenceTransformer(str(minilm_path()), device="cpu")
        load["plain"] = round(time.perf_counter() - t, 2)
    ref = indexes.get("after") or indexes.get("before")
    texts_per_slice = ([chunk_texts(ref, records[lo : lo + slice_size]) for lo in range(0, len(records), slice_size)]
                       if plain else [])
    whole_per_slice = [[f"{r.title}. {r.text}" if r.title else r.text for r in records[lo : lo + slice_size]]
                       for lo in range(0, len(records), slice_size)]
    # warm-up outside the clock (first-call allocations, lazy imports)
    warm = [f"{r.title}. {r.text}" for r in records[:8]]
    if plain is not None:
        plain.encode(warm, batch_size=32)
    for ix in indexes.values():
        ix.embedder.embed_documents(warm)
    times = {name: Timing() for name in contenders}
    chunks = dict.fromkeys(contenders, 0)
    with bar(len(records), f"throughput {n} ({'/'.join(contenders)})") as b:
        for si, lo in enumerate(range(0, len(records), slice_size)):
            part = records[lo : lo + slice_size]
            order = list(contenders[si % len(contenders):]) + list(contenders[: si % len(contenders)])  # rotate
            for name in order:
                with timed(times[name]):
                    if name == "plain":
                        plain.encode(texts_per_slice[si], batch_size=32)
                        chunks[name] += len(texts_per_slice[si])
                    elif name == "plain_abstracts":
                        plain.encode(whole_per_slice[si], batch_size=32)
                        chunks[name] += len(whole_per_slice[si])
                    else:
                        s = indexes[name].add(part)
                        chunks[name] += s.chunks.chunks
            b.update(len(part))
    for name, ix in indexes.items():
        del ix.refresh_lexical  # the class method again
        with timed(times[name]):
            ix.refresh_lexical(force=True)
    out: dict = {"n": len(records), "slice": slice_size, "add_batch": min(batch, slice_size), "model_load_s": load,
                 "contenders": {}}
    for name in contenders:
        t = times[name]
        out["contenders"][name] = {**t.as_dict(), "chunks": chunks[name],
                                   "abstracts_per_s": round(len(records) / t.wall_s, 2),
                                   "abstracts_per_cpu_s": round(len(records) / t.cpu_s, 2) if t.cpu_s else None}
        if name in indexes:
            out["contenders"][name]["embedder"] = indexes[name].embedder.name
    c = out["contenders"]
    if "plain" in c:
        for name in ("before", "after"):
            if name in c:
                out[f"ratio_{name}_vs_plain"] = round(c["plain"]["wall_s"] / c[name]["wall_s"], 2)
                out[f"cpu_ratio_{name}_vs_plain"] = round(c["plain"]["cpu_s"] / c[name]["cpu_s"], 2)
    if "plain_abstracts" in c and "after" in c:
        out["ratio_after_vs_plain_abstracts"] = round(c["plain_abstracts"]["wall_s"] / c["after"]["wall_s"], 2)
        out["cpu_ratio_after_vs_plain_abstracts"] = round(c["plain_abstracts"]["cpu_s"] / c["after"]["cpu_s"], 2)
    if "before" in c and "after" in c:
        out["ratio_after_vs_before"] = round(c["before"]["wall_s"] / c["after"]["wall_s"], 2)
    out["target_met"] = out.get("ratio_after_vs_plain", 0) >= 2.0
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--slice", type=int, default=256, help="Abstracts per turn of the rotation.")
    ap.add_argument("--batch", type=int, default=64, help="store.add_batch of the pipelines (write batches "
                    "overlap the next batch's embedding within one Index.add call, as in a real ingest).")
    args = ap.parse_args(argv)
    print(json.dumps(measure(args.n, args.slice, args.batch), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
