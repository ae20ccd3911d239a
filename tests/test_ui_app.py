"""ui.app / ui.launch / `paperchat ui` without a server: the Blocks build, the handlers, the guards."""

from __future__ import annotations

import json
import threading
import time
import types
from pathlib import Path

import gradio as gr
import pytest
from conftest import PAPERS
from ui_helpers import echo_first_source, make_assistant

from assistant.answer.models.fake import FakeChatModel
from assistant.cli import build_parser
from assistant.corpus import Facets
from assistant.errors import AssistantError, ConfigError
from ui import app as ui_app
from ui import launch as ui_launch
from ui import render

QUESTION = "How does FedMerge personalise federated learning?"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    a, s = make_assistant(tmp_path_factory.mktemp("ui-app"), list(PAPERS))
    app = ui_app.build_app(a, s, env={})
    return a, s, app, app.paperchat_handlers


def run_chat(h, session, message=QUESTION, **kw):
    args = {"model": h.choices[0], "k": 5, "year_min": None, "year_max": None, "author": ""} | kw
    return list(h.chat(message, session, args["model"], args["k"], args["year_min"], args["year_max"], args["author"]))


# -- the Blocks ---------------------------------------------------------------------------------------
def test_build_app_without_launching(built):
    _, _, app, _ = built
    assert isinstance(app, gr.Blocks)
    assert not getattr(app, "is_running", False)
    info = app.get_api_info()
    assert sorted(info["named_endpoints"]) == ["/ask", "/search"]  # everything else is private
    names = [d.api_name for d in app.fns.values()]
    assert all(isinstance(n, str) and n and n != "unnamed" for n in names)
    assert len(set(names)) == len(names)
    chat = [d for d in app.fns.values()
            if d.api_name in ("chat_stream", "followup_1", "followup_2", "followup_3", "ask")]
    assert len(chat) == 5 and {d.concurrency_id for d in chat} == {ui_app.CHAT_CONCURRENCY_ID}
    assert {d.concurrency_limit for d in chat} == {1}
    private = {d.api_name: d.api_visibility for d in app.fns.values()}
    assert private["chat_stream"] == private["add_files"] == private["stop"] == "private"


def test_no_mutable_state_at_module_level():
    for mod in (ui_app, render, ui_launch):
        for name, value in vars(mod).items():
            if name.startswith("__") or isinstance(value, types.ModuleType):
                continue
            assert not isinstance(value, (list, dict, set, bytearray)), f"{mod.__name__}.{name} is mutable"


def test_session_state_is_deep_copied_fresh():
    import copy

    s = ui_app.UISession()
    s.messages.append({"role": "user", "content": "x"})
    c = copy.deepcopy(s)
    assert c.messages == s.messages and c.messages is not s.messages
    assert c.conversation is not s.conversation and c.stop is not s.stop


def test_model_choices():
    s = make_settings_like("local")  # an OpenAI-compatible server is always offered: its URL is set in the UI
    assert ui_app.model_choices(s, {}) == ["local", "extractive", "openai"]
    assert ui_app.model_choices(make_settings_like("fake"), {}) == ["fake", "local", "extractive", "openai"]


def make_settings_like(model: str):
    from assistant.settings import load_settings

    return load_settings(None, {"answer.model": model}, env={})


# -- chat handlers --------------------------------------------------------------------------------------
def test_chat_streams_then_renders_answer_evidence_and_followups(built):
    _, _, _, h = built
    session = ui_app.UISession()
    outs = run_chat(h, session)
    first, final = outs[0], [o for o in outs if isinstance(o[2], str) and "pc-card" in o[2]][-1]
    assert first[1] == "" and "Searching" in first[0][-1]["content"]  # textbox cleared, stage shown
    msg = final[0][-1]["content"]
    assert "(#pc-ev-" in msg and "**Sources**" in msg and "p-fedmerge" in final[2]  # the id: in the card's details
    assert "<mark>" in final[2] and 'id="pc-ev-' in final[2]
    assert "FedMerge" in final[3]  # papers in focus
    fu = outs[-1][4:7]
    assert any(isinstance(u, dict) and u.get("visible") and u.get("value") for u in fu)
    assert len(session.conversation.turns) == 1 and session.last is not None


