"""What each clause of a question asks for: its noun phrase ("batch size", "" when none), whether a value is
asked ("how much", "what fraction") and what kind of value ("duration", "names", "winner"). The question's
shapes are read from `phrasing.py`: a lead that sets the question up ("... - which corpus?", "In the X paper,
which model did best?"), clauses joined by "and what"/"and how many", terse noun phrases ("crossformer
segmentation F1 on which datasets?"). `question.analyze` calls `asked_parts`; `answerable.py` checks the result
against an abstract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .asked_patterns import (
    ASKED,
    ASKED_NP,
    ASKED_TAIL,
    CLAUSE,
    IRREGULAR_PAST,
    MEASURE_ASKED,
    MEASURED,
    NOT_NOUN,
    NUMERIC,
)
from .figures import CARDINAL, NUMBER_WORDS
from .instances import WORD
from .nameforms import named_terms, norm
from .phrasing import AUX, DESCRIBED, FRONTED, LEAD, OPENER, WH, lead_match
from .support import STOP, stem
from .words import FUNCTION_WORDS


@dataclass(frozen=True)
class Ask:
    """One thing a question asks for: a noun phrase ("batch size", "" when none) and whether a value is asked."""

    asked: str = ""
    numeric: bool = False
    measure: str = ""  # "duration" ("how long ...?"): the abstract must state a time or length, not any number


def asked_parts(standalone: str, topic_names: tuple[str, ...]) -> tuple[str, Ask, list[Ask]]:
    """The part of the question after a lead that sets it up ("... - which corpus?"), and what each clause asks
    (the first, then the others)."""
    (_, first), *more = asked_clauses(standalone, topic_names)
    return _clauses(standalone)[0], first, [a for _, a in more]


def asked_clauses(standalone: str, topic_names: tuple[str, ...]) -> list[tuple[str, Ask]]:
    """Each clause of the asked part with what it asks, the first clause first.

    >>> [c for c, _ in asked_clauses("How many QA pairs are in Kite, and how many models were tested on it?", ())]
    ['How many QA pairs are in Kite', 'how many models were tested on it?']
    """
    _, lead, clauses = _clauses(standalone)
    # a first clause another follows may end on what it asks too: "What learning rate and how many epochs ...?"
    return [(c, _ask(c, topic_names, fragment=i > 0 or lead, followed=i == 0 and len(clauses) > 1))
            for i, c in enumerate(clauses)]


def _clauses(standalone: str) -> tuple[str, bool, list[str]]:
    """The asked part (after a lead), whether there was a lead, and its clauses."""
    lead = LEAD.match(standalone)
    asking = lead.group("ask") if lead else standalone  # "... - which corpus?": the asked part is after the dash
    # "In the X paper, which model did best?": what is asked follows a fronted phrase (its names still count as details)
    fronted = None if lead else FRONTED.match(asking)
    asked_part = fronted.group("ask") if fronted else asking
    return asking, bool(lead), [c for c in CLAUSE.split(asked_part) if c and c.strip(" ,?")] or [asked_part]


def _ask(clause: str, topic_names: tuple[str, ...], fragment: bool = False, followed: bool = False) -> Ask:
    """What one clause asks for: its noun phrase and whether a value is asked (a later clause may be a
    fragment: "..., and over how many benchmarks?"; so may a first one another clause `followed`: "What learning
    rate and ...").

    >>> asked_parts("What learning rate and how many epochs did Kite use?", ("Kite",))[1:]
    (Ask(asked='learning rate', numeric=False, measure=''), [Ask(asked='epochs', numeric=True, measure='count')])
    >>> asked_parts("Which is faster and how much faster is Kite?", ("Kite",))[1].asked
    ''
    """
    c = re.sub(r"\s*\([^()]*\)", "", clause).strip().rstrip("?").strip()  # "what daily dose (units/day) did ..."
    # (a first clause without a verb: "What learning rate", not "Which is better", "What about Kite")
    tail = fragment or (followed and not re.search(rf"\b(?:{AUX}|about)\b", c, re.I))
    m = (ASKED.match(c) or (ASKED_TAIL.match(c) if tail else None)
         or (None if fragment else ASKED_NP.match(c)))
    asked = NOT_NOUN.sub("", next((g for g in (m.groups() if m else ()) if g), "")).strip()
    if not m and not fragment:  # "crossformer segmentation F1 on which datasets?": what the words name is asked
        asked = terse_asked(c, topic_names)
    if asked and all(w.lower() in FUNCTION_WORDS for w in asked.split()):
        asked = ""  # "What exactly does it ...": no noun is asked
    if re.fullmatch(IRREGULAR_PAST, asked, re.I):
        asked = ""  # "- which won?": a verb, no noun asked
    if re.search(r"\b(?:papers?|articles?|abstracts?)$", asked, re.I):
        asked = ""  # "what is the most recent paper on X?": a paper is asked for, not a detail of one
    bounded = bool(m and m.re is ASKED and (m.group("a") or m.group("c")))  # ends at its auxiliary ("which X did")
    if not bounded:  # "what real data backed the tests": "real data" (not "self-supervised pretrained backbone did")
        asked = re.sub(r"^(\S+(?:\s+\S+)*?)\s+[a-z]+(?<!e)ed(?=\s|$).*$", r"\1", asked)
    asked = re.sub(rf"^(?:{CARDINAL}|\d+)\s+(?=\S)", "", asked, flags=re.I)  # "which two LLMs"
    if asked and norm(asked) in {norm(n) for n in topic_names}:
        asked = ""
    measure = next((m for m, rx in MEASURE_ASKED.items() if rx.search(c)), "")  # what kind of value the clause asks
    if measure in ("names", "winner"):  # the items behind a count the question states, or the best one: names
        return Ask(asked, False, measure)
    return Ask(asked, bool(NUMERIC.search(c) or (asked and MEASURED.search(c)) or measure), measure)


# comparatives: a change or a contrast is asked ("how much smaller", "what is it better at"), no thing an abstract names
_COMPARATIVES = frozenset("better worse faster slower smaller larger bigger higher lower longer shorter quicker "
                          "cheaper greater fewer less more leaner stronger weaker easier harder".split())
# verbs a question word is the subject of ("what happens to X?", "what gets better?"), no noun after all
_VERBS = frozenset("happens happened happen gets got means matters goes comes helps causes explains drives".split())
_PARTICLES = frozenset("back up out off down away".split())
# words that may open a noun phrase asked although they are function words ("fewer computations", "most cited")
_QUANTIFIERS = frozenset("few fewer many much more most several other own same".split())


def noun_phrase(asked: str) -> str:
    """The asked words (`Ask.asked`, which the sentence ranker reads whole) as the noun phrase an abstract is checked
    for and a gap is named by ("The X abstract reports no <it>."), "" when they are none. Function words and
    particles at the ends go ("share of", "numbers back", "that worth in dollars"); a comparison is of the thing
    compared with ("faster than R-CNN": R-CNN) or of nothing named ("smaller"); a verb after an auxiliary ("does
    add"), a past participle ("called") or a verb whose subject is the question word ("what happens to X") is no
    noun phrase: no "The X abstract reports no happens." is ever written.

    >>> [noun_phrase(a) for a in ("share of", "numbers back", "that worth in dollars", "percentage of children on")]
    ['share', 'numbers', 'worth in dollars', 'percentage of children']
    >>> [noun_phrase(a) for a in ("smaller", "faster than R-CNN", "does add", "happens", "it", "it called")]
    ['', 'R-CNN', '', '', '', '']
    >>> [noun_phrase(a) for a in ("fewer computations", "learning rate", "GPU hours", "number of speakers")]
    ['fewer computations', 'learning rate', 'GPU hours', 'number of speakers']
    """
    words = asked.split()
    while words and (words[-1].lower() in FUNCTION_WORDS or words[-1].lower() in _PARTICLES):
        words.pop()
    if words and re.fullmatch(AUX, words[0], re.I):
        return ""  # "does add": a verb follows the auxiliary
    while words and words[0].lower() in FUNCTION_WORDS - _QUANTIFIERS:
        words.pop(0)
    low = [w.lower() for w in words]
    if "than" in low:
        return noun_phrase(" ".join(words[low.index("than") + 1:]))
    if len(low) == 1 and (low[0] in _COMPARATIVES or low[0] in _VERBS or re.fullmatch(r"[a-z]{3,}(?<!e)ed", low[0])):
        return ""
    return " ".join(words)


# a terse question is a noun phrase: no question word, auxiliary or request opens it or stands in it
_FULL = re.compile(rf"^(?:{OPENER}|tell|give|list|show|name|compare|contrast|summari[sz]e|explain|describe|find|"
                   rf"please|i|we|there|any|anything|papers?|hey|hi)\b|(?:[,;:]|\s[-\u2013\u2014]+)\s*(?:{WH})\b"
                   rf"|\b{AUX}\b|[?]", re.I)  # (a question word after a preposition asks of the head: "F1 on which")
_HEAD_END = re.compile(r"(?:^|\s+)(?:on|in|for|of|with|at|by|from|to|over|than|per|across|under|using|via|vs\.?|versus|"
                       r"compared|relative|against|and|or|plus|applied|used)\b|\s*(?:[,/;:+]|\s[-\u2013\u2014]+\s)")
TERSE_WORDS = 12


def terse_asked(clause: str, topic_names: tuple[str, ...]) -> str:
    """What a terse question asks of the paper it names first: the names among the words after the name, up to the
    first preposition or conjunction ("crossformer segmentation F1 on which datasets?" -> "F1"); "" for a full
    question, when only the paper is named, or when the words name nothing.

    >>> terse_asked("crossformer segmentation F1 on which datasets", ("crossformer",))
    'F1'
    >>> terse_asked("Kite avg accuracy gain vs FedAvg", ("Kite",)), terse_asked("What does Kite report", ("Kite",))
    ('', '')
    """
    if _FULL.search(clause) or len(clause.split()) > TERSE_WORDS:
        return ""
    # the paper's name opens it ("TitaNet EER on VoxCeleb1"; a name inside reads as a title: "Storage of X: ...")
    opening = (re.match(rf"(?:the\s+)?{re.escape(n)}(?:'s|’s)?(?![\w\-])", clause.strip(), re.I)
               for n in sorted(topic_names, key=len, reverse=True))
    first = next((m for m in opening if m), None)
    if not first:
        return ""  # (naming no paper first: a description or a title)
    rest = clause.strip()[first.end():].strip(" ,")
    head = _HEAD_END.split(rest, maxsplit=1)[0] if rest else ""
    # its names only ("EER", "mAP50", "OSWorld success rate" -> "OSWorld"): a terse phrase in the asker's words ("avg
    # performance gain") is no wording the abstract must share
    return " ".join(named_terms(head))


def asking_text(question: str) -> str:
    """The words of a question that ask, without those that only say which paper is meant: the last sentence that
    asks (a description may come first), after a lead or a fronted phrase ("In the X study, ...", "X vs Y: rate at
    year 4?"), without a gloss in brackets or a clause describing a paper ("the framework that combines ...", up to
    the next punctuation: a verb after the clause goes with it, the asked noun before it stays).

    >>> asking_text("A benchmark probes retrieval. How many countries does each task cover?")
    'How many countries does each task cover?'
    >>> asking_text("PIP implants vs Mentor Siltex: cumulative deflation rate at year 4?")
    'cumulative deflation rate at year 4?'
    >>> asking_text("What rate (in short) does the framework that combines pruning and encoding reach?")
    'What rate does the ?'
    >>> asking_text("How does Kite compare with FedAvg? Thanks.")
    'How does Kite compare with FedAvg?'
    """
    q = re.sub(r"\s*\([^()]*\)", "", question).strip()
    parts = re.split(r"(?<=[.?!])\s+(?=[A-Z])", q)
    q = next((p for p in reversed(parts) if "?" in p), parts[-1])  # "How does X compare? Thanks."
    lead = lead_match(q)
    if lead:
        q = lead.group("ask")
    elif re.search(r":\s", q):  # a terse "<what it is about>: <what is asked>?"
        q = re.split(r":\s+", q)[-1]
    return DESCRIBED.sub("", q)


# The asked phrase itself, read as parts (`missing_detail` checks each against the abstract)
GENERIC_ASKED = frozenset(
    "kind kinds type types sort group groups category categories class classes way ways part parts role main key new "
    "specific exact particular aspect aspects "
    "thing things idea ideas problem problems goal goals purpose design changes change contribution contributions "
    "paper papers method methods approach work model models technique framework system they it authors "
    "fraction percentage percent share proportion ratio number amount much many value values techniques technique "
    "strategies strategy components component steps step mechanisms mechanism ingredients elements tricks "
    "architecture architectures pipeline procedure scheme structure setup score scores performance result results "
    "numbers figure figures margin margins factor than".split()
)
# nouns that name a dimension of something ("bougie size", "dropout rate"): the asked thing is what they measure
# "how much leaner is X than Y?": a comparative asks for a difference, it is no thing to find in the abstract (those
# naming a direction of change, "smaller", "faster", "better", are CHANGE words below, checked first)
COMPARATIVES = frozenset("more less fewer higher lower bigger greater longer shorter wider narrower deeper shallower "
                         "heavier lighter leaner costlier quicker stronger weaker earlier later older younger safer "
                         "easier harder simpler denser sparser tighter".split())
DIMENSIONS = frozenset("size sizes rate rates length lengths dose doses level levels duration width depth "
                       "diameter frequency volume weight concentration temperature".split())
CHANGE = {  # change words: the abstract must state a change of this direction (and, asked, a number)
    "gain": ("gain", "improv", "outperform", "increas", "boost", "higher", "better", "surpass"),
    "improvement": ("improv", "gain", "outperform", "increas", "boost", "higher", "better", "surpass"),
    "increase": ("increas", "improv", "gain", "higher", "boost"),
    "reduction": ("reduc", "decreas", "lower", "fewer", "cut", "less", "sav"),
    "decrease": ("decreas", "reduc", "lower", "fewer", "less"),
    "drop": ("drop", "decreas", "reduc", "lower"),
    "speedup": ("speed", "faster", "×", "accelerat"),
    "smaller": ("small", "reduc", "less", "fewer", "only", "compact", "lower", "%", "×"),
    "larger": ("larg", "increas", "more", "bigger", "higher", "%", "×"),
    "faster": ("fast", "speed", "accelerat", "×", "time", "hours", "minutes"),
    "slower": ("slow", "time", "×"),
    "cheaper": ("cheap", "cost", "reduc", "less", "sav", "×"),
    "boost": ("boost", "improv", "gain", "increas"),
    "better": ("better", "improv", "outperform", "surpass", "gain", "higher", "beat", "exceed", "superior"),
    "worse": ("worse", "lower", "drop", "degrad", "fall", "underperform"),
}
SPLIT = re.compile(
    r"\s+(?:and|or|over|on|in|at|for|of|with|from|by|to|when|against|compared|across|per|between)\s+", re.I)
COORDINATED = re.compile(r"\s(?:and|or)\s|,", re.I)  # "repair rate and 30-day mortality": two quantities asked
def asked_parts_of(asked: str) -> tuple[list[list[str]], list[str]]:
    """The asked phrase as noun-phrase parts (each a word list) and its change words."""
    parts, changes = [], []
    for chunk in SPLIT.split(asked):
        toks = [w for w in WORD.findall(chunk) if w.lower() not in ("a", "an", "the")]
        if (len(toks) == 2 and toks[-1].lower() in GENERIC_ASKED
                and re.fullmatch(r"[a-z]+(?:ed|ing|ive|al|ous|ent|ant|ble|ar)", toks[0])):
            # "established architectures", "competing methods": an adjective qualifying a generic thing
            # ("batch size" stays)
            continue
        words = []
        for w in WORD.findall(chunk):
            lw = w.lower()
            if lw in CHANGE or stem(lw) in CHANGE:
                changes.append(lw if lw in CHANGE else stem(lw))
            elif (lw not in STOP and lw not in GENERIC_ASKED and lw not in COMPARATIVES and len(w) > 1
                  and not NUMBER_WORDS.fullmatch(lw)):
                words.append(w)
        if words:
            parts.append(words)
    return parts, changes


# (a possessive: "properties of its filter", the paper's own thing in the asker's word for it)
OWN_WORDS = re.compile(r"\b(?:new|novel)\b|\w-(?:style|like|type|esque)\b|\b(?:its|their)\s+[\w\-]+$", re.I)


def in_own_words(asked: str) -> bool:
    """The asked thing as the asker describes it, not as a paper would name it: a contribution ("what new
    aggregation did they add?": the paper calls it "pooling") or a likeness ("softmax-style").

    >>> in_own_words("new aggregation"), in_own_words("softmax-style"), in_own_words("bougie size")
    (True, True, False)
    >>> in_own_words("properties of its filter"), in_own_words("its learning rate")
    (True, False)
    """
    return bool(OWN_WORDS.search(asked))
