"""An acronym spelled out at its first use in an answer, as a careful writer does: "GFL constructs the clusters ..."
reads "Global Feature-guided Learning (GFL) constructs the clusters ..." when the abstract defines GFL and the
answer has not yet said what it stands for.

    shown = spell_out([(sentence, abstract, source), ...], check)   # the answer's sentences, in order

The long form is the abstract's own ("words (ACR)" whose initials spell the acronym, `ingest.names.expansion`);
an acronym the abstract does not define, or whose long form or definition the answer already gives, is left as it
is. Each changed sentence is kept only when the claim verifier (`check`: [(claim, [sources])] -> verdicts) judges
it supported by the sentence it came from together with the abstract's defining sentence (it reads a spelled-out
acronym its source defines as the acronym: `verify.abbrev`); without a verifier the rule alone decides (the long
form is the abstract's words, moved).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..index.sentences import split_sentences
from ..ingest.names import expansion
from ..verify import VerifierUnavailableError

# an acronym as written: two capitals or more ("GFL", "BoN"; one with a digit is left: `definitions`); not inside a
# word, a hyphenated compound or brackets (a definition already)
ACRONYM = re.compile(r"(?<![\w(\-])([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)(?![\w\-)])")


def definitions(sentence: str, abstract: str, said: str) -> list[tuple[str, str]]:
    """(acronym, long form) for each acronym of `sentence` the abstract defines and `said` (the answer so far,
    this sentence included) neither defines nor spells out.

    >>> definitions("GFL smooths noise.", "We propose Global Feature-guided Learning (GFL). GFL smooths noise.",
    ...             "GFL smooths noise.")
    [('GFL', 'Global Feature-guided Learning')]
    >>> definitions("GFL smooths noise.", "GFL smooths noise.", "GFL smooths noise.")  # not defined: left
    []
    >>> definitions("P2AT is fast.", "We propose Pyramid Pooling Axial Transformer (P2AT).", "P2AT is fast.")
    []
    >>> definitions("GFL smooths noise.", "We propose Global Feature-guided Learning (GFL).",
    ...             "Global Feature-guided Learning is new. GFL smooths noise.")  # spelled out already
    []
    """
    out: list[tuple[str, str]] = []
    low = said.lower()
    for acr in dict.fromkeys(ACRONYM.findall(sentence)):
        if f"({acr})" in said or any(c.isdigit() for c in acr):  # "P2AT": a digit may count letters (Pyramid Pooling)
            continue
        long = expansion(abstract, acr, whole_words=True)
        if long and long.lower() not in low and long != acr:
            out.append((acr, long))
    return out


def spelled(sentence: str, pairs: Sequence[tuple[str, str]]) -> str:
    """`sentence` with the first use of each acronym written "Long Form (ACR)".

    >>> spelled("GFL builds clusters; GFL is fast.", [("GFL", "Global Feature-guided Learning")])
    'Global Feature-guided Learning (GFL) builds clusters; GFL is fast.'
    >>> spelled("CP gauges uncertainty.", [("CP", "conformal prediction")])
    'Conformal prediction (CP) gauges uncertainty.'
    """
    for acr, long in pairs:
        written = f"{long} ({acr})"
        sentence = re.sub(rf"(?<![\w(\-]){re.escape(acr)}(?![\w\-)])", lambda _, w=written: w, sentence, count=1)
    return sentence[:1].upper() + sentence[1:]  # a sentence opening with a lower-case long form still opens one


def defining_sentence(abstract: str, acronym: str) -> str:
    """The abstract's sentence that gives the acronym in brackets (its definition)."""
    return next((s.text for s in split_sentences(abstract) if f"({acronym})" in s.text), "")


def spell_out(items: Sequence[tuple[str, str, str]],
              check: Callable[[list[tuple[str, list[str]]]], list] | None = None) -> list[str]:
    """The answer's sentences with each acronym spelled out at its first use in the answer. `items`: per sentence
    shown, in order, (the sentence, its abstract, the abstract sentence it came from: what the verifier reads it
    against). A changed sentence the verifier does not support stays as it was.

    >>> abstract = "We propose Global Feature-guided Learning (GFL). GFL builds clusters. GFL is fast."
    >>> spell_out([("GFL builds clusters.", abstract, "GFL builds clusters."), ("GFL is fast.", abstract, "")])
    ['Global Feature-guided Learning (GFL) builds clusters.', 'GFL is fast.']
    >>> class No:
    ...     label = "not_supported"
    >>> spell_out([("GFL builds clusters.", abstract, "")], lambda pairs: [No() for _ in pairs])
    ['GFL builds clusters.']
    """
    out: list[str] = []
    asks: dict[int, tuple[str, list[str]]] = {}  # sentence index -> (spelled-out form, its evidence)
    for sentence, abstract, source in items:
        pairs = definitions(sentence, abstract, " ".join([*out, sentence]))
        new = spelled(sentence, pairs) if pairs else sentence
        if new != sentence:
            evidence = [source or sentence, *dict.fromkeys(defining_sentence(abstract, a) for a, _ in pairs)]
            asks[len(out)] = (new, [e for e in evidence if e])
        out.append(new)
    if asks and check is not None:  # one verifier call for the answer (a rejected form leaves later uses as written)
        try:
            verdicts = check(list(asks.values()))
        except VerifierUnavailableError:
            return out  # the rule alone, as without a verifier
        for i, v in zip(asks, verdicts):
            if getattr(v, "label", "") != "supported":
                out[i] = items[i][0]
    return out
