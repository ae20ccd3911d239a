"""The Chat tab's settings for an OpenAI-compatible model server (model 'openai'): the URL and model name a
visitor chose, checked (`server_choice`), and the "Check server" button (`check_server`).

The API key is never a field: `Assistant` reads it from the environment variable the operator named
(answer.openai_api_key_env) and sends it only to the operator's configured URL. Served beyond
127.0.0.1 (`server_url_editable` false, set by `ui.launch`), the URL is fixed to the operator's, so a
visitor cannot make this server send requests to addresses of their choosing.
"""

from __future__ import annotations

import re
from typing import Any

import gradio as gr

from assistant.errors import AssistantError

from . import render
from .hosts import is_loopback

MAX_MODEL_NAME_CHARS = 300
_URL = re.compile(r"https?://[^\s/?#]+(/[^\s?#]*)?")

__all__ = ["MAX_MODEL_NAME_CHARS", "ServerHandlers", "is_loopback"]


class ServerHandlers:
    """Mixed into `ui.handlers.Handlers` (which holds `assistant`, `settings`, `server_url_editable`)."""

    assistant: Any
    settings: Any
    server_url_editable: bool = False

    def server_choice(self, server_url: Any, server_model: Any) -> tuple[str, str]:
        """(base URL, model name) of the OpenAI-compatible server, checked; blank fields fall back to the
        operator's settings. Served beyond 127.0.0.1, the URL is fixed to the operator's (no requests from
        this server to addresses a visitor types)."""
        a = self.settings.answer
        url = (server_url if isinstance(server_url, str) else "").strip() or a.openai_base_url
        name = (server_model if isinstance(server_model, str) else "").strip() or a.openai_model
        if not self.server_url_editable:
            url = a.openai_base_url
        if len(url) > 300 or not _URL.fullmatch(url):
            raise gr.Error("The server URL must look like http://127.0.0.1:8000/v1.", title="Server URL",
                           print_exception=False)
        if len(name) > MAX_MODEL_NAME_CHARS or any(ch in name for ch in "\n\r\t"):
            raise gr.Error(f"The model name must be one line of up to {MAX_MODEL_NAME_CHARS} characters.",
                           title="Model name", print_exception=False)
        return url.rstrip("/"), name

    def check_server(self, server_url, server_model) -> str:
        """The UI's "Check server" button: which models the OpenAI-compatible server lists, and whether the
        model name is one of them (Markdown, one line)."""
        opts = self.options("openai", None, None, None, "", server_url, server_model)
        url, name = opts.server_url, opts.server_model
        try:
            names = self.assistant.served_models(url) if hasattr(self.assistant, "served_models") else []
        except AssistantError as e:
            return f"⚠ {render.safe_error_text(e.message, e.hint)}"
        listed = ", ".join(f"“{render.md_escape(n)}”" for n in names[:5]) or "no models"
        if name in names:
            return f"✓ {render.md_escape(url)} serves “{render.md_escape(name)}”."
        return (f"⚠ {render.md_escape(url)} answers but does not list “{render.md_escape(name)}”; "
                f"it serves {listed}. Copy one of those into *Model name*.")
