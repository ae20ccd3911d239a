"""Fit the answer-sentence ranker (assistant/answer/sentrank.py) on the project's own question files and
the tuning development corpora.

    .venv/bin/python scripts/fit_sentence_ranker.py --data-dir /tmp/fit-data --store-root /tmp/stores [--write]

For every answerable single-paper question (factoid, paraphrase, follow-up) and every side of a
comparison or list in eval/questions.jsonl and eval/questions-blind{,2,3}.jsonl (over the bundled
corpus; the outside reader's questions-dev.jsonl is never read here) and in the question files of the
development corpora whose role is "tune" (eval/corpora.py: each tuning corpus's own file and its second and
third sets, such as pubmedqa-b and pubmedqa-c; the held-out corpora are never read), the abstract holding each gold
passage is one group: its sentences are the candidates, the ones containing a gold passage are the answers.
The question is analysed by the assistant over its own corpus (follow-ups after their history), so the
features are the ones the answer path sees.

Reported: leave-one-file-out top-1 / top-3 accuracy of the fitted ranker against the evidence-score
order (what the answer used before; a tuning corpus's file left out measures another corpus), then the
weights fitted on all files. `--write` stores them with those figures in assistant/answer/sentrank.json.
Needs an index of the bundled corpus in --data-dir (built with `paperchat --data-dir DIR ingest` if
empty); each tuning corpus is built and ingested under --store-root/<name> (unchanged: nothing to do).
Deterministic.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

FILES = ("eval/questions.jsonl", "eval/questions-blind.jsonl", "eval/questions-blind2.jsonl",
         "eval/questions-blind3.jsonl")
KINDS = ("factoid", "paraphrase", "followup", "compare", "multi")


def tune_question_files() -> list[tuple[str, Path]]:
    """(corpus, question file) of every tuning run with a written question file: each tuning corpus's own, and a
    second set over one (`pubmedqa-b`)."""
    from eval.corpora import RUNS, SPECS, _question_file

    return [(r.corpus, _question_file(r)) for r in RUNS.values()
            if r.role == "tune" and r.corpus in SPECS and not r.pubmedqa_own and not SPECS[r.corpus].distractors]


def corpus_assistant(name: str, store_root: Path):
    """An assistant over tuning corpus `name` (built and ingested when its store is missing), and its texts."""
    from assistant.answer.assistant import Assistant
    from assistant.settings import load_settings
    from eval.corpora import DEFAULT_OUT, _ingest

    settings = load_settings(None, {"store.data_dir": str(store_root / name), "answer.model": "extractive"})
    _ingest(name, settings, DEFAULT_OUT, progress=False)
    assistant = Assistant(settings)
    return assistant, {r.paper_id: r.text for r in assistant.index.all_records()}


def groups_of(path: Path, assistant, records) -> list[tuple[np.ndarray, np.ndarray, str]]:
    from assistant.answer.conversation import Conversation
    from assistant.answer.naming import shown_name
    from assistant.answer.sentrank import features
    from assistant.index.sentences import split_sentences

    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d["kind"] not in KINDS or not d.get("gold"):
            continue
        conv = assistant.conversation_from_history(d["history"]) if d.get("history") else Conversation()
        prep = assistant.prepared(d["question"], conv, k=5)
        q = prep.question
        by_paper: dict[str, list[str]] = {}
        for g in d["gold"]:
            holders = [pid for pid, text in records.items() if g in text]
            if len(holders) == 1:  # a passage two abstracts share names no one paper
                by_paper.setdefault(holders[0], []).append(g)
        for pid, golds in by_paper.items():
            sents = [s.text for s in split_sentences(records[pid])]
            y = np.array([any(g in s for g in golds) for s in sents], np.float32)
            if not y.any() or len(sents) < 2:
                continue  # a gold passage across a sentence boundary: no clean label
            ev = assistant.scorer.matrix([q.standalone], sents)[0]
            cos = assistant.scorer.cosines(q.standalone, sents)
            hit = next((h for h in prep.hits if h.paper_id == pid), None)  # named as the answer path names it
            name = shown_name(prep.names, hit) if hit is not None else assistant.lexicon.get().display.get(pid, "")
            topic = tuple(h.title for h in prep.hits if h.paper_id in q.topic)
            out.append((features(q, sents, ev, cos, name=name, topic=topic), y, d["id"]))
    return out


def accuracy(groups, w=None) -> dict:
    from assistant.answer.sentrank import FEATURES

    ev_col = FEATURES.index("evidence")
    top1 = top3 = 0
    for x, y, _ in groups:
        z = x @ w if w is not None else x[:, ev_col]
        order = np.argsort(-z, kind="stable")
        top1 += bool(y[order[0]])
        top3 += bool(y[order[:3]].any())
    n = max(len(groups), 1)
    return {"groups": len(groups), "top1": round(top1 / n, 3), "top3": round(top3 / n, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, required=True, help="store with the bundled corpus indexed")
    ap.add_argument("--store-root", type=Path, required=True, help="a store per tuning corpus (built if missing)")
    ap.add_argument("--write", action="store_true", help="write assistant/answer/sentrank.json")
    ap.add_argument("--l2", type=float, default=0.01)
    args = ap.parse_args()

    from assistant.answer.assistant import Assistant
    from assistant.answer.sentrank import FEATURES, fit, log_likelihood
    from assistant.settings import load_settings

    settings = load_settings(None, {"store.data_dir": str(args.data_dir), "answer.model": "extractive"})
    assistant = Assistant(settings)
    lines = (ROOT / "data" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    records = {d["paper_id"]: d["text"] for d in map(json.loads, lines)}
    per_file = {f: groups_of(ROOT / f, assistant, records) for f in FILES}
    opened: dict[str, tuple] = {}
    for name, path in tune_question_files():
        if name not in opened:
            opened[name] = corpus_assistant(name, args.store_root)
        other, texts = opened[name]
        per_file[str(path.relative_to(ROOT))] = groups_of(path, other, texts)
    report: dict = {"fitted": datetime.now(UTC).isoformat(timespec="seconds"), "files": list(per_file),
                    "l2": args.l2, "held_out": {}}
    for f in per_file:  # leave one file out
        train = [(x, y) for g, gs in per_file.items() if g != f for x, y, _ in gs]
        w = fit(train, l2=args.l2)
        report["held_out"][f] = {"evidence_order": accuracy(per_file[f]), "ranker": accuracy(per_file[f], w)}
        print(f"held out {f}: evidence order {report['held_out'][f]['evidence_order']}  "
              f"ranker {report['held_out'][f]['ranker']}")
    everything = [(x, y) for gs in per_file.values() for x, y, _ in gs]
    w = fit(everything, l2=args.l2)
    report["train"] = {"groups": len(everything), "log_likelihood": round(log_likelihood(everything, w), 4),
                       "evidence_order": accuracy([g for gs in per_file.values() for g in gs]),
                       "ranker": accuracy([g for gs in per_file.values() for g in gs], w)}
    print("all files:", report["train"])
    for name, v in sorted(zip(FEATURES, w), key=lambda t: -abs(t[1])):
        print(f"  {name:14s} {v:+.3f}")
    if args.write:
        out = ROOT / "assistant" / "answer" / "sentrank.json"
        out.write_text(json.dumps({"features": list(FEATURES), "weights": [round(float(v), 5) for v in w],
                                   "report": report}, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
