"""Training and held-out data for the claim verifier, built only from ../shared/data.

Shared by `scripts/train_verifier.py` (training, calibration) and `bench/verifier.py` (held-out figures),
so both see exactly the same split. Every pair is (claim, source, label) with label one of LABELS.

SciFact (`scifact/queries.jsonl` metadata: abstract id -> evidence sets of sentence indices with a
SUPPORT / CONTRADICT label; sentences recovered from `corpus.jsonl` with the project's splitter, which
reproduces SciFact's indices): a rationale set gives a `supported` / `contradicted` pair (also with the
neighbouring sentence as a two-sentence window, the form the verifier scores at run time); the other
sentences of the same abstract give `not_supported`. Claims are split by group of claims sharing an
abstract (70 / 10 / 20 train / dev / test), so no held-out claim's abstract is seen in training.

arXiv (`arxiv/arxiv_cs_abstracts_2025-2026.jsonl.gz`): one sentence of an abstract is the source, an
edited copy the claim. Meaning-changing edits (numbers swapped, a name swapped for another name of the same
abstract, negation, antonyms, the two sides of a comparison swapped -> `contradicted`; repeated or garbled
phrases, another sentence of the abstract -> `not_supported`) against meaning-keeping edits (verbatim,
clause dropped, compressed, list order changed, close paraphrase -> `supported`). Abstracts are split by a
hash of their arXiv id (80 / 10 / 10), so held-out pairs come from abstracts never trained on.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.index.sentences import split_sentences  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
LABELS = ("supported", "not_supported", "contradicted")
SUP, NEI, CON = 0, 1, 2


@dataclass(frozen=True)
class Pair:
    claim: str
    source: str
    label: int
    kind: str  # scifact-support, scifact-contradict, scifact-nei, or the synthetic edit's name
    group: str  # claim id or arXiv id (the unit of the split)


# -- SciFact --------------------------------------------------------------------------------------
def _split_of(key: str, seed: int, cuts: tuple[int, int]) -> str:
    h = int(hashlib.sha256(f"{seed}:{key}".encode()).hexdigest(), 16) % 100
    return "test" if h < cuts[0] else "dev" if h < cuts[1] else "train"


def load_scifact(data: Path = DATA):
    corpus = {}
    with open(data / "scifact" / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            corpus[d["_id"]] = [s.text for s in split_sentences(d["text"])]
    claims = []
    with open(data / "scifact" / "queries.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if d.get("metadata"):
                claims.append(d)
    return claims, corpus


def scifact_split(claims, seed: int = 13) -> dict[str, str]:
    """claim id -> train/dev/test; claims sharing an abstract (union-find) go to the same side."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c in claims:
        for doc in c["metadata"]:
            parent[find("c" + c["_id"])] = find("d" + doc)
    return {c["_id"]: _split_of(find("c" + c["_id"]), seed, (20, 30)) for c in claims}


def scifact_pairs(claims, corpus, split: dict[str, str], which: str, seed: int = 0, windows: bool = True,
                  nei_per_doc: int = 2) -> list[Pair]:
    rng = random.Random(seed)
    out: list[Pair] = []
    for c in claims:
        if split[c["_id"]] != which:
            continue
        for doc, sets in c["metadata"].items():
            sents = corpus[doc]
            used = {i for ev in sets for i in ev["sentences"]}
            for ev in sets:
                idx = sorted(i for i in ev["sentences"] if i < len(sents))
                if not idx:
                    continue
                label = SUP if ev["label"] == "SUPPORT" else CON
                kind = "scifact-support" if label == SUP else "scifact-contradict"
                out.append(Pair(c["text"], " ".join(sents[i] for i in idx), label, kind, c["_id"]))
                if windows and len(idx) == 1:  # with a neighbour: the two-sentence window of run time
                    i = idx[0]
                    j = i + 1 if (i + 1 < len(sents) and (i == 0 or rng.random() < 0.5)) else i - 1
                    if 0 <= j < len(sents):
                        a, b = sorted((i, j))
                        out.append(Pair(c["text"], f"{sents[a]} {sents[b]}", label, kind + "-window", c["_id"]))
            rest = [i for i in range(len(sents)) if i not in used]
            for i in rng.sample(rest, min(nei_per_doc, len(rest))):
                out.append(Pair(c["text"], sents[i], NEI, "scifact-nei", c["_id"]))
    return out


