"""Which record fields a question asks for (authors, year, venue, "most recent"): found in analysis, decided
on in decide.py (`metadata.from_record`), written by kinds/metadata.py."""

from __future__ import annotations

import re

from ..types import Hit
from .support import content_words

# (field, pattern, an example it must match) -- tests/test_metadata.py checks each example
ASKS: tuple[tuple[str, str, str], ...] = (
    ("authors", r"\b(?:who (?:are|were|is|was) the authors?|who (?:wrote|authored|developed|proposed|published|"
                r"created)|authors? of|written by|by whom)", "Who wrote FedMerge?"),
    ("year", r"\b(?:when (?:was|were|did)\b.*\b(?:published|released|written|appear\w*|come out|posted)|"
             # not "what yearly gain", "what year-long study", "what years of follow-up"
             r"(?:what|which) years?\b(?!-)(?!\s+of\b)|year of publication|publication (?:year|date)|"
             # "how old is FedMerge / the paper?" (not "how old were its patients?": their age is in the abstract)
             r"how old (?:is|was) (?:it|this|that|the (?:paper|work|study|article|abstract)|[^\s?]+)\s*\??$)",
     "When was Prune&Comp published?"),
    ("venue", r"\b(?:which|what) (?:venue|journal|conference|workshop)|where (?:was|were) (?:it|they|\w+) "
              r"published|published (?:in|at) which\b", "Which venue was OTARo published at?"),
    ("recent", r"\b(?:most recent|latest|newest|oldest|earliest|most up-to-date) (?:\w+ )?"
               r"(?:papers?|works?|stud(?:y|ies)|articles?|publications?|abstracts?)\b",
     "What is the most recent paper on federated learning?"),
)
_ASKS = tuple((f, re.compile(p, re.IGNORECASE)) for f, p, _ in ASKS)

def asks_metadata(question: str) -> tuple[str, ...]:
    """The record fields a question asks for ('authors', 'year', 'venue', 'recent'), in that order.

    >>> asks_metadata("Who are the authors of FedMerge and when was it published?")
    ('authors', 'year')
    >>> asks_metadata("What does FedMerge propose?")
    ()
    """
    return tuple(f for f, rx in _ASKS if rx.search(question))


def asked_of(question: str) -> str:
    """The words a record field is asked of: from the first metadata cue to the end of its clause ("what year
    was the HumanMAC baseline published", "who wrote the DINOv2 paper"); "" when none is asked.

    >>> asked_of("In the MDC paper, what year was the HumanMAC baseline published? And its FID?")
    'what year was the HumanMAC baseline published'
    """
    starts = [m.start() for _, rx in _ASKS for m in [rx.search(question)] if m]
    if not starts:
        return ""
    return re.split(r"[?;,]", question[min(starts):], maxsplit=1)[0].strip()


def on_topic(question: str, hits: list[Hit]) -> list[Hit]:
    """Of the first ten papers retrieved, those whose abstract uses every content word of the topic asked
    ("the most recent paper on protein folding": 'protein' and 'folding'); [] when the question names none."""
    on = re.search(r"\b(?:on|about|in|for|regarding)\s+(.+?)\??$", question, re.IGNORECASE)
    words = content_words(on.group(1)) if on else set()
    return [h for h in hits[:10] if words and words <= content_words(h.text + " " + h.title)]