def test_followup_shows_standalone_query(built):
    _, _, _, h = built
    session = ui_app.UISession()
    run_chat(h, session)
    outs = run_chat(h, session, "Which datasets did they use?")
    msg = outs[-1][0][-1]["content"]
    assert "_Searched for:_" in msg and "FedMerge" in msg.split("_Searched for:_", 1)[1]


def test_question_length_is_capped_with_a_clear_message(built):
    _, s, _, h = built
    with pytest.raises(gr.Error) as e:
        run_chat(h, ui_app.UISession(), "x" * (s.ui.max_question_chars + 1))
    assert "limit" in e.value.message and f"{s.ui.max_question_chars:,}" in e.value.message
    with pytest.raises(gr.Error):
        run_chat(h, ui_app.UISession(), "   ")
    with pytest.raises(gr.Error):
        h.ask("y" * 10**6, ui_app.UISession())


def test_options_are_validated_server_side(built):
    _, _, _, h = built
    with pytest.raises(gr.Error):
        run_chat(h, ui_app.UISession(), model="hf:/etc")  # not offered in the dropdown
    with pytest.raises(gr.Error):
        run_chat(h, ui_app.UISession(), year_min=2025, year_max=2020)
    opts = h.options("fake", 3, 2023.0, None, "  Lee ")
    assert opts.k == 3 and opts.filters.year_min == 2023 and opts.filters.author == "Lee"


def test_filters_reach_retrieval(built):
    _, _, _, h = built
    rows = h.search("federated learning pruning graph", 10, 2024, None, "")
    assert rows and all(r[2] >= 2024 for r in rows)
    rows = h.search("federated learning pruning graph", 10, None, None, "park")
    assert [r[4] for r in rows] == ["p-prune"]


def test_a_search_filter_that_leaves_no_paper_says_why(built, monkeypatch):
    _, _, _, h = built
    said: list[str] = []
    monkeypatch.setattr(gr, "Info", lambda message, *a, **kw: said.append(message))
    assert h.search("federated learning pruning graph", 10, 2030, None, "") == []
    assert said == ["No results: No paper in this corpus is from 2030 or later; the newest is 2025."]


def test_assistant_errors_become_safe_messages(built, tmp_path):
    _, s, _, _ = built
    from assistant.answer.assistant import Assistant

    empty, _ = make_assistant(tmp_path, [])
    h = ui_app.build_app(empty, s.with_overrides({"store.data_dir": str(tmp_path / "store")}),
                         env={}).paperchat_handlers
    with pytest.raises(gr.Error) as e:
        run_chat(h, ui_app.UISession())
    assert "empty" in e.value.message.lower() and "ingest" in e.value.message.lower()
    assert str(tmp_path) not in e.value.message and "Traceback" not in e.value.message
    assert isinstance(empty, Assistant)


def test_unexpected_errors_get_a_trace_id_and_no_internals(built, caplog):
    _, s, _, _ = built

    class Boom:
        corpus = types.SimpleNamespace(facets=lambda: Facets(), stats=dict)

        def stream(self, *a, **k):
            raise RuntimeError("/secret/path/db.sqlite3 exploded")
            yield

    h = ui_app.build_app(Boom(), s, env={}).paperchat_handlers
    with pytest.raises(gr.Error) as e:
        run_chat(h, ui_app.UISession())
    assert "trace id" in e.value.message and "/secret" not in e.value.message
    assert "exploded" in caplog.text  # logged server-side


def test_stop_really_stops_generation(tmp_path):
    slow = FakeChatModel(default=lambda m: " ".join(["word"] * 400), delay_s=0.02)
    a, s = make_assistant(tmp_path, list(PAPERS), chat_model=slow)
    h = ui_app.build_app(a, s, env={}).paperchat_handlers
    session = ui_app.UISession()
    outs: list = []
    gen = h.chat(QUESTION, session, "fake", 5, None, None, "")
    started = time.monotonic()
    t = threading.Thread(target=lambda: outs.extend(gen))
    t.start()
    while ("word" not in (session.messages[-1]["content"] if session.messages else "")
           and time.monotonic() - started < 20):
        time.sleep(0.01)
    h.stop(session)
    t.join(timeout=5)
    assert not t.is_alive()
    assert time.monotonic() - started < 0.02 * 400  # far less than the full generation
    answer = session.last[0]
    assert answer.incomplete
    assert "incomplete" in session.messages[-1]["content"]


