"""Public benchmark adapters: SciFact (BEIR layout) and PubMedQA (PQA-L) as question sets + corpora.

Each adapter turns the benchmark into (a) questions in the eval format with `gold_ids` (paper ids) and
(b) a JSONL corpus file that the normal ingest pipeline reads into a *dedicated* store directory, so a
benchmark never mixes with the user's own papers.

- SciFact: every claim with a qrels judgement becomes a question ("Is it true that <claim>?") whose
  gold_ids are the judged doc ids; `answer` holds SUPPORT/CONTRADICT when the claim metadata has it,
  and the kind (what the report breaks metrics down by) is claim-support, claim-contradict or
  claim-nei (no evidence label).
  Corpus: the judged docs of the selected claims plus distractors (all of the other 5,183 abstracts
  by default; `corpus_size` caps the total for quick runs, which makes the task easier than BEIR's).
- PubMedQA: each PMID's CONTEXTS joined is one abstract (no title: PubMedQA questions are derived from
  the titles, so a title would give the answer away); the question's gold_ids is [PMID] and `answer`
  the final_decision (yes/no/maybe), and the kind answer-yes, answer-no or answer-maybe. Corpus: all
  1,000 PQA-L abstracts, or the gold ones plus sampled distractors when capped.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterable, Iterator
from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
DATASETS = ("scifact", "pubmedqa")


def _read_jsonl(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def claim_to_question(claim: str) -> str:
    """'Aspirin reduces X.' -> 'Is it true that aspirin reduces X?' (acronyms keep their case).

    >>> claim_to_question("ALDH1 expression is associated with poorer prognosis.")
    'Is it true that ALDH1 expression is associated with poorer prognosis?'
    >>> claim_to_question("Aspirin inhibits platelet aggregation.")
    'Is it true that aspirin inhibits platelet aggregation?'
    """
    c = claim.strip().rstrip(".").strip()
    first = c.split(" ", 1)[0]
    if first[:1].isupper() and first[1:].islower():
        c = c[0].lower() + c[1:]
    return f"Is it true that {c}?"


# -------------------------------------------------------------------------------------------- SciFact


def scifact_questions(root: Path, limit: int | None = None, split: str = "train") -> list[dict]:
    """Claims judged in qrels/<split>.tsv, in qrels order, as questions with gold_ids."""
    claims = {str(q["_id"]): q for q in _read_jsonl(root / "queries.jsonl")}
    gold: dict[str, list[str]] = {}
    with open(root / "qrels" / f"{split}.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if int(row.get("score", 1) or 0) > 0:
                gold.setdefault(str(row["query-id"]), []).append(str(row["corpus-id"]))
    out = []
    for qid, doc_ids in gold.items():
        q = claims.get(qid)
        if not q:
            continue
        labels = sorted({e["label"] for ev in (q.get("metadata") or {}).values() for e in ev})
        item = {
            "id": f"scifact-{qid}",
            "kind": "claim-" + ("-".join(lab.lower() for lab in labels) if labels else "nei"),
            "dataset": "scifact",
            "question": claim_to_question(q["text"]),
            "claim": q["text"],
            "gold": [],
            "gold_ids": doc_ids,
        }
        if labels:
            item["answer"] = "/".join(labels)
        out.append(item)
        if limit and len(out) >= limit:
            break
    return out


def scifact_corpus(root: Path, needed: Iterable[str], corpus_size: int | None = None, seed: int = 0) -> list[dict]:
    """Corpus records {id, title, text}: every doc in `needed`, plus distractors up to `corpus_size` (None/0 = all)."""
    needed = {str(x) for x in needed}
    docs = [{"id": str(d["_id"]), "title": d.get("title", ""), "text": d.get("text", "")}
            for d in _read_jsonl(root / "corpus.jsonl") if (d.get("text") or "").strip()]
    if not corpus_size or corpus_size >= len(docs):
        return docs
    keep = [d for d in docs if d["id"] in needed]
    rest = [d for d in docs if d["id"] not in needed]
    random.Random(seed).shuffle(rest)
    keep += rest[: max(0, corpus_size - len(keep))]
    order = {d["id"]: i for i, d in enumerate(docs)}
    return sorted(keep, key=lambda d: order[d["id"]])


# ------------------------------------------------------------------------------------------- PubMedQA


def _pubmedqa(path: Path) -> dict[str, dict]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def pubmedqa_questions(path: Path, limit: int | None = None) -> list[dict]:
    data = _pubmedqa(path)
    out = []
    for pmid, item in data.items():
        out.append({
            "id": f"pubmedqa-{pmid}",
            "kind": f"answer-{item.get('final_decision') or 'unknown'}",
            "dataset": "pubmedqa",
            "question": item["QUESTION"],
            "gold": [],
            "gold_ids": [str(pmid)],
            "answer": item.get("final_decision", ""),
            "long_answer": item.get("LONG_ANSWER", ""),
        })
        if limit and len(out) >= limit:
            break
    return out


def pubmedqa_corpus(path: Path, needed: Iterable[str] = (), corpus_size: int | None = None,
                    seed: int = 0) -> list[dict]:
    data = _pubmedqa(path)
    needed = {str(x) for x in needed}
    docs = [{"id": str(pmid), "title": "", "text": " ".join(c.strip() for c in item["CONTEXTS"]),
             "year": item.get("YEAR")} for pmid, item in data.items()]
    if not corpus_size or corpus_size >= len(docs):
        return docs
    keep = [d for d in docs if d["id"] in needed]
    rest = [d for d in docs if d["id"] not in needed]
    random.Random(seed).shuffle(rest)
    return keep + rest[: max(0, corpus_size - len(keep))]


# -------------------------------------------------------------------------------------------- common


def write_jsonl(rows: Iterable[dict], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return path


def prepare(
    name: str, work_dir: Path, limit: int | None = None, corpus_size: int | None = None, root: Path | None = None
) -> tuple[Path, Path, list[dict]]:
    """Write `work_dir/<name>-questions.jsonl` and `work_dir/<name>-corpus.jsonl`; return both paths and the
    questions."""
    if name == "scifact":
        base = Path(root or SHARED_DATA / "scifact")
        questions = scifact_questions(base, limit)
        needed = {i for q in questions for i in q["gold_ids"]}
        corpus = scifact_corpus(base, needed, corpus_size)
    elif name == "pubmedqa":
        base = Path(root or SHARED_DATA / "pubmedqa")
        path = base / "ori_pqal.json" if base.is_dir() else base
        questions = pubmedqa_questions(path, limit)
        needed = {i for q in questions for i in q["gold_ids"]}
        corpus = pubmedqa_corpus(path, needed, corpus_size)
    else:
        raise ValueError(f"unknown dataset {name!r} (known: {', '.join(DATASETS)})")
    qpath = write_jsonl(questions, work_dir / f"{name}-questions.jsonl")
    cpath = write_jsonl(corpus, work_dir / f"{name}-corpus.jsonl")
    return qpath, cpath, questions


def ingest(settings, corpus_path: Path, progress=None):
    """Ingest `corpus_path` into the (dedicated) store of `settings` with the normal pipeline, then delete
    stored papers that are not in the file, so the store holds exactly this corpus (a run with a smaller
    --corpus-size after a bigger one must not search the bigger corpus). Idempotent: unchanged records
    are skipped, so a second run only re-reads the file. Returns (IngestReport, number deleted)."""
    from assistant.index.indexer import Index
    from assistant.pipeline import ingest_paths

    index = Index(settings)
    report = ingest_paths(index, [corpus_path], progress=progress)
    wanted = {str(r["id"]) for r in _read_jsonl(corpus_path)}
    extra = [r.paper_id for r in index.all_records() if r.paper_id not in wanted]
    if extra:
        index.delete(extra)
    return report, len(extra)


# ------------------------------------------------------------------------------------------- feedback

DOWN_RATINGS = {"down", "thumbs_down", "thumbs-down", "-1", "bad", "negative", "dislike"}
FEEDBACK_TODO = ("Fill in `gold` (verbatim 40-80 character evidence keys from the abstract(s) that answer this) "
                 "or leave it empty if the corpus cannot answer it; set `kind`; then remove this note.")


def is_thumbs_down(rating) -> bool:
    """
    >>> [is_thumbs_down(r) for r in ("down", -1, False, "up", 1, None)]
    [True, True, True, False, False, False]
    """
    if rating is False:
        return True
    if isinstance(rating, (int, float)) and not isinstance(rating, bool):
        return rating < 0
    return str(rating).strip().lower() in DOWN_RATINGS


def feedback_to_questions(records, include_all: bool = False) -> list[dict]:
    """Thumbs-down feedback records (question, answer, citations, rating, comment, settings, ...) ->
    candidate questions in the question-set format (kind "feedback", empty gold, a `todo` note).
    Repeated questions (same text and history) are merged, keeping every comment."""
    import hashlib

    out: dict[str, dict] = {}
    for r in records:
        if not isinstance(r, dict) or not str(r.get("question", "")).strip():
            continue
        if not include_all and not is_thumbs_down(r.get("rating")):
            continue
        history = [str(h) for h in (r.get("history") or []) if str(h).strip()]
        q = " ".join(str(r["question"]).split())
        key = hashlib.sha256(json.dumps([q, history]).encode()).hexdigest()[:10]
        cites = []
        for c in r.get("citations") or []:
            cites.append(str(c.get("paper_id", "")) if isinstance(c, dict) else str(c))
        item = out.get(key)
        if item is None:
            item = out[key] = {"id": f"fb-{key}", "kind": "feedback", "question": q, "gold": [], "todo": FEEDBACK_TODO}
            if history:
                item["history"] = history
            item["feedback"] = []
        item["feedback"].append({
            "rating": r.get("rating"), "comment": r.get("comment", ""), "answer": r.get("answer", ""),
            "cited": cites, "settings": r.get("settings", {}), "time": r.get("time") or r.get("timestamp", ""),
        })
    return list(out.values())


def read_feedback(path: Path) -> tuple[list[dict], int]:
    """Feedback JSONL records and the number of unreadable lines (skipped)."""
    rows, bad = [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                bad += 1
    return rows, bad
