"""The de-quantized copy of a GGUF model, kept in the model cache so later loads take ~1 s instead of ~50 s.

One copy per model *content*: the key is the file's size and a hash of its first and last MiB, the transformers
version and the layout (`CONVERTED_FORMAT`), never its path or modification time, so the same weights installed in
several checkouts or virtualenvs share one copy (~0.5 GB each). A copy that a transformers upgrade or a new layout
supersedes is deleted once no load has read it for 30 days (`prune_superseded`, run after each load and conversion).

    out = converted_dir(model_dir, "model.gguf")    # None when PAPERCHAT_MODEL_CACHE=off
    save_converted(backend, out, model_dir / "model.gguf", load_seconds)
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CONVERTED_FORMAT = 1  # bump when the converted layout changes (invalidates cached copies)
_MIN_FREE_FACTOR = 2  # convert only with at least twice the weights' size free on the cache's disk


def model_cache_root() -> Path | None:
    """Where de-quantized copies of GGUF models are kept ($PAPERCHAT_MODEL_CACHE; 'off' disables)."""
    env = os.environ.get("PAPERCHAT_MODEL_CACHE", "")
    if env.lower() in ("off", "0", "none"):
        return None
    if env:
        return Path(env).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "paperchat" / "models"


_SAMPLED = 1 << 20  # bytes read from each end of a GGUF file to key its converted copy


def content_key(file: Path) -> str:
    """What identifies a GGUF file's weights: its size and a hash of its first and last MiB. The same file
    installed in another place, or again at another time, has the same key (so it shares one converted copy);
    a path or a modification time is no part of it."""
    h = hashlib.sha256()
    with open(file, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        h.update(f.read(_SAMPLED))
        if size > 2 * _SAMPLED:
            f.seek(-_SAMPLED, os.SEEK_END)
            h.update(f.read(_SAMPLED))
    return f"{size}:{h.hexdigest()}"


def converted_dir(path: Path, gguf_file: str) -> Path | None:
    """The cache directory for this GGUF file's de-quantized copy (keyed by the file's content, the transformers
    version and the layout: see `content_key`)."""
    root = model_cache_root()
    if root is None:
        return None
    from importlib.metadata import version

    key = f"{content_key(path / gguf_file)}:{version('transformers')}:{CONVERTED_FORMAT}"
    return root / f"{Path(gguf_file).stem}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def prune_superseded(kept: Path, keep_days: float = 30.0) -> list[Path]:
    """Delete the converted copies of the same model file (same name stem) other than `kept` that no load has
    read for `keep_days` (copies a transformers upgrade or a new layout left behind; each is ~0.5 GB), and
    conversions killed half-way more than a day ago. Returns what was deleted; best effort (a copy in use
    elsewhere has been read recently and stays)."""
    stem = kept.name.rsplit("-", 1)[0]
    cutoff = time.time() - keep_days * 86400
    gone = []
    for d in kept.parent.glob(f"{stem}-*"):
        marker = d / "converted.json"
        if d == kept or not d.is_dir() or d.name.rsplit("-", 1)[0] != stem:
            continue
        try:
            if marker.is_file() and marker.stat().st_mtime >= cutoff:
                continue
        except OSError:
            continue
        shutil.rmtree(d, ignore_errors=True)
        gone.append(d)
    for d in kept.parent.glob(".convert-*"):  # a conversion killed half-way (a live one is minutes old)
        with contextlib.suppress(OSError):
            if d.is_dir() and d.stat().st_mtime < time.time() - 86400:
                shutil.rmtree(d, ignore_errors=True)
                gone.append(d)
    return gone


def add_architectures(directory: Path) -> None:
    """Give a converted copy written before `architectures` was saved (the key `transformers serve` and
    other loaders use to pick the model class) that key, in place; idempotent, atomic rewrite."""
    import json

    cfg = directory / "config.json"
    try:
        data = json.loads(cfg.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # the load below reports a damaged copy
    if data.get("architectures"):
        return
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    cls = MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(data.get("model_type", ""))
    if not cls:
        return
    data["architectures"] = [cls]
    tmp = cfg.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, cfg)


def used(copy: Path) -> None:
    """A load read `copy`: mark it read (it is not superseded while in use) and delete what it supersedes, so the
    copy an upgrade left behind goes 30 days after its last use, not only after a later conversion."""
    with contextlib.suppress(OSError):
        os.utime(copy / "converted.json")
    for d in prune_superseded(copy):
        log.info("Deleted the converted model %s: superseded by %s and unread for 30 days.", d, copy.name)


def save_converted(b: Any, out: Path, source: Path, load_s: float) -> None:
    """Best effort: write the de-quantized model to `out` atomically; on any failure keep going."""
    import copy
    import json
    import tempfile

    try:
        from safetensors.torch import save_model

        size = sum(p.numel() * p.element_size() for p in b.model.parameters())
        out.parent.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(out.parent).free
        if free < _MIN_FREE_FACTOR * size:
            log.warning("Not caching the converted model: %d MB free in %s, %d MB needed.",
                        free >> 20, out.parent, (_MIN_FREE_FACTOR * size) >> 20)
            return
        tmp = tempfile.mkdtemp(dir=out.parent, prefix=".convert-")
        try:
            save_model(b.model, str(Path(tmp) / "model.safetensors"))  # handles the tied embeddings
            config = copy.deepcopy(b.model.config)
            if hasattr(config, "quantization_config"):
                del config.quantization_config
            if not getattr(config, "architectures", None):  # a GGUF config has none; servers need it
                config.architectures = [type(b.model).__name__]
            config.save_pretrained(tmp)
            b.model.generation_config.save_pretrained(tmp)
            with b.tok_lock:
                b.tokenizer.save_pretrained(tmp)
            meta = {"source": str(source), "format": CONVERTED_FORMAT, "gguf_load_s": round(load_s, 1)}
            (Path(tmp) / "converted.json").write_text(json.dumps(meta), encoding="utf-8")
            with contextlib.suppress(OSError):  # another process converted it first: theirs is as good
                os.replace(tmp, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for d in prune_superseded(out):
            log.info("Deleted the converted model %s: superseded by %s and unread for 30 days.", d, out.name)
    except Exception as e:  # noqa: BLE001 - a cache, never a reason to fail an answer
        log.warning("Could not cache the converted model in %s: %s", out, e)
