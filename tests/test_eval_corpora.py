"""The development corpora (eval/corpora.py): deterministic builds through the readers a user's file goes through."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from assistant.ingest import read_source
from eval import corpora

LONG = "A sentence long enough to count as an abstract, about {t}, with results on two benchmarks. " * 3


def _fake_shared(root: Path) -> Path:
    (root / "arxiv").mkdir(parents=True)
    rows = [{"id": f"2501.{i:05d}", "title": f"Paper {i} on {'graphics' if i % 3 else 'language'}",
             "abstract": LONG.format(t=f"topic {i} with braces {{x}} and $\\infty$"),
             "authors": str(["Ada Lovelace", f"Author {i}"]),
             "categories": str(["cs.GR" if i % 3 else "cs.CL", "cs.LG"]), "first_seen": "2025-01-02"}
            for i in range(30)]
    with gzip.open(root / corpora.ARXIV, "wt", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return root


def test_a_slice_is_deterministic_and_reads_back_through_the_jsonl_reader(tmp_path):
    shared = _fake_shared(tmp_path / "shared")
    build = corpora.arxiv_slice(("cs.GR",), 5, "salt")
    first, second = list(build(shared)), list(build(shared))
    assert first == second and len(first) == 5
    assert all(r["venue"] == "arXiv cs.GR" and r["authors"] == ["Ada Lovelace", r["authors"][1]] for r in first)
    other = list(corpora.arxiv_slice(("cs.GR",), 5, "other salt")(shared))
    assert {r["id"] for r in other} != {r["id"] for r in first}  # the salt picks another sample


def test_bibtex_output_parses_with_every_record_and_keeps_tex(tmp_path):
    shared = _fake_shared(tmp_path / "shared")
    recs = list(corpora.arxiv_slice(("cs.GR",), 6, "s")(shared))
    path = tmp_path / "c.bib"
    path.write_text("\n".join(corpora.to_bibtex(r) for r in recs), encoding="utf-8")
    out = [r for r in read_source(path) if hasattr(r, "paper_id")]
    assert len(out) == 6
    assert all("\\infty" in r.text and "Ada Lovelace" in r.authors for r in out)


def test_distractors_exclude_the_slice_fields(tmp_path):
    shared = _fake_shared(tmp_path / "shared")
    rows = list(corpora.arxiv_distractors(("cs.GR",), 100, shared))
    assert rows and all(r["venue"] == "arXiv cs.CL" for r in rows)


def test_roles_were_fixed_with_at_least_two_corpora_held_out():
    held = {s.name for s in corpora.SPECS.values() if s.role == "heldout" and not s.questions}
    assert len(held) >= 2
    assert {r.role for r in corpora.RUNS.values()} == {"tune", "heldout"}
    for run in corpora.RUNS.values():  # a run's role is its corpus's role
        if run.corpus in corpora.SPECS:
            assert run.role == corpora.SPECS[run.corpus].role


def test_every_run_has_its_question_file():
    for run in corpora.RUNS.values():  # a second question set over a corpus reads its own file ("pubmedqa-b")
        if run.corpus != "bundled" and not run.pubmedqa_own:
            path = corpora._question_file(run)
            assert path.is_file() and path.parent.name == (run.questions or corpora.SPECS[run.corpus].questions
                                                           or run.corpus)
    assert corpora._question_file(corpora.RUNS["pubmedqa-b"]).parent.name == "pubmedqa-b"


@pytest.mark.skipif(not (corpora.SHARED / "pubmedqa" / "ori_pqal.json").is_file(), reason="needs ../shared/data")
def test_pubmedqa_corpus_has_every_context_as_one_abstract():
    rows = list(corpora.pubmedqa(corpora.SHARED))
    assert len(rows) == 1000 and len({r["id"] for r in rows}) == 1000
    assert all(r["id"].startswith("PMID:") and len(r["abstract"]) > 100 for r in rows)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not (corpora.SHARED / corpora.ARXIV).is_file():
        pytest.skip("needs ../shared/data")
    out = tmp_path_factory.mktemp("corpora")
    return {name: corpora.build(name, out) for name, spec in corpora.SPECS.items() if not spec.distractors}


def _abstracts(path: Path) -> list[str]:
    return [r.text for r in read_source(path) if hasattr(r, "paper_id")]


@pytest.mark.parametrize("name", [n for n, s in corpora.SPECS.items() if not s.questions])
def test_question_files_are_valid_against_their_corpus(built, name):
    """Each question file (written by a reader who saw only that corpus): unique ids, known kinds, at least 60
    questions, and every gold key verbatim in exactly one abstract as the reader parses it."""
    from assistant.questions import read_questions
    from eval import KINDS

    path = corpora.questions_path(name)
    if not path.is_file():
        pytest.skip(f"{name}: no question file yet")
    questions = read_questions(path)
    assert len(questions) >= 60
    assert {q["kind"] for q in questions} <= set(KINDS)
    texts = _abstracts(built[name])
    for q in questions:
        for key in q.get("gold") or []:
            assert sum(key in t for t in texts) == 1, (q["id"], "gold key not unique to one abstract")


def test_a_tuning_mix_holds_no_abstract_of_a_held_out_corpus_field(tmp_path, monkeypatch):
    """A tuning corpus of library size mixes in distractors from fields no held-out corpus draws on (cs.GR is one),
    so tuning on it never reads a held-out field's abstract; a held-out mix only leaves out its own fields."""
    shared = _fake_shared(tmp_path / "shared")
    spec = corpora.CorpusSpec("mix", "tune", "test mix", corpora.arxiv_slice(("cs.CL",), 3, "m"), distractors=100)
    monkeypatch.setitem(corpora.SPECS, "mix", spec)
    rows = [json.loads(line) for line in corpora.build("mix", tmp_path / "out", shared).read_text().splitlines()]
    assert len(rows) == 3 and all(r["venue"] == "arXiv cs.CL" for r in rows)  # the fake's other field is cs.GR
    held = corpora.CorpusSpec("mix", "heldout", "test mix", corpora.arxiv_slice(("cs.CL",), 3, "m"), distractors=100)
    monkeypatch.setitem(corpora.SPECS, "mix", held)
    rows = [json.loads(line) for line in corpora.build("mix", tmp_path / "out", shared).read_text().splitlines()]
    assert any(r["venue"] == "arXiv cs.GR" for r in rows)
