"""Development corpora: abstracts from `../shared/data`, each with questions written for it alone.

A user's corpus is never the bundled one, so the answer path is measured on several corpora built
here from the shared data (nothing is copied into the repository but this script and the question
files in `eval/corpora/<name>/questions.jsonl`, written by readers who saw only that corpus).

    python -m eval.corpora build [NAME ...] [--out DIR]   # writes DIR/<name>/corpus.<jsonl|bib>
    python -m eval.corpora list

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
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
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


def arxiv_distractors(exclude: tuple[str, ...], n: int) -> Iterator[dict]:
    """`n` arXiv abstracts whose primary category is none of `exclude`, picked by a hash of the id."""
    shared = SHARED
    rows = [r for r in _arxiv_rows(shared) if _primary(r) not in exclude and len(r.get("abstract", "")) > 200]
    rows.sort(key=lambda r: _rank("distractor" + r["id"]))
    for r in sorted(rows[:n], key=lambda r: r["id"]):
        yield _arxiv_record(r)


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
                yield {"id": f"scifact:{row['_id']}", "title": row["title"].strip(), "abstract": " ".join(row["text"].split())}


SPECS: dict[str, CorpusSpec] = {s.name: s for s in (
    CorpusSpec("arxiv-cl", "tune", "400 arXiv abstracts, primary category cs.CL (language)",
               arxiv_slice(("cs.CL",), 400, "cl")),
    CorpusSpec("pubmedqa", "tune", "PubMedQA PQA-L: 1,000 biomedical abstracts (structured contexts, no titles)", pubmedqa),
    CorpusSpec("arxiv-gr-iv", "heldout", "400 arXiv abstracts, primary category cs.GR or eess.IV (graphics, imaging)",
               arxiv_slice(("cs.GR", "eess.IV"), 400, "gr-iv")),
    CorpusSpec("arxiv-it-ce", "heldout", "375 arXiv abstracts, primary cs.IT, cs.CE or cs.SD (information theory, "
               "computational engineering, sound), as BibTeX", arxiv_slice(("cs.IT", "cs.CE", "cs.SD"), 375, "it-ce"), fmt="bib"),
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
              "year": str(rec["year"] or ""), "journal": rec.get("venue") or "", "eprint": rec["id"].removeprefix("arXiv:")}
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
        records += [r for r in arxiv_distractors(cats, spec.distractors) if r["id"] not in ids]
    path = corpus_path(name, out)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".part")
    with open(tmp, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(to_bibtex(rec) + "\n" if spec.fmt == "bib" else json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
    tmp.replace(path)
    return path


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
        print(f"error: {SHARED} not found; the corpora are built from ../shared/data next to the project.", file=sys.stderr)
        return 2
    for name in args.names or list(SPECS):
        path = build(name, args.out)
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
