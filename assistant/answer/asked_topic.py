"""The topic a question asks the collection about: "is there a paper on X?", "what does the paper on X find?",
"which paper does X?" (one paper, described by its topic: `described_topic`), and "has anyone here worked on X?"
(whether the collection holds work on it: a list, `existence_topic`). Patterns and the spans they read; the
decisions on them are made in `prepare.py` (a described paper must cover its topic) and `questionkind.py`.
"""

from __future__ import annotations

import itertools
import re

from .criterion import without_contrast, without_examples
from .words import FUNCTION_WORDS

# the topic a question names its paper by: "Is there a paper here on protein structure prediction?", "How does the
# paper on speculative decoding choose ...": a short topic phrase (a long description is a paraphrase)
_REPORTS = r"(?:choose|do|did|use|propose|say|report|handle|show|find|found|conclude|claim|achieve|get)(?:e?s)?\b"
PAPER_ON = re.compile(
    r"\b(?:is there|are there|any)\s+(?:a |an |any )?(?:paper|work|study|research|article)s?"
    r"(?:\s+(?:here|in the corpus))?"
    r"\s+(?:on|about|into)\s+(?P<t>[^?,;]{3,80}?)\s*(?:\?|,|;|$)"
    # "what does the paper on X run on?": after "does", the last word before "?" (and a preposition) is a verb
    rf"|\b(?:does|did|do)\s+the (?:paper|work|study|article) (?:on|about) (?P<v>(?:(?!\s{_REPORTS})[^?,;]){{3,60}}?)"
    r"(?=\s+[a-z]+(?:\s+(?:on|in|with|for|about|to|from|at|by))?\s*\?)"
    rf"|\bthe (?:paper|work|study|article) (?:on|about) (?P<u>[^?,;]{{3,60}}?)(?=\s+{_REPORTS}|\s*[?,;])",
    re.I,
)
# "Is there a paper that applies X to Y?", "I'm after a paper which uses X for Y": one paper, described by a clause
A_PAPER_THAT = re.compile(r"\b(?:a|an|any|one)\s+(?:paper|work|study|article)\s+(?:here\s+|in (?:the|this) "
                          r"(?:corpus|collection|library)\s+)?(?:that|which)\s+(?P<t>(?!(?:is|are|was|were|i|we|you)\b)"
                          r"[a-z][^?.;:]{3,150}?)\s*(?:[?.;:]|\s[-\u2013\u2014]+\s|$)", re.I)
# "X - any paper on that?": the topic stands before the question and a pronoun points back at it
_BACK = re.compile(r"^(?:that|this|it|these|those|them)$", re.I)
_LEAD = re.compile(r"^(?P<t>[^?:;]{3,120}?)\s*(?:\s[-\u2013\u2014]+\s|:\s)", re.I)
# "Which paper trains a quadruped robot to walk ...?": one paper, described by what it does
WHICH_PAPER = re.compile(r"^(?:which|what) (?:paper|work|study|article)\s+(?P<t>(?!(?:is|are|was|were|do|does|did|has|"
                         r"have|had|in|of|on|here)\b)[a-z]+\s[^?]{3,150}?)\s*\??$", re.I)


# what a question asks of the paper it describes, after the description: "Which paper proposes X, and how well does it
# work?" describes its paper by X
_ASKED_NEXT = re.compile(r"\s*(?:,\s*(?:and\s+)?|;\s*|\s+and\s+)(?=(?:what|which|how|who|whom|whose|when|where|why|"
                         r"is|are|was|were|does|do|did|can|could)\b)", re.I)


# Whether the collection holds work on a topic, asked in a frame of function words, words for the collection and
# words for looking ("Has anyone here used X?", "X - any papers?", "what work is there on X?", "I'm looking for X
# work - what does the collection have?"): the topic is the one span of other words, and the question is a list.
_COLLECTION = frozenset("work works papers studies research articles abstracts literature collection corpus library "
                        "index".split())  # (singular "a paper / a study" asks for one paper)
_WHOLE = frozenset("collection corpus library index".split())
_SOMEONE = frozenset("anyone anybody someone somebody anything something".split())
_LOOKING = frozenset("here there exist exists looking look searching search find want interested need got have has "
                     "know see used tried done cover covers covered contain contains hold holds i'm im please deal "
                     "deals dealing".split())
_ASKING = frozenset("any there here looking".split())  # "X papers in here?"
_WHICH_PAPERS = re.compile(r"\b(?:which|what)\s+(?:papers|works?|studies|articles|abstracts|research)\b", re.I)
_HOLDING = frozenset("have has hold holds contain contains deal deals".split())  # "what work ... deals with X?"
_NOT_A_TOPIC = re.compile(r"\b(?:what|which|who|whom|whose|when|where|why|how|that|is|are|was|were|been|being)\b"
                          r"|[?.;:]", re.I)
