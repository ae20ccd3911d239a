"""Question files (JSONL): one object per line with at least `id` and `question`; other fields kept.

Each line is read as bytes and checked on its own: it must be UTF-8 JSON, an object, with a
question that passes `user_text.clean_user_text` (no broken characters, within the length limit), an
`id` that is a string or an integer (default `q<line>`), and an optional `history` list of strings.

`read_question_file` keeps going past a bad line (a batch answers the rest and reports the line);
`read_questions` is the strict form (the evaluation harness): the first problem is an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ConfigError
from .user_text import MAX_QUESTION_CHARS, UserTextError, clean_user_text, decode_utf8

_HINT = 'Each line must be one JSON object such as {"id": "q1", "question": "..."}.'


@dataclass
class QuestionFile:
    questions: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "FILE line N: why; skipped" -- the line is not asked
    warnings: list[str] = field(default_factory=list)  # "FILE line N: duplicate id ..." -- the line is kept


def _question(raw: bytes, where: str, n: int, max_chars: int) -> dict:
    """The question object of one line, cleaned; UserTextError/ValueError saying what is wrong."""
    text = decode_utf8(raw, where=where)
    try:
        q = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(q, dict):
        raise ValueError('expected a JSON object {"id", "question"}')
    if "question" not in q:
        raise ValueError('needs a non-empty "question"')
    q["question"] = clean_user_text(q["question"], where=where, max_chars=max_chars)
    q.setdefault("id", f"q{n}")
    if not isinstance(q["id"], (str, int)) or isinstance(q["id"], bool):
        raise ValueError('"id" must be a string or an integer')
    history = q.get("history")
    if history is not None:
        if not isinstance(history, list):
            raise ValueError('"history" must be a list of earlier questions')
        q["history"] = [clean_user_text(h, what="history turn", where=where, max_chars=max_chars) for h in history]
    return q


def read_question_file(path: Path, *, max_chars: int = MAX_QUESTION_CHARS) -> QuestionFile:
    """Every good question of `path`; each bad line is a problem (skipped), a repeated id a warning."""
    if not path.is_file():
        raise ConfigError(f"No such questions file: {path}", hint=_HINT)
    out = QuestionFile()
    first_line: dict[object, int] = {}
    try:
        with open(path, "rb") as f:
            for n, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                where = f"{path} line {n}"
                try:
                    q = _question(raw.rstrip(b"\r\n"), where, n, max_chars)
                except UserTextError as e:
                    out.problems.append(f"{e.message.rstrip('.')}; skipped.")
                    continue
                except ValueError as e:
                    out.problems.append(f"{where}: {e}; skipped.")
                    continue
                key = str(q["id"])
                if key in first_line:
                    out.warnings.append(f"{where}: duplicate id {q['id']!r} (first on line {first_line[key]}); "
                                        "both are kept, give every question its own id.")
                else:
                    first_line[key] = n
                out.questions.append(q)
    except OSError as e:
        raise ConfigError(f"Cannot read {path}: {e}", hint="Check the path and its permissions.") from e
    return out


def read_questions(path: Path, *, max_chars: int = MAX_QUESTION_CHARS) -> list[dict]:
    """All questions of `path`; ConfigError at the first bad line or repeated id (evaluation sets)."""
    f = read_question_file(path, max_chars=max_chars)
    first = (f.problems + [w.replace("both are kept, give", "give") for w in f.warnings])[:1]
    if first:
        raise ConfigError(first[0].removesuffix("; skipped."), hint=_HINT)
    return f.questions
