"""The **Evaluation** tab: the latest eval report (summary table + plots), a background run of the bundled
question set with progress, a comparison of two runs (paired differences with 95% CIs, the questions
whose outcome changed side by side with their cited abstracts, a "regressions only" filter; see
ui/eval_compare.py), and thumbs-down feedback exported as candidate questions.

`add_eval_tab(demo, handlers)` (called by `ui.app.build_app` inside its `gr.Tabs()`) keeps all state on the
`EvalTab` it returns (`demo.paperchat_eval`): one run at a time per app, guarded by its lock. Runs write to
`<data_dir>/eval-runs/<timestamp>/`; plots are loaded as PIL images, so gradio serves its own cached copies
and the data directory is never made servable.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import gradio as gr

from assistant.errors import AssistantError
from assistant.settings import PROJECT_DIR

from . import eval_compare, render
from .errors import translate_errors, unexpected_error
from .exports import export_jsonl

BUNDLED_QUESTIONS = PROJECT_DIR / "eval" / "questions.jsonl"
PROJECT_RUNS = PROJECT_DIR / "eval" / "runs"
PROJECT_LATEST = PROJECT_RUNS / "latest"
EVAL_MODELS = ("extractive", "local")
SIZES = ("first 20", "all")
PLOT_KEYS = ("retrieval", "answers", "latency", "abstention")


class _WithModel:
    """The chat's Assistant, answering with `model` (run_eval calls `ask` and `model()`; the rest is shared)."""

    def __init__(self, assistant: Any, model: str) -> None:
        self._a, self._m = assistant, model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._a, name)

    def ask(self, question, conversation=None, **kw):
        return self._a.ask(question, conversation, model=self._m, **kw)

    def model(self, name: str | None = None):
        return self._a.model(name or self._m)


def latest_run(runs_dir: Path, project_latest: Path = PROJECT_LATEST) -> tuple[Path, str] | None:
    """(directory, label) of the newest finished run (by its summary.json) under runs_dir or project_latest."""
    dirs = [(d, f"web UI run {d.name}") for d in (runs_dir.iterdir() if runs_dir.is_dir() else ())]
    dirs.append((project_latest, "eval/runs/latest"))
    found = [(f.stat().st_mtime, d, label) for d, label in dirs if (f := d / "summary.json").is_file()]
    return max(found, key=lambda t: t[0])[1:] if found else None


def report_markdown(summary: dict, label: str) -> str:
    from eval.report import summary_table

    cfg = summary.get("config") or {}
    n = (summary.get("counts") or {}).get("overall", 0)
    head = (f"### Latest report: {render.md_escape(label)}\n\n"
            f"{n} questions, model `{render.md_escape(cfg.get('answer.model', '?'))}`, "
            f"started {render.md_escape(summary.get('started', ''))}, {float(summary.get('elapsed_s') or 0):.0f} s.")
    if summary.get("errors"):
        head += f" **{int(summary['errors'])} question(s) failed** (counted as missed)."
    return f"{head}\n\n{summary_table(summary)}\n\n`–` = not applicable."


def _image(path: Path) -> Any:
    from PIL import Image  # only when a report is shown
    with Image.open(path) as im:
        return im.copy()  # in memory: gradio saves its own copy into its cache


