"""Pick a chat model by name (`settings.model`), and the process-wide cache of loaded local models.

Names: 'local' (default, bundled SmolLM2-135M), 'openai' (any OpenAI-compatible server),
'hf:/path/to/dir' (also 'hf /path'), 'extractive' (no generation: a marker the chain recognises by
`generative=False`), 'fake' (scripted replies, for tests). Anything else is a ConfigError.

Module-level state (the only one in this package, on purpose): `_LOADED`, a dict of loaded
tokenizer+model backends keyed by file path, guarded by `_LOCK`. Loading a local model takes tens of
seconds and ~1 GB of RAM, so it happens once per process, lazily, on the first request that needs
it; every chat model object on the same path shares the backend (and its generation lock).
`clear_loaded()` empties it (tests, memory pressure).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from ...errors import ConfigError, ModelError
from .base import ChatModel, Message
from .fake import FakeChatModel

if TYPE_CHECKING:  # settings (pydantic) are not needed to import this module
    from ...settings import AnswerSettings

T = TypeVar("T")

VALID_NAMES = ("local", "extractive", "openai", "hf:/path/to/dir", "fake")

_LOCK = threading.Lock()
_LOADED: dict[str, object] = {}


def load_once(key: str, loader: Callable[[], T]) -> T:
    """Return the cached object for `key`, calling `loader()` the first time (under the lock).

    A failed load is not cached: the next call tries again (and raises again, with its hint).
    """
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = loader()
        return _LOADED[key]  # type: ignore[return-value]


def clear_loaded() -> None:
    """Forget every loaded model (their memory is freed once no chat model references them)."""
    with _LOCK:
        _LOADED.clear()


def loaded_keys() -> list[str]:
    with _LOCK:
        return list(_LOADED)


class ExtractiveModel:
    """Marker for 'answer by quoting the sources': the chain composes the answer itself."""

    name = "extractive"
    generative = False

    def __init__(self, context_tokens: int = 2048) -> None:
        self.context_tokens = context_tokens

    def count_tokens(self, text: str) -> int:
        return len(text) // 4

    def stream(
        self,
        messages: list[Message],
        *,
        max_new_tokens: int,
        temperature: float = 0.0,
        stop: threading.Event | None = None,
    ) -> Iterator[str]:
        raise ModelError("extractive model does not generate", hint="The chain composes extractive answers.")


def get_chat_model(settings: AnswerSettings) -> ChatModel:
    """The chat model named by `settings.model`. Cheap: local weights load on first use."""
    raw = (settings.model or "").strip()
    name = raw.lower()
    if name == "local":
        from .local import LocalChatModel

        return LocalChatModel(context_tokens=settings.context_tokens, wall_clock_s=settings.wall_clock_s)
    if name == "openai":
        from .openai_compat import OpenAIChatModel

        return OpenAIChatModel.from_settings(settings)
    if name == "extractive":
        return ExtractiveModel(context_tokens=settings.context_tokens)
    if name == "fake":
        return FakeChatModel(context_tokens=settings.context_tokens)
    if name == "hf" or name.startswith(("hf:", "hf ")):
        path = raw[2:].lstrip(": ").strip()
        if not path:
            raise ConfigError("answer.model=hf needs a directory.", hint="Use answer.model=hf:/path/to/dir.")
        from .hf import HFChatModel

        return HFChatModel(path, context_tokens=settings.context_tokens, wall_clock_s=settings.wall_clock_s)
    raise ConfigError(
        f"Unknown chat model '{raw}'.",
        hint=f"answer.model is one of: {', '.join(VALID_NAMES)}.",
    )
