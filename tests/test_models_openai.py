"""OpenAI-compatible chat model against a real loopback server (tests/openai_stub.py)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from assistant.answer.models import IncompleteGeneration, generate, get_chat_model
from assistant.answer.models.openai_compat import OpenAIChatModel
from assistant.errors import ModelError, ModelTimeoutError
from assistant.settings import AnswerSettings

try:
    from tests.openai_stub import Behavior, OpenAIStub
except ImportError:  # tests/ is on sys.path (rootdir-less invocation)
    from openai_stub import Behavior, OpenAIStub  # type: ignore[no-redef]

MSGS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello."}]

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as s:
        yield s


def make(stub: OpenAIStub, **kw: object) -> OpenAIChatModel:
    opts: dict = {"timeout_s": 5.0, "retries": 2, "wall_clock_s": 20.0, "backoff_s": 0.01, **kw}
    return OpenAIChatModel(stub.base_url, "stub-model", **opts)


def test_streaming_reply_is_assembled(stub: OpenAIStub) -> None:
    stub.script(Behavior.ok("Hello there, general Kenobi."))
    pieces = list(make(stub).stream(MSGS, max_new_tokens=50, temperature=0.0))
    assert len(pieces) > 1
    assert "".join(pieces) == "Hello there, general Kenobi."
    body = stub.bodies[0]
    assert body["stream"] is True and body["model"] == "stub-model" and body["max_tokens"] == 50
    assert body["messages"] == MSGS


def test_settings_factory_and_api_key(stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_KEY", "sk-test")
    s = AnswerSettings(model="openai", openai_base_url=stub.base_url, openai_model="m1", openai_api_key_env="STUB_KEY")
    model = get_chat_model(s)
    assert model.name == "openai:m1"
    assert generate(model, MSGS, max_new_tokens=10) == "Hello from the stub server."
    assert stub.headers[0].get("Authorization") == "Bearer sk-test"
    assert model.count_tokens("abcdefgh") == 2


def test_slow_server_times_out(stub: OpenAIStub) -> None:
    stub.script(Behavior.slow(10))
    t = time.monotonic()
    with pytest.raises(ModelTimeoutError) as ei:
        generate(make(stub, timeout_s=1.0), MSGS, max_new_tokens=10)
    assert time.monotonic() - t < 4
    assert stub.requests == 1  # timeouts are not retried
    assert ei.value.hint


def test_5xx_then_ok_is_retried(stub: OpenAIStub) -> None:
    stub.script(Behavior.http_error(503), Behavior.http_error(500), Behavior.ok("Recovered."))
    assert generate(make(stub), MSGS, max_new_tokens=10) == "Recovered."
    assert stub.requests == 3


def test_5xx_always_gives_up_after_retries(stub: OpenAIStub) -> None:
    stub.default = Behavior.http_error(502, "bad gateway upstream")
    with pytest.raises(ModelError) as ei:
        generate(make(stub, retries=2), MSGS, max_new_tokens=10)
    assert stub.requests == 3
    assert "bad gateway upstream" in str(ei.value)
    assert "server running at" in ei.value.hint


def test_429_is_retried_honouring_retry_after(stub: OpenAIStub) -> None:
    stub.script(Behavior.http_error(429, "slow down", retry_after=0.2), Behavior.ok("Fine."))
    t = time.monotonic()
    assert generate(make(stub), MSGS, max_new_tokens=10) == "Fine."
    assert stub.requests == 2 and time.monotonic() - t >= 0.2


def test_other_4xx_is_not_retried_and_carries_server_message(stub: OpenAIStub) -> None:
    stub.script(Behavior.http_error(404, "model 'stub-model' not found"))
    with pytest.raises(ModelError) as ei:
        generate(make(stub), MSGS, max_new_tokens=10)
    assert stub.requests == 1
    assert "not found" in str(ei.value) and "404" in str(ei.value)
    assert not isinstance(ei.value, IncompleteGeneration)


def test_401_says_where_the_key_comes_from(stub: OpenAIStub) -> None:
    stub.script(Behavior.http_error(401, "invalid api key"))
    with pytest.raises(ModelError, match="refused the request") as ei:
        generate(make(stub, api_key="sk-wrong", key_env="MY_KEY"), MSGS, max_new_tokens=10)
    assert stub.requests == 1 and "MY_KEY" in ei.value.hint and "never typed" in ei.value.hint
    stub.script(Behavior.http_error(401, "missing key"))
    with pytest.raises(ModelError, match="401") as ei:
        generate(make(stub, key_env="MY_KEY"), MSGS, max_new_tokens=10)
    assert "needs an API key" in ei.value.hint


def test_stream_ending_with_finish_reason_but_no_done_is_complete(stub: OpenAIStub) -> None:
    """`transformers serve` ends a stream after the chunk with a finish_reason, without `data: [DONE]`."""
    from assistant.answer.models.openai_compat import _finished

    assert _finished('{"choices": [{"delta": {}, "index": 0, "finish_reason": "length"}]}')
    assert not _finished('{"choices": [{"delta": {"content": "x"}, "finish_reason": null}]}')


def test_cut_stream_gives_incomplete_generation_with_partial(stub: OpenAIStub) -> None:
    stub.script(Behavior.cut("One two three four five.", after=2))
    with pytest.raises(IncompleteGeneration) as ei:
        generate(make(stub), MSGS, max_new_tokens=10)
    assert ei.value.partial == "One two "
    assert stub.requests == 1  # never retried silently


def test_malformed_json_is_model_error(stub: OpenAIStub) -> None:
    stub.script(Behavior.malformed())
    with pytest.raises(ModelError, match="malformed JSON"):
        generate(make(stub), MSGS, max_new_tokens=10)
    assert stub.requests == 1


def test_empty_completion_is_model_error(stub: OpenAIStub) -> None:
    stub.script(Behavior.empty())
    with pytest.raises(ModelError, match="empty completion"):
        generate(make(stub), MSGS, max_new_tokens=10)


def test_stop_event_closes_the_stream(stub: OpenAIStub) -> None:
    stub.script(Behavior.ok(" ".join(f"w{i}" for i in range(200)), chunk_delay_s=0.02))
    stop = threading.Event()
    got = []
    for piece in make(stub).stream(MSGS, max_new_tokens=500, stop=stop):
        got.append(piece)
        stop.set()
    assert len(got) == 1
    assert stub.disconnected.wait(5), "server kept streaming to a closed connection"


def test_closing_the_generator_closes_the_stream(stub: OpenAIStub) -> None:
    stub.script(Behavior.ok(" ".join(f"w{i}" for i in range(200)), chunk_delay_s=0.02))
    gen = make(stub).stream(MSGS, max_new_tokens=500)
    assert next(gen)
    gen.close()
    assert stub.disconnected.wait(5)


def test_wall_clock_limit_mid_stream(stub: OpenAIStub) -> None:
    stub.script(Behavior.ok(" ".join(f"w{i}" for i in range(100)), chunk_delay_s=0.05))
    with pytest.raises(IncompleteGeneration) as ei:
        generate(make(stub, wall_clock_s=0.5), MSGS, max_new_tokens=500)
    assert ei.value.partial.startswith("w0 ")


def test_server_ignoring_stream_true_is_accepted(stub: OpenAIStub) -> None:
    stub.script(Behavior.json_reply("Whole answer."))
    assert list(make(stub).stream(MSGS, max_new_tokens=10)) == ["Whole answer."]


def test_connection_refused_is_retried_then_model_error() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = OpenAIChatModel(f"http://127.0.0.1:{port}/v1", "m", timeout_s=2, retries=1, backoff_s=0.01)
    with pytest.raises(ModelError) as ei:
        generate(model, MSGS, max_new_tokens=5)
    assert "2 attempts" in str(ei.value) and "ollama serve" in ei.value.hint
