"""The one decision point (assistant/answer/decide.py): each rule fires on its finding and not without it, and
docs/decisions.md catalogues every rule id."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assistant.answer.decide import RULES, decide
from assistant.answer.findings import (
    CompareFinding,
    DetailFinding,
    EvidenceFinding,
    Findings,
    ListFinding,
    NameFinding,
    SideFinding,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "decisions.md"


def test_every_rule_is_catalogued_and_every_catalogued_rule_exists():
    rows = set(re.findall(r"^\| `([a-z_]+\.[a-z_]+)` \|", DOC.read_text(encoding="utf-8"), re.M))
    assert rows == set(RULES), (set(RULES) - rows, rows - set(RULES))


def test_every_rule_id_is_used_by_decide():
    src = (Path(__file__).resolve().parent.parent / "assistant" / "answer" / "decide.py").read_text(encoding="utf-8")
    body = src.split("def decide(", 1)[1]
    unused = [r for r in RULES if f'"{r}"' not in body]
    assert not unused, unused


GOOD = EvidenceFinding(score=0.6, threshold=0.3)


def _rule(f: Findings) -> tuple[str, str]:
    d = decide(f)
    return d.verdict, d.rule


def test_each_rule_fires_on_its_finding_and_not_without_it():
    def single(**kw):
        return Findings("answer", evidence=kw.pop("evidence", GOOD), **kw)

    assert _rule(single()) == ("answer", "evidence.weak")
    assert _rule(single(evidence=EvidenceFinding(0.1, 0.3))) == ("abstain", "evidence.weak")
    assert _rule(single(evidence=EvidenceFinding(0.6, 0.3, dense_max=0.1, dense_floor=0.2))) == (
        "abstain", "evidence.off_topic")
    assert _rule(single(evidence=EvidenceFinding(0.6, 0.3, dense_max=0.1, dense_floor=0.2,
                                                 named_topic=True)))[0] == "answer"
    assert _rule(single(evidence=EvidenceFinding(0.6, 0.3, main_has_sentence=False))) == (
        "abstain", "evidence.no_sentence")
    assert _rule(single(names=NameFinding(unlinked=(("YOLOX", "missing"),), content_words=4))) == (
        "abstain", "near_miss.missing")
    assert _rule(single(names=NameFinding(unlinked=(("R-CNN", "passing"),), content_words=4))) == (
        "abstain", "near_miss.passing")
    # a long question describing its paper, or a name in the subject position: not a near-miss
    assert _rule(single(names=NameFinding(unlinked=(("R-CNN", "passing"),), content_words=20)))[0] == "answer"
    assert _rule(single(names=NameFinding(unlinked=(("R-CNN", "passing"),), describes_paper=True)))[0] == "answer"
    assert _rule(single(names=NameFinding(topic_names=("FNet",), own_paper_asked=True))) == (
        "abstain", "name.only_discussed")
    assert _rule(single(names=NameFinding(topic_names=("FNet",), own_paper_asked=True, strong=True)))[0] == "answer"
    # "the EAGLE-3 paper" in a library where many abstracts mention EAGLE-3 (so it links to none) and none coins it
    assert _rule(single(names=NameFinding(own_paper_asked=True, paper_named="EAGLE-3", paper_named_own=False))) == (
        "abstain", "name.only_discussed")
    assert _rule(single(names=NameFinding(own_paper_asked=True, paper_named="EAGLE-3")))[0] == "answer"
    assert _rule(single(names=NameFinding(own_paper_asked=True, paper_named="EAGLE-3", paper_named_own=False,
                                          followup=True)))[0] == "answer"
    # "the original CPD paper": the linked paper uses CPD without coining it
    assert _rule(single(names=NameFinding(topic_names=("CPD",), strong=True, original_asked=True, owned=False))) == (
        "abstain", "name.not_introduced")
    assert _rule(single(names=NameFinding(topic_names=("CPD",), strong=True, original_asked=True)))[0] == "answer"
    assert _rule(single(names=NameFinding(topic_names=("CPD",), strong=True, owned=False)))[0] == "answer"
    assert _rule(single(topic_absent="protein")) == ("abstain", "topic.absent")
    # a paper described by what it does is said so: "No indexed abstract detects X", not "is on detects X"
    for does, said in ((True, "No indexed abstract detects depression from voice"),
                       (False, "No indexed abstract is on depression from voice")):
        topic = "detects depression from voice" if does else "depression from voice"
        d = decide(single(topic_uncovered=(topic, "Text-based depression", ("voice",)), topic_does=does))
        assert d.rule == "topic.uncovered" and d.why.startswith(said), d.why
    miss = DetailFinding(0, "FID", "The X abstract reports no FID.", True, True, 0.6, 0.4)
    soft = DetailFinding(0, "batch size", "The X abstract reports no batch size.", False, True, 0.6, 0.4)
    assert _rule(single(details=(miss,))) == ("abstain", "detail.missing")
    assert _rule(single(details=(soft,)))[0] == "answer"  # a soft miss with strong evidence does not count
    # with evidence below the override a soft miss counts, whether the question names its paper or describes it
    for named in (True, False):
        weak = DetailFinding(0, "bougie size", "The best-matching abstract reports no bougie size.", False, named,
                             0.45, 0.6)
        d = decide(single(details=(weak,)))
        assert (d.verdict, d.rule) == ("abstain", "detail.missing")
        assert ("named paper" if named else "described paper") in d.trace[-1].detail
    # a described paper's thing asked in the asker's own words ("what new aggregation") is no soft miss to count
    own = DetailFinding(0, "new aggregation", "The best-matching abstract reports no new aggregation.", False, False,
                        0.39, 0.6, own_words=True)
    assert _rule(single(details=(own,)))[0] == "answer"
    later = DetailFinding(1, "FID", "The X abstract reports no FID.", True, True, 0.6, 0.4)
    d = decide(single(details=(later,)))
    assert (d.verdict, d.rule, d.gaps) == ("partial", "detail.partial", ("The X abstract reports no FID.",))
    d = decide(single(evidence=EvidenceFinding(0.6, 0.3, uncovered=("MVBench",))))
    assert d.verdict == "partial" and d.gaps == ("Not covered by the indexed abstracts: MVBench.",)


def test_comparison_and_list_rules():
    a, b = SideFinding("A", "p-a", True, True, "named"), SideFinding("B", "", False, False, "evidence 0.1 < 0.3")
    assert _rule(Findings("compare", compare=CompareFinding((a, a), rows=2))) == ("answer", "compare.side")
    d = decide(Findings("compare", compare=CompareFinding((a, b), rows=1)))
    assert (d.verdict, d.gaps) == ("partial", ("No indexed abstract describes B.",))
    assert _rule(Findings("compare", compare=CompareFinding((b, b), rows=0))) == ("abstain", "compare.no_side")
    # a side that is a name no abstract is about: the rest is compared and the gap said (no side at all: abstain)
    u = SideFinding("B", "", False, False, "evidence 0.5 answers", unknown="passing")
    d = decide(Findings("compare", compare=CompareFinding((a, u), rows=1)))
    assert (d.verdict, d.rule, d.gaps) == ("partial", "compare.side_unknown",
                                           ("No indexed abstract is about B; it is only mentioned in passing.",))
    d = decide(Findings("compare", compare=CompareFinding((u, u), rows=0)))
    assert (d.verdict, d.rule) == ("abstain", "compare.no_side") and "only mentioned in passing" in d.why
    d = decide(Findings("compare", compare=CompareFinding((a, a), absent_setting="FEMNIST", rows_named="A and C",
                                                          rows=2)))
    assert (d.rule, d.why) == ("compare.setting_missing", "The A and C abstracts report no FEMNIST.")
    assert _rule(Findings("list", listing=ListFinding("x", matched=3))) == ("answer", "list.none_match")
    assert _rule(Findings("list", listing=ListFinding("x", matched=0))) == ("abstain", "list.none_match")
    assert _rule(Findings("list", listing=ListFinding("x", ("FEMNIST",), ("FEMNIST",)))) == (
        "abstain", "list.part_unmatched")


def test_filters_that_leave_no_paper_decide_before_anything_else():
    from assistant.answer.findings import FilterFinding

    strong = EvidenceFinding(score=0.9, threshold=0.3)
    none = FilterFinding("year 2031", ("in 2031",),
                         leaves_none="No paper in this corpus is from 2031; the newest is 2025.",
                         check="year.outside")
    d = decide(Findings(kind="answer", evidence=strong, filters=none))
    assert (d.verdict, d.rule, d.why) == ("abstain", "filter.none_pass", none.leaves_none)
    assert [s.rule for s in d.trace] == ["filter.applied", "filter.none_pass"]
    some = FilterFinding("year 2024", ("in 2024",))  # papers pass: reported, the evidence decides
    d = decide(Findings(kind="answer", evidence=strong, filters=some))
    assert d.verdict == "answer" and d.trace[0].rule == "filter.applied"


def test_a_metadata_question_is_answered_from_the_records_where_the_abstract_cannot_say():
    weak = EvidenceFinding(score=0.05, threshold=0.3)
    named = NameFinding(topic_names=("FedMerge",), linked=("FedMerge -> p1",), placed=True, strong=True)
    d = decide(Findings(kind="answer", names=named, evidence=weak, metadata=("authors",)))
    assert (d.verdict, d.rule) == ("answer", "metadata.from_record")
    assert [s.rule for s in d.trace][-2:] == ["evidence.weak", "metadata.from_record"]  # what it overrode is kept
    # no paper named: weak evidence wins
    unnamed = decide(Findings(kind="answer", evidence=weak, metadata=("authors",)))
    assert (unnamed.verdict, unnamed.rule) == ("abstain", "evidence.weak")
    # "most recent" is never in an abstract: answered when a retrieved paper uses every word of the topic asked
    recent = decide(Findings(kind="answer", evidence=weak, metadata=("recent",), on_topic=2))
    assert recent.rule == "metadata.from_record"
    off = decide(Findings(kind="answer", evidence=weak, metadata=("recent",), on_topic=0))  # "on protein folding"
    assert off.rule == "evidence.weak"
    plain = decide(Findings(kind="answer", evidence=weak))
    assert plain.rule == "evidence.weak"


def test_a_yes_no_question_is_no_near_miss():
    # "Is the Hawkins sign able to predict necrosis?": whether a finding holds; the name is its context
    d = decide(Findings("answer", evidence=GOOD,
                        names=NameFinding(unlinked=(("Hawkins", "passing"),), content_words=6, yes_no=True)))
    assert d.verdict == "answer"
    assert (d.trace[0].rule, d.trace[0].verdict) == ("near_miss.yes_no", "pass")
    # the same name asked about in a wh-question is a near-miss
    wh = NameFinding(unlinked=(("Hawkins", "passing"),), content_words=6)
    assert _rule(Findings("answer", evidence=GOOD, names=wh)) == ("abstain", "near_miss.passing")


def test_a_soft_detail_miss_in_a_follow_up_answers_and_says_the_words_are_not_there():
    """"what genotyping platform did they use?" after a turn on the paper: the abstract says "genotyped ... using
    AmpliChip ... technology", not "platform". A follow-up's soft miss answers with the closest sentences and says
    the words are not there (never that the thing is absent); a firm miss, or a soft one in a first question,
    still declines."""
    soft = DetailFinding(0, "genotyping platform", "The CYP2D6 abstract reports no genotyping platform.", firm=False,
                         named=True, evidence=0.59, override=0.60)
    d = decide(Findings("answer", evidence=GOOD, names=NameFinding(followup=True), details=(soft,)))
    assert d.verdict == "partial" and d.rule != "detail.missing"
    assert list(d.gaps) == ['The CYP2D6 abstract does not say "genotyping platform" in those words; these are its '
                            "closest sentences."]
    assert _rule(Findings("answer", evidence=GOOD, names=NameFinding(), details=(soft,))) == (
        "abstain", "detail.missing")
    firm = DetailFinding(0, "FID", "The X abstract reports no FID.", firm=True, named=True, evidence=0.9, override=0.6)
    assert _rule(Findings("answer", evidence=GOOD, names=NameFinding(followup=True), details=(firm,))) == (
        "abstain", "detail.missing")


def test_a_yes_no_question_after_a_lead_is_a_yes_no_question():
    """"Search engines in hard allergy cases: is Google useful?" asks whether a finding holds, as "Is Google useful
    in hard allergy cases?" does; a wh-question after a lead does not."""
    from assistant.answer.name_finding import yes_no as _yes_no

    assert _yes_no("Is Google useful in hard allergy cases?")
    assert _yes_no("Search engines as a diagnostic tool in hard allergy cases: is Google useful?")
    assert _yes_no("Chronic conditions among older adults in 2008 and 2010 - are they getting sicker?")
    assert not _yes_no("Search engines as a diagnostic tool in hard allergy cases: which one was used?")
    assert not _yes_no("What did the study of Google as a diagnostic tool find?")


