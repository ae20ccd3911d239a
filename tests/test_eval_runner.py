"""eval.runner / report / compare / datasets / CLI: the real Assistant with the debug preset (hash
embeddings + scripted fake model) on the hand-made papers, and a stand-in assistant for failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PAPERS, SHARED, make_settings

from assistant.cli import main
from assistant.types import Answer, Citation, Hit
from eval import datasets
from eval.compare import compare_runs
from eval.compare_report import write_comparison
from eval.metrics import ALL_METRICS
from eval.report import PLOTS
from eval.runner import load_run, run_eval

PNG = b"\x89PNG\r\n\x1a\n"

QUESTIONS = [
    {"id": "f1", "kind": "factoid", "question": "How much does Prune&Comp reduce perplexity?",
     "gold": ["Prune&Comp reduces perplexity by 24.72% on LLaMA-3-8B"], "must_mention": ["24.72%"]},
    {"id": "f2", "kind": "factoid", "question": "What does FedMerge give each client?",
     "gold": ["Each client receives a weighted merge of the server's models"]},
    {"id": "p1", "kind": "paraphrase",
     "question": "How can detection of things below the sea surface run on weak hardware?",
     "gold": ["lightweight detector for low-power devices that runs in real time"]},
    {"id": "m1", "kind": "multi", "question": "Which papers address federated learning or layer pruning?",
     "gold": ["FedMerge merges several global models into one personalised model",
              "Layer pruning compresses large language models"]},
    {"id": "c1", "kind": "compare", "question": "How does FedMerge differ from Prune&Comp?",
     "gold": ["FedMerge merges several global models into one personalised model",
              "Prune&Comp, which compensates the magnitude gap of removed layers"]},
    {"id": "u1", "kind": "followup", "history": ["What is FedMerge?"], "question": "Which datasets did they use?",
     "gold": ["Experiments on CIFAR-10 show FedMerge beats clustering-based"], "must_mention": ["CIFAR-10"]},
    {"id": "a1", "kind": "absent", "question": "What search algorithm does AlphaZero use during self-play?",
     "gold": []},
    {"id": "a2", "kind": "absent", "question": "Which optimizer trains BERT in the original paper?", "gold": []},
]


def write_questions(path: Path, qs=QUESTIONS) -> Path:
    path.write_text("".join(json.dumps(q) + "\n" for q in qs), encoding="utf-8")
    return path


def test_run_eval_writes_results_summary_report_and_plots(tmp_path, debug_assistant):
    settings, a = debug_assistant
    qpath = write_questions(tmp_path / "q.jsonl")
    seen = []
    summary = run_eval(qpath, tmp_path / "run", settings, assistant=a,
                       progress=lambda n, total: seen.append((n, total)))
    out = tmp_path / "run"
    assert seen[-1] == (len(QUESTIONS), len(QUESTIONS))

    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == [q["id"] for q in QUESTIONS]
    for r in records:
        # question fields kept, Answer.to_json() fields added (its id/kind renamed), ranking of >= 10 requested
        assert {"question", "kind", "gold", "answer", "abstained", "citations", "retrieved", "timings", "ranking",
                "answer_kind", "standalone_query", "metrics"} <= set(r)
        assert r["kind"] == next(q["kind"] for q in QUESTIONS if q["id"] == r["id"])
    f1 = records[0]
    assert f1["metrics"]["recall@5"] == 1.0 and f1["metrics"]["gold_cited"] is True
    # the follow-up was rewritten through the history replay
    followup = next(r for r in records if r["id"] == "u1")
    assert "FedMerge" in followup["standalone_query"]

    saved = json.loads((out / "summary.json").read_text())
    assert set(saved) >= {"overall", "by_kind", "config", "notes", "counts", "confusion"}
    assert set(saved["overall"]) == set(ALL_METRICS)
    assert set(saved["by_kind"]) == {"factoid", "paraphrase", "multi", "compare", "followup", "absent"}
    assert saved["by_kind"]["absent"]["recall@5"] is None
    assert saved["config"]["answer.model"] == "fake" and saved["config"]["k_eval"] == 10
    assert any(n.startswith("Not measured: judge") for n in saved["notes"])  # said, not faked
    assert saved["judge"] is None and saved["overall"]["judge_correctness"] is None
    assert saved["overall"]["abstention_recall"] == summary["overall"]["abstention_recall"]
    assert saved["confusion"]["tp"] + saved["confusion"]["fn"] == 2  # the two absent questions

    report = (out / "report.md").read_text()
    assert "| metric | overall |" in report and "recall@5" in report and "## Notes" in report
    for name in PLOTS.values():
        assert (out / name).read_bytes()[:8] == PNG, name
        assert f"]({name})" in report


def test_retrieval_only_run(tmp_path, debug_assistant):
    settings, a = debug_assistant
    summary = run_eval(write_questions(tmp_path / "q.jsonl"), tmp_path / "ro", settings, assistant=a,
                       retrieval_only=True, progress=False)
    assert summary["overall"]["recall@10"] is not None
    assert summary["overall"]["citation_precision"] is None and summary["overall"]["total_p50_s"] is None
    rec = load_run(tmp_path / "ro")[1]
    assert all(len(r["ranking"]) == len(PAPERS) for r in rec)  # k=10 asked, only 4 papers exist
    assert (tmp_path / "ro" / PLOTS["retrieval"]).is_file()
    assert not (tmp_path / "ro" / PLOTS["latency"]).exists()


class StandIn:
    """The Assistant contract, scripted: answers cite the first retrieved paper; one question fails."""

    class Retriever:
        def search(self, query, k=5):
            words = set(query.lower().split())
            scored = sorted(PAPERS, key=lambda r: -len(words & set(r.text.lower().split())))
            return [Hit(r.paper_id, r, 1.0 / (i + 1)) for i, r in enumerate(scored[:k])]

    def __init__(self):
        self.retriever = self.Retriever()

    def conversation_from_history(self, history):
        from assistant.answer.conversation import Conversation

        return Conversation()

    def ask(self, question, conversation=None, **kw):
        if "explode" in question:
            raise RuntimeError("boom")
        hits = self.retriever.search(question, 5)
        h = hits[0]
        return Answer(question, f"{h.text.split('.')[0]} [1].", question, False,
                      (Citation(1, h.paper_id, h.title, h.text, (h.text.split(".")[0] + ".",)),), tuple(hits),
                      timings={"retrieval_s": 0.01, "first_token_s": 0.02, "total_s": 0.05})


def test_a_failing_question_is_recorded_and_the_run_goes_on(tmp_path, settings):
    qs = [*QUESTIONS[:2], {"id": "boom", "kind": "factoid", "question": "explode please", "gold": ["xxxxxxxxxx"]}]
    summary = run_eval(write_questions(tmp_path / "q.jsonl", qs), tmp_path / "run", settings, assistant=StandIn(),
                       progress=False, plots=False)
    records = load_run(tmp_path / "run")[1]
    assert records[-1]["error"] == "RuntimeError: boom"
    assert summary["errors"] == 1 and any("failed" in n for n in summary["notes"])
    # the stand-in cites its top paper: supported (verbatim first sentence)
    assert records[0]["metrics"]["supported_sentences"] == 1.0
    # the unresolvable gold key is reported
    assert any("occur in no indexed abstract" in n for n in summary["notes"])


def test_compare_runs_and_cli(tmp_path, debug_assistant, capsys):
    settings, a = debug_assistant
    qpath = write_questions(tmp_path / "q.jsonl")
    run_eval(qpath, tmp_path / "A", settings, assistant=a, progress=False, plots=False)
    run_eval(qpath, tmp_path / "B", settings, assistant=StandIn(), progress=False, plots=False)
    cmp = compare_runs(tmp_path / "A", tmp_path / "B", resamples=500)
    assert list(cmp["overall"])[:4] == ["recall@5", "recall@10", "mrr", "ndcg@10"]
    row = cmp["overall"]["abstention_recall"]
    # A (real abstention) abstains on the absent questions; the stand-in never abstains -> B has no recall
    assert row["a"] == 1.0 and row["b"] == 0.0 and row["diff"] == -1.0 and row["ci_low"] <= -1.0 + 1e-9
    changed = {c["id"]: c for c in cmp["changed"]}
    assert changed["a1"]["change"] == "newly wrong" and changed["a1"]["direction"] == "regressed"
    assert changed["a1"]["a"]["outcome"] == "abstained" and changed["a1"]["b"]["citations"]

    rc = main(["--data-dir", str(tmp_path / "store"), "--preset", "debug", "eval", "compare",
               str(tmp_path / "A"), str(tmp_path / "B"), "--out", str(tmp_path / "cmp"), "--resamples", "500"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "| metric | A | B | B − A | 95% CI |" in printed and "### Questions whose outcome changed" in printed
    for name in ("compare.md", "compare.json"):
        assert (tmp_path / "cmp" / name).is_file()
    assert (tmp_path / "cmp" / "compare_diffs.png").read_bytes()[:8] == PNG
    # not a run dir -> error with hint, no traceback
    assert main(["eval", "compare", str(tmp_path), str(tmp_path / "B")]) == 2


def test_results_rows_are_the_ask_json_plus_the_question(tmp_path, debug_assistant, capsys):
    """A results.jsonl row holds the `paperchat ask --json` object (abstract texts included) in both modes."""
    from eval.runner import record_answer_json

    settings, a = debug_assistant
    qs = [QUESTIONS[0]]
    run_eval(write_questions(tmp_path / "q.jsonl", qs), tmp_path / "run", settings, assistant=a, progress=False,
             plots=False)
    row = load_run(tmp_path / "run")[1][0]
    assert main(["--data-dir", str(tmp_path / "store"), "--preset", "debug", "ask", qs[0]["question"], "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    got = record_answer_json(row)
    assert set(got) == set(printed)
    for key in ("question", "standalone_query", "answer", "abstained", "kind", "incomplete", "citations",
                "unsupported", "model"):
        assert got[key] == printed[key], key
    assert got["id"] == "f1" and row["kind"] == "factoid"
    assert [h["paper_id"] for h in got["retrieved"]] == [h["paper_id"] for h in printed["retrieved"]]
    assert all(h["text"] for h in got["retrieved"]) and all(c["text"] for c in got["citations"])
    assert row["gold"] == qs[0]["gold"] and row["must_mention"] == qs[0]["must_mention"]

    run_eval(tmp_path / "q.jsonl", tmp_path / "ro", settings, assistant=a, retrieval_only=True, progress=False,
             plots=False)
    ro = load_run(tmp_path / "ro")[1][0]
    js = record_answer_json(ro)
    assert set(js) == set(printed) and js["answer"] == "" and js["citations"] == []
    assert js["retrieved"] and all(h["text"] and "scores" in h and h["title"] is not None for h in js["retrieved"])
    assert js["retrieved"][0]["text"] == next(p.text for p in PAPERS if p.paper_id == js["retrieved"][0]["paper_id"])


def test_cli_eval_run_on_an_ingested_store(tmp_path, capsys):
    from assistant.index.indexer import Index

    Index(make_settings(tmp_path)).add(PAPERS)  # the same store the CLI opens below
    base = ["--data-dir", str(tmp_path / "store"), "--preset", "debug"]
    qpath = write_questions(tmp_path / "q.jsonl")
    assert main([*base, "eval", "run", "--questions", str(qpath), "--out", str(tmp_path / "run"), "--quiet",
                 "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "recall@5" in out and "3 questions" in out
    assert len((tmp_path / "run" / "results.jsonl").read_text().splitlines()) == 3


def test_export_feedback(tmp_path, capsys):
    fb = tmp_path / "store" / "feedback.jsonl"
    fb.parent.mkdir()
    rows = [
        {"question": "Which datasets does FedMerge use?", "answer": "ImageNet [1].",
         "citations": [{"paper_id": "p-fedmerge"}], "rating": "down", "comment": "wrong dataset",
         "settings": {"answer.model": "local"}},
        {"question": "What is Prune&Comp?", "answer": "...", "citations": [], "rating": "up"},
        {"question": "Which datasets does  FedMerge use?", "rating": "down", "comment": "still wrong"},
    ]
    fb.write_text("".join(json.dumps(r) + "\n" for r in rows) + "not json\n")
    out = tmp_path / "cand.jsonl"
    assert main(["--data-dir", str(tmp_path / "store"), "eval", "export-feedback", "--out", str(out)]) == 0
    cands = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(cands) == 1  # the thumbs-up is left out; the repeated question is merged
    c = cands[0]
    assert c["kind"] == "feedback" and c["gold"] == [] and "gold" in c["todo"]
    assert [f["comment"] for f in c["feedback"]] == ["wrong dataset", "still wrong"]
    assert c["feedback"][0]["cited"] == ["p-fedmerge"]
    # the candidates are a valid question file
    from assistant.questions import read_questions

    assert read_questions(out)[0]["question"] == "Which datasets does FedMerge use?"
    assert "1 candidate question(s) from 3 feedback record(s)" in capsys.readouterr().out
    assert main(["--data-dir", str(tmp_path / "none"), "eval", "export-feedback", "--out", str(out)]) == 2


@pytest.mark.skipif(not (SHARED / "data" / "scifact").is_dir(), reason="shared SciFact data not present")
def test_scifact_adapter(tmp_path):
    _qpath, cpath, qs = datasets.prepare("scifact", tmp_path, limit=5, corpus_size=50)
    assert len(qs) == 5 and all(q["gold_ids"] and q["question"].startswith("Is it true that") for q in qs)
    docs = [json.loads(line) for line in cpath.read_text().splitlines()]
    ids = {d["id"] for d in docs}
    assert len(docs) == 50 and {i for q in qs for i in q["gold_ids"]} <= ids
    assert qs[1]["gold_ids"] == ["13734012"] and qs[1]["answer"] == "CONTRADICT"  # claim 2 of queries.jsonl
    assert qs[1]["kind"] == "claim-contradict" and qs[0]["kind"] == "claim-nei"  # claim 0 has no evidence label


@pytest.mark.skipif(not (SHARED / "data" / "pubmedqa").is_dir(), reason="shared PubMedQA data not present")
def test_pubmedqa_adapter(tmp_path):
    _qpath, cpath, qs = datasets.prepare("pubmedqa", tmp_path, limit=3)
    assert qs[0]["gold_ids"] == ["21645374"] and qs[0]["answer"] in ("yes", "no", "maybe")
    assert qs[0]["kind"] == f"answer-{qs[0]['answer']}"
    docs = {d["id"]: d for d in map(json.loads, cpath.read_text().splitlines())}
    assert len(docs) == 1000 and docs["21645374"]["text"].startswith("Programmed cell death (PCD)")
    assert docs["21645374"]["title"] == ""  # the question is the title: not given away


def test_write_comparison_without_latency(tmp_path, debug_assistant):
    settings, a = debug_assistant
    qpath = write_questions(tmp_path / "q.jsonl")
    for name in ("A", "B"):
        run_eval(qpath, tmp_path / name, settings, assistant=a, retrieval_only=True, progress=False, plots=False)
    cmp = compare_runs(tmp_path / "A", tmp_path / "B", resamples=500)
    md = write_comparison(cmp, tmp_path / "cmp")
    assert "No question changed its outcome." in md.read_text()  # identical runs: no changed questions
    assert "total_mean_s" not in cmp["overall"] and "recall@5" in cmp["overall"]


def test_dataset_ingest_keeps_exactly_the_prepared_corpus(tmp_path):
    from assistant.index.indexer import Index

    settings = make_settings(tmp_path)
    rows = [{"id": r.paper_id, "title": r.title, "text": r.text} for r in PAPERS]
    big = datasets.write_jsonl(rows, tmp_path / "big.jsonl")
    small = datasets.write_jsonl(rows[:2], tmp_path / "small.jsonl")
    report, removed = datasets.ingest(settings, big)
    assert report.added == 4 and removed == 0
    report, removed = datasets.ingest(settings, small)  # a smaller corpus after a bigger one
    assert report.unchanged == 2 and removed == 2
    assert sorted(r.paper_id for r in Index(settings).all_records()) == sorted(r.paper_id for r in PAPERS[:2])


def test_claim_to_question_and_feedback_ratings():
    assert datasets.claim_to_question("Aspirin inhibits platelets.") == "Is it true that aspirin inhibits platelets?"
    assert datasets.claim_to_question("BRCA1 mutations raise risk.") == "Is it true that BRCA1 mutations raise risk?"
    assert datasets.is_thumbs_down("down") and datasets.is_thumbs_down(-1) and not datasets.is_thumbs_down("up")


class Interrupting(StandIn):
    """A stand-in that stops the run (as Ctrl-C would) at one question and records what it was asked."""

    def __init__(self, stop_at=None):
        super().__init__()
        self.asked, self.stop_at = [], stop_at

    def ask(self, question, conversation=None, **kw):
        if question == self.stop_at:
            raise KeyboardInterrupt
        self.asked.append(question)
        return super().ask(question, conversation, **kw)


def test_an_interrupted_run_resumes_without_asking_again(tmp_path, settings):
    qpath = write_questions(tmp_path / "q.jsonl", QUESTIONS[:4])
    first = Interrupting(stop_at=QUESTIONS[2]["question"])
    with pytest.raises(KeyboardInterrupt):
        run_eval(qpath, tmp_path / "run", settings, assistant=first, progress=False, plots=False)
    assert len((tmp_path / "run" / "progress.jsonl").read_text().splitlines()) == 2
    second = Interrupting()
    summary = run_eval(qpath, tmp_path / "run", settings, assistant=second, progress=False, plots=False, resume=True)
    assert second.asked == [q["question"] for q in QUESTIONS[2:4]]  # the first two were not asked again
    assert any("Resumed: 2 question(s)" in n for n in summary["notes"])
    assert len(load_run(tmp_path / "run")[1]) == 4 and not (tmp_path / "run" / "progress.jsonl").exists()


def test_a_run_resumes_when_a_record_holds_a_unicode_line_separator(tmp_path, settings):
    """An abstract with U+2029 (a PubMedQA context has one) is written raw in progress.jsonl: reading it back
    must split on newlines only, or the run silently starts again."""
    rows = [dict(q) for q in QUESTIONS[:3]]
    rows[0]["question"] = rows[0]["question"].rstrip("?") + "\u2029 in short?"
    qpath = write_questions(tmp_path / "q.jsonl", rows)
    with pytest.raises(KeyboardInterrupt):
        run_eval(qpath, tmp_path / "run", settings, assistant=Interrupting(stop_at=rows[2]["question"]),
                 progress=False, plots=False)
    assert "\u2029" in (tmp_path / "run" / "progress.jsonl").read_text(encoding="utf-8")
    second = Interrupting()
    run_eval(qpath, tmp_path / "run", settings, assistant=second, progress=False, plots=False, resume=True)
    assert second.asked == [rows[2]["question"]]


def test_an_empty_store_stops_with_the_ingest_hint(tmp_path, capsys):
    qpath = write_questions(tmp_path / "q.jsonl")
    rc = main(["--data-dir", str(tmp_path / "empty"), "--preset", "debug", "eval", "run", "--questions", str(qpath),
               "--out", str(tmp_path / "run"), "--retrieval-only", "--quiet"])
    assert rc == 1
    err = capsys.readouterr().err
    assert "is empty" in err and "paperchat ingest" in err
    assert not (tmp_path / "run" / "summary.json").exists()
