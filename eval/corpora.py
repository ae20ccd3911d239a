"""Development corpora: abstracts from `../shared/data`, each with questions written for it alone.

A user's corpus is never the bundled one, so the answer path is measured on several corpora built
here from the shared data (nothing is copied into the repository but this script and the question
files in `eval/corpora/<name>/questions.jsonl`, written by readers who saw only that corpus).

    python -m eval.corpora build [NAME ...] [--out DIR]   # writes DIR/<name>/corpus.<jsonl|bib>
    python -m eval.corpora list
    paperchat eval corpora [NAME ...]                      # build, ingest and run every corpus: a table each

Which corpora are tuned on was decided before any tuning (see `ROLE`): the answer layer may be
fitted to the `tune` ones; the `heldout` ones are looked at in aggregate only.

Every build is deterministic: the same shared data gives byte-identical files (papers are picked by
a hash of their id, not by file order or a random generator).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the env var for other layouts
SHARED = Path(os.environ.get("PAPERCHAT_SHARED_DATA") or ROOT.parent / "shared" / "data")
QUESTIONS_DIR = ROOT / "eval" / "corpora"
DEFAULT_OUT = Path.home() / ".cache" / "paperchat" / "corpora"
ARXIV = "arxiv/arxiv_cs_abstracts_2025-2026.jsonl.gz"


@dataclass(frozen=True)
class CorpusSpec:
    name: str
    role: str  # "tune" or "heldout", fixed before tuning
    what: str
    build: Callable[[Path], Iterator[dict]]
    fmt: str = "jsonl"  # "jsonl" or "bib": the reader a user's file would go through
    distractors: int = 0  # arXiv abstracts from other fields mixed in (a library of realistic size)
    questions: str = ""  # the corpus whose question file this one uses ("" = its own)


def _rank(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _arxiv_rows(shared: Path) -> Iterator[dict]:
    with gzip.open(shared / ARXIV, "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def _primary(row: dict) -> str:
    cats = row.get("categories") or ""
    if isinstance(cats, str):
        try:
            cats = ast.literal_eval(cats) if cats.startswith("[") else cats.split()
        except (ValueError, SyntaxError):
            cats = cats.split()
    return cats[0] if cats else ""


def _authors(row: dict) -> list[str]:
    value = row.get("authors") or []
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value) if value.startswith("[") else [a.strip() for a in value.split(",")]
        except (ValueError, SyntaxError):
            value = [value]
    return [str(a) for a in value if str(a).strip()]


def _arxiv_record(row: dict) -> dict:
    return {"id": f"arXiv:{row['id']}", "title": row["title"].strip(), "abstract": " ".join(row["abstract"].split()),
            "authors": _authors(row), "year": int(str(row.get("first_seen") or "0000")[:4]) or None,
            "venue": "arXiv " + _primary(row)}


def arxiv_slice(categories: tuple[str, ...], n: int, salt: str) -> Callable[[Path], Iterator[dict]]:
    def build(shared: Path) -> Iterator[dict]:
        rows = [r for r in _arxiv_rows(shared) if _primary(r) in categories and len(r.get("abstract", "")) > 200]
        rows.sort(key=lambda r: _rank(salt + r["id"]))
        for r in sorted(rows[:n], key=lambda r: r["id"]):
            yield _arxiv_record(r)
    return build


def arxiv_distractors(exclude: tuple[str, ...], n: int, shared: Path = SHARED) -> Iterator[dict]:
    """`n` arXiv abstracts whose primary category is none of `exclude`, picked by a hash of the id."""
    rows = [r for r in _arxiv_rows(shared) if _primary(r) not in exclude and len(r.get("abstract", "")) > 200]
    rows.sort(key=lambda r: _rank("distractor" + r["id"]))
    for r in sorted(rows[:n], key=lambda r: r["id"]):
        yield _arxiv_record(r)


HELDOUT_CATEGORIES = ("cs.GR", "eess.IV", "cs.IT", "cs.CE", "cs.SD")  # the held-out arXiv corpora's fields
# primary categories of the other arXiv corpora (tuning and held out): the "rest" corpus takes none of them
EVAL_CATEGORIES = ("cs.CL", "cs.AI", "cs.RO", "cs.GT", "cs.CV", "cs.LG", "cs.GR", "eess.IV", "cs.IT", "cs.CE", "cs.SD")


def arxiv_rest(n: int, salt: str) -> Callable[[Path], Iterator[dict]]:
    """`n` arXiv abstracts from the fields no other corpus draws on (human-computer interaction, retrieval,
    security, systems, software, ...), none of them a distractor of a held-out corpus."""
    def build(shared: Path) -> Iterator[dict]:
        held = {r["id"] for r in arxiv_distractors(("cs.GR", "eess.IV"), 5000, shared)}
        rows = [r for r in _arxiv_rows(shared) if _primary(r) not in EVAL_CATEGORIES
                and len(r.get("abstract", "")) > 200 and f"arXiv:{r['id']}" not in held]
        rows.sort(key=lambda r: _rank(salt + r["id"]))
        for r in sorted(rows[:n], key=lambda r: r["id"]):
            yield _arxiv_record(r)
    return build


def pubmedqa(shared: Path) -> Iterator[dict]:
    """PubMedQA PQA-L: each question's contexts joined as one abstract (the question itself is not the title)."""
    data = json.loads((shared / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    for pmid in sorted(data, key=int):
        row = data[pmid]
        text = " ".join(" ".join(c.split()) for c in row["CONTEXTS"])
        year = int(row["YEAR"]) if str(row.get("YEAR", "")).isdigit() else None
        yield {"id": f"PMID:{pmid}", "title": "", "abstract": text, "year": year}


def scifact(shared: Path) -> Iterator[dict]:
    with open(shared / "scifact" / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row.get("text", "").strip():
                yield {"id": f"scifact:{row['_id']}", "title": row["title"].strip(),
                       "abstract": " ".join(row["text"].split())}


SPECS: dict[str, CorpusSpec] = {s.name: s for s in (
    CorpusSpec("arxiv-cl", "tune", "400 arXiv abstracts, primary category cs.CL (language)",
               arxiv_slice(("cs.CL",), 400, "cl")),
    CorpusSpec("pubmedqa", "tune", "PubMedQA PQA-L: 1,000 biomedical abstracts (structured contexts, no titles)",
               pubmedqa),
    CorpusSpec("arxiv-ai-ro", "tune", "400 arXiv abstracts, primary category cs.AI, cs.RO or cs.GT (AI, robotics, "
               "game theory); added 2026-12-02 evening as a third tuning corpus",
               arxiv_slice(("cs.AI", "cs.RO", "cs.GT"), 400, "ai-ro")),
    CorpusSpec("arxiv-cv-lg", "tune", "400 arXiv abstracts, primary category cs.CV or cs.LG (vision, machine "
               "learning); added 2026-12-02 night as a fourth tuning corpus",
               arxiv_slice(("cs.CV", "cs.LG"), 400, "cv-lg")),
    CorpusSpec("arxiv-lg-bib", "tune", "400 arXiv abstracts, primary category cs.LG (machine learning, much of it "
               "theory with TeX), as BibTeX; added 2026-12-03 as a fifth tuning corpus, its questions weighted to the "
               "kinds that fail on the held-out corpora", arxiv_slice(("cs.LG",), 400, "lg-bib"), fmt="bib"),
    CorpusSpec("arxiv-rest", "tune", "400 arXiv abstracts from the fields no other corpus draws on (cs.HC, cs.IR, "
               "cs.CR, eess.SY, cs.CY, cs.SE, ...), none a distractor of a held-out corpus; added 2026-12-03 evening "
               "as a sixth tuning corpus, its questions weighted to lists, comparisons and absent topics",
               arxiv_rest(400, "rest")),
    CorpusSpec("arxiv-ai-ro-5k", "tune", "arxiv-ai-ro mixed with 5,000 arXiv abstracts of fields no held-out corpus "
               "draws on; added 2026-12-04 as a tuning corpus of library size (the only mixed one had been held out)",
               arxiv_slice(("cs.AI", "cs.RO", "cs.GT"), 400, "ai-ro"), distractors=5000, questions="arxiv-ai-ro"),
    CorpusSpec("arxiv-cv", "tune", "500 arXiv abstracts, primary category cs.CV (vision), another draw than "
               "arxiv-cv-lg's; added 2026-12-04 night as a tuning corpus with new names and a new question writer",
               arxiv_slice(("cs.CV",), 500, "cv")),
    CorpusSpec("arxiv-ai", "tune", "400 arXiv abstracts, primary category cs.AI only, another draw than arxiv-ai-ro's, "
               "as BibTeX; added 2026-12-06 afternoon as a tuning corpus with a new question writer, its questions "
               "weighted to answerable ones in varied style", arxiv_slice(("cs.AI",), 400, "ai-2"), fmt="bib"),
    CorpusSpec("arxiv-gr-iv", "heldout", "400 arXiv abstracts, primary category cs.GR or eess.IV (graphics, imaging)",
               arxiv_slice(("cs.GR", "eess.IV"), 400, "gr-iv")),
    CorpusSpec("arxiv-it-ce", "heldout", "375 arXiv abstracts, primary cs.IT, cs.CE or cs.SD (information theory, "
               "computational engineering, sound), as BibTeX", arxiv_slice(("cs.IT", "cs.CE", "cs.SD"), 375, "it-ce"),
               fmt="bib"),
    CorpusSpec("scifact", "heldout", "SciFact: 5,183 biomedical abstracts", scifact),
    CorpusSpec("arxiv-gr-iv-5k", "heldout", "arxiv-gr-iv mixed with 5,000 arXiv abstracts of other fields",
               arxiv_slice(("cs.GR", "eess.IV"), 400, "gr-iv"), distractors=5000, questions="arxiv-gr-iv"),
)}
ROLE = {name: spec.role for name, spec in SPECS.items()}


def _bib_escape(text: str) -> str:
    """Braces that do not balance are escaped; TeX in the text (`$-\\infty$`) is kept as BibTeX keeps it."""
    return text if text.count("{") == text.count("}") else text.replace("{", "\\{").replace("}", "\\}")


def to_bibtex(rec: dict) -> str:
    key = rec["id"].replace("arXiv:", "arxiv").replace(".", "_")
    fields = {"title": rec["title"], "author": " and ".join(rec.get("authors") or []), "abstract": rec["abstract"],
              "year": str(rec["year"] or ""), "journal": rec.get("venue") or "",
              "eprint": rec["id"].removeprefix("arXiv:")}
    body = ",\n".join(f"  {k} = {{{_bib_escape(v)}}}" for k, v in fields.items() if v)
    return f"@article{{{key},\n{body}\n}}\n"


def corpus_path(name: str, out: Path = DEFAULT_OUT) -> Path:
    return out / name / f"corpus.{SPECS[name].fmt}"


def questions_path(name: str) -> Path:
    spec = SPECS[name]
    return QUESTIONS_DIR / (spec.questions or name) / "questions.jsonl"


def build(name: str, out: Path = DEFAULT_OUT, shared: Path = SHARED) -> Path:
    """Write corpus `name` under `out`; returns the file (rebuilt every time; deterministic)."""
    spec = SPECS[name]
    records = list(spec.build(shared))
    if spec.distractors:
        ids = {r["id"] for r in records}
        cats = tuple({r["venue"].removeprefix("arXiv ") for r in records})
        if spec.role == "tune":  # a tuning mix holds no abstract of a held-out corpus's fields
            cats += HELDOUT_CATEGORIES
        records += [r for r in arxiv_distractors(cats, spec.distractors, shared) if r["id"] not in ids]
    path = corpus_path(name, out)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".part")
    with open(tmp, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(to_bibtex(rec) + "\n" if spec.fmt == "bib"
                    else json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
    tmp.replace(path)
    return path


# ------------------------------------------------------------------------------------------- runs

@dataclass(frozen=True)
class Run:
    """One row of `paperchat eval corpora`: a corpus, a question set over it, and its role."""
    name: str
    corpus: str  # a key of SPECS, or "bundled" (data/corpus.jsonl)
    role: str
    split: str | None = None  # a half of a question set also used for tuning
    pubmedqa_own: int = 0  # PubMedQA's own expert questions (the first N) instead of a question file
    questions: str = ""  # a second question set over the corpus: eval/corpora/<questions>/questions.jsonl


DEV_QUESTIONS = SHARED / "questions-dev.jsonl"
RUNS: dict[str, Run] = {r.name: r for r in (
    Run("dev-tune", "bundled", "tune", split="tune"),
    Run("dev-heldout", "bundled", "heldout", split="heldout"),
    *(Run(n, n, s.role) for n, s in SPECS.items()),
    Run("pubmedqa-own", "pubmedqa", "tune", pubmedqa_own=300),
    Run("pubmedqa-b", "pubmedqa", "tune", questions="pubmedqa-b"),
    Run("arxiv-cv-lg-b", "arxiv-cv-lg", "tune", questions="arxiv-cv-lg-b"),
    Run("arxiv-ai-ro-b", "arxiv-ai-ro", "tune", questions="arxiv-ai-ro-b"),
    Run("arxiv-cl-b", "arxiv-cl", "tune", questions="arxiv-cl-b"),
    Run("arxiv-lg-bib-b", "arxiv-lg-bib", "tune", questions="arxiv-lg-bib-b"),
    Run("arxiv-rest-b", "arxiv-rest", "tune", questions="arxiv-rest-b"),
    Run("pubmedqa-c", "pubmedqa", "tune", questions="pubmedqa-c"),
    Run("arxiv-lg-bib-c", "arxiv-lg-bib", "tune", questions="arxiv-lg-bib-c"),
    Run("arxiv-cv-b", "arxiv-cv", "tune", questions="arxiv-cv-b"),
)}


def _questions_for(run: Run, out: Path) -> Path:
    if run.corpus == "bundled":
        return DEV_QUESTIONS
    if run.pubmedqa_own:
        from .datasets import pubmedqa_questions, write_jsonl

        rows = pubmedqa_questions(SHARED / "pubmedqa" / "ori_pqal.json", limit=run.pubmedqa_own)
        for r in rows:  # a yes/no question about one abstract: the right paper must be cited
            r["kind"], r["gold_ids"] = "factoid", [f"PMID:{i}" for i in r["gold_ids"]]
        return write_jsonl(rows, out / "questions.jsonl")
    return _question_file(run)


def _question_file(run: Run) -> Path:
    return QUESTIONS_DIR / run.questions / "questions.jsonl" if run.questions else questions_path(run.corpus)


def _ingest(corpus: str, settings, files: Path, progress: bool) -> None:
    """The corpus in its own store (`settings.store.data_dir`), through the reader a user's file goes through."""
    from assistant.index.indexer import Index
    from assistant.pipeline import ingest_paths

    path = (ROOT / "data" / "corpus.jsonl") if corpus == "bundled" else build(corpus, files)
    index = Index(settings)
    bar = None
    if progress:
        from tqdm import tqdm

        if path.suffix == ".bib":
            n = path.read_text(encoding="utf-8").count("@article{")
        else:
            with open(path, encoding="utf-8") as f:
                n = sum(1 for _ in f)
        bar = tqdm(total=n, unit="abstract", desc=f"ingest {corpus}", file=sys.stderr)
    report = ingest_paths(index, [path], progress=bar.update if bar else None)
    if bar:
        bar.close()
    print(f"{corpus}: {report.summary()}", file=sys.stderr)


def run_corpora(names: list[str], settings, out: Path, store_root: Path, files: Path = DEFAULT_OUT,
                progress: bool = True, limit: int | None = None) -> dict[str, dict]:
    """Build, ingest and answer every run in `names` (default: all); returns run name -> summary.
    Each corpus has its own store under `store_root` (re-ingesting an unchanged corpus changes nothing)."""
    from .runner import run_eval

    summaries: dict[str, dict] = {}
    for name in names or list(RUNS):
        run = RUNS[name]
        missing = run.corpus != "bundled" and not run.pubmedqa_own and not _question_file(run).is_file()
        if missing:
            print(f"{name}: no question file at {_question_file(run)}; skipped", file=sys.stderr)
            continue
        s = settings.with_overrides({"store.data_dir": str(store_root / run.corpus)})
        _ingest(run.corpus, s, files, progress)
        run_out = out / name
        run_out.mkdir(parents=True, exist_ok=True)
        summaries[name] = run_eval(_questions_for(run, run_out), run_out, s, progress=progress, limit=limit,
                                   plots=False, split=run.split,
                                   extra_notes=[f"Development corpus {run.corpus} ({run.role}); eval/corpora.py"])
    return summaries


def corpora_table(summaries: dict[str, dict]) -> str:
    """One column per run (role in the header), the scorecard's figures as rows; and the mean answer time."""
    from .scorecard import table

    cards = {f"{n} ({RUNS[n].role})": s["scorecard"] for n, s in summaries.items() if s.get("scorecard")}
    lines = [table(cards)] if cards else []
    times = [f"{n}: {s['overall'].get('total_p50_s') or 0:.2f}" for n, s in summaries.items() if s.get("overall")]
    if times:
        lines.append("answer time p50 (s): " + ", ".join(times))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.corpora", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="Build corpora from ../shared/data.")
    b.add_argument("names", nargs="*", choices=list(SPECS), metavar="NAME")
    b.add_argument("--out", type=Path, default=DEFAULT_OUT)
    sub.add_parser("list", help="The corpora, their role (tune/heldout) and what they hold.")
    args = ap.parse_args(argv)
    if args.cmd == "list":
        for s in SPECS.values():
            print(f"{s.name:16} {s.role:8} {s.what}")
        return 0
    if not (SHARED / ARXIV).exists():
        print(f"error: {SHARED} not found; the corpora are built from ../shared/data next to the project.",
              file=sys.stderr)
        return 2
    for name in args.names or list(SPECS):
        path = build(name, args.out)
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
