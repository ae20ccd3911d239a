"""Weighing a comparison: each side's row paper and whether it was found (prepare.py calls this; decide.py
turns the finding into a verdict).

- the rows: named sides take their papers first; described sides are given theirs jointly (`assign_rows`:
  the paper two sides both find first goes to the side that has no other fitting paper);
- a side is found when it is named, its sentences answer, or (a described side) retrieval is sure of it;
- a side that is a name no abstract is about, and that no found side's abstract speaks of, declines the
  comparison; a setting asked ("on FEMNIST") that no side's abstract names declines it too;
- `one_paper`: a comparison whose every side finds the same paper first is a contrast inside that paper.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from ..types import Hit
from .answerable import has_term
from .criterion import uses_distinctive
from .evidence import gather_evidence, weak_evidence
from .figures import counts_in
from .findings import CompareFinding, SideFinding
from .linker import Lexicon
from .nameforms import named_terms, norm
from .phrasing import A_REPORT, SEPARATE_REPORTS
from .question import Question
from .sentrank import MEASURE_NOUN, value_asked
from .sides import lead_context
from .state import Prepared
from .support import SupportScorer
from .topics import TopicWords
from .words import QUOTED_SPAN

_CHOICE = re.compile(r"^(?:which|who)\b", re.I)


def quotes_title(side: str, hit: Hit) -> bool:
    """The side quotes the paper's title, or its opening ("'Transformers Don't Need LayerNorm at Inference Time'")."""
    side = side.strip()
    return bool(QUOTED_SPAN.fullmatch(side)) and norm(hit.title).startswith(norm(side[1:-1]))


RANK_COST = 0.1  # a described side's later candidate must fit this much better per place to be preferred
# what a side's having a row at all weighs, above any fit: a side whose every candidate misses its marks (fit below -1:
# "adds" in "the paper that adds test-time augmentation" is rare in the corpus) still gets its best one as its row;
# whether it was found is judged on its evidence (`weigh_compare`)
ROW = 10.0


def side_misses(topics: TopicWords, text: str) -> Callable[[Hit], int]:
    """How far a paper is from a described side's own marks: 2 when it lacks the side's distinctive words
    (topics.py: "on-policy"), 1 more when it lacks a count the side states ("the series of 44 patients": an
    abstract stating 44, "Forty-four patients"); 4 when the side quotes a title ("'Transformers Don't Need
    LayerNorm at Inference Time'") the paper's title does not open with."""
    keys, counts = topics.distinctive(text), {n for n in counts_in(text) if n >= 2}
    quoted = bool(QUOTED_SPAN.fullmatch(text.strip()))
    return lambda h: (2 * (bool(keys) and not uses_distinctive(h, keys))
                      + (bool(counts) and not counts & counts_in(h.text))
                      + 4 * (quoted and not quotes_title(text, h)))


def assign_rows(candidates: list[list[str]], fit: list[list[float]]) -> list[int | None]:
    """Each side's row paper, chosen jointly: one candidate per side (`candidates[i]`, retrieval's order, with
    how well each fits the side, `fit[i]`), no paper twice, the most total fit (less RANK_COST per place down
    retrieval's order). When two sides find the same paper first, it goes to the side that has no good other
    one ("the PK/PD study" has a second fitting paper, "the MIC-trend study" has not). None: no candidate left.

    >>> assign_rows([["a", "b"], ["a", "c"]], [[0.44, 0.34], [0.42, 0.20]])
    [1, 0]
    >>> assign_rows([["a", "b"], ["a", "c"]], [[0.6, 0.2], [0.5, 0.45]])
    [0, 1]
    >>> assign_rows([["a"], ["a"]], [[0.5], [0.4]])
    [0, None]
    >>> assign_rows([["a", "b", "c"], ["a", "b", "c"]], [[0.0] * 3, [0.0] * 3])  # alike sides: retrieval's order
    [0, 1]
    >>> assign_rows([["a", "b"], ["b", "a"]], [[-1.6, -1.7], [0.5, 0.2]])  # every candidate misses the side's marks
    [0, 0]
    """
    options = [[*range(len(c)), None] for c in candidates]
    best, best_score = [None] * len(candidates), float("-inf")
    for pick in itertools.product(*options):
        papers = [candidates[i][j] for i, j in enumerate(pick) if j is not None]
        if len(papers) != len(set(papers)):
            continue
        score = sum(fit[i][j] - RANK_COST * j + ROW for i, j in enumerate(pick) if j is not None)  # a row beats none
        if score > best_score + 1e-9:
            best, best_score = list(pick), score
    return best