# -- arXiv synthetic edits -----------------------------------------------------------------------
_NUM = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?:%|x|×)?(?![\w])")
_NAMED = re.compile(r"\b(?:[A-Z]{2,}[A-Za-z0-9\-]*|[A-Z][a-z]+[A-Z][A-Za-z0-9\-]*|[A-Za-z]+-\d+[A-Za-z0-9\-]*)\b")
_AUX = re.compile(r"\b(is|are|was|were|can|could|will|would|may|might|should|does|do|did|has|have|had)\b")
_NEG = re.compile(r"\b(?:(is|are|was|were|can|could|will|would|may|does|do|did|has|have|had) not|cannot|(\w+)n't)\b")
_VERBS = {
    "outperforms": "does not outperform", "improves": "does not improve", "achieves": "does not achieve",
    "reduces": "does not reduce", "increases": "does not increase", "enables": "does not enable",
    "surpasses": "does not surpass", "requires": "does not require", "enhances": "does not enhance",
    "provides": "does not provide", "yields": "does not yield", "leads": "does not lead",
    "outperform": "do not outperform", "improve": "do not improve", "achieve": "do not achieve",
    "reduce": "do not reduce", "increase": "do not increase", "enable": "do not enable",
    "show": "do not show", "shows": "does not show", "demonstrates": "does not demonstrate",
    "demonstrate": "do not demonstrate", "significantly": "not significantly", "consistently": "not consistently",
}
_ANTONYMS = dict(
    pair
    for a, b in [
        ("increase", "decrease"), ("increases", "decreases"), ("increased", "decreased"), ("increasing", "decreasing"),
        ("improves", "degrades"), ("improve", "degrade"), ("improved", "degraded"), ("improving", "degrading"),
        ("outperforms", "underperforms"), ("outperform", "underperform"), ("higher", "lower"), ("better", "worse"),
        ("more", "less"), ("faster", "slower"), ("larger", "smaller"), ("superior", "inferior"), ("best", "worst"),
        ("robust", "fragile"), ("efficient", "inefficient"), ("effective", "ineffective"), ("accurate", "inaccurate"),
        ("positive", "negative"), ("fewer", "more"), ("reduces", "increases"), ("reduce", "increase"),
        ("reduced", "increased"), ("enhances", "impairs"), ("maximum", "minimum"), ("high", "low"),
        ("strong", "weak"), ("stronger", "weaker"), ("easier", "harder"), ("before", "after"), ("always", "never"),
        ("successfully", "unsuccessfully"), ("accelerates", "slows"), ("gains", "losses"), ("benefits", "harms"),
        ("stable", "unstable"), ("consistent", "inconsistent"), ("significant", "negligible"), ("early", "late"),
        ("lowers", "raises"), ("minimizes", "maximizes"), ("promotes", "inhibits"), ("activates", "suppresses"),
        ("upregulates", "downregulates"), ("enhanced", "impaired"), ("protects", "harms"), ("rare", "common"),
    ]
    for pair in ((a, b), (b, a))
)
_COMPARE = re.compile(r"\b(outperforms?|surpass(?:es)?|beats?|exceeds?|than|over|versus|vs\.?|compared (?:to|with))\b")
_SYNONYMS = [
    (r"\bpropose\b", "introduce"), (r"\bproposes\b", "introduces"), (r"\bdemonstrates?\b", "shows"),
    (r"\butiliz(e|es)\b", r"us\1"), (r"\bleverag(e|es)\b", r"us\1"), (r"\bachieves\b", "attains"),
    (r"\bsignificantly\b", "substantially"), (r"\bapproach\b", "method"), (r"\bnovel\b", "new"),
    (r"\bfurthermore\b", "moreover"), (r"\benhance\b", "improve"), (r"\bstate-of-the-art\b", "leading"),
    (r"\bIn this paper, we\b", "This work shows how we"), (r"\bIn this work, we\b", "Here we"),
    (r"\bexperiments\b", "evaluations"), (r"\bmodels\b", "networks"), (r"\bperformance\b", "results"),
    (r"\bcomprehensive\b", "extensive"), (r"\bcapabilities\b", "abilities"), (r"\bmethods\b", "techniques"),
    (r"\bWe\b", "The authors"), (r"\bour\b", "their"), (r"\bOur\b", "Their"), (r"\bto address\b", "to tackle"),
    (r"\ba variety of\b", "many"), (r"\bin order to\b", "to"), (r"\bhowever\b", "yet"), (r"\bthus\b", "so"),
]
_FILLER = re.compile(
    r"\b(significantly|substantially|effectively|notably|consistently|further|also|highly|various|several|"
    r"novel|new|simple|efficient|extensive|comprehensive|remarkably|particularly|especially|successfully)\s+", re.I)
