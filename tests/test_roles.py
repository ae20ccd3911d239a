"""Sentence roles for comparison tables (assistant/answer/roles.py) and the table built from them.

The role model reads the bundled MiniLM's vectors (real weights: slow)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant.answer import roles
from assistant.answer.contrast import NOT_STATED, difference, role_table
from assistant.answer.roles import (
    _SURFACE,
    FEATURES,
    LABELS,
    SURFACE,
    assign,
    classify,
    data_mentions,
    features,
    probabilities,
)
from assistant.types import Hit, Record

pytestmark = pytest.mark.slow

# written for these tests: general scientific English, no eval file's sentence
ABSTRACT = [
    "Speech recognisers remain brittle on accented speech, and collecting labelled data is costly.",
    "We propose AccentMix, a data augmentation method that mixes accent embeddings during training.",
    "It consists of an accent encoder and a mixing layer inserted into the acoustic model.",
    "We evaluate on three public corpora covering 12 accents and 400 hours of speech.",
    "AccentMix reduces word error rate by 11.3% relative over strong baselines.",
]
CLINICAL = [
    "Falls are a leading cause of injury among older adults, yet few interventions have been tested at home.",
    "We randomly assigned participants to a twelve-week balance training programme or to usual care.",
    "The training group had 31% fewer falls than the control group (95% CI 12 to 46).",
    "Home balance training is an effective way to prevent falls in older adults.",
]


def test_the_weights_load_and_fit_the_features():
    coef, intercept, trans = roles._weights()
    dim = features(["A sentence.", "Another one."], np.zeros((2, 384), np.float32)).shape[1]
    assert coef.shape == (len(LABELS), dim) and intercept.shape == (len(LABELS),)
    assert trans.shape == (len(LABELS), len(LABELS))
    card = json.loads(roles.WEIGHTS.read_text(encoding="utf-8"))
    assert card["embedder"] == roles.EMBEDDER and tuple(card["features"]) == FEATURES


def test_weights_of_other_features_are_refused_with_the_fix(tmp_path, monkeypatch):
    bad = tmp_path / "roles.json"
    bad.write_text(json.dumps({"labels": list(LABELS), "features": ["vector[384]"], "coef": [], "intercept": []}))
    monkeypatch.setattr(roles, "WEIGHTS", bad)
    roles._weights.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"scripts/train_roles\.py"):
            classify(["We propose a parser."])
    finally:
        roles._weights.cache_clear()


@pytest.mark.parametrize("name,pattern,example", SURFACE)
def test_every_surface_cue_matches_its_example(name, pattern, example):
    assert _SURFACE[[n for n, _, _ in SURFACE].index(name)].search(example), (name, pattern)


def test_clear_abstracts_are_read_sentence_by_sentence():
    assert classify(ABSTRACT) == ["problem", "method", "method", "data", "result"]
    assert classify(CLINICAL) == ["problem", "method", "result", "result"]


@pytest.mark.parametrize("sentence,role", [
    ("Existing methods fail to scale to long documents, which limits their use in practice.", "problem"),
    ("We propose a graph neural network that learns to route messages between distant nodes.", "method"),
    ("Our model outperforms all baselines, improving accuracy by 4.2% on average.", "result"),
])
def test_a_lone_sentence_is_read_by_what_it_says(sentence, role):
    assert classify([sentence]) == [role]


def test_a_lone_sentence_has_no_position():
    row = features(["We propose a parser."], np.ones((1, 384), np.float32))[0]
    assert list(row[-3:]) == [0.5, 0.0, 0.0]  # position, first, last
    assert not row[384:768].any()  # nothing to centre on


def test_roles_are_valid_deterministic_and_the_same_from_cached_vectors():
    out = classify(ABSTRACT)
    assert len(out) == len(ABSTRACT) and set(out) <= set(LABELS)
    assert classify(ABSTRACT) == out and classify([]) == []
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return roles._bundled_embed(texts)

    assert np.array_equal(probabilities(ABSTRACT, embed), probabilities(ABSTRACT))
    assert calls == [ABSTRACT]
    p = probabilities(CLINICAL)
    assert p.shape == (4, len(LABELS)) and np.allclose(p.sum(axis=1), 1.0)


def test_each_sentence_goes_to_its_column():
    cols = assign(ABSTRACT)
    assert cols["Problem"] == 0 and cols["Method"] in (1, 2) and cols["Data"] == 3 and cols["Result"] == 4


def test_a_column_no_sentence_plays_is_empty_and_skipped_sentences_are_not_used():
    short = ["We propose a parser.", "It improves accuracy by 3% over the baseline."]
    cols = assign(short)
    assert cols["Data"] is None and cols["Method"] == 0 and cols["Result"] == 1
    assert assign(ABSTRACT, skip=frozenset({1}))["Method"] != 1
    assert len({i for i in assign(CLINICAL).values() if i is not None}) == \
        sum(i is not None for i in assign(CLINICAL).values())  # distinct sentences


def test_data_named_inside_a_result_sentence():
    assert data_mentions("When 5 layers of LLaMA-3-8B are pruned, it keeps 90.57% accuracy on 9 QA tasks.") \
        == ["LLaMA-3-8B", "9 QA tasks"]


def _hit(pid: str, text: str, label: str, derived: bool) -> Hit:
    return Hit(pid, Record(pid, text, label=label, label_derived=derived), 1.0)


def test_table_and_statement_do_not_repeat_each_other():
    a = _hit("a", " ".join(ABSTRACT), "AccentMix: accent mixing", True)
    b = _hit("b", "Parsing is slow on long documents. We propose FastParse, which prunes the chart with a learned "
                  "gate. FastParse is 4x faster on the Penn Treebank with equal accuracy.",
             "FastParse: Chart pruning", False)
    rows = [(a, 1), (b, 2)]
    names = {"a": "AccentMix", "b": "FastParse"}
    said = {1: [1], 2: [1]}
    statement = difference(rows, said, names, "How does AccentMix differ from FastParse?")
    lead, a_line, b_line = statement.splitlines()
    assert lead == "How they differ:"
    assert a_line.startswith("- **AccentMix** (*untitled: accent mixing*) [1]: AccentMix is a data")
    assert b_line.startswith("- **FastParse** [2]: ") and "we " not in statement.lower()
    table, used = role_table(rows, names, skip=said)
    assert "mixes accent embeddings" not in table and "prunes the chart" not in table  # said above, not repeated
    assert "**AccentMix** (*untitled: accent mixing*)" in table and "**FastParse: Chart pruning**" in table
    assert "(stated above) [2]" in table or NOT_STATED in table
    assert 1 not in used[1]
    assert "Speech recognisers remain brittle" in table and "reduces word error rate" in table


def test_the_table_reads_the_callers_cached_vectors():
    seen = []

    def embed(texts):
        seen.extend(texts)
        return roles._bundled_embed(texts)

    row = _hit("a", " ".join(CLINICAL), "Home balance training", False)
    table, _ = role_table([(row, 1)], {"a": ""}, embed=embed)
    assert seen == CLINICAL and "Falls are a leading cause" in table and "twelve-week balance training" in table