_FRAME = FUNCTION_WORDS | _COLLECTION | _SOMEONE | _LOOKING
EXISTENCE_TOPIC_WORDS = 6  # a longer span describes a paper in the asker's words ("Has anyone used X to Y over Z ...?")


def _framed(question: str, frame: frozenset[str]) -> tuple[list[re.Match], list[str], int, int]:
    """The question's tokens, lower-cased, and the first and last token not in `frame` (no tokens: none)."""
    # a word may open with digits ("2-bit", "3D"); a number alone is no word
    toks = list(re.finditer(r"[A-Za-z][\w\-'’]*|\d[\w\-]*[A-Za-z][\w\-'’]*|[^\sA-Za-z]", question))
    low = [t.group(0).lower().replace("’", "'") for t in toks]  # "I’m" is "I'm"
    topic = [i for i, t in enumerate(low) if t[0].isalnum() and not t.isdigit() and t not in frame]
    return (toks, low, topic[0], topic[-1]) if topic else ([], [], 0, 0)


# Whether the collection holds one paper on a topic, asked in a frame of function words, words for one paper and
# words for looking ("Is there a trial of X?", "I need a paper on X - is there one here?", "Is there a paper in the
# collection on X?"): the topic is the span of other words, and the question asks for one paper described by it.
_ONE = frozenset("paper work study trial article research one".split())
_ASKS = frozenset("what which who whom whose when where why how".split())  # something asked of the paper
_ONE_FRAME = (FUNCTION_WORDS | _ONE | _WHOLE | _LOOKING) - {"used", "tried", "done"}
# a question opening with an auxiliary asks whether something holds ("Did a trial show X?", "Is one dose enough?"),
# and one with a verb of finding asks for a finding ("Is there a study showing X reduces Y?"): neither is a topic
_AUXILIARY = frozenset("do does did is are was were has have had can could would should will".split())
_FINDING = re.compile(r"^(?:show|shows|showed|shown|showing|found|reports?|reported|reporting|demonstrat\w*|"
                      r"prove[sdn]?|suggest\w*|conclud\w*|confirm\w*|establish\w*)$")


def one_paper_topic(question: str) -> str:
    """The topic of a question asking whether the collection holds one paper on it (singular: "is there a ...",
    "a paper on ..."), or "". Not a question that asks something of it ("what", "how") or for several papers.

    >>> one_paper_topic("Is there a trial of vitamin D supplements to prevent falls in older people?")
    'vitamin D supplements to prevent falls in older people'
    >>> one_paper_topic("Is there a paper in the collection on using LLMs for theorem proving?")
    'using LLMs for theorem proving'
    >>> one_paper_topic("Is there a model to teach nephrectomy?"), one_paper_topic("Is there a link between X and Y?")
    ('', '')
    >>> one_paper_topic("Are there any papers on speech?"), one_paper_topic("Is there a paper on X? What does it find?")
    ('', '')
    >>> one_paper_topic("Is FedMerge a paper on speech?"), one_paper_topic("Has anyone used KANs for speech?")
    ('', '')
    >>> one_paper_topic("Did a trial show aspirin cuts deaths?"), one_paper_topic("Is there a study showing X cuts Y?")
    ('', '')
    >>> one_paper_topic("Is one dose of aspirin enough?"), one_paper_topic("I need a paper on X - is there one here?")
    ('', 'X')
    """
    toks, low, a, b = _framed(question, _ONE_FRAME)
    if (not toks or _NOT_A_TOPIC.search(question[toks[a].start():toks[b].end()]) or set(low) & _ASKS
            or (low[0] in _AUXILIARY and low[:2] not in (["is", "there"], ["are", "there"]))
            or any(_FINDING.match(t) for t in low)):
        return ""
    outside = low[:a] + low[b + 1:]
    # one paper asked for: "a paper", "a study", "is there one", "one here" (not "is there a model to teach X?":
    # whether a thing exists, a finding of some paper)
    singular = any((x in ("a", "an", "any") and y in _ONE - {"one"}) or (x, y) == ("there", "one")
                   or (x == "one" and y in ("here", "on", "about", "in")) for x, y in itertools.pairwise(outside))
    if not singular or set(outside) & (_COLLECTION - _WHOLE - _ONE) or _SOMEONE & set(outside):
        return ""
    return question[toks[a].start():toks[b].end()]


