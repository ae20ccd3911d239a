"""Question files (JSONL): one object per line with at least `id` and `question`; other fields kept."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .errors import ConfigError


def read_questions(path: Path, check: Callable[[dict], dict] | None = None) -> list[dict]:
    """The questions of `path`; `check` (e.g. the eval schema) vets each one: a ConfigError it raises is
    reported with the file and line."""
    if not path.is_file():
        raise ConfigError(f"No such questions file: {path}", hint="Give a JSONL file with one {\"id\", \"question\"} per line.")
    out, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                q = json.loads(line)
            except json.JSONDecodeError as e:
                raise ConfigError(f"{path}:{n}: not valid JSON ({e.msg}).", hint="Each line must be one JSON object.") from None
            if not isinstance(q, dict) or not str(q.get("question", "")).strip():
                raise ConfigError(f"{path}:{n}: needs a non-empty \"question\".", hint='e.g. {"id": "q1", "question": "..."}')
            q.setdefault("id", f"q{n}")
            if isinstance(q["id"], bool) or not isinstance(q["id"], (str, int)):
                raise ConfigError(f"{path}:{n}: \"id\" must be a string or an integer, not {type(q['id']).__name__}.",
                                  hint='e.g. "id": "q1"')
            if check is not None:
                try:
                    q = check(q)
                except ConfigError as e:
                    raise ConfigError(f"{path}:{n}: {e.message}", hint=e.hint) from None
            if q["id"] in seen:
                raise ConfigError(f"{path}:{n}: duplicate id {q['id']!r}.", hint="Give every question its own id.")
            seen.add(q["id"])
            out.append(q)
    return out
