"""The eval harness refuses malformed inputs instead of crashing or inventing metrics (issue 23, part 4):
question files are checked against a schema (eval/questionset.py) before any question is asked, run files
cut short are named with their line (eval/runfiles.py), and the text of compare.md / report.md quotes
the numbers the JSON holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import base_records, write_run

from assistant.cli import main
from assistant.errors import ConfigError
from eval.compare import compare_runs
from eval.compare_report import render
from eval.questionset import check_question, known_kind, load_questions
from eval.report import write_report
from eval.runner import load_run, run_eval

Q = "How much does Prune&Comp reduce perplexity?"


def _file(tmp_path: Path, *rows, name: str = "q.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("bad, says", [
    ({"gold": "a string"}, '"gold" must be a list of strings, not str'),  # was scored one character per key
    ({"gold": 123}, '"gold" must be a list of strings, not int'),  # was a TypeError traceback
    ({"gold": [None, {"x": 1}]}, '"gold[0]" must be a string, not null'),  # was a TypeError traceback
    ({"gold": ["ok", {"x": 1}]}, '"gold[1]" must be a string, not dict'),
    ({"id": ["a"]}, '"id" must be a string or an integer, not list'),  # was a TypeError in read_questions
    ({"id": {"a": 1}}, '"id" must be a string or an integer, not dict'),
    ({"id": True}, '"id" must be a string or an integer, not bool'),
    ({"gold_ids": "p1"}, '"gold_ids" must be a list of paper ids'),
    ({"history": "What is FedMerge?"}, '"history" must be a list of strings, not str'),
    ({"question": 42}, '"question" must be a non-empty string, not int'),
    ({"kind": 3}, '"kind" must be a string, not int'),
])
def test_a_malformed_question_is_refused_naming_file_line_and_field(tmp_path, bad, says):
    good = {"id": "ok", "question": Q, "gold": []}
    path = _file(tmp_path, good, "", {"id": "q2", "question": Q, "gold": [], **bad})
    with pytest.raises(ConfigError) as e:
        load_questions(path)
    assert e.value.message.startswith(f"{path}:3: ") and says in e.value.message, e.value.message
    assert "gold" in e.value.hint or "id" in e.value.hint


def test_valid_questions_pass_and_unknown_kinds_are_a_warning(tmp_path):
    path = _file(tmp_path, {"id": 1, "question": Q, "gold": ["k"], "gold_ids": [12, "p3"], "note": "kept"},
                 {"id": "b", "question": Q, "kind": "factiod"}, {"id": "c", "question": Q, "kind": "claim-support"})
    questions, warnings = load_questions(path)
    assert [q["id"] for q in questions] == [1, "b", "c"]
    assert questions[0]["gold_ids"] == ["12", "p3"] and questions[0]["note"] == "kept"  # other fields kept
    assert len(warnings) == 1 and "factiod" in warnings[0] and str(path) in warnings[0]
    assert "'claim-support'" not in warnings[0]
    assert known_kind("answer-maybe") and not known_kind("Factoid")
    assert check_question({"id": "x", "question": Q}) == {"id": "x", "question": Q}


def test_eval_run_refuses_a_string_gold_before_asking_anything(tmp_path, capsys):
    """`"gold": "a string"` used to be scored as ten one-character keys: recall@5 0.5, MRR 1.0 on junk."""
    path = _file(tmp_path, {"id": "a", "kind": "factoid", "question": Q, "gold": "a string"})
    rc = main(["--data-dir", str(tmp_path / "store"), "--preset", "debug", "eval", "run", "--questions", str(path),
               "--out", str(tmp_path / "run"), "--retrieval-only", "--quiet", "--no-plots"])
    err = capsys.readouterr().err
    assert rc == 2 and f"{path}:1" in err and '"gold" must be a list of strings' in err and "Traceback" not in err
    assert not (tmp_path / "run" / "summary.json").exists()


def test_run_eval_reports_unknown_kinds_in_its_notes(tmp_path, debug_assistant):
    settings, a = debug_assistant
    path = _file(tmp_path, {"id": "a", "kind": "factiod", "question": Q, "gold": []})
    summary = run_eval(path, tmp_path / "run", settings, assistant=a, progress=False, plots=False, retrieval_only=True)
    assert summary["warnings"] and "factiod" in summary["warnings"][0]
    assert any("factiod" in n for n in summary["notes"])


# -- run files cut short ----------------------------------------------------------------------------------
def _cut(path: Path, keep: int) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def test_compare_names_a_results_file_cut_mid_line(tmp_path, capsys):
    ra = write_run(tmp_path / "a", base_records(12))
    rb = write_run(tmp_path / "b", base_records(12))
    results = rb / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    _cut(results, len("".join(lines[:4]).encode()) + 25)  # line 5 cut after 25 bytes
    with pytest.raises(ConfigError) as e:
        compare_runs(ra, rb)
    assert e.value.message.startswith(f"{results}:5: not valid JSON") and "eval run" in e.value.hint
    assert main(["eval", "compare", str(ra), str(rb)]) == 2
    err = capsys.readouterr().err
    assert f"{results}:5" in err and "JSONDecodeError" not in err and "Traceback" not in err


def test_compare_names_a_summary_cut_mid_line(tmp_path, capsys):
    ra = write_run(tmp_path / "a", base_records(12))
    rb = write_run(tmp_path / "b", base_records(12))
    summary = rb / "summary.json"
    summary.write_text(json.dumps({"config": {"answer.model": "x"}, "overall": {}, "by_kind": {}}, indent=2))
    _cut(summary, 30)  # inside line 3
    assert main(["eval", "compare", str(ra), str(rb)]) == 2
    err = capsys.readouterr().err
    assert f"{summary}:3: not valid JSON" in err and "Traceback" not in err


@pytest.mark.parametrize("content, says", [
    ('{"id": "a"}\n[1, 2]\n', ":2: a JSON list, not an object"),
    (b'{"id": "a"}\n{"id": "\xff"}\n', ":2: not UTF-8 text"),
])
def test_results_lines_that_are_not_records_are_named(tmp_path, content, says):
    d = write_run(tmp_path / "a", [])
    path = d / "results.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ConfigError) as e:
        load_run(d)
    assert e.value.message.startswith(str(path)) and says in e.value.message


def test_judge_refuses_a_damaged_run_without_touching_it(tmp_path):
    from eval.judge import judge_run

    d = write_run(tmp_path / "a", base_records(6))
    results = d / "results.jsonl"
    _cut(results, results.stat().st_size - 10)
    before = results.read_bytes()
    with pytest.raises(ConfigError, match=r"results\.jsonl:6"):
        judge_run(d, judge=None)  # type: ignore[arg-type]
    assert results.read_bytes() == before  # nothing rewritten


# -- report text from the same numbers as the JSON ----------------------------------------------------------
def test_compare_md_quotes_the_resamples_and_level_of_compare_json(tmp_path):
    ra = write_run(tmp_path / "a", base_records(12))
    rb = write_run(tmp_path / "b", base_records(12))
    assert main(["eval", "compare", str(ra), str(rb), "--out", str(tmp_path / "cmp"), "--resamples", "200",
                 "--seed", "3"]) == 0
    cmp = json.loads((tmp_path / "cmp" / "compare.json").read_text(encoding="utf-8"))
    md = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    s = cmp["settings"]
    assert s["resamples"] == 200 and s["seed"] == 3
    assert "from 200 paired bootstrap resamples" in md and "10,000" not in md and "seed 3" in md
    assert f"exact for n <= {s['exact_flips_max_n']}" in md
    assert f"({s['needed_power']:.0%} power, {s['needed_alpha']:.0%} level)" in md
    text = render(compare_runs(ra, rb, resamples=300, level=0.9))
    assert "**90% CI** comes from 300 paired" in text and "| 90% CI |" in text and "95%" not in text


def test_report_md_quotes_the_support_threshold_of_the_run(tmp_path):
    summary = {"overall": {}, "by_kind": {}, "counts": {"overall": 0}, "config": {"answer.support_threshold": 0.7},
               "notes": []}
    text = write_report(tmp_path, summary, [], plots=False).read_text(encoding="utf-8")
    assert ">= 70% covered" in text and ">= 50% covered" not in text


def test_cli_judge_names_a_missing_results_file(tmp_path, capsys):
    d = write_run(tmp_path / "a", base_records(4))
    (d / "results.jsonl").unlink()  # was a FileNotFoundError traceback
    assert main(["eval", "judge", str(d), "--judge", "hf:/nonexistent-judge-dir", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "has no results.jsonl" in err and "Traceback" not in err
