"""Citation parsing and verification: the model's answer in, a checked answer out.

For each sentence of the model's answer:
  1. markers `[n]`, `[n, m]`, `[n-m]` that point at no source of this turn are removed and flagged;
  2. the claim (the sentence without markers) is scored against every sentence of the abstracts it
     cites (`SupportScorer`); supported -> kept, cited to the sources that support it;
  3. otherwise, if another retrieved abstract supports it, it is re-cited there ("repaired");
  4. otherwise it is removed and listed in `unsupported`, and a note says so.
An uncited sentence with clear support gets its citation attached (small models forget to cite).
With a claim verifier (`checker`, assistant/verify), every sentence that passed the similarity check is
read against the abstract it cites: contradicted -> removed, with the sentence it contradicts in the
note; not supported -> re-cited to a retrieved abstract the verifier finds supporting it, else removed.
Similarity cannot tell a claim from its negation or a swapped number; the verifier can.
Markers are renumbered 1..n in order of first use; each Citation carries the paper id, label, full
abstract and the supporting sentences. Sentences copied from instruction-like abstract text
(prompt injection) never count as support.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..index.sentences import split_sentences
from ..types import Citation, Hit
from .support import SupportScorer, content_words, injected_sentences

_MARKER = re.compile(r"\[(\d+(?:\s*[,;–-]\s*\d+)*)\]")
_MARKER_AFTER_STOP = re.compile(r"([.!?])\s*((?:\[[\d\s,;–-]+\]\s*)+)")


def parse_markers(text: str) -> list[int]:
    """All source numbers cited in `text`, in order, ranges expanded.

    >>> parse_markers("A [1]. B [2, 3] and C [4-6].")
    [1, 2, 3, 4, 5, 6]
    """
    out: list[int] = []
    for m in _MARKER.finditer(text):
        for part in re.split(r"\s*[,;]\s*", m.group(1)):
            if re.search(r"[–-]", part):
                a, b = (int(x) for x in re.split(r"\s*[–-]\s*", part))
                out += list(range(a, b + 1)) if 0 < b - a < 20 else [a, b]
            else:
                out.append(int(part))
    return out


def strip_markers(text: str) -> str:
    return re.sub(r"\s+([.,;:!?])", r"\1", _MARKER.sub("", text)).strip()


@dataclass
class Verified:
    text: str
    citations: list[Citation] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class SourceIndex:
    """Every sentence of the numbered sources, flattened, with its source number."""

    hits: list[Hit]
    sentences: list[str] = field(default_factory=list)
    owner: list[int] = field(default_factory=list)  # 1-based source number per sentence
    local: list[int] = field(default_factory=list)  # sentence index within its abstract
    trusted: list[bool] = field(default_factory=list)

    def __post_init__(self) -> None:
        for n, h in enumerate(self.hits, start=1):
            sents = [s.text for s in split_sentences(h.text)]
            bad = injected_sentences(sents)
            for i, s in enumerate(sents):
                self.sentences.append(s)
                self.owner.append(n)
                self.local.append(i)
                self.trusted.append(i not in bad)


def verify(answer: str, sources: SourceIndex, scorer: SupportScorer, threshold: float, checker=None) -> Verified:
    """`checker(pairs) -> verdicts` (pairs of (claim, abstract text); verdicts with .label/.evidence) reads
    each kept sentence against its cited abstract; None checks by similarity only."""
    answer = _MARKER_AFTER_STOP.sub(lambda m: " " + m.group(2).strip() + m.group(1), answer)
    sents = [s.text for s in split_sentences(answer)]
    claims = [strip_markers(s) for s in sents]
    abstracts = [sources.hits[o - 1].text for o in sources.owner]
    scores = scorer.matrix(claims, sources.sentences, abstracts)
    for j, ok in enumerate(sources.trusted):
        if not ok:
            scores[:, j] = 0.0
    out = Verified("")
    kept: list[tuple[str, list[tuple[int, list[int]]]]] = []  # (claim, [(source, [local sentence ids])])
    n_sources = len(sources.hits)
    seen: set[str] = set()
    for i, (raw, claim) in enumerate(zip(sents, claims)):
        key = " ".join(sorted(content_words(claim)))
        if key in seen:  # small models loop: a repeated claim is said once
            continue
        seen.add(key)
        if i == len(sents) - 1 and i > 0 and claim and claim[-1] not in ".!?\"'”)":
            out.notes.append(f"Dropped an unfinished last sentence: \"{_short(claim)}\"")
            continue
        cited = parse_markers(raw)
        bad = sorted({c for c in cited if not 1 <= c <= n_sources})
        if bad:
            out.notes.append(f"Removed citation marker(s) {', '.join(f'[{b}]' for b in bad)} "
                             "that point at no retrieved abstract.")
        cited = [c for c in dict.fromkeys(cited) if 1 <= c <= n_sources]
        if _blocked(claim, sources):
            out.unsupported.append(claim)
            out.notes.append("Removed a sentence that repeats instruction-like text found inside an abstract.")
            continue
        if not content_words(claim):
            continue
        support = _support(scores[i], sources, threshold)
        from_cited = {s: ids for s, ids in support.items() if s in cited}
        if from_cited:
            kept.append((claim, sorted(from_cited.items())))
        elif support:
            best = max(support, key=lambda s: max(scores[i][j] for j, o in enumerate(sources.owner) if o == s))
            if cited:
                out.notes.append(f"Re-cited a sentence to [{best}] (its cited source did not support it): "
                                 f"\"{_short(claim)}\"")
            kept.append((claim, [(best, support[best])]))
        else:
            out.unsupported.append(claim)
            what = "not supported by the cited abstract" if cited else "not supported by any retrieved abstract"
            out.notes.append(f"Removed a sentence {what}: \"{_short(claim)}\"")
    if checker is not None and kept:
        kept = _check(kept, sources, checker, out)
    return _renumber(kept, sources, out)


def _check(kept, sources: SourceIndex, checker, out: Verified):
    """Keep, re-cite or remove each kept claim by the verifier's reading of its cited abstract."""
    texts = [h.text for h in sources.hits]
    first = checker([(claim, texts[cites[0][0] - 1]) for claim, cites in kept])
    result = []
    for (claim, cites), verdict in zip(kept, first):
        if verdict.label == "supported":
            result.append((claim, cites))
            continue
        if verdict.label == "contradicted":
            out.unsupported.append(claim)
            out.notes.append(f"Removed a sentence the cited abstract contradicts: \"{_short(claim)}\" "
                             f"(the abstract says: \"{_short(verdict.evidence)}\")")
            continue
        others = [n for n in range(1, len(texts) + 1) if n != cites[0][0]]
        verdicts = checker([(claim, texts[n - 1]) for n in others]) if others else []
        better = [(n, v) for n, v in zip(others, verdicts) if v.label == "supported"]
        if better:
            n, v = max(better, key=lambda nv: nv[1].support)
            result.append((claim, [(n, list(v.sentences))]))
            out.notes.append(f"Re-cited a sentence to [{n}] (the verifier found its cited abstract does not say it): "
                             f"\"{_short(claim)}\"")
        else:
            out.unsupported.append(claim)
            out.notes.append("Removed a sentence the claim verifier found unsupported by its cited abstract: "
                             f"\"{_short(claim)}\"")
    return result


