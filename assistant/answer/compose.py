"""Answers built by code from evidence: comparison tables and the choice of evidence sentences for
an answer composed without a generative model. Every sentence placed here is an abstract sentence
(or a trimmed clause of one) with its citation, so these parts need no verification.

Comparison tables have one row per paper and the columns Problem / Method / Data / Result. A cell is
the abstract sentence that best matches the column's cue words, trimmed, with its citation, or
"not reported in the abstract".
"""

from __future__ import annotations

import re

from ..index.sentences import split_sentences
from ..types import Hit
from .words import OWN_WORK

FACETS = {
    "Problem": re.compile(r"\b(challeng\w*|problem\w*|suffer\w*|limitation\w*|however|fail\w*|overlook\w*|lack\w*|"
                          r"costly|difficult\w*|aims? to|issue\w*)\b", re.I),
    "Method": re.compile(rf"{OWN_WORK}|\b(?:propose[sd]?|introduce[sd]?|framework|consists of|employs?|uses?|"
                         rf"leverag\w+)\b", re.I),
    "Data": re.compile(r"\b(datasets?|benchmarks?|corpus|corpora|experiments? on|evaluated on|imagenet|cifar[\w-]*|"
                       r"coco|pascal|mnist|glue|real-world data|synthetic)\b", re.I),
    "Result": re.compile(r"(\boutperform\w*|\bimprov\w*|\bachiev\w*|\bstate-of-the-art\b|\bsurpass\w*|\breduc\w*|"
                         r"\bresults? (?:show|demonstrate)|\bgains?\b|\d+(?:\.\d+)?\s?%|\d+(?:\.\d+)?×|\bspeed-?up)",
                         re.I),
}
NOT_REPORTED = "not reported in the abstract"


def facet_cell(text: str, facet: str, marker: int, used: set[int]) -> tuple[str, int | None]:
    """Best sentence of `text` for `facet` (not already used in this row), trimmed and cited."""
    sents = split_sentences(text)
    best, best_score = None, 0
    for s in sents:
        if s.index in used:
            continue
        score = len(FACETS[facet].findall(s.text))
        if facet == "Problem" and s.index == 0:
            score += 1  # abstracts usually open with the problem
        if facet == "Result" and s.index == len(sents) - 1:
            score += 1
        if score > best_score:
            best, best_score = s, score
    if best is None:
        return NOT_REPORTED, None
    return f"{trim(best.text)} [{marker}]", best.index


def trim(sentence: str, words: int = 28) -> str:
    w = sentence.rstrip(".").split()
    return " ".join(w) if len(w) <= words else " ".join(w[:words]) + " …"


def comparison_table(rows: list[tuple[Hit, int]]) -> tuple[str, dict[int, list[int]]]:
    """Markdown table (one row per (hit, marker)) and the sentence ids used per marker."""
    cols = list(FACETS)
    lines = ["| Paper | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    used_ids: dict[int, list[int]] = {}
    for hit, marker in rows:
        used: set[int] = set()
        cells = []
        for facet in cols:
            cell, sid = facet_cell(hit.text, facet, marker, used)
            if sid is not None:
                used.add(sid)
                used_ids.setdefault(marker, []).append(sid)
            cells.append(cell.replace("|", "\\|"))
        lines.append(f"| **{hit.title.replace('|', '/')}** [{marker}] | " + " | ".join(cells) + " |")
    return "\n".join(lines), used_ids


def extractive_answer(
    best: list[tuple[int, int, float]], hits: list[Hit], threshold: float, limit: int = 3, main: int = 0,
) -> list[tuple[int, int]]:
    """(hit index, sentence index) of the evidence sentences to show: up to three from the main paper
    (the one the answer rests on), then one from each other paper above the threshold; grouped by
    paper, main paper first, sentences in abstract order.

    >>> extractive_answer([(1, 4, .9), (0, 2, .8), (0, 0, .7), (2, 1, .2)], [None] * 3, 0.3, main=0)
    [(0, 0), (0, 2), (1, 4)]
    """
    chosen: list[tuple[int, int]] = []
    per_hit: dict[int, int] = {}
    if limit <= 0:
        return chosen
    ordered = [b for b in best if b[0] == main] + [b for b in best if b[0] != main]
    for hi, si, score in ordered:
        if score < threshold and not (hi == main and not per_hit):
            continue
        if per_hit.get(hi, 0) >= (3 if hi == main else 1):
            continue
        chosen.append((hi, si))
        per_hit[hi] = per_hit.get(hi, 0) + 1
        if len(chosen) >= limit:
            break
    return sorted(chosen, key=lambda c: (list(per_hit).index(c[0]), c[1]))
