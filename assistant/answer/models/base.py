"""The one small interface every chat model implements, and the factory that picks one by name.

    model = get_chat_model(settings.answer)          # 'local' | 'openai' | 'hf:/dir' | 'fake' ('extractive': None)
    for piece in model.stream(messages, max_new_tokens=150, stop=event):
        ...

`messages` are OpenAI-style dicts: [{"role": "system"|"user"|"assistant", "content": str}, ...].
Heavy imports live inside each implementation; a missing package fails with the install command.
Failures raise `ModelError` (or `ModelTimeoutError`); a stream that breaks after it started raises
`IncompleteGeneration` carrying the text produced so far, so callers can mark the answer incomplete.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from ...errors import ModelError

Message = dict[str, str]


class IncompleteGeneration(ModelError):
    """Generation stopped part-way (stream cut, timeout after first token). `partial` holds what came."""

    def __init__(self, message: str, partial: str, hint: str = "") -> None:
        super().__init__(message, hint)
        self.partial = partial


@runtime_checkable
class ChatModel(Protocol):
    name: str  # shown in answers, e.g. "local:SmolLM2-135M-Instruct"
    context_tokens: int  # window the prompt + answer must fit in

    def count_tokens(self, text: str) -> int:
        """Tokens `text` takes in this model's tokenizer (an estimate is fine for remote models)."""
        ...

    def stream(
        self,
        messages: list[Message],
        *,
        max_new_tokens: int,
        temperature: float = 0.0,
        stop: threading.Event | None = None,
    ) -> Iterator[str]:
        """Yield text pieces as they are produced. Setting `stop` ends generation at the next token."""
        ...


def generate(model: ChatModel, messages: list[Message], **kw) -> str:
    """Non-streaming convenience: the whole reply as one string."""
    return "".join(model.stream(messages, **kw))
