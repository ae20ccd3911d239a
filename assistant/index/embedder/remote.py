"""`openai` backend: any OpenAI-compatible `/v1/embeddings` server (Infinity, Hugging Face TEI, vLLM, Ollama).

    POST {embedding.server_url}/embeddings  {"model": embedding.server_model, "input": [texts]}
    -> {"data": [{"index": i, "embedding": [floats]}, ...], "model": "..."}

Texts are length-sorted and sent in batches of `embedding.batch_size`, at most `embedding.concurrency`
requests in flight (a thread pool over one pooled HTTP client), each with `embedding.timeout_s`. A
timeout, a refused connection, 429 or 5xx, and a cut or malformed reply are retried `embedding.retries`
times with exponential backoff (honouring Retry-After); other 4xx and a vector of the wrong dimension
fail at once. Every reply is checked (one finite vector per text, the dimension of the first reply) and
the vectors are L2-normalised, so a bad reply is a `ModelError` with a hint, never a stored vector.

The name recorded in the collection is `openai:<server_model>` (plus `=<model>` when the server reports
another model name), and `embedding.server_model` is part of the index name: vectors of two models never
mix. Chunking counts tokens locally with the tokenizer of `embedding.model` (the bundled MiniLM's by
default, exact when the server serves MiniLM; for another model point `embedding.model` at a local
directory with its `tokenizer.json`, or use 'hash' for a whitespace count), so it never needs the server.
"""

from __future__ import annotations

import json
import math
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from urllib.parse import urlparse

import numpy as np

from ...errors import ConfigError, ModelError, ModelTimeoutError
from ...settings import EmbeddingSettings
from .base import LRU, Progress, normalise

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_BACKOFF_S = 30.0
PROBE = "dimension probe"


class _Retryable(Exception):
    """A failure worth another try; `after` is the server's Retry-After, if it sent one."""

    def __init__(self, message: str, after: float | None = None, timeout: bool = False) -> None:
        super().__init__(message)
        self.after, self.timeout = after, timeout


