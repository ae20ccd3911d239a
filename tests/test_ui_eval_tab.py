"""ui.eval_tab: the Evaluation tab's handlers, called directly on an app over a tiny corpus (debug preset)."""

from __future__ import annotations

import json
import threading
import types

import gradio as gr
import pytest
from conftest import PAPERS
from PIL import Image
from ui_helpers import make_assistant

from ui import app as ui_app
from ui import eval_tab

QUESTIONS = [
    {"id": "t1", "kind": "factoid", "question": "How does FedMerge personalise federated learning?",
     "gold": ["merges several global models into one personalised model"], "must_mention": ["merge"]},
    {"id": "t2", "kind": "factoid", "question": "By how much does Prune&Comp reduce perplexity on LLaMA-3-8B?",
     "gold": ["Prune&Comp reduces perplexity by 24.72%"], "must_mention": ["24.72"]},
    {"id": "t3", "kind": "paraphrase", "question": "Which method sparsifies 2-FWL graph neural networks?",
     "gold": ["We sparsify the connectivity and keep full expressivity"]},
    {"id": "t4", "kind": "followup", "history": ["What is FedMerge?"], "question": "Which dataset did it use?",
     "gold": ["Experiments on CIFAR-10 show"], "must_mention": ["CIFAR-10"]},
    {"id": "t5", "kind": "absent", "question": "What is the boiling point of liquid nitrogen in a tokamak?",
     "gold": []},
    {"id": "t6", "kind": "absent", "question": "Who won the 1998 football world cup?", "gold": []},
    {"id": "t7", "kind": "factoid", "question": "What does layer pruning compress?",
     "gold": ["Layer pruning compresses"]},
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ui-eval")
    a, s = make_assistant(tmp, list(PAPERS))
    app = ui_app.build_app(a, s, env={})
    tab = app.paperchat_eval
    qfile = tmp / "questions.jsonl"
    qfile.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    tab.questions, tab.quick = qfile, 5
    tab.project_latest = tmp / "no-project-run"  # only the runs of this test count
    return a, s, app, tab


def wait(tab, timeout=120.0):
    tab.thread.join(timeout)
    assert not tab.thread.is_alive() and not tab.running


def test_tab_is_wired_with_private_named_events(built):
    _, _, app, tab = built
    assert isinstance(tab, eval_tab.EvalTab)
    assert sorted(app.get_api_info()["named_endpoints"]) == ["/ask", "/search"]
    fns = {d.api_name: d for d in app.fns.values()}
    for name in ("eval_start", "eval_poll", "eval_export", "eval_report"):
        assert fns[name].api_visibility == "private"


def test_no_mutable_state_at_module_level():
    for name, value in vars(eval_tab).items():
        if name.startswith("__") or isinstance(value, types.ModuleType):
            continue
        assert not isinstance(value, (list, dict, set, bytearray)), f"ui.eval_tab.{name} is mutable"


def test_no_report_yet(built):
    _, _, _, tab = built
    if tab.runs_dir.is_dir() and any(tab.runs_dir.iterdir()):
        pytest.skip("a run already exists")
    md, *imgs = tab.report()
    assert "No evaluation report yet" in md and all(i["visible"] is False for i in imgs)


def test_run_writes_a_report_and_a_second_start_is_refused(built, monkeypatch):
    _, s, _, tab = built
    gate = threading.Event()
    tick = tab._tick

    def slow_tick(done, total):
        gate.wait(30)  # keeps the run going until the second click was tried
        tick(done, total)

    monkeypatch.setattr(tab, "_tick", slow_tick)
    status, timer = tab.start("extractive", "first 20")
    assert "Starting" in status and timer.active
    again, _ = tab.start("extractive", "all")
    assert "already running" in again
    out = tab.poll()
    assert out[1].active and all(o == gr.skip() for o in out[2:])  # the report waits for the end
    gate.set()
    wait(tab)
    runs = [d for d in tab.runs_dir.iterdir() if d.is_dir()]
    assert len(runs) == 1
    run = runs[0]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["counts"]["overall"] == 5  # the "first 20" size, set to 5 for the test
    assert summary["config"]["answer.model"] == "extractive" and summary["errors"] == 0
    results = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert all(r["model"] == "extractive" for r in results)  # the chosen model, not the chat default ("fake")
    assert sorted(p.name for p in run.glob("*.png"))  # plots written
    assert str(run).startswith(str(s.store.data_dir / "eval-runs"))

    status, timer, md, *imgs = tab.poll()  # the run is over: the tab shows it and the timer stops
    assert status.startswith("Finished: 5 questions") and timer.active is False
    for metric in ("recall@5", "mrr", "citation_precision", "abstention_recall"):
        assert metric in md
    assert run.name in md and "extractive" in md and "| overall | factoid | paraphrase |" in md  # by kind
    shown = [i for i in imgs if i["visible"]]
    assert shown and all(isinstance(i["value"], Image.Image) for i in shown)
    assert str(s.store.data_dir) not in md


def test_start_validates_its_inputs(built):
    _, _, _, tab = built
    with pytest.raises(gr.Error):
        tab.start("hf:/etc", "all")
    with pytest.raises(gr.Error):
        tab.start("extractive", "1000000")
    assert not tab.running


def test_failed_run_shows_a_safe_message(tmp_path):
    empty, s = make_assistant(tmp_path, [])
    tab = ui_app.build_app(empty, s, env={}).paperchat_eval
    tab.questions = tmp_path / "q.jsonl"
    tab.questions.write_text(json.dumps(QUESTIONS[0]) + "\n")
    tab.start("extractive", "all")
    wait(tab)
    assert tab.status.startswith("Failed:") and "ingest" in tab.status.lower() and str(tmp_path) not in tab.status


def test_newest_run_wins_and_project_latest_counts(tmp_path):
    runs, latest = tmp_path / "eval-runs", tmp_path / "latest"
    assert eval_tab.latest_run(runs, latest) is None
    for d in (runs / "old", latest):
        d.mkdir(parents=True)
        (d / "summary.json").write_text("{}")
    assert eval_tab.latest_run(runs, latest) == (latest, "eval/runs/latest")
    import os

    os.utime(latest / "summary.json", (1, 1))
    assert eval_tab.latest_run(runs, latest)[0] == runs / "old"


def test_export_feedback_as_candidate_questions(built, tmp_path, monkeypatch):
    _, s, app, tab = built
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))
    fb = s.store.data_dir / "feedback.jsonl"
    fb.unlink(missing_ok=True)
    with pytest.raises(gr.Error):
        tab.export_feedback()  # no feedback yet
    h = app.paperchat_handlers
    session = ui_app.UISession()
    list(h.chat("How does FedMerge personalise federated learning?", session, "fake", 5, None, None, ""))
    h.feedback("up", "", session)
    with pytest.raises(gr.Error):
        tab.export_feedback()  # only thumbs-up so far
    h.feedback("down", "missing the datasets", session)
    list(h.chat("Which pruning method compensates removed layers?", session, "fake", 5, None, None, ""))
    h.feedback("down", "", session)
    upd, msg = tab.export_feedback()
    path = upd["value"]
    assert path.startswith(str(tmp_path / "gradio")) and path.endswith(".jsonl")
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(x) for x in f.read().splitlines()]
    assert len(rows) == 2 and {r["kind"] for r in rows} == {"feedback"}
    assert all(r["question"] and r["gold"] == [] and r["id"].startswith("fb-") for r in rows)
    assert rows[0]["feedback"][0]["comment"] == "missing the datasets"
    assert "2 candidate question(s)" in msg