_PREFIX = re.compile(r"^(?:Furthermore|Moreover|Additionally|In addition|Finally|Specifically|In particular|"
                     r"In this paper|In this work|To this end|Notably|However|Overall|Thus),\s+", re.I)
_THAT = re.compile(
    r"^(?:We|Our (?:results|experiments|analysis|findings)) (?:show|demonstrate|find|reveal|observe)s? that\s+", re.I)
_LIST = re.compile(r"\b([\w\-]+(?: [\w\-]+)?), ([\w\-]+(?: [\w\-]+)?),? and ([\w\-]+(?: [\w\-]+)?)\b")
_LIST2 = re.compile(r"\b(both )?([A-Za-z][\w\-]+) and ([A-Za-z][\w\-]+)\b")


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


def _swap_number(s: str, abstract: str, rng: random.Random) -> str | None:
    nums = list(_NUM.finditer(s))
    if not nums:
        return None
    m = rng.choice(nums)
    old = m.group()
    others = sorted({n.group() for n in _NUM.finditer(abstract)} - {old})
    if others and rng.random() < 0.5:
        new = rng.choice(others)
    else:
        core = re.match(r"\d+(?:[.,]\d+)?", old).group()
        suffix = old[len(core):]
        try:
            v = float(core.replace(",", ""))
        except ValueError:
            return None
        f = rng.choice([0.5, 0.7, 1.3, 1.5, 2, 3, 10])
        nv = v * f if v else rng.randint(1, 9)
        new = (f"{nv:.{len(core.split('.')[1])}f}" if "." in core else str(max(1, round(nv)))) + suffix
        if new == old:
            new = str(int(v) + rng.randint(1, 9)) + suffix
    return s[: m.start()] + new + s[m.end():]


def _swap_name(s: str, abstract: str, rng: random.Random) -> str | None:
    mine = list(_NAMED.finditer(s))
    if not mine:
        return None
    here = {m.group() for m in mine}
    others = sorted({m.group() for m in _NAMED.finditer(abstract)} - here)
    if not others:
        return None
    m = rng.choice(mine)
    return s[: m.start()] + rng.choice(others) + s[m.end():]


def _negate(s: str, abstract: str, rng: random.Random) -> str | None:
    m = _NEG.search(s)
    if m:  # remove an existing negation
        if m.group(1):
            return s[: m.start()] + m.group(1) + s[m.end():]
        word = m.group()
        base = {"cannot": "can", "won't": "will", "can't": "can"}.get(word.lower(), word[:-3])
        return s[: m.start()] + base + s[m.end():]
    cands = [(m.start(), m.end(), m.group() + " not") for m in _AUX.finditer(s)]
    cands += [(m.start(), m.end(), _VERBS[m.group()]) for m in re.finditer(r"\b\w+\b", s) if m.group() in _VERBS]
    if not cands:
        return None
    a, b, new = rng.choice(cands)
    return s[:a] + new + s[b:]


