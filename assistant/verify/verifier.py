"""Does this source say what the claim says? A verdict per (claim, source) from the trained cross-encoder.

    v = get_verifier(settings.verify)
    v.verify("X improves accuracy by 12%.", abstract_text)        -> Verdict(support=0.03, ..., label="contradicted")
    v.verify_many([(claim, source), ...])                          -> [Verdict, ...]   (one batched model call)

A source is a string (split into sentences with the index stage's splitter) or a list of sentences.
The claim is scored against sentence windows (`windows.py`) and the scores are aggregated: support is
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
from ..settings import VerifySettings
from . import model as _model
from .windows import Window, content_words, overlap, singles, top_sentences
from .windows import pairs as pairs_of

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


def sentences_of(source: Source) -> list[str]:
    if isinstance(source, str):
        return [s.text for s in split_sentences(" ".join(source.split()))]
    if not all(isinstance(s, str) for s in source):
        raise ConfigError("A source must be a string or a list of sentence strings.",
                          hint='Pass "source": "text ..." or "source": ["sentence 1.", "sentence 2."].')
    return [" ".join(s.split()) for s in source if s.strip()]


class Verifier:
    """Scores claims against sources with the shipped cross-encoder (or `settings.model_dir`)."""

    def __init__(self, settings: VerifySettings | None = None) -> None:
        self.settings = settings or VerifySettings()
        self._encoder: _model.CrossEncoder | None = None
        self._lock = threading.Lock()

    def load(self) -> "Verifier":
        """Load the model now (it loads on first use otherwise); raises VerifierUnavailableError."""
        with self._lock:
            if self._encoder is None:
                self._encoder = _model.load(self.settings.model_dir or None, self.settings.max_tokens)
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
        """One verdict per (claim, source), windows scored in (at most) two batched calls.

        1. the `top_sentences` single sentences of each source that share most words with the claim;
        2. two-sentence windows around them, only for pairs that step 1 left undecided (not supported)
           and where some window already scored support or contradiction >= `expand_above`.
        `progress(n)` is called with the number of pairs finished.
        """
        encoder = self.load()._encoder  # even when no window needs the model: a missing model is always an error
        cfg = self.settings
        claims = [" ".join(str(c).split()) for c, _ in pairs]
        sents = [sentences_of(s) for _, s in pairs]
        keep = [top_sentences(c, ss, cfg.top_sentences)
                if c and ss and overlap(content_words(c), " ".join(ss)) >= cfg.min_overlap else []
                for c, ss in zip(claims, sents)]
        scored: list[list[tuple[Window, np.ndarray]]] = [[] for _ in pairs]
        self._score(encoder, claims, [singles(ss, k) for ss, k in zip(sents, keep)], scored)
        more = []
        for i, sc in enumerate(scored):
            top = max((max(float(p[0]), float(p[2])) for _, p in sc), default=0.0)
            undecided = not any(float(p[0]) >= cfg.supported_threshold for _, p in sc)
            more.append(pairs_of(sents[i], keep[i]) if sc and undecided and top >= cfg.expand_above else [])
        self._score(encoder, claims, more, scored)
        out = []
        for sc in scored:
            if not sc:
                out.append(Verdict(0.0, 0.0, "not_supported"))
                continue
            ws, s_best = max(sc, key=lambda x: float(x[1][0]))
            wc, c_best = max(sc, key=lambda x: float(x[1][2]))
            s, c = float(s_best[0]), float(c_best[2])
            lab = self.label(s, c)
            w = wc if lab == "contradicted" else ws
            out.append(Verdict(s, c, lab, w.text, w.sentences))
        if progress:
            progress(len(out))
        return out

    def _score(self, encoder, claims: list[str], wins: list[list[Window]], scored: list) -> None:
        flat = [(claims[i], w.text) for i, ws in enumerate(wins) for w in ws]
        if not flat:
            return
        probs = encoder.probs(flat, self.settings.batch_size)
        k = 0
        for i, ws in enumerate(wins):
            for w in ws:
                scored[i].append((w, probs[k]))
                k += 1


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
