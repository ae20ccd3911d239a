"""Calibrate the abstention threshold on a question set (default eval/questions.jsonl plus the tuning
half of ../shared/data/questions-dev.jsonl; the held-out half is never read).

For every question the evidence is gathered exactly as the answer path does it (rewrite with the
question's history, retrieval, `gather_evidence`), with no generation. Then each candidate
threshold is scored: abstention precision / recall / F1 where the positive class is "the corpus
cannot answer" (empty gold), plus the share of answerable questions wrongly declined. Prints a
table and writes JSON; the chosen threshold maximises F1 (ties: the lower threshold).

    .venv/bin/python bench/calibrate_abstention.py [--data-dir DIR] [--questions FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
DEFAULT = ROOT / "eval" / "questions.jsonl"
DEV = ROOT.parent / "shared" / "data" / "questions-dev.jsonl"


def main(argv: list[str] | None = None) -> int:
    from assistant.answer.assistant import Assistant
    from assistant.answer.conversation import Conversation
    from assistant.answer.evidence import weak_evidence as decide
    from assistant.answer.question import Kind
    from assistant.questions import read_questions
    from assistant.settings import load_settings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, help="Store holding the bundled corpus (default: the usual data dir).")
    ap.add_argument("--questions", type=Path, default=DEFAULT)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "abstention.json")
    args = ap.parse_args(argv)
    overrides = {"answer.model": "extractive"}
    if args.data_dir:
        overrides["store.data_dir"] = str(args.data_dir)
    a = Assistant(load_settings(None, overrides))
    from eval.scorecard import split_half

    questions = read_questions(args.questions)
    if args.questions == DEFAULT and DEV.is_file():  # plus the tuning half of the dev set (never the held-out half)
        questions += [q for q in read_questions(DEV) if split_half(q["id"]) == "tune"]
    rows = []
    for q in tqdm(questions, desc="evidence", unit="question", file=sys.stderr):
        if q.get("kind") in ("compare", "multi"):
            continue  # decided per side / per listed paper, not by one evidence score
        conv = a.conversation_from_history(q.get("history") or []) if q.get("history") else Conversation()
        prep = a.prepared(q["question"], conv, k=5)
        if prep.question.kind is not Kind.SINGLE:
            continue
        # abstentions by rule (near-miss name, missing asked detail) do not depend on the threshold
        h = prep.hits
        confident = len(h) > 1 and h[0].score - h[1].score >= a.settings.answer.confident_gap
        rows.append({"id": q["id"], "kind": q.get("kind"), "absent": not (q.get("gold") or q.get("gold_ids")),
                     "ev": prep.evidence, "rule": bool(prep.abstain and prep.why), "confident": confident})
    relief = a.settings.answer.confident_relief
    table = []
    for t in [x / 100 for x in range(10, 61, 2)]:
        pred = [r["rule"] or r["ev"] is None or decide(r["ev"], t - (relief if r["confident"] else 0.0), names=False)[0]
                for r in rows]
        tp = sum(p and r["absent"] for p, r in zip(pred, rows))
        fp = sum(p and not r["absent"] for p, r in zip(pred, rows))
        fn = sum((not p) and r["absent"] for p, r in zip(pred, rows))
        prec = tp / (tp + fp) if tp + fp else 1.0
        rec = tp / (tp + fn) if tp + fn else 1.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        answerable = sum(not r["absent"] for r in rows)
        table.append({"threshold": t, "precision": prec, "recall": rec, "f1": f1,
                      "declined_answerable": fp / answerable if answerable else 0.0})
    best = max(table, key=lambda r: (round(r["f1"], 6), -r["threshold"]))
    print(f"{len(rows)} questions ({sum(r['absent'] for r in rows)} unanswerable)")
    print(f"{'threshold':>9} {'precision':>9} {'recall':>7} {'F1':>6} {'declined answerable':>20}")
    for r in table:
        mark = "  <- best" if r is best else ""
        print(f"{r['threshold']:9.2f} {r['precision']:9.3f} {r['recall']:7.3f} {r['f1']:6.3f} "
              f"{r['declined_answerable']:20.3f}{mark}")
    detail = [{"id": r["id"], "kind": r["kind"], "absent": r["absent"], "rule": r["rule"],
               "score": round(r["ev"].score, 3) if r["ev"] else None} for r in rows]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"best": best, "table": table, "questions": detail}, indent=2))
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