def _support(row, sources: SourceIndex, threshold: float) -> dict[int, list[int]]:
    """source number -> local sentence ids that support the claim (score >= threshold)."""
    out: dict[int, list[int]] = {}
    for j, score in enumerate(row):
        if score >= threshold:
            out.setdefault(sources.owner[j], []).append(sources.local[j])
    return out


def _blocked(claim: str, sources: SourceIndex) -> bool:
    words = content_words(claim)
    for s, ok in zip(sources.sentences, sources.trusted):
        if not ok and words and len(words & content_words(s)) / len(words) >= 0.5:
            return True
    return False


def _renumber(kept, sources: SourceIndex, out: Verified) -> Verified:
    numbers: dict[int, int] = {}
    support_ids: dict[int, set[int]] = {}
    parts = []
    for claim, cites in kept:
        marks = []
        for src, ids in cites:
            numbers.setdefault(src, len(numbers) + 1)
            support_ids.setdefault(src, set()).update(ids)
            marks.append(numbers[src])
        body = claim.rstrip()
        end = body[-1] if body and body[-1] in ".!?" else "."
        body = body[:-1] if body and body[-1] in ".!?" else body
        parts.append(f"{body} {''.join(f'[{m}]' for m in sorted(set(marks)))}{end}")
    out.text = " ".join(parts)
    for src, marker in sorted(numbers.items(), key=lambda kv: kv[1]):
        h = sources.hits[src - 1]
        ids = sorted(support_ids[src])
        sents = split_sentences(h.text)
        out.citations.append(
            Citation(marker, h.paper_id, h.title, h.text, tuple(sents[i].text for i in ids), tuple(ids))
        )
    return out


def _short(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
