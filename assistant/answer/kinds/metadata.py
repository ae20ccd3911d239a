"""Metadata questions ("Who wrote X?", "When was X published?", "Which venue?", "the most recent paper on
Y") answered from the records' fields (Record.authors / year / venue), cited, "not recorded" when a
field is empty. Abstracts rarely state their own authors or year: these answers never quote them.

    asked = asks_metadata("Who are the authors of FedMerge and when was it published?")   # ("authors", "year")
    draft = yield from MetadataWriter().write(prep, ctx)

A question that names a paper is answered for that paper (the topic); "most recent"/"oldest" compares
the years of the papers retrieved for the rest of the question.
"""

from __future__ import annotations

import re
from collections.abc import Generator

from ...types import Hit
from ..events import Event
from ..metadata_asked import ASKS, asks_metadata  # noqa: F401 -- re-exported
from ..naming import marked_label
from ..state import Draft, Prepared, cite
from .base import Context

NOT_RECORDED = "not recorded"




def _authors(names: tuple[str, ...]) -> str:
    names = tuple(n for n in names if n)
    if len(names) > 6:
        return ", ".join(names[:6]) + " et al."
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _fields(hit: Hit, asked: tuple[str, ...], label: str, n: int) -> str:
    """'LABEL: written by A and B; published in 2024; venue not recorded in this corpus [n].'"""
    r = hit.record
    parts = []
    if "authors" in asked:
        parts.append(f"written by {_authors(r.authors)}" if r.authors else f"authors {NOT_RECORDED}")
    if "year" in asked:
        parts.append(f"published in {r.year}" if r.year else f"year {NOT_RECORDED}")
    if "venue" in asked:
        parts.append(f"appeared in {r.venue}" if r.venue else f"venue {NOT_RECORDED}")
    missing = any(NOT_RECORDED in p for p in parts)
    return (f"{label}: " + "; ".join(parts) + (" in this corpus" if missing and NOT_RECORDED in parts[-1] else "")
            + f" [{n}].")


class MetadataWriter:
    def __init__(self, asked: tuple[str, ...]) -> None:
        self.asked = asked

    def write(self, prep: Prepared, ctx: Context) -> Generator[Event, None, Draft]:
        yield from ()  # a generator like every writer; composed from the records alone
        draft = Draft("answer")
        q = prep.question
        topic = [h for h in prep.hits if h.paper_id in q.topic] or prep.hits[:1]
        if "recent" in self.asked and not q.topic:
            return self._recent(prep, draft)
        parts = []
        for n, hit in enumerate(topic[:3], start=1):
            label = marked_label(hit.record, name=prep.names.get(hit.paper_id, ""))
            parts.append(_fields(hit, tuple(a for a in self.asked if a != "recent") or ("year",), label, n))
            draft.citations.append(cite(n, hit, []))
        draft.text = " ".join(parts)
        draft.notes.append("Answered from the records' metadata fields, not from the abstracts.")
        return draft

    def _recent(self, prep: Prepared, draft: Draft) -> Draft:
        oldest = bool(re.search(r"\b(?:oldest|earliest)\b", prep.question.text, re.IGNORECASE))
        pool = prep.hits[:10]
        if any(step.verdict == "abstain" for step in prep.decision.trace):  # weak evidence: only the papers on topic
            pool = prep.on_topic or pool  # (weighed in prepare; decide() made sure there is one)
        dated = [h for h in pool if h.record.year]
        if not dated:
            draft.text = (f"Publication years are {NOT_RECORDED} for the {len(pool)} papers retrieved for this "
                          "question, so which is the " + ("oldest" if oldest else "most recent")
                          + " cannot be told from this corpus.")
            draft.related = pool[:3]
            return draft
        pick = sorted(dated, key=lambda h: h.record.year, reverse=not oldest)[0]
        label = marked_label(pick.record, name=prep.names.get(pick.paper_id, ""))
        undated = len(pool) - len(dated)
        tied = [h for h in dated if h.record.year == pick.record.year and h is not pick]
        draft.text = (f"Of the {len(pool)} papers retrieved for this question, "
                      f"the {'oldest' if oldest else 'most recent'} is {label} ({pick.record.year}) [1]."
                      + (f" {len(tied)} other{'s' if len(tied) > 1 else ''} of them "
                         f"{'are' if len(tied) > 1 else 'is'} from {pick.record.year} too "
                         "(the records give years, not dates)."
                      if tied else "") + (f" {undated} of them have no recorded year." if undated else ""))
        draft.citations.append(cite(1, pick, []))
        draft.notes.append("Answered from the records' year field, not from the abstracts.")
        return draft
