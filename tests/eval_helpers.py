"""Synthetic eval runs for the comparison tests (tests/test_eval_compare.py, tests/test_ui_eval_tab.py,
tests/test_ui_browser.py): result records as `eval run` writes them, outcomes chosen by the test."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

KINDS = ("factoid", "multi", "absent")


def _rec(i: int, kind: str, right: bool, *, abstain: bool = False, r5: float = 1.0, latency: float = 1.0) -> dict:
    """One result record as `eval run` writes it (the fields compare reads)."""
    unanswerable = kind == "absent"
    cited = [] if abstain else ([{"marker": 1, "paper_id": f"p{i}" if right else "other", "title": f"Paper {i}",
                                  "text": "An abstract.", "sentences": ["An abstract."]}])
    return {
        "id": f"q{i:03d}", "kind": kind, "question": f"Question {i}?", "reference_answer": f"Answer {i}.",
        "answer": "" if abstain else f"An answer citing [1] ({'right' if right else 'wrong'}).", "abstained": abstain,
        "citations": cited, "retrieved": [{"paper_id": f"p{i}", "title": "", "text": "An abstract.", "score": 1.0}],
        "retrieval_only": False,
        "metrics": {
            "unanswerable": unanswerable, "abstained": abstain, "has_gold": not unanswerable,
            "recall@5": None if unanswerable else r5, "recall@10": None if unanswerable else r5,
            "mrr": None if unanswerable else r5, "ndcg@10": None if unanswerable else r5,
            "gold_cited": None if unanswerable else (right and not abstain),
            "citation_precision": None if (unanswerable or abstain) else float(right),
            "citation_recall": None if (unanswerable or abstain) else float(right),
            "supported": 0 if abstain else 1, "claims": 0 if abstain else 1,
            "first_token_s": latency, "total_s": latency,
        },
    }


def write_run(d: Path, recs: list[dict], model: str = "extractive") -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    (d / "summary.json").write_text(json.dumps({"config": {"answer.model": model}, "overall": {}, "by_kind": {}}))
    return d


def base_records(n: int = 90) -> list[dict]:
    rng = np.random.default_rng(7)
    out = []
    for i in range(n):
        kind = KINDS[i % 3]
        if kind == "absent":
            out.append(_rec(i, kind, True, abstain=bool(rng.random() < 0.8)))
        else:
            out.append(_rec(i, kind, bool(rng.random() < 0.7), r5=float(rng.random() < 0.8),
                            latency=float(rng.uniform(0.5, 3))))
    return out
