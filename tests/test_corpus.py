"""The bundled corpus: parsing the seed files, and the committed data/corpus.jsonl."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from assistant.ingest import read_source
from assistant.ingest.labels import MAX_LABEL
from assistant.types import Record

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"
CORPUS = ROOT / "data" / "corpus.jsonl"
CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]")
TITLES = {
    "XLinear: A Lightweight and Accurate MLP-Based Model for Long-Term Time Series Forecasting with Exogenous Inputs",
    "Prune&Comp: Free Lunch for Layer-Pruned LLMs via Iterative Pruning with Magnitude Compensation",
    "GCA: Geometry-aware Conditional Alignment for Partial Domain Adaptation with Coding Rate Reduction",
    "When Top-ranked Recommendations Fail: Modeling Multi-Granular Negative Feedback for Explainable and Robust "
    "Video Recommendation",
    "Connectivity-Guided Sparsification of 2-FWL GNNs: Preserving Full Expressivity with Improved Efficiency",
    "Zero-shot Recommendation: Towards Class Semantic Relation Learning for Inferring Labels of Unseen Micro-videos",
}
needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"seed folder {SEEDS} (../shared/seeds) is absent")


def check_corpus(records: list[Record]) -> None:
    assert len(records) == 210
    assert {r.title for r in records if r.title} == TITLES
    assert len({r.paper_id for r in records}) == 210
    for r in records:
        assert "PDF ↗" not in r.text and "Daily Papers" not in r.text
        assert not CJK.search(r.text + r.title + r.label)
        assert r.text == " ".join(r.text.split())
        assert r.label and (r.label == r.title if r.title else r.label_derived)
        assert len(r.label) <= MAX_LABEL or not r.label_derived
        assert r.paper_id == "h:" + r.hash
    joined = " ".join(r.text for r in records)
    for ch in "’“”‐‑×":
        assert ch in joined, f"typographic character {ch!r} lost"
    assert len({r.label.casefold() for r in records}) == 210
    labels = {r.label for r in records}
    assert any(label.startswith("FedMerge") for label in labels)
    assert any(label.startswith("Polygames") for label in labels)
    assert any(label.startswith("SUSing") for label in labels)
    assert "GWAP: Global weighted average pooling" in labels


@pytest.fixture(scope="module")
def built():
    spec = importlib.util.spec_from_file_location("build_corpus", ROOT / "scripts" / "build_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@needs_seeds
def test_each_seed_file_parses_cleanly():
    counts = {}
    for path in sorted(SEEDS.glob("*.txt")):
        items = list(read_source(path))
        assert all(isinstance(i, Record) and i.source_type == "seed" for i in items), [str(i) for i in items][:3]
        counts[path.name] = (len(items), sum(1 for r in items if r.title))
    assert sum(n for n, _ in counts.values()) == 210
    assert sum(t for _, t in counts.values()) == 6


@needs_seeds
def test_build_from_seeds(built):
    records, issues = built.build(SEEDS)
    assert issues == []
    check_corpus(records)
    dups = {r.paper_id: r.duplicate_of for r in records if r.duplicate_of}
    assert len(dups) == 1
    (later, earlier), = dups.items()
    by_id = {r.paper_id: r for r in records}
    assert by_id[later].text.startswith("The Non-Local Network (NLNet) presents a pioneering approach")
    assert by_id[earlier].text.startswith("The Non-Local Network (NLNet) presents a pioneering approach")
    assert records.index(by_id[earlier]) < records.index(by_id[later])


@needs_seeds
def test_build_is_deterministic_and_matches_committed_file(built, tmp_path):
    out1, out2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert built.main(["--seeds", str(SEEDS), "--out", str(out1)]) == 0
    assert built.main(["--seeds", str(SEEDS), "--out", str(out2)]) == 0
    assert out1.read_bytes() == out2.read_bytes()
    assert out1.read_bytes() == CORPUS.read_bytes(), "data/corpus.jsonl is stale: run scripts/build_corpus.py"


def test_committed_corpus_file():
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 210
    for line in lines:
        obj = json.loads(line)
        assert list(obj) == sorted(obj)
    records = [Record.from_dict(json.loads(line)) for line in lines]
    check_corpus(records)
    assert sum(1 for r in records if r.duplicate_of) == 1


def test_committed_corpus_reads_back_with_the_jsonl_reader():
    items = list(read_source(CORPUS))
    assert all(isinstance(i, Record) for i in items)
    original = [Record.from_dict(json.loads(line)) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    assert [(r.paper_id, r.label, r.title, r.text, r.duplicate_of) for r in items] == [
        (r.paper_id, r.label, r.title, r.text, r.duplicate_of) for r in original
    ]
    assert {r.source_type for r in items} == {"jsonl"}
