"""Chat model over a local Hugging Face model directory (config.json + weights, or a GGUF file).

Scope: load (never from a hub: `go_offline()` + `local_files_only=True`), apply the tokenizer's chat
template, and stream greedy/sampled text from `model.generate` running in a background thread.

Compromises, stated:
- Weights and tokenizer are loaded once per process through `cache.load_once` (the one module-level
  cache) and shared by every `HFChatModel` on the same path; loading is lazy (first use).
- One generation at a time per loaded model (`gen_lock`); tokenizer calls from other threads
  (`count_tokens`, the streamer's decode) take the short `tok_lock` instead, so counting tokens never
  waits for a whole answer.
- Stop is checked by a `StoppingCriteria` after every token: a set `stop` event, an abandoned consumer
  (generator closed) or the wall-clock deadline ends token production, not just the display. The prefill
  of a long prompt is one uninterruptible forward pass.
- Deadline reached: `IncompleteGeneration(partial)` if text came, else `ModelTimeoutError`.
- CPU, float32 (GGUF files are de-quantized by transformers). A tokenizer without a chat template gets
  a plain "role: content" transcript. `torch.set_num_threads(TORCH_THREADS)` is process-wide.
- Progress bars are silenced during the load: transformers' own via `disable_progress_bar()`, and the
  raw tqdm bar of its GGUF de-quantizer by swapping that module's `tqdm` name for the load's duration.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import queue
import shutil
import threading
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ModelError, ModelTimeoutError
from ...runtime import go_offline
from .base import IncompleteGeneration, Message
from .cache import load_once
from .converted import add_architectures, converted_dir, save_converted, used

log = logging.getLogger(__name__)
TORCH_THREADS = 2  # capped by the CPU count; measurements in local.py's docstring
_POLL_S = 0.1


@dataclass
class Backend:
    """A loaded tokenizer + model pair, shared by all chat models on the same files."""

    tokenizer: Any
    model: Any
    max_positions: int
    gen_lock: threading.Lock = field(default_factory=threading.Lock)
    tok_lock: threading.RLock = field(default_factory=threading.RLock)


@dataclass
class _RunState:
    timed_out: bool = False
    error: BaseException | None = None


@contextlib.contextmanager
def _quiet_gguf_bar() -> Iterator[None]:
    """transformers' GGUF de-quantization uses a raw tqdm bar that ignores `disable_progress_bar()`;
    silence it for the duration of a load (loads are serialised by `cache.load_once`'s lock)."""
    try:
        import transformers.modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:  # pragma: no cover - gguf support missing: the load reports it
        yield
        return
    original = getattr(gguf_utils, "tqdm", None)
    if original is None:
        yield
        return
    gguf_utils.tqdm = functools.partial(original, disable=True)
    try:
        yield
    finally:
        gguf_utils.tqdm = original


def load_backend(path: Path, gguf_file: str | None = None) -> Backend:
    """Load tokenizer and model from local files only; every failure becomes a ModelError.

    A GGUF file is parsed and de-quantized by transformers (~50 s for the bundled 135M model on two
    cores: the tokenizer is rebuilt from GGUF metadata, the tensors de-quantized one by one). The result
    is saved once as a plain safetensors directory in the model cache, and later loads read that (~1 s):
    the same float32 weights, so the same tokens. A damaged copy is deleted and the GGUF read again.
    """
    if gguf_file:
        cached = converted_dir(path, gguf_file)
        if cached is not None and (cached / "converted.json").is_file():
            try:
                add_architectures(cached)
                backend = _load(cached, None)
                used(cached)  # read now (not superseded); what it supersedes and nobody read for 30 days goes
                return backend
            except ModelError as e:
                log.warning("Discarding the damaged converted model %s (%s); reading the GGUF file.", cached, e.message)
                shutil.rmtree(cached, ignore_errors=True)
        t = time.monotonic()
        backend = _load(path, gguf_file)
        if cached is not None:
            save_converted(backend, cached, path / gguf_file, time.monotonic() - t)
        return backend
    return _load(path, None)


def converted_copy(path: Path, gguf_file: str) -> Path:
    """The de-quantized copy of a GGUF model as a plain Hugging Face directory (config.json with
    `architectures`, safetensors, tokenizer), converting it first if needed. For servers that load a
    directory (`transformers serve DIR`). Raises ModelError when the model cache is off or unwritable."""
    out = converted_dir(path, gguf_file)
    if out is None:
        raise ModelError("The model cache is off (PAPERCHAT_MODEL_CACHE=off), so there is no converted copy.",
                         hint="Unset PAPERCHAT_MODEL_CACHE or point it at a writable directory.")
    if not (out / "converted.json").is_file():
        load_once(f"{path}::{gguf_file}", lambda: load_backend(path, gguf_file))
    if not (out / "converted.json").is_file():
        raise ModelError(f"Could not write the converted model to {out}.",
                         hint="Check the free space and permissions of the model cache (PAPERCHAT_MODEL_CACHE).")
    add_architectures(out)
    return out


def _load(path: Path, gguf_file: str | None) -> Backend:
    go_offline()
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ModelError(f"Cannot import torch/transformers: {e}", hint="pip install torch transformers") from e
    threads = min(TORCH_THREADS, os.cpu_count() or 1)
    if threads > 0 and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)  # process-wide; = the core count on the target box
    kw: dict[str, Any] = {"local_files_only": True}
    if gguf_file:
        kw["gguf_file"] = gguf_file
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        with _quiet_gguf_bar():
            tokenizer = AutoTokenizer.from_pretrained(str(path), **kw)
            model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32, **kw)
    except Exception as e:
        what = f"{path}/{gguf_file}" if gguf_file else str(path)
        raise ModelError(
            f"Cannot load the chat model from {what}: {type(e).__name__}: {e}",
            hint="The directory needs config.json, tokenizer files and weights (or a GGUF file); "
            "nothing is downloaded.",
        ) from e
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    model.eval()
    if tokenizer.pad_token_id is None and tokenizer.eos_token_id is not None:
        model.generation_config.pad_token_id = tokenizer.eos_token_id
    max_pos = int(getattr(model.config, "max_position_embeddings", 0) or 2048)
    return Backend(tokenizer=tokenizer, model=model, max_positions=max_pos)