# -- comparison view ---------------------------------------------------------------------------------------
def _comparison_runs(root):
    """Two synthetic runs: B regresses on 10 questions, improves on 2, and one answer carries markup."""
    import copy

    from eval_helpers import _rec, base_records, write_run

    a = base_records(60)
    b = copy.deepcopy(a)
    right = [i for i, r in enumerate(a) if r["kind"] != "absent" and r["metrics"]["gold_cited"]]
    wrong = [i for i, r in enumerate(a) if r["kind"] != "absent" and not r["metrics"]["gold_cited"]]
    for i in right[:10]:
        b[i] = _rec(i, a[i]["kind"], False)
    for i in wrong[:2]:
        b[i] = _rec(i, a[i]["kind"], True)
    b[right[0]]["answer"] = 'Evil <img src=x onerror="window.__cmpxss=1"> answer [1].'
    write_run(root / "base", a)
    write_run(root / "new", b, model="local")
    return {a[i]["id"] for i in right[:10]}, {a[i]["id"] for i in wrong[:2]}


def test_comparison_view_lists_changed_questions_with_a_regressions_filter(built, tmp_path):
    import re

    _, _, _, tab = built
    regressed, improved = _comparison_runs(tmp_path / "proj-runs")
    tab.project_runs = tmp_path / "proj-runs"
    _, b_up = tab.run_choices()
    assert {"eval/runs/base", "eval/runs/new"} <= set(b_up["choices"])
    html = tab.compare("eval/runs/base", "eval/runs/new", False)
    assert "95% CI" in html and 'class="pc-worse"><td>outcome_right' in html
    assert "By question kind" in html and "<caption>absent (20 questions)</caption>" in html
    shown = set(re.findall(r'data-qid="([^"]+)"', html))
    assert shown == regressed | improved
    assert "Questions whose outcome changed: 12 (10 regressed)" in html
    assert "<img" not in html and "&lt;img src=x" in html  # answers are text, never markup
    # every citation link points at an evidence card that is on the page
    targets = set(re.findall(r'href="#(pc-cmp-[^"]+)"', html))
    assert targets and targets <= set(re.findall(r'id="(pc-cmp-[^"]+)"', html))

    only = tab.compare("eval/runs/base", "eval/runs/new", True)
    assert set(re.findall(r'data-qid="([^"]+)"', only)) == regressed
    assert "showing the 10 regression(s)" in only


def test_comparison_refuses_runs_it_did_not_list(built, tmp_path):
    _, _, _, tab = built
    _comparison_runs(tmp_path / "proj-runs")
    tab.project_runs = tmp_path / "proj-runs"
    for a, b in (("eval/runs/base", "../../etc"), ("/etc/passwd", "eval/runs/new"), ("eval/runs/new", "eval/runs/new")):
        with pytest.raises(gr.Error):
            tab.compare(a, b, False)
    assert "Choose two runs" in tab.compare(None, "eval/runs/new", False)
