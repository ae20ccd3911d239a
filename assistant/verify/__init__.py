"""verify stage (between retrieve and answer): does a source say what a claim says?

    from assistant.verify import get_verifier, Verdict, VerifierUnavailableError
    verdict = get_verifier(settings.verify).verify(claim, source)      # source: text or list of sentences
    verdicts = get_verifier(settings.verify).verify_many([(claim, source), ...])

A 3-label cross-encoder (supported / not_supported / contradicted) trained in this repository
(scripts/train_verifier.py, MODEL_CARD.md in assistant/verify/model/), run as int8 ONNX.
"""

from .model import VerifierUnavailableError
from .verifier import Verdict, Verifier, get_verifier, sentences_of

__all__ = ["Verdict", "Verifier", "VerifierUnavailableError", "get_verifier", "sentences_of"]
