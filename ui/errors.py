"""Errors at the UI edge: an AssistantError becomes a gr.Error with its message and hint (no paths); anything
unexpected becomes a generic gr.Error with a trace id, the traceback logged server-side only."""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Callable

import gradio as gr

from assistant.errors import AssistantError

from . import render

log = logging.getLogger("paperchat.ui")


def translate_errors(fn: Callable) -> Callable:
    """Wrap a (non-generator) handler: AssistantError -> gr.Error(message + hint, no paths);
    anything unexpected -> a generic gr.Error with a trace id, the traceback logged server-side."""

    @functools.wraps(fn)  # keeps the signature and type hints gradio reads (gr.Progress, gr.LikeData)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except AssistantError as e:
            raise gr.Error(render.safe_error_text(e.message, e.hint), print_exception=False) from None
        except Exception:  # noqa: BLE001 - the edge: log it, show a trace id, never a traceback
            raise unexpected_error() from None

    return wrapper


def unexpected_error() -> gr.Error:
    trace = uuid.uuid4().hex[:8]
    log.exception("unexpected error in the web UI [trace %s]", trace)
    return gr.Error(
        f"Something went wrong on the server (trace id {trace}). Try again; if it keeps happening, "
        "report the trace id.",
        print_exception=False,
    )


def store_banner(problem: str, fix: str) -> str:
    """The banner a damaged records store shows above every tab: what is wrong and the repair (no paths)."""
    if not problem:
        return ""
    return (f"### ⚠ The paper store is damaged\n{render.safe_error_text(problem)}\n\n"
            f"**Fix:** {render.safe_error_text(fix)}")
