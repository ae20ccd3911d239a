"""The page's components: CSS, the header, the Chat tab and the Corpus tab (no events: `ui.app` wires them).

Each builder runs inside the caller's `gr.Blocks` / `gr.Tabs` and returns its components by name."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from assistant.settings import Settings

from . import render
from .corpus_handlers import UPLOAD_TYPES, year_label
from .exports import MAX_COMMENT_CHARS
from .handlers import MAX_AUTHOR_CHARS, MAX_FOLLOWUPS
from .panel import PANEL_JS
from .server_handlers import MAX_MODEL_NAME_CHARS

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
.pc-cmp { font-size: .9rem; }
.pc-cmp-table { border-collapse: collapse; margin: .4rem 0 .8rem 0; font-size: .85rem; }
.pc-cmp-table caption { text-align: left; font-weight: 600; }
.pc-cmp-table td, .pc-cmp-table th { padding: .15rem .5rem; border-bottom: 1px solid var(--border-color-primary); }
.pc-cmp-table td:not(:first-child) { text-align: right; }
.pc-cmp-table tr.pc-better td { background: rgba(22, 163, 74, .14); }
.pc-cmp-table tr.pc-worse td { background: rgba(220, 38, 38, .14); }
.pc-cmp-table tr.pc-noise td { opacity: .75; }
.pc-cmp-q { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: .5rem .7rem; margin: .6rem 0; }
.pc-cmp-q.pc-regressed { border-left: 4px solid #dc2626; }
.pc-cmp-q.pc-improved { border-left: 4px solid #16a34a; }
.pc-cmp-q h5 { margin: 0 0 .2rem 0; font-size: .9rem; }
.pc-cmp-cols { display: grid; grid-template-columns: 1fr 1fr; gap: .8rem; }
.pc-cmp-label { font-weight: 600; font-size: .8rem; }
.pc-outcome { padding: 0 .4rem; border-radius: 999px; border: 1px solid var(--border-color-primary); }
.pc-o-right { color: #15803d; } .pc-o-wrong, .pc-o-error { color: #b91c1c; } .pc-o-abstained { color: #a16207; }
.pc-cmp-answer a, .pc-cmp-cites a { margin: 0 !important; padding: 0 !important; }
.pc-cmp-cites { margin: .2rem 0; padding-left: 1.2rem; font-size: .85rem; }
.pc-cmp-kinds summary, .pc-cmp-evidence summary { cursor: pointer; font-size: .85rem; margin: .3rem 0; }
#pc-evidence { max-height: calc(100vh - 7rem); overflow-y: auto; overscroll-behavior: contain; }
#pc-focus { max-height: 14rem; overflow-y: auto; }
.pc-ans { display: none; } .pc-ans.pc-active { display: block; }
.pc-ans-q { font-size: .8rem; opacity: .8; margin: 0 0 .3rem 0; }
.pc-card.pc-flash { outline: 2px solid var(--color-accent); }
.pc-details { display: inline; font-size: .75rem; }
.pc-details[open] { display: block; margin-top: .2rem; }
.pc-details summary, .pc-more > summary, .pc-paper > summary { cursor: pointer; opacity: .85; }
.pc-details summary { display: inline; text-decoration: underline dotted; }
.pc-more > summary { font-weight: 600; margin: .3rem 0 .6rem 0; color: var(--color-accent); }
.pc-paper > summary { list-style: none; } .pc-paper > summary::before { content: "▸ "; opacity: .6; }
.pc-paper[open] > summary::before { content: "▾ "; }
.pc-paper .pc-abstract { font-size: .85rem; }
.pc-status { font-weight: 600; }
#pc-chat details.pc-more > summary { cursor: pointer; font-weight: 600; }
#pc-server-status p { margin: .2rem 0; font-size: .85rem; }
#pc-chat table td, #pc-chat table th { word-break: normal !important; overflow-wrap: normal !important;
                                        hyphens: auto; min-width: 5.5rem; vertical-align: top; }
"""




