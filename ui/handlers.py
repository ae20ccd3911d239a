"""The Chat tab's event functions (`Handlers`, one instance per app; the Corpus tab's come from
`ui.corpus_handlers.CorpusHandlers`). They hold only the assistant, the settings and the feedback lock;
per-session state is the `UISession` gradio hands in."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import gradio as gr

from assistant.answer.events import Done, Status, Token
from assistant.errors import AssistantError
from assistant.retrieve.hybrid import Filters
from assistant.settings import Settings
from assistant.types import Answer
from assistant.user_text import UserTextError, clean_user_text

from . import exports, render
from .corpus_handlers import CorpusHandlers
from .errors import unexpected_error
from .panel import panel_html
from .server_handlers import ServerHandlers, is_loopback
from .session import Options, UISession

log = logging.getLogger("paperchat.ui")

MAX_FOLLOWUPS = 3
MAX_AUTHOR_CHARS = 200


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



class Handlers(CorpusHandlers, ServerHandlers):
    """The event functions; one instance per app, holding only the assistant, settings and a lock."""

    def __init__(self, assistant: Any, settings: Settings, choices: list[str]) -> None:
        self.assistant = assistant
        self.settings = settings
        self.choices = choices
        self.server_url_editable = is_loopback(settings.ui.host)  # `ui.launch` sets it from the real host
        self.feedback_path = Path(settings.store.data_dir) / "feedback.jsonl"
        self._feedback_lock = threading.Lock()

    # validation ------------------------------------------------------------------------------
    def check_question(self, message: Any, what: str = "question") -> str:
        """The text through the one door for user text (assistant.user_text): refused, before any
        tokenisation, when empty, over ui.max_question_chars, or holding a broken character."""
        limit = self.settings.ui.max_question_chars
        if not isinstance(message, str) or not message.strip():
            raise gr.Error(f"Type a {what} first.", title=f"Empty {what}", print_exception=False)
        try:
            return clean_user_text(message, what=what, max_chars=limit)
        except UserTextError as e:
            too_long = "characters long" in e.message
            text = (f"Your {what} is {len(message.strip()):,} characters long; the limit is {limit:,}. Shorten it and "
                    "try again.") if too_long else f"{e.message} Re-type it and try again."
            title = f"{what.capitalize()} too long" if too_long else f"Broken character in the {what}"
            raise gr.Error(text, title=title, print_exception=False) from None

    def options(self, model: Any = None, k: Any = None, year_min: Any = None, year_max: Any = None,
                author: Any = "", server_url: Any = None, server_model: Any = None) -> Options:
        model = model or self.choices[0]
        if model not in self.choices:
            raise gr.Error(f"Unknown chat model. Choose one of: {', '.join(self.choices)}.", print_exception=False)
        url, name = "", ""
        if model == "openai":
            url, name = self.server_choice(server_url, server_model)
        kk = _int_or_none(k, "Number of papers", 1, 50) or self.settings.retrieval.k
        y0 = _int_or_none(year_min, "Year from", 1000, 3000)
        y1 = _int_or_none(year_max, "Year to", 1000, 3000)
        if y0 and y1 and y0 > y1:
            raise gr.Error("'Year from' is after 'Year to'.", print_exception=False)
        try:
            a = clean_user_text(author if isinstance(author, str) else "", what="author filter", max_chars=None,
                                allow_empty=True)[:MAX_AUTHOR_CHARS]
        except UserTextError as e:
            raise gr.Error(f"{e.message} Re-type it.", print_exception=False) from None
        return Options(model=model, k=kk, filters=Filters(year_min=y0, year_max=y1, author=a),
                       server_url=url, server_model=name)

    # chat --------------------------------------------------------------------------------------
    def _outputs(self, session: UISession, *, question: Any = None, evidence: Any = None,
                 followups: list[str] | None = None, qfilters: list[tuple[str, str]] | None = None,
                 running: bool | None = None) -> tuple:
        skip = gr.skip()
        qf: list[Any] = [skip, skip]
        if qfilters is not None:  # the checkboxes of the filters the last question stated, all ticked
            qf = [gr.update(choices=qfilters, value=[k for _, k in qfilters], visible=bool(qfilters)),
                  gr.update(visible=bool(qfilters))]
        fu: list[Any] = [skip] * MAX_FOLLOWUPS
        if followups is not None:
            fu = [gr.update(value=q, visible=True) if i < len(followups) else gr.update(visible=False)
                  for i, q in enumerate((followups + [""] * MAX_FOLLOWUPS)[:MAX_FOLLOWUPS])]
        focus_ids = session.conversation.focus
        focus = render.focus_html(focus_ids, session.conversation.labels, records=self._records(focus_ids[:8]))
        return (
            [dict(m) for m in session.messages],
            skip if question is None else question,
            skip if evidence is None else evidence,
            focus,
            *fu,
            session,
            *qf,
            skip if running is None else gr.update(visible=running),
        )

    def _records(self, paper_ids) -> dict:
        """Records of the papers in focus, so each opens its abstract (none if the corpus cannot say)."""
        papers = getattr(getattr(self.assistant, "corpus", None), "papers", None)
        if not paper_ids or papers is None:
            return {}
        try:
            return papers(list(paper_ids))
        except AssistantError:
            return {}

    def ask_again(self, keep, session, model, k, year_min, year_max, author, server_url=None,
                  server_model=None) -> Iterator[tuple]:
        """Re-ask the last question without the filters it stated that were unticked in `keep`."""
        if not isinstance(session, UISession) or session.last is None:
            raise gr.Error("Ask a question first.", print_exception=False)
        answer = session.last[0]
        stated = {kind for _, kind in render.question_filter_choices(answer)}
        keep = {x for x in (keep or []) if isinstance(x, str)}
        yield from self.chat(answer.question, session, model, k, year_min, year_max, author, server_url,
                             server_model, ignore=frozenset(stated - keep))

    def validate_chat(self, message, *_inputs) -> list:
        """Runs before `chat` (gradio `validator`): an empty or over-long question is one message at
        the question box, and the chat is not touched (no error badges on every output)."""
        q = (message if isinstance(message, str) else "").replace("\x00", "").strip()
        limit = self.settings.ui.max_question_chars
        if not q:
            msg = "Type a question first."
        elif len(q) > limit:
            msg = f"Your question is {len(q):,} characters long; the limit is {limit:,}. Shorten it and try again."
        else:
            msg = ""
        return [gr.validate(not msg, msg)] + [gr.validate(True, "")] * len(_inputs)

    def chat(self, message, session, model, k, year_min, year_max, author, server_url=None, server_model=None,
             ignore: frozenset[str] = frozenset()) -> Iterator[tuple]:
        """Stream one answer into the chat; the Stop button sets `session.stop`, which the model sees.
        `server_url`/`server_model`: the OpenAI-compatible server for model 'openai' (the UI's settings).
        `ignore`: kinds of filter stated in the question not to apply (see `ask_again`)."""
        session = session if isinstance(session, UISession) else UISession()
        question = self.check_question(message)
        opts = self.options(model, k, year_min, year_max, author, server_url, server_model)
        if ignore:
            opts = replace(opts, filters=replace(opts.filters, ignore_from_question=frozenset(ignore)))
        conv, msgs = session.conversation, session.messages
        stop = session.new_stop()
        msgs.append({"role": "user", "content": render.question_markdown(question)})
        msgs.append({"role": "assistant", "content": render.progress_markdown("", "retrieving")})
        answer_id = session.answer_id()
        yield self._outputs(session, question="", evidence=panel_html(session.shown_answers(), working=True),
                            followups=[], running=True)
        text, stage, answer = "", "retrieving", None
        last_yield = 0.0
        try:
            for ev in self.assistant.stream(question, conv, filters=opts.filters, k=opts.k, model=opts.model,
                                            stop=stop, id=answer_id, **opts.stream_kwargs()):
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
            msgs[-1]["content"] = render.answer_markdown(answer, draft=text)
            session.answers[len(msgs) - 1] = (answer, opts.describe())
            session.last = (answer, opts.describe())
            yield self._outputs(session, evidence=panel_html(session.shown_answers()),
                                qfilters=render.question_filter_choices(answer))  # Stop goes when the event ends
            followups = self._followups(answer, session.conversation)
            if followups:
                yield self._outputs(session, followups=followups)
        except AssistantError as e:
            msgs[-1]["content"] = f"⚠ {render.safe_error_text(e.message, e.hint)}"
            yield self._outputs(session, evidence=panel_html(session.shown_answers()), running=False)
            raise gr.Error(render.safe_error_text(e.message, e.hint), print_exception=False) from None
        except Exception:  # noqa: BLE001
            err = unexpected_error()
            msgs[-1]["content"] = f"⚠ {err.message}"
            yield self._outputs(session, evidence=panel_html(session.shown_answers()), running=False)
            raise err from None
        finally:
            if answer is None:
                stop.set()  # closed tab / cancelled / failed: make sure generation stops

    def _followups(self, answer: Answer, conversation=None) -> list[str]:
        """Suggested follow-ups, each one the corpus can answer (checked by the assistant)."""
        if answer.abstained or answer.incomplete:
            return []
        try:
            qs = self.assistant.suggest_followups(answer, conversation) or []
        except Exception:  # suggestions are optional; never fail the answer for them
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
        return (*self._outputs(session, question="", evidence=panel_html([]), followups=[], qfilters=[],
                               running=False), "")

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
        exports.append_feedback(self.feedback_path, self._feedback_lock,
                                exports.feedback_row(answer, opts, rating, comment, self.settings))

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
        records = self.assistant.corpus.papers([c.paper_id for c in answer.citations]) if answer.citations else {}
        return gr.update(value=exports.export_answer(answer, records), visible=True)
