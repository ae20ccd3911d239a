"""Process-level switches for the code paths that load models or open stores.

Called by those code paths (never at import): no hub downloads, no telemetry, no analytics.
"""

from __future__ import annotations

import os

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "TOKENIZERS_PARALLELISM": "false",
}


def go_offline() -> None:
    """Forbid model-hub downloads and turn off telemetry/analytics for this process."""
    for key, value in OFFLINE_ENV.items():
        os.environ[key] = value