class EvalTab:
    def __init__(self, handlers: Any) -> None:
        self.assistant, self.settings = handlers.assistant, handlers.settings
        self.feedback_path: Path = handlers.feedback_path
        self.feedback_lock = handlers._feedback_lock
        self.runs_dir = Path(self.settings.store.data_dir) / "eval-runs"
        self.project_latest = PROJECT_LATEST
        self.project_runs = PROJECT_RUNS
        self._cmp_cache: tuple[tuple, dict] | None = None  # last comparison (keyed by run dirs and mtimes)
        self.questions = BUNDLED_QUESTIONS
        self.quick = 20  # questions in a "first 20" run
        self.lock = threading.Lock()  # held for the whole background run: one run at a time
        self.status = "No evaluation started from this server yet."
        self.thread: threading.Thread | None = None

    running = property(lambda self: self.lock.locked())

    def report(self) -> tuple:
        from eval.report import PLOTS

        found = latest_run(self.runs_dir, self.project_latest)
        if found is None:
            return ("_No evaluation report yet: run one below (or `paperchat eval run`)._",
                    *[gr.update(value=None, visible=False) for _ in PLOT_KEYS])
        d, label = found
        try:
            summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return (f"_The latest report ({render.md_escape(label)}) could not be read._",
                    *[gr.skip()] * len(PLOT_KEYS))
        imgs = [gr.update(value=_image(d / PLOTS[k]), visible=True) if (d / PLOTS[k]).is_file()
                else gr.update(value=None, visible=False) for k in PLOT_KEYS]
        return (report_markdown(summary, label), *imgs)

    def start(self, model: Any, size: Any) -> tuple[str, Any]:
        if model not in EVAL_MODELS or size not in SIZES:  # validated server-side, never trusted from the browser
            raise gr.Error(f"Choose a model ({', '.join(EVAL_MODELS)}) and a size ({', '.join(SIZES)}).",
                           print_exception=False)
        if not self.lock.acquire(blocking=False):
            return "An evaluation is already running; wait for it to finish.", gr.Timer(active=True)
        self.status = f"Starting the {model} run (loading the models)…"
        limit = self.quick if size == "first 20" else None
        self.thread = threading.Thread(target=self._run, args=(model, limit), name="paperchat-eval", daemon=True)
        try:
            self.thread.start()  # _run releases the lock when it ends
        except RuntimeError:
            self.lock.release()
            raise
        return self.status, gr.Timer(active=True)

    def _tick(self, done: int, total: int) -> None:
        self.status = f"Running: {done}/{total} questions answered…"

    def _run(self, model: str, limit: int | None) -> None:
        from eval.runner import run_eval

        try:
            out = self.runs_dir / time.strftime("%Y%m%d-%H%M%S")  # one run at a time: runs are seconds apart
            settings = self.settings.with_overrides({"answer.model": model})  # recorded in summary.json
            summary = run_eval(self.questions, out, settings, progress=lambda d, t: self._tick(d, t),
                               assistant=_WithModel(self.assistant, model), limit=limit)
            n, fails = summary["counts"]["overall"], summary.get("errors", 0)
            self.status = (f"Finished: {n} questions in {summary['elapsed_s']:.0f} s"
                           + (f", {fails} failed." if fails else "."))
        except AssistantError as e:
            self.status = f"Failed: {render.safe_error_text(e.message, e.hint)}"
        except Exception:  # noqa: BLE001 - logged with a trace id, never shown
            self.status = f"Failed: {unexpected_error().message}"
        finally:
            self.lock.release()

    def poll(self) -> tuple:
        """Timer tick: the status; once the run is over, the new report and the timer switched off."""
        if self.running:
            return (self.status, gr.Timer(active=True), *[gr.skip()] * (1 + len(PLOT_KEYS)))
        return (self.status, gr.Timer(active=False), *self.report())

    # comparison ------------------------------------------------------------------------------------
    def runs(self) -> dict[str, Path]:
        return eval_compare.list_runs((self.runs_dir, "web UI"), (self.project_runs, "eval/runs"))

    def run_choices(self) -> tuple[Any, Any]:
        labels = list(self.runs())
        a = labels[1] if len(labels) > 1 else (labels[0] if labels else None)
        return gr.update(choices=labels, value=a), gr.update(choices=labels, value=labels[0] if labels else None)

    def compare(self, run_a: Any, run_b: Any, regressions_only: Any = False) -> str:
        """A (baseline) vs B: chosen by label from the runs this server lists, never by a path from the browser."""
        if not run_a or not run_b:
            return '<p class="pc-empty">Choose two runs and press Compare.</p>'
        runs = self.runs()
        if run_a not in runs or run_b not in runs:
            raise gr.Error("Choose two runs from the lists (press Refresh after a new run).", print_exception=False)
        if run_a == run_b:
            raise gr.Error("Choose two different runs: A is the baseline, B the run to judge.", print_exception=False)
        from eval.compare import compare_runs

        da, db = runs[run_a], runs[run_b]
        key = (str(da), str(db), *((d / "results.jsonl").stat().st_mtime for d in (da, db)))
        if self._cmp_cache is None or self._cmp_cache[0] != key:
            cmp = compare_runs(da, db)
            cmp.update(a=run_a, b=run_b)
            self._cmp_cache = (key, cmp)
        return eval_compare.comparison_html(self._cmp_cache[1], bool(regressions_only))

    def export_feedback(self) -> tuple[Any, str]:
        from eval.datasets import feedback_to_questions, read_feedback

        if not self.feedback_path.is_file():
            raise gr.Error("No feedback yet: rate answers in the Chat tab first.", print_exception=False)
        with self.feedback_lock:
            records, bad = read_feedback(self.feedback_path)
        candidates = feedback_to_questions(records)
        if not candidates:
            raise gr.Error("No thumbs-down feedback yet: nothing to export.", print_exception=False)
        out = export_jsonl(candidates, "candidate-questions.jsonl")
        skipped = f" ({bad} unreadable line(s) skipped)" if bad else ""
        msg = (f"{len(candidates)} candidate question(s) from {len(records)} feedback record(s){skipped}. "
               "Fill in `gold`, then add them to eval/questions.jsonl.")
        return gr.update(value=str(out), visible=True), msg


