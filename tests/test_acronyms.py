"""An acronym spelled out at its first use in an answer (assistant/answer/acronyms.py) and the verifier reading a
spelled-out acronym its source defines (assistant/verify/abbrev.py). Abstracts written for these tests."""

from __future__ import annotations

import pytest

from assistant.answer.acronyms import definitions, spell_out
from assistant.verify import VerifierUnavailableError
from assistant.verify.abbrev import canonical

ABSTRACT = ("Interactive 3D segmentation suffers when 2D masks disagree across views. To overcome this, we propose "
            "Cross-View Mask Voting (CVMV). CVMV clusters noisy 2D masks across the views before training. CVMV runs "
            "in 12 ms per click. We evaluate on the LERF-Mask dataset with ViT-B features and SAM.")


class _Verdict:
    def __init__(self, label: str) -> None:
        self.label = label


def test_an_acronym_is_spelled_out_once_at_its_first_use():
    items = [("CVMV clusters noisy 2D masks across the views before training.", ABSTRACT, ""),
             ("CVMV runs in 12 ms per click.", ABSTRACT, "")]
    assert spell_out(items) == ["Cross-View Mask Voting (CVMV) clusters noisy 2D masks across the views before "
                                "training.", "CVMV runs in 12 ms per click."]


@pytest.mark.parametrize("sentence, said", [
    ("CVMV runs in 12 ms per click.", "The authors propose Cross-View Mask Voting (CVMV). CVMV runs in 12 ms."),
    ("CVMV runs in 12 ms per click.", "Cross-view mask voting is fast. CVMV runs in 12 ms per click."),
    ("SAM and ViT-B features are used.", "SAM and ViT-B features are used."),  # the abstract defines neither
    ("They evaluate on the LERF-Mask dataset.", "They evaluate on the LERF-Mask dataset."),  # part of a compound
])
def test_nothing_is_spelled_out_twice_or_without_the_abstracts_definition(sentence, said):
    assert definitions(sentence, ABSTRACT, said) == []


def test_a_long_form_whose_initials_do_not_spell_the_acronym_is_no_definition():
    abstract = "We propose a voting scheme over views (CVMV). CVMV is fast."
    assert definitions("CVMV is fast.", abstract, "CVMV is fast.") == []


def test_a_spelled_out_sentence_the_verifier_rejects_stays_as_written_and_no_verifier_leaves_the_rule():
    items = [("CVMV runs in 12 ms per click.", ABSTRACT, "CVMV runs in 12 ms per click.")]
    seen = []

    def reject(pairs):
        seen.extend(pairs)
        return [_Verdict("not_supported") for _ in pairs]

    assert spell_out(items, reject) == ["CVMV runs in 12 ms per click."]
    claim, evidence = seen[0]  # read against its own sentence and the abstract's definition
    assert claim.startswith("Cross-View Mask Voting (CVMV) runs")
    assert evidence == ["CVMV runs in 12 ms per click.", "To overcome this, we propose Cross-View Mask Voting (CVMV)."]

    def unavailable(pairs):
        raise VerifierUnavailableError("no model", hint="")

    assert spell_out(items, unavailable)[0].startswith("Cross-View Mask Voting (CVMV) runs")


def test_the_verifier_reads_a_spelled_out_acronym_as_its_source_defines_it():
    from assistant.settings import Settings
    from assistant.verify import get_verifier

    v = get_verifier(Settings().verify)
    spelled = "Cross-View Mask Voting (CVMV) runs in 12 ms per click."
    assert canonical(spelled, ABSTRACT) == "CVMV runs in 12 ms per click."
    assert canonical("Cross-View Mask Vetting (CVMV) runs in 12 ms per click.", ABSTRACT) is None  # not its definition
    supported = v.verify("Cross-View Mask Voting (CVMV) runs in 12 ms per click.", ABSTRACT)
    assert supported.label == "supported"
    # the resolved reading is still read for what it claims: a wrong figure is no support
    assert v.verify("Cross-View Mask Voting (CVMV) runs in 95 ms per click.", ABSTRACT).label != "supported"
    assert v.verify("Cross-View Mask Vetting (CVMV) runs in 12 ms per click.", ABSTRACT).label != "supported"


