"""Does this source say what the claim says? A verdict per (claim, source) from the trained cross-encoder.

    v = get_verifier(settings.verify)
    v.verify("X improves accuracy by 12%.", abstract_text)        -> Verdict(support=0.03, ..., label="contradicted")
    v.verify_many([(claim, source), ...])                          -> [Verdict, ...]   (one batched model call)

A source is a string (split into sentences with the index stage's splitter) or a list of sentences.
The claim is read against sentence windows (`windows.py`: each sentence, and each with its successor) by
the alignment model (`model.py`) and the scores are aggregated: support is
the best window's P(supported), contradiction the best window's P(contradicted). The label:
`supported` when support >= `supported_threshold`, else `contradicted` when contradiction >=
`contradicted_threshold`, else `not_supported`. Both thresholds are settings calibrated on held-out
data (MODEL_CARD.md). The model loads lazily on first use, once per process; a missing or broken model
raises `VerifierUnavailableError` (an `AssistantError`) so the caller can fall back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..errors import ConfigError
from ..index.sentences import split_sentences
from ..markup import clean_markup
from ..settings import VerifySettings
from ..user_text import clean_user_text
from . import model as _model
from .abbrev import canonical
from .windows import Window, content_words, overlap, quoted, windows

Label = Literal["supported", "not_supported", "contradicted"]
Source = str | Sequence[str]


@dataclass(frozen=True)
class Verdict:
    """support, contradiction in 0..1; label from the thresholds; evidence = the deciding window."""

    support: float
    contradiction: float
    label: Label
    evidence: str = ""  # the source window with the best support (or, when contradicted, the contradicting one)
    sentences: tuple[int, ...] = ()  # indices of that window's sentences in the source

    def to_dict(self) -> dict:
        return {"support": round(self.support, 4), "contradiction": round(self.contradiction, 4),
                "verdict": self.label, "evidence": self.evidence, "sentences": list(self.sentences)}


def _safe(text: str, what: str) -> str:
    """The one door for user text (a lone surrogate is a clear error, not a tokenizer TypeError)."""
    return clean_user_text(text, what=what, max_chars=None, allow_empty=True)


def sentences_of(source: Source) -> list[str]:
    if isinstance(source, str):
        return [s.text for s in split_sentences(" ".join(_safe(source, "source").split()))]
    if not all(isinstance(s, str) for s in source):
        raise ConfigError("A source must be a string or a list of sentence strings.",
                          hint='Pass "source": "text ..." or "source": ["sentence 1.", "sentence 2."].')
    return [" ".join(_safe(s, "source sentence").split()) for s in source if s.strip()]



def _typeset(text: str) -> str:
    """A claim or a source sentence as the reader sees it (`clean_markup`), or as given when nothing is left."""
    return clean_markup(text) or text


def _read(source: Source) -> tuple[list[str], list[str]]:
    """A source's sentences as given (the evidence shown) and as typeset (what is read)."""
    given = sentences_of(source)
    return given, [_typeset(x) for x in given]

