"""Where a term stands in an abstract: written as is, spelled out ("FID" as "Frechet Inception Distance"), and
the sentences that speak of it (the one naming it and the next one that refers back to it).
"""

from __future__ import annotations

import re

from .nameforms import named_terms, norm


def has_term(term: str, text: str) -> bool:
    return norm(term) in norm(text) or spelled_out(term, text)


_SKIP = frozenset("of and for the to in on a an".split())


def spelled_out(term: str, text: str) -> bool:
    """An acronym the abstract writes out: "FID" in "Frechet Inception Distance", "ASR" in "speech recognition"
    (the spelled-out words may drop one leading qualifier, "automatic"). Three letters, two words at least.

    >>> spelled_out("ASR", "End-to-end models reach state-of-the-art performance for speech recognition.")
    True
    >>> spelled_out("FID", "We report top-1 accuracy.")
    False
    """
    acro = re.sub(r"s$", "", term)
    if not re.fullmatch(r"[A-Z]{3,6}", acro):  # two letters ("RL") spell too many word pairs
        return False
    words = [w for w in re.findall(r"[A-Za-z]+", text) if w.lower() not in _SKIP]
    runs = "".join(w[0].upper() if len(w) > 2 else " " for w in words).split()  # a short word breaks a run
    return any(acro in run or acro[1:] in run for run in runs)


_REFERS = re.compile(r"\b(?:it|its|they|them|their|these|those|this|both|each|respectively|there)\b", re.I)


def following(sents: list[str], keep: list[bool], details: tuple[str, ...] = ()) -> list[str]:
    """The kept sentences and the sentence after each that refers back to it ("We test on A and B. Results
    on them outperform SOTA by 3.7%"): a figure there is a figure for what the kept one names, unless it
    names one of the kept one's other things ("We test on A and B. It reaches 96% on A" says nothing of B)."""
    out = []
    for i, s in enumerate(sents):
        if keep[i]:
            out.append(s)
        elif i and keep[i - 1] and _REFERS.search(s):
            siblings = {norm(t) for t in named_terms(sents[i - 1])} - {norm(t) for t in details}
            if not siblings & {norm(t) for t in named_terms(s)}:
                out.append(s)
    return out