def existence_topic(question: str) -> str:
    """The topic of a question asking whether the collection holds work on it, or "" for any other question.

    >>> existence_topic("Has anyone here used spiking neural networks for object detection?")
    'spiking neural networks for object detection'
    >>> existence_topic("stock price forecasting with deep learning - any papers?")
    'stock price forecasting with deep learning'
    >>> existence_topic("I’m looking for EEG-based emotion recognition work; what does the collection have?")
    'EEG-based emotion recognition'
    >>> existence_topic("ocean wave forecasting from buoys - which papers?")
    'ocean wave forecasting from buoys'
    >>> existence_topic("Is there anything in here on 2-bit quantization of the KV cache?")
    '2-bit quantization of the KV cache'
    >>> existence_topic("What work in the collection deals with Tagalog?"), existence_topic("SemEval papers in here?")
    ('Tagalog', 'SemEval')
    >>> existence_topic("Has anyone tried to predict which puzzles people find funny?")  # a paper described
    ''
    >>> existence_topic("Is there a study using gene editing?"), existence_topic("What does Kite report on speed?")
    ('', '')
    >>> existence_topic("Is there work that routes speech to experts?"), existence_topic("Any work on speech?")
    ('', '')
    """
    if PAPER_ON.search(question):
        return ""  # "Is there a paper on X?", "any work on X?": one paper on a topic, checked as such (prepare.py)
    toks, low, a, b = _framed(question, _FRAME)
    if not toks:
        return ""
    outside = {t for i, t in enumerate(low) if t[0].isalpha() and not a <= i <= b}
    asks = (outside & _SOMEONE or (outside & _COLLECTION and (outside & _ASKING or _WHICH_PAPERS.search(question)))
            or (outside & _WHOLE and outside & _HOLDING))
    if b + 1 < len(toks) and low[b + 1] in (")", "]") and "(" in question[toks[a].start():toks[b].end()]:
        b += 1  # "(anti-spoofing)"
    span = question[toks[a].start():toks[b].end()]
    described = a and low[a - 1] in ("that", "which", "who", "where", "whose")  # "is there work that routes ...": one
    if (not asks or described or set(low[a:b + 1]) & (_COLLECTION | _SOMEONE) or _NOT_A_TOPIC.search(span)
            or len([t for t in low[a:b + 1] if t[0].isalpha() and t not in FUNCTION_WORDS]) > EXISTENCE_TOPIC_WORDS):
        return ""
    return span


def described_topic(question: str) -> tuple[str, bool]:
    """The topic a question describes its one paper by ("" when none), and whether it names it as "the paper on
    X" / "is there a paper on X?" (a topic, `PAPER_ON`) rather than describing what the paper does ("which paper
    does X?", `WHICH_PAPER`, in the asker's own words).

    >>> described_topic("What does the paper on sign language recognition find?")
    ('sign language recognition', True)
    >>> described_topic("What does the paper on detection run on?"), described_topic("Summarise the paper on GANs?")
    (('detection', True), ('GANs', True))
    >>> described_topic("Which paper trains a quadruped robot to walk?"), described_topic("Is there a paper on NeRF?")
    (('trains a quadruped robot to walk', False), ('NeRF', True))
    >>> described_topic("Which paper is the fastest?"), described_topic("What does FedMerge report?")
    (('', False), ('', False))
    >>> described_topic("I'm after a paper that uses graph networks for weather forecasting. Is there one?")
    ('uses graph networks for weather forecasting', False)
    >>> described_topic("ocean wave forecasting from buoys - any paper on that?")
    ('ocean wave forecasting from buoys', True)
    >>> described_topic("I need a paper on EEG-based emotion recognition - is there one here?")
    ('EEG-based emotion recognition', True)
    >>> described_topic("Which paper proposes an unlearning method for LLMs, and how well does it work?")
    ('proposes an unlearning method for LLMs', False)
    >>> described_topic("Is there a paper here on LLMs for theorem proving, e.g. in Lean or Isabelle?")  # no example
    ('LLMs for theorem proving', True)
    >>> described_topic("Which paper predicts city growth from night lights instead of census data?")  # no contrast
    ('predicts city growth from night lights', False)
    """
    question = without_contrast(without_examples(question))  # (the asker's words for what the paper replaces)
    on = PAPER_ON.search(question)
    if on:
        topic = on.group("t") or on.group("v") or on.group("u")
        lead = _LEAD.match(question) if _BACK.match(topic.strip()) else None
        if not _BACK.match(topic.strip()) or lead:
            return (lead.group("t").strip() if lead else topic), True
    which = WHICH_PAPER.match(question) or A_PAPER_THAT.search(question)
    if which:
        return _ASKED_NEXT.split(which.group("t"), maxsplit=1)[0], False
    one = one_paper_topic(question)
    return (one, True) if one else ("", False)
