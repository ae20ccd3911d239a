"""Reading a finished run directory back (summary.json, results.jsonl) for compare, judge and scorecard.

A file cut short (a killed run, a full disk, a bad copy) or edited into something that is not a run is
reported with its path and line, and what to do, never as a bare JSONDecodeError:

    summary, records = load_run("eval/runs/latest")
"""

from __future__ import annotations

import json
from pathlib import Path

from assistant.errors import ConfigError

RERUN_HINT = "Run it again (`paperchat eval run --out DIR`) or restore the file from a copy."


def _bad(path: Path, line: int | None, what: str) -> ConfigError:
    where = f"{path}:{line}" if line is not None else str(path)
    return ConfigError(f"{where}: {what}; the run file is damaged (cut short?).", hint=RERUN_HINT)


def read_json_object(path: Path) -> dict:
    """The JSON object in `path` (summary.json); a ConfigError names the file and the line where it breaks."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _bad(path, None, "not UTF-8 text") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise _bad(path, e.lineno, f"not valid JSON ({e.msg}, column {e.colno})") from None
    if not isinstance(obj, dict):
        raise _bad(path, None, f"holds a JSON {type(obj).__name__}, not an object")
    return obj


def read_jsonl_objects(path: Path) -> list[dict]:
    """One JSON object per non-blank line of `path` (results.jsonl); a ConfigError names the first bad line."""
    out = []
    with open(path, "rb") as f:  # bytes, decoded per line: a bad byte is named with its own line
        for n, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise _bad(path, n, "not UTF-8 text") from None
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise _bad(path, n, f"not valid JSON ({e.msg}, column {e.colno})") from None
            if not isinstance(rec, dict):
                raise _bad(path, n, f"a JSON {type(rec).__name__}, not an object")
            out.append(rec)
    return out


def load_run(run_dir: Path | str) -> tuple[dict, list[dict]]:
    """(summary, result records) of a finished run directory."""
    d = Path(run_dir)
    summary = read_json_object(d / "summary.json")
    results = d / "results.jsonl"
    return summary, read_jsonl_objects(results) if results.is_file() else []
