"""Property tests: any bytes or text fed to any reader yields only Records and IngestIssues, quickly.

The only exception allowed is IngestError, which read_source documents for whole-file problems
(binary content, a CSV header without an abstract column, a pretty-printed JSON document).
"""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.errors import IngestError
from assistant.ingest import FORMATS, read_source
from assistant.ingest.labels import MAX_LABEL
from assistant.types import IngestIssue, Record

SETTINGS = settings(
    max_examples=40, deadline=timedelta(seconds=5), suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
SUFFIX = {"seed": ".txt", "text": ".txt", "csv": ".csv", "bibtex": ".bib", "jsonl": ".jsonl", "beir": ".jsonl"}
SUFFIX["arxiv"] = ".jsonl"

# Text that looks a bit like each format, so the fuzzing reaches past the first checks.
fragments = st.sampled_from(
    [
        '{"id": ', '"abstract": ', '"x"', "}", "{", "[1,2]", "null", "\n", ",", '"', "@article{", "key,",
        "title = {", "abstract = {", "}", "\\", "id,title,abstract\n", "PDF ↗", "Daily Papers", "论文检索",
        "\ufeff", "\r\n", " and ", "We propose FedMerge, a framework. ", "=HYPERLINK(", "\u2028", "\x00",
    ]
)
texty = st.lists(st.one_of(fragments, st.text(max_size=40)), max_size=30).map("".join)


def run(fmt: str | None, data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"fuzz{suffix}"
        path.write_bytes(data)
        try:
            items = list(read_source(path, fmt=fmt))
        except IngestError as e:
            assert e.message and e.hint  # noqa: PT017 - a refusal is one accepted outcome, records the other
            return
        for item in items:
            assert isinstance(item, (Record, IngestIssue)), type(item)
            if isinstance(item, Record):
                assert item.paper_id and item.text.strip() and item.label
                assert item.text == " ".join(item.text.split())
                if item.label_derived:
                    assert len(item.label) <= MAX_LABEL
            else:
                assert item.message and item.source == path.name


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(data=st.binary(max_size=600))
def test_random_bytes(fmt, data):
    run(fmt, data, SUFFIX[fmt])


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(text=texty)
def test_format_like_text(fmt, text):
    run(fmt, text.encode("utf-8", errors="surrogatepass"), SUFFIX[fmt])


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".bib", ".txt", ".dat", ".jsonl.gz"])
@SETTINGS
@given(text=texty)
def test_detection_on_random_text(suffix, text):
    run(None, text.encode("utf-8", errors="surrogatepass"), suffix)
