"""Sentence roles for comparison tables (assistant/answer/roles.py) and the table built from them."""

from __future__ import annotations

import pytest

from assistant.answer.contrast import NOT_STATED, difference, role_table
from assistant.answer.roles import _COMPILED, CUES, ROLES, assign, data_mentions, role_of
from assistant.types import Hit, Record


@pytest.mark.parametrize("role", ROLES)
def test_every_cue_matches_its_example(role):
    for (rx, _), (pattern, _, example) in zip(_COMPILED[role], CUES[role]):
        assert rx.search(example), (role, pattern, example)


ABSTRACT = [
    "Speech recognisers remain brittle on accented speech, and collecting labelled data is costly.",
    "We propose AccentMix, a data augmentation method that mixes accent embeddings during training.",
    "It consists of an accent encoder and a mixing layer inserted into the acoustic model.",
    "We evaluate on three public corpora covering 12 accents and 400 hours of speech.",
    "AccentMix reduces word error rate by 11.3% relative over strong baselines.",
]


def test_each_sentence_goes_to_its_column():
    cols = assign(ABSTRACT)
    assert cols == {"Problem": 0, "Method": 1, "Data": 3, "Result": 4}
    assert role_of(ABSTRACT[4], 4, 5) == "Result" and role_of(ABSTRACT[3], 3, 5) == "Data"


def test_a_column_no_sentence_plays_is_empty_and_skipped_sentences_are_not_used():
    short = ["We propose a parser.", "It improves accuracy by 3% over the baseline."]
    cols = assign(short)
    assert cols["Data"] is None and cols["Method"] == 0 and cols["Result"] == 1
    assert assign(ABSTRACT, skip=frozenset({1}))["Method"] != 1


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
