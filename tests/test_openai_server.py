"""The chat model 'openai' against a REAL OpenAI-compatible server: `transformers serve` (the pinned
transformers, its `serving` extra) serving paperchat's copy of the bundled SmolLM2-135M on 127.0.0.1.

Through every front end: `paperchat ask` and `paperchat chat` (streamed), the web UI (the settings'
server URL and model name, "Check server", an answer), and `eval run --judge openai`. Plus the errors a
user meets: a server that is down, a wrong model name, a timeout, and a 401 (`transformers serve` has
no keys, so a bearer-key gate, `servers.key_proxy`, stands in front of it for that test). Answers are
kept to a few tokens: the machine is shared and the model runs on its CPU.
"""

from __future__ import annotations

import io
import json
import os

import pytest
from conftest import PAPERS
from servers import free_port, key_proxy, transformers_serve
from ui_helpers import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, make_assistant, running

from assistant.answer.models import generate
from assistant.answer.models.openai_compat import OpenAIChatModel
from assistant.cli import main
from assistant.errors import ModelError, ModelTimeoutError

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")]

MSGS = [{"role": "user", "content": "Say hello."}]
QUESTION = "How does FedMerge personalise federated learning?"


@pytest.fixture(scope="module")
def served():
    with transformers_serve() as (url, model, log):
        yield {"url": url, "model": model, "log": log}


def completions(log) -> int:
    """POST /v1/chat/completions requests the server has answered so far (from its access log)."""
    return log.read_text(errors="replace").count("POST /v1/chat/completions")


def cli_base(tmp_path, served, tokens: int = 8) -> list[str]:
    from ui_helpers import make_settings

    from assistant.index.indexer import Index

    Index(make_settings(tmp_path)).add(PAPERS)
    return ["--data-dir", str(tmp_path / "store"), "--preset", "debug",
            "--set", "answer.model=openai", "--set", f"answer.openai_base_url={served['url']}",
            "--set", f"answer.openai_model={served['model']}", "--set", f"answer.max_new_tokens={tokens}",
            "--set", "answer.retries=0"]


def test_errors_for_a_down_server_a_wrong_model_and_a_timeout(served):
    down = OpenAIChatModel(f"http://127.0.0.1:{free_port()}/v1", served["model"], retries=0, timeout_s=5)
    with pytest.raises(ModelError, match="cannot reach") as e:
        generate(down, MSGS, max_new_tokens=2)
    assert "server running at" in e.value.hint

    wrong = OpenAIChatModel(served["url"], "smollm2-typo", retries=0, timeout_s=30)
    with pytest.raises(ModelError, match="does not serve a model named 'smollm2-typo'") as e:
        generate(wrong, MSGS, max_new_tokens=2)
    assert served["model"] in e.value.hint  # the name to use instead

    slow = OpenAIChatModel(served["url"], served["model"], retries=0, timeout_s=0.05)
    with pytest.raises(ModelTimeoutError, match="within"):
        generate(slow, MSGS, max_new_tokens=40)

    ok = OpenAIChatModel(served["url"], served["model"], retries=0, timeout_s=120)
    assert ok.served_models() == [served["model"]]
    pieces = list(ok.stream(MSGS, max_new_tokens=4))
    assert len(pieces) >= 2 and "".join(pieces).strip()  # streamed piece by piece


def test_the_key_comes_from_the_environment_and_goes_to_the_configured_server_only(tmp_path, served, monkeypatch):
    with key_proxy(served["url"], "sk-right") as gated:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
        a, _ = make_assistant(tmp_path, list(PAPERS), **{"answer.openai_base_url": gated, "answer.retries": 0,
                                                          "answer.timeout_s": 120})
        options = {"openai_base_url": gated, "openai_model": served["model"]}
        with pytest.raises(ModelError, match="refused the request") as e:
            generate(a.model("openai", options), MSGS, max_new_tokens=2)
        assert "OPENAI_API_KEY" in e.value.hint and "sk-wrong" not in str(e.value) + e.value.hint
        monkeypatch.setenv("OPENAI_API_KEY", "sk-right")
        assert generate(a.model("openai", options), MSGS, max_new_tokens=3).strip()  # the key went through
        # the same server under another URL (as typed in the web chat): the operator's key is not sent
        typed = gated.replace("127.0.0.1", "localhost")
        with pytest.raises(ModelError, match="401") as e:
            generate(a.model("openai", {**options, "openai_base_url": typed}), MSGS, max_new_tokens=2)
        assert "needs an API key" in e.value.hint


