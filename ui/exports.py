"""Files the UI writes: downloads (answer .md + .bib, candidate questions) in fresh directories under
GRADIO_TEMP_DIR, which gradio may serve because it was handed them, and feedback rows appended to
`<data_dir>/feedback.jsonl`. No gradio import."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assistant.types import Answer, Record

from . import export_text, render

EXPORT_MAX_AGE_S = 24 * 3600
MAX_COMMENT_CHARS = 2000


def temp_root() -> Path:
    """Gradio's cache directory (GRADIO_TEMP_DIR, set to a dedicated directory by `ui.launch`)."""
    return Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio").resolve()


def is_within(path: Path, parent: Path) -> bool:
    try:
        path.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False


def prune_old(base: Path, max_age_s: float = EXPORT_MAX_AGE_S) -> None:
    """Delete export directories older than max_age_s."""
    if not base.is_dir():
        return
    cutoff = time.time() - max_age_s
    for d in base.iterdir():
        try:
            if d.is_dir() and d.stat().st_mtime < cutoff:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass


def new_export_dir() -> Path:
    """A fresh directory under GRADIO_TEMP_DIR/paperchat-exports (older ones pruned first)."""
    base = temp_root() / "paperchat-exports"
    prune_old(base)
    out = base / uuid.uuid4().hex
    out.mkdir(parents=True, exist_ok=True)
    return out


def export_answer(answer: Answer, records: Mapping[str, Record]) -> list[str]:
    """The answer as Markdown and its sources as BibTeX (when it cites any); the file paths."""
    out = new_export_dir()
    name = f"answer-{render.answer_key(answer)}"
    md = out / f"{name}.md"
    md.write_text(export_text.export_markdown(answer, dict(records)), encoding="utf-8")
    files = [str(md)]
    if answer.citations:
        bib = out / f"{name}.bib"
        bib.write_text(export_text.bibtex(answer, dict(records)), encoding="utf-8")
        files.append(str(bib))
    return files


def export_jsonl(rows: list[dict], filename: str) -> Path:
    path = new_export_dir() / filename
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def feedback_row(answer: Answer, options: Mapping[str, Any], rating: str, comment: str, settings) -> dict:
    """What one rating stores: the question, answer, citations, retrieved ids and the settings used."""
    return {
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
        "rating": rating,
        "comment": (comment or "").strip()[:MAX_COMMENT_CHARS],
        "answer_id": answer.id,
        "question": answer.question,
        "standalone_query": answer.standalone_query,
        "answer": answer.answer,
        "kind": answer.kind,
        "abstained": answer.abstained,
        "incomplete": answer.incomplete,
        "unsupported": list(answer.unsupported),
        "citations": [
            {"marker": c.marker, "paper_id": c.paper_id, "title": c.title, "sentences": list(c.sentences)}
            for c in answer.citations
        ],
        "retrieved": [{"paper_id": h.paper_id, "score": h.score} for h in answer.retrieved],
        "model": answer.model,
        "settings": {**options, "retrieval": settings.retrieval.model_dump(),
                     "embedding_model": settings.embedding.model},
    }


def append_feedback(path: Path, lock: threading.Lock, row: dict) -> None:
    line = json.dumps(row, ensure_ascii=False, default=str) + "\n"
    with lock:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as f:
            f.write(line)
