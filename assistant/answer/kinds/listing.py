"""A "which papers ..." list: every retrieved paper with a sentence that matches the criterion, a
count, and a cited justification per paper. A criterion has parts: each named part ("FEMNIST",
"LibriSpeech") must occur in a listed paper's abstract, and when no paper has one, the answer
declines and says which part nothing matches.
"""

from __future__ import annotations

import re
from collections.abc import Generator

import numpy as np

from ...index.sentences import split_sentences
from ..compose import trim
from ..events import Event
from ..evidence import ABSTAIN_SENTENCE
from ..answerable import GENERIC_ASKED
from ..instances import WORD
from ..linker import norm
from ..support import STOP, stem
from ..state import Draft, Prepared, cite, shown_name
from .base import Context

LIST_MARGIN = 0.05  # a listed paper's best sentence must beat the abstention threshold by this much
PART_COSINE = 0.45  # a criterion part said in other words: some sentence this close to it (MiniLM cosine)
_ALTERNATIVES = re.compile(r"\s*(?:/|\bor\b)\s*", re.I)  # "speech enhancement / denoising", "LLMs or VLMs"
_PART_SPLIT = re.compile(r"\s*(?:,|;|\b(?:and|with|without|for|on|in|to|that|which|who|where|using|via|by|from|"
                         r"into|under|over|across|against|through|about|of)\b)\s*", re.I)
_LIST_GENERIC = frozenset(
    "use uses using used propose proposes proposed present presents introduce introduces study studies address "
    "addresses tackle tackles apply applies applied build builds focus focuses explore explores investigate "
    "investigates evaluate evaluates evaluated report reports show shows deal deals handle handles consider "
    "considers make makes work works paper papers abstract abstracts method methods approach approaches model "
    "models new novel based any some all other corpus".split()
)


def criterion_parts(criterion: str) -> list[list[list[str]]]:
    """The criterion as alternatives ("X or Y", "X / Y"), each a list of parts, each part the content words
    of one phrase between prepositions and relative words: "volatility forecasting with graph neural
    networks" -> [[[volatility, forecasting], [graph, neural, networks]]]. A listed paper must match
    every part of some alternative (see ListWriter).

    >>> criterion_parts("use a server-side generator for federated distillation")
    [[['server-side', 'generator'], ['federated', 'distillation']]]
    >>> criterion_parts("study LLMs or VLMs")
    [[['LLMs']], [['VLMs']]]
    """
    out = []
    for alternative in _ALTERNATIVES.split(criterion):
        parts = []
        for chunk in _PART_SPLIT.split(alternative):
            words = [w for w in WORD.findall(chunk) if w.lower() not in STOP and w.lower() not in GENERIC_ASKED
                     and w.lower() not in _LIST_GENERIC and len(w) > 1]
            if words:
                parts.append(words)
        if parts:
            out.append(parts)
    return out


def _matches(part: list[str], stems: set[str], cosines: np.ndarray) -> bool:
    """Most words of the part occur in the abstract (any form: one of two, two of three), or some sentence
    says the part in other words (cosine >= PART_COSINE)."""
    have = sum(stem(w.lower()) in stems for w in part)
    return have >= (len(part) + 1) // 2 or bool(cosines.size and cosines.max() >= PART_COSINE)


class ListWriter:
    def write(self, prep: Prepared, ctx: Context) -> Generator[Event, None, Draft]:
        yield from ()  # a generator like every writer; lists are composed without events
        draft = Draft("list")
        q = prep.question
        crit = q.criterion
        th = ctx.settings.abstain_threshold + LIST_MARGIN
        found = []
        unmatched = [p for p in q.parts if not any(norm(p) in norm(h.text + " " + h.title) for h in prep.hits)]
        if unmatched:
            missing = f"No indexed abstract mentions {', '.join(unmatched)}."
            draft.kind, draft.text = "abstain", f"{ABSTAIN_SENTENCE} {missing}"
            draft.notes.append(missing)
            draft.related = prep.hits[:3]
            return draft
        alternatives = criterion_parts(crit)
        parts = [p for alt in alternatives for p in alt]
        matched = [False] * len(parts)
        for h in prep.hits:
            if q.parts and not all(norm(p) in norm(h.text + " " + h.title) for p in q.parts):
                continue
            sents = [s.text for s in split_sentences(h.text)]
            row = ctx.scorer.matrix([crit], sents)[0]
            j = int(row.argmax())
            if row[j] < th:
                continue
            stems = {stem(w.lower()) for w in WORD.findall(h.title + " " + h.text)}
            ok = [_matches(part, stems, ctx.scorer.cosines(" ".join(part), sents)) for part in parts]
            matched = [m or o for m, o in zip(matched, ok)]
            at, fits = 0, False
            for alt in alternatives:  # every part of some alternative, not only the criterion's best-matched words
                fits, at = fits or all(ok[at: at + len(alt)]), at + len(alt)
            if fits or not parts:
                found.append((float(row[j]), h, j, sents[j]))
        found.sort(key=lambda x: -x[0])
        if not found:
            lacking = [" ".join(p) for p, m in zip(parts, matched) if not m]
            draft.kind = "abstain"
            why = f"No indexed abstract mentions {lacking[0]}." if lacking else f"No indexed abstract matches “{crit}”."
            draft.text = f"{ABSTAIN_SENTENCE} {why}" if lacking else ABSTAIN_SENTENCE
            draft.notes.append(why)
            draft.related = prep.hits[:3]
            return draft
        lines = [f"**{len(found)} paper{'s' if len(found) != 1 else ''}** in the indexed abstracts match “{crit}”:", ""]
        for n, (_, h, j, sent) in enumerate(found, start=1):
            name = shown_name(prep.names, h, full=True)
            shown = f"**{h.title}**" if not name or name == h.title else f"**{name}** ({h.title})"  # a derived label after the name
            lines.append(f"{n}. {shown} — {trim(sent, 30)} [{n}]")
            draft.citations.append(cite(n, h, [j]))
        listed = [f[1] for f in found]
        prep.hits = listed + [h for h in prep.hits if h not in listed]
        draft.text = "\n".join(lines)
        return draft