def _antonym(s: str, abstract: str, rng: random.Random) -> str | None:
    hits = [m for m in re.finditer(r"\b\w+\b", s) if m.group().lower() in _ANTONYMS]
    if not hits:
        return None
    m = rng.choice(hits)
    new = _ANTONYMS[m.group().lower()]
    if m.group()[0].isupper():
        new = _cap(new)
    return s[: m.start()] + new + s[m.end():]


def _swap_sides(s: str, abstract: str, rng: random.Random) -> str | None:
    """'A outperforms B' -> 'B outperforms A': two names on either side of a comparison word."""
    c = _COMPARE.search(s)
    if not c:
        return None
    left = [m for m in _NAMED.finditer(s) if m.end() <= c.start()]
    right = [m for m in _NAMED.finditer(s) if m.start() >= c.end()]
    if not left or not right or left[-1].group() == right[0].group():
        return None
    a, b = left[-1], right[0]
    return s[: a.start()] + b.group() + s[a.end(): b.start()] + a.group() + s[b.end():]


def _garble(s: str, abstract: str, rng: random.Random) -> str | None:
    words = s.split()
    if len(words) < 8:
        return None
    r = rng.random()
    names = list(dict.fromkeys(m.group() for m in _NAMED.finditer(s)))
    if r < 0.35 and len(names) >= 2:  # "combines FL with FL": one name written over the other
        a, b = rng.sample(names, 2)
        return re.sub(rf"\b{re.escape(b)}\b", a, s)
    if r < 0.7:  # a phrase repeated
        i = rng.randrange(1, len(words) - 4)
        n = rng.randint(2, 4)
        return " ".join(words[: i + n] + words[i: i + n] + words[i + n:])
    # the object of a preposition dropped ("a dataset from that was used"), or words shuffled
    preps = [k for k, w in enumerate(words[:-3]) if w in ("of", "from", "on", "with", "for", "by", "in")]
    if preps:
        k = rng.choice(preps)
        n = rng.randint(2, 3)
        return " ".join(words[: k + 1] + words[k + 1 + n:])
    i = rng.randrange(0, len(words) - 5)
    mid = words[i: i + 5]
    rng.shuffle(mid)
    return " ".join(words[:i] + mid + words[i + 5:])


def _drop_clause(s: str, abstract: str, rng: random.Random) -> str | None:
    opts = []
    t = re.sub(r"\s*\([^()]{1,60}\)", "", s)
    if t != s:
        opts.append(t)
    t = _PREFIX.sub("", s)
    if t != s:
        opts.append(_cap(t))
    m = re.search(r",\s+(which|while|where|thereby|enabling|allowing|leading|resulting|making|including|such as)\b"
                  r"[^.;]*", s)
    if m:
        opts.append(s[: m.start()] + s[m.end():])
    m = re.search(r";[^;]*$", s.rstrip("."))
    if m:
        opts.append(s[: m.start()] + ".")
    opts = [o for o in opts if len(o.split()) >= 6 and o != s]
    return rng.choice(opts) if opts else None


def _compress(s: str, abstract: str, rng: random.Random) -> str | None:
    t = _THAT.sub("", s)
    t = _cap(_FILLER.sub("", t))
    t = re.sub(r"\s+", " ", t).strip()
    return t if t != s and len(t.split()) >= 5 else None


def _reorder_list(s: str, abstract: str, rng: random.Random) -> str | None:
    m = _LIST.search(s)
    if m:
        parts = [m.group(1), m.group(2), m.group(3)]
        perm = parts[:]
        while perm == parts:
            rng.shuffle(perm)
        return s[: m.start()] + f"{perm[0]}, {perm[1]}, and {perm[2]}" + s[m.end():]
    m = _LIST2.search(s)
    if m and m.group(2).lower() not in ("between", "from") and m.group(2) != m.group(3):
        return s[: m.start(2)] + f"{m.group(3)} and {m.group(2)}" + s[m.end(3):]
    return None


