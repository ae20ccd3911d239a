"""Run a question set through the assistant and score it.

    from eval.runner import run_eval
    summary = run_eval("eval/questions.jsonl", "eval/runs/latest", settings)

For each question: the conversation is rebuilt from its `history` (earlier user turns, replayed
retrieval-only), `Assistant.ask` answers it (the same code path as the chat), and a separate
`retriever.search` of the answer's standalone query with k = max(10, retrieval.k) gives the ranking
the retrieval metrics use (the answer itself may use fewer papers). With `retrieval_only`, only that
search runs (follow-ups are still rewritten through the rebuilt conversation).

Outputs in `out_dir`: results.jsonl (one line per question: the question's fields plus the answer JSON
exactly as `paperchat ask --json` prints it -- each citation's and each retrieved abstract's `text`
included, in retrieval-only runs too; the answer's `kind` is renamed `answer_kind` and the question's
reference `answer` is `reference_answer`, see `record_answer_json` -- then the ranking, the per-question
metrics and, when judged, the judge's verdicts), summary.json, report.md and PNG plots.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import metrics as M
from .record import _ask, _warm_up, answer_fields, evaluate_question, record_answer_json  # noqa: F401 -- re-exported
from .runfiles import load_run  # noqa: F401 -- re-exported: reading a run back lives in runfiles.py
from .scorecard import score_records

PROXY_NOTE = (
    "`supported_sentences` is a lexical proxy (content-word overlap with the cited sentences, or verbatim "
    "occurrence) computed independently of the assistant's verifier, and `must_mention` checks key terms of the "
    "reference answer."
)


def settings_config(settings) -> dict[str, Any]:
    """The settings that change the numbers, for summary.json and comparisons."""
    s = settings
    return {
        "embedding.model": s.embedding.model,
        "embedding.backend": s.embedding.backend,
        "chunking.chunk_tokens": s.chunking.chunk_tokens,
        "retrieval.k": s.retrieval.k,
        "retrieval.mode": s.retrieval.mode,
        "retrieval.fusion": s.retrieval.fusion,
        "retrieval.candidates": s.retrieval.candidates,
        "retrieval.dense_weight": s.retrieval.dense_weight,
        "retrieval.lexical_weight": s.retrieval.lexical_weight,
        "answer.model": s.answer.model,
        "answer.sources": s.answer.sources,
        "answer.max_new_tokens": s.answer.max_new_tokens,
        "answer.abstain_threshold": s.answer.abstain_threshold,
        "answer.support_threshold": s.answer.support_threshold,
        "store.data_dir": str(s.store.data_dir),
    }


def _corpus_of(assistant) -> tuple[dict[str, str], dict[str, str]]:
    """{paper_id: text} and {paper_id: version group} of the indexed corpus, if the assistant exposes it."""
    index = getattr(assistant, "index", None) or getattr(getattr(assistant, "retriever", None), "index", None)
    texts: dict[str, str] = {}
    groups: dict[str, str] = {}
    if index is not None and hasattr(index, "all_records"):
        try:
            for r in index.all_records():
                texts[r.paper_id] = r.text
                groups[r.paper_id] = r.duplicate_of or r.paper_id
        except Exception:  # noqa: BLE001 -- fall back to the texts seen in the results
            texts, groups = {}, {}
    return texts, groups


def _splitter():
    try:
        from assistant.index.sentences import split_sentences

        return lambda text: [s.text for s in split_sentences(text)]
    except Exception:  # noqa: BLE001
        return None


def _make_progress(progress, total: int, desc: str = "eval"):
    """(update(), close()) from progress=True (tqdm on stderr), False/None, or a callable(done, total)."""
    if callable(progress):
        state = {"n": 0}

        def update() -> None:
            state["n"] += 1
            progress(state["n"], total)

        return update, lambda: None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="question", file=sys.stderr, desc=desc)
        return (lambda: bar.update(1)), bar.close
    return (lambda: None), (lambda: None)


def _load_progress(out: Path, config: dict) -> dict[str, dict]:
    """Records of an interrupted run in `out` made with the same settings, by question id."""
    cfg, prog = out / "progress.config.json", out / "progress.jsonl"
    if not (cfg.is_file() and prog.is_file()):
        return {}
    try:
        if json.loads(cfg.read_text(encoding="utf-8")) != json.loads(json.dumps(config, sort_keys=True)):
            return {}
        recs = [json.loads(line) for line in prog.read_text(encoding="utf-8").split("\n") if line.strip()]
    except (OSError, json.JSONDecodeError):
        return {}
    return {r["id"]: r for r in recs if not r.get("error")}


def _verify_row(row: dict, rec: dict, settings, splitter, notes: list[str]) -> None:
    """verified_sentences: the claim verifier's reading of each answer sentence against what it cites."""
    if rec.get("abstained"):
        row.update(verified=0, verified_claims=0, verified_sentences=None)
        return
    from assistant.verify import VerifierUnavailableError, get_verifier

    from .faithfulness import verified_counts

    try:
        ok, n, details = verified_counts(rec.get("answer", ""), rec.get("citations") or [],
                                         get_verifier(settings.verify), splitter)
    except VerifierUnavailableError as e:
        notes.append(f"verified_sentences not measured: the claim verifier is unavailable ({e.message}).")
        row.update(verified=0, verified_claims=0, verified_sentences=None)
        return
    row.update(verified=ok, verified_claims=n, verified_sentences=(ok / n) if n else None)
    rec["verifier_check"] = details