def test_new_chat_clears_the_conversation(built):
    _, _, _, h = built
    session = ui_app.UISession()
    run_chat(h, session)
    out = h.new_chat(session)
    assert out[0] == [] and session.conversation.turns == [] and session.last is None
    assert "No papers in focus" in out[3]


def test_feedback_is_stored_with_question_answer_citations_settings(built):
    _, s, _, h = built
    session = ui_app.UISession()
    with pytest.raises(gr.Error):
        h.feedback("up", "", session)  # nothing to rate yet
    run_chat(h, session, k=4)
    msg, cleared = h.feedback("down", "  missing the dataset  ", session)
    assert "saved" in msg and cleared == ""
    rows = [json.loads(x) for x in (s.store.data_dir / "feedback.jsonl").read_text().splitlines()]
    row = rows[-1]
    assert row["rating"] == "down" and row["comment"] == "missing the dataset"
    assert row["question"] == QUESTION and "[1]" in row["answer"]
    assert row["citations"][0]["paper_id"] == "p-fedmerge"
    assert row["settings"]["k"] == 4 and row["settings"]["model"] == "fake" and "retrieval" in row["settings"]
    like = types.SimpleNamespace(index=len(session.messages) - 1, liked=True, value="")
    assert "saved" in h.like(like, "", session)
    assert json.loads((s.store.data_dir / "feedback.jsonl").read_text().splitlines()[-1])["rating"] == "up"


def test_export_writes_markdown_and_bibtex_under_gradio_temp_dir(built, tmp_path, monkeypatch):
    _, _, _, h = built
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))
    session = ui_app.UISession()
    run_chat(h, session)
    upd = h.export(session)
    files = upd["value"]
    assert len(files) == 2 and all(f.startswith(str(tmp_path / "gradio")) for f in files)
    md = Path(files[0]).read_text(encoding="utf-8")
    bib = Path(files[1]).read_text(encoding="utf-8")
    assert md.startswith("# How does FedMerge") and "## Sources" in md
    assert "@misc{" in bib and "Ann Lee and Bo Chen" in bib


def test_upload_reports_bad_files_and_records_and_keeps_the_index(tmp_path, monkeypatch):
    a, s = make_assistant(tmp_path, list(PAPERS), **{"ui.max_upload_mb": 1})
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))
    h = ui_app.build_app(a, s, env={}).paperchat_handlers
    before = a.index.stats()["papers"]
    up = tmp_path / "gradio" / "u1"
    up.mkdir(parents=True)
    good = up / "new.jsonl"
    good.write_text(
        json.dumps({"id": "n-1", "title": "Tiny transformers", "abstract": "We train tiny transformers. They work.",
                    "year": 2020}) + "\n"
        + "{not json\n"
        + json.dumps({"id": "n-2", "title": "Empty", "abstract": ""}) + "\n",
        encoding="utf-8",
    )
    html_file = up / "evil.html"
    html_file.write_text("<script>alert(1)</script>")
    big = up / "big.jsonl"
    big.write_bytes(b"x" * (1024 * 1024 + 1))
    ticks: list = []
    report, cleared, stats, *_ = h.add_files([str(good), str(html_file), str(big)],
                                             progress=lambda *a, **k: ticks.append(a))
    assert "**new.jsonl**" in report and "1 added" in report
    assert "line 2" in report and "line 3" in report  # each bad record, with its line
    assert "**evil.html**: ✗ not accepted" in report
    assert "**big.jsonl**: ✗ larger than the 1 MB limit" in report
    assert cleared is None and ticks  # progress was reported
    assert a.index.stats()["papers"] == before + 1  # nothing lost, one added
    assert not good.exists() and not html_file.exists()  # uploads are not kept (never served back)
    assert "abstracts indexed" in stats


