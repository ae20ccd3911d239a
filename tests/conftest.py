"""Shared fixtures: settings on a temp store, small hand-made records, and the bundled corpus path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assistant.settings import Settings, load_settings
from assistant.types import Record

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


def make_settings(tmp_path: Path, preset: str = "debug", **overrides) -> Settings:
    return load_settings(preset, {"store.data_dir": str(tmp_path / "store"), **overrides}, env={})


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path)


PAPERS = [
    Record("p-fedmerge", "FedMerge merges several global models into one personalised model per client in federated "
           "learning. Each client receives a weighted merge of the server's models. Experiments on CIFAR-10 show "
           "FedMerge beats clustering-based personalised federated learning.", title="",
           label="FedMerge: model merging", label_derived=True, year=2025, authors=("Ann Lee", "Bo Chen"),
           source="a.jsonl"),
    Record("p-prune", "Layer pruning compresses large language models. We propose Prune&Comp, which compensates the "
           "magnitude gap of removed layers. Prune&Comp reduces perplexity by 24.72% on LLaMA-3-8B.",
           title="Prune&Comp: Free Lunch for Layer-Pruned LLMs", label="Prune&Comp: Free Lunch for Layer-Pruned LLMs",
           year=2024, authors=("Cy Park",), source="b.jsonl"),
    Record("p-gnn", "Graph neural networks based on the 2-FWL test are expressive but slow. We sparsify the "
           "connectivity and keep full expressivity with improved efficiency on molecular benchmarks.",
           label="Sparsified 2-FWL GNNs", label_derived=True, year=2023, authors=("Dee Kay",), source="a.jsonl"),
    Record("p-underwater", "Underwater object detection suffers from colour casts and blur. We design a lightweight "
           "detector for low-power devices that runs in real time on an embedded board.",
           label="Lightweight underwater object detection", label_derived=True, year=2022, source="b.jsonl"),
]


@pytest.fixture
def papers() -> list[Record]:
    return list(PAPERS)


@pytest.fixture
def debug_assistant(tmp_path: Path):
    """(settings, assistant) over a temp store holding PAPERS (debug preset)."""
    from assistant.answer.assistant import Assistant

    settings = make_settings(tmp_path)
    a = Assistant(settings)
    a.index.add(PAPERS)
    return settings, a
