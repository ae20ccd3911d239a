"""Filters say what they did (issue 23, part 5): a filter that leaves no paper -- a year outside the corpus,
contradictory years, an author/venue/category no paper has, or filters that match nothing together -- is
reported as a typed finding (assistant/retrieve/filter_check.py), never dropped; the answer abstains
naming the filter, not the topic; `--year-min > --year-max` is refused. Unit tests over the catalog, then
the real Assistant on a real Chroma store (debug preset), then the CLI."""

from __future__ import annotations

import json

import pytest
from ui_helpers import make_assistant

from assistant.cli import main
from assistant.retrieve.catalog import Catalog
from assistant.retrieve.filter_check import RULES, check_filters
from assistant.retrieve.hybrid import Filters
from assistant.retrieve.query_filters import Vocabulary, parse_filters
from assistant.types import Record

TOPICS = [
    "Layer pruning removes whole transformer blocks from large language models and compensates the removed magnitude.",
    "Federated learning trains a shared model across clients without moving their data, with personalised merging.",
    "Underwater object detection runs a lightweight detector on low-power devices in real time.",
    "Speculative decoding drafts tokens with a small model and verifies them with the large model.",
]


def _records() -> list[Record]:
    """80 papers from 2021-2025 (16 a year), 20 of them at ACL, by Ann Lee or Bo Wang, in cs.CL or cs.LG."""
    out = []
    for i in range(80):
        out.append(Record(f"p{i}", f"{TOPICS[i % 4]} Variant {i} of the study.", title=f"Study {i}", label=f"Study {i}",
                          year=2021 + i % 5, authors=("Ann Lee",) if i % 2 else ("Bo Wang",),
                          venue="ACL" if i % 4 == 0 else "arXiv", categories=("cs.CL",) if i % 3 else ("cs.LG",)))
    return out


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog("g", _records())


# -- the check, over the catalog ----------------------------------------------------------------------------
@pytest.mark.parametrize("f, rule, kinds, message", [
    (Filters(year_min=2031, year_max=2031), "years_outside_corpus", ("year",),
     "No paper in this corpus is from 2031; the newest is 2025."),
    (Filters(year_min=2031), "years_outside_corpus", ("year",), "No paper in this corpus is from 2031 or later; the newest is 2025."),
    (Filters(year_max=2019), "years_outside_corpus", ("year",), "No paper in this corpus is from 2019 or earlier; the oldest is 2021."),
    (Filters(year_min=99999999999, year_max=99999999999), "years_outside_corpus", ("year",),
     "No paper in this corpus is from 99999999999; the newest is 2025."),
    (Filters(year_min=2025, year_max=2020), "contradictory_years", ("year",),
     "The year filters contradict each other: no year is both 2025 or later and 2020 or earlier."),
    (Filters(author="Zhang"), "no_match", ("author",), "No paper in this corpus has an author matching “Zhang”."),
    (Filters(venue="NeurIPS"), "no_match", ("venue",), "No paper in this corpus has the venue “NeurIPS”."),
    (Filters(categories=frozenset({"cs.CV"})), "no_match", ("categories",),
     "No paper in this corpus is in the arXiv category cs.CV."),
    (Filters(author="Ann Lee", venue="ACL"), "none_together", ("author", "venue"),  # Ann Lee's are the odd ones, ACL's i % 4 == 0
     "No paper in this corpus matches author “Ann Lee” and venue “ACL” together (40 match author “Ann Lee”; 20 match venue “ACL”)."),
    (Filters(year_min=2031, author="Ann Lee"), "years_outside_corpus", ("year",),  # the most specific reason first
     "No paper in this corpus is from 2031 or later; the newest is 2025."),
])
def test_a_filter_that_leaves_no_paper_says_why(catalog, f, rule, kinds, message):
    finding = check_filters(f, catalog)
    assert finding is not None and finding.rule in RULES
    assert (finding.rule, finding.kinds, finding.message) == (rule, kinds, message)
    assert finding.to_json() == {"rule": rule, "kinds": list(kinds), "message": message}


@pytest.mark.parametrize("f", [
    None, Filters(), Filters(year_min=2024), Filters(year_min=2019, year_max=2021), Filters(year_max=2030),
    Filters(author="wang", venue="acl", year_min=2022, year_max=2022), Filters(paper_ids=frozenset({"nope"})),  # a follow-up's focus is not checked
])
def test_filters_that_leave_papers_give_no_finding(catalog, f):
    assert check_filters(f, catalog) is None


def test_a_gap_inside_the_corpus_and_a_corpus_without_years():
    gap = Catalog("g", [Record("a", "x", year=2020), Record("b", "x", year=2024)])
    found = check_filters(Filters(year_min=2022, year_max=2023), gap)
    assert found.rule == "no_paper_in_years" and found.message == "No paper in this corpus is from 2022 to 2023; its papers span 2020–2024."
    none = Catalog("g", [Record("a", "x"), Record("b", "x")])
    assert check_filters(Filters(year_min=2024), none).rule == "no_years_in_corpus"


