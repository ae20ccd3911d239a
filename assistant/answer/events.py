"""What `Assistant.stream` yields: status lines, text pieces, then exactly one final Answer.

    for ev in assistant.stream(question, conversation, stop=event):
        if isinstance(ev, Status): ...   # "retrieving", "generating", "verifying"
        elif isinstance(ev, Token): ...  # raw model text as it is produced (unverified)
        elif isinstance(ev, Done): ev.answer  # the verified Answer; the conversation is updated
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import Answer


@dataclass(frozen=True)
class Status:
    stage: str
    detail: str = ""


@dataclass(frozen=True)
class Token:
    text: str


@dataclass(frozen=True)
class Done:
    answer: Answer


Event = Status | Token | Done