def _paraphrase(s: str, abstract: str, rng: random.Random) -> str | None:
    subs = [(p, r) for p, r in _SYNONYMS if re.search(p, s)]
    if not subs:
        return None
    t = s
    for p, r in rng.sample(subs, min(len(subs), rng.randint(1, 3))):
        t = re.sub(p, r, t, count=1)
    return t if t != s else None


CHANGING = {"swap_number": (_swap_number, CON), "swap_name": (_swap_name, CON), "negation": (_negate, CON),
            "antonym": (_antonym, CON), "swap_sides": (_swap_sides, CON), "garble": (_garble, NEI)}
KEEPING = {"drop_clause": _drop_clause, "compress": _compress, "reorder_list": _reorder_list,
           "paraphrase": _paraphrase}


def arxiv_abstracts(which: str, limit: int, seed: int = 0, data: Path = DATA) -> list[dict]:
    """Up to `limit` abstracts of one split (by a hash of the arXiv id), in file order."""
    out = []
    with gzip.open(data / "arxiv" / "arxiv_cs_abstracts_2025-2026.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if _split_of(d["id"], seed, (10, 20)) == which and d.get("abstract"):
                out.append(d)
                if len(out) >= limit:
                    break
    return out


def synthetic_pairs(abstracts: list[dict], seed: int = 0, per_abstract: int = 2) -> list[Pair]:
    """Meaning-changing and meaning-keeping edits of abstract sentences, about half each.

    Numbers and comparisons are rare in sentences, so a meaning-changing pair picks a sentence with a
    number (30%) or with two names around a comparison word (10%) when the abstract has one, and
    applies that edit first."""
    rng = random.Random(seed)
    out: list[Pair] = []
    for d in abstracts:
        text = " ".join(d["abstract"].split())
        sents = [s.text for s in split_sentences(text)]
        ok = [i for i, s in enumerate(sents) if 8 <= len(s.split()) <= 45]
        used: set[int] = set()
        for _ in range(min(per_abstract, len(ok))):
            changing, first = rng.random() < 0.5, None
            pool = [k for k in ok if k not in used]
            if changing:
                r = rng.random()
                with_num = [k for k in pool if _NUM.search(sents[k])]
                with_cmp = [k for k in pool if _swap_sides(sents[k], text, rng)]
                if r < 0.3 and with_num:
                    pool, first = with_num, "swap_number"
                elif 0.3 <= r < 0.4 and with_cmp:
                    pool, first = with_cmp, "swap_sides"
            i = rng.choice(pool)
            used.add(i)
            s = sents[i]
            source = s
            if rng.random() < 0.4 and len(sents) > 1:  # a two-sentence window, as at run time
                j = i + 1 if i + 1 < len(sents) else i - 1
                source = f"{sents[min(i, j)]} {sents[max(i, j)]}"
            if changing:
                names = list(CHANGING)
                rng.shuffle(names)
                if first:
                    names.remove(first)
                    names.insert(0, first)
                other = [k for k in range(len(sents)) if abs(k - i) > 1]
                if not first and rng.random() < 0.12 and other:
                    out.append(Pair(sents[rng.choice(other)], source, NEI, "other_sentence", d["id"]))
                    continue
                for name in names:
                    fn, label = CHANGING[name]
                    claim = fn(s, text, rng)
                    if claim and claim != s:
                        out.append(Pair(claim, source, label, name, d["id"]))
                        break
            else:
                names = list(KEEPING)
                rng.shuffle(names)
                claim, kind = None, "verbatim"
                if rng.random() > 0.15:
                    for name in names:
                        claim = KEEPING[name](s, text, rng)
                        if claim and claim != s:
                            kind = name
                            break
                out.append(Pair(claim or s, source, SUP, kind if claim else "verbatim", d["id"]))
    return out


def describe(pairs: list[Pair]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for p in pairs:
        counts[f"{LABELS[p.label]}:{p.kind}"] += 1
    return dict(sorted(counts.items()))
