"""scripts/probe.py (issue 23): its table format, and the argument group run for real on the debug preset."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "probe.py"


@pytest.fixture(scope="module")
def probe():
    spec = importlib.util.spec_from_file_location("probe_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_table_escapes_pipes_and_marks_failures(probe):
    md = probe.markdown([probe.Row("args", "a | b", "x", "rc=2: y", True), probe.Row("args", "c", "x", "z", False)])
    assert md.splitlines()[0] == "| probe | expected | got | ok |"
    assert "a \\| b" in md and md.splitlines()[-1].endswith("| **not ok** |")


def test_key_line_prefers_the_traceback_then_error_lines(probe):
    err = "Traceback (most recent call last):\n  File x\nTypeError: TextEncodeInput must be Union\n"
    assert probe.key_line(1, "", err, "broken") == "rc=1: TypeError: TextEncodeInput must be Union"
    err = "usage: paperchat search [--k K]\npaperchat search: error: argument --k: must be from 1 to 100\n"
    assert probe.key_line(2, "", err, "--k").endswith("error: argument --k: must be from 1 to 100")


def test_unknown_group_is_refused(probe, capsys):
    with pytest.raises(SystemExit):
        probe.main(["--only", "nope"])
    assert "unknown group" in capsys.readouterr().err


@pytest.mark.slow
def test_the_argument_probes_pass_on_a_fresh_store(probe, capsys, tmp_path):
    code = probe.main(["--preset", "debug", "--only", "args", "--json", "--keep", str(tmp_path / "probe")])
    res = json.loads(capsys.readouterr().out)
    bad = [r for r in res["rows"] if not r["ok"]]
    assert code == 0 and not bad and len(res["rows"]) >= 12, bad
