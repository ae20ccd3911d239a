"""Per-browser-session state (`UISession`, kept in a gr.State), the validated request `Options`, and the
chat models a server offers. Nothing mutable lives at module level."""

from __future__ import annotations

import copy
import secrets
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
        self.turns = 0  # answers started in this tab
        self.key = secrets.token_hex(4)  # answer ids "<key>-<turn>": unique anchors here, unique rows in feedback

    def answer_id(self) -> str:
        self.turns += 1
        return f"{self.key}-{self.turns}"

    def shown_answers(self) -> list[Answer]:
        """The answers in the chat, oldest first (the evidence panel keeps a section for each)."""
        return [self.answers[i][0] for i in sorted(self.answers)]

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

    def __deepcopy__(self, memo: dict) -> UISession:  # gr.State deep-copies its initial value
        new = UISession()
        new.conversation = copy.deepcopy(self.conversation, memo)
        new.messages = copy.deepcopy(self.messages, memo)
        new.answers = dict(self.answers)
        new.last = self.last
        new.turns = 0  # a fresh session: its own key
        return new


@dataclass(frozen=True)
class Options:
    model: str | None
    k: int
    filters: Filters = field(default_factory=Filters)
    server_url: str = ""  # model 'openai': the OpenAI-compatible server chosen in the UI
    server_model: str = ""

    def stream_kwargs(self) -> dict:
        """Extra arguments of `Assistant.stream` (the server of model 'openai'), or none."""
        if self.model != "openai" or not self.server_url:
            return {}
        return {"model_options": {"openai_base_url": self.server_url, "openai_model": self.server_model}}

    def describe(self) -> dict:
        f = self.filters
        out = {"model": self.model, "k": self.k,
               "filters": {"year_min": f.year_min, "year_max": f.year_max, "author": f.author}}
        if self.model == "openai":
            out["server"] = {"url": self.server_url, "model": self.server_model}
        return out


def model_choices(settings: Settings, env: Mapping[str, str] | None = None) -> list[str]:
    """Chat models offered in the UI: the configured one, local, extractive, and openai (any
    OpenAI-compatible server; its URL and model name are set in the UI, its key only in the environment).
    `env` is kept for callers that pass it; the list no longer depends on it."""
    del env
    out = [settings.answer.model, "local", "extractive", "openai"]
    return list(dict.fromkeys(m for m in out if m))
