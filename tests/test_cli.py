"""The command line: ingest summary and --strict, search JSON and batch, stats, delete, errors with hints."""

from __future__ import annotations

import json

import pytest
from conftest import PAPERS

from assistant.cli import main


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERCHAT_PRESET", "debug")
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(tmp_path / "store"))
    f = tmp_path / "papers.jsonl"
    f.write_text("\n".join(json.dumps({"id": r.paper_id, "title": r.title, "abstract": r.text, "year": r.year,
                                        "authors": list(r.authors)}) for r in PAPERS) + "\n", encoding="utf-8")
    return tmp_path, f


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ingest_search_stats_delete(store, capsys):
    _, f = store
    code, out, _ = run(capsys, "ingest", str(f), "--quiet")
    assert code == 0 and out.startswith("4 added, 0 updated, 0 duplicate")
    code, out, _ = run(capsys, "ingest", str(f), "--quiet")
    assert "0 added, 0 updated, 4 duplicate (4 already stored" in out
    code, out, _ = run(capsys, "search", "Prune&Comp perplexity", "--json", "--k", "2")
    res = json.loads(out)
    assert res["query"] == "Prune&Comp perplexity" and len(res["hits"]) == 2
    hit = res["hits"][0]
    assert hit["paper_id"] == "p-prune" and hit["text"] == PAPERS[1].text
    assert set(hit) >= {"paper_id", "title", "text", "score", "scores", "sentences"}
    assert hit["sentences"] and all(s in hit["text"] for s in hit["sentences"])
    code, out, _ = run(capsys, "stats", "--json")
    assert json.loads(out)["papers"] == 4
    code, out, err = run(capsys, "delete", "p-prune", "missing-id")
    assert code == 1 and "deleted 1" in out and "Not found: missing-id" in err
    code, out, _ = run(capsys, "stats", "--json")
    assert json.loads(out)["papers"] == 3


def test_search_batch_keeps_question_fields(store, capsys):
    tmp, f = store
    run(capsys, "ingest", str(f), "--quiet")
    q = tmp / "q.jsonl"
    q.write_text('{"id": "a", "question": "Prune&Comp perplexity", "kind": "factoid"}\n\n'
                 '{"id": "b", "question": "underwater detection"}\n', encoding="utf-8")
    code, _, _ = run(capsys, "search", "--batch", str(q), "--out", str(tmp / "r.jsonl"), "--k", "3")
    rows = [json.loads(line) for line in (tmp / "r.jsonl").read_text().splitlines()]
    assert code == 0 and [r["id"] for r in rows] == ["a", "b"]
    assert rows[0]["kind"] == "factoid" and rows[0]["query"] == "Prune&Comp perplexity"
    assert rows[0]["hits"][0]["paper_id"] == "p-prune" and rows[1]["hits"][0]["paper_id"] == "p-underwater"


def test_strict_ingest_refuses_and_stores_nothing(store, capsys):
    tmp, f = store
    bad = tmp / "bad.jsonl"
    bad.write_text(f.read_text() + '{"id": "x", "title": "no abstract"}\n', encoding="utf-8")
    code, out, err = run(capsys, "ingest", str(bad), "--strict", "--quiet")
    assert code == 1 and "would be skipped" in err and "bad.jsonl:5" in err and "hint:" in err
    code, out, _ = run(capsys, "stats", "--json")
    assert json.loads(out)["papers"] == 0
    code, out, err = run(capsys, "ingest", str(bad), "--quiet")  # without --strict the good ones go in
    assert code == 0 and "4 added" in out and "1 skipped" in out and "bad.jsonl:5" in err


@pytest.mark.parametrize("argv, expect", [
    (["search", "anything"], "is empty"),
    (["ingest", "/nonexistent/file.jsonl"], "No such file"),
    (["--set", "retrieval.kk=3", "stats"], "Unknown setting"),
    (["--set", "retrieval.k=0", "stats"], "Invalid setting retrieval.k"),
    (["--preset", "nope", "stats"], "Unknown preset"),
    (["search", "--batch", "/nonexistent.jsonl", "--out", "x.jsonl"], "No such questions file"),
])
def test_errors_have_a_hint_and_no_traceback(store, capsys, argv, expect):
    code, _, err = run(capsys, *argv)
    assert code != 0 and expect in err and "hint:" in err and "Traceback" not in err


def test_ask_json_record_shape(store, capsys, monkeypatch):
    _, f = store
    run(capsys, "ingest", str(f), "--quiet")
    code, out, _ = run(capsys, "ask", "How much does Prune&Comp reduce perplexity?", "--json", "--model", "extractive")
    rec = json.loads(out)
    assert code == 0
    assert set(rec) >= {"id", "question", "standalone_query", "answer", "abstained", "citations", "retrieved",
                        "unsupported", "model", "timings"}
    assert set(rec["citations"][0]) >= {"marker", "paper_id", "title", "text", "sentences"}
    assert set(rec["timings"]) >= {"retrieval_s", "first_token_s", "total_s"}
    assert rec["citations"][0]["paper_id"] == "p-prune" and rec["model"] == "extractive"


def test_ask_explain_names_the_deciding_rule_for_an_answer_and_an_abstention(store, capsys):
    _, f = store
    run(capsys, "ingest", str(f), "--quiet")
    code, out, _ = run(capsys, "ask", "How much does Prune&Comp reduce perplexity?", "--explain",
                       "--model", "extractive")
    assert code == 0 and "why: answered by rule evidence.weak" in out
    assert "name.linked" in out and "Prune&Comp -> Prune&Comp" in out  # the linked name is in the trace
    code, out, _ = run(capsys, "ask", "What tokenizer does GPT-4 use?", "--explain", "--model", "extractive")
    assert code == 0 and "why: abstained by rule near_miss.missing" in out and "'GPT-4'" in out
    code, out, _ = run(capsys, "ask", "What is the mass of the top quark in quantum chromodynamics?", "--json",
                       "--model", "extractive")
    rec = json.loads(out)
    assert rec["abstained"] and rec["trace"][-1]["verdict"] == "abstain"
    assert rec["trace"][-1]["rule"] == "evidence.weak" and "< threshold" in rec["trace"][-1]["detail"]
