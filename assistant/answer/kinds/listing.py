"""A "which papers ..." list: every retrieved paper with a sentence that matches the criterion, a
count, and a cited justification per paper. A criterion has parts: each named part ("FEMNIST",
"LibriSpeech") must occur in a listed paper's abstract, and when no paper has one, the answer
declines and says which part nothing matches.
"""

from __future__ import annotations

from collections.abc import Generator

from ...index.sentences import split_sentences
from ..compose import trim
from ..events import Event
from ..evidence import ABSTAIN_SENTENCE
from ..linker import norm
from ..listsize import LIST_POOL, LIST_SHOW, candidates, list_header
from ..naming import marked_label
from ..state import Draft, Prepared, cite
from .base import Context

LIST_MARGIN = 0.05  # a listed paper's best sentence must beat the abstention threshold by this much


class ListWriter:
    def write(self, prep: Prepared, ctx: Context) -> Generator[Event, None, Draft]:
        yield from ()  # a generator like every writer; lists are composed without events
        draft = Draft("list")
        q = prep.question
        crit = q.criterion
        th = ctx.settings.abstain_threshold + LIST_MARGIN
        found = []
        unmatched = [p for p in q.parts if not any(norm(p) in norm(h.text + " " + h.title) for h in prep.hits)]
        if unmatched:
            missing = f"No indexed abstract mentions {', '.join(unmatched)}."
            draft.kind, draft.text = "abstain", f"{ABSTAIN_SENTENCE} {missing}"
            draft.notes.append(missing)
            draft.related = prep.hits[:3]
            return draft
        pool = candidates(prep.hits, crit)
        for h in pool:
            if q.parts and not all(norm(p) in norm(h.text + " " + h.title) for p in q.parts):
                continue
            sents = [s.text for s in split_sentences(h.text)]
            row = ctx.scorer.matrix([crit], sents)[0]
            j = int(row.argmax())
            if row[j] >= th:
                found.append((h, j, sents[j]))
        # in retrieval order (the whole abstract against the criterion), not by one sentence's overlap with it:
        # "it" in a follow-up is the first listed paper
        if not found:
            draft.kind, draft.text = "abstain", ABSTAIN_SENTENCE
            draft.notes.append(f"No indexed abstract matches “{crit}”.")
            draft.related = prep.hits[:3]
            return draft
        complete = len(prep.hits) < LIST_POOL or len(found) < len(prep.hits)  # not every retrieved paper matched
        lines = [list_header(len(found), LIST_SHOW, crit, complete), ""]
        draft.listed = {"found": len(found), "shown": min(len(found), LIST_SHOW), "complete": complete}
        rw = ctx.rw()
        rw.prepare([(sent, prep.names.get(h.paper_id, "")) for h, _, sent in found[:LIST_SHOW]])
        for n, (h, j, sent) in enumerate(found, start=1):
            if n <= LIST_SHOW:
                shown = marked_label(h.record, name=prep.names.get(h.paper_id, ""))  # a derived label marked untitled
                lines.append(f"{n}. {shown} — {trim(rw(sent, prep.names.get(h.paper_id, '')) or sent, 30)} [{n}]")
            draft.citations.append(cite(n, h, [j]))  # every match cited: a front end can show all
        listed = [f[0] for f in found]
        prep.hits = listed + [h for h in prep.hits if h not in listed]
        draft.text = "\n".join(lines)
        return draft
