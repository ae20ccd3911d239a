"""Calibrate `answer.rerank_margin`: when may the answer rest on another paper than retrieval's first?

For every answerable factoid / paraphrase question of the tuning sets (eval/questions.jsonl and the
tuning half of ../shared/data/questions-dev.jsonl, split by `eval.scorecard.split_half`; the held-out
half is never read here) the preparation runs exactly as the answer path does (no generation), once
per candidate margin. Scored: the share of questions whose main paper (the answer's first citation)
is a gold paper, against retrieval's recall@1 on the same questions. The chosen margin maximises
that share (ties: the larger margin, closer to retrieval's own ranking). Prints a table, writes JSON.

    .venv/bin/python bench/calibrate_margin.py [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEV = ROOT.parent / "shared" / "data" / "questions-dev.jsonl"
MARGINS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 1.0)


def tuning_questions() -> list[dict]:
    from assistant.questions import read_questions
    from eval.scorecard import split_half

    qs = read_questions(ROOT / "eval" / "questions.jsonl")
    if DEV.is_file():
        qs += [q for q in read_questions(DEV) if split_half(q["id"]) == "tune"]
    return [q for q in qs if q.get("kind") in ("factoid", "paraphrase") and q.get("gold")]


def main(argv: list[str] | None = None) -> int:
    from assistant.answer.assistant import Assistant
    from assistant.index.indexer import Index
    from assistant.settings import load_settings
    from eval import metrics as M

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, help="Store holding the bundled corpus (default: the usual data dir).")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "rerank_margin.json")
    args = ap.parse_args(argv)
    overrides = {"answer.model": "extractive"}
    if args.data_dir:
        overrides["store.data_dir"] = str(args.data_dir)
    base = load_settings(None, overrides)
    index = Index(base)
    records = list(index.all_records())
    texts = {r.paper_id: r.text for r in records}
    groups = {r.paper_id: r.duplicate_of or r.paper_id for r in records}
    questions = tuning_questions()
    key_index = M.resolve_keys({k for q in questions for k in q["gold"]}, texts, groups)
    rows = []
    for margin in MARGINS:
        a = Assistant(base.with_overrides({"answer.rerank_margin": margin}), index=index)
        right = first = answered = 0
        for q in questions:
            gold = M.relevant_ids(M.gold_units(q["gold"], (), key_index))
            prep = a.prepared(q["question"])
            first += bool(prep.hits) and prep.hits[0].paper_id in gold
            if not prep.abstain and prep.hits:
                answered += 1
                right += prep.hits[prep.main].paper_id in gold
        rows.append({"margin": margin, "main_is_gold": right / len(questions), "retrieval_at_1": first / len(questions),
                     "answered": answered / len(questions)})
        print(f"margin {margin:4.2f}: main paper gold {right / len(questions):.3f}  "
              f"retrieval@1 {first / len(questions):.3f}"
              f"  answered {answered / len(questions):.3f}", flush=True)
    # ties: the largest margin short of 1.0 (1.0 = never leave retrieval's order, kept as the reference row)
    best = max((r for r in rows if r["margin"] < 1.0), key=lambda r: (round(r["main_is_gold"], 6), r["margin"]))
    print(f"chosen margin: {best['margin']} ({len(questions)} tuning questions)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"questions": len(questions), "rows": rows, "chosen": best["margin"]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