# -- the question parser keeps the years it used to drop ---------------------------------------------------------
@pytest.mark.parametrize("question, expected, cleaned", [
    ("Which papers in 2031 study pruning?", {"year_min": 2031, "year_max": 2031}, "Which papers study pruning?"),
    ("Which papers from year 99999999999 study pruning?", {"year_min": 99999999999, "year_max": 99999999999},
     "Which papers study pruning?"),
    ("What was published in the year 2040 on pruning?", {"year_min": 2040, "year_max": 2040}, "What was on pruning?"),
    ("Which pruning papers were published in 2090?", {"year_min": 2090, "year_max": 2090}, "Which pruning papers were?"),
])
def test_years_the_corpus_lacks_are_parsed_not_dropped(question, expected, cleaned):
    vocab = Vocabulary.build(_records())
    qf = parse_filters(question, vocab)
    assert qf.filters.describe() == expected and qf.cleaned == cleaned


def test_counts_are_still_not_years():
    vocab = Vocabulary.build(_records())
    for q in ("Can a model trained in 2048 steps converge?", "Does it fit in 4096 tokens?", "What is year 3 of the plan?",
              "Which models handle up to 2048 tokens?", "Does the loss drop after 2048 steps?"):
        assert not parse_filters(q, vocab), q


# -- the answer reports the finding as its reason --------------------------------------------------------------
@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return make_assistant(tmp_path_factory.mktemp("filter-check"), _records())


@pytest.mark.parametrize("question, rule, says", [
    ("Which papers in 2031 study pruning?", "years_outside_corpus", "No paper in this corpus is from 2031; the newest is 2025."),
    ("Which papers from year 99999999999 study layer pruning?", "years_outside_corpus",
     "No paper in this corpus is from 99999999999; the newest is 2025."),
    ("What did papers before 2020 find about federated learning?", "years_outside_corpus",
     "No paper in this corpus is from 2019 or earlier; the oldest is 2021."),
    ("Which papers published in 2022 and before 2021 at ACL study layer pruning?", "contradictory_years",
     "The year filters contradict each other"),
    ("What does the ACL paper from 2023 published before 2022 say about speculative decoding?", "contradictory_years",
     "The year filters contradict each other"),
    # was "No indexed abstract mentions ACL." although 20 papers have the venue ACL
    ("What does ACL say about pruning in 2022 and before 2021?", "contradictory_years", "The year filters contradict each other"),
])
def test_the_answer_abstains_naming_the_filter(built, question, rule, says):
    a, _ = built
    ans = a.ask(question, k=5)
    assert ans.abstained and ans.citations == ()
    assert says in ans.answer, ans.answer
    assert "mentions" not in ans.answer and "matches “" not in ans.answer  # not the topic's fault
    assert ans.filters["finding"]["rule"] == rule and says in ans.filters["finding"]["message"]
    assert ans.to_json()["filters"]["finding"] == ans.filters["finding"]
    assert ans.filters["from_question"]  # the phrases that made the filter are shown


def test_explicit_filters_are_checked_too(built):
    a, _ = built
    ans = a.ask("Which papers study layer pruning?", k=5, filters=Filters(year_min=2025, year_max=2020))
    assert ans.abstained and "contradict" in ans.answer and ans.filters["finding"]["rule"] == "contradictory_years"
    ans = a.ask("Which papers study layer pruning?", k=5, filters=Filters(author="Nobody Here"))
    assert ans.abstained and "No paper in this corpus has an author matching “Nobody Here”." in ans.answer


def test_a_filter_that_leaves_papers_is_not_reported(built):
    a, _ = built
    ans = a.ask("Which papers from 2024 on study layer pruning?", k=5)
    assert "finding" not in ans.filters and ans.retrieved
    assert all(h.record.year >= 2024 for h in ans.retrieved)


# -- the CLI ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("filter-cli")
    src = d / "papers.jsonl"
    src.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in _records()), encoding="utf-8")
    assert main(["--data-dir", str(d / "store"), "--preset", "debug", "ingest", str(src), "--quiet"]) == 0
    return d / "store"


def test_cli_refuses_year_min_after_year_max(store, capsys):
    for cmd in (["ask", "Which papers study pruning?"], ["search", "pruning"]):
        rc = main(["--data-dir", str(store), "--preset", "debug", *cmd, "--year-min", "2025", "--year-max", "2020"])
        err = capsys.readouterr().err
        assert rc == 2 and "--year-min 2025 is after --year-max 2020" in err and "--year-min 2020 --year-max 2025" in err


def test_cli_search_and_ask_say_what_the_filter_did(store, capsys):
    assert main(["--data-dir", str(store), "--preset", "debug", "search", "pruning", "--year-min", "2031"]) == 0
    assert "No results: No paper in this corpus is from 2031 or later; the newest is 2025." in capsys.readouterr().out
    assert main(["--data-dir", str(store), "--preset", "debug", "search", "pruning", "--year-min", "2031", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hits"] == [] and out["filter_finding"]["rule"] == "years_outside_corpus"
    assert main(["--data-dir", str(store), "--preset", "debug", "ask", "Which papers in 2031 study pruning?"]) == 0
    out = capsys.readouterr().out
    assert "No paper in this corpus is from 2031; the newest is 2025." in out and "match “2031" not in out


def test_doctests():
    import doctest

    from assistant.retrieve import filter_check

    result = doctest.testmod(filter_check)
    assert result.failed == 0 and result.attempted > 0
