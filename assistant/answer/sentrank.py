"""Which sentences of the paper an answer rests on answer the question: a learned ranking.

    ranker = SentenceRanker.load()                 # weights fitted by scripts/fit_sentence_ranker.py
    order = ranker.rank(question, sentences, scorer, name="Click-Gaussian")   # best first, with scores

The evidence score (content-word recall + MiniLM cosine, `support.py`) finds the sentences that share a
question's words; an abstract's opening sentences restate the topic and win that way, while the sentence
that *answers* ("runs in 10 ms per click", "we propose Global Feature-guided Learning") shares few words.
A conditional-logit model over each abstract's sentences weighs the evidence score together with what an
answering sentence looks like for this kind of question: a figure when a value is asked for, the
contribution sentence ("we propose X", "we refer to them as X") when a method or a paper is asked for,
the asked thing stated, named terms the question does not already contain, the position in the abstract,
a problem statement ("However, ... remains challenging") as the usual non-answer, and the focus: the words of
the question's asking part (not a description of the paper before it) that the sentence holds, the rarer in the
abstract the more they count.

The weights are fitted on the project's own question files (eval/questions*.jsonl; never on
questions-dev.jsonl) and the tuning corpora's (never a held-out corpus's) by `scripts/fit_sentence_ranker.py`,
which writes `sentrank.json` beside this file with the features, the weights and its own held-out figures.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .answerable import states_asked
from .asked import asked_clauses, asking_text
from .figures import MEASURES, counts, figure_strings, figures_in
from .phrasing import AUX, WH
from .question import Question
from .support import _NAMED, content_words, stem

WEIGHTS = Path(__file__).with_name("sentrank.json")

_PROPOSE = re.compile(
    r"\b(?:we|this (?:paper|work|study|article)|our (?:work|paper|method|approach)) (?:\w+ )?"
    r"(?:propose|introduce|present|develop|design|devise|refer to|call|name|term|coin|formulate|put forward)\w*\b"
    r"|\b(?:called|dubbed|named|termed)\b|"
    r"\bwe (?:then |also |further )?(?:use|employ|leverage|adopt|apply|exploit|construct|build|learn|train)\w*\b",
    re.I,
)
_PROBLEM = re.compile(r"\b(?:however|challeng\w*|remains?|suffer\w*|limitation\w*|struggl\w*|costly|difficult\w*|"
                      r"problem\w*|issues?|bottleneck\w*|lack\w*|fail\w*|hinder\w*)\b", re.I)
_RESULT = re.compile(r"\b(?:outperform\w*|achiev\w*|surpass\w*|state-of-the-art|improv\w*|experiments?|results?|"
                     r"demonstrat\w*|show\w*|gains?|reduc\w*|faster|speed-?ups?)\b", re.I)
_FIGURE = re.compile(r"\d")  # any digit, as fitted (figures.has_figure refit: within noise, not kept)
_ENUM = re.compile(r"^\s*(?:\(?(?:\d|i{1,3}|iv|v|[a-d])\)|first(?:ly)?,|second(?:ly)?,|third(?:ly)?,|finally,)", re.I)
_HOW = re.compile(r"^(?:and\s+)?how\s+(?:does|do|did|is|are|can|could|would)\b|\bwhat\s+(?:mechanism|technique|trick|"
                  r"strategy|component|module|idea|method|approach)\w*\b|"
                  r"\bwhat\s+does\s+.+?\s+(?:use|do|rely on|replace)\b",
                  re.I)
_WHICH_WORK = re.compile(r"\b(?:which|what)\s+(?:work|paper|study|method|approach|framework|model|system|algorithm)\b|"
                         r"\bis there\b|\bi (?:remember|recall)\b|\bthere(?:'s| is| was) (?:a|an|one)\b", re.I)

FEATURES = (
    "evidence", "cosine", "first", "last", "position", "figure", "figure_asked",
    "propose", "propose_how", "propose_which", "problem", "result", "asked", "named_new", "short",
    "has_name", "enumeration", "figure_words", "focus",
)


def features(question: Question, sentences: Sequence[str], evidence: Sequence[float], cosines: Sequence[float],
             name: str = "", topic: tuple[str, ...] = ()) -> np.ndarray:
    """One row per sentence of one abstract (columns: FEATURES). `evidence`/`cosines`: each sentence's
    support score and MiniLM cosine to the question."""
    q = question.standalone or question.text
    numeric = value_asked(question)
    asks = [a.asked for a in (question, *question.more) if a.asked]
    how, which = bool(_HOW.search(q)), bool(_WHICH_WORK.search(q))
    q_low = q.lower()
    q_words = content_words(q) - {w for t in topic for w in content_words(t)} - content_words(name)
    n = len(sentences)
    ev, cos = np.asarray(evidence, np.float32), np.asarray(cosines, np.float32)
    said = [content_words(s) for s in sentences]
    focus = focus_scores(question, sentences, name, topic, said)
    rows = []
    for i, s in enumerate(sentences):
        new = [t for t in _NAMED.findall(s) if t.lower() not in q_low]
        fig = bool(_FIGURE.search(re.sub(r"\[\d+\]", "", s)))
        prop = bool(_PROPOSE.search(s))
        words = len(s.split())
        rows.append([
            ev[i], cos[i], i == 0, i == n - 1, i / max(n - 1, 1), fig,
            fig and numeric, prop, prop and how, prop and which, bool(_PROBLEM.search(s)),
            bool(_RESULT.search(s)), any(states_asked(a, s, topic) for a in asks), min(len(set(new)), 3) / 3,
            words < 12, bool(name) and name.lower() in s.lower(), bool(_ENUM.search(s)),
            # a value asked: the figure stands with the asked words (not the topic's name), the share of them present
            (fig and numeric) * (len(q_words & said[i]) / len(q_words) if q_words else 0.0),
            focus[i],
        ])
    return np.asarray(rows, dtype=np.float32).reshape(n, len(FEATURES))


def quoted_figures(question: str) -> frozenset[str]:
    """Values a question quotes from its paper ("linked to a 75% rate", "the 0.84 correlation"): percentages and
    decimals, which report results; not whole numbers, which mostly set the scene ("the 2012 survey", "3 arms").

    >>> sorted(quoted_figures("Which cut-offs were linked to a 75% rate in the 2012 survey of 3 arms?"))
    ['75%']
    """
    return frozenset(f for f in figure_strings(question) if "%" in f or re.search(r"\d[.,]\d", f))


# "what share of ...?", "what percentage ...": a proportion is asked, so a sentence giving one ("34 of 41, 83%") answers
SHARE_ASKED = re.compile(r"\b(?:what|which|how large an?|how big an?)\s+(?:share|percentage|proportion|fraction|"
                         r"percent)\b|\bhow many percent\b|\bwhat %", re.I)
SHARE_GIVEN = re.compile(r"\d\s?%|\bper ?cent\b|\b\d+\s+(?:of|out of)\s+\d+\b", re.I)


def answer_marks(question: Question, sentence: str) -> int:
    """How plainly a sentence gives the value asked: it quotes a figure the question quotes ("linked to a 75%
    rate"), it states a value of the asked kind ("how long": a duration; "what share": a proportion), a figure
    of the asked thing ("how much speech": "55.53 hours of speech"; `figures.counts`). Of the
    shown sentences the one with most marks opens the answer (the ranker's order otherwise): an answer's first
    sentence should hold the value asked, not the abstract's setting of it."""
    q = question.standalone or question.text
    marks = int(bool(quoted_figures(q) & figure_strings(sentence)))
    if question.measure in MEASURES and MEASURES[question.measure][1].search(sentence):
        marks += 1
    if SHARE_ASKED.search(q) and SHARE_GIVEN.search(sentence):
        marks += 1
    given = figures_in(q)  # "how much speech ...?": a figure of speech ("55.53 hours of speech"), not any figure
    if any(a.numeric and a.asked and counts(a.asked.split()[-1], [sentence], given)
           for a in (question, *question.more)):
        marks += 1
    return marks


def focus_scores(question: Question, sentences: Sequence[str], name: str = "", topic: tuple[str, ...] = (),
                 said: Sequence[set[str]] | None = None) -> list[float]:
    """How much of what the question asks each sentence holds: the words of its asking part (`asked.asking_text`;
    not the paper's name) found in the sentence, each weighted by how few of the abstract's sentences hold it. A
    word the abstract repeats is its topic ("tacrolimus"); a word one sentence has is the detail asked ("passed all
    the physical tests", "watch time"). `said`: each sentence's content words, when the caller has them.

    >>> focus_scores(Question("In the RA study, what share of patients passed all the physical tests?", ""),
    ...              ["Patients with RA were tested.", "Patients passed reach tests (77%).",
    ...               "Only 57% of patients passed all the physical tests."])
    [0.22, 0.48, 1.0]
    """
    own = content_words(name) | {w for t in topic for w in content_words(t)}
    words = content_words(asking_text(question.standalone or question.text)) - own - _ASKING
    held = [w & words for w in (said if said is not None else [content_words(s) for s in sentences])]
    weight = {w: math.log((len(sentences) + 1) / df) for w in words if (df := sum(w in h for h in held))}
    total = sum(weight.values())
    return [round(sum(weight[w] for w in h) / total, 2) if total else 0.0 for h in held]


# words that say a value is asked, not which: no sentence is the answer for holding them
_ASKING = {stem(w) for w in "much many long large big share percentage proportion fraction number numbers value values "
           "report reports reported give gives given get gets achieve achieves achieved reach reaches".split()}


def value_asked(question: Question) -> bool:
    """A value is asked: "how many/much ..." (`Question.numeric`), or in other words (`VALUE_ASKED`; a `MEASURE_NOUN`
    that is the thing asked, or that a terse question names).

    >>> value_asked(Question("adaparse throughput gain over sota pdf parsers?", ""))
    True
    >>> value_asked(Question("What is X?", "")), value_asked(Question("Which work kept accuracy?", ""))
    (False, False)
    """
    q = question.standalone or question.text
    asked = [a for a in (question.asked, *(m.asked for m in question.more)) if a]
    return (question.numeric or any(a.numeric for a in question.more) or bool(VALUE_ASKED.search(q))
            or any(MEASURE_NOUN.search(a) for a in asked) or bool(_WHAT_MEASURE.search(q))
            or bool(MEASURE_NOUN.search(q) and not _FULL_QUESTION.search(q)))


# a value asked in other words than "how many/much": a degree ("how accurate", "how closely did X agree"), or a
# measure asked ("what was its specificity?") or that a terse question names ("adaparse throughput gain over sota
# parsers?", "X best model + its success rate?"), not one a full question mentions ("which work kept accuracy - what
# replaced them?")
VALUE_ASKED = re.compile(r"\bhow\s+(?:accurate(?:ly)?|precise(?:ly)?|close(?:ly)?|strong(?:ly)?|effective(?:ly)?|"
                         r"efficient(?:ly)?|quick(?:ly)?|reliabl[ey]|sensitive|specific|common|frequent(?:ly)?|"
                         r"prevalent|likely|high|low|good|bad)\b", re.I)
_MEASURES = ("gain|gains|speed-?ups?|improvements?|accuracy|throughput|score|rates?|correlation|agreement|"
             "sensitivity|specificity|error|latency")
MEASURE_NOUN = re.compile(rf"\b(?:{_MEASURES})\b", re.I)
# "what was the LLM's specificity", "What end-to-end latency does it get?": the measure right after "what"
_WHAT_MEASURE = re.compile(rf"\bwhat\s+(?:(?:is|was|are|were)\s+(?:the|its|their)\s+)?(?:[\w'\-]+\s+){{0,3}}?"
                           rf"(?:{_MEASURES})\b", re.I)
_FULL_QUESTION = re.compile(rf"\b(?:{WH}|whom|whether)\b|\b{AUX}\b", re.I)  # a question word or an auxiliary


# a further sentence of the main paper (up to three) is shown when the ranker gives it this share; set with each refit
# so answers keep their length (the focus refit is sharper: at 0.05 answers fell from 2.53 to 2.47 sentences on the
# project's and tuning sets' factoid, paraphrase and follow-up questions; at 0.04, 2.55)
MIN_SHARE = 0.04


@dataclass(frozen=True)
class SentenceRanker:
    weights: tuple[float, ...]

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> SentenceRanker | None:
        """The fitted ranker, or None when no weights file is present (then evidence order is used)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if tuple(data.get("features", ())) != FEATURES:
            return None  # fitted for another feature set: refit with scripts/fit_sentence_ranker.py
        return cls(tuple(float(w) for w in data["weights"]))

    def pick(self, question: Question, sentences: Sequence[str], scorer, name: str = "", topic: tuple[str, ...] = (),
             skip: frozenset[int] = frozenset(), limit: int = 3) -> list[int]:
        """Indices of the sentences to show, best first: the most probable one, then up to `limit` - 1
        more that get at least MIN_SHARE of the probability, and the most probable one for each clause of a
        question of several (in place of the last ones when `limit` are shown); `skip`: never shown (injected)."""
        if not sentences:
            return []
        q = question.standalone or question.text
        p = self.scores(features(question, sentences, scorer.matrix([q], sentences)[0], scorer.cosines(q, sentences),
                                 name=name, topic=topic))
        order = [int(i) for i in np.argsort(-p, kind="stable") if int(i) not in skip]
        shown = order[:1] + [i for i in order[1:limit] if p[i] >= MIN_SHARE]
        # each thing asked ("How big is X, and how many models were tested?") is answered, in place of the last shown
        extra = list(dict.fromkeys(i for i in self._clause_answers(question, sentences, scorer, name, topic, skip)
                                   if i not in shown))
        if shown and extra:
            room = max(limit - len(extra), 1)
            shown = shown[:room] + extra[:limit - min(room, len(shown))]
        if len(shown) < 2:
            return shown  # nothing to order (every sentence skipped, or one shown)
        marks = [answer_marks(question, sentences[i]) for i in shown]
        best = max(range(len(shown)), key=lambda j: (marks[j], -j))
        return [shown[best], *shown[:best], *shown[best + 1:]]

    def _clause_answers(self, question: Question, sentences: Sequence[str], scorer, name: str,
                        topic: tuple[str, ...], skip: frozenset[int]) -> list[int]:
        """In a question of several clauses ("How big is X, and how many models were tested on it?"), the most
        probable sentence for each clause, each clause ranked as a question of its own."""
        clauses = asked_clauses(question.standalone or question.text, question.topic_names)
        if len(clauses) < 2:
            return []
        out = []
        for clause, ask in clauses:
            cq = Question(clause, clause, topic_names=question.topic_names, asked=ask.asked, numeric=ask.numeric,
                          measure=ask.measure)
            x = features(cq, sentences, scorer.matrix([clause], sentences)[0], scorer.cosines(clause, sentences),
                         name=name, topic=topic)
            out += [int(i) for i in np.argsort(-self.scores(x), kind="stable") if int(i) not in skip][:1]
        return out

    def scores(self, x: np.ndarray) -> np.ndarray:
        """Probability of each sentence being the answering one (softmax over the abstract)."""
        z = x @ np.asarray(self.weights, np.float32)
        z = np.exp(z - z.max())
        return z / z.sum()


@lru_cache(maxsize=1)
def default_ranker() -> SentenceRanker | None:
    return SentenceRanker.load()


def fit(groups: list[tuple[np.ndarray, np.ndarray]], l2: float = 0.01, steps: int = 600, lr: float = 0.3) -> np.ndarray:
    """Conditional-logit weights: maximise log P(gold sentences) under a softmax over each abstract's
    sentences (`groups`: (features, 0/1 gold mask) per question and abstract). Full-batch gradient
    descent with momentum; deterministic."""
    dim = groups[0][0].shape[1]
    w, v = np.zeros(dim), np.zeros(dim)
    for _ in range(steps):
        grad = l2 * w
        for x, y in groups:
            z = x @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            gold = p * y
            q = gold / max(gold.sum(), 1e-12)  # posterior over the gold sentences
            grad -= (q - p) @ x / len(groups)
        v = 0.9 * v - lr * grad
        w = w + v
    return w


def log_likelihood(groups: list[tuple[np.ndarray, np.ndarray]], w: np.ndarray) -> float:
    total = 0.0
    for x, y in groups:
        z = x @ w
        p = np.exp(z - z.max())
        p /= p.sum()
        total += math.log(max(float((p * y).sum()), 1e-12))
    return total / max(len(groups), 1)
