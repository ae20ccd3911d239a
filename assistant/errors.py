"""Errors the library raises. Each carries a user-facing hint; the edges (CLI, UI) print both.

The library never prints and never swallows: it raises one of these, and `cli.main` / `ui` translate.
"""

from __future__ import annotations


class AssistantError(Exception):
    """Base error: `message` says what went wrong, `hint` says what to do about it."""

    hint: str = ""
    exit_code: int = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        if hint:
            self.hint = hint

    def __str__(self) -> str:
        return self.message


class ConfigError(AssistantError):
    """A setting or argument is invalid."""

    exit_code = 2


class IngestError(AssistantError):
    """A source file cannot be read, or (with --strict) some records were skipped."""


class ParseError(IngestError):
    """One record of a source could not be parsed. Readers raise only this for bad input."""


class StoreError(AssistantError):
    """The vector store or lexical index cannot be opened, is damaged, or is in use."""


class StoreLockedError(StoreError):
    """Another process holds the write lock of an embedded store."""


class EmbeddingMismatchError(StoreError):
    """The collection was built with another embedding model or dimension."""


class EmptyIndexError(StoreError):
    """Nothing has been ingested yet."""

    hint = "Ingest abstracts first: `paperchat ingest FILE` (or `make run`, which indexes the bundled corpus)."


class ModelError(AssistantError):
    """A chat or embedding model cannot be loaded or failed while generating."""


class ModelTimeoutError(ModelError):
    """The model server did not answer in time."""


class PromptError(AssistantError):
    """A prompt file is missing or its variables do not match what the code passes."""


class StoreDamagedError(StoreError):
    """A file of the store is damaged or missing; the hint names the command that repairs it."""


class RecordsLostError(StoreDamagedError):
    """The records store (the source of truth) was removed, emptied or truncated: writes are refused."""


class VectorSettingsError(StoreError):
    """The configured embedding or chunking settings differ from those the stored vectors were made with."""

    exit_code = 2


class DiskFullError(StoreError):
    """A write failed (or would fail) for lack of space; the message names the path."""
