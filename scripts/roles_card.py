"""The model card of the sentence-role model (assistant/answer/roles.md), written by scripts/train_roles.py."""

from __future__ import annotations


def card(t: dict) -> str:
    """The model card: data, recipe, figures, date, machine, how to rebuild."""
    lines = [
        "# Sentence-role model (roles.json)", "",
        "What `assistant/answer/roles.py` reads to name each abstract sentence's role (problem, method, data,",
        "result, other) for the comparison table. Written by `scripts/train_roles.py --write`; do not edit.", "",
        "## Data", "",
        "All from ../shared/data (see the script's docstring for the label mapping): PubMedQA PQA-L section",
        "labels (80% of PMIDs; the LONG_ANSWER sentences as results); arXiv abstracts of primary cs.CL, cs.LG,",
        "cs.AI, cs.CV only: structured ones by their headers, the others by silver labels from anchors (the",
        "contribution sentence and the first findings sentence). Never: SciFact, the held-out arXiv categories",
        "(cs.GR, eess.IV, cs.IT, cs.CE, cs.SD), the sentences passed with --exclude, the own dev abstracts.", "",
        f"Training rows (a sentence in its abstract, plus a {t['args']['lone']} share of them once more alone) by",
        "source: " + ", ".join(f"{k} {v:,}" for k, v in t["by_source"].items()) + "; by role: "
        + ", ".join(f"{k} {v:,}" for k, v in sorted(t["sentences"].items())) + ".", "",
        "Own dev set: eval/roles-dev.jsonl, 143 sentences of 20 abstracts (16 arXiv cs.CL/LG/CV/AI, 4 held-back",
        "PubMedQA), labelled by hand with the reader's definitions before any fitting.", "",
        "## Recipe", "",
        "Features per sentence: its all-MiniLM-L6-v2 vector (int8 ONNX, the index's default embedder), that",
        "vector minus the abstract's mean, the previous and next sentences' vectors, nine surface cues, log",
        "length, relative position, first, last (a lone sentence: position 0.5, neither first nor last, no",
        "neighbours; such rows are in the training data, so one sentence without its abstract is read by what",
        "it says).",
        f"Multinomial logistic regression (scikit-learn lbfgs, C={t['args']['C']}, CS sample weight "
        f"{t['args']['cs_weight']});",
        f"decoding: Viterbi with {t['args']['trans']} x log P(next role | role) from the gold-labelled training",
        "abstracts. At run time numpy only.", "",
        "## Figures (accuracy; before = the cue rules this model replaced)", "",
        "| set | n | before | after | after, each sentence alone | after recall per role |",
        "|---|---|---|---|---|---|",
    ]
    for name, f in t["figures"].items():
        b = f.get("before", {}).get("accuracy", "")
        rec = ", ".join(f"{r} {a:.2f}" for r, a in f["after"]["recall"].items())
        alone = f["after_alone"]["accuracy"]
        lines.append(f"| {name} | {f['after']['n']} | {b} | {f['after']['accuracy']} | {alone} | {rec} |")
    lines += ["", "Confusion (gold -> predicted), after:", ""]
    for name, f in t["figures"].items():
        lines.append(f"- {name}: " + "; ".join(f"{g}: {c}" for g, c in f["after"]["confusion"].items()))
    lines += ["", "## Provenance", "",
              f"Trained {t['date']} on a {t['machine']} box (2 cores), Python {t['python']}, scikit-learn 1.9.1.",
              "Rebuild (deterministic; ~6 min of embedding on 2 cores, cached in --cache):", "",
              "    PAPERCHAT_SHARED_DATA=../shared/data nice -n 10 .venv/bin/python scripts/train_roles.py \\",
              "        --rules OLD_ROLES_PY --exclude SAMPLE_SENTENCES.jsonl --write " + " ".join(
                  f"--{k.replace('_', '-')} {v}" for k, v in t["args"].items() if k in ("arxiv", "C", "trans",
                                                                                      "cs_weight", "lone")),
              "", "(--rules: the cue-rule roles.py of commit 210a9c1, `git show 210a9c1:assistant/answer/roles.py`,",
              "for the 'before' column.)", ""]
    return "\n".join(lines)
