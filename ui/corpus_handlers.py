"""The Corpus tab's event functions (a mixin of `ui.handlers.Handlers`): stats, search, open an abstract,
add files. They reach the papers only through `assistant.corpus` (assistant/corpus.py), never through
the index or the retriever."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

from assistant.errors import AssistantError

from . import render
from .errors import store_banner, unexpected_error
from .exports import is_within, temp_root

UPLOAD_TYPES = (".jsonl", ".csv", ".bib", ".txt")


def corpus_facets(assistant: Any) -> dict:
    """Which metadata filters make sense for the indexed corpus: year range and whether authors exist."""
    corpus = getattr(assistant, "corpus", None)
    if corpus is None:
        return {"year_min": None, "year_max": None, "authors": True, "known": False}
    return corpus.facets().to_dict()


class CorpusHandlers:
    """Needs `assistant`, `settings`, `check_question` and `options` from the class it is mixed into."""

    def stats(self) -> str:
        try:
            s = self.assistant.corpus.stats()
        except AssistantError as e:  # a damaged store: say so where the counts would be (the banner names the fix)
            return f"Store statistics are unavailable: {render.safe_error_text(e.message)}"
        cov = s.get("dense_coverage") or {}
        papers = cov.get("papers", s.get("papers", 0))
        text = (f"**{papers:,}** abstracts indexed ({s.get('chunks', 0):,} chunks, "
                f"embeddings: {render.md_escape(s.get('embedding_model', ''))}).")
        if cov and not cov.get("complete", True):
            text += (f" Dense retrieval covers **{cov['embedded']:,} of {cov['papers']:,}** papers so far "
                     f"({cov['percent']}%); the rest are searchable by keywords while their embeddings are made.")
        return text

    def store_banner(self) -> Any:
        """The damaged-store banner (hidden while the store is whole): on load, every few seconds, after uploads."""
        health = getattr(self.assistant, "corpus", None)
        health = health.health() if health is not None and hasattr(health, "health") else None
        if health is None or health.ok:
            return gr.update(visible=False, value="")
        return gr.update(visible=True, value=store_banner(health.problem, health.fix))

    def search(self, query, k, year_min, year_max, author) -> list[list]:
        q = self.check_question(query, "search")
        opts = self.options(None, k, year_min, year_max, author)
        hits = self.assistant.corpus.search_papers(q, k=opts.k, filters=opts.filters)
        if not hits:
            finding = self.assistant.corpus.check_filters(opts.filters)
            gr.Info(f"No results: {finding.message}" if finding else "No matching abstracts.")
        return render.search_rows(hits)

    def open_selected(self, evt: gr.SelectData) -> tuple[str, str]:
        row = evt.row_value if isinstance(evt.row_value, list) else []
        pid = str(row[4]) if len(row) > 4 else ""
        return self.open_abstract(pid)[0], pid

    def open_abstract(self, paper_id) -> tuple[str]:
        pid = (paper_id if isinstance(paper_id, str) else "").strip()[:300]
        if not pid:
            raise gr.Error("Give a paper id (it is shown in search results and in the evidence panel).",
                           print_exception=False)
        rec = self.assistant.corpus.paper(pid)
        return (render.abstract_html(rec, pid),)

    def add_files(self, files,
                  progress=gr.Progress()) -> tuple[str, Any, str, Any, Any, Any]:  # noqa: B008 - Gradio reads it
        """Ingest uploaded files one by one: a bad file is reported and skipped, never fatal, and
        nothing already indexed is touched (ingest only adds). The uploads are deleted afterwards."""
        paths = [Path(f) for f in (files or []) if f]
        if not paths:
            raise gr.Error("Choose one or more .jsonl, .csv, .bib or .txt files first.", print_exception=False)
        limit = self.settings.ui.max_upload_mb * 1024 * 1024
        outcomes: list[render.FileOutcome] = []
        try:
            for i, path in enumerate(paths):
                name = path.name
                if not path.name.lower().endswith(UPLOAD_TYPES):
                    outcomes.append(render.FileOutcome(name,
                                                       error="not accepted: upload .jsonl, .csv, .bib or .txt files."))
                    continue
                size = path.stat().st_size if path.is_file() else -1
                if size < 0:
                    outcomes.append(render.FileOutcome(name, error="the upload did not arrive; try again."))
                    continue
                if size > limit:
                    outcomes.append(render.FileOutcome(
                        name, error=f"larger than the {self.settings.ui.max_upload_mb} MB limit."))
                    continue
                total = _estimate_records(path)
                done = [0]

                def tick(n: int, _name=name, _total=total, _done=done, _i=i) -> None:
                    _done[0] += n
                    progress((_done[0], _total), desc=f"Indexing {_name} ({_i + 1}/{len(paths)})", unit="abstracts")

                progress((0, total), desc=f"Indexing {name} ({i + 1}/{len(paths)})", unit="abstracts")
                try:
                    report = self.assistant.corpus.add_files([path], tick)
                except AssistantError as e:
                    outcomes.append(render.FileOutcome(name, error=render.safe_error_text(e.message, e.hint)))
                    continue
                except Exception:  # noqa: BLE001 - one bad file must not lose the report of the others
                    outcomes.append(render.FileOutcome(name, error=unexpected_error().message))
                    continue
                outcomes.append(render.FileOutcome(name, summary=report.summary(), issues=tuple(report.issues)))
        finally:
            root = temp_root()
            for p in paths:  # uploaded copies are never served back: delete them
                if is_within(p, root) and p.is_file():
                    p.unlink(missing_ok=True)
        facets = corpus_facets(self.assistant)
        return (render.ingest_markdown(outcomes), None, self.stats(), *filter_updates(facets))


def _estimate_records(path: Path) -> int | None:
    try:
        with open(path, "rb") as f:
            if path.suffix.lower() == ".bib":
                return sum(1 for line in f if line.lstrip().startswith(b"@")) or None
            n = sum(1 for line in f if line.strip())
            return max(n - 1, 1) if path.suffix.lower() == ".csv" else (n or None)
    except OSError:
        return None


def year_label(label: str, facets: dict) -> str:
    if facets.get("year_min") is None:
        return label
    return f"{label} (corpus: {facets['year_min']}–{facets['year_max']})"


def filter_updates(facets: dict) -> tuple[Any, Any, Any]:
    has_years = facets.get("year_min") is not None or not facets.get("known")
    return (
        gr.update(visible=has_years, label=year_label("Year from", facets)),
        gr.update(visible=has_years),
        gr.update(visible=bool(facets.get("authors"))),
    )