def test_an_extractive_answer_spells_out_the_acronym_its_abstract_defines(tmp_path):
    from assistant.answer.assistant import Assistant
    from assistant.types import Record
    from tests.conftest import PAPERS, make_settings

    a = Assistant(make_settings(tmp_path))
    a.index.add([*PAPERS, Record("p-cvmv", ABSTRACT, label="Cross-View Mask Voting", label_derived=True)])
    answer = a.ask("How fast is CVMV per click?")
    assert not answer.abstained
    assert "Cross-View Mask Voting (CVMV)" in answer.answer and answer.answer.count("(CVMV)") == 1


def test_the_prose_figure_counts_an_answer_that_leaves_a_defined_acronym_unexplained():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from prose import undefined_acronyms

    cited = [{"text": ABSTRACT}]
    assert undefined_acronyms({"answer": "**CVMV**: CVMV runs in 12 ms per click [1].", "citations": cited}) == [
        ("CVMV", "Cross-View Mask Voting")]
    assert undefined_acronyms({"answer": "Cross-View Mask Voting (CVMV) runs in 12 ms [1]. CVMV clusters masks [1].",
                               "citations": cited}) == []


def test_a_sentence_opening_with_a_lower_case_long_form_still_opens_with_a_capital():
    abstract = "We use conformal prediction (CP) for translation. CP gauges the uncertainty of each answer."
    out = spell_out([("The method translates commands.", abstract, ""), ("CP gauges the uncertainty of each answer.",
                                                                          abstract, "")])
    assert out[1] == "Conformal prediction (CP) gauges the uncertainty of each answer."  # a new sentence to a splitter


def test_review_cases_an_english_word_a_swallowed_word_a_nested_acronym_and_a_refused_first_use():
    # "NOT" the word is no acronym, whatever the abstract names so
    notted = "We propose Neural Operator Testing (NOT). Plain fine-tuning does NOT transfer to new domains."
    assert spell_out([("Plain fine-tuning does NOT transfer to new domains.", notted, "")]) == [
        "Plain fine-tuning does NOT transfer to new domains."]
    # a word before the definition (or across a sentence end) is not part of the long form
    graph = "It is learned on the Graph. Neural Operators (GNO) are fast."
    assert definitions("GNO is fast.", graph, "GNO is fast.") == []
    # an acronym inside another's long form stays as written
    clip = "We use Contrastive Language-Image Pretraining (CLIP). We propose CLIP Guided Sampling (CGS)."
    assert spell_out([("CGS improves CLIP scores by 4 points.", clip, "")]) == [
        "CLIP Guided Sampling (CGS) improves Contrastive Language-Image Pretraining (CLIP) scores by 4 points."]
    # the first use refused by the verifier: the next use is spelled out instead
    asked = []

    def first_refused(pairs):
        asked.append([c for c, _ in pairs])
        return [_Verdict("not_supported" if c.startswith("Cross-View Mask Voting (CVMV) clusters") else "supported")
                for c, _ in pairs]

    out = spell_out([("CVMV clusters noisy 2D masks across the views before training.", ABSTRACT, ""),
                     ("CVMV runs in 12 ms per click.", ABSTRACT, "")], first_refused)
    assert out == ["CVMV clusters noisy 2D masks across the views before training.",
                   "Cross-View Mask Voting (CVMV) runs in 12 ms per click."]
    assert len(asked) == 2  # two rounds at most, the second asking only what the first did not
    assert asked[1] == ["Cross-View Mask Voting (CVMV) runs in 12 ms per click."]


def test_an_edited_defining_sentence_gets_no_second_reading():
    # the claim is the abstract's defining sentence with one name swapped: the verifier read the long form with its
    # counterpart already; reading it again without the long form would only be a second chance for the edit
    source = ("We integrate MLLM reasoning with Group Relative Policy Optimization (GRPO) and our reward ROAM to "
              "detect anomalies end to end. GRPO stabilises training.")
    edited = ("We integrate ROAM reasoning with Group Relative Policy Optimization (GRPO) and our reward MLLM to "
              "detect anomalies end to end.")
    assert canonical(edited, source) is None
    assert canonical("Group Relative Policy Optimization (GRPO) stabilises training.", source) == \
        "GRPO stabilises training."
    # a sentence that only uses the acronym, spelled out, is still read again
    assert canonical("Tests on four benchmarks validate Group Relative Policy Optimization (GRPO).", source + (
        " Tests on four benchmarks validate GRPO.")) == "Tests on four benchmarks validate GRPO."


