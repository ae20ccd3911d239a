"""A non-editable install finds its prompts and presets: the wheel carries them as package data, and the
loaders read them from the package, not from the source tree."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from assistant.answer.prompts import load_prompt
from assistant.settings import PRESETS_DIR, PROMPTS_DIR

ROOT = Path(__file__).resolve().parent.parent


def test_loaders_read_from_the_package():
    pkg = ROOT / "assistant"
    assert PROMPTS_DIR.resolve().parent == pkg.resolve() and PRESETS_DIR.resolve().parent == pkg.resolve()
    for name in ("system", "answer", "compare", "judge_correctness", "judge_faithfulness", "judge_relevance"):
        assert load_prompt(name).template


@pytest.mark.slow
def test_wheel_carries_prompts_and_presets(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                          str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    (wheel,) = tmp_path.glob("paperchat-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for p in sorted(PROMPTS_DIR.glob("*.md")):
        assert f"assistant/prompts/{p.name}" in names
    for p in sorted(PRESETS_DIR.glob("*.json")):
        assert f"assistant/presets/{p.name}" in names
    assert "assistant/answer/sentrank.json" in names  # the answer-sentence ranker's weights
    assert "assistant/answer/roles.json" in names  # the sentence-role model
