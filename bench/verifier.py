"""The claim verifier against the project's similarity check, on data held out from its training.

    .venv/bin/python bench/verifier.py               # figures -> bench/results/verifier.json
    .venv/bin/python bench/verifier.py --calibrate   # thresholds from the dev split -> verifier-calibration.json

Held-out data (the same split as scripts/train_verifier.py, see scripts/verifier_data.py):
* SciFact test claims (20% of the claims, split by groups of claims sharing an abstract; none of their
  abstracts was trained on): the claim against its SUPPORT / CONTRADICT rationale sentences, and against
  the whole abstract. AUC of the support score SUPPORT vs CONTRADICT; at the thresholds, the share of
  SUPPORT pairs kept (verdict supported) and of CONTRADICT pairs flagged (any other verdict).
* Synthetic pairs from arXiv abstracts of the test split: flagged share of meaning-changing edits vs
  meaning-keeping edits and verbatim sentences, per edit kind.
* Speed: claim-window pairs per second, and one answer's verification (8 claim sentences x 5 whole
  abstracts in one `verify_many` call) p50/p95 wall ms, with CPU ms.
The baseline is assistant/answer/support.py (0.5 content-word recall + 0.5 MiniLM cosine, halved for a
novel number or name; kept at answer.support_threshold): max over the source's sentences.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, ROOT, machine_info, offline

sys.path.insert(0, str(ROOT / "scripts"))
import verifier_data as V
from train_verifier import auc


def scifact_sets(which: str):
    """(claim, rationale sentences, whole abstract sentences, gold) for the held-out claims of `which`."""
    claims, corpus = V.load_scifact()
    split = V.scifact_split(claims)
    out = []
    for c in claims:
        if split[c["_id"]] != which:
            continue
        for doc, sets in c["metadata"].items():
            sents = corpus[doc]
            for ev in sets:
                idx = sorted(i for i in ev["sentences"] if i < len(sents))
                if idx:
                    out.append((c["text"], [sents[i] for i in idx], sents, ev["label"]))
    return out


def synthetic(which: str, n: int, seed: int):
    return V.synthetic_pairs(V.arxiv_abstracts(which, n), seed=seed)


class Baseline:
    """The project's current check: max over source sentences of SupportScorer (answer/support.py)."""

    def __init__(self, threshold: float) -> None:
        from assistant.answer.support import SupportScorer
        from assistant.index.embedder import get_embedder
        from assistant.settings import EmbeddingSettings

        emb = get_embedder(EmbeddingSettings())
        self.scorer = SupportScorer(emb.embed_documents)
        self.threshold = threshold

    def scores(self, claims: list[str], sources: list[list[str]]) -> list[float]:
        out = []
        for c, sents in zip(claims, sources):
            abstract = " ".join(sents)
            out.append(float(self.scorer.matrix([c], sents, [abstract] * len(sents)).max()))
        return out


