"""The role each abstract sentence plays: problem, method, data, result or other (the comparison table's
columns are the first four).

Scope: one abstract at a time. A multinomial logistic regression (weights in `roles.json`, fitted by
scripts/train_roles.py; data, recipe and figures in `roles.md`) reads each sentence's MiniLM vector (the
bundled all-MiniLM-L6-v2, int8 ONNX, the index's default embedder), that vector minus its abstract's mean
(what the sentence says beyond the topic), a few surface cues (a figure, "we", "However", a link) and its
position (abstracts open with the problem and close with results; a lone sentence has no position).
`classify` names each sentence's role; `assign` fills the table's columns with distinct sentences,
maximising the total probability, a column empty ("not stated") only when no sentence plays its role.

    roles = classify(sentences)              # ['problem', 'method', ..., 'result']
    cols = assign(sentences, skip={2})       # {'Problem': 0, 'Method': 1, 'Data': None, 'Result': 4}

Sentence vectors come from `embed` (texts -> L2-normalised rows) when the caller has them (the answer's
scorer caches the same vectors), else from the bundled embedder, loaded once per process.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

LABELS = ("problem", "method", "data", "result", "other")
ROLES = ("Problem", "Method", "Data", "Result")  # the table's columns
EMBEDDER = "all-MiniLM-L6-v2+onnx-int8"  # the vectors the weights were fitted on
WEIGHTS = Path(__file__).with_name("roles.json")
FLOOR = 0.3  # a sentence plays a role when its probability reaches this
Embed = Callable[[Sequence[str]], np.ndarray]

# surface cues (name, pattern, an example it must match): each is one feature, 1.0 when the sentence matches
SURFACE = (
    ("figure", r"\d", "Accuracy reached 91 points."),
    ("percent", r"\d\s?%|\bp\s?[<=>]\s?0?\.\d|\b\d+(?:\.\d+)?\s?(?:x|×|-fold)\b", "It is 3.5x faster."),
    ("we_first", r"^(?:(?:In this|Here|To \w+)[^,]{0,80},\s*)?(?:we|our)\b", "In this work, we study drift."),
    ("we", r"\b(?:we|our|us)\b", "The gains let us scale."),
    ("this_paper", r"^(?:This|The present|In this|Here(?:,| we))\b", "This paper studies drift."),
    ("contrast", r"^(?:However|Although|While|Despite|Yet|But|Nevertheless|Unfortunately)\b",
     "However, labels are scarce."),
    ("link", r"https?://|github\.com|\bavailable at\b", "Code is available at our site."),
    ("header", r"^[A-Z][A-Za-z ]{2,30}:\s", "Methods: We enrolled adults."),
    ("aim", r"^(?:To (?:\w+)|The (?:aim|objective|purpose|goal)s? of|We (?:aim|sought|hypothesi[sz]ed))\b",
     "To assess the effect of sleep."),
)
_SURFACE = [re.compile(p, 0 if name == "header" else re.I) for name, p, _ in SURFACE]
FEATURES = ("vector[384]", "centred[384]", "previous[384]", "next[384]", *(n for n, _, _ in SURFACE), "log_words",
            "position", "first", "last")


def features(sentences: Sequence[str], vecs: np.ndarray) -> np.ndarray:
    """One row per sentence: vector, vector minus the abstract's mean, surface cues, length, position."""
    n = len(sentences)
    vecs = np.asarray(vecs, dtype=np.float32).reshape(n, -1)
    centred = vecs - vecs.mean(axis=0, keepdims=True) if n > 1 else np.zeros_like(vecs)
    zero = np.zeros_like(vecs[:1])
    prev, nxt = np.vstack([zero, vecs[:-1]]), np.vstack([vecs[1:], zero])
    rows = []
    for i, s in enumerate(sentences):
        cues = [1.0 if rx.search(s) else 0.0 for rx in _SURFACE]
        at = i / (n - 1) if n > 1 else 0.5  # a lone sentence: the middle, neither first nor last
        rows.append([*cues, np.log1p(len(s.split())) / 4, at, float(n > 1 and i == 0), float(n > 1 and i == n - 1)])
    return np.hstack([vecs, centred, prev, nxt, np.asarray(rows, dtype=np.float32).reshape(n, -1)])


@lru_cache(maxsize=1)
def _weights() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    if tuple(d["labels"]) != LABELS or tuple(d["features"]) != FEATURES:
        raise ValueError(f"{WEIGHTS.name} was fitted on other labels or features; rebuild it with "
                         "scripts/train_roles.py")
    return (np.asarray(d["coef"], np.float32), np.asarray(d["intercept"], np.float32),
            np.asarray(d.get("transitions") or np.zeros((len(LABELS), len(LABELS))), np.float32))


def _bundled_embed(texts: Sequence[str]) -> np.ndarray:
    from ..index.embedder import get_embedder
    from ..settings import EmbeddingSettings

    return get_embedder(EmbeddingSettings()).embed_documents(list(texts))