def run_eval(
    questions_path: Path | str,
    out_dir: Path | str,
    settings,
    retrieval_only: bool = False,
    progress: bool | Callable[[int, int], None] = True,
    *,
    assistant=None,
    limit: int | None = None,
    plots: bool = True,
    extra_notes: list[str] | None = None,
    resume: bool = False,
    judge=None,
    split: str | None = None,
) -> dict:
    """Answer (or only retrieve) every question of `questions_path`, write the run to `out_dir`, return the summary.

    Each finished question is appended to `out_dir/progress.jsonl` at once; with `resume`, the questions
    already there (from an interrupted run with the same settings) are not asked again. With `judge`
    (an `eval.judge.Judge`), answered questions are also scored by the judge model.
    """
    from .questionset import load_questions

    questions, warnings = load_questions(questions_path)  # checked against the schema, before any is asked
    if split:  # one half of a set also used for tuning, fixed by a hash of each id (eval/scorecard.py)
        from .scorecard import HALVES, split_half

        if split not in HALVES:
            from assistant.errors import ConfigError

            raise ConfigError(f"Unknown split {split!r}.", hint=f"Use one of: {', '.join(HALVES)}.")
        questions = [q for q in questions if split_half(str(q["id"])) == split]
    if limit:
        questions = questions[:limit]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if assistant is None:
        from assistant.answer.assistant import Assistant

        assistant = Assistant(settings)
    index = getattr(assistant, "index", None)
    if callable(getattr(index, "require_content", None)):
        index.require_content()  # an empty store: stop with the ingest hint instead of scoring zeros
    warm = _warm_up(assistant, retrieval_only)
    k_eval = max(10, settings.retrieval.k)
    config = {**settings_config(settings), "retrieval_only": retrieval_only, "k_eval": k_eval}
    done = _load_progress(out, config) if resume else {}
    records: list[dict] = []
    errors: list[str] = []
    reused = 0
    update, close = _make_progress(progress, len(questions))
    started = time.time()
    (out / "progress.config.json").write_text(json.dumps(config, sort_keys=True), encoding="utf-8")
    log = open(out / "progress.jsonl", "w", encoding="utf-8")  # noqa: SIM115 -- closed in finally
    try:
        for q in questions:
            if q["id"] in done and done[q["id"]].get("question") == q["question"]:
                rec = done[q["id"]]
                reused += 1
            else:
                rec = _ask(assistant, q, retrieval_only, k_eval, first=not records)
            log.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")
            log.flush()
            if rec.get("error"):
                errors.append(f"{q.get('id')}: {rec['error']}")
            records.append(rec)
            update()
    finally:
        close()
        log.close()
    elapsed = time.time() - started

    texts, groups = _corpus_of(assistant)
    if not texts:  # fall back to every text the run saw
        for rec in records:
            for item in (rec.get("retrieved") or []) + (rec.get("citations") or []):
                if item.get("text"):
                    texts.setdefault(str(item["paper_id"]), item["text"])
    keys = {k for q in questions for k in (q.get("gold") or [])}
    key_index = M.resolve_keys(keys, texts, groups or None)
    unresolved = sorted(k for k, v in key_index.items() if not v)
    splitter = _splitter()
    verifier_notes: list[str] = []
    rows = []
    for q, rec in zip(questions, records):
        if rec.get("error"):
            row = M.score_question(q, {"ranking": [], "retrieval_only": True}, key_index)
            row.update({"error": rec["error"], "abstained": None})
        else:
            row = M.score_question(q, rec, key_index, support_threshold=settings.answer.support_threshold,
                                   splitter=splitter)
            if not retrieval_only:
                _, _, details = M.support_counts(rec.get("answer", ""), rec.get("citations") or [],
                                                 settings.answer.support_threshold, splitter)
                rec["support_check"] = [] if rec.get("abstained") else details
                _verify_row(row, rec, settings, splitter, verifier_notes)
        rec["metrics"] = {k: v for k, v in row.items() if k not in ("id", "kind")}
        rows.append(row)
    judge_info = None
    if judge is not None and not retrieval_only:
        from .judge import judge_records

        update, close = _make_progress(progress, len(records), "judge")
        try:
            judge_info = judge_records(records, judge, update)
        finally:
            close()
        for row, rec in zip(rows, records):
            row.update({k: rec["metrics"].get(k) for k in M.JUDGE_METRICS})

    with open(out / "results.jsonl", "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")

    from .judge import note as judge_note

    notes = [judge_note(judge_info), PROXY_NOTE, *dict.fromkeys(verifier_notes)]
    if warm is not None and not retrieval_only:
        notes.append(f"Latencies exclude loading the models: a warm-up before the first question took {warm:.1f} s.")
    if retrieval_only:
        notes.append("Retrieval-only run: answer, citation, support, abstention and latency metrics are not measured.")
    notes.append(f"Retrieval metrics use a separate search of each standalone query with k={k_eval}; "
                 "mrr and ndcg are computed over those top 10.")
    if any(q.get("kind") == "compare" for q in questions):
        notes.append("Compare questions: the retrieval metrics search the whole question, while the assistant "
                     "retrieves each side separately; citation recall shows whether both sides were found.")
    if any(q.get("kind") == "multi" for q in questions):
        notes.append("'Which papers' (multi) questions: the gold lists a sample of the matching papers, not all of "
                     "them, so their citation precision is a lower bound; multi_set_recall is the measure to watch.")
    if unresolved:
        notes.append(f"{len(unresolved)} gold key(s) occur in no indexed abstract (counted as missed): "
                     + "; ".join(repr(k) for k in unresolved[:5]) + (" ..." if len(unresolved) > 5 else ""))
    if errors:
        notes.append(f"{len(errors)} question(s) failed and count as missed: " + "; ".join(errors[:5]))
    if reused:
        notes.append(f"Resumed: {reused} question(s) were taken from an interrupted run with the same settings "
                     "(their latencies were measured then).")
    notes += [*warnings, *(extra_notes or [])]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    summary = {
        "overall": M.aggregate(rows),
        "by_kind": M.by_kind(rows),
        "counts": {"overall": len(rows), **counts},
        "confusion": M.confusion(rows),
        "config": config,
        "notes": notes,
        "questions": str(questions_path),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)),
        "elapsed_s": round(elapsed, 2),
        "errors": len(errors),
        "warnings": warnings,
        "judge": judge_info,
        "split": split,
        "scorecard": None if retrieval_only else score_records(records, texts, groups, key_index),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    for name in ("progress.jsonl", "progress.config.json"):  # the run is complete: results.jsonl has it all
        (out / name).unlink(missing_ok=True)
    from .report import write_report

    write_report(out, summary, rows, plots=plots)
    return summary