class Verifier:
    """Scores claims against sources with the shipped cross-encoder (or `settings.model_dir`)."""

    def __init__(self, settings: VerifySettings | None = None) -> None:
        self.settings = settings or VerifySettings()
        self._model: _model.AlignmentModel | None = None
        self._lock = threading.Lock()

    def load(self) -> Verifier:
        """Load the model now (it loads on first use otherwise); raises VerifierUnavailableError."""
        with self._lock:
            if self._model is None:
                self._model = _model.load(self.settings.model_dir or None)
        return self

    def label(self, support: float, contradiction: float) -> Label:
        if support >= self.settings.supported_threshold:
            return "supported"
        if contradiction >= self.settings.contradicted_threshold:
            return "contradicted"
        return "not_supported"

    def verify(self, claim: str, source: Source) -> Verdict:
        return self.verify_many([(claim, source)])[0]

    def verify_many(self, pairs: Sequence[tuple[str, Source]],
                    progress: Callable[[int], None] | None = None) -> list[Verdict]:
        """One verdict per (claim, source). Every distinct claim and source sentence is encoded once, then
        each claim is read against its source's windows (one- and two-sentence) in batched head calls."""
        model = self.load()._model  # even when no window needs the model: a missing model is always an error
        assert model is not None
        cfg = self.settings
        # read as typeset, claim and source alike ("96.9%" is no new figure beside "$96.9\\%$"); an answer's claims
        # share a few abstracts, each split and typeset once
        claims = [_typeset(" ".join(_safe(str(c), "claim").split())) for c, _ in pairs]
        read: dict[str, tuple[list[str], list[str]]] = {}
        readings = [_read(s) if not isinstance(s, str) else read.get(s) or read.setdefault(s, _read(s))
                    for _, s in pairs]
        given, sents = [g for g, _ in readings], [t for _, t in readings]
        quotes = [quoted(c, ss) for c, ss in zip(claims, sents)]  # word for word: no model reading needed
        plan: list[list[Window]] = []
        for c, ss, q in zip(claims, sents, quotes):
            ok = c and ss and not q and overlap(content_words(c), " ".join(ss)) >= cfg.min_overlap
            plan.append(windows(c, ss, cfg.top_sentences) if ok else [])
        needed = {c for c, ws in zip(claims, plan) if ws}
        needed |= {ss[i] for ss, ws in zip(sents, plan) for w in ws for i in w.sentences}
        st = model.states(sorted(needed))
        flat_c, flat_w = [], []
        for c, ss, ws in zip(claims, sents, plan):
            for w in ws:
                flat_c.append(st[c])
                flat_w.append(np.concatenate([st[ss[i]] for i in w.sentences]))
        probs = model.probs(flat_c, flat_w, cfg.batch_size)
        out, k = [], 0
        for ws, q, ss in zip(plan, quotes, given):
            if q:
                out.append(Verdict(1.0, 0.0, "supported", " ".join(ss[i] for i in q), q))
                continue
            if not ws:
                out.append(Verdict(0.0, 0.0, "not_supported"))
                continue
            p = probs[k : k + len(ws)]
            k += len(ws)
            i_s, i_c = int(p[:, 0].argmax()), int(p[:, 2].argmax())
            s, c = float(p[i_s, 0]), float(p[i_c, 2])
            lab = self.label(s, c)
            w = ws[i_c] if lab == "contradicted" else ws[i_s]
            out.append(Verdict(s, c, lab, " ".join(ss[i] for i in w.sentences), w.sentences))
        out = self._resolved(pairs, claims, sents, out)
        if progress:
            progress(len(out))
        return out

    def _resolved(self, pairs, claims: list[str], sents: list[list[str]], out: list[Verdict]) -> list[Verdict]:
        """A claim not supported as written that spells out an acronym its source defines ("Long Form (ACR)") is
        read again with the acronym alone (`abbrev.canonical`); that reading counts when it is supported."""
        again = {i: c for i, (claim, ss) in enumerate(zip(claims, sents))
                 if out[i].label != "supported" and "(" in claim and (c := canonical(claim, " ".join(ss)))}
        if not again:
            return out
        redo = dict(zip(again, self.verify_many([(c, pairs[i][1]) for i, c in again.items()])))
        return [redo[i] if i in redo and redo[i].label == "supported" else v for i, v in enumerate(out)]


_VERIFIERS: dict[str, Verifier] = {}
_LOCK = threading.Lock()


def get_verifier(settings: VerifySettings | None = None) -> Verifier:
    """A Verifier for these settings; the model itself is loaded once per process and shared."""
    settings = settings or VerifySettings()
    key = settings.model_dump_json()
    with _LOCK:
        if key not in _VERIFIERS:
            _VERIFIERS[key] = Verifier(settings)
        return _VERIFIERS[key]