RIVAL = 0.85  # a described side's runner-up scoring this share of its first paper's retrieval score is a rival


def rivalled(q: Question, sides: list[list[Hit]]) -> str:
    """Why the sides are separate papers though every side finds the same one first, or "": beside a named side,
    a described side fits another paper about as well (fused retrieval score at least RIVAL of the first's), and
    no value or measure is asked ("RaBiT's speed-up vs full precision": a figure against a baseline, which one
    paper reports). "clustering-based personalised FL" finds FedMerge first, whose abstract names
    clustering-based methods among its baselines, and a paper on clustered FL close behind: an approach of its
    own, not a part of FedMerge. "full precision" or "saline" are far behind anywhere but their paper.

    >>> from assistant.answer.sides import Side
    >>> from assistant.types import Hit, Record
    >>> h = lambda pid, score: Hit(pid, Record(pid, "", pid), score)
    >>> q = lambda *sides, text="How do they differ?": Question(text, text, sides=sides)
    >>> rivalled(q(Side("A", ("a",)), Side("B-based methods")), [[h("a", 2.0)], [h("a", 1.83), h("b", 1.71)]])
    "'B-based methods' fits b 0.93 as well as its first paper a"
    >>> rivalled(q(Side("A", ("a",)), Side("full precision")), [[h("a", 2.0)], [h("a", 1.93), h("b", 1.15)]])
    ''
    >>> rivalled(q(Side("A", ("a",)), Side("B-based methods")), [[h("a", 2.0)], [h("b", 1.93), h("c", 1.9)]])
    ''
    >>> rivalled(q(Side("gain of A"), Side("best single B")), [[h("a", 2.0)], [h("a", 1.83), h("b", 1.71)]])
    ''
    >>> rivalled(q(Side("A", ("a",)), Side("full precision"), text="A speed-up vs full precision?"),
    ...          [[h("a", 2.0)], [h("a", 1.83), h("b", 1.83)]])
    ''
    """
    if (len({hits[0].paper_id if hits else "" for hits in sides}) != 1 or not any(s.paper_ids for s in q.sides)
            or value_asked(q) or MEASURE_NOUN.search(q.standalone)):
        return ""  # two descriptions one paper answers first, or a figure against a baseline: that paper's contrast
    for side, hits in zip(q.sides, sides):
        first = hits[0].score if hits and not side.paper_ids else 0.0
        other = next((h for h in hits[1:] if first > 0 and h.score >= RIVAL * first), None)
        if other is not None:
            return (f"{side.text!r} fits {other.title} {other.score / first:.2f} as well as its first paper "
                    f"{hits[0].title}")
    return ""


def one_paper(q: Question, sides: list[list[Hit]]) -> str:
    """The paper every side of a comparison finds first, when the question does not say its sides are separate
    reports ("epinephrine vs saline in the canine arrest model?", "X's speed-up vs full precision"): the contrast
    is inside that paper. Sides named by different papers or a question naming two reports ("the X study ... the
    Y trial") are never one paper; '' otherwise. (The caller first asks `rivalled`: a described side another paper
    fits about as well is no part of one paper either.)"""
    firsts = {side[0].paper_id for side in sides if side}
    named = {s.paper_ids[0] for s in q.sides if s.paper_ids}
    reports = len(A_REPORT.findall(q.standalone))  # "the X study ... with the Y trial": two reports
    if (len(sides) < 2 or not all(sides) or len(firsts) != 1 or len(named) > 1 or reports > 1
            or SEPARATE_REPORTS.search(q.standalone)):
        return ""
    return firsts.pop()


