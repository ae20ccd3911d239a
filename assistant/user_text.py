"""The one door for user text: questions, queries, claims and sources, from every edge.

Every path that takes text from a person (CLI arguments, `--batch` files, the web UI and its API,
verify pairs, evaluation questions) calls `clean_user_text` before the text reaches a tokenizer, so
the rules live here once:

- bytes must be UTF-8; a line that is not is refused, naming the first bad byte and its column;
- a lone surrogate (an undecodable byte smuggled in by `surrogateescape`, as in a command-line
  argument from a non-UTF-8 terminal, or half an emoji from a JSON "\\ud83d" escape) is refused with
  its position: tokenizers raise a bare TypeError on it, and a silent U+FFFD would change the question;
- control characters (NUL, escape sequences) become spaces, text is NFC-normalised and stripped;
- an empty result, or one over `max_chars`, is refused (the length is checked before any tokenizer
  sees the text: RELIABILITY 38).

Refusals raise `UserTextError` (a ConfigError: exit status 2 in the CLI, a clear message in the UI);
`where` ("questions.jsonl line 7") is put in front of the message so a batch can report the line and
go on with the rest.

>>> clean_user_text("  graph\\x00 neural   networks ")
'graph  neural   networks'
>>> clean_user_text("caf\\u0065\\u0301")  # NFC: e + combining acute -> é
'café'
>>> try:
...     clean_user_text("Half emoji \\ud83d")
... except UserTextError as e:
...     print(e.message.split(" (")[0])
The question holds a broken character at position 12
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from .errors import ConfigError

MAX_QUESTION_CHARS = 2000  # the default of ui.max_question_chars: the longest question accepted anywhere
MAX_SOURCE_CHARS = 200_000  # a verify source (a whole abstract is ~2,000); ingest.max_record_chars
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class UserTextError(ConfigError):
    """User text that cannot be used: invalid UTF-8, a lone surrogate, empty, or too long."""

    hint = "Re-type the text, or save the file as UTF-8 (`iconv -f LATIN1 -t UTF-8 FILE`)."


def _refuse(message: str, where: str, hint: str = "") -> UserTextError:
    return UserTextError(f"{where}: {message}" if where else message[:1].upper() + message[1:], hint)


def decode_utf8(raw: bytes, *, what: str = "line", where: str = "") -> str:
    """`raw` decoded as UTF-8 (a leading BOM dropped), or UserTextError naming the first bad byte.

    >>> decode_utf8(b"caf\\xc3\\xa9")
    'café'
    >>> decode_utf8(b"caf\\xe9", where="q.jsonl line 3")
    Traceback (most recent call last):
    ...
    assistant.user_text.UserTextError: q.jsonl line 3: the line is not valid UTF-8 (byte 0xe9 at column 4; Latin-1?).
    """
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise _refuse(f"the {what} is not valid UTF-8 (byte 0x{raw[e.start]:02x} at column {e.start + 1}; Latin-1?).",
                      where) from None


def clean_user_text(value: object, *, what: str = "question", where: str = "",
                    max_chars: int | None = MAX_QUESTION_CHARS, allow_empty: bool = False) -> str:
    """`value` (str or UTF-8 bytes) made safe for every later stage, or UserTextError saying why not.

    `what` names the text in messages ("question", "claim", "source"); `where` says where it came
    from ("pairs.jsonl line 4"); `max_chars` None means no length bound.
    """
    if isinstance(value, (bytes, bytearray)):
        value = decode_utf8(bytes(value), what=what, where=where)
    if not isinstance(value, str):
        raise _refuse(f"the {what} must be text, not {type(value).__name__}.", where)
    m = _SURROGATE.search(value)
    if m:
        code = ord(m.group())
        kind = ("an undecodable byte 0x%02x: the text was not UTF-8" % (code - 0xDC00) if 0xDC80 <= code <= 0xDCFF
                else "half of an emoji or an undecodable byte")
        raise _refuse(f"the {what} holds a broken character at position {m.start() + 1} "
                      f"(a lone surrogate U+{code:04X}, {kind}).", where)
    if max_chars is not None and len(value) > 4 * max_chars:  # bound the work below on a huge input
        raise _too_long(value, what, where, max_chars)
    text = unicodedata.normalize("NFC", _CONTROL.sub(" ", value)).strip()
    if max_chars is not None and len(text) > max_chars:
        raise _too_long(text, what, where, max_chars)
    if not text and not allow_empty:
        raise _refuse(f"the {what} is empty.", where, hint=f"Give a non-empty {what}.")
    return text


def _too_long(text: str, what: str, where: str, limit: int) -> UserTextError:
    return _refuse(f"the {what} is {len(text):,} characters long; the limit is {limit:,}.", where,
                   hint=f"Shorten the {what} (the limit is the setting ui.max_question_chars for questions).")


T = TypeVar("T")


class LineProblem(Exception):
    """What is wrong with one line of a batch file (the line is skipped and named)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message, self.hint = message, hint


@dataclass
class Lines(Generic[T]):
    good: list[T] = field(default_factory=list)
    problems: list[tuple[int, str, str]] = field(default_factory=list)  # (line, why, hint): the line is skipped
    duplicates: list[tuple[int, object, int]] = field(default_factory=list)  # (line, id, first line): kept


def read_lines(path: Path, parse: Callable[[bytes, int], T], key: Callable[[T], object], hint: str) -> Lines[T]:
    """Every line of a batch file through `parse(raw bytes, line number)` (LineProblem for a bad line: named,
    skipped), blank lines ignored, a repeated `key` noted with the line it first appeared on. ConfigError with
    `hint` when the file cannot be read."""
    out: Lines[T] = Lines()
    first: dict[str, int] = {}
    try:
        with open(path, "rb") as f:
            for n, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                try:
                    item = parse(raw.rstrip(b"\r\n"), n)
                except LineProblem as e:
                    out.problems.append((n, e.message, e.hint))
                    continue
                k = key(item)
                if str(k) in first:
                    out.duplicates.append((n, k, first[str(k)]))
                else:
                    first[str(k)] = n
                out.good.append(item)
    except OSError as e:
        raise ConfigError(f"Cannot read {path}: {e}", hint=hint) from e
    return out
