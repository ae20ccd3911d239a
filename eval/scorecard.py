"""The answer-quality scorecard: the figures the answer path is judged by, from a run's results.jsonl.

    python -m eval.scorecard RUN_DIR [RUN_DIR ...]       # one column per run

| figure | questions | what counts |
|---|---|---|
| retrieval_at_1 | factoid, paraphrase | retrieval's top paper is a gold paper |
| right_cited | factoid, paraphrase | answered, and the answer's first citation is a gold paper |
| followup_right | followup | answered, and the first citation is a gold paper |
| unanswerable_abstained | absent, nearmiss | abstained |
| answerable_abstained | every kind with gold | abstained (lower is better) |
| compare_all_sides | compare | every gold side is among the citations |
| list_recall | multi | share of the gold papers cited |
| list_precision | multi, answered | share of the listed (cited) papers that are gold papers: a lower bound, since a \
question's writer may not have found every paper that qualifies |
| must_mention | questions with must_mention | share of the terms in the answer text (0 when abstained) |

A question set that is also used for tuning is split once by a stable hash of its ids
(`split_half`): tune on one half, report both.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from . import metrics as M

HALVES = ("tune", "heldout")
FIGURES = ("retrieval_at_1", "right_cited", "followup_right", "unanswerable_abstained", "answerable_abstained",
           "compare_all_sides", "list_recall", "list_precision", "must_mention")


def split_half(question_id: str) -> str:
    """'tune' or 'heldout', fixed for an id forever (sha256 of the id, parity).

    >>> split_half("q1"), split_half("q4")
    ('heldout', 'tune')
    """
    return HALVES[int(hashlib.sha256(question_id.encode("utf-8")).hexdigest(), 16) % 2]


def _gold_ids(q: Mapping, key_index: Mapping[str, frozenset[str]]) -> list[frozenset[str]]:
    return M.gold_units(q.get("gold") or (), q.get("gold_ids") or (), key_index)


def score_records(records: Sequence[Mapping], texts: Mapping[str, str], groups: Mapping[str, str] | None = None,
                  key_index: Mapping[str, frozenset[str]] | None = None) -> dict:
    """The scorecard (figure -> value or None, plus counts) of one run's result records; `key_index`
    (gold key -> paper ids) when the caller has resolved the keys already."""
    if key_index is None:
        keys = {k for r in records for k in (r.get("gold") or [])}
        key_index = M.resolve_keys(keys, dict(texts), dict(groups) if groups else None)
    vals: dict[str, list[float]] = {f: [] for f in FIGURES}
    for r in records:
        kind = r.get("kind", "factoid")
        units = _gold_ids(r, key_index)
        gold = M.relevant_ids(units)
        abstained = bool(r.get("abstained"))
        cited = [str(c["paper_id"]) for c in r.get("citations") or []]
        ranking = [str(p) for p in r.get("ranking") or []]
        first_ok = (not abstained) and bool(cited) and cited[0] in gold
        if kind in ("factoid", "paraphrase") and units:
            vals["retrieval_at_1"].append(float(bool(ranking) and ranking[0] in gold))
            vals["right_cited"].append(float(first_ok))
        if kind == "followup" and units:
            vals["followup_right"].append(float(first_ok))
        if kind in ("absent", "nearmiss") and not units:
            vals["unanswerable_abstained"].append(float(abstained))
        if units:
            vals["answerable_abstained"].append(float(abstained))
        if kind == "compare" and units:
            vals["compare_all_sides"].append(float(not abstained and all(u & set(cited) for u in units)))
        if kind == "multi" and units:
            vals["list_recall"].append(0.0 if abstained else (M.citation_recall(cited, units) or 0.0))
            if not abstained and cited:  # (an abstention lists nothing: recall counts it)
                vals["list_precision"].append(M.citation_precision(cited, units) or 0.0)
        if r.get("must_mention"):
            cov = M.must_mention_coverage(r.get("answer", ""), r["must_mention"])
            vals["must_mention"].append(0.0 if abstained or cov is None else cov)
    out: dict = {f: (round(sum(v) / len(v), 3) if v else None) for f, v in vals.items()}
    out["n"] = {f: len(v) for f, v in vals.items()}
    return out


def load_records(run_dir: Path) -> list[dict]:
    from .runfiles import read_jsonl_objects

    return read_jsonl_objects(Path(run_dir) / "results.jsonl")


def corpus_texts(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    texts, groups = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            texts[d["paper_id"]] = d["text"]
            groups[d["paper_id"]] = d.get("duplicate_of") or d["paper_id"]
    return texts, groups


def table(cards: Mapping[str, Mapping]) -> str:
    names = list(cards)
    lines = ["| figure | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for f in FIGURES:
        cells = []
        for n in names:
            v, k = cards[n].get(f), cards[n]["n"].get(f, 0)
            cells.append("-" if v is None else f"{v:.2f} ({k})")
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    corpus = Path(__file__).resolve().parent.parent / "data" / "corpus.jsonl"
    texts, groups = corpus_texts(corpus)
    cards = {Path(a).name: score_records(load_records(Path(a)), texts, groups) for a in args}
    print(table(cards))
    return 0


if __name__ == "__main__":
    sys.exit(main())