# -- launch helpers and the CLI ------------------------------------------------------------------------------
def test_auth_from_env():
    assert ui_launch.auth_from_env({}) is None
    with pytest.raises(ConfigError):
        ui_launch.auth_from_env({"PAPERCHAT_UI_USER": "ann"})
    check = ui_launch.auth_from_env({"PAPERCHAT_UI_USER": "ann", "PAPERCHAT_UI_PASSWORD": "s3cret"})
    assert check("ann", "s3cret") is True
    assert check("ann", "s3cret ") is False and check("bob", "s3cret") is False and check("", "") is False
    assert "s3cret" not in repr(check.__closure__[0].cell_contents) + repr(check.__closure__[1].cell_contents)


def test_blocked_paths_cover_data_dir_project_and_env(built, tmp_path):
    _, s, _, _ = built
    blocked = ui_launch.blocked_paths(s, cwd=tmp_path)
    assert str(s.store.data_dir.resolve()) in blocked
    assert str(ui_launch.PROJECT_DIR.resolve()) in blocked and str(tmp_path / ".env") in blocked


def test_cli_registers_ui():
    args = build_parser().parse_args(["ui", "--host", "0.0.0.0", "--port", "9000"])
    assert args.command == "ui" and args.host == "0.0.0.0" and args.port == 9000
    assert args.handler.__module__ == "assistant.cli.ui_cmd"


def test_echo_model_answers_are_verified(built):
    """The scripted model used by the server tests produces answers verification keeps."""
    a, _, _, _ = built
    ans = a.ask(QUESTION)
    assert ans.citations and not ans.unsupported and echo_first_source


def test_openai_server_settings_are_checked_and_passed_per_request(built):
    _, _, _, h = built
    h.server_url_editable = True
    opts = h.options("openai", 5, None, None, "", " http://127.0.0.1:8000/v1/ ", " my-model ")
    assert opts.stream_kwargs() == {"model_options": {"openai_base_url": "http://127.0.0.1:8000/v1",
                                                      "openai_model": "my-model"}}
    assert opts.describe()["server"] == {"url": "http://127.0.0.1:8000/v1", "model": "my-model"}
    assert h.options("fake", 5).stream_kwargs() == {}
    for bad in ("javascript:alert(1)", "file:///etc/passwd", "http://a b/v1", "127.0.0.1:8000"):
        with pytest.raises(gr.Error, match="server URL"):
            h.options("openai", 5, None, None, "", bad, "m")
    with pytest.raises(gr.Error, match="one line"):
        h.options("openai", 5, None, None, "", "http://127.0.0.1:8000/v1", "a\nb")
    h.server_url_editable = False  # served beyond loopback: the operator's URL, whatever a visitor types
    assert h.options("openai", 5, None, None, "", "http://10.0.0.1/v1", "m").server_url == \
        h.settings.answer.openai_base_url.rstrip("/")


def test_the_api_key_goes_only_to_the_configured_server(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    a, _ = make_assistant(tmp_path, list(PAPERS), **{"answer.openai_base_url": "http://127.0.0.1:9/v1"})
    mine = a.model("openai", {"openai_base_url": "http://127.0.0.1:9/v1", "openai_model": "m"})
    other = a.model("openai", {"openai_base_url": "http://evil.example:80/v1", "openai_model": "m"})
    assert mine.api_key == "sk-secret" and other.api_key is None and other.base_url == "http://evil.example:80/v1"
    with pytest.raises(AssistantError, match="per-request"):
        a.model("openai", {"openai_api_key_env": "HOME"})


def test_empty_question_is_refused_by_the_validator(built):
    _, _, _, h = built
    first, *rest = h.validate_chat("   ", None, "fake", 5, None, None, "", "", "")
    assert first["is_valid"] is False and "Type a question first" in first["message"]
    assert all(v["is_valid"] for v in rest) and len(rest) == 8
    assert h.validate_chat("What is FedMerge?", None)[0]["is_valid"] is True
