"""Near-duplicate detection (jaccard on word 3-grams, brute force and MinHash-LSH) and exact duplicates."""

from __future__ import annotations

import random

import pytest

from assistant.ingest.dedupe import drop_exact_duplicates, jaccard, near_duplicates, shingles
from assistant.types import IngestIssue, Record

WORDS = (
    "graph network pooling node edge model learning federated client server privacy transformer token "
    "attention layer vision image language retrieval benchmark accuracy training data loss gradient "
    "sparse dense kernel feature representation encoder decoder policy reward agent robust adversarial"
).split()


def random_text(rng: random.Random, n: int = 120) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "."


def edit(rng: random.Random, text: str, fraction: float) -> str:
    words = text.split()
    for i in rng.sample(range(len(words)), int(len(words) * fraction)):
        words[i] = rng.choice(WORDS) + "x"
    return " ".join(words)


def test_jaccard_values():
    assert jaccard("a b c d e", "a b c d e") == 1.0
    assert jaccard("a b c d e", "a b c d f") == pytest.approx(2 / 4)
    assert jaccard("A, b. C d!", "a b c D") == 1.0  # case and punctuation are normalised
    assert jaccard("one two three", "four five six") == 0.0
    assert jaccard("", "") == 1.0
    assert shingles("a b", n=3) == {"a b"}  # shorter than n: the whole text is one shingle


def test_near_duplicates_maps_later_to_earliest():
    rng = random.Random(1)
    base = random_text(rng)
    recs = [
        Record("first", base),
        Record("other", random_text(rng)),
        Record("second", edit(rng, base, 0.03)),
        Record("third", edit(rng, base, 0.05)),
    ]
    assert near_duplicates(recs) == {"second": "first", "third": "first"}


def test_threshold_is_respected():
    rng = random.Random(2)
    base = random_text(rng)
    far = edit(rng, base, 0.5)
    assert jaccard(base, far) < 0.3
    assert near_duplicates([Record("a", base), Record("b", far)]) == {}
    assert near_duplicates([Record("a", base), Record("b", far)], threshold=0.0) == {"b": "a"}


def test_lsh_path_agrees_with_brute_force():
    rng = random.Random(3)
    recs = []
    for i in range(300):
        recs.append(Record(f"r{i}", random_text(rng)))
        if i % 30 == 0:
            recs.append(Record(f"d{i}", edit(rng, recs[-1].text, 0.04)))
    brute = near_duplicates(recs, brute_force_max=10**6)
    lsh = near_duplicates(recs, brute_force_max=0)
    assert brute == lsh
    assert brute == {f"d{i}": f"r{i}" for i in range(0, 300, 30)}


def test_lsh_scales_sub_quadratically():
    import time

    rng = random.Random(4)
    recs = [Record(f"r{i}", random_text(rng, 80)) for i in range(6000)]
    recs.append(Record("copy", recs[10].text))
    start = time.monotonic()
    dups = near_duplicates(recs)
    assert dups == {"copy": "r10"}
    assert time.monotonic() - start < 60  # brute force over 18M pairs would take many minutes


def test_drop_exact_duplicates():
    a = Record("x", "text one", source="f", source_line=1)
    same = Record("x", "text one", source="f", source_line=5)
    other = Record("x", "text two", source="f", source_line=9)
    out = list(drop_exact_duplicates([a, same, IngestIssue("f", 7, "bad"), other]))
    assert out[0] is a
    assert isinstance(out[1], IngestIssue) and out[1].message.startswith("duplicate of line 1")
    assert out[2].message == "bad"
    assert out[3].message.startswith("id collision") and "line 1 and line 9" in out[3].message
