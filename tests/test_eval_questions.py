"""The bundled question sets (eval/questions.jsonl and eval/questions-blind*.jsonl) are valid against the
bundled corpus (data/corpus.jsonl)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from assistant.questions import read_questions
from eval import KINDS

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "eval" / "questions.jsonl"
BLIND = ROOT / "eval" / "questions-blind.jsonl"
BLIND2 = ROOT / "eval" / "questions-blind2.jsonl"
MORE = [ROOT / "eval" / f"questions-blind{n}.jsonl" for n in (3, 4, 6)]  # written in sessions 5-6, same brief
CORPUS = ROOT / "data" / "corpus.jsonl"
MINIMUM = {"factoid": 18, "multi": 8, "compare": 8, "followup": 8, "paraphrase": 8, "absent": 10, "nearmiss": 6}


@pytest.fixture(scope="module", params=[QUESTIONS, BLIND, BLIND2, *MORE], ids=["project", "blind", "blind2", "blind3", "blind4", "blind6"])
def questions(request) -> list[dict]:
    from eval.questionset import load_questions

    qs, warnings = load_questions(request.param)  # also checks: valid JSON, the schema (eval/questionset.py), unique ids
    assert warnings == []  # every kind is a known one
    return qs


@pytest.fixture(scope="module")
def abstracts() -> list[str]:
    if not CORPUS.is_file():
        pytest.skip("data/corpus.jsonl not built yet")
    return [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_ids_unique_kinds_valid_and_counts():
    questions = read_questions(QUESTIONS)
    ids = [q["id"] for q in questions]
    assert len(ids) == len(set(ids))
    kinds = Counter(q["kind"] for q in questions)
    assert set(kinds) <= set(KINDS), set(kinds) - set(KINDS)
    for kind, n in MINIMUM.items():
        assert kinds[kind] >= n, f"{kind}: {kinds[kind]} < {n}"
    assert len(questions) >= 70


def test_every_gold_key_is_40_to_80_chars_and_in_exactly_one_abstract(questions, abstracts):
    problems = []
    for q in questions:
        for key in q.get("gold", []):
            hits = sum(1 for t in abstracts if key in t)
            if not 40 <= len(key) <= 80 or hits != 1:
                problems.append(f"{q['id']}: len={len(key)} abstracts={hits}: {key!r}")
    assert not problems, "\n".join(problems)


def test_kind_specific_shape(questions, abstracts):
    def papers(q):
        return {i for k in q.get("gold", []) for i, t in enumerate(abstracts) if k in t}

    for q in questions:
        assert isinstance(q.get("gold", []), list) and all(isinstance(k, str) for k in q.get("gold", []))
        assert all(isinstance(t, str) and t for t in q.get("must_mention", []))
        if q["kind"] in ("absent", "nearmiss"):
            assert q["gold"] == [], q["id"]  # the corpus cannot answer these
        else:
            assert q["gold"], q["id"]
        if q["kind"] in ("multi", "compare"):
            assert len(papers(q)) >= 2, f"{q['id']} needs gold from 2+ abstracts"
        if q["kind"] == "followup":
            assert 1 <= len(q.get("history", [])) <= 2, q["id"]
        else:
            assert not q.get("history"), q["id"]
        if q["kind"] == "nearmiss":
            # the famous term is mentioned in passing by some abstract (that is what makes it a near miss)
            assert any(q["mentions"] in t for t in abstracts), q["id"]
            assert q["mentions"] in q["question"], q["id"]


def test_paraphrases_avoid_the_key_terms(questions):
    by_id = {q["id"]: q for q in questions}
    for q in questions:
        if q["kind"] == "paraphrase":
            for term in q.get("must_mention", []):
                assert term.lower() not in q["question"].lower(), (q["id"], term)
            base = q.get("note", "").removeprefix("paraphrase of ").strip()
            if base in by_id:
                assert by_id[base]["gold"] == q["gold"]
