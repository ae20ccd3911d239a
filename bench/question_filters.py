"""Precision and recall of the question-filter parser on tests/fixtures/filter_questions.jsonl.

Each question of the fixture (40, written for this parser: with and without filters, ambiguous years,
names that are not authors) carries the filters it should give, against the corpus described in
tests/fixtures/filter_vocabulary.json. A filter field is one (field, value) pair; each category counts
on its own. Also the parse time per question. `--set heldout` scores filter_questions_heldout.jsonl: 16
questions written after the parser was done and left unfixed (the 40 were written beside the parser).

    .venv/bin/python bench/question_filters.py [--out bench/results/question_filters.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, ROOT, machine_info, write_json

FIXTURES = ROOT / "tests" / "fixtures"


def _pairs(d: dict) -> set:
    out: set = set()
    for k, v in d.items():
        out |= {(k, c) for c in v} if k == "categories" else {(k, v)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=("main", "heldout"), default="main")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    from assistant.retrieve.query_filters import Vocabulary, parse_filters
    from assistant.types import Record

    vocab = Vocabulary.build(Record.from_dict(d) for d in
                             json.loads((FIXTURES / "filter_vocabulary.json").read_text(encoding="utf-8"))["records"])
    name = "filter_questions.jsonl" if args.set == "main" else "filter_questions_heldout.jsonl"
    rows = [json.loads(x) for x in (FIXTURES / name).read_text(encoding="utf-8").splitlines()]
    args.out = args.out or RESULTS / f"question_filters-{args.set}.json"
    tp = fp = fn = 0
    per_field: dict[str, list[int]] = {}
    wrong, took = [], []
    for q in rows:
        t = time.perf_counter()
        got = _pairs(parse_filters(q["question"], vocab).filters.describe())
        took.append(time.perf_counter() - t)
        exp = _pairs(q["expected"])
        tp, fp, fn = tp + len(got & exp), fp + len(got - exp), fn + len(exp - got)
        for field, _ in got | exp:
            c = per_field.setdefault(field, [0, 0, 0])
            c[0] += len({p for p in got & exp if p[0] == field})
            c[1] += len({p for p in got - exp if p[0] == field})
            c[2] += len({p for p in exp - got if p[0] == field})
        if got != exp:
            wrong.append({"id": q["id"], "question": q["question"], "got": sorted(map(list, got)),
                          "expected": sorted(map(list, exp))})
    precision, recall = tp / max(1, tp + fp), tp / max(1, tp + fn)
    out = {
        "set": name, "questions": len(rows), "with_filters": sum(1 for r in rows if r["expected"]),
        "precision": round(precision, 4), "recall": round(recall, 4), "tp": tp, "fp": fp, "fn": fn,
        "per_field": {k: {"tp": v[0], "fp": v[1], "fn": v[2]} for k, v in sorted(per_field.items())},
        "parse_ms_mean": round(1000 * sum(took) / len(took), 3), "wrong": wrong,
        "machine": machine_info(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    print(f"{len(rows)} questions ({out['with_filters']} with filters): precision {precision:.3f}, recall {recall:.3f} "
          f"(tp {tp}, fp {fp}, fn {fn}); {out['parse_ms_mean']} ms per question")
    for w in wrong:
        print(f"  {w['id']}: got {w['got']} expected {w['expected']}")
    write_json(args.out, out)
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
