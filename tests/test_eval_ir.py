"""The retrieval metrics now come from trec_eval via pytrec_eval (eval/ir.py); they must agree with the hand-written
functions eval/metrics.py had before (kept below as the reference) on the bundled question set."""

from __future__ import annotations

import doctest
import math
import random

import pytest
from conftest import make_settings

from assistant.settings import BUNDLED_CORPUS, PROJECT_DIR
from eval import ir
from eval import metrics as M

QUESTIONS = PROJECT_DIR / "eval" / "questions.jsonl"


# -- the reference: eval/metrics.py's pure functions before the switch (commit 364746d) --------------------
def ref_recall_at_k(ranking, units, k):
    if not units:
        return None
    top = set(ranking[:k])
    return sum(1 for u in units if u & top) / len(units)


def ref_reciprocal_rank(ranking, units, k=None):
    if not units:
        return None
    rel = M.relevant_ids(units)
    for rank, pid in enumerate(ranking[:k] if k else ranking, start=1):
        if pid in rel:
            return 1.0 / rank
    return 0.0


def ref_ndcg_at_k(ranking, units, k=10):
    if not units:
        return None
    open_units = list(units)
    dcg = 0.0
    for i, pid in enumerate(ranking[:k], start=1):
        if [u for u in open_units if pid in u]:
            dcg += 1.0 / math.log2(i + 1)
            open_units = [u for u in open_units if pid not in u]
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(units), k) + 1))
    return dcg / ideal if ideal else 0.0


def reference(ranking, units):
    return {"recall@5": ref_recall_at_k(ranking, units, 5), "recall@10": ref_recall_at_k(ranking, units, 10),
            "mrr": ref_reciprocal_rank(ranking, units, 10), "ndcg@10": ref_ndcg_at_k(ranking, units, 10)}


def assert_same(got, want, label):
    for m in ir.NAMES:
        if want[m] is None:
            assert got[m] is None, (label, m)
        else:
            assert got[m] == pytest.approx(want[m], abs=1e-9), (label, m, got[m], want[m])


def test_doctests():
    assert doctest.testmod(ir).failed == 0


@pytest.mark.skipif(not BUNDLED_CORPUS.is_file(), reason="data/corpus.jsonl is not built")
def test_trec_eval_agrees_with_the_pure_functions_on_the_bundled_set(tmp_path):
    """Bundled corpus (debug preset: hash embeddings, so rankings are imperfect and varied) and bundled
    questions, run retrieval-only; every question's four metrics equal the reference, also on shuffled
    and truncated rankings of the same questions."""
    from assistant.answer.assistant import Assistant
    from assistant.pipeline import ingest_paths
    from eval.runner import load_run, run_eval

    settings = make_settings(tmp_path)
    a = Assistant(settings)
    ingest_paths(a.index, [BUNDLED_CORPUS])
    run_eval(QUESTIONS, tmp_path / "run", settings, assistant=a, retrieval_only=True, progress=False, plots=False)
    _, recs = load_run(tmp_path / "run")
    texts = {r.paper_id: r.text for r in a.index.all_records()}
    groups = {r.paper_id: r.duplicate_of or r.paper_id for r in a.index.all_records()}
    key_index = M.resolve_keys({k for r in recs for k in r.get("gold") or []}, texts, groups)
    rnd = random.Random(0)
    items, wants = [], {}
    for r in recs:
        units = M.gold_units(r.get("gold") or (), r.get("gold_ids") or (), key_index)
        assert_same(r["metrics"], reference(r["ranking"], units), r["id"])  # what the run wrote
        for variant, ranking in (("shuffled", rnd.sample(r["ranking"], len(r["ranking"]))),
                                 ("short", r["ranking"][:3]), ("empty", [])):
            qid = f"{r['id']}/{variant}"
            items.append((qid, ranking, units))
            wants[qid] = reference(ranking, units)
    got = ir.batch_scores(items)
    for qid, want in wants.items():
        assert_same(got[qid], want, qid)
    with_gold = [r for r in recs if r["metrics"]["recall@5"] is not None]
    assert len(with_gold) > 40
    assert {r["metrics"]["ndcg@10"] for r in with_gold} - {0.0, 1.0}  # not a trivial all-or-nothing set
