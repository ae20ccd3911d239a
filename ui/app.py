"""`build_app(assistant, settings)` -> gr.Blocks with every event wired; launching is `ui.launch`.

Tabs: **Chat** (streaming answer with linked [n] markers, Stop, New chat, clickable follow-ups,
feedback, export; right column: papers in focus + evidence panel) and **Corpus** (search, open an
abstract, add abstracts by upload).

State: one `UISession` per browser session (or gradio_client session) in a `gr.State`, holding the
Conversation, the chat messages and the answers behind them. Nothing mutable lives at module level;
the handlers are methods of a `Handlers` object created by `build_app`. The chat history shown in the
browser is never read back from the browser (the Chatbot is output-only), so a client cannot inject
messages or file references.

API: `/ask` (message -> answer Markdown with a Sources section; keeps the conversation of the client
session) and `/search` (corpus search) are public; every UI-internal event has an explicit api_name
and `api_visibility="private"` (which hides it from clients but is not access control).
Concurrency: every event that runs the chat model shares the concurrency id `chat-model` with limit 1
(one local-model generation at a time per process); ingest has its own id with limit 1.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import gradio as gr

from assistant.answer.conversation import Conversation
from assistant.answer.events import Done, Status, Token
from assistant.errors import AssistantError
from assistant.retrieve.hybrid import Filters
from assistant.settings import Settings
from assistant.types import Answer

from . import render

log = logging.getLogger("paperchat.ui")

UPLOAD_TYPES = (".jsonl", ".csv", ".bib", ".txt")
CHAT_CONCURRENCY_ID = "chat-model"
MAX_FOLLOWUPS = 3
MAX_COMMENT_CHARS = 2000
MAX_AUTHOR_CHARS = 200

CSS = """
#pc-header h1 { margin: 0 0 .2rem 0; font-size: 1.5rem; }
#pc-header p { margin: 0; opacity: .8; }
.pc-evidence { font-size: .92rem; line-height: 1.45; }
.pc-evidence .pc-h { font-size: 1rem; margin: .2rem 0 .6rem 0; }
.pc-card { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: .6rem .75rem;
           margin: 0 0 .7rem 0; background: var(--background-fill-secondary); scroll-margin-top: 1rem; }
.pc-card:target { outline: 2px solid var(--color-accent); }
.pc-card header { font-weight: 600; margin-bottom: .2rem; }
.pc-marker { color: var(--color-accent); font-weight: 700; }
.pc-meta { font-size: .8rem; opacity: .85; margin-bottom: .25rem; overflow-wrap: anywhere; }
.pc-scores { margin-bottom: .35rem; }
.pc-score { display: inline-block; font-size: .72rem; padding: 0 .4rem; margin: 0 .25rem .2rem 0;
            border-radius: 999px; border: 1px solid var(--border-color-primary); }
