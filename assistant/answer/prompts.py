"""Prompts are files in prompts/, each declaring its variables on its first line:

    <!-- variables: sources, history, question -->

`load_prompt(name)` checks at load time that the `{placeholders}` in the body are exactly the declared
variables, and `Prompt.render(**values)` checks that exactly those are passed: a typo fails loudly at
start-up, never as a silently empty slot in front of the model.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import PromptError
from ..settings import PROMPTS_DIR

_HEADER = re.compile(r"^<!--\s*variables:\s*(.*?)\s*-->\s*\n", re.S)


@dataclass(frozen=True)
class Prompt:
    name: str
    template: str
    variables: frozenset[str]

    def render(self, **values: str) -> str:
        given = set(values)
        if given != self.variables:
            raise PromptError(
                f"Prompt '{self.name}' expects {sorted(self.variables)}, got {sorted(given)}.",
                hint="Fix the caller or the prompt file's variables line.",
            )
        return self.template.format(**values)


@cache
def load_prompt(name: str, directory: Path = PROMPTS_DIR) -> Prompt:
    path = directory / f"{name}.md"
    if not path.is_file():
        raise PromptError(f"Missing prompt file {path}.", hint="Restore it from the repository (prompts/).")
    raw = path.read_text(encoding="utf-8")
    m = _HEADER.match(raw)
    if not m:
        raise PromptError(f"{path} lacks its '<!-- variables: ... -->' first line.",
                          hint="Declare the variables it uses.")
    declared = {v.strip() for v in m.group(1).split(",") if v.strip() and v.strip() != "none"}
    body = raw[m.end():].strip() + "\n"
    used = {f for _, f, _, _ in string.Formatter().parse(body) if f is not None}
    if used != declared:
        raise PromptError(
            f"{path}: declares {sorted(declared)} but uses {sorted(used)}.",
            hint="Make the variables line match the {placeholders} (write literal braces as {{ }}).",
        )
    return Prompt(name, body, frozenset(declared))
