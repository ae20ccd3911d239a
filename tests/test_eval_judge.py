"""eval.judge against the loopback OpenAI stub: scripted judge replies, malformed ones counted, never a
silent zero or NaN; the prompts are files with declared variables; `eval judge` and `eval run --judge`."""

from __future__ import annotations

import json
import math

import pytest
from conftest import PAPERS, make_settings
from openai_stub import Behavior, OpenAIStub

from assistant.answer.prompts import load_prompt
from assistant.cli import main
from assistant.errors import ConfigError, ModelError
from eval.judge import METRICS, JudgeParseError, judge_records, make_judge, parse_verdict

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def stub():
    with OpenAIStub(default=Behavior.ok('{"score": 5, "reason": "fine"}')) as s:
        yield s


def judge_settings(tmp_path, stub):
    return make_settings(tmp_path, **{"answer.openai_base_url": stub.base_url, "answer.timeout_s": 2,
                                      "answer.retries": 0, "answer.wall_clock_s": 10})


def record(i: int, **kw) -> dict:
    rec = {"id": f"q{i}", "kind": "factoid", "question": f"What does paper {i} report?", "reference_answer": "24.72%",
           "answer": "Prune&Comp reduces perplexity by 24.72% [1].", "abstained": False, "retrieval_only": False,
           "citations": [{"marker": 1, "paper_id": "p-prune", "title": "Prune&Comp",
                          "text": PAPERS[1].text, "sentences": []}], "metrics": {}}
    rec.update(kw)
    return rec


@pytest.mark.parametrize("reply, expected", [
    ('{"score": 4, "reason": "ok"}', (4, "ok")),
    ('  ```json\n{"score": 1}\n```  ', (1, "")),
    ('{"score": 3.0, "reason": 7}', (3, "7")),
])
def test_parse_verdict_accepts_one_json_object(reply, expected):
    assert parse_verdict(reply) == expected


@pytest.mark.parametrize("reply, why", [
    ("Score: 4", "not JSON"), ("", "empty"), ('{"score": 6}', "outside 1-5"), ('{"score": "4"}', "not an integer"),
    ('{"score": true}', "not an integer"), ('[{"score": 4}]', "not an object"), ('{"reason": "no score"}', "None"),
    ('I think {"score": 4}', "not JSON"), ('{"score": 4} and more', "not JSON"), ('{"score": NaN}', "not an integer"),
])
def test_parse_verdict_is_strict(reply, why):
    with pytest.raises(JudgeParseError, match=why):
        parse_verdict(reply)


def test_judge_prompts_are_files_with_declared_variables():
    assert load_prompt("judge_correctness").variables == {"question", "reference", "answer"}
    assert load_prompt("judge_faithfulness").variables == {"sources", "answer"}
    assert load_prompt("judge_relevance").variables == {"question", "answer"}
    body = load_prompt("judge_relevance").render(question="Q?", answer="A.")
    assert '{"score": 3' in body and "Q?" in body


def test_scripted_replies_malformed_ones_are_counted_not_scored(tmp_path, stub):
    judge = make_judge("openai", judge_settings(tmp_path, stub))
    recs = [record(0), record(1), record(2, abstained=True, answer="The indexed abstracts do not answer this."),
            record(3, reference_answer=None, citations=[])]
    stub.script(
        Behavior.ok('{"score": 5, "reason": "matches"}'),      # q0 correctness
        Behavior.ok('```json\n{"score": 4}\n```'),              # q0 faithfulness
        Behavior.ok("The answer is relevant, 5/5."),            # q0 relevance: malformed
        Behavior.ok('{"score": 1, "reason": "wrong"}'),        # q1 correctness
        Behavior.ok('{"score": 9}'),                            # q1 faithfulness: out of range
        Behavior.ok('{"score": 3}'),                            # q1 relevance
        Behavior.ok('{"score": 2}'),                            # q3 relevance (q2 abstained: not judged)
    )
    info = judge_records(recs, judge)
    assert stub.requests == 7
    c = info["counts"]
    assert c["judge_correctness"] == {"scored": 2, "parse_failures": 0, "errors": 0, "not_applicable": 2}
    assert c["judge_faithfulness"] == {"scored": 1, "parse_failures": 1, "errors": 0, "not_applicable": 2}
    assert c["judge_relevance"] == {"scored": 2, "parse_failures": 1, "errors": 0, "not_applicable": 1}
    m0, m1 = recs[0]["metrics"], recs[1]["metrics"]
    assert m0["judge_correctness"] == 1.0 and m0["judge_faithfulness"] == 0.75
    assert m0["judge_relevance"] is None  # unparseable: unset, not 0, not NaN
    assert recs[0]["judge"]["judge_relevance"]["status"] == "parse_failure"
    assert recs[0]["judge"]["judge_relevance"]["raw"] == "The answer is relevant, 5/5."
    assert m1["judge_correctness"] == 0.0 and m1["judge_faithfulness"] is None and m1["judge_relevance"] == 0.5
    assert all(recs[2]["metrics"][m] is None for m in METRICS) and "judge" not in recs[2]
    for r in recs:
        assert not any(isinstance(v, float) and math.isnan(v) for v in r["metrics"].values())
    # what the judge saw: the cited abstract for faithfulness, the reference for correctness
    bodies = [b["messages"][-1]["content"] for b in stub.bodies]
    assert "24.72%" in bodies[0] and PAPERS[1].text[:60] in bodies[1]