def check_url(url: str) -> str:
    u = urlparse(url.strip())
    if u.scheme not in ("http", "https") or not u.hostname:
        raise ConfigError(
            f"Bad embedding server URL '{url}'." if url.strip()
            else "embedding.backend=openai needs embedding.server_url.",
            hint="Set --set embedding.server_url=http://HOST:PORT (Infinity) "
                 "or http://HOST:PORT/v1 (TEI, vLLM, Ollama).",
        )
    return url.strip().rstrip("/")


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible server; token counts from a local tokenizer (`count_tokens`)."""

    def __init__(self, settings: EmbeddingSettings, count_tokens: Callable[[str], int], *,
                 backoff_s: float = 0.5, probe: bool = True) -> None:
        import httpx

        self.base_url = check_url(settings.server_url)
        if not settings.server_model.strip():
            raise ConfigError("embedding.backend=openai needs embedding.server_model "
                              "(the model name the server serves).",
                              hint="e.g. --set embedding.server_model=all-MiniLM-L6-v2 (see the server's GET /models).")
        self.model = settings.server_model.strip()
        self.url = f"{self.base_url}/embeddings"
        self.batch_size, self.retries, self.backoff_s = settings.batch_size, settings.retries, backoff_s
        self.concurrency, self.timeout_s = settings.concurrency, settings.timeout_s
        self.count_tokens = count_tokens
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(settings.api_key_env, "") if settings.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.Client(
            timeout=httpx.Timeout(settings.timeout_s, connect=min(10.0, settings.timeout_s)), headers=headers,
            limits=httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
            trust_env=False,  # a loopback/LAN server: no proxy from the environment
        )
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._cache = LRU(settings.query_cache)
        self.dim = 0
        self.reported_model = ""
        self.name = f"openai:{self.model}"
        self.requests = 0  # sent, retries included (for tests and the benchmark)
        if probe:  # the dimension (and the served model's name) before anything is stored
            vec = self._request([PROBE])
            self.dim = int(vec.shape[1])
            if self.reported_model and self.reported_model != self.model:
                self.name += f"={self.reported_model}"

    # -- the Embedder interface ------------------------------------------------------------------
    def embed_documents(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batches = [order[lo : lo + self.batch_size] for lo in range(0, len(order), self.batch_size)]
        if len(batches) == 1:
            futures = [_done(self._request, [texts[i] for i in batches[0]])]
        else:
            pool = self._executor()
            futures = [pool.submit(self._request, [texts[i] for i in idx]) for idx in batches]
        try:
            for idx, fut in zip(batches, futures):
                out[idx] = fut.result()
                if progress:
                    progress(len(idx))
        except BaseException:
            for fut in futures:
                fut.cancel()  # nothing more is sent; requests in flight finish and are dropped
            raise
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._cache.get(text, lambda: self._request([text])[0])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._http.close()

    # -- one batch, with retries ---------------------------------------------------------------
    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="embed-http")
            return self._pool

    def _request(self, texts: list[str]) -> np.ndarray:
        last: _Retryable | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                wait = self.backoff_s * 2 ** (attempt - 1) * (1 + random.random() / 4)
                time.sleep(min(MAX_BACKOFF_S, max(wait, last.after or 0.0) if last else wait))
            try:
                return self._once(texts)
            except _Retryable as e:
                last = e
        assert last is not None
        tries = f"{self.retries + 1} attempt{'s' if self.retries else ''}"
        if last.timeout:
            raise ModelTimeoutError(
                f"The embedding server at {self.base_url} did not answer within {self.timeout_s:g} s ({tries}).",
                hint="Check that it is running and not overloaded; raise --set embedding.timeout_s=N or lower "
                "embedding.batch_size / embedding.concurrency. Finished batches are kept: run the command again.",
            )
        raise ModelError(
            f"The embedding server at {self.base_url} failed ({tries}): {last}",
            hint="Check the server's log and that it is running (`curl URL/models`); finished batches are kept: "
            "run the same command again once it answers.",
        )

    def _once(self, texts: list[str]) -> np.ndarray:
        import httpx

        body = json.dumps({"model": self.model, "input": texts}, ensure_ascii=False).encode()
        with self._pool_lock:
            self.requests += 1
        try:
            resp = self._http.post(self.url, content=body)
        except httpx.TimeoutException as e:
            raise _Retryable(f"timed out ({type(e).__name__})", timeout=True) from e
        except httpx.TransportError as e:  # refused, reset, cut mid-reply
            raise _Retryable(f"{type(e).__name__}: {e}") from e
        if resp.status_code in RETRY_STATUS:
            raise _Retryable(f"HTTP {resp.status_code}: {_error_text(resp)}", after=_retry_after(resp))
        if resp.status_code >= 400:
            raise self._client_error(resp)
        try:
            obj = resp.json()
            data = obj["data"]
            rows = sorted(data, key=lambda d: int(d.get("index", 0))) if all("index" in d for d in data) else data
            vecs = [d["embedding"] for d in rows]
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise _Retryable(f"malformed reply ({type(e).__name__}: {str(e)[:120]}): {resp.text[:200]!r}") from e
        if len(vecs) != len(texts):
            raise _Retryable(f"{len(vecs)} vectors for {len(texts)} texts")
        if isinstance(obj, dict) and isinstance(obj.get("model"), str):
            self.reported_model = obj["model"]
        return self._check(vecs)

    def _check(self, vecs: list) -> np.ndarray:
        try:
            arr = np.asarray(vecs, dtype=np.float32)
        except (ValueError, TypeError) as e:  # ragged rows, strings
            raise ModelError(f"The embedding server at {self.base_url} sent vectors of different lengths "
                             "or non-numbers.",
                             hint="Check the server's model; a batch with such vectors is never stored.") from e
        want = self.dim or (arr.shape[1] if arr.ndim == 2 else 0)
        if arr.ndim != 2 or arr.shape[1] != want or want == 0:
            got = arr.shape[1] if arr.ndim == 2 else "?"
            raise ModelError(
                f"The embedding server at {self.base_url} sent vectors of dimension {got}; {want} expected.",
                hint="The server now serves another model than the one this index was built with: serve "
                f"'{self.model}' again, or rebuild the vectors (`paperchat rebuild-index --dense`).",
            )
        if not np.isfinite(arr).all() or not np.linalg.norm(arr, axis=1).all():
            raise ModelError(f"The embedding server at {self.base_url} sent NaN, infinite or all-zero vectors.",
                             hint="Check the server's model and its log; such vectors are never stored.")
        return normalise(arr)

    def _client_error(self, resp) -> ModelError:
        text = _error_text(resp)
        if resp.status_code in (401, 403):
            hint = "Put the server's API key in the environment variable named by embedding.api_key_env."
        elif resp.status_code == 404:
            hint = ("Check embedding.server_url (POST {url}/embeddings: Infinity serves at the root, TEI/vLLM/Ollama "
                    "under /v1) and embedding.server_model (the server's GET /models lists its names).")
        else:
            hint = (f"Check embedding.server_model ('{self.model}': the server's GET /models lists its names) and "
                    "that texts fit its input limit (embedding.batch_size, embedding.max_seq_tokens).")
        return ModelError(f"The embedding server at {self.base_url} refused the request: "
                          f"HTTP {resp.status_code}: {text}",
                          hint=hint)


def _done(fn: Callable, *args) -> Future:
    fut: Future = Future()
    try:
        fut.set_result(fn(*args))
    except BaseException as e:  # noqa: BLE001 - re-raised by result()
        fut.set_exception(e)
    return fut


def _error_text(resp) -> str:
    try:
        obj = resp.json()
        err = obj.get("error") if isinstance(obj, dict) else None
        msg = err.get("message") if isinstance(err, dict) else err or obj.get("detail") or obj.get("message")
        return str(msg)[:300] if msg else resp.text[:300]
    except (ValueError, AttributeError):
        return resp.text[:300]


def _retry_after(resp) -> float | None:
    try:
        v = float(resp.headers.get("Retry-After", ""))
        return v if math.isfinite(v) and v >= 0 else None
    except ValueError:
        return None
