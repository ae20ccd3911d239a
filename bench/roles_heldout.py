"""Comparison-table roles against a held-out labelled sample (issue 21: >= 0.85 of cells in the reader's column).

    .venv/bin/python bench/roles_heldout.py [--out roles-heldout.json]

`eval/roles-heldout.jsonl`: every sentence of 44 abstracts of the held-out corpora (arxiv-gr-iv, arxiv-it-ce,
scifact), labelled problem / method / data / result / other by readers who saw neither the role model nor its
rules nor its training data (20 abstracts on 2026-12-03, 24 more, picked by a hash among those of 4-12
sentences, by a second reader on 2026-12-03 evening); stored as ids, sentence hashes and roles, the text rebuilt from
../shared/data through the corpus builder and the reader a user's file goes through. Each abstract's
sentences are classified together (`roles.classify`) and each sentence alone; and the comparison table's
cells are filled as the table fills them (`roles.assign`, pointer sentences skipped): `cells` is the share of
filled cells whose sentence the reader put in that column (the issue's figure). Never used for fitting.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.answer.prose import is_debris
from assistant.answer.roles import assign, classify
from assistant.index.sentences import split_sentences
from assistant.ingest import read_source
from assistant.types import Record
from eval.corpora import build

SAMPLE = Path(__file__).resolve().parent.parent / "eval" / "roles-heldout.jsonl"


def sha(s: str) -> str:
    return hashlib.sha1(s.encode()).hexdigest()[:10]


def load(sample: Path = SAMPLE) -> list[dict]:
    """The labelled abstracts with their sentences rebuilt (SystemExit when a text no longer matches its hashes)."""
    rows = [json.loads(line) for line in sample.read_text(encoding="utf-8").split("\n") if line.strip()]
    texts: dict[str, str] = {}
    for corpus in dict.fromkeys(r["corpus"] for r in rows):
        wanted = {r["id"] for r in rows if r["corpus"] == corpus}
        texts.update({x.paper_id: x.text for x in read_source(build(corpus))
                      if isinstance(x, Record) and x.paper_id in wanted})
    out = []
    for r in rows:
        sents = [s.text for s in split_sentences(texts.get(r["id"], ""))]
        if [sha(s) for s in sents] != r["sha1"]:
            raise SystemExit(f"{r['id']}: its sentences are not the labelled ones (shared data or splitter changed)")
        out.append({**r, "sentences": sents})
    return out


def score(gold: list[str], pred: list[str]) -> dict:
    ok = sum(g == p for g, p in zip(gold, pred))
    confusion: dict[str, Counter] = {}
    for g, p in zip(gold, pred):
        confusion.setdefault(g, Counter())[p] += 1
    recall = {g: round(c[g] / sum(c.values()), 3) for g, c in sorted(confusion.items())}
    return {"n": len(gold), "accuracy": round(ok / max(len(gold), 1), 3), "recall": recall,
            "confusion": {g: dict(c) for g, c in sorted(confusion.items())}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="write the figures as JSON")
    args = ap.parse_args(argv)
    rows = load()
    gold, in_abstract, alone = [], [], []
    by_corpus: dict[str, tuple[list[str], list[str]]] = {}
    for r in rows:
        pred = classify(r["sentences"])
        gold += r["roles"]
        in_abstract += pred
        alone += [classify([s])[0] for s in r["sentences"]]
        g, p = by_corpus.setdefault(r["corpus"], ([], []))
        g += r["roles"]
        p += pred
    cells = [(r["roles"][i], column.lower()) for r in rows
             for column, i in assign(r["sentences"], skip=frozenset(
                 i for i, s in enumerate(r["sentences"]) if is_debris(s))).items() if i is not None]
    figures = {"abstracts": len(rows), "cells": {"n": len(cells), "accuracy": round(
                   sum(g == c for g, c in cells) / max(len(cells), 1), 3)},
               "in_abstract": score(gold, in_abstract), "alone": score(gold, alone),
               "by_corpus": {c: score(g, p)["accuracy"] for c, (g, p) in by_corpus.items()},
               "target": 0.85}
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
