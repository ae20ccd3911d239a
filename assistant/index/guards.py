"""Guards around writes: the vector settings a store was built with, free space, a failed write explained.

`vector_settings` is everything that changes the stored vectors (recorded in the records store at the
first write); opening a store with other settings is a `VectorSettingsError` naming both and the two ways
forward. A write that fails when the disk is (nearly) full becomes a `DiskFullError` naming the path.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..errors import DiskFullError, VectorSettingsError
from ..settings import Settings

MB = 1024 * 1024
NEARLY_FULL_MB = 16

# what each stored vector setting is called on the command line
SETTING_NAMES = {"model": "embedding.model", "backend": "embedding.backend", "server_model": "embedding.server_model",
                 "max_seq_tokens": "embedding.max_seq_tokens",
                 "chunk_tokens": "chunking.chunk_tokens", "overlap_sentences": "chunking.overlap_sentences",
                 "include_title": "chunking.include_title"}


def vector_settings(settings: Settings) -> dict:
    """Everything that changes the stored vectors, with the index name derived from it."""
    e = settings.embedding
    server = {"server_model": e.server_model} if e.backend == "openai" else {}
    return {"index": settings.index_name(), "model": e.model, "backend": e.backend, **server,
            "max_seq_tokens": e.max_seq_tokens, **settings.chunking.model_dump()}


def settings_mismatch(data_dir: object, stored: dict, configured: dict) -> VectorSettingsError:
    keys = [k for k in SETTING_NAMES if k in stored and stored.get(k) != configured.get(k)]
    have = ", ".join(f"{SETTING_NAMES[k]}={stored[k]}" for k in keys) or f"index {stored.get('index')}"
    want = ", ".join(f"{SETTING_NAMES[k]}={configured.get(k, '')}" for k in keys) or f"index {configured.get('index')}"
    keep = " ".join(f"--set {SETTING_NAMES[k]}={stored[k]}" for k in keys)
    return VectorSettingsError(
        f"The store in {data_dir} holds vectors made with {have}, but the settings ask for {want}.",
        hint="Two ways forward: rebuild the vectors with the new settings (`paperchat ... rebuild-index --dense` with "
        "the same options; the old vectors are moved aside, not deleted), or keep the old settings"
        + (f" ({keep})." if keep else " (remove the overrides)."),
    )


def check_free_space(data_dir: Path, need_mb: int) -> None:
    free = shutil.disk_usage(data_dir).free // MB
    if free < need_mb:
        raise DiskFullError(f"Only {free} MB free in {data_dir} ({need_mb} MB required before writing).",
                            hint="Free disk space there (or lower --set ingest.min_free_mb=N), then run the command "
                            "again: finished batches are kept.")


def explain_write_failure(data_dir: Path, e: BaseException) -> BaseException:
    """A failed write as DiskFullError when the disk is (nearly) full or said ENOSPC, else `e` itself."""
    text = f"{e} {e.__cause__ or ''}".lower()
    errno_ = getattr(e, "errno", None) or getattr(e.__cause__, "errno", None)
    try:
        free = shutil.disk_usage(data_dir).free // MB
    except OSError:
        free = -1
    if errno_ == 28 or "disk is full" in text or "no space left" in text or 0 <= free < NEARLY_FULL_MB:
        return DiskFullError(f"A write to {data_dir} failed: the disk is full ({free} MB free; {e}).",
                             hint="Free disk space there, then run the same command again: committed batches are "
                             "kept, and the unfinished one is redone.")
    return e
