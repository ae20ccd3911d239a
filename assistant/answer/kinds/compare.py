"""A comparison: one table row per side (Problem / Method / Data / Result, a citation in every cell
or "not reported in the abstract"), above it an overview (without a model: each side's sentence that
best answers the question itself; with one: a model-written overview verified like any answer), and
a note naming each side no abstract describes.
"""

from __future__ import annotations

import re
from collections.abc import Generator

from ...index.sentences import split_sentences
from ...types import Hit
from ..answerable import states_asked
from ..contrast import difference, role_table
from ..events import Event, Status
from ..naming import shown_name
from ..prompts import load_prompt
from ..prose import is_debris
from ..roles import EMBEDDER
from ..sentrank import default_ranker
from ..state import Draft, Prepared, cite
from ..support import injected_sentences
from .base import Context, check, generate
from .single import ASKED_BONUS, source_block

SIDE_SENTENCES = 2  # sentences per side in the overview above the table


class CompareWriter:
    def write(self, prep: Prepared, ctx: Context) -> Generator[Event, None, Draft]:
        draft = Draft("compare")
        # the rows: the sides weighing found (decide() abstains when none is, and names each missing one)
        rows = list({hs[0].paper_id: hs[0] for hs, ok in zip(prep.sides, prep.side_found) if ok}.values())
        missing = list(prep.gaps)
        marked = [(h, n) for n, h in enumerate(rows, start=1)]
        overview, said = "", {}
        if ctx.chat is None and rows:  # one side found ("SPP-net vs R-CNN?" without R-CNN): still its answer first
            said = _side_picks(prep, ctx, rows)
            overview = difference(marked, said, prep.names, prep.question.standalone, ctx.rw())  # the difference first
        embed = ctx.scorer.vectors if ctx.scorer.name == EMBEDDER else None  # the scorer's cached vectors
        table, used = role_table(marked, prep.names, skip=said, rw=ctx.rw(), embed=embed)  # columns by role
        for n, ids in said.items():
            used.setdefault(n, []).extend(ids)
        draft.citations = [cite(n, h, used.get(n, [])) for n, h in enumerate(rows, start=1)]
        if ctx.chat is not None and len(rows) > 1:
            block = "\n".join(source_block(n, h, []) for n, h in enumerate(rows, start=1))
            body = load_prompt("compare").render(sources=block, question=prep.question.standalone)
            msgs = [{"role": "system", "content": load_prompt("system").render()}, {"role": "user", "content": body}]
            yield Status("generating")
            raw = yield from generate(ctx, msgs, prep, draft)
            v = check(ctx, raw, rows, draft)
            overview = _remap(v, rows)
        draft.text = (overview + "\n\n" if overview else "") + table
        if missing:
            draft.text += "\n\n*" + " ".join(missing) + "*"
            draft.notes += missing
        return draft


def _side_picks(prep: Prepared, ctx: Context, rows: list[Hit]) -> dict[int, list[int]]:
    """Per row marker, the side's abstract sentences that best answer the question itself ("What kind of
    pooling do both rely on?"); the statement above the table says them, the table compares the rest."""
    q = prep.question
    picked: dict[int, list[int]] = {}
    for n, h in enumerate(rows, start=1):
        sents = [x.text for x in split_sentences(h.text)]
        bad = injected_sentences(sents)
        keep = [i for i in range(len(sents)) if i not in bad]
        if not keep:
            continue
        ranker = default_ranker()
        if ranker is not None:  # the learned ranker: up to two sentences that answer the question for this side
            picks = sorted(ranker.pick(q, sents, ctx.scorer, name=shown_name(prep.names, h), skip=frozenset(bad),
                                       limit=SIDE_SENTENCES))  # (named as in its fitting: no title fallback)
        else:
            scores = ctx.scorer.matrix([q.standalone], [sents[i] for i in keep])[0]
            bonus = [ASKED_BONUS if q.asked and states_asked(q.asked, sents[i]) else 0.0 for i in keep]
            picks = [keep[max(range(len(keep)), key=lambda j: scores[j] + bonus[j])]]
        picked[n] = [i for i in picks if not is_debris(sents[i])]
    return picked


def _remap(v, rows: list[Hit]) -> str:
    """Verified overview markers are renumbered 1..n by first use; map them back to table rows."""
    row_of = {h.paper_id: n for n, h in enumerate(rows, start=1)}
    mapping = {c.marker: row_of[c.paper_id] for c in v.citations}
    return re.sub(r"\[(\d+)\]", lambda m: f"[{mapping.get(int(m.group(1)), int(m.group(1)))}]", v.text)
