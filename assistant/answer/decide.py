"""The one decision point: typed findings in, a verdict out (answer, partial answer or abstention), with
the trace of every rule that was checked.

Analysis, retrieval and weighing (prepare.py) only *measure*: which names linked and which did not, what
the question asks and whether the topic paper's abstract states it, how strong the evidence is, which
comparison sides were found, which papers meet a list's criterion (the typed records of findings.py).
`decide(findings)` applies the rules below, in order; the first rule whose verdict is `abstain` decides,
`partial` rules add what the answer must say it lacks. Writers (kinds/) then write what was decided and
never abstain.

Every rule has a short stable id (`rules.RULES`; catalogued with its tests in docs/decisions.md); the answer carries the
steps as `Answer.trace` and `paperchat ask --explain` prints them.

>>> from assistant.answer.findings import EvidenceFinding
>>> f = Findings(kind="answer", evidence=EvidenceFinding(score=0.12, threshold=0.30))
>>> d = decide(f)
>>> d.verdict, d.rule, d.trace[-1].detail
('abstain', 'evidence.weak', 'best evidence 0.12 < threshold 0.30')
>>> decide(Findings(kind="answer", evidence=EvidenceFinding(score=0.5, threshold=0.30))).verdict
'answer'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import TraceStep
from .findings import CompareFinding, FilterFinding, Findings, ListFinding, NameFinding, SideFinding
from .rules import RULES

ANSWER, PARTIAL, ABSTAIN, PASS = "answer", "partial", "abstain", "pass"



@dataclass(frozen=True)
class Decision:
    verdict: str  # answer | partial | abstain
    rule: str = ""  # the rule that decided ('' for a plain answer)
    why: str = ""  # shown with an abstention: what the corpus lacks
    reason: str = ""  # for the notes: why it abstained, with numbers
    gaps: tuple[str, ...] = ()  # partial: what the answer must say the corpus does not say
    trace: tuple[TraceStep, ...] = ()

    @property
    def abstain(self) -> bool:
        return self.verdict == ABSTAIN


class _Trace:
    def __init__(self) -> None:
        self.steps: list[TraceStep] = []
        self.gaps: list[str] = []

    def add(self, rule: str, verdict: str, detail: str) -> TraceStep:
        assert rule in RULES, rule
        step = TraceStep(rule, verdict, detail)
        self.steps.append(step)
        return step

    def abstain(self, rule: str, detail: str, why: str = "", reason: str = "") -> Decision:
        self.add(rule, ABSTAIN, detail)
        return Decision(ABSTAIN, rule, why, reason, tuple(self.gaps), tuple(self.steps))

    def gap(self, rule: str, detail: str, say: str) -> None:
        self.add(rule, PARTIAL, detail)
        self.gaps.append(say)

    def done(self) -> Decision:
        verdict = PARTIAL if self.gaps else ANSWER
        rule = (next((s.rule for s in self.steps if s.verdict == PARTIAL), "")
                or (self.steps[-1].rule if self.steps else ""))
        return Decision(verdict, rule, "", "", tuple(self.gaps), tuple(self.steps))


def decide(f: Findings) -> Decision:
    """The verdict for these findings: the first abstaining rule decides; partial rules collect gaps."""
    t = _Trace()
    stop = _filters(t, f.filters)
    if stop is not None:
        return stop
    if f.kind == "compare" and f.compare is not None:
        return _compare(t, f.compare)
    if f.kind == "list" and f.listing is not None:
        return _listing(t, f.listing)
    if f.within:
        t.add("compare.within_one", PASS, f.within)
    d = _single(t, f)
    return _metadata(t, f, d) if f.metadata else d


def _metadata(t: _Trace, f: Findings, d: Decision) -> Decision:
    """Abstracts rarely state their authors or year: a question for them is answered from the records where it
    names its paper, where nothing else declined it, or ('the most recent paper on X': no abstract says
    "recent") where no named miss declined it."""
    if f.metadata_of:
        return t.abstain("metadata.not_a_paper", f"{', '.join(f.metadata)} asked of {f.metadata_of!r}, which no "
                         "indexed abstract is about", "", f"No indexed paper is {f.metadata_of}, so its "
                         f"{' and '.join(x for x in f.metadata if x != 'recent')} cannot be told from this corpus.")
    named = bool(f.names and f.names.topic_names)
    recent = "recent" in f.metadata and not d.why and (not d.abstain or f.on_topic > 0)  # weak evidence: on topic
    if not (named or not d.abstain or recent):
        return d
    t.add("metadata.from_record", ANSWER, f"asks for {', '.join(f.metadata)}"
          + (f"; overrides {d.rule}" if d.abstain else "") + ("; names its paper" if named else ""))
    return Decision(ANSWER, "metadata.from_record", "", "", (), tuple(t.steps))


def _filters(t: _Trace, ff: FilterFinding | None) -> Decision | None:
    if ff is None:
        return None
    if ff.applied:
        said = f" (from the question: {', '.join(ff.from_question)})" if ff.from_question else ""
        t.add("filter.applied", PASS, ff.applied + said)
    if ff.leaves_none:
        return t.abstain("filter.none_pass", f"{ff.check}: no paper passes the filters", ff.leaves_none)
    return None


def _single(t: _Trace, f: Findings) -> Decision:
    n = f.names or NameFinding()
    if n.linked:
        t.add("name.linked", PASS,
              "; ".join(n.linked) + (f"; topic: {', '.join(n.topic_names)}" if n.topic_names else "; no topic"))
    for name in n.unconfirmed:
        t.add("name.unconfirmed", PASS, f"{name}: linked, but retrieval did not find its paper for this question")
    for change in n.rechosen:
        t.add("name.by_retrieval", PASS, f"{change}: a term several abstracts use or papers coin; retrieval's first")
    # its own paper asked of a name linked by repetition only, or of one no abstract owns (a name many abstracts
    # share links nowhere)
    discussed = (n.topic_names[0] if n.topic_names and not n.strong
                 else n.paper_named if not n.paper_named_own else "")
    if n.own_paper_asked and not n.followup and discussed:
        return t.abstain("name.only_discussed", f"{discussed}: its own paper asked; no abstract heads, coins or "
                                                "defines the name (linked, if at all, by repetition only)",
                         f"No indexed abstract is about {discussed}; it is only discussed in others.")
    if n.topic_names and n.original_asked and not n.owned and not n.followup:
        return t.abstain("name.not_introduced", f"{n.topic_names[0]}: its linked paper uses the name without "
                                                "introducing it; the original paper is asked",
                         f"No indexed abstract introduces {n.topic_names[0]}; it is only discussed in others.")
    near_miss = n.unlinked and not n.placed and not n.strong and not n.describes_paper
    if near_miss and n.yes_no:
        term, status = n.unlinked[0]
        t.add("near_miss.yes_no", PASS, f"subject {term!r} is {status}, but a yes/no question asks whether a finding "
                                        "holds: the evidence decides")
    elif near_miss and n.content_words <= NEAR_MISS_WORDS:
        term, status = n.unlinked[0]
        rule = "near_miss.passing" if status == "passing" else "near_miss.missing"
        why = (f"No indexed abstract is about {term}; it is only mentioned in passing." if status == "passing"
               else f"No indexed abstract mentions {term}.")
        ev = f" ; evidence {f.evidence.score:.2f}" if f.evidence else ""
        return t.abstain(rule, f"subject {term!r} is {status}; {n.content_words} content words{ev}", why)
    if f.topic_absent:
        return t.abstain("topic.absent", f"{f.topic_absent!r} is used by no abstract",
                         f"No indexed abstract mentions {f.topic_absent}.")
    if f.topic_uncovered:
        topic, label, lacking = f.topic_uncovered
        words = " or ".join(lacking)
        return t.abstain("topic.uncovered", f"described paper {topic!r}: the paper answered, {label!r}, lacks "
                                            f"{', '.join(map(repr, lacking))} (in any form or in other words)",
                         f"No indexed abstract {'' if f.topic_does else 'is on '}{topic}: the nearest, “{label}”, "
                         f"does not mention {words}.")
    for d in f.details:
        # a soft miss (the asked phrase in no form, nor in other words) counts when no sentence answers in other
        # words: evidence below the override, whether the question names its paper or describes it (unless a
        # described paper's thing is asked in the asker's own words: "what new aggregation", "softmax-style")
        counts = d.firm or (d.evidence < d.override and (d.named or not d.own_words))
        # (a described paper's soft miss where nothing is on the question's topic: the evidence rules say so)
        off_topic = not d.firm and not d.named and f.evidence is not None and f.evidence.off_topic
        if not counts or off_topic:
            continue
        detail = (f"{d.why} (" + ("firm: no wording explains it" if d.firm
                                  else f"{'named' if d.named else 'described'} paper, evidence {d.evidence:.2f} < "
                                       f"{d.override:.2f}") + ")")
        # a follow-up asks in a few words of its own about a paper already found ("what genotyping platform did they
        # use?"): a soft miss there answers with the closest sentences and names the gap; a firm one still declines
        soft_followup = n.followup and not d.firm
        if d.part == 0 and not d.partial and not soft_followup:
            return t.abstain("detail.missing", detail, d.why)
        if d.part == 0 and soft_followup:  # say what is known: the words are not there, not that the thing is absent
            who = d.why.split(" abstract ", 1)[0] + " abstract" if " abstract " in d.why else "The abstract"
            t.gap("detail.partial", detail + "; a follow-up: its closest sentences answer",
                  f"{who} does not say \"{d.asked}\" in those words; these are its closest sentences.")
            continue
        t.gap("detail.partial", detail, d.why)
    ev = f.evidence
    if ev is None:
        return t.done()
    if ev.below_floor:
        return t.abstain("evidence.off_topic", f"best chunk cosine {ev.dense_max:.2f} < {ev.dense_floor:.2f}", "",
                         "Abstained: no chunk is close to the question "
                         f"(cosine {ev.dense_max:.2f} < {ev.dense_floor:.2f}).")
    adj = f" ({'; '.join(ev.adjustments)})" if ev.adjustments else ""
    if ev.score < ev.threshold:
        why = f"best evidence {ev.score:.2f} < threshold {ev.threshold:.2f}"
        return t.abstain("evidence.weak", why + adj, "", f"Abstained: {why}.")
    t.add("evidence.weak", PASS, f"best evidence {ev.score:.2f} >= threshold {ev.threshold:.2f}{adj}")
    if not ev.main_has_sentence:
        return t.abstain("evidence.no_sentence", "no trusted sentence of the main paper, none of another above the bar")
    if ev.uncovered:
        note = f"Not covered by the indexed abstracts: {', '.join(ev.uncovered)}."
        t.gaps.insert(0, note)  # said before the detail gaps
        t.add("name.uncovered", PARTIAL, ", ".join(ev.uncovered))
    return t.done()


def _compare(t: _Trace, c: CompareFinding) -> Decision:
    if c.separate:
        t.add("compare.separate", PASS, c.separate)
    for s in c.sides:
        t.add("compare.side", PASS if s.found else "not found",
              f"{s.text!r}: {s.how}" + (f" ({s.unknown})" if s.unknown else ""))
    unknown = {s.text: _unknown_side(s) for s in c.sides if s.unknown}
    if not c.rows:
        return t.abstain("compare.no_side", "no side found", " ".join(unknown.values()),
                         "Abstained: no side of the comparison is described by an indexed abstract.")
    if c.absent_setting:
        plural = c.rows > 1
        return t.abstain("compare.setting_missing", f"{c.absent_setting!r} in no side's abstract",
                         f"The {c.rows_named} abstract{'s' if plural else ''} report{'' if plural else 's'} "
                         f"no {c.absent_setting}.")
    for s in c.sides:
        if s.text in unknown:  # a name no abstract is about: the other sides are compared, and it is said
            t.gap("compare.side_unknown", f"{s.text}: {s.unknown}", unknown[s.text])
        elif not s.found:
            t.gap("compare.side_missing", s.text, f"No indexed abstract describes {s.text}.")
    return t.done()


def _unknown_side(s: SideFinding) -> str:
    """What to say of a side that is a name no abstract is about."""
    return (f"No indexed abstract is about {s.text}; it is only mentioned in passing." if s.unknown == "passing"
            else f"No indexed abstract mentions {s.text}.")


def _listing(t: _Trace, lf: ListFinding) -> Decision:
    if lf.unmatched:
        missing = f"No indexed abstract mentions {', '.join(lf.unmatched)}."
        return t.abstain("list.part_unmatched", ", ".join(lf.unmatched), missing)
    if not lf.matched:
        rare = f" and uses one of {', '.join(lf.distinctive)}" if lf.distinctive else ""
        rare += f" and covers {_each_of(lf.essential)}" if lf.essential else ""
        return t.abstain("list.none_match", f"no retrieved abstract scores >= {lf.bar:.2f} for the criterion{rare}", "",
                         f"No indexed abstract matches “{lf.criterion}”.")
    rare = f", using one of {', '.join(lf.distinctive)}" if lf.distinctive else ""
    rare += f", covering {_each_of(lf.essential)}" if lf.essential else ""
    t.add("list.none_match", PASS, f"{lf.matched} paper(s) match at >= {lf.bar:.2f}{rare}")
    return t.done()


# A near-miss asks about the name itself ("How does R-CNN propose regions?", "What does the CLIP paper say?": at most
# 8 content words in every set); a longer question describes a paper in which the name is a detail (checked as one)
NEAR_MISS_WORDS = 12


def _each_of(alternatives: tuple[tuple[str, ...], ...]) -> str:
    """'each of music, recommendation' or, per alternative, 'each of event, cameras or each of neuromorphic'."""
    return " or ".join(f"each of {', '.join(words)}" for words in alternatives)
