"""Evaluation metrics as pure functions (no I/O, no model): retrieval, citations, support, abstention, latency.

Gold evidence comes in two forms, both turned into *gold units* (one per piece of evidence):

- `gold` keys: verbatim 40-80 character substrings of one abstract each. A key's unit is the set of
  paper ids whose text contains it (normally exactly one paper; versions of one paper that share the
  text are all accepted). A key found in no known text stays a unit of its own that nothing matches.
- `gold_ids`: paper ids (SciFact doc ids, PubMedQA PMIDs); each is a unit {id}.

A retrieved or cited paper is *relevant* when it belongs to some gold unit. Definitions (the four
retrieval metrics are computed by trec_eval via pytrec_eval, see eval/ir.py; the rest is hand-written here
because no package computes them):

- recall@k: share of the question's gold units with a member in the top-k retrieved papers.
- mrr: 1 / rank of the first relevant paper in the retrieved list (0 if none).
- ndcg@10: binary-gain nDCG; a paper gains 1 the first time it satisfies a not-yet-satisfied gold
  unit, DCG = sum gain_i / log2(i + 1) over ranks i = 1..10, normalised by the ideal DCG of
  min(#units, 10) relevant papers at the top.
- citation_precision: share of an answer's cited papers that are relevant.
- citation_recall (and multi_set_recall for "which papers" questions): share of gold units cited.
- supported_sentences: share of answer claim sentences whose content words (lower-cased, stopwords
  removed, crude suffix stemming) are at least `threshold` covered by the sentences they cite, or that
  occur verbatim in a cited abstract. Computed here, independently of the assistant's own verifier.
- abstention precision/recall: positive class = questions the corpus cannot answer (no gold);
  predicted positive = the assistant abstained.
- must_mention: share of the required terms that occur in the answer (case-insensitive).
- latency: p50/p95 of first-token and total seconds (linear interpolation between order statistics).
- judge_*: mean over the judged questions of a judge model's 1-5 score mapped to 0-1 (eval.judge);
  None when no judge ran. Unparseable replies are left out and counted, never scored 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

from assistant.answer.nameforms import fold

RETRIEVAL_METRICS = ("recall@5", "recall@10", "mrr", "ndcg@10")
ANSWER_METRICS = ("citation_precision", "citation_recall", "supported_sentences", "verified_sentences", "must_mention",
                  "multi_set_recall")
ABSTENTION_METRICS = ("abstention_precision", "abstention_recall")
LATENCY_METRICS = ("first_token_p50_s", "first_token_p95_s", "total_p50_s", "total_p95_s")
JUDGE_METRICS = ("judge_correctness", "judge_faithfulness", "judge_relevance")  # set by eval.judge, when judged
ALL_METRICS = RETRIEVAL_METRICS + ANSWER_METRICS + ABSTENTION_METRICS + JUDGE_METRICS + LATENCY_METRICS
HIGHER_IS_BETTER = {m: not m.endswith("_s") for m in ALL_METRICS}

# --------------------------------------------------------------------------------------------- gold


def normalise(text: str) -> str:
    """Whitespace collapsed and case-folded, for substring matching of gold keys.

    >>> normalise("  Graph   Neural\\nNetworks ")
    'graph neural networks'
    """
    return " ".join((text or "").split()).casefold()


def resolve_keys(
    keys: Iterable[str], corpus: Mapping[str, str], groups: Mapping[str, str] | None = None
) -> dict[str, frozenset[str]]:
    """Map each gold key to the ids of the papers whose text contains it (plus their versions).

    `corpus` is {paper_id: text}; `groups` is {paper_id: group id} (e.g. `duplicate_of or paper_id`) so
    that another version of the containing paper also counts.

    >>> resolve_keys(["merges several models"], {"a": "FedMerge merges several models.", "b": "Other."})
    {'merges several models': frozenset({'a'})}
    """
    norm = {pid: normalise(text) for pid, text in corpus.items()}
    members: dict[str, set[str]] = {}
    for pid, g in (groups or {}).items():
        members.setdefault(g, set()).add(pid)
    out: dict[str, frozenset[str]] = {}
    for key in keys:
        nk = normalise(key)
        found = {pid for pid, t in norm.items() if nk and nk in t}
        if groups:
            for pid in list(found):
                found |= members.get(groups.get(pid, pid), set())
        out[key] = frozenset(found)
    return out


def gold_units(
    gold: Sequence[str] = (), gold_ids: Sequence[str] = (), key_index: Mapping[str, frozenset[str]] | None = None
) -> list[frozenset[str]]:
    """Distinct gold units of one question (see module doc). Unresolved keys become unmatched units.

    >>> gold_units(["k1", "k2", "k3"], [], {"k1": frozenset({"a"}), "k2": frozenset({"a"})})
    [frozenset({'a'}), frozenset({'?key:k3'})]
    >>> gold_units([], ["12", "12", "7"])
    [frozenset({'12'}), frozenset({'7'})]
    """
    units: list[frozenset[str]] = []
    for key in gold or ():
        u = (key_index or {}).get(key) or frozenset({f"?key:{key}"})
        if u not in units:
            units.append(u)
    for pid in gold_ids or ():
        u = frozenset({str(pid)})
        if u not in units:
            units.append(u)
    return units


def relevant_ids(units: Sequence[frozenset[str]]) -> set[str]:
    out: set[str] = set()
    for u in units:
        out |= u
    return out


# ---------------------------------------------------------------------------------------- citations


def citation_precision(cited: Sequence[str], units: Sequence[frozenset[str]]) -> float | None:
    """Share of distinct cited papers that are relevant; None without gold or without citations.

    >>> citation_precision(["a", "x"], [frozenset({"a"})])
    0.5
    """
    cited = list(dict.fromkeys(cited))
    if not units or not cited:
        return None
    rel = relevant_ids(units)
    return sum(1 for p in cited if p in rel) / len(cited)


def citation_recall(cited: Sequence[str], units: Sequence[frozenset[str]]) -> float | None:
    """Share of gold units cited by at least one of their papers; None without gold.

    >>> citation_recall(["a"], [frozenset({"a"}), frozenset({"b"})])
    0.5
    """
    if not units:
        return None
    c = set(cited)
    return sum(1 for u in units if u & c) / len(units)


# ------------------------------------------------------------------------------------------ support

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers him his how i if in into is it its itself just may me might more most must my no nor not
    of off on once only or other our ours out over own same she should so some such than that the their theirs
    them then there these they this those through to too under until up upon very via was we were what when
    where which while who whom why will with within without would you your yours paper papers abstract
    abstracts study work approach method propose proposed present show shows shown using use used based
    new one two three first second also well however thus therefore among across per
    """.split()
)
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_SUFFIXES = ("izations", "ization", "ations", "ation", "ings", "ing", "ies", "ied", "edly",
             "ed", "es", "ly", "s")