def test_cli_ask_and_chat_stream_from_the_server(tmp_path, served, capsys, monkeypatch):
    base = cli_base(tmp_path, served)
    before = completions(served["log"])
    assert main([*base, "ask", QUESTION, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["model"] == f"openai:{served['model']}"
    assert completions(served["log"]) == before + 1

    monkeypatch.setattr("sys.stdin", io.StringIO(QUESTION + "\n/quit\n"))
    assert main([*base, "chat"]) == 0
    out = capsys.readouterr().out
    assert "draft> " in out and "verifying" in out and "paperchat> " in out
    assert completions(served["log"]) == before + 2


def test_eval_run_with_the_server_as_judge(tmp_path, served, monkeypatch):
    import eval.judge

    monkeypatch.setattr(eval.judge, "MAX_NEW_TOKENS", 24)  # a verdict is ~15 tokens; the CPU is shared
    base = cli_base(tmp_path, served)
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"id": "f1", "kind": "factoid", "question": QUESTION,
                             "gold": ["FedMerge merges several global models"], "answer": "By merging global models."})
                 + "\n")
    before = completions(served["log"])
    assert main([*base, "--set", "answer.model=extractive", "eval", "run", "--questions", str(q),
                 "--out", str(tmp_path / "run"), "--quiet", "--no-plots", "--judge", "openai"]) == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    counts = summary["judge"]["counts"]
    judged = sum(c["scored"] + c["parse_failures"] for c in counts.values())
    assert judged == 3 and sum(c["errors"] for c in counts.values()) == 0  # every verdict came back
    assert completions(served["log"]) == before + 3
    assert served["model"] in summary["judge"]["judge"]


def test_ui_setting_round_trip(tmp_path, served):
    """Settings -> Chat model 'openai', the server's URL and model name -> Check server -> an answer
    streamed from the server, verified, with its evidence."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (make test does this)")
    from playwright.sync_api import sync_playwright

    from ui.app import build_app

    a, s = make_assistant(tmp_path, list(PAPERS), **{"answer.max_new_tokens": 8, "answer.retries": 0})
    before = completions(served["log"])
    with running(build_app(a, s, env={}), s) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url, wait_until="domcontentloaded")
            page.locator("#pc-settings").get_by_text("Settings").first.click()
            assert not page.locator("#pc-server-url").is_visible()
            page.locator("#pc-model input").click()
            page.get_by_role("option", name="openai").click()
            page.locator("#pc-server-url input, #pc-server-url textarea").first.fill(served["url"])
            page.locator("#pc-server-model input, #pc-server-model textarea").first.fill(served["model"])
            assert "OPENAI_API_KEY" in page.locator("#pc-server-key").inner_text()  # the key is never a field
            page.locator("#pc-server-check").click()
            page.locator("#pc-server-status", has_text="serves").wait_for(timeout=60_000)
            page.locator("#pc-question textarea").fill(QUESTION)
            page.locator("#pc-send").click()
            page.locator("#pc-chat", has_text="Draft").wait_for(timeout=300_000)  # streamed, then checked
            page.screenshot(path=str(ARTIFACTS / "ui_openai_draft.png"), full_page=False)
            page.locator("#pc-stop").wait_for(state="hidden", timeout=300_000)  # the answer is finished
            text = page.locator("#pc-chat .message").last.inner_text()
            assert not text.strip().startswith("⚠") and "Draft," not in text  # an answer, not an error
            assert "Sources" in text or "replaced after checking" in text, text
            assert completions(served["log"]) == before + 1
            page.screenshot(path=str(ARTIFACTS / "ui_openai_server.png"), full_page=False)
        finally:
            browser.close()
