"""Damage matrix (issue 13): each damage is detected by doctor, names its fix, never serves wrong results,
and `rebuild-index` restores 30/30 self-retrieval. 1,100 records: enough for Chroma to persist its HNSW
files (it flushes every 1,000 writes), so zeroing them matters."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow

spec = importlib.util.spec_from_file_location("damage_matrix", ROOT / "scripts" / "damage_matrix.py")
damage_matrix = importlib.util.module_from_spec(spec)
sys.modules["damage_matrix"] = damage_matrix
spec.loader.exec_module(damage_matrix)

CASES = ["zeroed data_level0.bin", "deleted data_level0.bin", "byte-flipped chroma.sqlite3", "truncated chroma.sqlite3",
         "0-byte chroma.sqlite3"]


def test_damage_matrix(tmp_path):
    res = damage_matrix.matrix(1100, tmp_path, CASES)
    for name in CASES:
        r = res[name]
        assert r["detected"], (name, r)
        assert r["fix_named"], (name, r)
        assert r["search_clear_error"], (name, r)
        assert r["repair_exit"] == 0 and r["healthy_after"], (name, r)
        assert r["self_retrieval_after"].startswith("30/30"), (name, r)
