"""Chat model over any OpenAI-compatible `/chat/completions` server (Ollama, vLLM, llama.cpp server).

Plain `httpx` with `stream: true` and a hand-rolled SSE parser (`data: {...}` lines, `data: [DONE]`).

Failure policy, stated:
- Timeouts: connect/read/write from `timeout_s`; the read timeout also bounds the gap between two
  chunks. The whole answer is bounded by `wall_clock_s` (checked between chunks; the read timeout of
  each request is capped by the time left).
- Retries (at most `retries`, exponential backoff, `Retry-After` honoured up to 10 s) only BEFORE the
  first token and only for retryable failures: connection errors, 408, 409, 429, 5xx. A timeout is
  not retried (it would multiply the wait): it raises `ModelTimeoutError`.
- Other 4xx: `ModelError` carrying the server's message. Malformed JSON, an error event or an empty
  completion: `ModelError`. A stream that breaks after tokens arrived (closed without `[DONE]` and
  without a chunk carrying a `finish_reason` - `transformers serve` sends no `[DONE]`; read
  timeout, bad chunk, wall clock): `IncompleteGeneration(partial=...)`, never retried silently.
- `stop` is checked between chunks (the response is then closed, which ends the server's work for
  servers that watch the connection); a server silent before its first byte is only interrupted by
  the read timeout.
- `count_tokens` is an estimate, ceil(len(text) / 4) (~4 characters per token for English BPE
  vocabularies); the remote tokenizer is unknown. `context_tokens` is the configured window.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...errors import ModelError, ModelTimeoutError
from .base import IncompleteGeneration, Message

if TYPE_CHECKING:  # settings (pydantic) are not needed to import this module
    from ...settings import AnswerSettings

RETRYABLE_STATUS = {408, 409, 429}
MAX_BACKOFF_S = 10.0
WALL_HINT = "Raise answer.wall_clock_s or lower answer.max_new_tokens."


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class OpenAIChatModel:

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        retries: int = 2,
        wall_clock_s: float = 120.0,
        context_tokens: int = 2048,
        backoff_s: float = 0.5,
        key_env: str = "",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.retries = retries
        self.wall_clock_s = wall_clock_s
        self.context_tokens = context_tokens
        self.backoff_s = backoff_s
        self.key_env = key_env
        self.name = f"openai:{model}"

    @classmethod
    def from_settings(cls, s: AnswerSettings) -> OpenAIChatModel:
        key = os.environ.get(s.openai_api_key_env, "") if s.openai_api_key_env else ""
        return cls(
            s.openai_base_url,
            s.openai_model,
            api_key=key or None,
            timeout_s=s.timeout_s,
            retries=s.retries,
            wall_clock_s=s.wall_clock_s,
            context_tokens=s.context_tokens,
            key_env=s.openai_api_key_env,
        )

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def count_tokens(self, text: str) -> int:
        return (len(text) + 3) // 4

    def _hint(self) -> str:
        return (
            f"Is an OpenAI-compatible server running at {self.base_url}? Start one (`transformers serve`, "
            "`ollama serve`, vLLM, llama.cpp) or correct the server URL (answer.openai_base_url, "
            "PAPERCHAT_OPENAI_BASE_URL, or the UI's settings)."
        )

    def served_models(self, timeout_s: float = 5.0) -> list[str]:
        """The model names the server lists (GET {base_url}/models); ModelError when it cannot say."""
        return list_models(self.base_url, self.api_key, timeout_s)

    def _wrong_model(self) -> ModelError | None:
        """After a 400/404/422: the clear error when the server does not serve `self.model`, else None."""
        try:
            names = self.served_models(min(self.timeout_s, 5.0))
        except ModelError:
            return None
        if not names or self.model in names:
            return None
        shown = ", ".join(f"'{n}'" for n in names[:5]) + (" ..." if len(names) > 5 else "")
        return ModelError(f"{self.name}: the server at {self.base_url} does not serve a model named '{self.model}'.",
                          hint=f"Set the model name to one it serves: {shown}.")

    def stream(
        self,
        messages: list[Message],
        *,
        max_new_tokens: int,
        temperature: float = 0.0,
        stop: threading.Event | None = None,
    ) -> Generator[str, None, None]:
        import httpx

        deadline = time.monotonic() + self.wall_clock_s
        body = {
            "model": self.model,
            "messages": messages,
            "max_tokens": max_new_tokens,
            "temperature": temperature,
            "stream": True,
        }
        headers = {"Accept": "text/event-stream"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        attempt = 0
        with httpx.Client(headers=headers) as client:
            while not (stop is not None and stop.is_set()):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ModelTimeoutError(f"{self.name}: no answer within {self.wall_clock_s:g}s.", WALL_HINT)
                t = min(self.timeout_s, left)
                timeout = httpx.Timeout(connect=t, read=t, write=t, pool=t)
                try:
                    yield from self._one_request(client, body, timeout, deadline, stop)
                    return
                except _Retryable as e:
                    if attempt >= self.retries:
                        raise ModelError(f"{self.name}: {e} (after {attempt + 1} attempts)", self._hint()) from None
                    delay = min(
                        MAX_BACKOFF_S, e.retry_after if e.retry_after is not None else self.backoff_s * 2**attempt
                    )
                    delay = max(0.0, min(delay, deadline - time.monotonic()))
                    attempt += 1
                    if (stop or threading.Event()).wait(delay):
                        return

    def _one_request(
        self, client: Any, body: dict[str, Any], timeout: Any, deadline: float, stop: threading.Event | None
    ) -> Generator[str, None, None]:
        import httpx

        produced: list[str] = []

        def cut(msg: str, hint: str = "") -> ModelError:
            hint = hint or self._hint()
            if produced:
                return IncompleteGeneration(f"{self.name}: {msg}", partial="".join(produced), hint=hint)
            return ModelError(f"{self.name}: {msg}", hint=hint)

        try:
            with client.stream("POST", self.url, json=body, timeout=timeout) as resp:
                if resp.status_code != 200:
                    self._raise_status(resp)
                if "text/event-stream" not in resp.headers.get("content-type", ""):
                    yield self._whole(resp)  # server ignored stream=true
                    return
                done = finished = False
                for line in resp.iter_lines():
                    if stop is not None and stop.is_set():
                        return  # leaving the `with` closes the response
                    if time.monotonic() > deadline:
                        msg, hint = f"generation exceeded the {self.wall_clock_s:g}s wall-clock limit", WALL_HINT
                        if produced:
                            raise cut(msg, hint)
                        raise ModelTimeoutError(f"{self.name}: {msg}", hint)
                    data = _sse_data(line)
                    if data is None:
                        continue
                    if data == "[DONE]":
                        done = True
                        break
                    piece = self._parse_chunk(data, cut)
                    finished = finished or _finished(data)
                    if piece:
                        produced.append(piece)
                        yield piece
                if stop is not None and stop.is_set():
                    return
                if not (done or finished):  # `transformers serve` ends after a finish_reason, without [DONE]
                    raise cut("the stream ended without [DONE]")
                if not produced:
                    raise ModelError(f"{self.name}: the server returned an empty completion.", self._hint())
        except httpx.TimeoutException as e:
            if produced:
                raise cut(f"timed out mid-stream ({type(e).__name__})") from None
            raise ModelTimeoutError(
                f"{self.name}: no answer from {self.base_url} within {timeout.read:g}s ({type(e).__name__}).",
                hint="Raise answer.timeout_s, or check the server load. " + self._hint(),
            ) from None
        except httpx.TransportError as e:
            if produced:
                raise cut(f"connection lost mid-stream ({type(e).__name__}: {e})") from None
            raise _Retryable(f"cannot reach {self.base_url} ({type(e).__name__}: {e})") from None

    def _raise_status(self, resp: Any) -> None:
        resp.read()
        code = resp.status_code
        msg = _server_message(resp)
        if code in RETRYABLE_STATUS or code >= 500:
            raise _Retryable(f"HTTP {code}: {msg}", _retry_after(resp))
        hint = self._hint()
        if code in (401, 403):
            var = self.key_env or "the API key variable"
            raise ModelError(
                f"{self.name}: the server at {self.base_url} refused the request (HTTP {code}: {msg}).",
                hint=(f"Put a valid key in the environment variable {var} of the paperchat process and restart "
                      "it (keys are never typed into settings)." if self.api_key else
                      f"This server needs an API key: set {var} in the environment of the paperchat process "
                      "(a key is only sent to the server URL the operator configured)."))
        if code in (400, 404, 422):
            wrong = self._wrong_model()
            if wrong is not None:
                raise wrong
        if code == 404:
            hint = f"Check the server URL (it usually ends in /v1) and that model '{self.model}' exists."
        raise ModelError(f"{self.name}: HTTP {code}: {msg}", hint=hint)

    def _parse_chunk(self, data: str, cut: Any) -> str:
        try:
            obj = json.loads(data)
        except json.JSONDecodeError:
            raise cut(f"malformed JSON in the stream: {data[:200]!r}") from None
        if not isinstance(obj, dict):
            raise cut(f"unexpected chunk: {data[:200]!r}")
        if obj.get("error"):
            err = obj["error"]
            raise cut(f"server error: {err.get('message', err) if isinstance(err, dict) else err}")
        try:
            choices = obj.get("choices") or []
            if not choices:
                return ""  # e.g. a usage-only chunk
            delta = choices[0].get("delta") or choices[0].get("message") or {}
            return delta.get("content") or ""
        except AttributeError:
            raise cut(f"unexpected chunk: {data[:200]!r}") from None

    def _whole(self, resp: Any) -> str:
        resp.read()
        try:
            text = resp.json()["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise ModelError(f"{self.name}: malformed response: {resp.text[:200]!r}", self._hint()) from None
        if not text:
            raise ModelError(f"{self.name}: the server returned an empty completion.", self._hint())
        return text


def list_models(base_url: str, api_key: str | None = None, timeout_s: float = 5.0) -> list[str]:
    """Model names an OpenAI-compatible server lists at GET {base_url}/models (the `id` of each entry).

    Raises ModelError (connection refused, timeout, HTTP error, not the OpenAI list format) with a hint."""
    import httpx

    url = base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        resp = httpx.get(url, headers=headers, timeout=timeout_s)
    except httpx.TimeoutException:
        raise ModelTimeoutError(f"No answer from {base_url} within {timeout_s:g}s.",
                                hint="Is the server overloaded, or is the URL wrong?") from None
    except httpx.HTTPError as e:
        raise ModelError(f"Cannot reach {base_url} ({type(e).__name__}).",
                         hint="Start the server, or correct the URL (it usually ends in /v1).") from None
    if resp.status_code in (401, 403):
        raise ModelError(f"{base_url} refused the request (HTTP {resp.status_code}).",
                         hint="The server needs an API key in the environment of the paperchat process.")
    try:
        resp.raise_for_status()
        data = resp.json()["data"]
        return [str(m["id"]) for m in data if isinstance(m, dict) and m.get("id")]
    except (httpx.HTTPStatusError, ValueError, KeyError, TypeError):
        raise ModelError(f"{url} did not answer with a model list (HTTP {resp.status_code}).",
                         hint="Is this an OpenAI-compatible server? The URL usually ends in /v1.") from None


def _finished(data: str) -> bool:
    """True for a chunk that carries a finish_reason (the last one of a completion)."""
    if '"finish_reason"' not in data:
        return False
    try:
        choices = json.loads(data).get("choices") or []
        return bool(choices and isinstance(choices[0], dict) and choices[0].get("finish_reason"))
    except (ValueError, AttributeError):
        return False


def _sse_data(line: str) -> str | None:
    """The payload of an SSE `data:` line; None for blank lines, comments and other fields."""
    if not line.startswith("data:"):
        return None
    return line[5:].strip()


def _server_message(resp: Any) -> str:
    try:
        obj = resp.json()
    except ValueError:
        return resp.text[:300].strip() or resp.reason_phrase
    if isinstance(obj, dict):
        err = obj.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
        if obj.get("detail") or obj.get("message"):
            return str(obj.get("detail") or obj.get("message"))
    return json.dumps(obj)[:300]


def _retry_after(resp: Any) -> float | None:
    try:
        return max(0.0, float(resp.headers.get("retry-after", "")))
    except ValueError:
        return None
