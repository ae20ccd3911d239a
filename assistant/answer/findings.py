"""The typed findings the one decision point reads (`decide.decide`): what analysis, retrieval and weighing
measured about a question, one small record per thing measured. Nothing here decides: prepare.py fills
them in, decide.py applies the rules to them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NameFinding:
    """What analysis and retrieval found about the names in a single question."""

    topic_names: tuple[str, ...] = ()  # names linked to the papers the question is about (after retrieval)
    linked: tuple[str, ...] = ()  # every name linked in the question, "name -> paper" ("weak": a repeated term only)
    unconfirmed: tuple[str, ...] = ()  # linked names retrieval did not confirm (dropped from the topic)
    rechosen: tuple[str, ...] = ()  # "GDM: PMID:a -> PMID:b": a shared term's paper, chosen by retrieval
    unlinked: tuple[tuple[str, str], ...] = ()  # subject-position names no paper is about, with their status
    placed: bool = False  # a topic name stands in the subject position (or a follow-up refers to it)
    strong: bool = False  # a topic paper is named by its label head or a defined name
    followup: bool = False
    own_paper_asked: bool = False  # "according to the X paper", "its own paper"
    paper_named: str = ""  # the X of "the X paper proposes/reports ..." when X is written as a name
    paper_named_own: bool = True  # some abstract has X as its own name (label head, coined or defined), or none
    # mentions it (a near-miss, not a name only discussed)
    original_asked: bool = False  # "the original X paper": the paper that introduced X
    owned: bool = True  # a topic paper coins its topic name or heads its title with it
    describes_paper: bool = False  # "in the work that re-annotates ...": the question describes its paper
    content_words: int = 0
    yes_no: bool = False  # "Is/Does/Did ...?": whether a finding holds ("Did Chile's traffic law reform ...?")


@dataclass(frozen=True)
class DetailFinding:
    """One thing the question asks for, checked against the abstract the answer rests on."""

    part: int  # 0: the main thing asked; 1..: further clauses
    asked: str
    why: str  # what the abstract lacks ("The DiffMoE abstract reports no FID.")
    firm: bool  # no wording difference explains the miss
    named: bool  # the question names the paper (its wording checked strictly)
    evidence: float  # the evidence score (weak evidence makes a soft miss count)
    override: float  # answer.detail_override
    partial: bool = False  # other parts of the same asked phrase are there: answer those, name this one
    own_words: bool = False  # asked as the asker describes it ("what new aggregation"), not as a paper names it


@dataclass(frozen=True)
class EvidenceFinding:
    score: float  # best support of the question by a sentence of the retrieved abstracts
    threshold: float  # the bar after the adjustments below
    base: float = 0.0  # answer.abstain_threshold
    adjustments: tuple[str, ...] = ()  # "confident retrieval -0.10", "paraphrase cosine 0.71", "named subject -0.12"
    dense_max: float | None = None  # best dense cosine of a retrieved chunk (None: not calibrated / no vectors)
    dense_floor: float = 0.0
    named_topic: bool = False  # the question names or refers to its paper
    main_has_sentence: bool = True  # a trusted sentence to show: the main paper's, or another's above the bar
    uncovered: tuple[str, ...] = ()  # named terms no retrieved abstract mentions (some others are)

    @property
    def below_floor(self) -> bool:
        """No chunk is close in meaning to a question that names no paper (the dense floor)."""
        return not self.named_topic and self.dense_max is not None and self.dense_max < self.dense_floor

    @property
    def off_topic(self) -> bool:
        """Nothing in the corpus is on the question's topic: below the dense floor or the evidence bar."""
        return self.below_floor or self.score < self.threshold


@dataclass(frozen=True)
class SideFinding:
    text: str
    paper: str = ""  # the paper chosen as its row ('' when none)
    named: bool = False
    found: bool = False
    how: str = ""  # "named", "evidence 0.41 >= 0.30", "retrieval agreement 0.93", "not found"
    unknown: str = ""  # 'passing' / 'missing': the side is a name no abstract is about


@dataclass(frozen=True)
class CompareFinding:
    sides: tuple[SideFinding, ...]
    absent_setting: str = ""  # a setting asked ("on FEMNIST") no side's abstract names
    rows_named: str = ""  # "A and B" (the found sides, for the sentence)
    rows: int = 0
    separate: str = ""  # every side finds one paper first, yet a described side is a paper of its own: why


@dataclass(frozen=True)
class ListFinding:
    criterion: str
    parts: tuple[str, ...] = ()  # named parts a listed paper must contain (and off-topic words)
    unmatched: tuple[str, ...] = ()  # parts no retrieved abstract contains
    matched: int = 0  # papers with a sentence matching the criterion above the bar
    bar: float = 0.0
    distinctive: tuple[str, ...] = ()  # rare criterion words (stem prefixes): a listed paper uses one of them
    # criterion words carrying part of its topic, per alternative ("X or Y"): a listed paper covers each of one
    essential: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class FilterFinding:
    """Filters retrieval applied (explicit or stated in the question). Reported in the trace; a later rule
    may decide on it (e.g. 'no paper passes the filter'): add it in `_filters` below."""

    applied: str = ""
    from_question: tuple[str, ...] = ()
    leaves_none: str = ""  # the sentence saying why no paper passes the filters (retrieve/filter_check.py), else ""
    check: str = ""  # filter_check's rule for it ("year.outside", ...)


@dataclass
class Findings:
    kind: str  # "answer" | "compare" | "list"
    names: NameFinding | None = None
    topic_absent: str = ""  # "is there a paper on X": the word of X no abstract uses
    # "the paper on X", "which paper does X": the described topic, when the paper answered lacks its essential words
    # (`topics.TopicWords.lacks`): (topic, the paper's title, the words it lacks); () when it covers them
    topic_uncovered: tuple[str, str, tuple[str, ...]] | tuple[()] = ()
    topic_does: bool = False  # the described topic says what the paper does ("detects X"), not what it is on
    details: tuple[DetailFinding, ...] = ()
    evidence: EvidenceFinding | None = None
    compare: CompareFinding | None = None
    listing: ListFinding | None = None
    filters: FilterFinding | None = None
    metadata: tuple[str, ...] = ()  # record fields the question asks for ('authors', 'year', 'venue', 'recent')
    metadata_of: str = ""  # a name the fields are asked of that no indexed paper is about ("the HumanMAC baseline")
    on_topic: int = 0  # 'most recent paper on X': retrieved papers whose abstract uses every word of X
    within: str = ""  # a comparison inside one paper, answered about it: its sides and that paper
