"""The answer chain over an OpenAI-compatible server (a real HTTP stub on loopback): streamed
answers are verified like any other; a cut stream gives a marked-incomplete answer; a slow server
or a 5xx gives a clear error (CLI: message + hint, non-zero exit), never a hang."""

from __future__ import annotations

import pytest
from openai_stub import Behavior, OpenAIStub

from assistant.answer.assistant import Assistant
from assistant.cli import main
from assistant.errors import ModelError
from assistant.index.indexer import Index

pytestmark = pytest.mark.timeout(120)
Q = "How much does Prune&Comp reduce perplexity?"
GOOD = "Prune&Comp reduces perplexity by 24.72% on LLaMA-3-8B [1]."


@pytest.fixture
def stub():
    with OpenAIStub() as s:
        yield s


@pytest.fixture
def assistant(settings, papers, stub):
    s = settings.with_overrides({"answer.model": "openai", "answer.openai_base_url": stub.base_url,
                                 "answer.timeout_s": 2, "answer.retries": 1, "answer.wall_clock_s": 20})
    index = Index(s)
    index.add(papers)
    return Assistant(s, index=index)


def test_streamed_answer_is_verified(assistant, stub):
    stub.script(Behavior.ok(GOOD))
    ans = assistant.ask(Q)
    assert ans.answer == GOOD and ans.citations[0].paper_id == "p-prune" and not ans.incomplete
    body = stub.bodies[-1]
    assert body["stream"] is True and body["messages"][0]["role"] == "system"
    assert '<source id="1"' in body["messages"][1]["content"]


def test_cut_stream_gives_incomplete_answer(assistant, stub):
    stub.script(Behavior.cut(GOOD + " More text that never", after=6))
    ans = assistant.ask(Q)
    assert ans.incomplete and any("incomplete" in n for n in ans.notes)
    assert all(c.paper_id in {"p-prune"} for c in ans.citations)


def test_server_errors_are_clear(assistant, stub):
    stub.script(Behavior.http_error(503), Behavior.http_error(503))
    with pytest.raises(ModelError) as e:
        assistant.ask(Q)
    assert e.value.hint
    stub.script(Behavior.slow(10, GOOD))
    with pytest.raises(ModelError):
        assistant.ask(Q)


def test_cli_reports_server_failure(settings, papers, stub, monkeypatch, capsys):
    Index(settings).add(papers)
    stub.script(Behavior.http_error(500), Behavior.http_error(500))
    code = main(["--data-dir", str(settings.store.data_dir), "--preset", "debug", "--set", "answer.model=openai",
                 "--set", f"answer.openai_base_url={stub.base_url}", "--set", "answer.retries=1", "ask", Q])
    err = capsys.readouterr().err
    assert code != 0 and "error:" in err and "hint:" in err and "Traceback" not in err
