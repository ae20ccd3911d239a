"""`onnx` backend (the default): the bundled weights exported locally with `torch.onnx` (needs the `onnx`
package once, at export), int8 dynamically quantised per channel with ONNX Runtime's quantiser, and run by
ONNX Runtime with the Rust tokenizer and numpy mean pooling.

The export is cached under `$XDG_CACHE_HOME/paperchat/onnx/` (or `~/.cache/...`), keyed by the weights and
library versions, so it happens once per machine (~10 s). On the 2-core AVX2 box: the encoder alone 1.77x a
plain fp32 `encode`; ingest ~1.7x the torch pipeline; query embedding ~5 ms; cosine to the fp32 vectors
~0.994 on abstracts, SciFact nDCG@10 within 0.005 (bench/README.md). The vectors differ, so the name differs
(`all-MiniLM-L6-v2+onnx-int8`) and the store's model guard keeps the two kinds of index apart.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import ModelError
from ...settings import EmbeddingSettings
from .base import LRU, Progress, TokenCounter, cpu_threads, plain_tokenizer

ONNX_SUFFIX = "+onnx-int8"
ONNX_FORMAT = 2  # bump when the export or quantisation recipe changes (invalidates cached files)


def onnx_cache_dir() -> Path:
    """Where exported models are kept: $PAPERCHAT_ONNX_CACHE, else $XDG_CACHE_HOME/paperchat/onnx."""
    if os.environ.get("PAPERCHAT_ONNX_CACHE"):
        return Path(os.environ["PAPERCHAT_ONNX_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "paperchat" / "onnx"


def _pooling(path: Path) -> str:
    """'mean' or 'cls' from the sentence-transformers pooling config (mean when there is none)."""
    try:
        modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "mean"
    for m in modules:
        if m.get("type", "").endswith("Pooling"):
            try:
                cfg = json.loads((path / m.get("path", "") / "config.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return "mean"
            if cfg.get("pooling_mode_cls_token"):
                return "cls"
            if cfg.get("pooling_mode_mean_tokens", True):
                return "mean"
            raise ModelError(f"The ONNX backend supports mean or CLS pooling only ({path}).",
                             hint="Use embedding.backend=torch for this model.")
    return "mean"


def _weights_key(path: Path) -> str:
    from importlib.metadata import version

    h = hashlib.sha256()
    for f in sorted(path.glob("*")):
        if f.is_file() and f.suffix in (".json", ".safetensors", ".bin", ".txt"):
            st = f.stat()
            h.update(f"{f.name}:{st.st_size}:{int(st.st_mtime)}".encode())
    h.update(f"{ONNX_FORMAT}:{version('torch')}:{version('onnxruntime')}:{version('transformers')}".encode())
    return h.hexdigest()[:16]


def export_int8(path: Path, out: Path) -> Path:
    """Export the transformer of `path` to ONNX, fuse it, and quantise its weights to int8 (per channel).

    1. `torch.onnx.export` (TorchScript exporter) of the BERT encoder with eager attention, so that
    2. ONNX Runtime's transformer optimiser can fuse attention, bias+GELU and skip+LayerNorm, then
    3. `quantize_dynamic` turns MatMul and fused Attention weights into int8 (activations are quantised
       per batch at run time). The embedding tables stay fp32 (cheap, and better vectors).
    Written to a temp dir beside `out` and renamed, so concurrent exporters never see half a file.
    A sidecar `export.json` records the fused operators.
    """
    try:
        import onnx  # noqa: F401 - torch.onnx and the quantiser both need it
    except ImportError as e:
        raise ModelError("The ONNX embedding backend needs the `onnx` package to export the model once.",
                         hint="pip install onnx==1.23.2 (or use embedding.backend=torch).") from e
    import logging
    import warnings

    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer
    from transformers import AutoConfig, AutoModel

    out.parent.mkdir(parents=True, exist_ok=True)
    config = AutoConfig.from_pretrained(str(path), local_files_only=True)
    model = AutoModel.from_pretrained(str(path), local_files_only=True, attn_implementation="eager").eval()

    class _Wrap(torch.nn.Module):
        def __init__(self, m) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.m(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones((2, 8), dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    root = logging.getLogger()
    level = root.level
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".export-") as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        root.setLevel(logging.ERROR)  # the optimiser and quantiser log advice at WARNING
        try:
            fp32, fused = Path(tmp) / "model.onnx", Path(tmp) / "model-fused.onnx"
            with torch.no_grad():
                torch.onnx.export(
                    _Wrap(model), (ids, ids, torch.zeros_like(ids)), str(fp32), input_names=names,
                    output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                    dynamic_axes={n: {0: "batch", 1: "seq"} for n in [*names, "last_hidden_state"]},
                )
            stats: dict = {}
            if getattr(config, "model_type", "") == "bert":
                opt = optimizer.optimize_model(str(fp32), model_type="bert", num_heads=config.num_attention_heads,
                                               hidden_size=config.hidden_size, opt_level=1)
                stats = {k: v for k, v in opt.get_fused_operator_statistics().items() if v}
                opt.save_model_to_file(str(fused))
                fp32 = fused
            q = Path(tmp) / "model-int8.onnx"
            quantize_dynamic(str(fp32), str(q), weight_type=QuantType.QInt8, per_channel=True,
                             op_types_to_quantize=["MatMul", "Attention"], extra_options={"DefaultTensorType": 1})
            (out.parent / "export.json").write_text(json.dumps({"fused": stats, "format": ONNX_FORMAT}),
                                                    encoding="utf-8")
            os.replace(q, out)
        finally:
            root.setLevel(level)
    return out


class OnnxEmbedder:
    """A sentence-transformers (BERT-style) model run by ONNX Runtime with int8 weights."""

    def __init__(self, path: Path, name: str, settings: EmbeddingSettings, threads: int | None = None) -> None:
        from ...runtime import go_offline

        go_offline()
        try:
            import onnxruntime as ort
        except ImportError as e:  # pragma: no cover - a declared dependency
            raise ModelError("onnxruntime is not installed.", hint="pip install onnxruntime") from e
        self.pooling = _pooling(path)
        self.max_seq = settings.max_seq_tokens
        model_file = onnx_cache_dir() / f"{path.name}-{_weights_key(path)}" / "model-int8.onnx"
        if not model_file.is_file():
            try:
                export_int8(path, model_file)
            except ModelError:
                raise
            except Exception as e:
                raise ModelError(f"Cannot export {path} to ONNX: {e}", hint="Use embedding.backend=torch.") from e
        # One single-threaded session run from `workers` Python threads on different batches (Run is
        # thread-safe and releases the GIL): no per-operator barrier between cores, which on a busy
        # 2-core machine measured ~25% faster than one run with two intra-op threads.
        self.workers = threads or cpu_threads()
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.enable_mem_pattern = False  # shapes vary per batch: patterns would only accumulate
        so.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(model_file), so, providers=["CPUExecutionProvider"])
        except Exception as e:  # a damaged cache file: re-export once
            model_file.unlink(missing_ok=True)
            raise ModelError(f"Cannot load the ONNX model {model_file}: {e}", hint="Run again to re-export it.") from e
        self.model_file = model_file
        self._inputs = {i.name for i in self.session.get_inputs()}
        tok = plain_tokenizer(path)
        if tok is None:
            raise ModelError(f"No tokenizer.json in {path}.", hint="Use embedding.backend=torch for this model.")
        self._counter = TokenCounter(tok)
        enc = plain_tokenizer(path)
        enc.enable_truncation(self.max_seq)
        self._enc = enc
        self._enc_lock = threading.Lock()
        self._pool = None
        self._pool_lock = threading.Lock()
        self.name = name
        self.dim = int(self._run([[101, 102]])[0].shape[0])
        self._cache = LRU(settings.query_cache)

    def count_tokens(self, text: str) -> int:
        return self._counter(text)

    def _tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        with self._enc_lock:
            return [e.ids for e in self._enc.encode_batch(list(texts))]

    def _run(self, ids: list[list[int]]) -> np.ndarray:
        n, width = len(ids), max(len(x) for x in ids)
        input_ids = np.zeros((n, width), dtype=np.int64)
        mask = np.zeros((n, width), dtype=np.int64)
        for i, x in enumerate(ids):
            input_ids[i, : len(x)] = x
            mask[i, : len(x)] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)}
        hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        if self.pooling == "cls":
            v = hidden[:, 0]
        else:
            m = mask[..., None].astype(np.float32)
            v = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
        return v.astype(np.float32)

    def embed_documents(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = self._tokenize(texts)
        # One text per run: the activations are quantised per run (one int8 scale for the whole batch), so in a
        # batch every vector would depend on the other texts (cosine 0.987 to the same text alone), and answers on
        # what was embedded before them. Alone is as fast here: no padding (bench/README.md, 2026-12-03).
        batches = [[i] for i in range(len(ids))]
        if self.workers > 1 and len(batches) > 1:
            results = self._executor().map(lambda idx: (idx, self._run([ids[i] for i in idx])), batches)
        else:
            results = ((idx, self._run([ids[i] for i in idx])) for idx in batches)
        for idx, vecs in results:
            out[idx] = vecs
            if progress:
                progress(len(idx))
        return out

    def _executor(self):
        from concurrent.futures import ThreadPoolExecutor

        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="embed")
            return self._pool

    def embed_query(self, text: str) -> np.ndarray:
        return self._cache.get(text, lambda: self._run(self._tokenize([text]))[0])
