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


def abbreviated(phrase: str, text: str) -> str:
    """The abstract's acronym for two or more consecutive words of the asked `phrase`, an acronym in the phrase
    kept whole ("relative WER reduction": "WERR"; "intersection over union": "IoU"), or "" when it has none.

    >>> abbreviated("relative WER reduction", "We get an average of 49% WERR over the USM-CTC baseline.")
    'WERR'
    >>> abbreviated("mean absolute error", "The MAE fell to 0.03."), abbreviated("mean absolute error", "Errors fell.")
    ('MAE', '')
    """
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", phrase) if w.lower() not in _SKIP]
    letters = [w if re.fullmatch(r"[A-Z][A-Z0-9]+", w) else w[0].upper() for w in words]
    found = {t.upper(): t for t in re.findall(r"\b[A-Za-z]*[A-Z][A-Za-z]*[A-Z][A-Za-z]*\b", text)}  # 2+ capitals
    for n in range(len(letters), 1, -1):
        for i in range(len(letters) - n + 1):
            short = "".join(letters[i:i + n])
            if len(short) >= 3 and short in found:
                return found[short]
    return ""


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

