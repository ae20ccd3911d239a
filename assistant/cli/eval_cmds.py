"""CLI: `paperchat eval run | compare | export-feedback` (the harness itself lives in the top-level `eval` package)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from ..errors import ConfigError
from ..settings import PROJECT_DIR

DEFAULT_QUESTIONS = PROJECT_DIR / "eval" / "questions.jsonl"
DATASET_LIMIT = 50  # benchmark questions by default (minutes, not hours, on two cores)
DATASET_CORPUS = 500  # benchmark abstracts by default: the gold ones plus sampled distractors


def register(sub) -> None:
    p = sub.add_parser("eval", help="Evaluation harness: run a question set, compare runs, export feedback.")
    esub = p.add_subparsers(dest="eval_command", metavar="EVAL_COMMAND")
    p.set_defaults(handler=lambda args, ctx: (p.print_help(), 2)[1])

    r = esub.add_parser("run", help="Answer a question set (or a benchmark) and write results, summary, report and plots.")
    r.add_argument("--questions", type=Path, help=f"Question set JSONL (default: {DEFAULT_QUESTIONS.relative_to(PROJECT_DIR)}).")
    r.add_argument("--out", type=Path, help="Run directory (default: eval/runs/<dataset or questions>-<time>).")
    r.add_argument("--retrieval-only", action="store_true", help="Only retrieve (no answers): retrieval metrics only, fast.")
    r.add_argument("--dataset", choices=["scifact", "pubmedqa"], help="Evaluate on a public benchmark instead of a question set.")
    r.add_argument("--limit", type=int, help=f"Only the first N questions (benchmarks: default {DATASET_LIMIT}).")
    r.add_argument("--corpus-size", type=int,
                   help=f"Benchmarks: corpus of N abstracts, the gold ones plus sampled distractors (default {DATASET_CORPUS}; "
                        "0 = the whole corpus, which takes long to embed on a CPU).")
    r.add_argument("--dataset-dir", type=Path,
                   help="Benchmarks: store directory for the benchmark corpus (default: <data dir>-eval-<dataset>).")
    r.add_argument("--resume", action="store_true",
                   help="Continue an interrupted run in --out (same settings): finished questions are not asked again.")
    r.add_argument("--judge", metavar="JUDGE",
                   help="Also score answers with a judge model: 'openai' (answer.openai_* settings) or 'hf:DIR'.")
    r.add_argument("--split", choices=["tune", "heldout"],
                   help="Only one half of the question set, fixed by a hash of each id (tune on one, report both).")
    r.add_argument("--no-plots", action="store_true", help="Skip the PNG plots.")
    r.add_argument("--quiet", action="store_true", help="No progress bar.")
    r.set_defaults(handler=cmd_run)

    c = esub.add_parser("compare", help="Is B really better than A? Paired differences with 95%% CIs, p-values and the "
                                        "questions whose outcome changed.")
    c.add_argument("runs", type=Path, nargs="+", metavar="RUN", help="Two or more run directories (eval run --out).")
    c.add_argument("--baseline", help="Run (directory name or path) the others are compared with (default: the first).")
    c.add_argument("--out", type=Path, help="Directory for compare.md, compare.json and compare_diffs.png.")
    c.add_argument("--resamples", type=int, default=10_000, help="Bootstrap resamples (default 10000).")
    c.add_argument("--seed", type=int, default=0, help="Random seed of the bootstrap and permutation test.")
    c.set_defaults(handler=cmd_compare)

    j = esub.add_parser("judge", help="Score the answers of a finished run with a judge model (correctness, faithfulness, "
                                      "relevance); parse failures are counted and reported.")
    j.add_argument("run", type=Path, help="Run directory (eval run --out).")
    j.add_argument("--judge", metavar="JUDGE", required=True, help="'openai' (answer.openai_* settings) or 'hf:DIR'.")
    j.add_argument("--quiet", action="store_true", help="No progress bar.")
    j.set_defaults(handler=cmd_judge)

    k = esub.add_parser("corpora", help="Build the development corpora from ../shared/data, ingest each into its own "
                                        "store and answer its questions: one scorecard column per corpus.")
    k.add_argument("names", nargs="*", metavar="NAME", help="Runs to do (default: all; `python -m eval.corpora list`).")
    k.add_argument("--out", type=Path, help="Directory for the runs (default: eval/runs/corpora-<time>).")
    k.add_argument("--store-root", type=Path,
                   help="Parent of the per-corpus stores (default: <data dir>-corpora; re-ingesting is skipped when unchanged).")
    k.add_argument("--limit", type=int, help="Only the first N questions of each set.")
    k.add_argument("--role", choices=["tune", "heldout"], help="Only the corpora of this role.")
    k.add_argument("--quiet", action="store_true", help="No progress bars.")
    k.set_defaults(handler=cmd_corpora)

    f = esub.add_parser("export-feedback", help="Turn thumbs-down feedback into candidate eval questions.")
    f.add_argument("--feedback", type=Path, help="Feedback JSONL (default: <data dir>/feedback.jsonl).")
    f.add_argument("--out", type=Path, required=True, help="Candidate questions JSONL to write.")
    f.add_argument("--all", action="store_true", help="Export every rated answer, not only thumbs-down.")
    f.set_defaults(handler=cmd_export_feedback)


def _print_summary(summary: dict, out: Path) -> None:
    from eval.report import fmt

    o = summary["overall"]
    shown = [(m, v) for m, v in o.items() if v is not None]
    width = max((len(m) for m, _ in shown), default=10)
    for m, v in shown:
        print(f"{m:{width}}  {fmt(v, m)}")
    if summary.get("scorecard"):
        from eval.scorecard import table

        print(table({"scorecard" + (f" ({summary['split']})" if summary.get("split") else ""): summary["scorecard"]}))
    print(f"{summary['counts']['overall']} questions -> {out}/ (results.jsonl, summary.json, report.md)")
    for w in summary.get("warnings") or []:
        print(f"warning: {w}", file=sys.stderr)
    if summary.get("errors"):
        print(f"warning: {summary['errors']} question(s) failed; see report.md", file=sys.stderr)


def cmd_run(args, ctx) -> int:
    from eval.runner import run_eval

    settings = ctx.settings
    notes: list[str] = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    judge = None
    if args.judge:  # before any ingest or question: a judge that cannot be reached fails first
        if args.retrieval_only:
            raise ConfigError("--judge needs answers; it cannot be used with --retrieval-only.", hint="Drop one of them.")
        from eval.judge import make_judge

        judge = make_judge(args.judge, settings)
    if args.dataset:
        if args.questions:
            raise ConfigError("Give either --questions or --dataset, not both.", hint="paperchat eval run --dataset scifact --limit 50")
        from tqdm import tqdm

        from eval import datasets

        limit = args.limit if args.limit is not None else DATASET_LIMIT
        corpus_size = args.corpus_size if args.corpus_size is not None else DATASET_CORPUS
        base = settings.store.data_dir
        store = (args.dataset_dir or base.with_name(f"{base.name}-eval-{args.dataset}")).expanduser()
        settings = settings.with_overrides({"store.data_dir": str(store)})
        out = args.out or PROJECT_DIR / "eval" / "runs" / f"{args.dataset}-{stamp}"
        qpath, cpath, questions = datasets.prepare(args.dataset, Path(out) / "dataset", limit=limit,
                                                   corpus_size=corpus_size or None)
        n_docs = sum(1 for _ in open(cpath, encoding="utf-8"))
        print(f"{args.dataset}: {len(questions)} questions, corpus of {n_docs} abstracts -> store {store}", file=sys.stderr)
        with tqdm(total=n_docs, unit="abstract", disable=args.quiet, file=sys.stderr, desc="ingest") as bar:
            report, removed = datasets.ingest(settings, cpath, progress=bar.update)
        print(report.summary() + (f" {removed} paper(s) of an earlier, bigger corpus removed." if removed else ""),
              file=sys.stderr)
        notes.append(f"Benchmark {args.dataset}: first {len(questions)} questions, {n_docs} abstracts in a dedicated "
                     f"store ({store}); gold = the judged doc ids (gold_ids), so retrieval metrics and citation "
                     "precision/recall apply; every question is answerable, so abstention recall is undefined.")
        if corpus_size:
            notes.append(f"The corpus was capped at {corpus_size} abstracts: the gold ones plus sampled distractors, "
                         "an easier task than the full benchmark (published numbers use the whole corpus).")
        questions_path, q_limit = qpath, None
    else:
        questions_path = args.questions or DEFAULT_QUESTIONS
        out = args.out or PROJECT_DIR / "eval" / "runs" / f"{questions_path.stem}-{stamp}"
        q_limit = args.limit
    summary = run_eval(questions_path, out, settings, retrieval_only=args.retrieval_only, progress=not args.quiet,
                       limit=q_limit, plots=not args.no_plots, extra_notes=notes, resume=args.resume, judge=judge,
                       split=args.split)
    _print_summary(summary, Path(out))
    return 0


def cmd_compare(args, ctx) -> int:  # noqa: ARG001
    from eval.compare import compare_runs
    from eval.compare_report import render, write_comparison

    if len(args.runs) < 2:
        raise ConfigError("Give at least two run directories.", hint="paperchat eval compare eval/runs/a eval/runs/b --out cmp")
    for d in args.runs:
        if not (d / "summary.json").is_file():
            raise ConfigError(f"{d} is not an eval run (no summary.json).", hint="Give directories written by `paperchat eval run`.")
    if not 100 <= args.resamples <= 1_000_000:
        raise ConfigError(f"--resamples {args.resamples} is out of range.", hint="Use 100..1000000 (default 10000).")
    try:
        cmp = compare_runs(*args.runs, baseline=args.baseline, resamples=args.resamples, seed=args.seed)
    except KeyError:
        raise ConfigError(f"--baseline {args.baseline} is none of the runs given.",
                          hint="Name one of the run directories (its name or path).") from None
    if args.out:  # files first: a closed pipe (`| head`) must not lose them
        path = write_comparison(cmp, args.out)
        print(f"written: {path} (+ compare.json and compare_diffs.png)", file=sys.stderr)
    print(render(cmp))
    return 0


def cmd_judge(args, ctx) -> int:
    from tqdm import tqdm

    from eval.judge import judge_run, make_judge, note

    if not (args.run / "summary.json").is_file():
        raise ConfigError(f"{args.run} is not an eval run (no summary.json).", hint="Give a directory written by `paperchat eval run`.")
    if not (args.run / "results.jsonl").is_file():
        raise ConfigError(f"{args.run} has no results.jsonl to judge.", hint="Give a directory written by `paperchat eval run`.")
    judge = make_judge(args.judge, ctx.settings)
    with open(args.run / "results.jsonl", "rb") as f:  # for the progress bar; a damaged file is named by judge_run
        n = sum(1 for line in f if line.strip())
    with tqdm(total=n, unit="question", desc="judge", file=sys.stderr, disable=args.quiet) as bar:
        summary = judge_run(args.run, judge, progress=lambda: bar.update(1))
    print(note(summary["judge"]))
    if any(c["parse_failures"] + c["errors"] for c in summary["judge"]["counts"].values()):
        print("warning: some judge replies were unparseable or failed; they are left out, see results.jsonl 'judge'",
              file=sys.stderr)
    return 0


def cmd_corpora(args, ctx) -> int:
    from eval import corpora

    unknown = [n for n in args.names if n not in corpora.RUNS]
    if unknown:
        raise ConfigError(f"Unknown corpus run: {', '.join(unknown)}.", hint="Choose from: " + ", ".join(corpora.RUNS))
    if not (corpora.SHARED / corpora.ARXIV).is_file():
        raise ConfigError(f"The shared data is not at {corpora.SHARED}.",
                          hint="The development corpora are built from ../shared/data next to the project.")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit {args.limit} must be at least 1.", hint="Leave it out to ask every question.")
    names = [n for n in (args.names or corpora.RUNS) if not args.role or corpora.RUNS[n].role == args.role]
    base = ctx.settings.store.data_dir
    store_root = (args.store_root or base.with_name(f"{base.name}-corpora")).expanduser()
    out = args.out or PROJECT_DIR / "eval" / "runs" / f"corpora-{time.strftime('%Y%m%d-%H%M%S')}"
    summaries = corpora.run_corpora(names, ctx.settings, Path(out), store_root, progress=not args.quiet, limit=args.limit)
    table = corpora.corpora_table(summaries)
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / "corpora.md").write_text(table + "\n", encoding="utf-8")
    print(table)
    print(f"{len(summaries)} run(s) -> {out}/ (one directory each, and corpora.md)")
    return 0


def cmd_export_feedback(args, ctx) -> int:
    from eval.datasets import feedback_to_questions, read_feedback

    path = args.feedback or ctx.settings.store.data_dir / "feedback.jsonl"
    if not path.is_file():
        raise ConfigError(f"No feedback file at {path}.", hint="Rate answers in the UI first (thumbs up/down), or pass --feedback FILE.")
    records, bad = read_feedback(path)
    candidates = feedback_to_questions(records, include_all=args.all)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for q in candidates:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")
    which = "rated" if args.all else "thumbs-down"
    print(f"{len(candidates)} candidate question(s) from {len(records)} feedback record(s) ({which}) -> {args.out}")
    if bad:
        print(f"warning: {bad} unreadable line(s) in {path} were skipped", file=sys.stderr)
    if candidates:
        print("next: fill in `gold` for each candidate (see its `todo`), then append them to eval/questions.jsonl.")
    return 0
