"""The plain records that cross stage boundaries.

ingest -> Record; index -> Chunk; retrieve -> Hit; answer -> Citation, Answer; conversation -> Turn.
Nothing from LangChain, Chroma or sentence-transformers crosses a stage: only these frozen dataclasses.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any


def content_hash(*parts: str) -> str:
    """Stable short hash of normalised text (whitespace collapsed, case kept)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(" ".join((p or "").split()).encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class Sentence:
    """One sentence of an abstract: index within the abstract and character span [start, end)."""

    index: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Record:
    """One abstract as ingested. `paper_id` is the id every output shows."""

    paper_id: str
    text: str
    title: str = ""
    label: str = ""  # short display label; equals title when the source has one
    label_derived: bool = False  # True when `label` was derived from the text, not given by the source
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str = ""
    doi: str = ""
    source: str = ""  # source file name (provenance)
    source_line: int = 0  # 1-based line (or entry start line) in the source file
    source_type: str = ""  # reader that produced it: seed, jsonl, csv, bibtex, text, beir, arxiv
    duplicate_of: str = ""  # paper_id of the version this record duplicates, if any
    categories: tuple[str, ...] = ()  # arXiv categories ("cs.CL", ...), primary first; () when unknown

    @property
    def hash(self) -> str:
        return content_hash(self.title, self.text)

    @property
    def display(self) -> str:
        return self.label or self.title or self.paper_id

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["authors"] = list(self.authors)
        if self.categories:
            d["categories"] = list(self.categories)
        else:  # records without categories serialise as before (the committed corpus file is unchanged)
            del d["categories"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Record:
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        known["authors"] = tuple(known.get("authors") or ())
        cats = known.get("categories") or ()
        known["categories"] = tuple(c for c in (cats.split("; ") if isinstance(cats, str) else cats) if c)
        return cls(**known)


@dataclass(frozen=True)
class Chunk:
    """A run of whole sentences of one abstract, the unit that is embedded and lexically indexed."""

    chunk_id: str
    paper_id: str
    text: str
    index: int  # position of the chunk within its paper
    sent_start: int  # first sentence index (inclusive)
    sent_end: int  # last sentence index (exclusive)
    char_start: int
    char_end: int


@dataclass(frozen=True)
class Hit:
    """One retrieved paper: its best chunk, fused score and the score from each retriever."""

    paper_id: str
    record: Record
    score: float
    scores: dict[str, float] = field(default_factory=dict)  # e.g. {"dense": .., "bm25": .., "rrf": ..}
    ranks: dict[str, int] = field(default_factory=dict)  # 1-based rank per retriever (absent = not found)
    chunk_ids: tuple[str, ...] = ()
    sentences: tuple[int, ...] = ()  # indices of the sentences in the matching chunk(s)

    @property
    def title(self) -> str:
        return self.record.display

    @property
    def text(self) -> str:
        return self.record.text


@dataclass(frozen=True)
class Citation:
    """A verified pointer from an answer to an abstract and the sentences that support it."""

    marker: int
    paper_id: str
    title: str
    text: str  # full abstract
    sentences: tuple[str, ...] = ()  # supporting sentence texts
    sentence_ids: tuple[int, ...] = ()
    label_derived: bool = False  # `title` is a label paperchat derived from the abstract, not the source's title


@dataclass(frozen=True)
class Turn:
    """One exchange in a conversation."""

    question: str
    answer: str = ""
    standalone_query: str = ""
    paper_ids: tuple[str, ...] = ()  # papers cited by this turn
    focus: tuple[str, ...] = ()  # the papers the turn was about, in the order named ("it", "the second one")


@dataclass(frozen=True)
class IngestIssue:
    """A record that could not be ingested, with where it came from and what to do."""

    source: str
    line: int
    message: str
    key: str = ""

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        key = f" [{self.key}]" if self.key else ""
        return f"{where}{key}: {self.message}"


@dataclass(frozen=True)
class TraceStep:
    """One rule the answer's decision checked: its stable id (docs/decisions.md), its verdict
    (pass | partial | abstain | not found) and the inputs it saw, in words."""

    rule: str
    verdict: str
    detail: str = ""


@dataclass(frozen=True)
class Answer:
    """What the assistant returns for one question (see `to_json` for the CLI/eval shape)."""

    question: str
    answer: str
    standalone_query: str
    abstained: bool
    citations: tuple[Citation, ...] = ()
    retrieved: tuple[Hit, ...] = ()
    unsupported: tuple[str, ...] = ()  # answer sentences removed or flagged by verification
    notes: tuple[str, ...] = ()  # what verification changed, sources dropped for budget, ...
    model: str = ""
    kind: str = "answer"  # answer | compare | list | abstain
    incomplete: bool = False  # generation was cut (timeout, stream cut, stop pressed)
    timings: dict[str, float] = field(default_factory=dict)
    id: str = ""
    related: tuple[Hit, ...] = ()  # retrieved papers that are related but do not answer (never cited)
    # {"applied": {year_min, author, ...}, "from_question": [{kind, text, value}]}: the filters retrieval used
    filters: dict[str, Any] = field(default_factory=dict)
    # {"embedded", "papers", "complete", "percent"}: how many papers dense retrieval covered (lexical-first ingest)
    dense_coverage: dict[str, Any] = field(default_factory=dict)
    # lists: how many papers match ({"found", "shown", "complete"}); every match is cited, the text shows `shown`
    listed: dict[str, Any] = field(default_factory=dict)
    trace: tuple[TraceStep, ...] = ()  # the rules the decision checked, in order (answer/decide.py)

    @property
    def deciding_step(self) -> TraceStep | None:
        """The step that decided: the abstaining rule, else the first partial one, else the last checked."""
        for verdict in ("abstain", "partial"):
            step = next((s for s in self.trace if s.verdict == verdict), None)
            if step is not None:
                return step
        return self.trace[-1] if self.trace else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.question,
            "standalone_query": self.standalone_query,
            "answer": self.answer,
            "abstained": self.abstained,
            "kind": self.kind,
            "incomplete": self.incomplete,
            "citations": [
                {
                    "marker": c.marker,
                    "paper_id": c.paper_id,
                    "title": c.title,
                    "label_derived": c.label_derived,
                    "text": c.text,
                    "sentences": list(c.sentences),
                }
                for c in self.citations
            ],
            "retrieved": [
                {"paper_id": h.paper_id, "title": h.title, "text": h.text, "score": h.score, "scores": h.scores}
                for h in self.retrieved
            ],
            "related": [{"paper_id": h.paper_id, "title": h.title} for h in self.related],
            "unsupported": list(self.unsupported),
            "notes": list(self.notes),
            "model": self.model,
            "timings": self.timings,
            "filters": self.filters or {"applied": {}, "from_question": []},
            "dense_coverage": self.dense_coverage or None,
            "trace": [{"rule": t.rule, "verdict": t.verdict, "detail": t.detail} for t in self.trace],
            "listed": self.listed or None,
        }
