"""BibTeX reader: good entries, every kind of damage, entries after damage still ingested, no hangs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from assistant.ingest import read_source
from assistant.ingest.bibtex import split_names
from assistant.types import IngestIssue, Record

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
ABSTRACT = "We study pooling for graph networks and show that keeping informative nodes helps accuracy a lot."


def split(items):
    items = list(items)
    return [i for i in items if isinstance(i, Record)], [i for i in items if isinstance(i, IngestIssue)]


@pytest.fixture(scope="module")
def malformed():
    return split(read_source(FIXTURES / "malformed.bib"))


def test_valid_entries_survive_the_damage(malformed):
    records, _ = malformed
    assert [r.paper_id for r in records] == ["10.1000/abc.123", "macro2021", "after2023"]
    assert [r.source_line for r in records] == [4, 20, 40]
    assert all(r.source_type == "bibtex" and r.source == "malformed.bib" for r in records)


def test_fields_of_a_good_entry(malformed):
    good = malformed[0][0]
    assert good.title == "BERT-style Pretraining of Graph Encoders"  # braces stripped
    assert good.label == good.title and not good.label_derived
    assert good.authors == ("Ada Lovelace", "Alan Turing")
    assert good.year == 2019 and good.venue == "Proceedings of ACL"  # @string macro resolved
    assert good.doi == "10.1000/abc.123"
    assert "by 3% on average" in good.text and "\n" not in good.text


def test_undefined_macro_and_trailing_others(malformed):
    macro = malformed[0][1]
    assert macro.authors == ("Grace Hopper",)
    assert macro.year == 2021 and macro.title == "Undefined Macros Are Kept"


def test_cite_key_is_the_id_without_doi(malformed):
    assert malformed[0][2].paper_id == "after2023" and malformed[0][2].authors == ("Donald E. Knuth",)


def test_each_damaged_entry_is_reported_with_line_and_key(malformed):
    issues = {i.key: i for i in malformed[1]}
    assert set(issues) == {"unbalanced2020", "quote2022", "noabstract2022", "truncated2024"}
    assert issues["unbalanced2020"].line == 15 and "unbalanced braces" in issues["unbalanced2020"].message
    assert issues["quote2022"].line == 30 and "quote" in issues["quote2022"].message
    assert issues["noabstract2022"].line == 35 and "no abstract" in issues["noabstract2022"].message
    assert issues["truncated2024"].line == 49 and "cut off" in issues["truncated2024"].message
    assert all(i.source == "malformed.bib" for i in malformed[1])


def test_duplicate_field_reported(tmp_path):
    path = tmp_path / "dup.bib"
    path.write_text(f"@article{{d1, title={{A}}, title={{B}}, abstract={{{ABSTRACT}}}}}\n", encoding="utf-8")
    records, issues = split(read_source(path))
    assert not records and issues[0].key == "d1" and "twice" in issues[0].message


def test_duplicate_cite_key(tmp_path):
    entry = f"@article{{same, title={{A}}, abstract={{{ABSTRACT}}}}}\n"
    path = tmp_path / "dupkey.bib"
    path.write_text(entry + entry, encoding="utf-8")
    records, issues = split(read_source(path))
    assert len(records) == 1 and issues[0].message.startswith("duplicate") and issues[0].line == 2


def test_latex_accents_and_brace_protected_names(tmp_path):
    path = tmp_path / "latex.bib"
    path.write_text(
        "@article{l1,\n  author = {G{\\\"o}del, Kurt and {Barnes and Noble}},\n"
        "  title = {On {F}ormally {U}ndecidable \\& Related Things},\n"
        f"  abstract = {{{ABSTRACT}}}\n}}\n",
        encoding="utf-8",
    )
    (record,) = read_source(path)
    assert record.authors == ("Kurt Gödel", "Barnes and Noble")
    assert record.title == "On Formally Undecidable & Related Things"


def test_split_names():
    assert split_names("A and B and {C and D}") == ["A", "B", "{C and D}"]


def test_pathological_input_does_not_hang(tmp_path):
    path = tmp_path / "evil.bib"
    body = "@article{evil, title = {" + "{" * 20000 + "x" + '"' * 5000 + "\n"
    path.write_text(body * 20 + f"@article{{ok, abstract = {{{ABSTRACT}}}}}\n", encoding="utf-8")
    start = time.monotonic()
    records, issues = split(read_source(path))
    assert time.monotonic() - start < 20
    assert [r.paper_id for r in records] == ["ok"] and len(issues) == 20
