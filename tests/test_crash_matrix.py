"""Crash matrix (issue 13), short: SIGKILL a 1,500-record ingest at 2 random points; after each kill a fresh
process opens the store, and after a re-run nothing is lost, duplicated or orphaned and doctor is healthy.
The 20-point version: `python scripts/crash_matrix.py`."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow

spec = importlib.util.spec_from_file_location("crash_matrix", ROOT / "scripts" / "crash_matrix.py")
crash_matrix = importlib.util.module_from_spec(spec)
sys.modules["crash_matrix"] = crash_matrix
spec.loader.exec_module(crash_matrix)


@pytest.mark.skipif(not crash_matrix.ARXIV.exists(), reason="needs the shared arXiv file")
def test_sigkill_mid_ingest_loses_duplicates_and_orphans_nothing(tmp_path):
    res = crash_matrix.matrix(2, 1500, tmp_path, seed=7)
    for r in res["points"]:
        assert r["after_kill"]["opens"], r
        assert (r["lost"], r["duplicated"], r["orphaned"], r["pending_left"]) == (0, 0, 0, 0), r
        assert r["rerun_exit"] == 0 and r["doctor_ok"], r
