"""The eval question format as a schema: every question is checked before any is asked.

    questions, warnings = load_questions(Path("eval/questions.jsonl"))

A question is one JSON object per line (read by `assistant.questions.read_questions`, which names the
line of any error). Checked here (pydantic, strict: nothing is coerced):

- `id`: a string or an integer (defaults to q<line>);
- `question`: a non-empty string;
- `gold`: a list of strings, the verbatim evidence keys (a bare string would be scored one character
  per key); `gold_ids`: a list of paper ids (strings or integers, read as strings);
- `history`, `must_mention`: lists of strings;
- `kind`: any string; one outside KNOWN_KINDS (or the benchmark kinds `claim-*`, `answer-*`) is kept
  and reported as a warning, since the report groups metrics by it.

Other fields are kept as they are (`answer`, `note`, `todo`, `feedback`, ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from . import KINDS

DATASET_KIND_PREFIXES = ("claim-", "answer-")  # eval/datasets.py: claim-support, answer-yes, ...
KNOWN_KINDS = KINDS
SCHEMA_HINT = ('Each line: {"id": "q1", "question": "...", "kind": "factoid", "gold": ["verbatim key", ...]} '
               '(gold: a list of strings, [] when the corpus cannot answer it).')


class EvalQuestion(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    id: StrictStr | StrictInt
    question: Annotated[StrictStr, Field(min_length=1)]
    kind: StrictStr = "factoid"
    gold: list[StrictStr] = []
    gold_ids: list[StrictStr | StrictInt] = []
    history: list[StrictStr] = []
    must_mention: list[StrictStr] = []


def known_kind(kind: str) -> bool:
    """
    >>> [known_kind(k) for k in ("factoid", "claim-support", "answer-maybe", "factiod")]
    [True, True, True, False]
    """
    return kind in KNOWN_KINDS or kind.startswith(DATASET_KIND_PREFIXES)


def _problem(e: ValidationError) -> str:
    """The first schema error of a question in words: 'gold must be a list of strings, not str ("a string")'."""
    err = e.errors(include_url=False)[0]
    loc = [str(p) for p in err["loc"]]
    field = loc[0] if loc else "question"
    item = len(loc) > 1 and loc[1].isdigit()
    if item:  # one element of a list
        want = "a paper id (a string or an integer)" if field == "gold_ids" else "a string"
    else:
        want = {"id": "a string or an integer", "question": "a non-empty string", "kind": "a string",
                "gold_ids": "a list of paper ids (strings or integers)"}.get(field, "a list of strings")
    where = f"{field}[{loc[1]}]" if item else field
    got = err.get("input")
    shown = repr(got) if len(repr(got)) <= 40 else repr(got)[:37] + "..."
    if err["type"] == "missing":
        return f"\"{field}\" is missing; it must be {want}"
    return f"\"{where}\" must be {want}, not {type(got).__name__} {shown}".replace("NoneType None", "null")


def check_question(q: dict) -> dict:
    """`q` checked against the schema (the same dict; `gold_ids` as strings); a ConfigError says what is wrong
    (`read_questions` adds the file and line)."""
    from assistant.errors import ConfigError

    try:
        EvalQuestion.model_validate(q)
    except ValidationError as e:
        raise ConfigError(_problem(e) + ".", hint=SCHEMA_HINT) from None
    if q.get("gold_ids"):
        q["gold_ids"] = [str(i) for i in q["gold_ids"]]
    return q


def kind_warnings(questions: list[dict], path: Path | str) -> list[str]:
    """One warning naming the questions whose `kind` is not a known kind (they are still scored)."""
    odd = [(str(q["id"]), str(q.get("kind"))) for q in questions if not known_kind(str(q.get("kind", "factoid")))]
    if not odd:
        return []
    shown = ", ".join(f"{i} ({k!r})" for i, k in odd[:5]) + (" ..." if len(odd) > 5 else "")
    return [(f"{path}: {len(odd)} question(s) have a kind that is none of {', '.join(KNOWN_KINDS)} "
             f"(nor claim-*/answer-*): {shown}; they are reported as a kind of their own.")]


def load_questions(path: Path | str) -> tuple[list[dict], list[str]]:
    """The questions of `path`, each checked (a ConfigError names the file and line of the first bad one),
    and the warnings about them."""
    from assistant.questions import read_questions

    questions = read_questions(Path(path), check=check_question)
    return questions, kind_warnings(questions, path)


__all__ = ["DATASET_KIND_PREFIXES", "KNOWN_KINDS", "EvalQuestion", "check_question", "known_kind", "load_questions"]
