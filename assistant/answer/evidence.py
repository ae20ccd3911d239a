"""Evidence strength: how well the retrieved abstracts' sentences support the question.

    ev = gather_evidence(question, hits, scorer)
    ev.score      best support of the question by any (trusted) sentence of the top abstracts
    ev.missing    named terms of the question (acronyms, CamelCase, "ResNet-50") no abstract mentions
    ev.passing    named terms that abstracts only mention in passing (once, and not in their label)
    ev.subjects   named terms some abstract is about (mentioned twice or more, or in its label)

`weak_evidence(ev, threshold)` says the evidence does not answer (used for a comparison side; a single
answer's bar is decided in decide.py) when the best evidence is below the threshold, when every named
term of the question is missing, or when the question hinges on a term the corpus only mentions in
passing and the evidence is not clearly strong (threshold + PASSING_MARGIN): the near-miss case
("What search does AlphaZero use?" when one abstract says "Since DeepMind's AlphaZero, ..."). When
some but not all named terms are covered, the answer goes ahead and says which are not covered.
The threshold is calibrated on eval/questions.jsonl (see README, "Abstention").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..index.sentences import split_sentences
from ..types import Hit
from .findings import EvidenceFinding
from .lexbuild import GENERIC
from .linker import SHARED_BY
from .nameforms import norm
from .support import _NAMED, SupportScorer, injected_sentences
from .terms import spelled_out

ABSTAIN_SENTENCE = "The indexed abstracts do not answer this question."
PASSING_MARGIN = 0.12


@dataclass
class Evidence:
    score: float
    best: list[tuple[int, int, float]] = field(default_factory=list)  # (hit index, sentence index, score) best first
    named: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    passing: list[str] = field(default_factory=list)
    subjects: list[str] = field(default_factory=list)  # named terms some abstract is about
    cosine: float = 0.0  # best cosine of the question to an evidence sentence (meaning, whatever the words)


def named_terms(question: str) -> list[str]:
    terms = [t for t in _NAMED.findall(question) if norm(t) not in GENERIC]  # (the linker's generic terms)
    return list(dict.fromkeys(terms))


def gather_evidence(question: str, hits: list[Hit], scorer: SupportScorer, top: int = 5,
                    restrict: bool = True) -> Evidence:
    """`restrict`: only abstracts about a named term of the question give evidence ("Which dataset evaluates
    SUSing?"); off for a question that names no paper ("which method says a plain supervised ViT ...": ViT is
    the asker's description, and the paper that answers need not repeat it)."""
    ev = Evidence(0.0, named=named_terms(question))
    about: list[int] = []  # hits that are about a named subject of the question
    for term in ev.named:
        pat = re.compile(re.escape(term.lower()))
        counts = [len(pat.findall(h.text.lower())) + 2 * len(pat.findall(h.title.lower())) for h in hits[:top]]
        if not any(counts) and not any(spelled_out(term, h.text) for h in hits[:top]):
            ev.missing.append(term)
        elif not any(counts):
            ev.passing.append(term)  # "PCA" written out: "principal component analysis"
        elif max(counts) < 2:
            ev.passing.append(term)
        else:
            ev.subjects.append(term)
            about += [i for i, c in enumerate(counts) if c >= 2 and i not in about]
    sents: list[str] = []
    where: list[tuple[int, int]] = []
    for hi, h in enumerate(hits[:top]):
        if restrict and about and hi not in about:
            continue  # "Which dataset evaluates SUSing?" is answered by the SUSing abstract only
        texts = [s.text for s in split_sentences(h.text)]
        bad = injected_sentences(texts)
        for si, s in enumerate(texts):
            if si not in bad:
                sents.append(s)
                where.append((hi, si))
    if sents:
        row = scorer.matrix([question], sents)[0]
        ev.cosine = float(scorer.cosines(question, sents).max())
        order = row.argsort()[::-1]
        keep = list(order[:12])
        firsts: set[int] = set()
        for j in order:  # and each paper's best sentence, so any of them can lead the answer
            if where[j][0] not in firsts:
                firsts.add(where[j][0])
                if j not in keep:
                    keep.append(j)
        ev.best = [(where[j][0], where[j][1], float(row[j])) for j in keep]
        ev.score = float(row[order[0]])
    return ev


def weak_evidence(ev: Evidence, threshold: float, names: bool = True) -> tuple[bool, str]:
    """(abstain?, reason). A question about a paper the corpus holds (a named subject) needs less
    sentence-level evidence: "Which datasets does FedMerge use?" rarely shares words with the answer.
    `names=False` leaves the named-term rules out: the single-answer path decides near-misses from the
    question's subject position instead (question.py), where a name in a paraphrase's description
    ("an 8-billion-parameter LLaMA model") is not what is asked about."""
    threshold = effective_threshold(ev, threshold)
    if ev.score < threshold:
        return True, f"best evidence {ev.score:.2f} < threshold {threshold:.2f}"
    if not names:
        return False, ""
    if ev.named and len(ev.missing) == len(ev.named):
        return True, f"no abstract mentions {', '.join(ev.missing)}"
    covered = [t for t in ev.named if t not in ev.missing]
    if covered and all(t in ev.passing for t in covered) and ev.score < threshold + PASSING_MARGIN:
        return True, f"{', '.join(covered)} only mentioned in passing"
    return False, ""


def effective_threshold(ev: Evidence, threshold: float) -> float:
    return threshold - PASSING_MARGIN if ev.subjects else threshold


def evidence_bar(ev: Evidence, hits: list[Hit], s, *, dense_ok: bool, topic: tuple[str, ...], named_paper: str,
                 main: int, shared: frozenset[str] = frozenset()) -> EvidenceFinding:
    """The evidence strength and the bar it is held to (settings `s`: AnswerSettings), every adjustment of the bar
    named. `dense_ok`: the dense scores are calibrated (every searchable paper has its vectors); `named_paper`: the
    names of topic papers the question names by a name they coin ("" when none); `shared`: the question's named
    terms many abstracts use and none coins ("MACE", "RCTs"): they name no subject paper, so earn no relief."""
    th, adjustments = s.abstain_threshold, []
    dense = [h.scores["dense"] for h in hits if "dense" in h.scores] if dense_ok else []
    lead = len(hits) > 1 and hits[0].score - hits[1].score >= s.confident_gap
    if lead or (dense and hits[0].scores.get("dense", 0.0) >= s.confident_cosine):
        th -= s.confident_relief  # retrieval singles out one paper: a paraphrase needs less wording overlap
        adjustments.append(f"retrieval singles out one paper: -{s.confident_relief:.2f}")
    if not topic and ev.cosine >= s.paraphrase_cosine and ev.score < th:
        th = ev.score  # a paraphrase: close in meaning to a sentence, however few words it shares
        adjustments.append(f"paraphrase (cosine {ev.cosine:.2f} >= {s.paraphrase_cosine:.2f}): "
                           "bar lowered to the evidence")
    subjects = [t for t in ev.subjects if t not in shared]
    if subjects:  # a question about a paper the corpus holds needs less sentence-level evidence
        th -= PASSING_MARGIN
        adjustments.append(f"named subject {', '.join(subjects)}: -{PASSING_MARGIN:.2f}")
    elif named_paper:  # a name its paper coins, written once in its abstract
        th -= PASSING_MARGIN
        adjustments.append(f"named paper {named_paper}: -{PASSING_MARGIN:.2f}")
    if len(subjects) < len(ev.subjects):
        adjustments.append(f"no relief for {', '.join(t for t in ev.subjects if t in shared)}: a term "
                           f"{SHARED_BY}+ abstracts share")
    # what the answer can show: the main paper's sentences, else another (topic) paper's above the bar
    shown = [b for b in ev.best if not topic or hits[b[0]].paper_id in topic]
    main_best = [b for b in shown if b[0] == main or b[2] >= effective_threshold(ev, s.abstain_threshold)]
    uncovered = tuple(ev.missing) if ev.missing and len(ev.missing) < len(ev.named) else ()
    return EvidenceFinding(ev.score, th, s.abstain_threshold, tuple(adjustments), max(dense) if dense else None,
                           s.dense_floor, bool(topic), bool(main_best) or not hits, uncovered)
