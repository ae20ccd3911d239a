"""CLI argument checks that run before any work: --k and --out; batch problem reports.

A batch that ends in `IsADirectoryError` after answering every question wastes the run: `check_out`
refuses an unusable output path before the first model is loaded. `k_arg` is an argparse `type`, so
`--k 0` fails at parse time with the allowed range.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from ..errors import ConfigError

MAX_K = 100  # retrieval.k's bound (settings.RetrievalSettings.k)


def k_arg(value: str) -> int:
    """argparse type of --k: a whole number from 1 to MAX_K."""
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_K}, not {value!r}") from None
    if not 1 <= k <= MAX_K:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_K} (papers retrieved), not {k}")
    return k


def check_out(path: Path, flag: str = "--out") -> None:
    """ConfigError unless `path` can be written as a file (its folder is created if missing)."""
    example = f"{flag} {path / 'results.jsonl'}"
    if path.is_dir():
        raise ConfigError(f"{flag} {path} is a directory; it must name the results file.", hint=f"e.g. {example}")
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{flag} {path}: cannot create its folder {parent} ({e.strerror or e}).",
                          hint="Choose a path in a folder you can write to.") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise ConfigError(f"{flag} {path} exists and is not writable.",
                          hint="Choose another file or fix its permissions.")
    try:  # a real write: permission bits are not the whole story (read-only mounts, ACLs)
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".paperchat-check-"):
            pass
    except OSError as e:
        raise ConfigError(f"{flag} {path}: cannot write in {parent} ({e.strerror or e}).",
                          hint="Choose a path in a folder you can write to.") from None


def report(lines: list[str], prefix: str) -> None:
    for line in lines:
        print(f"{prefix}: {line}", file=sys.stderr)
