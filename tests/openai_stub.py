"""A loopback OpenAI-compatible chat-completions server for tests (stdlib only).

    with OpenAIStub() as stub:                       # 127.0.0.1, ephemeral port, own thread
        stub.script(Behavior.status(503), Behavior.ok("Hello there"))
        model = OpenAIChatModel(stub.base_url, "stub-model", retries=1)
        ...
        assert stub.requests == 2

`POST /v1/chat/completions` answers with SSE when the body has `"stream": true` (chunked transfer
encoding, one `chat.completion.chunk` per word, then `data: [DONE]`), else with one JSON object.
Each request consumes the next scripted `Behavior` (then `default`): normal reply, slow (sleep
before the first byte), an HTTP status with an OpenAI-style error body (5xx, 429, 400...), a cut
stream (some chunks, then the socket is closed without [DONE]), malformed JSON, empty completion,
a plain JSON reply to a streaming request.
`bodies` keeps every parsed request body; `disconnects` counts streams the client closed early.

`POST /v1/embeddings` (or `/embeddings`) answers `{"data": [{"index", "embedding"}], "model"}` with a
deterministic unit vector per text (`stub_vector`, dimension `OpenAIStub(dim=...)`), or, scripted:
slow, an HTTP status, malformed JSON, `short` (one vector fewer than texts), `wrong_dim`, `cut` (the
socket closed mid-body), `nan`. `python tests/openai_stub.py --port P --dim 384 --instant` serves
embeddings in its own process (the benchmark's zero-compute server: one precomputed vector for all).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Behavior:
    # ok | slow | status | cut | malformed | empty | json (ignores stream=true) | short | wrong_dim | nan
    kind: str = "ok"
    text: str = "Hello from the stub server."
    delay_s: float = 0.0  # before the first byte
    chunk_delay_s: float = 0.0  # between SSE chunks
    status: int = 200
    message: str = ""
    retry_after: float | None = None
    cut_after: int = 2  # pieces sent before a cut

    @classmethod
    def ok(cls, text: str = "Hello from the stub server.", chunk_delay_s: float = 0.0) -> Behavior:
        return cls("ok", text, chunk_delay_s=chunk_delay_s)

    @classmethod
    def slow(cls, delay_s: float, text: str = "Sorry for the wait.") -> Behavior:
        return cls("slow", text, delay_s=delay_s)

    @classmethod
    def http_error(cls, status: int, message: str = "", retry_after: float | None = None) -> Behavior:
        return cls("status", status=status, message=message or f"stub error {status}", retry_after=retry_after)

    @classmethod
    def cut(cls, text: str = "This answer will be cut short here.", after: int = 2) -> Behavior:
        return cls("cut", text, cut_after=after)

    @classmethod
    def json_reply(cls, text: str = "Hello from the stub server.") -> Behavior:
        return cls("json", text)

    @classmethod
    def malformed(cls) -> Behavior:
        return cls("malformed")

    @classmethod
    def empty(cls) -> Behavior:
        return cls("empty", "")

    @classmethod
    def short(cls) -> Behavior:  # embeddings: one vector fewer than texts
        return cls("short")

    @classmethod
    def wrong_dim(cls) -> Behavior:  # embeddings: vectors one element too long
        return cls("wrong_dim")

    @classmethod
    def nan(cls) -> Behavior:  # embeddings: a NaN in the first vector
        return cls("nan")


def stub_vector(text: str, dim: int) -> list[float]:
    """A deterministic unit vector for `text` (same text, same vector; different texts differ)."""
    seed = hashlib.blake2b(text.encode(), digest_size=32).digest()
    raw = (seed * (dim // len(seed) + 1))[:dim]
    v = [b - 127.5 + i % 7 for i, b in enumerate(raw)]
    n = sum(x * x for x in v) ** 0.5
    return [x / n for x in v]


def pieces(text: str) -> list[str]:
    return re.findall(r"\s*\S+\s*", text)


def chunk(piece: str, model: str = "stub-model", finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion.chunk",
        "model": model,
        "choices": [{"index": 0, "delta": {"content": piece} if piece else {}, "finish_reason": finish}],
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        stub = self.server.stub
        with stub._lock:
            stub.in_flight += 1
            stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
        try:
            self._post()
        finally:
            with stub._lock:
                stub.in_flight -= 1

    def _post(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        beh = self.server.stub._take(body, dict(self.headers))
        if self.path.rstrip("/").endswith("/embeddings"):
            return self._embeddings(body, beh)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._json(404, {"error": {"message": f"no route {self.path}"}})
        if beh.delay_s and self.server.stub._closing.wait(beh.delay_s):
            return
        if beh.kind == "status":
            extra = {"Retry-After": str(beh.retry_after)} if beh.retry_after is not None else {}
            return self._json(beh.status, {"error": {"message": beh.message, "type": "stub"}}, extra)
        if not body.get("stream") or beh.kind == "json":
            if beh.kind == "malformed":
                return self._raw(200, b"{not json", "application/json")
            msg = {"role": "assistant", "content": beh.text}
            return self._json(200, {"object": "chat.completion", "choices": [{"index": 0, "message": msg}]})
        self._sse(beh)

    def _embeddings(self, body: dict[str, Any], beh: Behavior) -> None:
        stub = self.server.stub
        if beh.delay_s and stub._closing.wait(beh.delay_s):
            return
        if beh.kind == "status":
            extra = {"Retry-After": str(beh.retry_after)} if beh.retry_after is not None else {}
            return self._json(beh.status, {"error": {"message": beh.message, "type": "stub"}}, extra)
        if beh.kind == "malformed":
            return self._raw(200, b'{"data": [{"embedding": [0.1, ', "application/json")
        texts = body.get("input") or []
        texts = [texts] if isinstance(texts, str) else texts
        if stub.instant is not None:  # one precomputed vector for every text: no compute at all
            items = b",".join(b'{"object":"embedding","index":%d,"embedding":%s}' % (i, stub.instant)
                              for i in range(len(texts)))
            return self._raw(200, b'{"object":"list","model":"%s","data":[%s]}' % (stub.model.encode(), items),
                             "application/json")
        dim = stub.dim + (1 if beh.kind == "wrong_dim" else 0)
        data = [{"object": "embedding", "index": i, "embedding": stub_vector(t, dim)} for i, t in enumerate(texts)]
        if beh.kind == "short":
            data = data[:-1]
        if beh.kind == "nan" and data:
            data[0]["embedding"][0] = float("nan")
        if beh.kind == "cut":
            payload = json.dumps({"object": "list", "model": stub.model, "data": data}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        data.reverse()  # servers may answer out of order: the client sorts by index
        self._json(200, {"object": "list", "model": stub.model, "data": data})

    def _json(self, status: int, obj: Any, extra: dict[str, str] | None = None) -> None:
        self._raw(status, json.dumps(obj).encode(), "application/json", extra)

    def _raw(self, status: int, data: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _event(self, payload: str) -> None:
        data = f"data: {payload}\n\n".encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _sse(self, beh: Behavior) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            if beh.kind == "malformed":
                self._event('{"choices": [{"delta": {"content": "oops"')
            else:
                parts = pieces(beh.text)
                for i, p in enumerate(parts):
                    if beh.kind == "cut" and i >= beh.cut_after:
                        self.wfile.flush()
                        self.connection.shutdown(socket.SHUT_RDWR)  # no [DONE], no final chunk
                        self.close_connection = True
                        return
                    self._event(json.dumps(chunk(p)))
                    if beh.chunk_delay_s and self.server.stub._closing.wait(beh.chunk_delay_s):
                        return
                self._event(json.dumps(chunk("", finish="stop")))
            self._event("[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.server.stub._disconnected()
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    stub: OpenAIStub

    def handle_error(self, request: Any, client_address: Any) -> None:  # clients hang up on purpose
        pass


class OpenAIStub:
    """Start with `start()` or `with`; `base_url` ends in /v1 like real servers."""

    def __init__(self, default: Behavior | None = None, dim: int = 8, model: str = "stub-embed",
                 instant: bool = False, port: int = 0) -> None:
        self.default = default or Behavior.ok()
        self.dim, self.model, self.port = dim, model, port
        self.instant = json.dumps(stub_vector("instant", dim)).encode() if instant else None
        self._queue: list[Behavior] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.disconnects = 0
        self.in_flight = self.max_in_flight = 0  # requests being answered now / at most at once
        self.disconnected = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def requests(self) -> int:
        with self._lock:
            return len(self.bodies)

    @property
    def base_url(self) -> str:
        assert self._server is not None, "stub not started"
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def script(self, *behaviors: Behavior) -> None:
        with self._lock:
            self._queue.extend(behaviors)

    def _take(self, body: dict[str, Any], headers: dict[str, str]) -> Behavior:
        with self._lock:
            self.bodies.append(body)
            self.headers.append(headers)
            return self._queue.pop(0) if self._queue else self.default

    def _disconnected(self) -> None:
        with self._lock:
            self.disconnects += 1
        self.disconnected.set()

    def start(self) -> OpenAIStub:
        self._server = _Server(("127.0.0.1", self.port), _Handler)
        self._server.stub = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="openai-stub", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":  # a stand-alone server (the embedding benchmark's zero-compute server)
    import argparse
    import time

    ap = argparse.ArgumentParser(description="OpenAI-compatible stub server on 127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--model", default="stub-embed")
    ap.add_argument("--instant", action="store_true", help="one precomputed vector for every text")
    a = ap.parse_args()
    with OpenAIStub(dim=a.dim, model=a.model, instant=a.instant, port=a.port) as stub:
        while True:
            time.sleep(3600)
