"""Sentence segmentation for abstracts, with character offsets (citations point at sentences).

A rule-based splitter tuned for scientific prose: a sentence ends at `.`, `!` or `?` (optionally
followed by a closing quote or bracket) when whitespace and an upper-case letter, digit or opening
bracket follow, unless the period belongs to a known abbreviation ("e.g.", "i.e.", "et al.", "Fig.",
"vs."). Decimals ("24.72%") never split because no space follows.
Compromise: an abbreviation that really ends a sentence ("... and so on, etc. The next") merges two
sentences; that costs a slightly longer citation span, never a wrong one.

>>> [s.text for s in split_sentences("We propose X. It works, e.g. on ImageNet. Gains are 24.72%!")]
['We propose X.', 'It works, e.g. on ImageNet.', 'Gains are 24.72%!']
"""

from __future__ import annotations

import re

from ..types import Sentence

_ABBREV = {
    "e.g", "i.e", "et al", "al", "etc", "fig", "figs", "eq", "eqs", "vs", "cf", "resp", "approx",
    "no", "sec", "ref", "refs", "dr", "prof", "mr", "ms", "st", "viz", "ca", "incl", "tab", "u.s",
}
_BOUNDARY = re.compile(r"[.!?][\"'”’)\]]*(?=\s+[\"'“‘(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[Sentence]:
    """Split `text` into sentences whose spans cover it without its inter-sentence whitespace."""
    spans: list[tuple[int, int]] = []
    start = _skip_space(text, 0)
    for m in _BOUNDARY.finditer(text):
        end = m.end()
        if text[m.start()] == "." and (_is_abbreviation(text, start, m.start()) or _broken_decimal(text, m.start())):
            continue
        if end > start:
            spans.append((start, end))
        start = _skip_space(text, end)
    tail_end = len(text.rstrip())
    if tail_end > start:
        spans.append((start, tail_end))
    return [Sentence(i, s, e, text[s:e]) for i, (s, e) in enumerate(spans)]


_PERCENT_AFTER = re.compile(r"\s+\d+(?:\.\d+)?\s?%")


def _broken_decimal(text: str, dot: int) -> bool:
    """A decimal a space broke ("achieves 77. 7% accuracy"): a digit before the period, a percentage after it (no
    sentence starts with "7%").

    >>> [s.text for s in split_sentences("It achieves 77. 7% accuracy. 12 runs were made.")]
    ['It achieves 77. 7% accuracy.', '12 runs were made.']
    """
    return dot > 0 and text[dot - 1].isdigit() and bool(_PERCENT_AFTER.match(text, dot + 1))


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _is_abbreviation(text: str, sent_start: int, dot: int) -> bool:
    """True when the period at `dot` closes an abbreviation or an initial, not a sentence."""
    word_start = dot
    while word_start > sent_start and not text[word_start - 1].isspace() and text[word_start - 1] not in "([":
        word_start -= 1
    word = text[word_start:dot].lower()
    if word in _ABBREV or word.rstrip(".") in _ABBREV:
        return True
    return text[max(sent_start, word_start - 3) : dot].lower().endswith("et al")
