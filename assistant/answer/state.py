"""The typed state of one answer: what preparation found (`Prepared`) and what a writer made (`Draft`).

    prep = Prepared(question, hits=[...], ...)      # analyze -> retrieve -> weigh (prepare.py)
    draft = yield from WRITERS[prep.kind].write(prep, ctx)   # kinds/*.py
    answer = draft.to_answer(prep, model_name)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..index.sentences import split_sentences
from ..retrieve.filter_check import FilterFinding
from ..retrieve.hybrid import Filters
from ..retrieve.query_filters import Span, describe
from ..types import Answer, Citation, Hit
from .decide import Decision
from .evidence import Evidence
from .findings import Findings
from .question import Kind, Question, Side


def cite(marker: int, hit: Hit, sentence_ids) -> Citation:
    """A citation of `hit` carrying the supporting sentences `sentence_ids` (indices into its abstract)."""
    sents = split_sentences(hit.text)
    ids = tuple(sorted({i for i in sentence_ids if 0 <= i < len(sents)}))
    return Citation(marker, hit.paper_id, hit.title, hit.text, tuple(sents[i].text for i in ids), ids,
                    hit.record.label_derived)


@dataclass
class Prepared:
    """What analysis, retrieval and weighing found, and what `decide()` made of it. Writers read it, never change it."""

    question: Question  # as analysed; nothing after analysis rewrites it
    k: int
    filters: Filters | None = None  # explicit filters merged with those stated in the question
    filters_from_question: tuple[Span, ...] = ()  # the question's phrases that became applied filters
    filter_finding: FilterFinding | None = None  # why the filters leave no paper (filter_check.py), else None
    hits: list[Hit] = field(default_factory=list)
    topic: tuple[str, ...] = ()  # the question's topic papers that retrieval confirmed (q.topic minus unconfirmed)
    topic_names: tuple[str, ...] = ()
    rechosen: tuple[str, ...] = ()  # "GDM: PMID:a -> PMID:b": a shared term's paper chosen by retrieval
    evidence: Evidence | None = None
    main: int = 0  # index in `hits` of the paper the answer rests on
    sides: list[list[Hit]] = field(default_factory=list)  # comparisons: the row paper per side ([] when none)
    side_specs: list[Side] = field(default_factory=list)  # the sides, in the order rows are shown
    side_evidence: list[Evidence] = field(default_factory=list)
    side_found: list[bool] = field(default_factory=list)  # comparisons: which sides an abstract describes
    rows: list[tuple[Hit, int, str]] = field(default_factory=list)  # lists: matching (paper, sentence index, sentence)
    on_topic: list[Hit] = field(default_factory=list)  # "most recent paper on X": papers using every word of X
    findings: Findings | None = None
    decision: Decision = field(default_factory=lambda: Decision("answer"))
    timings: dict[str, float] = field(default_factory=dict)
    turns: list = field(default_factory=list)  # earlier turns of the conversation (for the prompt)
    names: dict[str, str] = field(default_factory=dict)  # paper_id -> its short name (lexicon), for the hits
    within: str = ""  # a comparison whose every side is in one paper ("X vs placebo"): that paper's id, else ""
    separate: str = ""  # why a comparison whose sides all find one paper first is still between papers (trace)

    @property
    def kind(self) -> Kind:
        """The kind of answer written: the question's, except that a contrast inside one paper is a single answer."""
        return Kind.SINGLE if self.within else self.question.kind

    @property
    def abstain(self) -> bool:
        return self.decision.abstain

    @property
    def why(self) -> str:
        """What is missing, shown with the abstention ("The DiffMoE abstract reports no FID.")."""
        return self.decision.why

    @property
    def reason(self) -> str:
        """Why it abstained, with numbers, for the notes."""
        return self.decision.reason

    @property
    def gaps(self) -> tuple[str, ...]:
        """Parts of the question the answer's abstracts do not cover (said after the answer)."""
        return self.decision.gaps


@dataclass
class Draft:
    kind: str
    text: str = ""
    citations: list[Citation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    related: list[Hit] = field(default_factory=list)
    incomplete: bool = False
    listed: dict = field(default_factory=dict)  # lists: {"found", "shown", "complete"} (listsize.py)

    def to_answer(self, prep: Prepared, model: str, question: str, id: str = "") -> Answer:
        cited = {c.paper_id for c in self.citations}
        return Answer(
            question=question, answer=self.text, standalone_query=prep.question.standalone,
            abstained=self.kind == "abstain", citations=tuple(self.citations), retrieved=tuple(prep.hits),
            unsupported=tuple(self.unsupported), notes=tuple(self.notes), model=model, kind=self.kind,
            incomplete=self.incomplete, timings={k: round(v, 4) for k, v in prep.timings.items()}, id=id,
            related=tuple(h for h in self.related if h.paper_id not in cited),
            filters=describe(prep.filters, prep.filters_from_question, prep.filter_finding), trace=prep.decision.trace,
            listed=self.listed,
        )