SECOND = ("Segmenting 3D scenes by clicks is slow. We propose Click-Guided Voting (CGV). CGV votes over the views of "
          "each click. CGV is evaluated on LERF-Mask.")


def test_a_comparison_overview_spells_out_each_acronym_once_and_its_own_abstracts_meaning():
    from assistant.answer.contrast import difference
    from assistant.types import Hit, Record

    a = Hit("a", Record("a", ABSTRACT, label="Cross-View Mask Voting", label_derived=True), 1.0)
    b = Hit("b", Record("b", SECOND, label="Click-Guided Voting", label_derived=True), 1.0)
    text = difference([(a, 1), (b, 2)], {1: [2, 3], 2: [2]}, {"a": "", "b": ""}, "How do they differ?")
    assert "Cross-View Mask Voting (CVMV) clusters noisy 2D masks" in text and text.count("(CVMV)") == 1
    assert "CVMV runs in 12 ms per click" in text  # the second use stays short
    assert "Click-Guided Voting (CGV) votes over the views" in text  # the other paper's acronym, from its abstract


def test_a_list_spells_out_an_acronym_at_its_first_use_and_the_figure_counts_lines_that_do_not(tmp_path):
    import sys
    from pathlib import Path

    from assistant.answer.assistant import Assistant
    from assistant.types import Record
    from tests.conftest import PAPERS, make_settings

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from prose import undefined_in_lines

    a = Assistant(make_settings(tmp_path))
    a.index.add([*PAPERS, Record("p-cvmv", ABSTRACT, label="Cross-View Mask Voting", label_derived=True),
                 Record("p-cgv", SECOND, label="Click-Guided Voting", label_derived=True)])
    answer = a.ask("Which papers vote over views for 3D segmentation?")
    assert not answer.abstained and "Click-Guided Voting (CGV) votes over the views" in answer.answer
    record = {"answer": answer.answer, "citations": [{"marker": c.marker, "text": c.text} for c in answer.citations]}
    assert undefined_in_lines(record) == []
    plain = {"answer": "**2 papers** match:\n\n1. **x** — CVMV clusters masks [1]\n2. **y** — CGV votes [2]",
             "citations": [{"marker": 1, "text": ABSTRACT}, {"marker": 2, "text": SECOND}]}
    assert undefined_in_lines(plain) == [("CVMV", "Cross-View Mask Voting"), ("CGV", "Click-Guided Voting")]


@pytest.mark.parametrize("abstract, sentence, expected", [
    ("We probe large language models (LLMs) for bias. LLMs over-refuse.", "LLMs over-refuse.",
     "Large language models (LLMs) over-refuse."),  # a plural: its capitals are the initials
    ("Large language models (LLMs) reason. We test 6 LLMs.", "The authors test 6 LLMs.",
     "The authors test 6 large language models (LLMs)."),  # inside a sentence, not the definition's opening capital
    ("We adopt Low-Rank Adaptation (LoRA) for tuning. LoRA adds 0.1% parameters.", "LoRA adds 0.1% parameters.",
     "Low-Rank Adaptation (LoRA) adds 0.1% parameters."),  # mixed case
])
def test_a_plural_or_mixed_case_acronym_is_spelled_out_by_its_capitals(abstract, sentence, expected):
    assert spell_out([(sentence, abstract, sentence)]) == [expected]
    assert canonical(expected, abstract) == sentence  # and the verifier reads it back as the source writes it


def test_a_long_form_opens_with_a_word_not_with_what_a_slash_left():
    abstract = "Trough concentration (Cmin)/minimum inhibitory concentration (MIC) predicted cure. MIC rose."
    assert definitions("MIC rose.", abstract, "MIC rose.") == []  # not "/minimum inhibitory concentration (MIC)"