.pc-abstract { margin: .2rem 0 0 0; white-space: normal; overflow-wrap: anywhere; }
.pc-abstract mark { background: #fde68a; color: #111; padding: 0 .1rem; border-radius: 2px; }
.pc-unsupported { border-left: 3px solid #dc2626; padding-left: .6rem; margin: .6rem 0; }
.pc-unsupported h4, .pc-notes h4 { font-size: .85rem; margin: .2rem 0; }
.pc-unsupported s { color: #b91c1c; }
.pc-notes { font-size: .8rem; opacity: .85; }
.pc-empty { opacity: .7; font-style: italic; }
.pc-focus ol { margin: 0; padding-left: 1.3rem; font-size: .9rem; }
.pc-focus code, .pc-meta code, .pc-others code { font-size: .75rem; }
.pc-others { font-size: .85rem; margin-top: .5rem; }
#pc-followups button { font-size: .85rem; }
#pc-chat table { font-size: .85rem; }
#pc-chat table td, #pc-chat table th { word-break: normal !important; overflow-wrap: normal !important;
                                        hyphens: auto; min-width: 5.5rem; vertical-align: top; }
"""


# -- per-session state ---------------------------------------------------------------------------------
class UISession:
    """Everything one browser tab (or one gradio_client session) owns. Lives in a gr.State."""

    def __init__(self) -> None:
        self.conversation = Conversation()
        self.messages: list[dict[str, str]] = []  # what the Chatbot shows
        self.answers: dict[int, tuple[Answer, dict]] = {}  # chatbot message index -> (answer, options)
        self.last: tuple[Answer, dict] | None = None
        self.stop = threading.Event()

    def new_stop(self) -> threading.Event:
        self.stop = threading.Event()
        return self.stop

    def reset(self) -> None:
        """New chat: fresh objects, so a generation still running writes into the old ones only."""
        self.stop.set()
        self.conversation = Conversation()
        self.messages = []
        self.answers = {}
        self.last = None

    def __deepcopy__(self, memo: dict) -> "UISession":  # gr.State deep-copies its initial value
        new = UISession()
        new.conversation = copy.deepcopy(self.conversation, memo)
        new.messages = copy.deepcopy(self.messages, memo)
        new.answers = dict(self.answers)
        new.last = self.last
        return new


@dataclass(frozen=True)
class Options:
    model: str | None
    k: int
    filters: Filters = field(default_factory=Filters)

    def describe(self) -> dict:
        f = self.filters
        return {"model": self.model, "k": self.k,
                "filters": {"year_min": f.year_min, "year_max": f.year_max, "author": f.author}}


# -- helpers -------------------------------------------------------------------------------------------
def model_choices(settings: Settings, env: Mapping[str, str] | None = None) -> list[str]:
    """Chat models offered in the UI: the configured one, local, extractive, and openai only when the
    operator configured it (answer.model=openai, an API key variable, or PAPERCHAT_OPENAI_BASE_URL)."""
    env = os.environ if env is None else env
    out = [settings.answer.model, "local", "extractive"]
    if (
        settings.answer.model == "openai"
        or env.get(settings.answer.openai_api_key_env)
        or env.get("PAPERCHAT_OPENAI_BASE_URL")
    ):
        out.append("openai")
    return list(dict.fromkeys(m for m in out if m))


def corpus_facets(assistant: Any) -> dict:
    """Which metadata filters make sense for the indexed corpus: year range and whether authors exist."""
    years: list[int] = []
    authors = False
    records = getattr(getattr(assistant, "index", None), "all_records", None)
    if records is None:
        return {"year_min": None, "year_max": None, "authors": True, "known": False}
    try:
        for r in records():
            if r.year:
                years.append(r.year)
            authors = authors or bool(r.authors)
    except AssistantError:
        pass
    return {"year_min": min(years) if years else None, "year_max": max(years) if years else None,
            "authors": authors, "known": True}


def temp_root() -> Path:
    """Gradio's cache directory (GRADIO_TEMP_DIR, set to a dedicated directory by `ui.launch`)."""
    return Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio").resolve()


def _is_within(path: Path, parent: Path) -> bool:
    try:
        path.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False


def _int_or_none(value: Any, name: str, lo: int, hi: int) -> int | None:
    if isinstance(value, str):
        value = value.strip()
    if value is None or value == "":
        return None
    try:
        v = int(float(value))
    except (TypeError, ValueError):
        raise gr.Error(f"{name} must be a number.") from None
    if not lo <= v <= hi:
        raise gr.Error(f"{name} must be between {lo} and {hi}.")
    return v


def translate_errors(fn: Callable) -> Callable:
    """Wrap a (non-generator) handler: AssistantError -> gr.Error(message + hint, no paths);
    anything unexpected -> a generic gr.Error with a trace id, the traceback logged server-side."""

    @functools.wraps(fn)  # keeps the signature and type hints gradio reads (gr.Progress, gr.LikeData)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except AssistantError as e:
            raise gr.Error(render.safe_error_text(e.message, e.hint), print_exception=False) from None
        except Exception:  # noqa: BLE001 - the edge: log it, show a trace id, never a traceback
            raise unexpected_error() from None

    return wrapper


def unexpected_error() -> gr.Error:
    trace = uuid.uuid4().hex[:8]
    log.exception("unexpected error in the web UI [trace %s]", trace)
    return gr.Error(
        f"Something went wrong on the server (trace id {trace}). Try again; if it keeps happening, "
        "report the trace id.",
        print_exception=False,
    )


# -- handlers ------------------------------------------------------------------------------------------
class Handlers:
    """The event functions; one instance per app, holding only the assistant, settings and a lock."""

    def __init__(self, assistant: Any, settings: Settings, choices: list[str]) -> None:
        self.assistant = assistant
        self.settings = settings
        self.choices = choices
        self.feedback_path = Path(settings.store.data_dir) / "feedback.jsonl"
        self._feedback_lock = threading.Lock()

    # validation ------------------------------------------------------------------------------
    def check_question(self, message: Any, what: str = "question") -> str:
        """The text, stripped; refused (before any tokenisation) when empty or over ui.max_question_chars."""
        q = (message if isinstance(message, str) else "").replace("\x00", "").strip()
        limit = self.settings.ui.max_question_chars
        if len(q) > limit:
            raise gr.Error(
                f"Your {what} is {len(q):,} characters long; the limit is {limit:,}. Shorten it and try again.",
                title=f"{what.capitalize()} too long", print_exception=False,
            )
        if not q:
            raise gr.Error(f"Type a {what} first.", title=f"Empty {what}", print_exception=False)
        return q

    def options(self, model: Any = None, k: Any = None, year_min: Any = None, year_max: Any = None,
                author: Any = "") -> Options:
        model = model or self.choices[0]
        if model not in self.choices:
            raise gr.Error(f"Unknown chat model. Choose one of: {', '.join(self.choices)}.", print_exception=False)
        kk = _int_or_none(k, "Number of papers", 1, 50) or self.settings.retrieval.k
        y0 = _int_or_none(year_min, "Year from", 1000, 3000)
        y1 = _int_or_none(year_max, "Year to", 1000, 3000)
        if y0 and y1 and y0 > y1:
            raise gr.Error("'Year from' is after 'Year to'.", print_exception=False)
        a = (author if isinstance(author, str) else "").strip()[:MAX_AUTHOR_CHARS]
        return Options(model=model, k=kk, filters=Filters(year_min=y0, year_max=y1, author=a))

    # chat --------------------------------------------------------------------------------------
    def _outputs(self, session: UISession, *, question: Any = None, evidence: Any = None,
                 followups: list[str] | None = None) -> tuple:
        skip = gr.skip()
        fu: list[Any] = [skip] * MAX_FOLLOWUPS
        if followups is not None:
            fu = [gr.update(value=q, visible=True) if i < len(followups) else gr.update(visible=False)
                  for i, q in enumerate((followups + [""] * MAX_FOLLOWUPS)[:MAX_FOLLOWUPS])]
        focus = render.focus_html(session.conversation.focus, session.conversation.labels)
        return (
            [dict(m) for m in session.messages],
            skip if question is None else question,
            skip if evidence is None else evidence,
            focus,
            *fu,
            session,
        )

    def chat(self, message, session, model, k, year_min, year_max, author) -> Iterator[tuple]:
        """Stream one answer into the chat; the Stop button sets `session.stop`, which the model sees."""
        session = session if isinstance(session, UISession) else UISession()
        question = self.check_question(message)
        opts = self.options(model, k, year_min, year_max, author)
        conv, msgs = session.conversation, session.messages
        stop = session.new_stop()
        msgs.append({"role": "user", "content": render.question_markdown(question)})
        msgs.append({"role": "assistant", "content": render.progress_markdown("", "retrieving")})
        working = '<div class="pc-evidence"><p class="pc-empty">Collecting evidence…</p></div>'
        yield self._outputs(session, question="", evidence=working, followups=[])
        text, stage, answer = "", "retrieving", None
        last_yield = 0.0
        try:
            for ev in self.assistant.stream(question, conv, filters=opts.filters, k=opts.k, model=opts.model, stop=stop):
                if session.messages is not msgs:  # "New chat" was pressed: drop this answer
                    return
                if isinstance(ev, Status):
                    stage = ev.stage
                elif isinstance(ev, Token):
                    text += ev.text
                elif isinstance(ev, Done):
                    answer = ev.answer
                    break
                now = time.monotonic()
                if isinstance(ev, Status) or now - last_yield > 0.05:
                    msgs[-1]["content"] = render.progress_markdown(text, stage)
                    last_yield = now
                    yield self._outputs(session)
            if session.messages is not msgs:
                return
            if answer is None:
                raise AssistantError("The assistant stopped without an answer.", hint="Ask again.")
            msgs[-1]["content"] = render.answer_markdown(answer)
            session.answers[len(msgs) - 1] = (answer, opts.describe())
            session.last = (answer, opts.describe())
            yield self._outputs(session, evidence=render.evidence_html(answer))
            followups = self._followups(answer)
            if followups:
                yield self._outputs(session, followups=followups)
        except AssistantError as e:
            msgs[-1]["content"] = f"⚠ {render.safe_error_text(e.message, e.hint)}"
            yield self._outputs(session, evidence=render.evidence_html(None))
            raise gr.Error(render.safe_error_text(e.message, e.hint), print_exception=False) from None
        except Exception:  # noqa: BLE001
            err = unexpected_error()
            msgs[-1]["content"] = f"⚠ {err.message}"
            yield self._outputs(session, evidence=render.evidence_html(None))
            raise err from None
        finally:
            if answer is None:
                stop.set()  # closed tab / cancelled / failed: make sure generation stops

    def _followups(self, answer: Answer) -> list[str]:
        if answer.abstained or answer.incomplete:
            return []
        try:
            qs = self.assistant.suggest_followups(answer) or []
        except Exception:  # noqa: BLE001 - suggestions are optional; never fail the answer for them
            log.warning("suggest_followups failed", exc_info=True)
            return []
        limit = self.settings.ui.max_question_chars
        return [q.strip() for q in qs if isinstance(q, str) and q.strip() and len(q) <= limit][:MAX_FOLLOWUPS]

    def stop(self, session) -> None:
        if isinstance(session, UISession):
            session.stop.set()

    def new_chat(self, session) -> tuple:
        session = session if isinstance(session, UISession) else UISession()
        session.reset()
        return (*self._outputs(session, question="", evidence=render.evidence_html(None), followups=[]), "")

    def ask(self, message, session) -> tuple[str, UISession]:
        """API /ask: one answer (not streamed) as Markdown with Sources; keeps the client's conversation."""
        session = session if isinstance(session, UISession) else UISession()
        question = self.check_question(message)
        opts = self.options()
        stop = session.new_stop()
        answer = None
        try:
            for ev in self.assistant.stream(question, session.conversation, filters=opts.filters, k=opts.k,
                                            model=opts.model, stop=stop):
                if isinstance(ev, Done):
                    answer = ev.answer
        finally:
            if answer is None:
                stop.set()
        if answer is None:
            raise AssistantError("The assistant stopped without an answer.", hint="Ask again.")
        session.last = (answer, opts.describe())
        return render.answer_markdown(answer, links=False), session

    # feedback and export ---------------------------------------------------------------------------
    def _record_feedback(self, entry: tuple[Answer, dict], rating: str, comment: str) -> None:
        answer, opts = entry
        row = {
            "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
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
            "settings": {**opts, "retrieval": self.settings.retrieval.model_dump(),
                         "embedding_model": self.settings.embedding.model},
        }
        line = json.dumps(row, ensure_ascii=False, default=str) + "\n"
        with self._feedback_lock:
            self.feedback_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.feedback_path, "a", encoding="utf-8") as f:
                f.write(line)

    def feedback(self, rating: str, comment, session) -> tuple[str, str]:
        if not isinstance(session, UISession) or session.last is None:
            raise gr.Error("Ask a question first: feedback is about an answer.", print_exception=False)
        if rating not in ("up", "down"):
            raise gr.Error("Unknown rating.", print_exception=False)
        self._record_feedback(session.last, rating, comment if isinstance(comment, str) else "")
        return ("Thanks, your feedback was saved." + (" (with your comment)" if (comment or "").strip() else "")), ""

    def like(self, data: gr.LikeData, comment, session) -> str:
        if not isinstance(session, UISession):
            return ""
        index = data.index if isinstance(data.index, int) else (data.index[0] if data.index else -1)
        entry = session.answers.get(index)
        if entry is None or data.liked in (None, ""):
            return ""
        rating = "up" if data.liked is True or str(data.liked).lower() == "like" else "down"
        self._record_feedback(entry, rating, comment if isinstance(comment, str) else "")
        return "Thanks, your feedback was saved."

    def export(self, session) -> Any:
        """Write the current answer as Markdown and its sources as BibTeX into a fresh directory under
        GRADIO_TEMP_DIR; gradio serves them as downloads (only files it was handed are servable)."""
        if not isinstance(session, UISession) or session.last is None:
            raise gr.Error("Nothing to export yet: ask a question first.", print_exception=False)
        answer = session.last[0]
        records = self.assistant.index.records([c.paper_id for c in answer.citations]) if answer.citations else {}
        base = temp_root() / "paperchat-exports"
        _prune_old(base, max_age_s=24 * 3600)
        out = base / uuid.uuid4().hex
        out.mkdir(parents=True, exist_ok=True)
        name = f"answer-{render.answer_key(answer)}"
        md = out / f"{name}.md"
        md.write_text(render.export_markdown(answer, records), encoding="utf-8")
        files = [str(md)]
        if answer.citations:
            bib = out / f"{name}.bib"
            bib.write_text(render.bibtex(answer, records), encoding="utf-8")
            files.append(str(bib))
        return gr.update(value=files, visible=True)

    # corpus ----------------------------------------------------------------------------------------
    def stats(self) -> str:
        s = self.assistant.index.stats()
        return f"**{s.get('papers', 0):,}** abstracts indexed ({s.get('chunks', 0):,} chunks, embeddings: {render.md_escape(s.get('embedding_model', ''))})."

    def search(self, query, k, year_min, year_max, author) -> list[list]:
        q = self.check_question(query, "search")
        opts = self.options(None, k, year_min, year_max, author)
        hits = self.assistant.retriever.search(q, k=opts.k, filters=opts.filters)
        if not hits:
            gr.Info("No matching abstracts" + (" (check the filters)." if opts.filters.active() else "."))
        return render.search_rows(hits)

    def open_selected(self, evt: gr.SelectData) -> tuple[str, str]:
        row = evt.row_value if isinstance(evt.row_value, list) else []
        pid = str(row[4]) if len(row) > 4 else ""
        return self.open_abstract(pid)[0], pid

    def open_abstract(self, paper_id) -> tuple[str]:
        pid = (paper_id if isinstance(paper_id, str) else "").strip()[:300]
        if not pid:
            raise gr.Error("Give a paper id (it is shown in search results and in the evidence panel).", print_exception=False)
        rec = self.assistant.index.records([pid]).get(pid)
        return (render.abstract_html(rec, pid),)

    def add_files(self, files, progress=gr.Progress()) -> tuple[str, Any, str, Any, Any, Any]:
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
                    outcomes.append(render.FileOutcome(name, error="not accepted: upload .jsonl, .csv, .bib or .txt files."))
                    continue
                size = path.stat().st_size if path.is_file() else -1
                if size < 0:
                    outcomes.append(render.FileOutcome(name, error="the upload did not arrive; try again."))
                    continue
                if size > limit:
                    outcomes.append(render.FileOutcome(name, error=f"larger than the {self.settings.ui.max_upload_mb} MB limit."))
                    continue
                total = _estimate_records(path)
                done = [0]

                def tick(n: int, _name=name, _total=total, _done=done, _i=i) -> None:
                    _done[0] += n
                    progress((_done[0], _total), desc=f"Indexing {_name} ({_i + 1}/{len(paths)})", unit="abstracts")

                progress((0, total), desc=f"Indexing {name} ({i + 1}/{len(paths)})", unit="abstracts")
                try:
                    report = self.assistant.ingest([path], tick)
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
                if _is_within(p, root) and p.is_file():
                    p.unlink(missing_ok=True)
        facets = corpus_facets(self.assistant)
        return (render.ingest_markdown(outcomes), None, self.stats(), *_filter_updates(facets))


def _estimate_records(path: Path) -> int | None:
    try:
        with open(path, "rb") as f:
            if path.suffix.lower() == ".bib":
                return sum(1 for line in f if line.lstrip().startswith(b"@")) or None
            n = sum(1 for line in f if line.strip())
            return max(n - 1, 1) if path.suffix.lower() == ".csv" else (n or None)
    except OSError:
        return None


def _prune_old(base: Path, max_age_s: float) -> None:
    if not base.is_dir():
        return
    cutoff = time.time() - max_age_s
    for d in base.iterdir():
        try:
            if d.is_dir() and d.stat().st_mtime < cutoff:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass


def _year_label(label: str, facets: dict) -> str:
    if facets.get("year_min") is None:
        return label
    return f"{label} (corpus: {facets['year_min']}–{facets['year_max']})"


def _filter_updates(facets: dict) -> tuple[Any, Any, Any]:
    has_years = facets.get("year_min") is not None or not facets.get("known")
    return (
        gr.update(visible=has_years, label=_year_label("Year from", facets)),
        gr.update(visible=has_years),
        gr.update(visible=bool(facets.get("authors"))),
    )


# -- the app -------------------------------------------------------------------------------------------
def build_app(assistant: Any, settings: Settings, *, env: Mapping[str, str] | None = None) -> gr.Blocks:
    """The Blocks app over `assistant` (the public Assistant API). Not launched and not queued:
    `ui.launch.launch(app, settings)` does both with safe defaults."""
    choices = model_choices(settings, env)
    h = Handlers(assistant, settings, choices)
    facets = corpus_facets(assistant)
    limit = settings.ui.max_question_chars
    private: dict[str, Any] = {"api_visibility": "private"}
    chat_conc = {"concurrency_id": CHAT_CONCURRENCY_ID, "concurrency_limit": 1}

    with gr.Blocks(title="paperchat", analytics_enabled=False, delete_cache=(3600, 24 * 3600), fill_width=True) as demo:
        session = gr.State(UISession())  # an instance: deep-copied per session, no load event
        with gr.Row(elem_id="pc-header"):
            gr.Markdown(
                "# paperchat\nAsk questions about the indexed paper abstracts. Every claim cites its "
                "abstract [n]; the evidence panel shows the exact supporting sentences."
            )
        with gr.Tabs():
            with gr.Tab("Chat", id="chat"):
                with gr.Row(equal_height=False):
                    with gr.Column(scale=3, min_width=420):
                        chatbot = gr.Chatbot(
                            label="Conversation", elem_id="pc-chat", height=540, sanitize_html=True,
                            allow_tags=False, render_markdown=True, buttons=["copy"], autoscroll=True,
                            placeholder="Ask, for example: *Which papers study federated learning?*",
                            allow_file_downloads=False,
                        )
                        with gr.Row(elem_id="pc-followups"):
                            fu_btns = [gr.Button("", visible=False, size="sm", elem_classes=["pc-followup"])
                                       for _ in range(MAX_FOLLOWUPS)]
                        with gr.Row(equal_height=True):
                            question = gr.Textbox(
                                show_label=False, placeholder=f"Ask a question (up to {limit:,} characters)",
                                lines=1, max_lines=6, max_length=limit, scale=10, elem_id="pc-question",
                                autofocus=True, container=False,
                            )
                            send = gr.Button("Send", variant="primary", scale=0, min_width=80, size="md", elem_id="pc-send")
                            stop = gr.Button("Stop", variant="stop", scale=0, min_width=80, size="md", elem_id="pc-stop")
                            new = gr.Button("New chat", scale=0, min_width=110, size="md", elem_id="pc-new")
                        with gr.Accordion("Settings", open=False, elem_id="pc-settings"):
                            with gr.Row():
                                model = gr.Dropdown(choices, value=choices[0], label="Chat model",
                                                    info="extractive = quotes the abstracts, no generation", scale=2)
                                k = gr.Slider(1, 20, value=min(settings.retrieval.k, 20), step=1,
                                              label="Papers retrieved", scale=2)
                            with gr.Row():
                                has_years = facets["year_min"] is not None or not facets["known"]
                                year_min = gr.Textbox(label=_year_label("Year from", facets), placeholder="any",
                                                      max_length=4, visible=has_years, elem_id="pc-year-min")
                                year_max = gr.Textbox(label="Year to", placeholder="any", max_length=4,
                                                      visible=has_years, elem_id="pc-year-max")
                                author = gr.Textbox(label="Author contains", max_length=MAX_AUTHOR_CHARS,
                                                    visible=bool(facets["authors"]))
                        with gr.Accordion("Feedback and export", open=False, elem_id="pc-feedback"):
                            gr.Markdown("Was the current answer helpful? Feedback is stored locally with the "
                                        "question, answer, citations and settings.")
                            with gr.Row(equal_height=True):
                                comment = gr.Textbox(show_label=False, placeholder="Comment (optional)",
                                                     max_length=MAX_COMMENT_CHARS, scale=6, container=False,
                                                     elem_id="pc-comment")
                                up = gr.Button("Helpful", scale=0, min_width=100, size="md", elem_id="pc-up")
                                down = gr.Button("Not helpful", scale=0, min_width=120, size="md", elem_id="pc-down")
                            feedback_msg = gr.Markdown("")
                            with gr.Row():
                                export_btn = gr.Button("Export answer (.md + .bib)", scale=0, min_width=260,
                                                       size="md", elem_id="pc-export")
                            export_files = gr.File(label="Downloads", file_count="multiple", interactive=False,
                                                   visible=False, elem_id="pc-export-files")
                    with gr.Column(scale=2, min_width=320, elem_id="pc-evidence-col"):
                        gr.Markdown("### Papers in focus")
                        focus = gr.HTML(render.focus_html([]), elem_id="pc-focus")
                        gr.Markdown("### Evidence")
                        evidence = gr.HTML(render.evidence_html(None), elem_id="pc-evidence")

            with gr.Tab("Corpus", id="corpus"):
                stats_md = gr.Markdown("")
                with gr.Row(equal_height=True):
                    search_q = gr.Textbox(show_label=False, placeholder="Search the abstracts", scale=5,
                                          max_length=limit, container=False, elem_id="pc-search")
                    search_btn = gr.Button("Search", variant="primary", scale=1, min_width=80)
                results = gr.Dataframe(headers=list(render.SEARCH_HEADERS), value=[], interactive=False, wrap=True,
                                       label="Results (click a row to open the abstract)", max_height=360,
                                       elem_id="pc-results")
                with gr.Row(equal_height=True):
                    open_id = gr.Textbox(show_label=False, placeholder="Open an abstract by paper id", max_length=300,
                                         scale=5, container=False, elem_id="pc-open-id")
                    open_btn = gr.Button("Open", scale=1, min_width=80)
                abstract = gr.HTML("", elem_id="pc-abstract")
                gr.Markdown(
                    f"### Add abstracts\nUpload .jsonl, .csv, .bib or .txt files (up to "
                    f"{settings.ui.max_upload_mb} MB each). Bad records are listed and skipped; nothing "
                    "already indexed is removed."
                )
                files = gr.File(file_count="multiple", file_types=list(UPLOAD_TYPES), type="filepath",
                                label="Files to add", height=120, elem_id="pc-upload")
                add_btn = gr.Button("Add to corpus", variant="primary")
                ingest_report = gr.Markdown("")

            from .eval_tab import add_eval_tab  # here, not at the top: ui.eval_tab imports ui.app

            add_eval_tab(demo, h)  # the Evaluation tab; its state is demo.paperchat_eval

        # API-only: /ask (hidden components, never shown)
        api_question = gr.Textbox(visible=False, max_length=limit)
        api_answer = gr.Textbox(visible=False)
        api_trigger = gr.Button(visible=False)

        chat_inputs = [question, session, model, k, year_min, year_max, author]
        chat_outputs = [chatbot, question, evidence, focus, *fu_btns, session]
        chat_fn = h.chat  # a generator: it translates its own errors (it must yield before raising)
        gr.on([question.submit, send.click], chat_fn, chat_inputs, chat_outputs,
              api_name="chat_stream", show_progress="minimal", **chat_conc, **private)
        for i, btn in enumerate(fu_btns):  # a suggested follow-up is asked by clicking it
            btn.click(chat_fn, [btn, *chat_inputs[1:]], chat_outputs, api_name=f"followup_{i + 1}",
                      show_progress="minimal", **chat_conc, **private)
        # Stop sets the running answer's threading.Event (not `cancels=`): the model stops producing
        # tokens and the answer still arrives, verified and marked incomplete
        stop.click(h.stop, [session], None, api_name="stop", queue=False, **private)
        new.click(translate_errors(h.new_chat), [session], [*chat_outputs, feedback_msg],
                  api_name="new_chat", queue=False, **private)
        chatbot.clear(translate_errors(h.new_chat), [session], [*chat_outputs, feedback_msg],  # the trash icon
                      api_name="clear_chat", queue=False, **private)
        api_trigger.click(translate_errors(h.ask), [api_question, session], [api_answer, session],
                          api_name="ask", **chat_conc)

        up.click(translate_errors(lambda c, s: h.feedback("up", c, s)), [comment, session], [feedback_msg, comment],
                 api_name="feedback_up", concurrency_limit=None, **private)
        down.click(translate_errors(lambda c, s: h.feedback("down", c, s)), [comment, session], [feedback_msg, comment],
                   api_name="feedback_down", concurrency_limit=None, **private)
        chatbot.like(translate_errors(h.like), [comment, session], [feedback_msg], api_name="feedback_like",
                     concurrency_limit=None, **private)
        export_btn.click(translate_errors(h.export), [session], [export_files], api_name="export",
                         concurrency_limit=4, **private)

        search_inputs = [search_q, k, year_min, year_max, author]
        gr.on([search_q.submit, search_btn.click], translate_errors(h.search), search_inputs, [results],
              api_name="search", concurrency_limit=4)
        results.select(translate_errors(h.open_selected), None, [abstract, open_id], api_name="open_selected",
                       concurrency_limit=4, **private)
        gr.on([open_id.submit, open_btn.click], translate_errors(h.open_abstract), [open_id], [abstract],
              api_name="open_abstract", concurrency_limit=4, **private)
        add_btn.click(translate_errors(h.add_files), [files], [ingest_report, files, stats_md, year_min, year_max, author],
                      api_name="add_files", concurrency_id="ingest", concurrency_limit=1, **private)
        demo.load(translate_errors(h.stats), None, [stats_md], api_name="stats", concurrency_limit=None, **private)

    demo.paperchat_handlers = h  # tests reach the handlers through the app, not through module state
    return demo
