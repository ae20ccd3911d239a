"""Per-browser-session state (`UISession`, kept in a gr.State), the validated request `Options`, and the
chat models a server offers. Nothing mutable lives at module level."""

from __future__ import annotations

import copy
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from assistant.answer.conversation import Conversation
from assistant.retrieve.hybrid import Filters
from assistant.settings import Settings
from assistant.types import Answer


class UISession:
    """Everything one browser tab (or one gradio_client session) owns. Lives in a gr.State."""

    def __init__(self) -> None:
        self.conversation = Conversation()
        self.messages: list[dict[str, str]] = []  # what the Chatbot shows
        self.answers: dict[int, tuple[Answer, dict]] = {}  # chatbot message index -> (answer, options)
        self.last: tuple[Answer, dict] | None = None
        self.stop = threading.Event()

    def new_stop(self) -> threading.Event:
        self.stop = threading.Event()
        return self.stop

    def reset(self) -> None:
        """New chat: fresh objects, so a generation still running writes into the old ones only."""
        self.stop.set()
        self.conversation = Conversation()
        self.messages = []
        self.answers = {}
        self.last = None

    def __deepcopy__(self, memo: dict) -> "UISession":  # gr.State deep-copies its initial value
        new = UISession()
        new.conversation = copy.deepcopy(self.conversation, memo)
        new.messages = copy.deepcopy(self.messages, memo)
        new.answers = dict(self.answers)
        new.last = self.last
        return new


@dataclass(frozen=True)
class Options:
    model: str | None
    k: int
    filters: Filters = field(default_factory=Filters)

    def describe(self) -> dict:
        f = self.filters
        return {"model": self.model, "k": self.k,
                "filters": {"year_min": f.year_min, "year_max": f.year_max, "author": f.author}}


def model_choices(settings: Settings, env: Mapping[str, str] | None = None) -> list[str]:
    """Chat models offered in the UI: the configured one, local, extractive, and openai only when the
    operator configured it (answer.model=openai, an API key variable, or PAPERCHAT_OPENAI_BASE_URL)."""
    env = os.environ if env is None else env
    out = [settings.answer.model, "local", "extractive"]
    if (
        settings.answer.model == "openai"
        or env.get(settings.answer.openai_api_key_env)
        or env.get("PAPERCHAT_OPENAI_BASE_URL")
    ):
        out.append("openai")
    return list(dict.fromkeys(m for m in out if m))
