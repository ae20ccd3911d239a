"""Question files (JSONL): one object per line with at least `id` and `question`; other fields kept.

Each line is read as bytes and checked on its own: it must be UTF-8 JSON, an object, with a
non-empty question, an `id` that is a string or an integer (default `q<line>`), whatever the caller's
`check` demands (the eval schema), and question and `history` texts that pass
`user_text.clean_user_text` (no broken characters, within the length limit).

`read_question_file` keeps going past a bad line (`ask`/`search --batch` answer the rest and report
"FILE line N: ...; skipped."); `read_questions` is the strict form (the evaluation harness): the first
problem is a ConfigError "FILE:N: ...", as is a repeated id.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ConfigError
from .user_text import MAX_QUESTION_CHARS, LineProblem, UserTextError, clean_user_text, decode_utf8, read_lines

_HINT = 'Each line must be one JSON object such as {"id": "q1", "question": "..."}.'
Check = Callable[[dict], dict]


@dataclass
class QuestionFile:
    questions: list[dict] = field(default_factory=list)
    problems: list[tuple[int, str, str]] = field(default_factory=list)  # (line, why, hint): the line is not asked
    duplicates: list[tuple[int, object, int]] = field(default_factory=list)  # (line, id, first line): kept


def _lower(message: str) -> str:
    return message[:1].lower() + message[1:].removesuffix(".")


def _text(value: object, what: str, max_chars: int) -> str:
    try:
        return clean_user_text(value, what=what, max_chars=max_chars)
    except UserTextError as e:
        raise LineProblem(_lower(e.message), e.hint) from None


def _question(raw: bytes, n: int, max_chars: int, check: Check | None) -> dict:
    """The question object of one line, checked and cleaned; _Problem saying what is wrong."""
    try:
        q = json.loads(decode_utf8(raw))
    except UserTextError as e:
        raise LineProblem(_lower(e.message), e.hint) from None
    except json.JSONDecodeError as e:
        raise LineProblem(f"not valid JSON ({e.msg} at column {e.colno})",
                          "Each line must be one JSON object.") from None
    if not isinstance(q, dict) or not str(q.get("question", "")).strip():
        raise LineProblem('needs a non-empty "question"', 'e.g. {"id": "q1", "question": "..."}')
    q.setdefault("id", f"q{n}")
    if isinstance(q["id"], bool) or not isinstance(q["id"], (str, int)):
        raise LineProblem(f'"id" must be a string or an integer, not {type(q["id"]).__name__}', 'e.g. "id": "q1"')
    if check is not None:
        try:
            q = check(q)
        except ConfigError as e:
            raise LineProblem(e.message.removesuffix("."), e.hint) from None
    q["question"] = _text(q["question"], "question", max_chars)
    history = q.get("history")
    if history is not None:
        if not isinstance(history, list):
            raise LineProblem('"history" must be a list of earlier questions')
        q["history"] = [_text(h, "history turn", max_chars) for h in history]
    return q


def read_question_file(path: Path, *, max_chars: int = MAX_QUESTION_CHARS, check: Check | None = None) -> QuestionFile:
    """Every good question of `path`; each bad line is a problem (skipped), a repeated id is noted (kept)."""
    if not path.is_file():
        raise ConfigError(f"No such questions file: {path}", hint=_HINT)
    lines = read_lines(path, lambda raw, n: _question(raw, n, max_chars, check), lambda q: q["id"],
                       "Check the path and its permissions.")
    return QuestionFile(lines.good, lines.problems, lines.duplicates)


def batch_messages(path: Path, qf: QuestionFile, kept: str = "both are kept") -> tuple[list[str], list[str]]:
    """(problems, warnings) of a lenient read as lines for stderr: "FILE line N: ...; skipped."."""
    problems = [f"{path} line {n}: {why}; skipped." for n, why, _ in qf.problems]
    warnings = [f"{path} line {n}: duplicate id {i!r} (first on line {first}); {kept}, give every question its "
                "own id." for n, i, first in qf.duplicates]
    return problems, warnings


def read_questions(path: Path, check: Check | None = None, *, max_chars: int = MAX_QUESTION_CHARS) -> list[dict]:
    """All questions of `path`, each vetted by `check` (e.g. the eval schema) too; a ConfigError
    "FILE:N: ..." at the first bad line or repeated id (evaluation sets)."""
    qf = read_question_file(path, max_chars=max_chars, check=check)
    first = sorted([(n, f"{why}.", hint) for n, why, hint in qf.problems]
                   + [(n, f"duplicate id {i!r} (first on line {f}).", "Give every question its own id.")
                      for n, i, f in qf.duplicates])
    if first:
        n, why, hint = first[0]
        raise ConfigError(f"{path}:{n}: {why}", hint=hint or _HINT)
    return qf.questions
