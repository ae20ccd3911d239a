"""Pick a chat model by name (`settings.model`).

Names: 'local' (bundled SmolLM2-135M), 'openai' (any OpenAI-compatible server), 'hf:/path/to/dir'
(also 'hf /path'), 'extractive' (no model: None, the assistant composes answers from the evidence),
'fake' (scripted replies, for tests). Anything else is a ConfigError. Loaded weights are shared
through `cache.load_once`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ConfigError
from .base import ChatModel
from .cache import clear_loaded, load_once, loaded_keys
from .fake import FakeChatModel

if TYPE_CHECKING:  # settings (pydantic) are not needed to import this module
    from ...settings import AnswerSettings

__all__ = ["VALID_NAMES", "clear_loaded", "get_chat_model", "load_once", "loaded_keys"]

VALID_NAMES = ("local", "extractive", "openai", "hf:/path/to/dir", "fake")


def get_chat_model(settings: AnswerSettings) -> ChatModel | None:
    """The chat model named by `settings.model`, or None for 'extractive' (answers composed from the
    evidence by the assistant: a way of answering, not a model). Cheap: local weights load on first use."""
    raw = (settings.model or "").strip()
    name = raw.lower()
    if name == "local":
        from .local import LocalChatModel

        return LocalChatModel(context_tokens=settings.context_tokens, wall_clock_s=settings.wall_clock_s)
    if name == "openai":
        from .openai_compat import OpenAIChatModel

        return OpenAIChatModel.from_settings(settings)
    if name == "extractive":
        return None
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
