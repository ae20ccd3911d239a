"""Answer prose figures (issue 21, items 1-4) from eval runs, plus the verifier check of the rewrite rules.

    python bench/prose.py --runs /tmp/runs/before-bundled /tmp/runs/after-bundled ... --out prose.json
    python bench/prose.py --verify data/corpus.jsonl /work/corpora/arxiv-cl/corpus.jsonl --sample 400

Per run (results.jsonl of `paperchat eval run`):
- first_sentence_must_mention: factoid questions with must_mention whose answer's first sentence contains
  one of the terms (abstentions count as misses; `..._answered` over answered ones only). Target >= 0.80.
- first_person: answers with "we/our/us" outside quotation marks. Target 0.
- tex_debris: answers with TeX or markup debris (``, '', \\cmd, $...$, braces, URLs). Target 0.
- p50_total_s: median answer time (extractive). Target < 0.5 s.
- undefined_acronym: single answers (factoid, paraphrase, follow-up) that use an acronym a cited abstract defines
  ("Global Feature-guided Learning (GFL)") without ever saying what it stands for; `..._list_compare`: lists and
  comparison overviews whose line uses an acronym the abstract it cites defines, never spelled out above it.
With --verify: every sentence of the given corpora that the rules change, rewritten with the paper's name
(sampled), judged by the claim verifier against the sentence it came from. Target supported >= 0.97.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.answer.acronyms import definitions
from assistant.answer.prose import DEBRIS, Rewriter, first_person_outside_quotes, rewrite
from assistant.index.sentences import split_sentences


def first_sentence(text: str) -> str:
    """The answer's first sentence, with the bold paper name it may open with ("**What the HellaSwag? On the
    Validity ...**: In addition, ..."): a title's own "?" ends no sentence.

    >>> first_sentence("**What the HellaSwag? A Study**: The authors release GoldenSwag [1]. It is small [1].")
    'What the HellaSwag? A Study: The authors release GoldenSwag [1].'
    """
    head = text.split("\n\n")[0]
    label = re.match(r"\*\*([^*\n]+)\*\*:\s*", head)
    plain = re.sub(r"\*\*|__", "", head[label.end():] if label else head)
    sents = split_sentences(plain)
    first = sents[0].text if sents else ""
    return f"{label.group(1)}: {first}" if label else first


def undefined_acronyms(rec: dict) -> list[tuple[str, str]]:
    """(acronym, long form) the answer uses undefined although a cited abstract defines it (bold titles aside)."""
    body = re.sub(r"\*\*[^*\n]+\*\*:?", "", rec.get("answer", "").split("\n\n")[0])
    return [d for c in rec.get("citations") or [] for d in definitions(body, c.get("text") or "", body)]


def undefined_in_lines(rec: dict) -> list[tuple[str, str]]:
    """As `undefined_acronyms`, for a list's lines or a comparison's overview ("n. label — text [n]", "- label [n]:
    text [n]."): each line's text against the abstract its marker cites, the table and the labels aside."""
    by_marker = {c.get("marker"): c.get("text") or "" for c in rec.get("citations") or []}
    out, said = [], ""
    for line in rec.get("answer", "").split("\n"):
        m = re.match(r"\s*(?:\d+\.|-)\s+.*?(?: — |\[\d+\]:\s)(.*)$", line)
        marker = re.search(r"\[(\d+)\]\.?\s*$", line)
        if not m or not marker or line.lstrip().startswith("|"):
            continue
        text = re.sub(r"\s*\[\d+\]", "", m.group(1))
        said += " " + text
        out += definitions(text, by_marker.get(int(marker.group(1)), ""), said)
    return out


def run_figures(run_dir: Path) -> dict:
    recs = [json.loads(line) for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").split("\n")
            if line.strip()]
    fact = [r for r in recs if r.get("kind") == "factoid" and r.get("must_mention")]
    hit = [r for r in fact if not r.get("abstained") and any(t.lower() in first_sentence(r.get("answer", "")).lower()
                                                             for t in r["must_mention"])]
    answered = [r for r in fact if not r.get("abstained")]
    texts = [r.get("answer", "") for r in recs]
    fp = [t for t in texts if first_person_outside_quotes(t)]
    tex = [t for t in texts if DEBRIS.search(t)]
    times = [r.get("timings", {}).get("total_s") for r in recs if r.get("timings", {}).get("total_s") is not None]
    single = [r for r in recs if r.get("kind") in ("factoid", "paraphrase", "followup") and not r.get("abstained")]
    undefined = [r for r in single if undefined_acronyms(r)]
    several = [r for r in recs if r.get("answer_kind") in ("list", "compare") and not r.get("abstained")]
    undefined_several = [r for r in several if undefined_in_lines(r)]
    return {
        "questions": len(recs), "factoid_with_terms": len(fact),
        "first_sentence_must_mention": round(len(hit) / len(fact), 3) if fact else None,
        "first_sentence_must_mention_answered": round(len(hit) / len(answered), 3) if answered else None,
        "first_person": len(fp), "tex_debris": len(tex),
        "p50_total_s": round(statistics.median(times), 3) if times else None,
        "single_answers": len(single), "undefined_acronym": len(undefined),
        "list_compare_answers": len(several), "undefined_acronym_list_compare": len(undefined_several),
        "examples": {"first_person": [t[:160] for t in fp[:3]], "tex_debris": [t[:160] for t in tex[:3]]},
    }


def verify_rewrites(corpora: list[str], sample: int, seed: int = 0) -> dict:
    from assistant.answer.naming import real_name
    from assistant.settings import Settings
    from assistant.types import Record
    from assistant.verify import get_verifier

    rng = random.Random(seed)
    out = {}
    verifier = get_verifier(Settings().verify)
    for path in corpora:
        pairs = []
        for line in Path(path).read_text(encoding="utf-8").split("\n"):  # (a text may hold U+2029)
            if not line.strip():
                continue
            d = json.loads(line)
            text = d.get("text") or d.get("abstract") or ""
            label = d.get("label") or d.get("title") or ""
            name = real_name(Record("x", text, label=label, label_derived=bool(d.get("label_derived"))))
            for s in split_sentences(text):
                r = rewrite(s.text, name)
                if r and r.rstrip(".") != s.text.rstrip("."):
                    pairs.append((r, s.text))
        picked = rng.sample(pairs, min(sample, len(pairs)))
        verdicts = verifier.verify_many([(r, [o]) for r, o in picked])
        ok = sum(v.label == "supported" for v in verdicts)
        # what answers show: the verified rewriter (a rewrite the verifier rejects falls back to a milder one)
        rw = Rewriter(verifier.verify_many)
        shown = [(rw(o, ""), o) for _, o in picked]
        changed = [(r, o) for r, o in shown if r and r.rstrip(".") != o.rstrip(".")]
        shown_ok = (sum(v.label == "supported" for v in verifier.verify_many([(r, [o]) for r, o in changed]))
                    if changed else 0)
        out[Path(path).parent.name + "/" + Path(path).name] = {
            "rewritten_sentences": len(pairs), "checked": len(picked),
            "supported": round(ok / len(picked), 3) if picked else None,
            "shown_rewritten": len(changed), "shown_supported": round(shown_ok / len(changed), 3) if changed else None,
            "shown_first_person": sum(bool(first_person_outside_quotes(r)) for r, _ in shown),
            "shown_tex_debris": sum(bool(DEBRIS.search(r)) for r, _ in shown),
            "not_supported_examples": [{"original": o, "rewritten": r} for (r, o), v in zip(picked, verdicts)
                                       if v.label != "supported"][:5],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", nargs="*", default=[], help="eval run directories")
    ap.add_argument("--verify", nargs="*", default=[], help="corpus JSONL files whose rewritten sentences to verify")
    ap.add_argument("--sample", type=int, default=400)
    ap.add_argument("--out", default="bench/results/prose.json")
    a = ap.parse_args(argv)
    result = {"runs": {str(r): run_figures(Path(r)) for r in a.runs}}
    if a.verify:
        result["verify"] = verify_rewrites(a.verify, a.sample)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    for run, f in result["runs"].items():
        print(f"{run}: first={f['first_sentence_must_mention']} (answered {f['first_sentence_must_mention_answered']}) "
              f"first_person={f['first_person']} tex={f['tex_debris']} p50={f['p50_total_s']}s n={f['questions']} "
              f"undefined_acronym={f['undefined_acronym']}/{f['single_answers']} "
              f"(lists, comparisons {f['undefined_acronym_list_compare']}/{f['list_compare_answers']})")
    for c, v in result.get("verify", {}).items():
        print(f"verify {c}: rules alone supported={v['supported']} of {v['checked']} "
              f"(rewritten {v['rewritten_sentences']}); "
              f"as shown (verified rewriter): {v['shown_rewritten']} rewritten, supported={v['shown_supported']}, "
              f"first person left in {v['shown_first_person']}, TeX left in {v['shown_tex_debris']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
