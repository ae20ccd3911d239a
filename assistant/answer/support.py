"""Does this abstract sentence support this claim? A score in 0..1 computed in code, per sentence.

    score = 0.5 * content-word recall + 0.5 * cosine(MiniLM)      (then penalised, see below)

Content-word recall is the share of the claim's content words (lower-cased, stop words removed, a
light suffix stemmer) that occur in the source sentence: it rewards copying and close paraphrase.
The cosine catches paraphrase with other words. A claim that brings a number or a named term (an
acronym, CamelCase or hyphenated-digit token) absent from the whole cited abstract is halved: that
is the typical small-model fabrication ("... improves accuracy by 12% [1]" when [1] says 24.72%).

Sentences that look like instructions to a model ("ignore previous instructions ...") are untrusted
(`injected_sentences`): they never count as support, and an answer repeating them is blocked.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

STOP = frozenset(
    "a an the and or but if of in on at to for from by with without as is are was were be been being this that these "
    "those it its their they them we our us you your he she his her which who whom whose what when where why how "
    "than then there here also can could may might will would shall should do does did done not no nor so such "
    "into over under about between through during before after above below up down out off again further once "
    "both each few more most other some any all own same very just only too s t via using use used based paper "
    "papers propose proposed approach method methods show shows shown results result work study new novel".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-’']*|\d+(?:\.\d+)?%?")
_NAMED = re.compile(r"\b(?:[A-Z]{2,}[A-Za-z0-9\-]*|[A-Z][a-z]+[A-Z][A-Za-z0-9\-]*|[A-Za-z]+-?\d+[A-Za-z0-9\-]*)\b")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?%?")
_INJECTION = re.compile(
    r"ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier|preceding) (?:instructions|prompts?|rules)"
    r"|disregard (?:all |the )?(?:previous|prior|above) |system prompt|you are now|new instructions"
    r"|print (?:the )?(?:word|string|token|text)|(?:visit|go to|open) https?://|output (?:only|exactly) ",
    re.I,
)


def stem(w: str) -> str:
    """A crude suffix stripper: "involve", "involves" and "involved" all give "involv".

    >>> [stem(w) for w in ("involve", "involves", "involved", "studies", "particle", "particles", "use")]
    ['involv', 'involv', 'involv', 'study', 'particl', 'particl', 'use']
    """
    w = w.lower().strip("’'-")
    for suf in ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "s"):
        if len(w) > len(suf) + 3 and w.endswith(suf):
            return w[: -len(suf)] + ("y" if suf in ("ies", "ied") else "")
    return w[:-1] if len(w) > 5 and w.endswith("e") and not w.endswith("ee") else w


def content_words(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text) if w.lower() not in STOP and len(w) > 1}


def recall(claim: str, source: str) -> float:
    """The share of the claim's content words the source uses, a word written with or without its hyphens or as
    two words the same ("SWE-bench" in "SWE bench Lite", "pre-training" in "pretraining", "dataset" in "data set").

    >>> recall("SWE-bench", "on SWE bench Lite"), recall("pretraining data", "pre-training on web data")
    (1.0, 1.0)
    >>> recall("SWE-bench", "a software bench"), recall("re-id", "they are identified")
    (0.0, 0.0)
    >>> recall("models beat baselines", "scores must be at least 5 for baselines")  # "be at" is no "beat"
    0.3333333333333333
    """
    c = content_words(claim)
    if not c:
        return 0.0
    found = c & content_words(source)
    if len(found) < len(c):
        joined = _joined_words(source)
        found |= {w for w in c - found if w.replace("-", "") in joined}
    return len(found) / len(c)


@lru_cache(maxsize=4096)
def _joined_words(text: str) -> frozenset[str]:
    """The text's words with their hyphens dropped, and each two neighbouring content words written as one,
    stemmed; never across punctuation ("GPT, 4") nor with a function word ("be at" is no "beat").

    >>> sorted(_joined_words("SWE bench, be at pre- trained"))
    ['at', 'be', 'bench', 'pre', 'pretrain', 'swe', 'swebench', 'train']
    """
    out: set[str] = set()
    for part in re.split(r"[.,;:!?()\[\]{}\"“”]+", text.lower()):
        words = _WORD.findall(part)
        out |= {stem(w).replace("-", "") for w in words}
        out |= {stem(a + b).replace("-", "") for a, b in itertools.pairwise(words) if a not in STOP and b not in STOP}
    return frozenset(out)


def novel_facts(claim: str, abstract: str) -> list[str]:
    """Numbers and named terms in `claim` that the abstract never mentions."""
    low = abstract.lower()
    out = [m for m in _NAMED.findall(claim) if m.lower() not in low]
    out += [n for n in _NUMBER.findall(claim) if n not in abstract]
    return out


def injected_sentences(sentences: Sequence[str]) -> set[int]:
    return {i for i, s in enumerate(sentences) if _INJECTION.search(s)}


class SupportScorer:
    """Scores claims against source sentences; `embed` maps texts to L2-normalised vectors (those of the
    embedder named `name`)."""

    def __init__(self, embed, cache_size: int = 50_000, name: str = "") -> None:
        self._embed_raw = embed
        self._cache: dict[str, np.ndarray] = {}
        self._cache_size = cache_size
        self.name = name

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings with a bounded cache: abstract sentences recur across questions."""
        return self._embed(list(texts))

    def _embed(self, texts: list[str]) -> np.ndarray:
        found = {t: self._cache.get(t) for t in texts}
        todo = [t for t, v in found.items() if v is None]
        if todo:
            if len(self._cache) + len(todo) > self._cache_size:
                self._cache = {}
            for t, v in zip(todo, self._embed_raw(todo)):
                found[t] = self._cache[t] = v
        return np.stack([found[t] for t in texts])

    def matrix(self, claims: Sequence[str], sentences: Sequence[str],
               abstracts: Sequence[str] | None = None) -> np.ndarray:
        """scores[i, j] of claim i against sentence j (abstracts[j] = the abstract sentence j belongs to)."""
        if not claims or not sentences:
            return np.zeros((len(claims), len(sentences)), dtype=np.float32)
        vecs = self._embed(list(claims) + list(sentences))
        cos = np.clip(vecs[: len(claims)] @ vecs[len(claims):].T, 0.0, 1.0)
        lex = np.array([[recall(c, s) for s in sentences] for c in claims], dtype=np.float32)
        scores = 0.5 * lex + 0.5 * cos
        if abstracts is not None:
            for i, c in enumerate(claims):
                for j, a in enumerate(abstracts):
                    if novel_facts(c, a):
                        scores[i, j] *= 0.5
        return scores

    def cosines(self, claim: str, sentences: Sequence[str]) -> np.ndarray:
        """Cosine of `claim` to each sentence (the embedding half of `matrix`; cached vectors)."""
        if not sentences:
            return np.zeros(0, dtype=np.float32)
        vecs = self._embed([claim, *sentences])
        return np.clip(vecs[1:] @ vecs[0], 0.0, 1.0)

    def phrase_similarity(self, phrase: str, text: str) -> float:
        """Best cosine of `phrase` to any 1-3 word span of `text` (spans neither starting nor ending
        with a stop word): "parameter-efficient fine-tuning" finds "parameter-efficient training".
        The spans' vectors are cached with the sentences', so a second question costs one embedding."""
        spans = _spans(text)
        if not phrase.strip() or not spans:
            return 0.0
        vecs = self._embed([phrase, *spans])
        return float(np.max(vecs[1:] @ vecs[0]))


def _spans(text: str, longest: int = 3) -> list[str]:
    toks = re.findall(r"[A-Za-z0-9][\w\-]*", text)
    out: dict[str, None] = {}
    for n in range(1, longest + 1):
        for i in range(len(toks) - n + 1):
            span = toks[i: i + n]
            if span[0].lower() not in STOP and span[-1].lower() not in STOP:
                out[" ".join(span)] = None
    return list(out)
