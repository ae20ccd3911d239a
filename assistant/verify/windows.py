"""Which parts of a source the verifier reads: sentence windows, pre-selected by word overlap.

A whole abstract does not fit the cross-encoder's window and most of its sentences are irrelevant to a
claim, so the source is cut into windows (each sentence, and each sentence with its successor: the forms
the model was trained on) and only the windows around the `top` sentences sharing most of the claim's
content words are scored. `overlap` is the share of the claim's content words found in a text.

>>> [w.text for w in windows("Gains are 24%.", ["We test X.", "X gains 24% on Y.", "Z is slow."], top=1)]
['X gains 24% on Y.', 'We test X. X gains 24% on Y.', 'X gains 24% on Y. Z is slow.']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[a-z][a-z0-9\-]*|\d+(?:\.\d+)?")
_STOP = frozenset(
    "a an the and or but of in on at to for from by with as is are was were be been being this that these those "
    "it its their they them we our which who what when where how than then there also can could may might will "
    "would should do does did into over under about between through during after before up down out all any each "
    "such via using used use based paper propose proposed show shows shown here".split()
)


@dataclass(frozen=True)
class Window:
    text: str
    sentences: tuple[int, ...]  # indices of the source sentences it joins


def _stem(w: str) -> str:
    for suf in ("ing", "ies", "es", "ed", "s"):
        if len(w) > len(suf) + 3 and w.endswith(suf):
            return w[: -len(suf)]
    return w


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP and (len(w) > 1 or w.isdigit())}


def overlap(claim_words: set[str], text: str) -> float:
    return len(claim_words & content_words(text)) / len(claim_words) if claim_words else 0.0


def top_sentences(claim: str, sentences: Sequence[str], top: int = 0) -> list[int]:
    """Indices (in order) of the `top` sentences sharing most content words with the claim (0 = all)."""
    n = len(sentences)
    if not top or n <= top:
        return list(range(n))
    cw = content_words(claim)
    scores = [overlap(cw, s) for s in sentences]
    return sorted(sorted(range(n), key=lambda i: (-scores[i], i))[:top])


def singles(sentences: Sequence[str], keep: Sequence[int]) -> list[Window]:
    return [Window(sentences[i], (i,)) for i in keep]


def pairs(sentences: Sequence[str], keep: Sequence[int]) -> list[Window]:
    """Each kept sentence joined with its predecessor and with its successor (no duplicates)."""
    out: dict[int, Window] = {}
    for i in keep:
        for a in (i - 1, i):
            if a >= 0 and a + 1 < len(sentences) and a not in out:
                out[a] = Window(f"{sentences[a]} {sentences[a + 1]}", (a, a + 1))
    return [out[a] for a in sorted(out)]


def windows(claim: str, sentences: Sequence[str], top: int = 0) -> list[Window]:
    """Single sentences and adjacent pairs; with `top` > 0 only those around the `top` best-overlapping sentences."""
    keep = top_sentences(claim, sentences, top)
    return singles(sentences, keep) + pairs(sentences, keep)


QUOTE_WORDS = 6  # a shorter span (a table cell: "real-world datasets") is read by the model, not as a quote
_MARKER = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")


def quoted(claim: str, sentences: Sequence[str]) -> tuple[int, ...]:
    """The source sentences (one, or two in a row) a claim quotes word for word, or (): its citation markers set
    aside, the claim of at least QUOTE_WORDS words stands in them and runs to their end, or it ends in an ellipsis
    (a line cut short: "... the authors investigate the suitability and robustness of …"). A quote that stops
    before its sentence ends without saying so could drop a qualifier: that is read by the model.

    >>> quoted("X gains 24% on Y over the baseline [1].", ["We test X.", "So, X gains 24% on Y over the baseline."])
    (1,)
    >>> quoted("We test X and X gains 24% on Y …", ["We test X and X gains 24% on Y only at night.", "Z."])
    (0,)
    >>> quoted("We test X and X gains 24% on Y.", ["We test X and X gains 24% on Y only at night.", "Z."])
    ()
    >>> quoted("X gains 24% on Y over the baseline [1].", ["X gains 42% on Y over the baseline."])
    ()
    """
    text = _MARKER.sub("", claim).strip()
    cut = text.endswith(("…", "..."))
    core = text.rstrip("….").strip()
    if len(core.split()) < QUOTE_WORDS:
        return ()
    for w in singles(sentences, range(len(sentences))) + pairs(sentences, range(len(sentences))):
        at = w.text.find(core)
        if at >= 0 and (cut or not w.text[at + len(core):].strip(" .")):
            return w.sentences
    return ()
