"""Fit the sentence-role classifier (assistant/answer/roles.py) and write roles.json + roles.md beside it.

    nice -n 10 .venv/bin/python scripts/train_roles.py [--cache /tmp/roles2-cache] [--write]

Data, all from ../shared/data (PAPERCHAT_SHARED_DATA overrides it):
* PubMedQA PQA-L (`pubmedqa/ori_pqal.json`): every context sentence takes its section's role
  (BACKGROUND/OBJECTIVE/... -> problem, METHODS/DESIGN/... -> method, PATIENTS/PARTICIPANTS/SETTING/... ->
  data, RESULTS/... -> result), the LONG_ANSWER's sentences (the conclusion) -> result. 20% of the PMIDs
  (by a hash) are held back for measurement.
* arXiv abstracts whose primary category is cs.CL, cs.LG, cs.AI or cs.CV (the held-out corpora's
  categories are never read): structured ones ("Background: ... Methods: ... Results: ...") take their
  headers' roles (the header is stripped); the others get silver labels from anchors (`silver`): the
  contribution sentence ("we propose ...") and the first findings sentence ("experiments show ...",
  "outperforms") split an abstract into problem / method / result, with the evaluation-setup sentence
  ("we evaluate on three benchmarks") as data and a link or release as result.
* Never: SciFact, the held-out arXiv categories, the sentences of an evaluation sample passed with
  --exclude (the shipped weights excluded the held-out role sample's sentences), the own dev abstracts.

Measured (printed, and stored in roles.json / roles.md with `--write`): the own dev set
(eval/roles-dev.jsonl: 143 sentences of 20 tune-corpus abstracts, labelled by hand before any fitting,
stored as ids + sentence hashes, the text rebuilt from the shared data) and the held-back PubMedQA PMIDs;
before = the cue rules this model replaced (their file given with --rules), after = this model.
Deterministic: papers are picked by hashes of their ids, the solver is deterministic.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import json
import os
import platform
import re
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from assistant.answer.roles import EMBEDDER, FEATURES, LABELS, WEIGHTS, features  # noqa: E402
from assistant.index.sentences import split_sentences  # noqa: E402

SHARED = Path(os.environ.get("PAPERCHAT_SHARED_DATA") or ROOT.parent / "shared" / "data")
CS = ("cs.CL", "cs.LG", "cs.AI", "cs.CV")
DEV = ROOT / "eval" / "roles-dev.jsonl"

PUBMED_ROLE = [  # section label -> role, first match wins
    (r"RESULT|FINDING|OUTCOME|CONCLUSION|DISCUSSION|SUMMARY$|LIMITATION|INTERPRETATION", "result"),
    (r"BACKGROUND|OBJECT|PURPOSE|AIM|INTRODUCTION|CONTEXT|HYPOTHES|RATIONALE|IMPORTANCE", "problem"),
    (r"^(?:PATIENTS|PARTICIPANTS|SUBJECTS|POPULATION|SAMPLE|SETTINGS?|STUDY SETTING|DATA SOURCES?|"
     r"SETTING AND PARTICIPANTS|MATERIALS?)$", "data"),
    (r"METHOD|DESIGN|INTERVENTION|MEASURE|PROCEDURE|SETTING|PATIENTS|PARTICIPANTS|SUBJECTS|DATA|STUDY SELECTION|"
     r"CASE", "method"),
]
HEADER = re.compile(r"(?:^|(?<=[.!?] ))((?:Background|Motivation|Context|Objectives?|Purpose|Aims?|Introduction|"
                    r"Problem|Methods?|Methodology|Approach|(?:Materials? and )?Methods|Design|Data(?:sets?)?|"
                    r"Materials?|Setting|Participants|Results?|Findings|Evaluation|Conclusions?|Significance|"
                    r"Implications|Discussion|Availability(?: and implementation)?)(?: and \w+)?)\s*:\s+")
HEADER_ROLE = [(r"^(?:Background|Motivation|Context|Objective|Purpose|Aim|Introduction|Problem)", "problem"),
               (r"^(?:Data|Materials?$|Setting|Participants)", "data"),
               (r"^(?:Method|Methodology|Approach|Design|Materials? and)", "method"),
               (r"^(?:Result|Finding|Evaluation|Conclusion|Significance|Implication|Discussion|Availability)",
                "result")]

# silver anchors for unstructured CS abstracts
CONTRIB = re.compile(r"^(?:(?:In this (?:paper|work|study)|Here|To (?:address|tackle|overcome|bridge|fill|solve|"
                     r"mitigate|this end)[^,]{0,60}),?\s*)?(?:we|this (?:paper|work|study))\s+(?:\w+\s+)?"
                     r"(?:propose|introduce|present|develop|design|devise)s?\b", re.I)
FINDING = re.compile(r"\b(?:(?:experiments?|results?|evaluations?|analys[ie]s|studies) (?:\w+ ){0,4}?"
                     r"(?:show|demonstrate|reveal|indicate|confirm|suggest)s?|outperform\w*|surpass\w*|"
                     r"state-of-the-art (?:performance|results)|achiev\w+ (?:a |an )?(?:new |significant |"
                     r"substantial |consistent )?(?:state|improvement|gains?|accuracy|performance)|"
                     r"improv\w+ (?:\w+ ){0,3}by\b|we (?:find|found|observe|show) that)", re.I)
EVAL_ON = re.compile(r"^(?:We|Our (?:method|approach|model|framework) is) (?:\w+ )?(?:evaluated?|test(?:ed)?|"
                     r"validated?|conduct(?:ed)? (?:extensive )?experiments|benchmark(?:ed)?) (?:\w+ ){0,6}?"
                     r"(?:on|across|using)\b", re.I)
RELEASE = re.compile(r"https?://|github\.com|\b(?:code|data|dataset|models?|weights)\b[^.]{0,40}"
                     r"\b(?:is|are|will be) (?:publicly |freely |openly )?(?:available|released)|\bwe (?:publicly )?"
                     r"release\b", re.I)
RESULTY = re.compile(r"\b(?:outperform|improv|achiev|show|demonstrat|reveal|gain|surpass)\w*", re.I)
SELF = re.compile(r"\b(?:we|our|this (?:paper|work|study))\b", re.I)


def _h(key: str) -> int:
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest(), 16)


def sents(text: str) -> list[str]:
    return [s.text for s in split_sentences(" ".join(text.split()))]


def pubmed_role(label: str) -> str:
    return next((role for pat, role in PUBMED_ROLE if re.search(pat, label)), "method")


def pubmedqa() -> list[dict]:
    data = json.loads((SHARED / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    out = []
    for pmid in sorted(data, key=int):
        row = data[pmid]
        ss, ys = [], []
        for ctx, label in zip(row["CONTEXTS"], row["LABELS"]):
            for s in sents(ctx):
                ss.append(s)
                ys.append(pubmed_role(label))
        for s in sents(row.get("LONG_ANSWER", "")):
            ss.append(s)
            ys.append("result")
        out.append({"id": f"PMID:{pmid}", "sentences": ss, "labels": ys,
                    "split": "heldback" if _h("split" + pmid) % 5 == 0 else "train", "source": "pubmedqa"})
    return out


def _primary(row: dict) -> str:
    cats = row.get("categories") or []
    if isinstance(cats, str):
        cats = cats.strip("[]").replace("'", "").replace(",", " ").split()
    return cats[0] if cats else ""


def arxiv_rows() -> list[dict]:
    with gzip.open(SHARED / "arxiv" / "arxiv_cs_abstracts_2025-2026.jsonl.gz", "rt", encoding="utf-8") as f:
        return [r for r in map(json.loads, f) if _primary(r) in CS and len(r.get("abstract", "")) > 300]


def structured(text: str) -> tuple[list[str], list[str]] | None:
    """Sentences and roles of an abstract written under headers, each header stripped; None if not one."""
    text = " ".join(text.split())
    marks = list(HEADER.finditer(text))
    if len(marks) < 3 or marks[0].start() > 0:
        return None
    ss, ys = [], []
    for m, nxt in zip(marks, [*marks[1:], None]):
        role = next((r for pat, r in HEADER_ROLE if re.match(pat, m.group(1), re.I)), None)
        if role is None:
            return None
        for s in sents(text[m.end(): nxt.start() if nxt else len(text)]):
            ss.append(s)
            ys.append(role)
    return ss, ys


def silver(ss: list[str]) -> list[str | None]:
    """Roles from anchors: before the contribution sentence problem, from it to the first findings
    sentence method (an evaluation-setup sentence data), from there on result; None where unsure."""
    n = len(ss)
    contrib = next((i for i, s in enumerate(ss) if CONTRIB.search(s)), None)
    finding = next((i for i, s in enumerate(ss) if FINDING.search(s) and (contrib is None or i > contrib)), None)
    if contrib is None or finding is None or finding <= contrib or contrib > n // 2 + 1:
        return [None] * n
    out: list[str | None] = []
    for i, s in enumerate(ss):
        if RELEASE.search(s) and i > contrib:
            out.append("result")
        elif i < contrib:
            out.append("problem" if not SELF.search(s) else None)
        elif i < finding:
            if EVAL_ON.search(s) and not RESULTY.search(s):
                out.append("data")
            else:
                out.append("method" if i == contrib or not RESULTY.search(s) else None)
        else:
            out.append("result" if not CONTRIB.search(s) else None)
    return out


def dev_set(rows_by_id: dict[str, list[str]]) -> list[dict]:
    out = []
    for line in DEV.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        ss = rows_by_id[d["id"]]
        if [hashlib.sha1(s.encode()).hexdigest()[:10] for s in ss] != d["sha1"]:
            raise SystemExit(f"{d['id']}: its sentences are not the labelled ones (shared data or splitter changed)")
        out.append({"id": d["id"], "sentences": ss, "labels": d["roles"], "source": "dev"})
    return out


def embed_all(texts: list[str], cache: Path) -> dict[str, np.ndarray]:
    from assistant.index.embedder import get_embedder
    from assistant.settings import EmbeddingSettings

    emb = get_embedder(EmbeddingSettings())
    assert emb.name == EMBEDDER, emb.name
    cache.mkdir(parents=True, exist_ok=True)
    f = cache / "vectors.npz"
    known: dict[str, np.ndarray] = {}
    if f.is_file():
        z = np.load(f, allow_pickle=False)
        known = dict(zip(z["texts"].tolist(), z["vecs"]))
    todo = sorted({t for t in texts if t not in known})
    for i in range(0, len(todo), 512):
        part = todo[i: i + 512]
        known.update(zip(part, emb.embed_documents(part)))
        print(f"  embedded {min(i + 512, len(todo))}/{len(todo)}", file=sys.stderr, flush=True)
    if todo:
        keys = sorted(known)
        np.savez(f, texts=np.array(keys), vecs=np.stack([known[k] for k in keys]))
    return known


def matrix(abstracts: list[dict], vecs: dict[str, np.ndarray], lone: float) -> tuple[np.ndarray, list, list[str]]:
    """Features, labels and sources: every sentence in its abstract, and a `lone` share of them (by a hash)
    once more on its own (no position, no neighbours), as a caller with one sentence asks."""
    xs, ys, src = [], [], []
    for a in abstracts:
        v = np.stack([vecs[s] for s in a["sentences"]])
        xs.append(features(a["sentences"], v))
        ys += a["labels"]
        src += [a["source"]] * len(a["sentences"])
        for i, (s, lab) in enumerate(zip(a["sentences"], a["labels"])):
            if lab is not None and _h("lone" + s) % 1000 < lone * 1000:
                xs.append(features([s], v[i: i + 1]))
                ys.append(lab)
                src.append(a["source"])
    return np.vstack(xs), ys, src


def transitions(abstracts: list[dict], weight: float) -> np.ndarray:
    """weight * log P(next role | role), add-one smoothed, from fully labelled abstracts."""
    c = np.ones((len(LABELS), len(LABELS)))
    for a in abstracts:
        for x, y in zip(a["labels"], a["labels"][1:]):
            if x is not None and y is not None:
                c[LABELS.index(x), LABELS.index(y)] += 1
    return weight * np.log(c / c.sum(axis=1, keepdims=True))


def report(name: str, gold: list[str], pred: list[str]) -> dict:
    acc = float(np.mean([g == p for g, p in zip(gold, pred)]))
    per = {r: (float(np.mean([p == r for g, p in zip(gold, pred) if g == r])), sum(g == r for g in gold))
           for r in LABELS if any(g == r for g in gold)}
    conf = {g: dict(Counter(p for gg, p in zip(gold, pred) if gg == g)) for g in LABELS if g in gold}
    print(f"{name}: accuracy {acc:.3f} on {len(gold)}; per role (recall, n): "
          + ", ".join(f"{r} {a:.2f} ({n})" for r, (a, n) in per.items()))
    print("   confusion gold -> predicted: " + "; ".join(f"{g}: {c}" for g, c in conf.items()))
    return {"accuracy": round(acc, 3), "n": len(gold), "recall": {r: round(a, 3) for r, (a, _) in per.items()},
            "confusion": conf}


def rules_classify(path: Path):
    spec = importlib.util.spec_from_file_location("roles_rules", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def classify(ss: list[str]) -> list[str]:
        out = []
        for sc in mod.role_scores(ss):
            best = max(mod.ROLES, key=lambda r: sc[r])
            out.append(best.lower() if sc[best] >= mod.FLOOR else "other")
        return out
    return classify


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/roles2-cache"))
    ap.add_argument("--arxiv", type=int, default=3000, help="unstructured CS abstracts for silver labels")
    ap.add_argument("--C", type=float, default=2.0, help="inverse L2 strength of the logistic regression")
    ap.add_argument("--trans", type=float, default=0.4, help="weight of the transition log-probabilities")
    ap.add_argument("--cs-weight", type=float, default=1.0, help="sample weight of CS sentences vs PubMedQA")
    ap.add_argument("--lone", type=float, default=1.0, help="share of sentences also trained on alone")
    ap.add_argument("--rules", type=Path, help="the cue-rule roles.py to measure as 'before'")
    ap.add_argument("--write", action="store_true", help="write roles.json and roles.md beside roles.py")
    ap.add_argument("--exclude", type=Path, help="a JSONL of {sentence} never to train on (an evaluation sample's "
                    "sentences; the shipped weights excluded the held-out role sample this way)")
    args = ap.parse_args()

    held = set()
    if args.exclude:
        held = {json.loads(line)["sentence"] for line in args.exclude.read_text(encoding="utf-8").splitlines()}
    pm = pubmedqa()
    rows = arxiv_rows()
    by_id = {f"arXiv:{r['id']}": sents(r["abstract"]) for r in rows}
    by_id.update({a["id"]: a["sentences"] for a in pm})
    dev = dev_set(by_id)
    dev_ids = {d["id"] for d in dev}

    cs_struct, cs_silver = [], []
    rows.sort(key=lambda r: _h("roles" + r["id"]))
    for r in rows:
        pid = f"arXiv:{r['id']}"
        if pid in dev_ids:
            continue
        st = structured(r["abstract"])
        if st is not None:
            cs_struct.append({"id": pid, "sentences": st[0], "labels": st[1], "source": "arxiv-structured"})
        elif len(cs_silver) < args.arxiv:
            ss = by_id[pid]
            if 3 <= len(ss) <= 14:
                lab = silver(ss)
                if sum(x is not None for x in lab) >= 3:
                    cs_silver.append({"id": pid, "sentences": ss, "labels": lab, "source": "arxiv-silver"})
    train = [a for a in pm if a["split"] == "train" and a["id"] not in dev_ids] + cs_struct + cs_silver
    heldback = [a for a in pm if a["split"] == "heldback" and a["id"] not in dev_ids]
    for a in train:  # an evaluation sample's sentences (--exclude): never trained on
        a["labels"] = [None if s in held else y for s, y in zip(a["sentences"], a["labels"])]

    texts = [s for a in train + heldback + dev for s in a["sentences"]]
    vecs = embed_all(texts, args.cache)
    x, y, src = matrix(train, vecs, args.lone)
    keep = [i for i, lab in enumerate(y) if lab is not None]
    counts = Counter((src[i], y[i]) for i in keep)
    print("training sentences:", dict(sorted(counts.items())))
    w = np.array([args.cs_weight if src[i] != "pubmedqa" else 1.0 for i in keep])

    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=args.C, max_iter=3000, tol=1e-5)
    clf.fit(x[keep], [y[i] for i in keep], sample_weight=w)
    coef = np.zeros((len(LABELS), x.shape[1]))
    intercept = np.full(len(LABELS), -20.0)  # a role never seen in training is never predicted
    for k, lab in enumerate(clf.classes_):
        coef[LABELS.index(lab)], intercept[LABELS.index(lab)] = clf.coef_[k], clf.intercept_[k]
    trans = transitions([a for a in train if a["source"] != "arxiv-silver"], args.trans)

    import assistant.answer.roles as roles
    from assistant.answer.prose import is_debris

    model = {"labels": list(LABELS), "features": list(FEATURES), "embedder": EMBEDDER,
             "coef": coef.round(5).tolist(), "intercept": intercept.round(5).tolist(),
             "transitions": trans.round(4).tolist()}
    tmp = args.cache / "roles.json"
    tmp.write_text(json.dumps(model), encoding="utf-8")
    roles.WEIGHTS = tmp
    roles._weights.cache_clear()

    def embed(ss):
        return np.stack([vecs[s] for s in ss])

    figures = {}
    before = rules_classify(args.rules) if args.rules else None
    for name, sets in (("own dev (CS + 4 PubMedQA, hand-labelled)", dev),
                       ("own dev, arXiv only", [d for d in dev if d["id"].startswith("arXiv:")]),
                       ("PubMedQA held-back PMIDs", heldback)):
        gold = [lab for a in sets for lab in a["labels"]]
        after = [lab for a in sets for lab in roles.classify(a["sentences"], embed)]
        figures[name] = {"after": report(f"AFTER  {name}", gold, after)}
        alone = [roles.classify([s], embed)[0] for a in sets for s in a["sentences"]]
        figures[name]["after_alone"] = report(f"ALONE  {name} (each sentence on its own)", gold, alone)
        if os.environ.get("ROLES_SHOW_ERRORS") and sets is dev:
            ss = [s for a in sets for s in a["sentences"]]
            for s, g, p in zip(ss, gold, after):
                if g != p:
                    print(f"   {g} -> {p}: {s[:150]}")
        cells = [(a["labels"][i], column.lower()) for a in sets for column, i in roles.assign(
            a["sentences"], skip=frozenset(k for k, s in enumerate(a["sentences"]) if is_debris(s)),
            embed=embed).items() if i is not None and a["labels"][i] is not None]
        hits = sum(g == c for g, c in cells)
        figures[name]["cells"] = {"n": len(cells), "accuracy": round(hits / max(len(cells), 1), 3)}
        print(f"CELLS  {name}: {figures[name]['cells']['accuracy']:.3f} of {len(cells)} table cells in the gold column")
        if before:
            old = [lab for a in sets for lab in before(a["sentences"])]
            figures[name]["before"] = report(f"BEFORE {name}", gold, old)
    if args.write:
        model["trained"] = {"date": datetime.now(UTC).strftime("%Y-%m-%d"), "machine": platform.machine(),
                            "python": platform.python_version(), "sentences": dict(Counter(y[i] for i in keep)),
                            "by_source": {s: sum(1 for i in keep if src[i] == s) for s in sorted(set(src))},
                            "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
                            "figures": figures}
        WEIGHTS.write_text(json.dumps(model, separators=(",", ":")) + "\n", encoding="utf-8")
        from roles_card import card  # (scripts/ is on sys.path when this script runs)

        WEIGHTS.with_suffix(".md").write_text(card(model["trained"]), encoding="utf-8")
        print(f"wrote {WEIGHTS} ({WEIGHTS.stat().st_size // 1024} KiB) and its card")


if __name__ == "__main__":
    main()
