"""Abbreviations a claim spells out that its source defines: read as the source writes them.

An answer that spells out an acronym at its first use ("Global Feature-guided Learning (GFL) constructs the
clusters ...") joins the abstract's definition ("we propose Global Feature-guided Learning (GFL)") to a sentence
that only says "GFL constructs the clusters ...". The verifier reads a claim against one or two neighbouring
sentences, so the long form has no counterpart there and the claim reads as unsupported. A claim's "Long Form (ACR)"
that its source defines the same way is also read as the acronym alone (`canonical`), as abbreviation resolution
does in biomedical text mining. `spellable` says which acronyms may be read so, here and where an answer spells
acronyms out (`answer/acronyms.py`).
"""

from __future__ import annotations

import re

from ..ingest.longforms import expansion
from .windows import _STOP

# English words an all-capital acronym may spell ("NOT", "AND", "IT"): the verifier's function words and negations
_WORDS = _STOP | frozenset("not no nor us so if".split())
# "words (ACR)": an acronym in brackets after the words it may abbreviate
_DEFINED = re.compile(r"\(\s*([A-Z][A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*)\s*\)")


def canonical(claim: str, source: str) -> str | None:
    """`claim` with each "Long Form (ACR)" the source defines alike written "ACR"; None when it has none.

    >>> canonical("Global Feature-guided Learning (GFL) smooths noise.",
    ...           "We propose Global Feature-guided Learning (GFL). GFL smooths noise.")
    'GFL smooths noise.'
    >>> canonical("Global Feature Learning (GFL) smooths noise.", "We propose Gated Fusion Layers (GFL).") is None
    True
    >>> canonical("It does Neural Operator Testing (NOT) go.", "We propose Neural Operator Testing (NOT).") is None
    True
    >>> canonical("We use Global Feature-guided Learning (GFL) to smooth noisy 2D masks.",  # the definition itself:
    ...           "We propose Global Feature-guided Learning (GFL) to smooth noisy 2D masks.") is None
    True
    """
    out, changed = claim, False
    for m in _DEFINED.finditer(claim):
        acr = m.group(1)
        if not spellable(acr):
            continue  # "Neural Operator Testing (NOT)": never read an English word out of a claim
        long = expansion(claim[: m.end()], acr, exact=True)
        if (long and expansion(source, acr, exact=True).lower() == long.lower()
                and not _is_definition(claim, acr, long, source)):
            out, n = _span(long, acr).subn(acr, out, count=1)
            changed = changed or bool(n)
    return out if changed else None


def spellable(acronym: str) -> bool:
    """An acronym that may be spelled out or read back: no digit ("P2AT" is "Pyramid Pooling Axial Transformer": a
    digit may count letters) and no English word in capitals ("NOT", "AND", "IT").

    >>> [spellable(w) for w in ("GFL", "BoN", "P2AT", "NOT", "IT")]
    [True, True, False, False, False]
    """
    return not any(c.isdigit() for c in acronym) and acronym.lower() not in _WORDS


def _span(long: str, acr: str) -> re.Pattern:
    """ "Long Form (ACR)" as written in a text."""
    return re.compile(rf"{re.escape(long)}\s*\(\s*{re.escape(acr)}\s*\)", re.I)


def _is_definition(claim: str, acr: str, long: str, source: str) -> bool:
    """The claim is (mostly) the source's defining sentence itself (its words besides "Long Form (ACR)"): the verifier
    has read the long form with its counterpart already, and a second reading would only be a second chance for an
    edited sentence."""
    span = _span(long, acr)

    def rest(text: str) -> set[str]:
        return set(re.findall(r"[a-z]{4,}", span.sub(" ", text).lower()))

    words = rest(claim)
    return bool(words) and any(f"({acr})" in d and len(words & rest(d)) >= 0.6 * len(words)
                               for d in re.split(r"(?<=[.!?])\s+", source))  # crude: "S. typhimurium" splits
