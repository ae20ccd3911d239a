"""The process-wide cache of loaded local models (the only module-level state of this package).

`_LOADED` maps a file path to its loaded tokenizer+model backend, guarded by `_LOCK`. Loading a local
model takes seconds and ~1 GB of RAM, so it happens once per process, lazily, on the first request
that needs it; every chat model object on the same path shares the backend (and its generation lock).
`clear_loaded()` empties it (tests, memory pressure). Kept apart from the factory so that the model
modules use it without importing the factory that imports them (no import cycle).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_LOCK = threading.Lock()
_LOADED: dict[str, object] = {}


def load_once(key: str, loader: Callable[[], T]) -> T:
    """Return the cached object for `key`, calling `loader()` the first time (under the lock).

    A failed load is not cached: the next call tries again (and raises again, with its hint).
    """
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = loader()
        return _LOADED[key]  # type: ignore[return-value]


def clear_loaded() -> None:
    """Forget every loaded model (their memory is freed once no chat model references them)."""
    with _LOCK:
        _LOADED.clear()


def loaded_keys() -> list[str]:
    with _LOCK:
        return list(_LOADED)
