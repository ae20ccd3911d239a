"""Faithfulness by the claim verifier: the share of answer claim sentences that the abstracts they cite
support, read by the verifier trained in this repository (assistant/verify), beside the lexical
`supported_sentences`, which it does not replace: the two fail differently (the lexical check passes a
negated claim that shares its words; the verifier may miss an exact paraphrase).

    counts = verified_counts(answer_text, citations, verifier, splitter)   # (supported, claims, details)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from . import metrics as M


def verified_counts(answer: str, citations: Sequence[Mapping], verifier, splitter=None) -> tuple[int, int, list[dict]]:
    """(claims the verifier finds supported by their cited abstracts, claims, per-claim verdicts).

    A claim citing several abstracts counts as supported when any of them supports it; a claim citing
    nothing retrieved is unsupported."""
    by_marker = {int(c.get("marker", 0)): c for c in citations}
    units = M.claim_units(answer, splitter)
    pairs, owners = [], []
    for i, (text, markers) in enumerate(units):
        for m in dict.fromkeys(markers):
            if m in by_marker and by_marker[m].get("text"):
                pairs.append((M.strip_markers(text), by_marker[m]["text"]))
                owners.append(i)
    verdicts = verifier.verify_many(pairs) if pairs else []
    best: dict[int, object] = {}
    for i, v in zip(owners, verdicts):
        if i not in best or v.support > best[i].support:
            best[i] = v
    details = [{"sentence": text, "verdict": best[i].label if i in best else "not_supported",
                "support": round(best[i].support, 3) if i in best else 0.0} for i, (text, _) in enumerate(units)]
    return sum(d["verdict"] == "supported" for d in details), len(units), details
