"""verify stage (between retrieve and answer): does a source say what a claim says?

    from assistant.verify import get_verifier, Verdict, VerifierUnavailableError
    verdict = get_verifier(settings.verify).verify(claim, source)      # source: text or list of sentences
    verdicts = get_verifier(settings.verify).verify_many([(claim, source), ...])

The model (assistant/verify/model/, MODEL_CARD.md there) reads the claim token by token against each
one- and two-sentence window of the source: MiniLM token states (int8 ONNX, the bundled weights' first
layers) soft-aligned by a head trained in this repository (scripts/train_verifier.py), with three
labels: supported / not_supported / contradicted.
"""

from .model import VerifierUnavailableError
from .verifier import Verdict, Verifier, get_verifier, sentences_of

__all__ = ["Verdict", "Verifier", "VerifierUnavailableError", "get_verifier", "sentences_of"]
