"""Answers built by code from evidence: question types, comparison tables, "which papers" lists,
and the extractive answer (no generative model). Every sentence placed here is an abstract sentence
(or a trimmed clause of one) with its citation, so these parts need no verification.

Comparison tables have one row per paper and the columns Problem / Method / Data / Result. A cell is
the abstract sentence that best matches the column's cue words, trimmed, with its citation, or
"not reported in the abstract".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..index.sentences import split_sentences
from ..types import Hit

_COMPARE = [
    re.compile(r"^(?:how|in what ways?) (?:does|do|is|are) (?P<a>.+?) (?:differ|different) (?:from|to|than) (?P<b>.+?)\??$", re.I),
    re.compile(r"^(?:how|in what ways?) (?:does|do) (?P<a>.+?) (?:and|vs\.?|versus) (?P<b>.+?) (?:differ|compare)\??$", re.I),
    re.compile(r"^how (?:does|do) (?P<a>.+?) compare (?:to|with|against) (?P<b>.+?)\??$", re.I),
    re.compile(r"^(?:what (?:is|are) )?the differences? between (?P<a>.+?) and (?P<b>.+?)\??$", re.I),
    re.compile(r"^compare (?P<a>.+?) (?:and|with|to|vs\.?|versus) (?P<b>.+?)\??$", re.I),
    re.compile(r"^(?P<a>.+?) (?:vs\.?|versus) (?P<b>.+?)\??$", re.I),
]
_LIST = re.compile(
    r"^(?:which|what) (?:papers|abstracts|works|studies|articles|methods|approaches)\b(?P<c>.*?)\??$"
    r"|^(?:list|find|show)(?: me)?(?: all)? (?:the )?(?:papers|abstracts|works|studies)\b(?P<c2>.*?)\??$",
    re.I,
)

FACETS = {
    "Problem": re.compile(r"\b(challeng\w*|problem\w*|suffer\w*|limitation\w*|however|fail\w*|overlook\w*|lack\w*|costly|difficult\w*|aims? to|issue\w*)\b", re.I),
    "Method": re.compile(r"\b(we propose|we introduce|we present|we develop|we design|this (?:paper|work|study) proposes|propose[sd]?|introduce[sd]?|framework|consists of|employs?|uses?|leverag\w+)\b", re.I),
    "Data": re.compile(r"\b(datasets?|benchmarks?|corpus|corpora|experiments? on|evaluated on|imagenet|cifar[\w-]*|coco|pascal|mnist|glue|real-world data|synthetic)\b", re.I),
    "Result": re.compile(r"(\boutperform\w*|\bimprov\w*|\bachiev\w*|\bstate-of-the-art\b|\bsurpass\w*|\breduc\w*|\bresults? (?:show|demonstrate)|\bgains?\b|\d+(?:\.\d+)?\s?%|\d+(?:\.\d+)?×|\bspeed-?up)", re.I),
}
NOT_REPORTED = "not reported in the abstract"


@dataclass(frozen=True)
class QuestionType:
    kind: str  # "answer" | "compare" | "list"
    sides: tuple[str, ...] = ()
    criterion: str = ""


def classify(question: str) -> QuestionType:
    """
    >>> classify("How does FedMerge differ from clustering-based personalised FL?")
    QuestionType(kind='compare', sides=('FedMerge', 'clustering-based personalised FL'), criterion='')
    >>> classify("Which papers use a server-side generator?").criterion
    'use a server-side generator'
    """
    q = question.strip()
    for pat in _COMPARE:
        m = pat.match(q)
        if m:
            a, b = _clean_side(m.group("a")), _clean_side(m.group("b"))
            if a and b:
                return QuestionType("compare", (a, b))
    m = _LIST.match(q)
    if m:
        crit = (m.group("c") or m.group("c2") or "").strip()
        crit = re.sub(r"^(?:in the corpus |here )?(?:that |which |who |to |about |on |in )?", "", crit).strip(" ,?")
        return QuestionType("list", criterion=crit or q)
    return QuestionType("answer")


def _clean_side(s: str) -> str:
    return re.sub(r"^(?:the |a |an )", "", s.strip(" ?.,"), flags=re.I).strip()


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


def extractive_answer(best: list[tuple[int, int, float]], hits: list[Hit], threshold: float, limit: int = 3) -> list[tuple[int, int]]:
    """(hit index, sentence index) of the evidence sentences to show: up to two from the best paper,
    one from each other paper above the threshold; grouped by paper, in abstract order."""
    chosen: list[tuple[int, int]] = []
    per_hit: dict[int, int] = {}
    for hi, si, score in best:
        # the best paper may give two sentences, the others one each
        if score < threshold or per_hit.get(hi, 0) >= (2 if not per_hit or hi == best[0][0] else 1):
            continue
        chosen.append((hi, si))
        per_hit[hi] = per_hit.get(hi, 0) + 1
        if len(chosen) >= limit:
            break
    return sorted(chosen, key=lambda c: (list(per_hit).index(c[0]), c[1]))