def test_a_term_rechosen_by_retrieval_is_traced():
    d = decide(Findings("answer", evidence=GOOD, names=NameFinding(rechosen=("GDM: p-a -> p-b",))))
    assert ("name.by_retrieval", "pass") in [(s.rule, s.verdict) for s in d.trace] and d.verdict == "answer"



def test_a_term_many_abstracts_share_earns_no_named_subject_relief():
    from assistant.answer.evidence import PASSING_MARGIN, Evidence, evidence_bar
    from assistant.settings import AnswerSettings
    from assistant.types import Hit, Record

    s = AnswerSettings()
    hits = [Hit("p-a", Record("p-a", "MACE fell to 4% at one year. MACE was the primary end point."), 0.5),
            Hit("p-b", Record("p-b", "Stents were compared."), 0.49)]
    ev = Evidence(0.25, best=[(0, 0, 0.25)], named=["MACE"], subjects=["MACE"])
    own = evidence_bar(ev, hits, s, dense_ok=False, topic=(), named_paper="", main=0)
    shared = evidence_bar(ev, hits, s, dense_ok=False, topic=(), named_paper="", main=0, shared=frozenset({"MACE"}))
    assert own.threshold == pytest.approx(s.abstain_threshold - PASSING_MARGIN)  # a paper's own subject: relief
    assert shared.threshold == pytest.approx(s.abstain_threshold)  # "MACE", used by many abstracts: none
    assert any("no relief for MACE" in a for a in shared.adjustments)
    assert decide(Findings(kind="answer", evidence=shared)).rule == "evidence.weak"
