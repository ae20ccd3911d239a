"""`build_app(assistant, settings)` -> gr.Blocks with every event wired; launching is `ui.launch`.

Tabs: **Chat** (streaming answer with linked [n] markers, Stop while an answer runs, New chat,
clickable follow-ups, feedback, export, the chat model and its server; right column: papers in focus +
the evidence panel of every answer), **Corpus** (search, open an
abstract, add abstracts by upload) and **Evaluation** (ui/eval_tab.py).

Modules: `layout` (CSS and components), `handlers` + `corpus_handlers` + `server_handlers` (event
functions; the last for the OpenAI-compatible server settings), `session` (per-session state),
`render` + `cards` + `corpus_render` + `panel` (pure Markdown/HTML; `panel` also holds the page script
that follows citation links inside the evidence panel), `errors` (the error edge), `exports` (downloads
and feedback rows); this module only builds the page and wires the events. The UI reaches the papers through
`assistant.corpus`.

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

from collections.abc import Mapping
from typing import Any

import gradio as gr

from assistant.settings import Settings

from . import layout
from .corpus_handlers import corpus_facets
from .errors import translate_errors
from .eval_tab import add_eval_tab
from .handlers import Handlers
from .layout import CSS, HEAD
from .session import UISession, model_choices

__all__ = ["CHAT_CONCURRENCY_ID", "CSS", "HEAD", "Handlers", "UISession", "build_app", "model_choices"]

CHAT_CONCURRENCY_ID = "chat-model"
STORE_CHECK_S = 10  # how often an open page asks whether the records store is still whole


def _hide() -> Any:
    """Stop is shown only while an answer runs: hidden after every chat event, however it ended."""
    return gr.update(visible=False)


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
        layout.header()
        banner = gr.Markdown(visible=False, elem_id="store-banner")  # a damaged records store, with its fix
        with gr.Tabs():
            c = layout.chat_tab(settings, choices, facets)
            p = layout.corpus_tab(settings)
            add_eval_tab(demo, h)  # the Evaluation tab; its state is demo.paperchat_eval

        # API-only: /ask (hidden components, never shown)
        api_question = gr.Textbox(visible=False, max_length=limit)
        api_answer = gr.Textbox(visible=False)
        api_trigger = gr.Button(visible=False)

        chat_inputs = [c.question, session, c.model, c.k, c.year_min, c.year_max, c.author, c.server_url,
                       c.server_model]
        chat_outputs = [c.chatbot, c.question, c.evidence, c.focus, *c.fu_btns, session, c.qf_keep, c.qf_again,
                        c.stop]
        chat_fn = h.chat  # a generator: it translates its own errors (it must yield before raising)
        # an empty question is refused by the validator, before the queue: one message, nothing else moves
        gr.on([c.question.submit, c.send.click], chat_fn, chat_inputs, chat_outputs, validator=h.validate_chat,
              api_name="chat_stream", show_progress="minimal", **chat_conc, **private
              ).then(_hide, None, [c.stop], queue=False, api_name="chat_done", **private)  # whatever happened
        c.model.change(lambda m: gr.update(visible=m == "openai"), [c.model], [c.server_box], queue=False,
                       api_name="model_choice", **private)
        c.check.click(translate_errors(h.check_server), [c.server_url, c.server_model], [c.server_status],
                      api_name="check_server", concurrency_limit=2, **private)
        for i, btn in enumerate(c.fu_btns):  # a suggested follow-up is asked by clicking it
            btn.click(chat_fn, [btn, *chat_inputs[1:]], chat_outputs, api_name=f"followup_{i + 1}",
                      show_progress="minimal", **chat_conc, **private
                      ).then(_hide, None, [c.stop], queue=False, api_name=f"followup_{i + 1}_done", **private)
        # "Ask again": the last question without the filters it stated that the user unticked
        c.qf_again.click(h.ask_again, [c.qf_keep, *chat_inputs[1:]], chat_outputs, api_name="ask_again",
                         show_progress="minimal", **chat_conc, **private
                         ).then(_hide, None, [c.stop], queue=False, api_name=f"followup_{i + 1}_done", **private)
        # Stop sets the running answer's threading.Event (not `cancels=`): the model stops producing
        # tokens and the answer still arrives, verified and marked incomplete
        c.stop.click(h.stop, [session], None, api_name="stop", queue=False, **private)
        c.new.click(translate_errors(h.new_chat), [session], [*chat_outputs, c.feedback_msg],
                  api_name="new_chat", queue=False, **private)
        c.chatbot.clear(translate_errors(h.new_chat), [session], [*chat_outputs, c.feedback_msg],  # the trash icon
                      api_name="clear_chat", queue=False, **private)
        api_trigger.click(translate_errors(h.ask), [api_question, session], [api_answer, session],
                          api_name="ask", **chat_conc)

        c.up.click(translate_errors(lambda text, s: h.feedback("up", text, s)), [c.comment, session],
                   [c.feedback_msg, c.comment], api_name="feedback_up", concurrency_limit=None, **private)
        c.down.click(translate_errors(lambda text, s: h.feedback("down", text, s)), [c.comment, session],
                     [c.feedback_msg, c.comment], api_name="feedback_down", concurrency_limit=None, **private)
        c.chatbot.like(translate_errors(h.like), [c.comment, session], [c.feedback_msg], api_name="feedback_like",
                     concurrency_limit=None, **private)
        c.export_btn.click(translate_errors(h.export), [session], [c.export_files], api_name="export",
                         concurrency_limit=4, **private)

        search_inputs = [p.search_q, c.k, c.year_min, c.year_max, c.author]
        gr.on([p.search_q.submit, p.search_btn.click], translate_errors(h.search), search_inputs, [p.results],
              api_name="search", concurrency_limit=4)
        p.results.select(translate_errors(h.open_selected), None, [p.abstract, p.open_id], api_name="open_selected",
                       concurrency_limit=4, **private)
        gr.on([p.open_id.submit, p.open_btn.click], translate_errors(h.open_abstract), [p.open_id], [p.abstract],
              api_name="open_abstract", concurrency_limit=4, **private)
        p.add_btn.click(translate_errors(h.add_files), [p.files],
                        [p.ingest_report, p.files, p.stats_md, c.year_min, c.year_max, c.author],
                        api_name="add_files", concurrency_id="ingest", concurrency_limit=1, **private
                        ).then(h.store_banner, None, [banner], api_name="store_banner_after_upload", queue=False,
                               **private)
        demo.load(h.store_banner, None, [banner], api_name="store_banner", concurrency_limit=None, **private)
        gr.Timer(STORE_CHECK_S).tick(h.store_banner, None, [banner], api_name="store_banner_tick", queue=False,
                                     **private)
        demo.load(translate_errors(h.stats), None, [p.stats_md], api_name="stats", concurrency_limit=None, **private)

    demo.paperchat_handlers = h  # tests reach the handlers through the app, not through module state
    return demo
