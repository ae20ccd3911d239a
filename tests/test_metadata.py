"""Metadata questions answered from the records (kinds/metadata.py), names shown honestly (naming.py) and
lists honest about their size (listsize.py), through the real Assistant on a real Chroma store."""

from __future__ import annotations

import pytest

from assistant.answer.assistant import Assistant
from assistant.answer.kinds.metadata import ASKS, asks_metadata
from assistant.answer.listsize import LIST_SHOW
from assistant.answer.naming import followup_questions, is_generic_name, marked_label, real_name
from assistant.index.indexer import Index
from assistant.types import Answer, Citation, Record


@pytest.fixture
def make(settings, papers):
    def _make(extra=()):
        s = settings.with_overrides({"answer.model": "extractive"})
        index = Index(s)
        index.add(list(papers) + list(extra))
        a = Assistant(s, index=index, chat_model=None)
        a._model = None
        return a

    return _make


@pytest.mark.parametrize("field,pattern,example", ASKS)
def test_each_metadata_pattern_matches_its_example(field, pattern, example):
    assert field in asks_metadata(example)


@pytest.mark.parametrize("q", ["What do the authors propose in Prune&Comp?",
                               "How does FedMerge compare with the latest baselines?",
                               "Which datasets does Prune&Comp use?",
                               "and how old were its patients?",  # their age is in the abstract, not the record
                               # "yearly", "year-long": words of the content, no publication year asked
                               "What yearly gain does Kite's variant get?",
                               "In what year-long study was Kite tested?",
                               "What years of follow-up does Kite report?"])
def test_content_questions_are_not_metadata_questions(q):
    assert asks_metadata(q) == ()


def test_years_asked_of_several_papers_are_a_year_question():
    assert asks_metadata("In what years were FedMerge and Kite published?") == ("year",)
    assert asks_metadata("What year was FedMerge published?") == ("year",)


def test_how_old_asks_the_papers_year_only_of_the_paper():
    assert asks_metadata("how old is FedMerge?") == ("year",)
    assert asks_metadata("How old is the paper?") == ("year",)


def test_authors_and_year_come_from_the_record_and_are_cited(make):
    a = make()
    ans = a.ask("Who are the authors of Prune&Comp and when was it published?")
    assert not ans.abstained and ans.citations[0].paper_id == "p-prune"
    assert "Cy Park" in ans.answer and "2024" in ans.answer and ans.answer.rstrip().endswith("[1].")


def test_a_field_asked_of_a_name_no_paper_is_about_is_not_the_papers(make):
    """'what year was the LLaMA-3-8B model released?': a model the Prune&Comp abstract only mentions; its year is
    in no record, and Prune&Comp's own year would be a wrong answer."""
    a = make()
    ans = a.ask("In the Prune&Comp paper, what year was the LLaMA-3-8B model released?")
    assert ans.abstained and "2024" not in ans.answer, ans.answer
    assert any(t["rule"] == "metadata.not_a_paper" and "LLaMA" in t["detail"] for t in ans.to_json()["trace"])
    ans = a.ask("In what year was Prune&Comp published?")  # the paper's own name: answered from its record
    assert not ans.abstained and "2024" in ans.answer, ans.answer


def test_an_empty_field_is_not_recorded(make):
    a = make()
    ans = a.ask("Who wrote the paper on lightweight underwater object detection?")
    assert ans.citations and ans.citations[0].paper_id == "p-underwater"
    assert "authors not recorded" in ans.answer
    assert "**untitled** (*Lightweight underwater object detection*)" in ans.answer


def test_most_recent_compares_the_years_of_the_retrieved_papers(make):
    a = make()
    ans = a.ask("What is the most recent paper on federated learning?")
    assert "(2025)" in ans.answer and ans.citations[0].paper_id == "p-fedmerge"


def test_generic_first_words_are_never_names():
    words = {"federated", "bayesian"}
    assert is_generic_name("Federated", words) and is_generic_name("Bayesian", words)
    assert is_generic_name("Accuracy", set())
    assert not is_generic_name("FedMerge", words) and not is_generic_name("Prune&Comp", words)
    assert real_name(Record("x", "t", label="Federated learning", label_derived=True)) == ""
    assert real_name(Record("x", "t", label="FedMerge: model merging", label_derived=True)) == "FedMerge"
    assert real_name(Record("x", "t", label="Recent success of large language models", label_derived=True)) == ""
    assert real_name(Record("x", "t", label="Prune&Comp: Free Lunch", title="Prune&Comp: Free Lunch")) == "Prune&Comp"


def test_derived_labels_are_marked_and_never_used_in_followups():
    assert (marked_label(Record("x", "t", label="Recent success of LLMs", label_derived=True))
            == "**untitled** (*Recent success of LLMs*)")
    ans = Answer("q", "a", "q", False, citations=(
        Citation(1, "a", "Recent success of large language models", "t", label_derived=True),
        Citation(2, "b", "Federated learning", "t", label_derived=True)))
    assert followup_questions(ans, None) == []
    ans = Answer("q", "a", "q", False, citations=(Citation(1, "a", "FedMerge: model merging", "t", label_derived=True),
                                                 Citation(2, "b", "Federated learning", "t", label_derived=True)))
    qs = followup_questions(ans, None)
    assert qs and all("FedMerge" in q and "Federated learning" not in q for q in qs)


def test_suggested_followups_use_real_names_only(make):
    a = make()
    ans = a.ask("How much does Prune&Comp reduce perplexity?")
    for q in a.suggest_followups(ans):
        assert "Prune&Comp" in q or "FedMerge" in q, q
        assert "Sparsified" not in q and "Lightweight" not in q


def test_a_list_longer_than_shown_says_so_and_cites_all(make):
    extra = [Record(f"p-fl{i}", f"Federated learning method number {i} trains client models with secure aggregation "
                               f"variant {i} and reports results on benchmark split {i}.", label=f"Fed variant {i}",
                    label_derived=True) for i in range(LIST_SHOW + 6)]
    a = make(extra)
    ans = a.ask("Which papers are about federated learning?")
    assert ans.kind == "list"
    n = len(ans.citations)
    assert n > LIST_SHOW  # checked beyond the shown ones
    head = ans.answer.splitlines()[0]
    assert f"{n} papers" in head and f"showing the first {LIST_SHOW}" in head
    assert sum(1 for line in ans.answer.splitlines() if line[:1].isdigit()) == LIST_SHOW
    assert ans.listed == {"found": n, "shown": LIST_SHOW, "complete": True} and ans.to_json()["listed"]["found"] == n


def test_most_recent_on_a_topic_no_abstract_covers_is_declined(make):
    a = make()
    ans = a.ask("What is the most recent paper on protein folding?")
    assert ans.abstained and not ans.citations