def stem(word: str) -> str:
    """Crude suffix stripping, applied alike to answers and sources.

    >>> [stem(w) for w in ("models", "training", "trained", "studies", "class")]
    ['model', 'train', 'train', 'stud', 'clas']
    """
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            return word[: -len(suf)]
    return word


def content_words(text: str) -> set[str]:
    """Lower-cased, stopword-free, stemmed word set (numbers kept, e.g. '24.72').

    >>> sorted(content_words("The models were trained on CIFAR-10 with 24.72% gains."))
    ['10', '24.72', 'cifar', 'gain', 'model', 'train']
    """
    return {stem(w) for w in _WORD.findall((text or "").lower()) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())}


_MARKER = re.compile(r"\[(\d+(?:\s*[,;\u2013-]\s*\d+)*)\]")
_NO_EVIDENCE = re.compile(
    r"\b(?:cannot|can ?not|unable to) (?:answer|find)|\bno (?:abstract|source|paper|evidence)\b|"
    r"\b(?:do|does|did) not (?:say|state|report|mention|describe|specify|address|discuss|provide|answer)\b|"
    r"\bnot (?:mentioned|reported|stated|described|specified|covered)\b",
    re.I,
)


def markers_in(text: str) -> list[int]:
    """Citation marker numbers in `text`: [1], [1, 2], [1][3], [2-4].

    >>> markers_in("A [1, 3] and B [2-4].")
    [1, 3, 2, 3, 4]
    """
    out: list[int] = []
    for m in _MARKER.finditer(text):
        for part in re.split(r"\s*[,;]\s*", m.group(1)):
            if re.search(r"[\u2013-]", part):
                a, b = (int(x) for x in re.split(r"\s*[\u2013-]\s*", part))
                out += list(range(a, b + 1)) if 0 <= b - a < 50 else [a, b]
            else:
                out.append(int(part))
    return out