class HFChatModel:
    """ChatModel over a local transformers causal LM. Construction is cheap; loading happens on first use."""


    def __init__(
        self,
        path: str | Path,
        *,
        gguf_file: str | None = None,
        name: str | None = None,
        context_tokens: int = 2048,
        wall_clock_s: float = 120.0,
    ) -> None:
        self.path = Path(path).expanduser().resolve()
        self.gguf_file = gguf_file
        self.name = name or f"hf:{self.path.name}"
        self._context_cap = context_tokens
        self.wall_clock_s = wall_clock_s
        self._check_files()

    def _check_files(self) -> None:
        if not self.path.is_dir():
            raise ModelError(f"Model directory not found: {self.path}", hint="Use answer.model=hf:/path/to/dir.")
        if not self.gguf_file and not (self.path / "config.json").is_file():
            raise ModelError(
                f"{self.path} is not a Hugging Face model directory (no config.json).",
                hint="Point hf:PATH at a directory saved with save_pretrained (config.json + weights + tokenizer).",
            )

    # -- loading ---------------------------------------------------------------------------------
    def _backend(self) -> Backend:

        key = f"{self.path}::{self.gguf_file or ''}"
        return load_once(key, lambda: load_backend(self.path, self.gguf_file))

    @property
    def context_tokens(self) -> int:
        """min(model's max positions, configured window). Loads the model on first access."""
        return min(self._backend().max_positions, self._context_cap)

    @context_tokens.setter
    def context_tokens(self, value: int) -> None:
        self._context_cap = value

    def warm_up(self) -> None:
        """Load the weights and run one token, so the first question does not pay for kernel set-up."""
        for _ in self.stream([{"role": "user", "content": "Hi"}], max_new_tokens=1):
            pass

    def count_tokens(self, text: str) -> int:
        b = self._backend()
        with b.tok_lock:
            return len(b.tokenizer.encode(text, add_special_tokens=False))

    def _encode_chat(self, b: Backend, messages: list[Message]) -> Any:
        tok = b.tokenizer
        with b.tok_lock:
            if getattr(tok, "chat_template", None):
                enc = tok.apply_chat_template(
                    messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
                )
                return enc["input_ids"], enc.get("attention_mask")
            text = "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "
            enc = tok(text, return_tensors="pt")
            return enc["input_ids"], enc.get("attention_mask")

    # -- generation ------------------------------------------------------------------------------
    def stream(
        self,
        messages: list[Message],
        *,
        max_new_tokens: int,
        temperature: float = 0.0,
        stop: threading.Event | None = None,
    ) -> Generator[str, None, None]:
        b = self._backend()
        deadline = time.monotonic() + self.wall_clock_s
        while not b.gen_lock.acquire(timeout=_POLL_S):  # another answer is being generated
            if stop is not None and stop.is_set():
                return
            if time.monotonic() > deadline:
                raise ModelTimeoutError(
                    f"{self.name}: waited {self.wall_clock_s:.0f}s for another generation to finish.",
                    hint="The local model answers one question at a time; try again shortly.",
                )
        try:
            yield from self._generate_locked(b, messages, max_new_tokens, temperature, stop, deadline)
        finally:
            b.gen_lock.release()

    def _generate_locked(
        self,
        b: Backend,
        messages: list[Message],
        max_new_tokens: int,
        temperature: float,
        stop: threading.Event | None,
        deadline: float,
    ) -> Generator[str, None, None]:
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer

        input_ids, attention_mask = self._encode_chat(b, messages)
        prompt_len = int(input_ids.shape[-1])
        room = b.max_positions - prompt_len
        if room < 1:
            raise ModelError(
                f"{self.name}: prompt of {prompt_len} tokens does not fit the {b.max_positions}-token window.",
                hint="Lower answer.sources or answer.context_tokens.",
            )
        halt = threading.Event()  # set when the consumer goes away
        state = _RunState()

        class _Stop(StoppingCriteria):
            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
                flag = halt.is_set() or (stop is not None and stop.is_set())
                if not flag and time.monotonic() > deadline:
                    state.timed_out = flag = True
                return torch.full((input_ids.shape[0],), flag, dtype=torch.bool, device=input_ids.device)

        class _Streamer(TextIteratorStreamer):  # decode under the tokenizer lock
            def put(self, value: Any) -> None:
                with b.tok_lock:
                    super().put(value)

            def end(self) -> None:
                with b.tok_lock:
                    super().end()

        streamer = _Streamer(b.tokenizer, skip_prompt=True, skip_special_tokens=True, timeout=_POLL_S)
        gen_kw: dict[str, Any] = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "max_new_tokens": min(max_new_tokens, room),
            "streamer": streamer,
            "stopping_criteria": StoppingCriteriaList([_Stop()]),
        }
        if temperature > 0:
            gen_kw.update(do_sample=True, temperature=temperature)
        else:
            gen_kw.update(do_sample=False, temperature=None, top_p=None, top_k=None)

        def run() -> None:
            try:
                with torch.inference_mode():
                    b.model.generate(**gen_kw)
            except BaseException as e:  # noqa: BLE001 - the consumer below raises it as a ModelError
                state.error = e
                streamer.end()

        thread = threading.Thread(target=run, name=f"generate-{self.name}", daemon=True)
        thread.start()
        produced: list[str] = []
        try:
            while True:
                if stop is not None and stop.is_set():
                    return
                try:
                    piece = next(streamer)
                except StopIteration:
                    break
                except queue.Empty:
                    continue  # the criteria enforce the deadline; keep polling `stop`
                if piece:
                    produced.append(piece)
                    yield piece
        finally:
            halt.set()
            thread.join()
        if state.error is not None:
            err = state.error
            msg = f"{self.name} failed while generating: {type(err).__name__}: {err}"
            if produced:
                raise IncompleteGeneration(msg, partial="".join(produced)) from err
            raise ModelError(msg) from err
        if state.timed_out and not (stop is not None and stop.is_set()):
            msg = f"{self.name}: generation exceeded the {self.wall_clock_s:.0f}s wall-clock limit."
            hint = "Raise answer.wall_clock_s or lower answer.max_new_tokens."
            if produced:
                raise IncompleteGeneration(msg, partial="".join(produced), hint=hint)
            raise ModelTimeoutError(msg, hint=hint)