HEAD = PANEL_JS  # the page script that follows citation links inside the evidence panel


def header() -> None:
    with gr.Row(elem_id="pc-header"):
        gr.Markdown(
            "# paperchat\nAsk questions about the indexed paper abstracts. Every claim cites its "
            "abstract [n]; the evidence panel shows the exact supporting sentences."
        )


def chat_tab(settings: Settings, choices: list[str], facets: dict) -> SimpleNamespace:
    limit = settings.ui.max_question_chars
    with gr.Tab("Chat", id="chat"):  # noqa: SIM117 - the nesting mirrors the page layout
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
                with gr.Row(equal_height=True, elem_id="pc-qfilters"):  # filters the last question stated
                    qf_keep = gr.CheckboxGroup(choices=[], value=[], visible=False, scale=6, elem_id="pc-qf-keep",
                                               label="Filters taken from your question (untick to drop one)")
                    qf_again = gr.Button("Ask again", visible=False, size="sm", scale=0, min_width=100,
                                         elem_id="pc-qf-again")
                with gr.Row(equal_height=True):
                    question = gr.Textbox(
                        label="Your question", show_label=False,
                        placeholder=f"Ask a question (up to {limit:,} characters)",
                        lines=1, max_lines=6, max_length=limit, scale=10, elem_id="pc-question",
                        autofocus=True, container=False,
                    )
                    send = gr.Button("Send", variant="primary", scale=0, min_width=80, size="md", elem_id="pc-send")
                    stop = gr.Button("Stop", variant="stop", scale=0, min_width=80, size="md", elem_id="pc-stop",
                                     visible=False)  # shown only while an answer is being written
                    new = gr.Button("New chat", scale=0, min_width=110, size="md", elem_id="pc-new")
                with gr.Accordion("Settings", open=False, elem_id="pc-settings"):
                    with gr.Row():
                        model = gr.Dropdown(choices, value=choices[0], label="Chat model", elem_id="pc-model",
                                            info="extractive = quotes the abstracts, no generation; openai = "
                                                 "any OpenAI-compatible server", scale=2)
                        k = gr.Slider(1, 20, value=min(settings.retrieval.k, 20), step=1,
                                      label="Papers retrieved", scale=2)
                    with gr.Group(visible=choices[0] == "openai", elem_id="pc-server") as server_box:
                        with gr.Row(equal_height=True):
                            server_url = gr.Textbox(label="Server URL", value=settings.answer.openai_base_url,
                                                    max_length=300, scale=3, elem_id="pc-server-url",
                                                    info="e.g. http://127.0.0.1:8000/v1")
                            server_model = gr.Textbox(label="Model name", value=settings.answer.openai_model,
                                                      max_length=MAX_MODEL_NAME_CHARS, scale=3,
                                                      elem_id="pc-server-model")
                            check = gr.Button("Check server", scale=0, min_width=130, elem_id="pc-server-check")
                        key_var = settings.answer.openai_api_key_env or "(none)"
                        gr.Markdown(f"API key: read from the environment variable `{key_var}` of the paperchat "
                                    "process, sent only to the server the operator configured; never typed here.",
                                    elem_id="pc-server-key")
                        server_status = gr.Markdown("", elem_id="pc-server-status")
                    with gr.Row():
                        has_years = facets["year_min"] is not None or not facets["known"]
                        year_min = gr.Textbox(label=year_label("Year from", facets), placeholder="any",
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

    keep = (gr.components.Component, gr.blocks.BlockContext, list)
    return SimpleNamespace(**{k: v for k, v in locals().items() if isinstance(v, keep)})


def corpus_tab(settings: Settings) -> SimpleNamespace:
    limit = settings.ui.max_question_chars
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

    return SimpleNamespace(**{k: v for k, v in locals().items() if isinstance(v, gr.components.Component)})
