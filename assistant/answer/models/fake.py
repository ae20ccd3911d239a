"""A scripted chat model for tests: no weights, deterministic, inspectable.

    model = FakeChatModel(["First reply [1].", lambda msgs: msgs[-1]["content"]], delay_s=0.01)

- `replies` is a queue consumed one per `stream()` call; when empty, `default` is used. A reply is a
  string, a callable(messages) -> str (e.g. to echo the prompt), or an exception instance, which is
  raised when that call starts (to script `ModelError`, `IncompleteGeneration`, ...).
- Each reply is streamed in pieces: `chunk="word"` (a word with its trailing whitespace), `"char"`, or
  `"all"` (one piece). At most `max_new_tokens` pieces are produced, like a real token cap.
- `prompts` records a copy of every `messages` list received; `calls` counts `stream()` calls.
- `delay_s` sleeps before each piece (via `stop.wait`, so a set `stop` ends it at once).
- `count_tokens` is the whitespace token count.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable, Iterator
from typing import Literal

from ...errors import ConfigError
from .base import Message

Reply = str | Callable[[list[Message]], str] | BaseException
Chunking = Literal["word", "char", "all"]


def split_pieces(text: str, chunk: Chunking) -> list[str]:
    if chunk == "all":
        return [text] if text else []
    if chunk == "char":
        return list(text)
    return re.findall(r"\s*\S+\s*", text) or ([text] if text else [])


class FakeChatModel:

    def __init__(
        self,
        replies: list[Reply] | None = None,
        default: str = "...",
        chunk: Chunking = "word",
        *,
        delay_s: float = 0.0,
        context_tokens: int = 2048,
        name: str = "fake",
    ) -> None:
        if chunk not in ("word", "char", "all"):
            raise ConfigError(f"Unknown chunking '{chunk}'.", hint="Use 'word', 'char' or 'all'.")
        self.replies: list[Reply] = list(replies or [])
        self.default = default
        self.chunk: Chunking = chunk
        self.delay_s = delay_s
        self.context_tokens = context_tokens
        self.name = name
        self.prompts: list[list[Message]] = []
        self.calls = 0
        self._lock = threading.Lock()

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _next_reply(self, messages: list[Message]) -> Reply:
        with self._lock:
            self.calls += 1
            self.prompts.append(copy.deepcopy(messages))
            return self.replies.pop(0) if self.replies else self.default

    def stream(
        self,
        messages: list[Message],
        *,
        max_new_tokens: int,
        temperature: float = 0.0,
        stop: threading.Event | None = None,
    ) -> Iterator[str]:
        reply = self._next_reply(messages)  # recorded at call time, even if never iterated
        return self._pieces(reply, messages, max_new_tokens, stop)

    def _pieces(
        self, reply: Reply, messages: list[Message], max_new_tokens: int, stop: threading.Event | None
    ) -> Iterator[str]:
        if isinstance(reply, BaseException):
            raise reply
        text = reply(messages) if callable(reply) else reply
        waiter = stop or threading.Event()
        for piece in split_pieces(text, self.chunk)[: max(0, max_new_tokens)]:
            if self.delay_s > 0:
                waiter.wait(self.delay_s)
            if waiter.is_set():
                return
            yield piece