def strip_markers(text: str) -> str:
    return " ".join(_MARKER.sub(" ", text).split())


def _is_note(line: str) -> bool:
    """An italic note line ("*Not covered by ...*") or a lead-in ending with a colon: not a claim."""
    s = line.strip()
    italic = s.startswith("*") and s.endswith("*") and not (s.startswith("**") and s.endswith("**"))
    return italic or s.endswith(":")


def _table_cells(row: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def claim_units(answer: str, splitter=None) -> list[tuple[str, list[int]]]:
    """The answer's claims, each with the markers it carries.

    Prose is split into sentences (markers that open a sentence, "... result. [2] Next", go back to the
    previous one); in a Markdown table each body cell after the first (which names the paper) is a
    claim whose markers are its own, or the first cell's when it has none (header and separator rows
    are skipped); likewise a bold label opening a line ("- **FedMerge** [1]: ...", "1. **Title** — ...")
    names the paper and is not part of the claim. Not claims: italic
    note lines, lead-ins ending with ":", pieces with fewer than three content words, and explicit
    "the abstracts do not report ..." statements.

    >>> claim_units("FedMerge merges global models per client [1]. It beats clustering baselines. [2]")
    [('FedMerge merges global models per client [1].', [1]), ('It beats clustering baselines.', [2])]
    >>> claim_units("| Paper | Data |\\n|---|---|\\n| **FedMerge** [1] | Experiments on CIFAR-10 images [1] |")
    [('Experiments on CIFAR-10 images [1]', [1])]
    >>> claim_units("- **FedMerge** [1]: It merges global models per client.\\n"
    ...             "1. **Kite** — Kite distils an ensemble [2]")
    [('It merges global models per client.', [1]), ('Kite distils an ensemble [2]', [2])]
    """
    split = splitter or _simple_split
    units: list[tuple[str, list[int]]] = []
    table_rows = 0
    for line in (answer or "").splitlines():
        s = line.strip()
        if not s:
            table_rows = 0
            continue
        if s.startswith("|"):
            table_rows += 1
            if table_rows == 1 or re.fullmatch(r"[|\s:\-]+", s):
                continue
            cells = _table_cells(s)
            row_markers = markers_in(cells[0]) if cells else []
            for cell in cells[1:]:  # the first cell names the paper: a label, not a claim
                units.append((cell, markers_in(cell) or row_markers))
            continue
        table_rows = 0
        if _is_note(s):
            continue
        label = _LABEL.match(s)  # "- **FedMerge** [1]: ...", "1. **Title** — ...": a label, like a table's first cell
        label_markers = markers_in(label.group(0)) if label else []
        if label:
            s = s[label.end():]
        for sent in split(s):
            lead = re.match(r"^((?:\s*\[\d+(?:\s*[,;\u2013-]\s*\d+)*\])+)\s*", sent)
            if lead and units:
                prev_text, prev_markers = units[-1]
                units[-1] = (prev_text, prev_markers + markers_in(lead.group(1)))
                sent = sent[lead.end():]
            if sent.strip():
                units.append((sent.strip(), markers_in(sent) or label_markers))
    return [(t, m) for t, m in units if len(content_words(strip_markers(t))) >= 3 and not _NO_EVIDENCE.search(t)]


_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\[(\"'A-Z0-9])")
_LABEL = re.compile(r"^(?:[-*]\s+|\d+\.\s+)?\*\*[^*]+\*\*(?:\s*\([^()]*\))?(?:\s*\[\d+\])?\s*[:\u2014\u2013]\s*")


def _simple_split(text: str) -> list[str]:
    return [p for p in _SPLIT.split(text) if p.strip()]


def sentence_support(sentence: str, support: Sequence[str], abstracts: Sequence[str] = ()) -> float:
    """Support score in [0, 1] of one answer sentence: 1.0 if (without markers) it occurs verbatim in a
    cited abstract or supporting sentence, else the share of its content words found in `support`.

    >>> sentence_support("FedMerge beats clustering [1].", ["Experiments show FedMerge beats clustering-based FL."])
    1.0
    >>> sentence_support("FedMerge uses ImageNet and MNIST.", ["FedMerge is evaluated on CIFAR-10."])
    0.25
    """
    bare = normalise(strip_markers(sentence).replace("*", "")).strip(" .…")
    if bare and any(bare in normalise(t) for t in list(support) + list(abstracts)):
        return 1.0
    words = content_words(strip_markers(sentence))
    if not words:
        return 0.0
    pool: set[str] = set()
    for t in support:
        pool |= content_words(t)
    return len(words & pool) / len(words)


def support_counts(
    answer: str, citations: Sequence[Mapping], threshold: float = 0.5, splitter=None
) -> tuple[int, int, list[dict]]:
    """(supported claims, claims, per-claim details) of an answer given its citations (Answer.to_json).

    A claim is checked against the supporting sentences of the citations whose markers it carries (the
    whole abstract when a citation lists no sentences) and their titles (so naming a cited paper is
    supported). A claim with no marker, or only markers that match no citation, is unsupported.
    """
    by_marker = {int(c.get("marker", 0)): c for c in citations}
    details, supported = [], 0
    units = claim_units(answer, splitter)
    for text, markers in units:
        cited = [by_marker[m] for m in dict.fromkeys(markers) if m in by_marker]
        support = [s for c in cited for s in (c.get("sentences") or [c.get("text", "")])]
        support += [c.get("title", "") for c in cited if c.get("title")]
        abstracts = [c.get("text", "") for c in cited]
        score = sentence_support(text, support, abstracts) if cited else 0.0
        ok = bool(cited) and score >= threshold
        supported += ok
        details.append({"sentence": text, "markers": markers, "score": round(score, 3), "supported": ok})
    return supported, len(units), details


# ---------------------------------------------------------------------------- abstention, mentions


def abstention_counts(pairs: Iterable[tuple[bool, bool]]) -> dict[str, int]:
    """Confusion counts from (unanswerable, abstained) pairs.

    >>> abstention_counts([(True, True), (True, False), (False, True), (False, False), (False, False)])
    {'tp': 1, 'fn': 1, 'fp': 1, 'tn': 2}
    """
    c = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
    for unanswerable, abstained in pairs:
        c[("tp" if abstained else "fn") if unanswerable else ("fp" if abstained else "tn")] += 1
    return c


def abstention_precision(c: Mapping[str, int]) -> float | None:
    """TP / (TP + FP): of the abstentions, the share that were right; None if it never abstained."""
    d = c["tp"] + c["fp"]
    return c["tp"] / d if d else None


def abstention_recall(c: Mapping[str, int]) -> float | None:
    """TP / (TP + FN): of the unanswerable questions, the share it abstained on; None if there were none."""
    d = c["tp"] + c["fn"]
    return c["tp"] / d if d else None


def must_mention_coverage(answer: str, terms: Sequence[str]) -> float | None:
    """Share of `terms` found in `answer`, case-insensitively (whitespace-normalised, accents and LaTeX
    accent commands folded: "Týr" is "T\\'yr" is "Tyr"); None without terms.

    >>> must_mention_coverage("FedMerge is evaluated on CIFAR-10", ["cifar-10", "MNIST"])
    0.5
    >>> must_mention_coverage(r"T\\'yr-the-Pruner prunes", ["Týr-the-Pruner"])
    1.0
    """
    if not terms:
        return None
    a = normalise(fold(answer))
    return sum(1 for t in terms if normalise(fold(t)) in a) / len(terms)


# ---------------------------------------------------------------------------------- aggregation


def percentile(values: Sequence[float], q: float) -> float | None:
    """q-th percentile (0-100) with linear interpolation between order statistics (numpy's default).

    >>> percentile([1, 2, 3, 4], 50), percentile([1, 2, 3, 4, 5], 95)
    (2.5, 4.8)
    """
    xs = sorted(float(v) for v in values if v is not None)
    if not xs:
        return None
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def mean(values: Iterable[float | None]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return sum(xs) / len(xs) if xs else None


def score_question(
    q: Mapping, rec: Mapping, key_index: Mapping[str, frozenset[str]] | None = None, *, support_threshold: float = 0.5,
    splitter=None,
) -> dict:
    """Per-question metric values (None where a metric does not apply).

    `q` is the question (id, kind, gold / gold_ids, must_mention); `rec` the result record: Answer.to_json()
    fields plus `ranking` (paper ids of the retrieval used for the retrieval metrics, >= 10 long) and
    `retrieval_only`.
    """
    from .ir import retrieval_scores

    units = gold_units(q.get("gold") or (), q.get("gold_ids") or (), key_index)
    ranking = [str(p) for p in rec.get("ranking") or [h["paper_id"] for h in rec.get("retrieved") or []]]
    labelled = not q.get("todo")
    unanswerable = labelled and not units
    row: dict = {
        "id": q.get("id"),
        "kind": q.get("kind", "factoid"),
        "has_gold": bool(units),
        "unanswerable": unanswerable if labelled else None,
        **retrieval_scores(ranking, units),  # recall@5, recall@10, mrr, ndcg@10 by trec_eval (eval/ir.py)
    }
    if rec.get("retrieval_only"):
        row.update(dict.fromkeys(ANSWER_METRICS))
        row.update({"abstained": None, "gold_cited": None, "supported": 0, "claims": 0,
                    "first_token_s": None, "total_s": None})
        return row
    abstained = bool(rec.get("abstained"))
    cited = [str(c["paper_id"]) for c in rec.get("citations") or []]
    answered = not abstained
    supported, claims, _ = (0, 0, None) if abstained else support_counts(
        rec.get("answer", ""), rec.get("citations") or [], support_threshold, splitter
    )
    timings = rec.get("timings") or {}
    row.update({
        "abstained": abstained,
        "citation_precision": citation_precision(cited, units) if answered else None,
        "citation_recall": citation_recall(cited, units) if answered else None,
        "supported_sentences": (supported / claims) if claims else None,
        "supported": supported,
        "claims": claims,
        "must_mention": must_mention_coverage(rec.get("answer", ""), q.get("must_mention") or []),
        "multi_set_recall": citation_recall(cited, units) if q.get("kind") == "multi" and units else None,
        "gold_cited": bool(relevant_ids(units) & set(cited)) if units else None,
        "first_token_s": timings.get("first_token_s"),
        "total_s": timings.get("total_s"),
    })
    return row


def aggregate(rows: Sequence[Mapping]) -> dict[str, float | None]:
    """Overall values of every metric over `rows` (per-question dicts from `score_question`).

    Retrieval and answer metrics are means over the questions where they apply, except
    supported_sentences, which pools the claims of all answers (supported claims / claims). Abstention
    precision/recall come from the pooled confusion counts; latency from percentiles.
    """
    out: dict[str, float | None] = {m: mean(r.get(m) for r in rows) for m in RETRIEVAL_METRICS}
    for m in ("citation_precision", "citation_recall", "must_mention", "multi_set_recall", *JUDGE_METRICS):
        out[m] = mean(r.get(m) for r in rows)
    claims = sum(r.get("claims") or 0 for r in rows)
    out["supported_sentences"] = (sum(r.get("supported") or 0 for r in rows) / claims) if claims else None
    vclaims = sum(r.get("verified_claims") or 0 for r in rows)
    out["verified_sentences"] = (sum(r.get("verified") or 0 for r in rows) / vclaims) if vclaims else None
    c = abstention_counts((bool(r["unanswerable"]), bool(r["abstained"])) for r in rows
                          if r.get("unanswerable") is not None and r.get("abstained") is not None)
    out["abstention_precision"] = abstention_precision(c)
    out["abstention_recall"] = abstention_recall(c)
    for name, field in (("first_token", "first_token_s"), ("total", "total_s")):
        vals = [r[field] for r in rows if r.get(field) is not None]
        out[f"{name}_p50_s"] = percentile(vals, 50)
        out[f"{name}_p95_s"] = percentile(vals, 95)
    return out


def confusion(rows: Sequence[Mapping]) -> dict[str, int]:
    return abstention_counts((bool(r["unanswerable"]), bool(r["abstained"])) for r in rows
                             if r.get("unanswerable") is not None and r.get("abstained") is not None)


def by_kind(rows: Sequence[Mapping]) -> dict[str, dict[str, float | None]]:
    kinds: dict[str, list[Mapping]] = {}
    for r in rows:
        kinds.setdefault(str(r.get("kind", "factoid")), []).append(r)
    return {k: aggregate(v) for k, v in kinds.items()}
