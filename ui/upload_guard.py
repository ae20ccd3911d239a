"""ASGI middleware limiting gradio's raw upload route: accepted file types, file count, total size.

gradio's /gradio_api/upload takes any file of any type, as many as sent (its only bound is the size of
each file). `UploadGuard` spools the request body to a temporary file (1 MiB in memory, then disk),
scanning the multipart part headers as they pass; a request with too many files, a file of another type,
or more than `max_bytes` in total is refused (400/413, plain text) before gradio sees a byte. Accepted
bodies are replayed to gradio unchanged.
"""

from __future__ import annotations

import re
import tempfile
from typing import Any

UPLOAD_PATH = re.compile(r"/gradio_api/upload/?$")
_FILENAME = re.compile(rb'content-disposition:[^\r\n]*?filename\*?="?([^"\r\n;]*)["\r;]', re.IGNORECASE)
_CHUNK = 64 * 1024
_CARRY = 1024  # a part header cut by a chunk boundary is scanned again with the next chunk


class UploadGuard:
    def __init__(self, app: Any, types: tuple[str, ...], max_files: int, max_bytes: int) -> None:
        self.app, self.types = app, tuple(t.lower() for t in types)
        self.max_files, self.max_bytes = max_files, max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or not UPLOAD_PATH.search(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length and length.isdigit() and int(length) > self.max_bytes:
            await _refuse(send, 413, f"Upload larger than {self.max_bytes // (1024 * 1024)} MB in total.")
            return
        with tempfile.SpooledTemporaryFile(max_size=1 << 20) as spool:
            total, files, tail, error = 0, 0, b"", ""
            more = True
            while more:
                msg = await receive()
                if msg["type"] == "http.disconnect":
                    return
                body, more = msg.get("body", b""), msg.get("more_body", False)
                total += len(body)
                if total > self.max_bytes:
                    await _refuse(send, 413, f"Upload larger than {self.max_bytes // (1024 * 1024)} MB in total.")
                    return
                window = tail + body
                for m in _FILENAME.finditer(window):
                    if m.end() <= len(tail):
                        continue  # complete in the previous window: counted then
                    files += 1
                    name = m.group(1).decode("utf-8", "replace").strip().lower()
                    if not name.endswith(self.types):
                        error = f"File type not accepted: use {', '.join(self.types)}."
                if files > self.max_files:
                    error = f"At most {self.max_files} files per upload."
                if error:
                    await _refuse(send, 400, error)
                    return
                tail = window[-_CARRY:]
                spool.write(body)
            spool.seek(0)
            await self.app(scope, _replay(spool), send)


def _replay(spool: Any):
    done = False

    async def receive() -> dict:
        nonlocal done
        if done:
            return {"type": "http.disconnect"}
        chunk = spool.read(_CHUNK)
        if len(chunk) < _CHUNK:
            done = True
        return {"type": "http.request", "body": chunk, "more_body": not done}

    return receive


async def _refuse(send: Any, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
