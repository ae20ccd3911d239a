"""A "which papers ..." list: the papers weighing found to meet the criterion (`prep.rows`: each named part
of the criterion in the abstract, a sentence matching it above the bar, checked on the whole retrieved pool),
the full count ("at least N" when the pool itself was full of matches), the first `LIST_SHOW` written out
with a cited justification each, and every match cited so a front end can show all. Whether to list at all
is decided in decide.py (`list.*` rules).
"""

from __future__ import annotations

from collections.abc import Generator

from ..acronyms import as_shown
from ..compose import trim
from ..events import Event
from ..listsize import LIST_POOL, LIST_SHOW, list_header
from ..naming import marked_label
from ..state import Draft, Prepared, cite
from .base import Context


class ListWriter:
    def write(self, prep: Prepared, ctx: Context) -> Generator[Event, None, Draft]:
        yield from ()  # a generator like every writer; lists are composed without events
        draft = Draft("list")
        # in retrieval order (the whole abstract against the criterion), not by one sentence's overlap with it:
        # "it" in a follow-up is the first listed paper
        found = prep.rows
        retrieved = len({h.paper_id for h in prep.hits})
        complete = retrieved < LIST_POOL or len(found) < retrieved  # not every retrieved paper matched
        lines = [list_header(len(found), LIST_SHOW, prep.question.criterion, complete), ""]
        draft.listed = {"found": len(found), "shown": min(len(found), LIST_SHOW), "complete": complete}
        rw = ctx.rw()
        shown = [(h, sent, prep.names.get(h.paper_id, "")) for h, _, sent in found[:LIST_SHOW]]
        texts = as_shown(rw, [(sent, name, h.text) for h, sent, name in shown])  # prose, acronyms spelled out
        for n, ((h, sent, name), text) in enumerate(zip(shown, texts), start=1):
            label = marked_label(h.record, name=name)  # a derived label is marked untitled
            grown = len(text.split()) - len(rw(sent, name).split())  # (a long form costs no words of the claim)
            lines.append(f"{n}. {label} — {trim(text or sent, 30 + grown)} [{n}]")
        # every match cited, not only those written out: a front end can show all
        draft.citations = [cite(n, h, [j]) for n, (h, j, _) in enumerate(found, start=1)]
        draft.text = "\n".join(lines)
        return draft
