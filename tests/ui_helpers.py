"""Helpers for the UI tests: a real Assistant on a tmp store (debug preset), a scripted chat model,
an in-process server on a free port, and the Chromium flags the browser tests use."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

from assistant.answer.models.fake import FakeChatModel
from assistant.settings import Settings, load_settings
from assistant.types import Answer, Citation, Hit, Record

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

_SOURCE = re.compile(r'<source id="(\d+)".*?>\n(.*?)\n</source>', re.S)


def echo_first_source(messages: list[dict]) -> str:
    """A fake model reply that is supported by construction: the first sentence of source 1 + [1]."""
    body = messages[-1]["content"]
    m = _SOURCE.search(body)
    if not m:
        return "The indexed abstracts do not answer this question."
    first = re.split(r"(?<=[.!?])\s+", m.group(2).strip())[0].rstrip(".")
    return f"{first} [{m.group(1)}]."


class RecordingModel(FakeChatModel):
    """FakeChatModel that also keeps the `stop` event of each call and counts the pieces produced."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.stops: list = []
        self.pieces = 0

    def stream(self, messages, *, max_new_tokens, temperature=0.0, stop=None):
        self.stops.append(stop)
        for piece in super().stream(messages, max_new_tokens=max_new_tokens, temperature=temperature, stop=stop):
            self.pieces += 1
            yield piece


def make_settings(tmp: Path, **overrides) -> Settings:
    return load_settings("debug", {"store.data_dir": str(tmp / "store"), **overrides}, env={})


def make_assistant(tmp: Path, records: list[Record], chat_model=None, **overrides):
    """The real Assistant (debug preset: hash embeddings, fake chat model) over `records`."""
    from assistant.answer.assistant import Assistant

    settings = make_settings(tmp, **overrides)
    model = chat_model or FakeChatModel(default=echo_first_source)  # type: ignore[arg-type]
    a = Assistant(settings, chat_model=model)
    a.index.add(records)
    return a, settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(app, settings: Settings, env: dict[str, str] | None = None) -> Iterator[str]:
    """Launch `app` with `ui.launch.launch` (safe defaults) on a free port; yield its URL; close it.
    Environment variables the launch sets are restored afterwards."""
    from ui.launch import MARKER, launch

    keys = ["GRADIO_TEMP_DIR", "GRADIO_ANALYTICS_ENABLED", "ANONYMIZED_TELEMETRY", "GRADIO_SSR_MODE"]
    saved = {k: os.environ.get(k) for k in keys}
    try:
        _, url = launch(app, settings, "127.0.0.1", free_port(), block=False, quiet=True, env=env or {})
        yield url.rstrip("/")
    finally:
        app.close()
        temp = os.environ.get("GRADIO_TEMP_DIR", "")
        if temp and temp != saved["GRADIO_TEMP_DIR"] and (Path(temp) / MARKER).is_file():
            shutil.rmtree(temp, ignore_errors=True)  # the dedicated directory this launch made
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def hand_answer(**kw) -> Answer:
    """A hand-made Answer with two cited abstracts (for the render tests)."""
    r1 = Record("p-one", "We propose Alpha. Alpha beats Beta by 3 points. Code is public.", label="Alpha method",
                year=2023, authors=("Ann Lee", "Bo Chen", "Cy Park", "Dee Kay"), source="a.jsonl", source_line=4)
    r2 = Record("p-two", "Gamma studies <script>alert(1)</script> robustness. Gamma uses ImageNet.",
                label="Gamma <b>bold</b>", year=2021, source="b.bib")
    hits = (
        Hit("p-one", r1, 0.033, {"fused": 0.033, "dense": 0.81, "bm25": 7.5}, {"dense": 1, "bm25": 2}),
        Hit("p-two", r2, 0.016, {"fused": 0.016, "dense": 0.42}, {"dense": 2}),
        Hit("p-three", Record("p-three", "Unrelated."), 0.01, {"fused": 0.01}),
    )
    base = {
        "question": "How good is Alpha?",
        "answer": "Alpha beats Beta by 3 points [1]. Gamma uses ImageNet [2].",
        "standalone_query": "How good is Alpha?",
        "abstained": False,
        "citations": (
            Citation(1, "p-one", "Alpha method", r1.text, ("Alpha beats Beta by 3 points.",), (1,)),
            Citation(2, "p-two", "Gamma <b>bold</b>", r2.text, ("Gamma uses ImageNet.",), (1,)),
        ),
        "retrieved": hits,
        "id": "ans-1",
        "model": "fake",
    }
    base.update(kw)
    return Answer(**base)
