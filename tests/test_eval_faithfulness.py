"""verified_sentences: the claim verifier's reading of each answer sentence against the abstract it cites."""

from __future__ import annotations

from conftest import PAPERS

from assistant.settings import load_settings
from assistant.verify import get_verifier
from eval.faithfulness import verified_counts

PRUNE = PAPERS[1]


def test_verifier_counts_supported_and_contradicted_sentences():
    v = get_verifier(load_settings(None, {}, env={}).verify)
    cites = [{"marker": 1, "paper_id": PRUNE.paper_id, "text": PRUNE.text}]
    answer = ("Prune&Comp reduces perplexity by 24.72% on LLaMA-3-8B [1]. "
              "Prune&Comp increases perplexity by 24.72% on LLaMA-3-8B [1]. "
              "Prune&Comp was evaluated on robot grasping benchmarks [2].")
    ok, n, details = verified_counts(answer, cites, v)
    assert (ok, n) == (1, 3)
    assert [d["verdict"] for d in details] == ["supported", "contradicted", "not_supported"]  # [2]: nothing cited