def rates(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def scifact_metrics(sup: list[float], keep: list[bool], gold: list[str],
                    contradicted: list[bool] | None = None) -> dict:
    s = [x for x, g in zip(sup, gold) if g == "SUPPORT"]
    c = [x for x, g in zip(sup, gold) if g == "CONTRADICT"]
    m = {"n_support": len(s), "n_contradict": len(c), "auc_support_vs_contradict": round(auc(s, c), 4),
         "support_kept": rates([k for k, g in zip(keep, gold) if g == "SUPPORT"]),
         "contradict_flagged": rates([not k for k, g in zip(keep, gold) if g == "CONTRADICT"])}
    if contradicted is not None:
        m["contradict_labelled_contradicted"] = rates([x for x, g in zip(contradicted, gold) if g == "CONTRADICT"])
    return m


def synthetic_metrics(pairs, keep: list[bool]) -> dict:
    by_kind: dict[str, list[bool]] = {}
    for p, k in zip(pairs, keep):
        by_kind.setdefault(p.kind, []).append(not k)
    changing = [not k for p, k in zip(pairs, keep) if p.label != V.SUP]
    keeping = [not k for p, k in zip(pairs, keep) if p.label == V.SUP and p.kind != "verbatim"]
    verbatim = [not k for p, k in zip(pairs, keep) if p.kind == "verbatim"]
    return {"n": len(pairs), "changing_flagged": rates(changing), "keeping_flagged": rates(keeping),
            "verbatim_flagged": rates(verbatim), "keeping_or_verbatim_flagged": rates(keeping + verbatim),
            "flagged_by_kind": {k: rates(v) for k, v in sorted(by_kind.items())}}


def answers(n: int, seed: int) -> list[list[tuple[str, list[str]]]]:
    """n answers: 8 claim sentences (edited sentences of 5 held-out arXiv abstracts) x those 5 abstracts."""
    rng = random.Random(seed)
    abstracts = V.arxiv_abstracts("test", 5 * n + 50)
    out = []
    for k in range(n):
        five = abstracts[5 * k : 5 * k + 5]
        pairs = V.synthetic_pairs(five, seed=seed + k, per_abstract=3)
        claims = [p.claim for p in rng.sample(pairs, min(8, len(pairs)))]
        out.append([(c, a["abstract"]) for c in claims for a in five])
    return out


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    r = fn()
    return r, (time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000


def _settings(args):
    from assistant.settings import load_settings, parse_assignments

    over = parse_assignments(args.assign)
    if args.model_dir:
        over["verify.model_dir"] = args.model_dir
    return load_settings(overrides=over)


def run(args) -> dict:
    from assistant.verify import Verifier

    settings = _settings(args)
    ver = Verifier(settings.verify).load()
    res: dict = {"machine": machine_info(), "settings": settings.verify.model_dump(),
                 "model_dir": str(ver._model.model_dir)}
    base = Baseline(settings.answer.support_threshold)
    sf = scifact_sets("test")
    claims, gold = [x[0] for x in sf], [x[3] for x in sf]
    for name, sources in (("rationale", [x[1] for x in sf]), ("whole_abstract", [x[2] for x in sf])):
        vs = ver.verify_many(list(zip(claims, sources)))
        res[f"scifact_{name}"] = {
            "verifier": scifact_metrics([v.support for v in vs], [v.label == "supported" for v in vs], gold,
                                        [v.label == "contradicted" for v in vs]),
            "baseline": scifact_metrics(b := base.scores(claims, sources), [x >= base.threshold for x in b], gold),
        }
        print(name, json.dumps(res[f"scifact_{name}"]), flush=True)
    syn = synthetic("test", args.synthetic, seed=101)
    vs = ver.verify_many([(p.claim, p.source) for p in syn])
    b = base.scores([p.claim for p in syn], [[s.text for s in V.split_sentences(p.source)] for p in syn])
    res["synthetic"] = {"verifier": synthetic_metrics(syn, [v.label == "supported" for v in vs]),
                        "baseline": synthetic_metrics(syn, [x >= base.threshold for x in b])}
    print("synthetic", json.dumps(res["synthetic"]), flush=True)
    # speed: (claim, source) pairs per second through verify_many, encodings not cached
    n = min(len(syn), 400)
    ver._model._cache.clear()
    _, ms, cpu = timed(lambda: ver.verify_many([(p.claim, p.source) for p in syn[:n]]))
    res["pairs_per_s"] = {"pairs": n, "source": "1-2 sentences, cold encoding cache",
                          "wall_per_s": round(n / ms * 1000, 1), "cpu_ms_per_pair": round(cpu / n, 2)}
    walls, cpus, bwalls = [], [], []
    ans = answers(args.answers, seed=7)
    ver.verify_many(ans[0])  # warm
    for a in ans:
        ver._model._cache.clear()  # each answer pays for encoding its claims and sources
        _, ms, cpu = timed(functools.partial(ver.verify_many, a))
        walls.append(ms)
        cpus.append(cpu)
        cl = list(dict.fromkeys(c for c, _ in a))
        srcs = list(dict.fromkeys(s for _, s in a))
        sents = [[s.text for s in V.split_sentences(x)] for x in srcs]
        flat_s = [s for ss in sents for s in ss]
        abst = [x for x, ss in zip(srcs, sents) for _ in ss]
        _, bms, _ = timed(functools.partial(base.scorer.matrix, cl, flat_s, abst))
        bwalls.append(bms)
    q = lambda xs, p: round(sorted(xs)[min(len(xs) - 1, int(p * len(xs)))], 1)  # noqa: E731
    res["one_answer_ms"] = {"answers": len(walls), "claims_x_sources": "8 x 5 whole abstracts",
                            "p50": round(statistics.median(walls), 1), "p95": q(walls, 0.95),
                            "cpu_p50": round(statistics.median(cpus), 1),
                            "baseline_p50": round(statistics.median(bwalls), 1)}
    print("speed", json.dumps({k: res[k] for k in ("pairs_per_s", "one_answer_ms")}), flush=True)
    return res


def calibrate(args) -> dict:
    """Thresholds from the dev split: `supported` has the least total shortfall from the issue's targets (SUPPORT
    kept >= .85, CONTRADICT flagged >= .80, meaning-changing flagged >= .90, meaning-keeping flagged <= .05);
    `contradicted` maximises CONTRADICT-vs-rest accuracy among the unsupported."""
    import numpy as np

    from assistant.verify import Verifier

    ver = Verifier(_settings(args).verify).load()
    sf = scifact_sets("dev")
    v_sf = ver.verify_many([(x[0], x[1]) for x in sf]) + ver.verify_many([(x[0], x[2]) for x in sf])
    gold = [x[3] for x in sf] * 2
    syn = synthetic("dev", args.synthetic, seed=202)
    v_syn = ver.verify_many([(p.claim, p.source) for p in syn])
    best = None
    for t in np.arange(0.05, 0.96, 0.01):
        kept = np.mean([v.support >= t for v, g in zip(v_sf, gold) if g == "SUPPORT"])
        flag = np.mean([v.support < t for v, g in zip(v_sf, gold) if g == "CONTRADICT"])
        ch = np.mean([v.support < t for v, p in zip(v_syn, syn) if p.label != V.SUP])
        kp = np.mean([v.support < t for v, p in zip(v_syn, syn) if p.label == V.SUP])
        # the targets: kept >= .85, flagged >= .80, changing >= .90, keeping <= .05; least total shortfall
        score = -(max(0, .85 - kept) + max(0, .80 - flag) + max(0, .90 - ch) + max(0, kp - .05))
        if best is None or score > best[0]:
            best = (score, round(float(t), 2), {"kept": kept, "flagged": flag, "changing": ch, "keeping": kp})
    t_s = best[1]
    rest = [(v.contradiction, g == "CONTRADICT") for v, g in zip(v_sf, gold) if v.support < t_s]
    rest += [(v.contradiction, p.label == V.CON) for v, p in zip(v_syn, syn) if v.support < t_s]
    t_c = max(np.arange(0.05, 0.96, 0.01), key=lambda t: np.mean([(c >= t) == y for c, y in rest]))
    out = {"supported_threshold": t_s, "contradicted_threshold": round(float(t_c), 2),
           "dev_at_supported_threshold": {k: round(float(v), 4) for k, v in best[2].items()},
           "n_scifact_dev_pairs": len(sf), "n_synthetic_dev": len(syn)}
    print(json.dumps(out, indent=1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calibrate", action="store_true", help="Print thresholds calibrated on the dev split.")
    ap.add_argument("--synthetic", type=int, default=600, help="Held-out arXiv abstracts for synthetic pairs.")
    ap.add_argument("--answers", type=int, default=30, help="Answers timed (8 claims x 5 abstracts each).")
    ap.add_argument("--model-dir", help="Another verifier model directory (default: the shipped one).")
    ap.add_argument("--set", dest="assign", action="append", default=[], metavar="GROUP.NAME=VALUE",
                    help="Override a setting, e.g. --set verify.supported_threshold=0.4.")
    ap.add_argument("--out", type=Path, help="Write the figures here instead of bench/results/verifier.json.")
    args = ap.parse_args()
    offline()
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.calibrate:
        out = calibrate(args)
        (RESULTS / "verifier-calibration.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        return 0
    res = run(args)
    path = args.out or RESULTS / "verifier.json"
    path.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"-> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
