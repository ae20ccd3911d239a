"""The docstring examples of the ingest modules are tests too."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["clean", "fields", "labels", "names", "longforms", "phrases", "dedupe", "jsonl", "bibtex"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(f"assistant.ingest.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