def add_eval_tab(demo: gr.Blocks, handlers: Any) -> EvalTab:
    """Add the Evaluation tab (inside the caller's gr.Tabs) and wire its private events."""
    tab = EvalTab(handlers)
    private: dict[str, Any] = {"api_visibility": "private", "concurrency_limit": None}
    with gr.Tab("Evaluation", id="eval"):
        report_md = gr.Markdown("", elem_id="pc-eval-report")
        with gr.Row():
            images = [gr.Image(label=label, type="pil", format="png", interactive=False, visible=False,
                               buttons=["download", "fullscreen"], elem_id=f"pc-eval-{key}")
                      for key, label in zip(PLOT_KEYS, ("Retrieval by kind", "Citations and support by kind",
                                                        "Latency", "Abstention"))]
        gr.Markdown("### Run the bundled question set\nRuns in the background on this server with the indexed "
                    "corpus (one run at a time); the report above switches to the new run when it finishes.")
        with gr.Row(equal_height=True):
            model = gr.Dropdown(list(EVAL_MODELS), value="extractive", label="Model",
                                info="extractive is fast; local generates with the bundled model (slow)")
            size = gr.Radio(list(SIZES), value="first 20", label="Questions")
            run_btn = gr.Button("Run bundled evaluation", variant="primary", elem_id="pc-eval-run")
        status = gr.Markdown("", elem_id="pc-eval-status")
        timer = gr.Timer(1.0, active=False)
        gr.Markdown("### Compare two runs\nIs B really better than A? Paired differences with 95% confidence "
                    "intervals, and the questions whose outcome changed, with both answers and their cited abstracts.")
        with gr.Row(equal_height=True):
            run_a = gr.Dropdown([], label="A (baseline)", elem_id="pc-cmp-a", scale=3)
            run_b = gr.Dropdown([], label="B", elem_id="pc-cmp-b", scale=3)
            refresh = gr.Button("Refresh", scale=0, min_width=90, elem_id="pc-cmp-refresh")
            cmp_btn = gr.Button("Compare", variant="primary", scale=0, min_width=110, elem_id="pc-cmp-run")
        regressions = gr.Checkbox(False, label="Regressions only", elem_id="pc-cmp-regressions")
        cmp_html = gr.HTML("", elem_id="pc-cmp-view")
        gr.Markdown("### Feedback as candidate questions\nThumbs-down answers from the Chat tab, in the question "
                    "format (kind `feedback`, empty `gold` to fill in).")
        export_btn = gr.Button("Export thumbs-down feedback as candidate questions", elem_id="pc-eval-export")
        export_file = gr.File(label="Candidate questions", interactive=False, visible=False)
        export_msg = gr.Markdown("")

    run_btn.click(translate_errors(tab.start), [model, size], [status, timer], api_name="eval_start", **private)
    timer.tick(translate_errors(tab.poll), None, [status, timer, report_md, *images], api_name="eval_poll",
               show_progress="hidden", **private)
    export_btn.click(translate_errors(tab.export_feedback), None, [export_file, export_msg], api_name="eval_export",
                     **private)
    demo.load(translate_errors(tab.poll), None, [status, timer, report_md, *images], api_name="eval_report", **private)
    demo.load(translate_errors(tab.run_choices), None, [run_a, run_b], api_name="eval_runs", **private)
    refresh.click(translate_errors(tab.run_choices), None, [run_a, run_b], api_name="eval_runs_refresh", **private)
    gr.on([cmp_btn.click, regressions.change], translate_errors(tab.compare), [run_a, run_b, regressions], [cmp_html],
          api_name="eval_compare", **{**private, "concurrency_limit": 2})
    demo.paperchat_eval = tab
    return tab