def probabilities(sentences: Sequence[str], embed: Embed | None = None) -> np.ndarray:
    """P(role | sentence, its abstract): one row per sentence, columns in `LABELS` order."""
    if not sentences:
        return np.zeros((0, len(LABELS)), np.float32)
    coef, intercept, _ = _weights()
    z = features(sentences, (embed or _bundled_embed)(list(sentences))) @ coef.T + intercept
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def classify(sentences: Sequence[str], embed: Embed | None = None) -> list[str]:
    """The role of each sentence of one abstract, in order (one of `LABELS`).

    >>> classify(["Speech recognisers remain brittle on accented speech.",
    ...           "We propose AccentMix, which mixes accent embeddings during training.",
    ...           "AccentMix reduces word error rate by 11.3% over strong baselines."])
    ['problem', 'method', 'result']
    """
    return decode(probabilities(sentences, embed))


def decode(p: np.ndarray) -> list[str]:
    """The likeliest sequence of roles under the sentence probabilities `p` and the fitted
    role-to-next-role transitions (Viterbi; all zero transitions: each sentence's likeliest role)."""
    if not len(p):
        return []
    trans = _weights()[2]
    score, back = np.log(p[0] + 1e-9), []
    for row in np.log(p[1:] + 1e-9):
        cand = score[:, None] + trans
        back.append(cand.argmax(axis=0))
        score = cand.max(axis=0) + row
    path = [int(score.argmax())]
    for b in reversed(back):
        path.append(int(b[path[-1]]))
    return [LABELS[k] for k in reversed(path)]


def role_scores(p: np.ndarray) -> list[dict[str, float]]:
    """Probability of every column's role for every sentence (`p` from `probabilities`)."""
    return [{role: float(row[LABELS.index(role.lower())]) for role in ROLES} for row in p]


_MENTION = re.compile(
    r"\b\d[\d,.]*\s+(?:[\w\-]+\s+)?(?:tasks?|datasets?|benchmarks?|languages?|participants|patients|subjects|images|"
    r"samples|clients|users|domains|models|queries|questions|documents|pairs|examples)\b"
    r"|\b(?:on|across|using|with)\s+((?:(?:the|popular|several|standard|public|large-scale|real-world|diverse|various|"
    r"different|multiple|two|three|four|five|six|[A-Z][\w\-.]*)[\s,]+){0,6}?(?:datasets?|benchmarks?|corpora|corpus|"
    r"tasks|settings|domains))\b"
    r"|\b[A-Z][A-Za-z]*[\-.]?\d+(?:\.\d+)?[A-Za-z0-9\-.]*[A-Za-z0-9]\b|\b[A-Z][a-zA-Z]*[A-Z][\w\-]*\s+(?:benchmark|"
    r"dataset|corpus)\b")


def data_mentions(sentence: str) -> list[str]:
    """The data a sentence names in passing ("when 5 layers of LLaMA-3-8B are pruned ... on 9 QA tasks").

    >>> data_mentions("When LLaMA-3-8B is pruned, accuracy on 9 QA tasks stays at 90.57%.")
    ['LLaMA-3-8B', '9 QA tasks']
    """
    out: list[str] = []
    for m in _MENTION.finditer(sentence):
        t = (m.group(1) or m.group(0)).strip(" ,")
        if not re.search(r"[A-Za-z]", t) or re.fullmatch(r"[\d.,]+%?", t) or any(t in o for o in out):
            continue
        out.append(t)
    return out[:4]


def assign(sentences: Sequence[str], skip: frozenset[int] = frozenset(), embed: Embed | None = None,
           p: np.ndarray | None = None) -> dict[str, int | None]:
    """Column -> sentence index (None: no sentence plays it), distinct sentences, maximal total probability.
    A sentence is a candidate for a column when it is classified so, or when the role is within reach of
    its likeliest one (probability >= FLOOR and at least half the best's). `p`: the probabilities, when
    the caller has them.

    >>> assign(["Federated learning suffers from client drift on non-IID data.",
    ...         "We propose FedX, a method that corrects drift with control variates.",
    ...         "FedX improves accuracy by 4.2% over FedAvg."])
    {'Problem': 0, 'Method': 1, 'Data': None, 'Result': 2}
    """
    p = probabilities(sentences, embed) if p is None else p
    scores, labels = role_scores(p), decode(p)
    cands = {}
    for role in ROLES:
        ok = [i for i in range(len(sentences)) if i not in skip and (labels[i] == role.lower()
              or (scores[i][role] >= FLOOR and scores[i][role] >= max(scores[i].values()) / 2))]
        cands[role] = [*sorted(ok, key=lambda i: -scores[i][role])[:5], None]
    best, best_total = dict.fromkeys(ROLES), -1.0
    for combo in itertools.product(*(cands[r] for r in ROLES)):
        used = [i for i in combo if i is not None]
        if len(used) != len(set(used)):
            continue
        total = sum(1.0 + scores[i][r] for r, i in zip(ROLES, combo) if i is not None)
        if total > best_total:
            best, best_total = dict(zip(ROLES, combo)), total
    return best