def test_a_failing_first_request_stops_later_ones_are_counted(tmp_path, stub):
    judge = make_judge("openai", judge_settings(tmp_path, stub))
    stub.script(Behavior.http_error(500))
    with pytest.raises(ModelError):
        judge_records([record(0)], judge)
    stub.script(Behavior.ok('{"score": 5}'), Behavior.http_error(500), Behavior.ok('{"score": 4}'))
    info = judge_records([record(1)], judge)
    assert info["counts"]["judge_faithfulness"]["errors"] == 1
    assert info["counts"]["judge_correctness"]["scored"] == 1


def test_unknown_judge_is_refused(tmp_path, stub):
    with pytest.raises(ConfigError, match="Unknown judge"):
        make_judge("gpt-judge", judge_settings(tmp_path, stub))


def _run(tmp_path, extra=()):
    from assistant.index.indexer import Index

    Index(make_settings(tmp_path)).add(PAPERS)
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"id": "f1", "kind": "factoid", "question": "How much does Prune&Comp reduce perplexity?",
                             "gold": ["Prune&Comp reduces perplexity by 24.72% on LLaMA-3-8B"],
                             "answer": "By 24.72% on LLaMA-3-8B."}) + "\n")
    return q


def test_cli_run_with_judge_and_judge_an_existing_run(tmp_path, stub, capsys):
    q = _run(tmp_path)
    base = ["--data-dir", str(tmp_path / "store"), "--preset", "debug",
            "--set", f"answer.openai_base_url={stub.base_url}", "--set", "answer.retries=0"]
    stub.script(Behavior.ok('{"score": 5}'), Behavior.ok("not json"), Behavior.ok('{"score": 3}'))
    assert main([*base, "eval", "run", "--questions", str(q), "--out", str(tmp_path / "run"), "--quiet", "--no-plots",
                 "--judge", "openai"]) == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["judge"]["counts"]["judge_faithfulness"]["parse_failures"] == 1
    assert summary["overall"]["judge_correctness"] == 1.0 and summary["overall"]["judge_faithfulness"] is None
    report = (tmp_path / "run" / "report.md").read_text()
    assert "1 unparseable replies" in report and "| judge_correctness |" in report

    # a run made without a judge, judged afterwards
    assert main([*base, "eval", "run", "--questions", str(q), "--out", str(tmp_path / "plain"), "--quiet",
                 "--no-plots"]) == 0
    assert "Not measured: judge" in (tmp_path / "plain" / "report.md").read_text()
    capsys.readouterr()
    stub.script(Behavior.ok('{"score": 4}'), Behavior.ok('{"score": 4}'), Behavior.ok('{"score": 4}'))
    assert main([*base, "eval", "judge", str(tmp_path / "plain"), "--judge", "openai", "--quiet"]) == 0
    assert "judge_relevance: 1 scored" in capsys.readouterr().out
    summary = json.loads((tmp_path / "plain" / "summary.json").read_text())
    assert summary["overall"]["judge_relevance"] == 0.75
    assert not any(n.startswith("Not measured: judge") for n in summary["notes"])
    row = json.loads((tmp_path / "plain" / "results.jsonl").read_text().splitlines()[0])
    assert row["judge"]["judge_relevance"]["raw_score"] == 4

    # compare: the judged metric gets its paired row
    assert main(["eval", "compare", str(tmp_path / "run"), str(tmp_path / "plain"), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "| judge_relevance |" in out and "unparseable" in out
    assert main([*base, "eval", "run", "--questions", str(q), "--retrieval-only", "--judge", "openai",
                 "--out", str(tmp_path / "ro")]) == 2


def test_hf_judge_goes_through_the_model_factory(tmp_path, stub, capsys):
    """`--judge hf:DIR` is the project's hf chat model: a directory without a model is refused up front,
    with the factory's hint, before any question is judged."""
    with pytest.raises(ModelError, match="Model directory not found") as e:
        make_judge(f"hf:{tmp_path / 'no-model'}", judge_settings(tmp_path, stub))
    assert "hf:/path/to/dir" in e.value.hint
    q = _run(tmp_path)
    assert main(["--data-dir", str(tmp_path / "store"), "--preset", "debug", "eval", "run", "--questions", str(q),
                 "--out", str(tmp_path / "run"), "--quiet", "--judge", f"hf:{tmp_path / 'no-model'}"]) != 0
    assert "Model directory not found" in capsys.readouterr().err
    assert not (tmp_path / "run" / "summary.json").exists()
