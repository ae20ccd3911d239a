"""Chat models behind one interface (`base.ChatModel`), chosen by `get_chat_model(settings.answer)`.

Importing this package is cheap: torch/transformers load inside `hf.py`/`local.py` on first use,
httpx inside `openai_compat.py` when a request is made.
"""

from __future__ import annotations

from .base import ChatModel, IncompleteGeneration, Message, generate
from .cache import clear_loaded, load_once
from .factory import VALID_NAMES, get_chat_model
from .fake import FakeChatModel

__all__ = [
    "VALID_NAMES",
    "ChatModel",
    "FakeChatModel",
    "IncompleteGeneration",
    "Message",
    "clear_loaded",
    "generate",
    "get_chat_model",
    "load_once",
]
