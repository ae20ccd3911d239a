"""Filters stated in a question: years, authors, arXiv categories and venues become retrieval filters.

    vocab = Vocabulary.build(index.all_records())       # the corpus's authors, venues, categories, years
    qf = parse_filters("Which papers by Chen from 2025 on study LoRA in cs.CL?", vocab)
    qf.filters   -> Filters(year_min=2025, author="Chen", categories=frozenset({"cs.CL"}))
    qf.cleaned   -> "Which papers study LoRA?"  ("What do Chen et al. propose" -> "What do a paper propose")
    qf.spans     -> the phrases that became filters, with what each became

Pure functions over the question text and the vocabulary; nothing is guessed that the corpus cannot
confirm: "by Smith" is an author filter only when a stored author is called Smith, "at NeurIPS" only
when a stored venue is, "cs.CL" only when a stored paper has that category. A year is a filter only
after a temporal cue ("in 2024", "since 2024", "before 2023", "between 2022 and 2024", "from 2025 on",
"2024 papers"); "ResNet-2015 style", "COCO 2017" and "GPT-4" are not. "this year" / "last year" /
"the last N years" count from the newest year in the corpus (the corpus may end before today). A year
the corpus lacks ("in 2031", "from year 99999999999") is still parsed: `filter_check.py` reports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..types import Record
from .filter_check import years_text
from .filter_merge import applied_from_question, describe, merge, summary  # noqa: F401 -- re-exported
from .filters import Filters, QueryFilters, Span

KINDS = ("year", "author", "venue", "categories")
FUTURE_YEARS = 10  # a 4-digit number after a temporal cue is a year up to this far past the corpus's newest


@dataclass(frozen=True)
class Vocabulary:
    """What the corpus can confirm: author surnames and full names, venues, categories, newest year."""

    surnames: frozenset[str] = frozenset()  # casefolded last names
    fullnames: dict[str, str] = field(default_factory=dict)  # casefolded full name -> as stored
    # casefolded venue (and venue without its year) -> filter value
    venues: dict[str, str] = field(default_factory=dict)
    categories: dict[str, str] = field(default_factory=dict)  # casefolded -> as stored
    newest_year: int | None = None

    @classmethod
    def build(cls, records: Iterable[Record]) -> Vocabulary:
        surnames: set[str] = set()
        full: dict[str, str] = {}
        venues: dict[str, str] = {}
        cats: dict[str, str] = {}
        newest = None
        for r in records:
            for a in r.authors:
                parts = a.split()
                if parts:
                    surnames.add(parts[-1].casefold())
                    full.setdefault(" ".join(parts).casefold(), a)
            if r.venue and len(r.venue) <= 120:
                venues.setdefault(r.venue.casefold(), r.venue)
                bare = _VENUE_YEAR.sub("", r.venue).strip()
                if bare and bare != r.venue:
                    venues.setdefault(bare.casefold(), bare)
            for c in r.categories:
                cats.setdefault(c.casefold(), c)
            if r.year and (newest is None or r.year > newest):
                newest = r.year
        return cls(frozenset(surnames), full, venues, cats, newest)

    @cached_property
    def venue_pattern(self) -> re.Pattern | None:
        """One regex for every known venue after a cue ("at NeurIPS", "published in ACL 2024") or before
        a noun ("EMNLP papers"), longest name first; None when the corpus has no venues."""
        keys = sorted((k for k in self.venues if len(k) >= 3), key=len, reverse=True)
        if not keys:
            return None
        alt = "|".join(re.escape(k) for k in keys)
        return re.compile(rf"(?:{_VENUE_CUE})({alt})(?:[\s'’]+{_Y})?(?!\w)"
                          rf"|(?<!\w)({alt})(?:\s+{_Y})?(?=\s+{_NOUN}\b)", re.I)


_VENUE_YEAR = re.compile(r"[\s'’-]*(?:19|20)?\d{2}$")
_Y = r"(?<![\w.\-/])((?:19[5-9]|20\d)\d)(?![\w\-]|\.\d)"  # a free-standing 4-digit year, not ResNet-2015 or 2501.01
_PUBLISHED = re.compile(r"(?:published|written|released|appeared|submitted)\s", re.I)
_NUM = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10}
_NOUN = r"(?:papers?|abstracts?|works?|articles?|publications?|studies|preprints?|submissions?)"

# (pattern, handler) in order of precedence; each handler gives (year_min, year_max)
_YEAR_RX: list[tuple[re.Pattern, str]] = [
    # "from year 2031", "in the year 99999999999": the word says it is a year, whatever the corpus holds
    (re.compile(r"\b(?:(?:published|written|released|appeared|submitted)\s+)?(?:in|during|from)\s+"
                r"(?:the\s+)?year\s+(\d{4,12})(?![\w.\-])", re.I), "year"),
    (re.compile(rf"\b(?:(?:published|written|released|appeared)\s+)?(?:between|from)\s+"
                rf"{_Y}\s*(?:and|to|until|through|-|–)\s*{_Y}", re.I), "range"),
    (re.compile(rf"\b(?:(?:published|written|released|appeared)\s+)?(?:in|during)\s+{_Y}\s*(?:-|–|to)\s*{_Y}",
                re.I), "range"),
    (re.compile(rf"\b(?:from|starting(?:\s+(?:in|from))?)\s+{_Y}\s+(?:on(?:wards?)?|forward)\b", re.I), "min"),
    (re.compile(rf"\b(?:since|as of)\s+{_Y}", re.I), "min"),
    (re.compile(rf"\b(?:after|later than)\s+{_Y}", re.I), "after"),
    (re.compile(rf"\b(?:(?:in|from)\s+)?{_Y}\s+(?:or|and)\s+(?:later|newer|after)\b", re.I), "min"),
    (re.compile(rf"\b(?:in\s+)?{_Y}\s+onwards?\b", re.I), "min"),
    (re.compile(rf"\b(?:before|prior to|earlier than|older than)\s+{_Y}", re.I), "before"),
    (re.compile(rf"\b(?:until|up to|through|till|no later than)\s+{_Y}", re.I), "max"),
    (re.compile(rf"\b(?:(?:in|from)\s+)?{_Y}\s+(?:or|and)\s+(?:earlier|older|before)\b", re.I), "max"),
    (re.compile(rf"\b(?:(?:published|written|released|appeared|submitted)\s+)?(?:in|during|from)\s+{_Y}", re.I),
     "exact"),
    (re.compile(rf"(?:\b(?:the|of|all)\s+)?{_Y}(?=\s+{_NOUN}\b)", re.I), "exact"),
    (re.compile(r"\b(?:(?:published|written|released)\s+)?(?:from\s+|in\s+)?(?:this|the current) year(?:'s)?", re.I),
     "this"),
    (re.compile(r"\b(?:(?:published|written|released)\s+)?(?:from\s+|in\s+)?last year(?:'s)?", re.I), "last"),
    (re.compile(r"\b(?:(?:published|written|released)\s+)?(?:in|from|over|during|within)\s+the\s+(?:last|past)\s+"
                r"(\d|two|three|four|five|six|ten)\s+years", re.I), "lastn"),
]

_NAME = (r"(?P<name>(?:[A-Z][a-z][\w'’\-]*|[A-Z]\.)"
         r"(?:\s+(?:[A-Z][a-z][\w'’\-]*|[A-Z]\.|van|von|de|der|da|di|del|le)){0,3})")
_AUTHOR_RX = [  # (?P<cue>) is removed with the name; text before it stays
    re.compile(rf"(?P<cue>\b(?:(?:co-?)?authored\s+|written\s+|published\s+)?by\s+){_NAME}(?P<tail>\s+et\s+al\.?|\s+and\s+(?:colleagues|co-?authors))?"),
    re.compile(rf"\b(?i:{_NOUN}|research)\s+(?P<cue>(?:of|from)\s+){_NAME}(?P<tail>\s+et\s+al\.?)?"),
    re.compile(rf"(?P<cue>){_NAME}(?P<tail>\s+et\s+al\.?)"),
    re.compile(rf"(?P<cue>){_NAME}(?P<tail>['’]s)\s+(?=(?i:{_NOUN}|research)\b)"),
]
_CATEGORY = re.compile(r"(?<![\w.])((?:cs|stat|math|eess|econ|q-bio|q-fin|physics|astro-ph|cond-mat|quant-ph|nlin|"
                       r"hep-\w+|gr-qc)\.[A-Za-z]{2})(?![\w.]|\.\w)")
_CAT_CUE = re.compile(r"(?:\b(?:in|from|under|within|on)\s+(?:the\s+)?(?:arxiv\s+)?(?:categor(?:y|ies)\s+)?)$", re.I)
_CAT_TAIL = re.compile(r"^\s+(?:categor(?:y|ies)|section|list(?:ing)?)\b", re.I)
_VENUE_CUE = r"\b(?:(?:published|presented|accepted|appeared|appearing)\s+)?(?:at|in|from|to)\s+(?:the\s+)?"


def parse_filters(question: str, vocab: Vocabulary) -> QueryFilters:
    """Filters stated in `question` that the corpus confirms, and the question without them."""
    taken: list[tuple[int, int]] = []
    # start of a span -> what stands in its place ("Smith et al. propose" -> "a paper propose")
    repl: dict[int, str] = {}
    spans: list[Span] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    def take(kind: str, a: int, b: int, value: str) -> None:
        taken.append((a, b))
        spans.append(Span(kind, question[a:b], a, b, value))

    f = Filters()
    # venues first: "at NeurIPS 2024" is a venue and a year
    for m in vocab.venue_pattern.finditer(question) if vocab.venue_pattern is not None else ():
        if not free(m.start(), m.end()) or f.venue:
            continue
        written = m.group(1) or m.group(3)
        if written.islower():
            continue  # "randomness in nature" is not the journal Nature
        key = written.casefold()
        venue = vocab.venues[key]
        f = replace(f, venue=venue)
        yg = 2 if m.group(2) else 4 if m.group(4) else 0
        vg = 1 if m.group(1) else 3
        take("venue", m.start(), m.end(vg), f"venue {venue}")
        if yg:
            year = int(m.group(yg))
            f = replace(f, year_min=year, year_max=year)
            take("year", m.start(yg), m.end(yg), f"year {year}")
    y_min: int | None = f.year_min
    y_max: int | None = f.year_max
    for rx, how in _YEAR_RX:
        for m in rx.finditer(question):
            if not free(m.start(), m.end()):
                continue
            lo, hi = _years(how, m, vocab.newest_year)
            if lo is None and hi is None:
                continue
            said = how == "year" or _PUBLISHED.match(m.group(0))  # "from year N", "published in N": a year, whatever N
            if not said and not all(_plausible(y, vocab.newest_year) for y in (lo, hi) if y is not None):
                continue
            y_min = lo if y_min is None or (lo is not None and lo > y_min) else y_min
            y_max = hi if y_max is None or (hi is not None and hi < y_max) else y_max
            take("year", m.start(), m.end(), years_text(lo, hi, compact=True))
    if (y_min, y_max) != (f.year_min, f.year_max):
        f = replace(f, year_min=y_min, year_max=y_max)
    cats = set()
    for m in _CATEGORY.finditer(question):
        stored = vocab.categories.get(m.group(1).casefold())
        if stored is None:
            continue
        a, b = m.start(), m.end()
        cue = _CAT_CUE.search(question[:a])
        if cue:
            a = cue.start()
        tail = _CAT_TAIL.match(question[b:])
        if tail:
            b += tail.end()
        prev = [e for k, e in ((sp.kind, sp.end) for sp in spans) if k == "categories" and e <= a]
        if prev and re.fullmatch(r"\s*(?:,|or|and|,\s*or|,\s*and)?\s*", question[prev[-1]:a]):
            a = prev[-1]  # "cs.CV or cs.RO": the joining word goes with the second
        if free(a, b):
            cats.add(stored)
            take("categories", a, b, f"category {stored}")
    if cats:
        f = replace(f, categories=frozenset(cats))
    for rx in _AUTHOR_RX:
        m = next((m for m in rx.finditer(question)
                  if _author(m.group("name"), vocab) and free(m.start("cue"), m.end())), None)
        if m is not None:
            name = _author(m.group("name"), vocab)
            f = replace(f, author=name)
            end = m.end("tail") if m.group("tail") else m.start("name") + _name_len(m.group("name"), name)
            take("author", m.start("cue"), end, f"author {name}")
            if not m.group("cue") and m.group("tail") and "et" in m.group("tail"):
                repl[m.start("cue")] = "a paper"  # not "they": that would read as a follow-up
            break
    return QueryFilters(f, _clean(question, taken, repl), tuple(sorted(spans, key=lambda s: s.start)))


def _plausible(year: int, newest: int | None) -> bool:
    """A year a question can mean about this corpus: up to a decade past its newest paper ("papers in 2031"
    on a corpus ending in 2025 asks for a year it lacks, which the filter check then reports), but not
    "trained in 2048 steps"."""
    return 1950 <= year <= (newest or 2030) + FUTURE_YEARS


def _years(how: str, m: re.Match, newest: int | None) -> tuple[int | None, int | None]:
    if how == "range":
        a, b = int(m.group(1)), int(m.group(2))
        return (min(a, b), max(a, b))
    if how == "min":
        return int(m.group(1)), None
    if how == "after":
        return int(m.group(1)) + 1, None
    if how == "before":
        return None, int(m.group(1)) - 1
    if how == "max":
        return None, int(m.group(1))
    if how in ("exact", "year"):
        return int(m.group(1)), int(m.group(1))
    if newest is None:
        return None, None
    if how == "this":
        return newest, newest
    if how == "last":
        return newest - 1, newest - 1
    n = _NUM.get(m.group(1).lower()) or int(m.group(1))
    return newest - n + 1, None


def _author(candidate: str, vocab: Vocabulary) -> str:
    """The stored author `candidate` names: the longest run of its words that is a stored full name,
    or its first word when that is a stored surname; "" when the corpus has no such author."""
    words = candidate.split()
    for n in range(len(words), 1, -1):
        stored = vocab.fullnames.get(" ".join(words[:n]).casefold())
        if stored:
            return stored
    if words and len(words[0]) > 2 and words[0].casefold() in vocab.surnames:
        return words[0]
    return ""


def _name_len(candidate: str, name: str) -> int:
    """Characters of `candidate` covered by the `name` it was matched to (a prefix of its words)."""
    words, n = candidate.split(), len(name.split())
    return len(" ".join(words[:n])) if n <= len(words) else len(candidate)


def _clean(question: str, taken: list[tuple[int, int]], repl: dict[int, str]) -> str:
    out, pos = [], 0
    for a, b in sorted(taken):
        out.append(question[pos:a] + " " + repl.get(a, "") + " ")
        pos = max(pos, b)
    out.append(question[pos:])
    text = " ".join("".join(out).split())
    text = re.sub(r"\s+([?.,;:!])", r"\1", text)
    text = re.sub(r"([,;:])\s*([?.!])", r"\2", text)
    text = re.sub(r"\b(and|or|,)\s*([?.!])$", r"\2", text).strip(" ,;")
    return text or question
