"""Long forms of acronyms: the words an abstract abbreviates as "words (ACR)".

    expansion("We propose Global Feature-guided Learning (GFL).", "GFL", exact=True)  # 'Global Feature-guided Learning'

The loose reading names methods at ingest (`names.py`); the exact one (the acronym's letters, or for a plural or
mixed-case acronym its capitals, are exactly the words' initials, within the sentence) spells acronyms out in answers
(`answer/acronyms.py`) and lets the claim verifier read a spelled-out acronym back (`verify/abbrev.py`).
"""

from __future__ import annotations

import re

from .phrases import ARTICLES, strip_token


def initials(words: list[str]) -> str:
    return "".join(p[0].lower() for w in words for p in re.split(r"[-‐‑/]", w) if p and p[0].isalnum())


def expansion(text: str, acronym: str, exact: bool = False) -> str:
    """The words defined by "words (ACRONYM)" in `text`, when their initials spell the acronym (each part of a
    hyphenated word one; loosely: as many initials, the first two the same). `exact`: the initials exactly, of
    each word or of each part ("Feature-guided" as F or FG), within the sentence of the brackets.

    >>> expansion("We propose Global Feature-guided Learning (GFL).", "GFL", exact=True)
    'Global Feature-guided Learning'
    >>> expansion("We propose Global Feature-guided Learning (GFL).", "GFL")
    ''
    >>> expansion("Leveraging large language models (LLMs) helps.", "LLMs"), expansion(
    ...     "Leveraging large language models (LLMs) helps.", "LLMs", exact=True)
    ('Leveraging large language models', 'large language models')
    >>> expansion("It is learned on the Graph. Neural Operators (GNO) are fast.", "GNO", exact=True)
    ''
    >>> [expansion(t, a, exact=True) for t, a in [("Large language models (LLMs) help.", "LLMs"),
    ...     ("We adopt Low-Rank Adaptation (LoRA).", "LoRA"), ("A Vision Transformer (ViT) is used.", "ViT")]]
    ['Large language models', 'Low-Rank Adaptation', 'Vision Transformer']

    (`exact`, an acronym in mixed case or a plural: its capitals alone may be the initials, "LLMs", "ViT".)
    """
    letters = re.sub(r"[^a-z]", "", acronym.lower())
    capitals = re.sub(r"[^A-Z]", "", acronym).lower()
    spelled = {letters} | ({capitals} if exact and len(capitals) >= 2 else set())
    for m in re.finditer(r"\(\s*" + re.escape(acronym) + r"\s*\)", text):
        before = re.split(r"[()]", text[max(0, m.start() - 160) : m.start()])[-1]
        if exact:
            before = re.split(r"[.;:!?](?:\s|$)", before)[-1]
        words = [w for w in (strip_token(w) for w in before.split()[-10:]) if w]
        for start in range(len(words) - 1, -1, -1):
            cand = words[start:]
            if cand[0].lower() in ARTICLES:
                continue
            ini = initials(cand)
            if exact:
                if cand[0][0].isalnum() and spelled & {ini, "".join(w[0].lower() for w in cand)}:
                    return " ".join(cand)  # (not "/minimum ..." after "(Cmin)/minimum ... (MIC)")
            elif ini == letters or (len(cand) >= 2 and len(ini) == len(letters) and ini[:2] == letters[:2]):
                return " ".join(cand)
    return ""