def weigh_compare(p: Prepared, lexicon: Lexicon, scorer: SupportScorer, th: float, *, topics: TopicWords,
                  sure: bool, agreement: Callable[[Hit], float], floor: float) -> CompareFinding:
    """Each side's row paper and whether it was found, whether a side is a name no abstract is about and no
    other side speaks of it, and whether a setting asked ("on FEMNIST") is in none. `topics`: what a described side's
    own marks are (`side_misses`); `sure`: retrieval's agreement
    (`agreement(hit)` >= `floor`) may find a described side."""
    q = p.question
    candidates = {h.paper_id for side in p.sides for h in side}  # every paper retrieved for a side
    chosen: set[str] = set()
    for i in [i for i, s in enumerate(q.sides) if s.paper_ids]:  # named sides choose first
        p.sides[i] = [h for h in p.sides[i] if h.paper_id not in chosen][:1]
        chosen |= {h.paper_id for h in p.sides[i]}
    described = [i for i, s in enumerate(q.sides) if not s.paper_ids]
    pools = [[h for h in p.sides[i] if h.paper_id not in chosen] for i in described]
    if len({q.sides[i].text for i in described}) < len(described):  # "the two X papers": the sides are alike,
        fit = [[0.0] * len(pool) for pool in pools]  # so retrieval's order gives the rows (assign_rows' RANK_COST)
    else:  # a paper missing a side's marks fits less; a side is read with the group the question puts it in
        context = lead_context(q.standalone, [s.text for s in q.sides])  # ("statin users: ... the AF study")
        fit = [[gather_evidence(f"{q.sides[i].text} {context}".strip(), [h], scorer, top=1).score - miss(h)
                for h in pool]
               for i, pool, miss in zip(described, pools, [side_misses(topics, q.sides[i].text) for i in described])]
    for i, pool, j in zip(described, pools, assign_rows([[h.paper_id for h in pool] for pool in pools], fit)):
        p.sides[i] = [pool[j]] if j is not None else []  # described sides' rows, chosen jointly
    p.side_evidence = [gather_evidence(s.text, hs, scorer, top=1) for s, hs in zip(q.sides, p.sides)]
    if _CHOICE.match(q.standalone):  # "Which of A and B generates ...?": the side that answers comes first
        fit = [gather_evidence(q.standalone, hs, scorer, top=1).score for hs in p.sides]
        order = sorted(range(len(p.sides)), key=lambda i: -fit[i])
        p.sides, p.side_evidence = [p.sides[i] for i in order], [p.side_evidence[i] for i in order]
        p.side_specs = [p.side_specs[i] for i in order]
    # a side is found when it is named, its sentences answer, or (a described side) retrieval is sure of it
    hows = []
    for s, hs, e in zip(p.side_specs, p.sides, p.side_evidence):
        weak, why_weak = weak_evidence(e, th, names=bool(s.paper_ids))  # a description's words are not names
        agree = agreement(hs[0]) if hs and sure else 0.0
        titled = bool(hs) and quotes_title(s.text, hs[0])
        found = bool(hs) and bool(s.paper_ids or titled or not weak or (sure and agree >= floor))
        p.side_found.append(found)
        rechosen = any(c.startswith(f"{s.text}: ") for c in p.rechosen)  # several papers coin the name
        hows.append("not retrieved" if not hs else "named, of the papers coining it retrieval's first" if rechosen
                    else "named" if s.paper_ids else "its title quoted" if titled
                    else f"evidence {e.score:.2f} answers"
                    if not weak else f"retrieval agreement {agree:.2f} >= {floor:.2f}"
                    if found else why_weak)
    unknown = [""] * len(p.side_specs)
    for i, side in enumerate(p.side_specs):  # "How do FedMerge and FedProx differ?": a name no abstract is about
        status = lexicon.status(side.text) if not side.paper_ids and named_terms(side.text) == [side.text] else ""
        if status not in ("passing", "missing") or lexicon.is_common(side.text):
            continue
        p.side_found[i], unknown[i] = False, status  # the paper retrieved for it only mentions it: not its row
    found = [hs[0] for hs, ok in zip(p.sides, p.side_found) if ok]
    sides = tuple(SideFinding(s.text, hs[0].paper_id if hs else "", bool(s.paper_ids), ok, how, unk)
                  for s, hs, ok, how, unk in zip(p.side_specs, p.sides, p.side_found, hows, unknown))
    absent = ""
    if found:
        asked = [t for t in q.details if not lexicon.is_common(t)  # not a description, not in a side's own words
                 and not any(norm(t) in norm(side.text) for side in q.sides)]
        # a setting no side's abstract names, and no other paper retrieved for a side either (that one may be
        # the side)
        gone = [t for t in asked
                if not any(has_term(t, h.text) for h in found) and not lexicon.mentioned_in(t) & candidates]
        absent = gone[0] if gone else ""
    who = " and ".join(p.names.get(h.paper_id, h.title) for h in found)
    if found and not absent:
        rows = list({h.paper_id: h for h in found}.values())
        p.hits = rows + [h for h in p.hits if h not in rows]  # the rows lead what the answer retrieved
    return CompareFinding(sides, absent, who, len(found), p.separate)
