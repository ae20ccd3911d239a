"""Conversation state and follow-up rewriting.

A `Conversation` holds the turns of one chat (one per browser session / CLI chat / batch question);
nothing is shared between conversations. The "papers in focus" are the papers cited by recent turns,
newest first, so "compare the first two" and "which datasets did they use?" resolve.

Follow-ups are rewritten into a standalone search query by rules, not by the 135M model (which is not
reliable at it): ordinal references ("the first two", "the second paper") become those papers' labels;
pronouns ("they", "their", "it", "these methods") pull in the labels of the previous turn's papers; a
short question with no subject of its own inherits the previous question's topic. The rewritten query
is recorded in the Answer (`standalone_query`) and shown under the answer.

>>> c = Conversation()
>>> c.add(Turn("Which papers study federated learning?", paper_ids=("a", "b", "c")), {"a": "FedMerge", "b": "FedCD", "c": "PAC-Bayes FL"})
>>> c.rewrite("Compare the first two")
'Compare FedMerge and FedCD'
>>> c.rewrite("Which datasets did they use?")
'Which datasets did FedMerge, FedCD and PAC-Bayes FL use?'
>>> c.rewrite("And the results?")
'And the results? (Which papers study federated learning?)'
>>> c.rewrite("How many parameters does the light version have?")
'How many parameters does the light version have? (FedMerge and FedCD)'
>>> c.rewrite("Which papers study graph neural networks?")
'Which papers study graph neural networks?'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..types import Turn
from .support import content_words

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}
_NUM = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4}
_FIRST_N = re.compile(r"\bthe (first|top|last) (two|three|four|2|3|4)(?: papers| methods| approaches| ones| abstracts)?\b", re.I)
_NTH = re.compile(r"\bthe (first|second|third|fourth|fifth|last) (?:one|paper|method|approach|abstract|work)\b", re.I)
_PRONOUN = re.compile(
    r"\b(they|them|their|theirs|it|its|these|those|this|both|each|the two|these (?:papers|methods|approaches|works)"
    r"|those (?:papers|methods|approaches|works)|this (?:paper|method|approach|work)|the paper|the method)\b",
    re.I,
)
_DEFINITE = re.compile(
    r"\bthe (?:\w+ )?(?:version|model|method|approach|framework|system|technique|algorithm|architecture|"
    r"module|network|proposed \w+|authors?|experiments?|evaluation|results?|datasets?|benchmarks?)\b",
    re.I,
)
_SUBJECTS = {"they": "{x}", "them": "{x}", "their": "{x}'s", "it": "{x}", "its": "{x}'s"}


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # paper_id -> display label

    def add(self, turn: Turn, labels: dict[str, str] | None = None) -> None:
        self.turns.append(turn)
        self.labels.update(labels or {})

    def clear(self) -> None:
        self.turns.clear()
        self.labels.clear()

    @property
    def focus(self) -> list[str]:
        """Papers in focus: the last turn's papers first, then earlier turns' (no repeats)."""
        out: list[str] = []
        for t in reversed(self.turns):
            out += [p for p in t.paper_ids if p not in out]
        return out

    def rewrite(self, question: str) -> str:
        """A standalone search query for `question` given this conversation (unchanged if not a follow-up)."""
        q = question.strip()
        if not self.turns:
            return q
        last = self.turns[-1]
        names = [self.labels.get(p, p) for p in last.paper_ids] or [self.labels.get(p, p) for p in self.focus]
        m = _FIRST_N.search(q)
        if m and names:
            n = _NUM[m.group(2).lower()]
            chosen = names[-n:] if m.group(1).lower() == "last" else names[:n]
            return q[: m.start()] + _join(chosen) + q[m.end():]
        m = _NTH.search(q)
        if m and names:
            i = _ORDINALS[m.group(1).lower()]
            if i == -1 or i <= len(names):
                return q[: m.start()] + names[i if i == -1 else i - 1] + q[m.end():]
        if names and _PRONOUN.search(q):
            subject = _join(names[:3])
            return _PRONOUN.sub(lambda mm: _SUBJECTS.get(mm.group(1).lower(), "{x}").format(x=subject), q, count=1)
        if len(content_words(q)) <= 1 and not re.search(r"[A-Z]{2,}|[A-Z][a-z]+[A-Z]", q):
            # "And the datasets?" -> inherit the previous topic
            return f"{q} ({last.standalone_query or last.question})"
        if names and _DEFINITE.search(q) and not re.search(r"[A-Z]{2,}|[A-Z][a-z]+[A-Z]", q):
            # "How many parameters does the light version have?" -> about the paper in focus
            return f"{q} ({_join(names[:2])})"
        return q
