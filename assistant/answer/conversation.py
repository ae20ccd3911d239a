"""Conversation state and follow-up resolution.

A `Conversation` holds the turns of one chat (one per browser session / CLI chat / batch question);
nothing is shared between conversations. Each turn records the papers it was *about* (`Turn.focus`,
in the order the question named them, or the answer's main paper) and the papers it cited.

`resolve(question)` turns a follow-up into a standalone question and the papers it refers to:

- "the first/second/third one", "the former/latter", "the last one" -> that paper of the previous
  turn, in the order it named them (or, when it named one, of the recent turns: "What is A?", "And
  B?", "... the former?" is A); "the first two" -> those two;
- "both", "each of them", "the two", and "they/them/their" after a turn about several papers -> all of
  them;
- "it", "its", "this paper/method/work", "they" (the authors) after a turn about one paper -> that paper;
  "it"/"its" after a turn about several (a list) -> its first paper;
- an ordinal with one paper in focus ("What are its three designs?", "the second one?") -> a part of
  that paper: the question keeps the previous one as context;
- a definite reference with no name of its own ("the light version", "the resulting networks", "the
  authors") or a question that goes on ("And how much smaller ...?") -> the previous turn's papers; a
  bare "And the results?" inherits the previous question's topic; "And on Y?" asks the previous
  question again with Y in place of its last "on ..." object;
- no reference word at all, but the question goes on about the one paper in focus ("What were the 12-month
  event rates with each stent?" after a turn on a stent trial: the paper's text uses most of its words) and
  asks for no papers -> that paper (a name that is another paper's own still wins, `question.analyze`).

The reference is replaced by the paper's short name, so the standalone question reads as a person
would write it; it is shown under the answer and retrieval looks inside the referred papers first.

>>> c = Conversation()
>>> c.add(Turn("Summarize FedMerge and FedCD.", focus=("a", "b")), {"a": "FedMerge", "b": "FedCD"})
>>> c.resolve("What datasets does the second one use?")
Resolved(standalone='What datasets does FedCD use?', referents=('b',))
>>> c.rewrite("Which datasets did they use?")
'Which datasets did FedMerge and FedCD use?'
>>> c.rewrite("How do both handle stragglers?")
'How do FedMerge and FedCD handle stragglers?'
>>> c.add(Turn("What is Polygames?", focus=("p",), paper_ids=("p", "q")), {"p": "Polygames", "q": "GlobalRAG"})
>>> c.resolve("What did they win at the TAAI competitions?")
Resolved(standalone='What did Polygames win at the TAAI competitions?', referents=('p',))
>>> c.rewrite("Does this work release code?")
'Does Polygames release code?'
>>> c.rewrite("And the results?")
'And the results? (What is Polygames?)'
>>> c.add(Turn("What does Polygames reach on Hex?", focus=("p",), standalone_query="What does Polygames reach on Hex?"))
>>> c.resolve("And on Havannah?")
Resolved(standalone='What does Polygames reach on Havannah?', referents=('p',))
>>> c.add(Turn("And FedMerge?", focus=("a",)))
>>> c.resolve("Which datasets did the former use?")
Resolved(standalone='Which datasets did Polygames use?', referents=('p',))
>>> c.rewrite("Which papers study graph neural networks?")
'Which papers study graph neural networks?'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..types import Turn
from .figures import NUMBER_VALUES
from .nameforms import named_terms
from .phrasing import REPORT
from .support import STOP, content_words

_ORD = {"first": 0, "former": 0, "second": 1, "latter": -1, "third": 2, "fourth": 3, "last": -1}
_NUM = {**{w: NUMBER_VALUES[w] for w in ("two", "three", "four")}, "2": 2, "3": 3, "4": 4}
_NOUN = rf"(?:one|ones|papers|method|methods|approach|approaches|works|model|models|framework|abstract|{REPORT})"
_FIRST_N = re.compile(rf"\bthe (first|top|last) (two|three|four|2|3|4)(?: {_NOUN})?\b", re.I)
_NTH = re.compile(rf"\bthe (first|second|third|fourth|last) {_NOUN}\b|\bthe (former|latter)(?: {_NOUN})?\b", re.I)
_ALL = re.compile(rf"\b(?:both(?: of them| {_NOUN})?|each of them|each {_NOUN}|the two(?: {_NOUN})?|all of them|"
                  rf"these {_NOUN}|those {_NOUN})\b", re.I)
_SINGULAR = re.compile(rf"\b(?:this|that|the) (?:method|approach|model|framework|system|technique|{REPORT})\b", re.I)
_PRONOUN = re.compile(r"\b(they|them|their|theirs|it|its|these|those)\b|\b(there)(?=\s*\?*\s*$)", re.I)
_DEFINITE = re.compile(
    r"\bthe (?:\w+ )?(?:(?:version|model|method|approach|framework|system|technique|algorithm|architecture|"
    r"module|network)s?|proposed \w+|authors?|experiments?|evaluation|results?|datasets?|benchmarks?)\b",
    re.I,
)
_CONTINUES = re.compile(r"^(?:and|so|also|then|but)\b", re.I)  # "And how much smaller are they?": goes on
_ELLIPSIS = re.compile(
    r"^(?:and|what about|how about)"
    r"\s+(?P<prep>on|in|for|with|at|over|against|under|from|to)\s+(?P<obj>[^?]{1,60}?)\s*\??$", re.I)
_HAS_NAME = re.compile(r"[A-Z]{2,}|[A-Z][a-z]+[A-Z]")
# "the one about robot instructions - what does it ...?": one of the previous turn's papers, by what it is about
_DESCRIBED_ONE = re.compile(
    r"\bthe (?:one|paper|study|work|method|approach|article) (?:about|on|with|that|which|where|for|[a-z]+ing) "
    r"(?P<d>[^,;:?]{3,80}?)(?=\s*(?:[,;:?]|\s[-\u2013\u2014]+\s|$))", re.I)
_STEM = re.compile(r"[a-z][a-z0-9]{2,}")
# "which papers ...?", "is there a study on ...?", "any work on ...?": a new search, never a question about the focus
_ASKS_PAPERS = re.compile(r"\b(?:papers?|studies|articles?|abstracts?|works)\b|\b(?:a|any|another|other|which|what)"
                          r"\s+(?:\w+\s+)?(?:study|work|trial|method|approach)\b", re.I)
CONTINUES_SHARE = 0.6  # of a question's words the paper in focus must use for the question to go on about it


def join_names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class Resolved:
    standalone: str
    referents: tuple[str, ...] = ()  # paper ids the question refers to (empty: not a follow-up on papers)
    # no reference word: the question goes on about the paper in focus, its words unchanged
    implicit: bool = field(default=False, repr=False)


@dataclass
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # paper_id -> short name shown in questions
    texts: dict[str, str] = field(default_factory=dict)  # paper_id -> title and abstract ("the one about X")

    def add(self, turn: Turn, labels: dict[str, str] | None = None, texts: dict[str, str] | None = None) -> None:
        self.turns.append(turn)
        for pid, name in (labels or {}).items():
            self.labels.setdefault(pid, name)  # the name first used for a paper stays its name
        self.texts.update(texts or {})

    def clear(self) -> None:
        self.turns.clear()
        self.labels.clear()
        self.texts.clear()

    @property
    def focus(self) -> list[str]:
        """Papers in focus: the last turn's papers first, then earlier turns' (no repeats)."""
        out: list[str] = []
        for t in reversed(self.turns):
            out += [p for p in (t.focus or t.paper_ids) if p not in out]
        return out

    def rewrite(self, question: str) -> str:
        return self.resolve(question).standalone

    def resolve(self, question: str) -> Resolved:
        """The standalone question and the papers it refers to (see the module docstring)."""
        q = question.strip()
        if not self.turns:
            return Resolved(q)
        last = self.turns[-1]
        ids = list(last.focus or last.paper_ids[:1] or self.focus[:1])
        if not ids:
            return Resolved(q)
        name = lambda pids: join_names([self.labels.get(p, p) for p in pids])  # noqa: E731
        m = _FIRST_N.search(q)
        if m and len(ids) >= 2:
            pool = list(last.focus) if len(last.focus) >= 2 else list(last.paper_ids) or ids
            n = _NUM[m.group(2).lower()]
            chosen = pool[-n:] if m.group(1).lower() == "last" else pool[:n]
            return Resolved(_sub(q, m, name(chosen)), tuple(chosen))
        m = _NTH.search(q)
        if m:
            pair = (m.group(2) or "").lower() in ("former", "latter")
            pool = (list(last.focus) if len(last.focus) >= 2
                    else self._named_in_turns(2 if pair else 4) or list(last.paper_ids) or ids)
            i = _ORD[(m.group(1) or m.group(2)).lower()]
            if -len(pool) <= i < len(pool):
                return Resolved(_sub(q, m, name([pool[i]])), (pool[i],))
            if len(ids) == 1 and not pair:  # "the second one" after "What are its three designs?": one of the paper's
                return Resolved(f"{q} ({last.standalone_query or last.question})", tuple(ids))
        m = _DESCRIBED_ONE.search(q)
        pool = list(last.focus) if len(last.focus) >= 2 else list(last.paper_ids)
        if m and len(pool) >= 2 and (best := self._described(m.group("d"), pool)):
            rest = _PRONOUN.search(q, m.end())  # "the one about X - what does it ...": "it" is that paper too
            if rest and rest.group(1) and rest.group(1).lower() in ("it", "its"):
                q = _sub(q, rest, self.labels.get(best, best) + ("'s" if rest.group(1).lower() == "its" else ""))
            return Resolved(_sub(q, m, self.labels.get(best, best)), (best,))
        m = _ALL.search(q)
        if m:
            return Resolved(_sub(q, m, name(ids)), tuple(ids))
        m = _SINGULAR.search(q)
        if m:
            return Resolved(_sub(q, m, name(ids[:1])), tuple(ids[:1]))
        m = _PRONOUN.search(q)
        if m and (m.group(1) or "").lower() == "they":
            # "which models did they test it on?": they are the authors of it, one paper (the last turn's first);
            # not "which of them ... does it cost": it is the one chosen among them
            m = next((x for x in _PRONOUN.finditer(q) if (x.group(1) or "").lower() in ("it", "its")), m)
        if m:
            word = (m.group(1) or m.group(2)).lower()
            if word in ("it", "its"):
                # "it" after a turn about several papers (a list): the one the question's names pick out ("what does it
                # gain over JPEG AI?": the one listed paper that names JPEG AI), else its main, first paper
                picked = self._naming(q, list(last.focus)) if len(last.focus) >= 2 else ""
                ids = [picked] if picked else ids[:1]
            text = ("in " if word == "there" else "") + name(ids) + ("'s" if word in ("their", "its", "theirs") else "")
            return Resolved(_sub(q, m, text), tuple(ids))
        m = _ELLIPSIS.match(q)
        if m and (last.standalone_query or last.question):
            # "And on Something-Something v2?" after "... get on ImageNet-1k?": the same question, new object
            return Resolved(_swap_object(last.standalone_query or last.question, m.group("prep"), m.group("obj")),
                            tuple(ids))
        if len(content_words(q)) <= 1 and not _HAS_NAME.search(q):
            # "And the datasets?" -> inherit the previous topic
            return Resolved(f"{q} ({last.standalone_query or last.question})", tuple(ids))
        if (_DEFINITE.search(q) or _CONTINUES.match(q)) and not _HAS_NAME.search(q):
            # "How many parameters does the light version have?" -> about the paper in focus
            return Resolved(f"{q} ({name(ids)})", tuple(ids))
        if len(ids) == 1 and self._goes_on(q, ids[0]):
            # "What were the 12-month event rates with each stent?" after a turn on one stent trial: about it (the
            # words stay the asker's: a name added would change which of its sentences answer)
            return Resolved(q, tuple(ids), implicit=True)
        return Resolved(q)

    def _goes_on(self, question: str, pid: str) -> bool:
        """A question with no reference word that goes on about the paper in focus: it asks for no papers, and
        the paper's title and abstract use at least CONTINUES_SHARE of its words (5-letter prefixes, at least 3).
        A name in the question that is another paper's own beats this (`question.analyze`)."""
        if _ASKS_PAPERS.search(question) or pid not in self.texts:
            return False
        want = _prefixes(question, STOP)
        have = want & _prefixes(self.texts[pid])
        return len(have) >= 3 and len(have) >= CONTINUES_SHARE * len(want)

    def _described(self, description: str, pool: list[str]) -> str:
        """The paper of `pool` whose title and abstract share the most words of `description` (5-letter
        prefixes: "robot instructions" ~ "instruction-following robots"): at least half of them, and more than
        any other paper shares; else "" (a paper the last answer did not cite)."""
        want = _prefixes(description, STOP)
        score = {p: len(want & _prefixes(self.texts.get(p, self.labels.get(p, ""))))
                 for p in pool}
        ranked = sorted(pool, key=lambda p: -score[p])
        best = ranked[0]
        return best if 2 * score[best] >= len(want) > 0 and score[best] > score[ranked[1]] else ""

    def _naming(self, question: str, pool: list[str]) -> str:
        """The one paper of `pool` whose text holds every name the question writes (capitalised terms and acronyms,
        "JPEG AI"), or "" when none or several do or the question writes no name."""
        names = named_terms(question)
        held = [p for p in pool if names and all(re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", self.texts.get(p, ""),
                                                           re.I) for t in names)]  # (whole words: "RL" is no "for l")
        return held[0] if len(held) == 1 else ""

    def _named_in_turns(self, n: int) -> list[str]:
        """The last `n` papers the turns were about, in the order they were named ("What is A?", "And B?":
        the former is A, the latter B); empty when fewer than two."""
        out: list[str] = []
        for t in reversed(self.turns):
            out += [p for p in reversed(t.focus) if p not in out]
            if len(out) >= n:
                break
        out = out[:n][::-1]
        return out if len(out) >= 2 else []


def _prefixes(text: str, skip=frozenset()) -> set[str]:
    """The 5-letter prefixes of a text's words ("robot instructions" ~ "instruction-following robots"), minus `skip`."""
    return {w[:5] for w in _STEM.findall(text.lower()) if w not in skip}


def _swap_object(previous: str, prep: str, obj: str) -> str:
    """The previous question with the object of its last `prep` phrase replaced (or the phrase added)."""
    base = previous.rstrip(" ?.")
    hits = list(re.finditer(rf"\b{re.escape(prep)}\s+(?:the\s+)?[^,;?]+$", base, re.I))
    if hits:
        return f"{base[: hits[-1].start()]}{prep} {obj}?"
    return f"{base} {prep} {obj}?"


def _sub(q: str, m: re.Match, text: str) -> str:
    out = q[: m.start()] + text + q[m.end():]
    return out[0].upper() + out[1:] if m.start() == 0 else out
