"""Readers: good and bad input for jsonl/beir/arxiv, csv, text and seed; format detection; whole-file errors."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

from assistant.errors import IngestError
from assistant.ingest import FORMATS, detect_format, read_source
from assistant.types import IngestIssue, Record, content_hash

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
ABSTRACT = (
    "We propose a pooling operator for graph neural networks that keeps the most informative nodes "
    "and improves accuracy on six node classification benchmarks without extra parameters."
)


def split(items):
    items = list(items)
    return [i for i in items if isinstance(i, Record)], [i for i in items if isinstance(i, IngestIssue)]


def write_jsonl(path: Path, objs) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


# ---- public API -------------------------------------------------------------------------------------


def test_formats_tuple():
    assert FORMATS == ("seed", "jsonl", "csv", "bibtex", "text", "beir", "arxiv")


@pytest.mark.parametrize(
    "make, needle",
    [
        (lambda p: p / "missing.jsonl", "no such file"),
        (lambda p: p, "is a directory"),
        (lambda p: (p / "b.jsonl").write_bytes(b"\x00\x01\x02binary") and p / "b.jsonl", "binary"),
        (lambda p: (p / "d.pdf").write_bytes(b"%PDF-1.7 ...") and p / "d.pdf", "PDF"),
        (lambda p: (p / "u.txt").write_bytes("abc".encode("utf-16")) and p / "u.txt", "UTF-16"),
        (lambda p: (p / "g.jsonl.gz").write_bytes(b"\x1f\x8bnot really gzip") and p / "g.jsonl.gz", "gzip"),
    ],
)
def test_whole_file_errors_raise_ingest_error_with_hint(tmp_path, make, needle):
    with pytest.raises(IngestError) as exc:
        read_source(make(tmp_path))
    assert needle in exc.value.message
    assert exc.value.hint


def test_unknown_format_name(tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", [{"id": "x", "abstract": ABSTRACT}])
    with pytest.raises(IngestError, match="unknown format"):
        read_source(path, fmt="xml")


def test_empty_file_is_one_issue(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    records, issues = split(read_source(path))
    assert records == [] and len(issues) == 1 and "empty" in issues[0].message


def test_pretty_printed_json_document_is_rejected_with_hint(tmp_path):
    path = tmp_path / "array.json"
    path.write_text(json.dumps([{"id": "a", "abstract": ABSTRACT}], indent=2))
    with pytest.raises(IngestError) as exc:
        read_source(path)
    assert "jq" in exc.value.hint


# ---- jsonl ------------------------------------------------------------------------------------------


def test_jsonl_malformed_fixture():
    records, issues = split(read_source(FIXTURES / "malformed.jsonl"))
    assert [r.paper_id for r in records] == ["p1", "p2", "p7"]
    by_line = {i.line: i for i in issues}
    assert sorted(by_line) == [5, 6, 7, 8, 9, 10, 12]
    assert by_line[5].message.startswith("not valid JSON")  # corrupt middle line
    assert "null" in by_line[6].message
    assert "array" in by_line[7].message
    assert "invalid UTF-8" in by_line[8].message and "0xff" in by_line[8].message
    assert by_line[9].key == "p5" and "no abstract" in by_line[9].message
    assert by_line[10].key == "p6" and "no abstract" in by_line[10].message  # whitespace-only abstract
    assert "partial write" in by_line[12].message  # truncated final line
    assert all(i.source == "malformed.jsonl" for i in issues)


def test_jsonl_fields_and_metadata():
    records, _ = split(read_source(FIXTURES / "malformed.jsonl"))
    p1, p2 = records[0], records[1]
    assert p1.title == "Good one" and p1.label == "Good one" and not p1.label_derived
    assert p1.authors == ("Ada Lovelace", "Alan Turing")
    assert p1.year == 2020 and p1.doi == "10.1/x"
    assert p1.source == "malformed.jsonl" and p1.source_line == 1 and p1.source_type == "jsonl"
    assert p2.year is None  # 1066 is outside 1900..2100: dropped, record kept
    assert p2.label_derived and p2.label


def test_jsonl_id_rules(tmp_path):
    path = write_jsonl(
        tmp_path / "ids.jsonl",
        [
            {"_id": 42, "text": ABSTRACT},
            {"paper_id": "pp", "abstract": ABSTRACT + " b"},
            {"doi": "https://doi.org/10.1234/ABC", "abstract": ABSTRACT + " c"},
            {"title": "T", "abstract": ABSTRACT + " d"},
            {"id": {"nested": 1}, "abstract": ABSTRACT + " e"},
        ],
    )
    records, issues = split(read_source(path, fmt="jsonl"))
    assert [r.paper_id for r in records] == ["42", "pp", "10.1234/abc", "h:" + content_hash("T", ABSTRACT + " d")]
    assert len(issues) == 1 and issues[0].line == 5 and "id" in issues[0].message


def test_jsonl_hash_ids_are_stable_across_runs(tmp_path):
    path = write_jsonl(tmp_path / "h.jsonl", [{"title": "T", "abstract": ABSTRACT}])
    first = [r.paper_id for r in read_source(path)]
    second = [r.paper_id for r in read_source(path)]
    assert first == second and first[0].startswith("h:")


def test_jsonl_authors_string_forms(tmp_path):
    path = write_jsonl(
        tmp_path / "a.jsonl",
        [
            {"id": "1", "abstract": ABSTRACT, "authors": "A One; B Two"},
            {"id": "2", "abstract": ABSTRACT + ".", "authors": "A One and B Two"},
            {"id": "3", "abstract": ABSTRACT + "..", "authors": ["A One", "B Two"]},
        ],
    )
    records, _ = split(read_source(path))
    assert all(r.authors == ("A One", "B Two") for r in records)


def test_jsonl_duplicates_and_id_collisions(tmp_path):
    path = write_jsonl(
        tmp_path / "d.jsonl",
        [
            {"id": "a", "abstract": ABSTRACT},
            {"id": "a", "abstract": ABSTRACT},
            {"id": "a", "abstract": ABSTRACT + " Different."},
        ],
    )
    records, issues = split(read_source(path))
    assert [r.source_line for r in records] == [1]
    assert issues[0].line == 2 and issues[0].message.startswith("duplicate") and "line 1" in issues[0].message
    assert issues[1].line == 3 and issues[1].message.startswith("id collision")
    assert "line 1" in issues[1].message and "line 3" in issues[1].message


def test_jsonl_gz_streams_transparently(tmp_path):
    path = tmp_path / "a.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for i in range(50):
            fh.write(json.dumps({"id": f"x{i}", "abstract": f"{ABSTRACT} {i}"}) + "\n")
    records, issues = split(read_source(path))
    assert len(records) == 50 and not issues and records[-1].paper_id == "x49"


def test_truncated_gzip_ends_with_one_issue(tmp_path):
    full = tmp_path / "full.jsonl.gz"
    with gzip.open(full, "wt", encoding="utf-8") as fh:
        for i in range(3000):
            fh.write(json.dumps({"id": f"x{i}", "abstract": f"{ABSTRACT} {i} " + "filler " * 20}) + "\n")
    data = full.read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    records, issues = split(read_source(cut))
    assert 0 < len(records) < 3000
    assert issues and "compressed data" in issues[-1].message


def test_read_source_is_lazy(tmp_path):
    path = write_jsonl(tmp_path / "lazy.jsonl", [{"id": str(i), "abstract": f"{ABSTRACT} {i}"} for i in range(1000)])
    stream = read_source(path)
    first = next(iter(stream))
    assert isinstance(first, Record) and first.paper_id == "0"


def test_beir_sniffed_and_mapped(tmp_path):
    path = write_jsonl(tmp_path / "corpus.jsonl", [{"_id": "4983", "title": "Microstructure.", "text": ABSTRACT}])
    (record,) = read_source(path)
    assert record.source_type == "beir" and record.paper_id == "4983" and record.title == "Microstructure."


def test_arxiv_sniffed_year_from_first_seen_or_id(tmp_path):
    base = {"title": "T", "abstract": ABSTRACT, "categories": ["cs.LG"], "url": "https://arxiv.org/abs/x"}
    path = write_jsonl(
        tmp_path / "arxiv.jsonl",
        [
            {**base, "id": "2501.01234", "authors": ["A B", "C D"], "first_seen": "2024-12-31"},
            {**base, "id": "2502.00001", "abstract": ABSTRACT + " x", "authors": "A B, C D"},
        ],
    )
    a, b = read_source(path)
    assert a.source_type == b.source_type == "arxiv"
    assert a.paper_id == "2501.01234" and a.year == 2024 and a.authors == ("A B", "C D")
    assert b.year == 2025 and b.authors == ("A B", "C D")


@pytest.mark.skipif(not Path("../shared/data/scifact/corpus.jsonl").exists(), reason="../shared/data absent")
def test_real_beir_and_arxiv_heads_are_sniffed():
    assert detect_format(Path("../shared/data/scifact/corpus.jsonl")) == "beir"
    arxiv = Path("../shared/data/arxiv/arxiv_cs_abstracts_2025-2026.jsonl.gz")
    assert detect_format(arxiv) == "arxiv"
    first = next(iter(read_source(arxiv)))
    assert isinstance(first, Record) and first.source_type == "arxiv" and first.year == 2025


def test_corpus_jsonl_round_trip_keeps_labels(tmp_path):
    rec = Record("h:abc", ABSTRACT, label="Pooling: keep informative nodes", label_derived=True, duplicate_of="h:x")
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps(rec.to_dict()) + "\n", encoding="utf-8")
    (back,) = read_source(path)
    assert back.paper_id == "h:abc" and back.label == rec.label and back.label_derived
    assert back.duplicate_of == "h:x"


# ---- csv ----------------------------------------------------------------------------------------------


def test_csv_fixture():
    records, issues = split(read_source(FIXTURES / "rows.csv"))
    assert [(r.paper_id, r.source_line) for r in records] == [("c1", 2), ("c2", 4), ("c6", 8)]
    c1, c2, c6 = records
    assert c1.text == "First line of the abstract, second line of the same abstract."  # quoted newline, BOM header
    assert c1.authors == ("Ada Lovelace", "Alan Turing") and c1.year == 2021 and c1.venue == "NeurIPS"
    assert c2.text.startswith('=HYPERLINK("http://evil.example","click")')  # formula kept as plain text
    assert c6.year is None and c6.doi == "10.5/zz"
    by_line = {i.line: i for i in issues}
    assert sorted(by_line) == [5, 6, 7]
    assert "missing" in by_line[5].message and by_line[5].key == "c3"
    assert "extra" in by_line[6].message
    assert "abstract" in by_line[7].message and "empty" in by_line[7].message


def test_csv_oversize_field_is_a_row_error_and_limit_is_restored(tmp_path):
    path = tmp_path / "big.csv"
    big = "x" * 1_100_000
    path.write_text(f"id,abstract\nok1,{ABSTRACT}\nbig,{big}\nok2,{ABSTRACT} again\n", encoding="utf-8")
    before = csv.field_size_limit()
    records, issues = split(read_source(path))
    assert csv.field_size_limit() == before
    assert [r.paper_id for r in records] == ["ok1", "ok2"]
    assert len(issues) == 1 and issues[0].line == 3 and "1,000,000" in issues[0].message


def test_csv_without_abstract_column_raises(tmp_path):
    path = tmp_path / "noabs.csv"
    path.write_text("id,title\n1,x\n", encoding="utf-8")
    with pytest.raises(IngestError, match="abstract"):
        read_source(path)


def test_csv_invalid_utf8_row(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"id,abstract\n1,caf\xe9 " + ABSTRACT.encode() + b"\n2," + ABSTRACT.encode() + b"\n")
    records, issues = split(read_source(path))
    assert [r.paper_id for r in records] == ["2"]
    assert issues[0].line == 2 and "UTF-8" in issues[0].message


def test_tsv_and_case_insensitive_columns(tmp_path):
    path = tmp_path / "a.tsv"
    path.write_text(f"PAPER_ID\tAbStRaCt\tAUTHOR\n7\t{ABSTRACT}\tA One and B Two\n", encoding="utf-8")
    (record,) = read_source(path)
    assert record.paper_id == "7" and record.authors == ("A One", "B Two") and record.source_type == "csv"


# ---- text and seed --------------------------------------------------------------------------------------


def test_text_paragraphs_and_short_ones_rejected():
    records, issues = split(read_source(FIXTURES / "abstracts.txt"))
    assert [r.source_line for r in records] == [1, 7]
    assert records[0].text.startswith("Graph neural networks have become the standard tool for learning on relational")
    assert "relational data, yet their pooling" in records[0].text  # wrapped lines joined with a space
    assert records[0].source_type == "text" and records[0].paper_id.startswith("h:")
    assert len(issues) == 1 and issues[0].line == 5 and "3 words" in issues[0].message


def test_seed_sample_debris_titles_and_typography():
    records, issues = split(read_source(FIXTURES / "seed_sample.txt"))
    assert not issues
    assert len(records) == 2
    x, fed = records
    assert x.title == "XLinear: A Lightweight and Accurate MLP-Based Model" and x.source_line == 4
    assert x.text.startswith("Despite the prevalent") and "PDF" not in x.text
    assert "cost‐effective" in x.text  # U+2010 kept
    assert fed.label.startswith("FedMerge") and fed.label_derived
    assert x.paper_id == "h:" + content_hash(x.title, x.text)


def test_seed_short_line_without_abstract_is_reported(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text(f"Daily Papers\nA Lonely Title Line\n{ABSTRACT} {ABSTRACT}\n", encoding="utf-8")
    records, issues = split(read_source(path, fmt="seed"))
    assert len(records) == 1 and records[0].title == ""
    assert len(issues) == 1 and issues[0].line == 2 and "too short" in issues[0].message


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("a.jsonl", '{"id": "1", "abstract": "x"}\n', "jsonl"),
        ("a.json", '{"_id": "1", "text": "x"}\n', "beir"),
        ("a.csv", "id,abstract\n1,x\n", "csv"),
        ("a.bib", "@article{x, abstract={y}}\n", "bibtex"),
        ("a.txt", "PDF ↗" + ABSTRACT + "\n", "seed"),
        ("a.txt", (ABSTRACT * 2 + "\n") * 3, "seed"),
        ("a.txt", "A wrapped paragraph line of an abstract\nthat continues here.\n\nAnother one\n", "text"),
        ("noext", '{"id": "1", "abstract": "x"}\n', "jsonl"),
        ("noext2", "@article{x, abstract={y}}\n", "bibtex"),
        ("noext3", "id,title,abstract\n1,t,x\n", "csv"),
        ("noext4", "Just some words in a paragraph.\n", "text"),
    ],
)
def test_detect_format(tmp_path, name, content, expected):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert detect_format(path) == expected


# ---- readers reject what is not data (issue 23, item 3) ---------------------------------------------


def test_csv_header_repeated_mid_file_is_an_issue_not_a_paper(tmp_path):
    path = tmp_path / "joined.csv"
    path.write_text(f"id,title,abstract\np1,Pooling,{ABSTRACT}\nid,title,abstract\n"
                    f"p2,Pooling again,{ABSTRACT} Twice.\n ID , Title,ABSTRACT\n", encoding="utf-8")
    records, issues = split(read_source(path))
    assert [r.paper_id for r in records] == ["p1", "p2"]
    assert [(i.line, "repeats the header" in i.message) for i in issues] == [(3, True), (5, True)]


def test_a_row_whose_values_are_column_names_is_not_a_paper(tmp_path):
    path = tmp_path / "aliases.csv"
    path.write_text(f"paper_id,title,text\nid,title,abstract\np1,Pooling,{ABSTRACT}\n", encoding="utf-8")
    records, issues = split(read_source(path))
    assert [r.paper_id for r in records] == ["p1"] and len(issues) == 1 and issues[0].line == 2
    jl = write_jsonl(tmp_path / "h.jsonl", [{"id": "id", "title": "title", "abstract": "abstract"},
                                           {"id": "p1", "abstract": ABSTRACT}])
    records, issues = split(read_source(jl))
    assert [r.paper_id for r in records] == ["p1"] and "just the word 'abstract'" in issues[0].message


def test_csv_header_without_rows_says_so(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("id,title,abstract\n\n", encoding="utf-8")
    records, issues = split(read_source(path))
    assert not records and len(issues) == 1 and "no data rows" in issues[0].message


SVG = ('<?xml version="1.0" encoding="UTF-8"?>\n'
       '<svg xmlns="http://www.w3.org/2000/svg" width="10"><text>@x</text></svg>\n')
HTML = "<!DOCTYPE html>\n<html><body><p>@article{k, abstract={not really}}</p></body></html>\n"


@pytest.mark.parametrize("name, content, says", [
    ("figure.bib", SVG, "no BibTeX entries found: the file holds SVG markup, not BibTeX"),
    ("page.bib", HTML, "no BibTeX entries found: the file holds HTML markup, not BibTeX"),
    ("prose.bib", "A paragraph of prose that is not BibTeX at all.\n", "no BibTeX entries found (no line starts"),
    ("page.csv", HTML, "no CSV rows found: the file holds HTML markup"),
    ("page.txt", HTML, "no abstracts found: the file holds HTML markup, not plain text"),
    ("figure.jsonl", SVG, "no abstracts found: the file holds SVG markup, not JSON Lines"),
])
def test_a_file_whose_content_is_not_its_extension_is_named(tmp_path, name, content, says):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    records, issues = split(read_source(path))
    assert not records and len(issues) == 1 and says in issues[0].message, issues


def test_svg_as_bib_fails_strict_and_says_why_in_the_cli(tmp_path, monkeypatch, capsys):
    from assistant.cli import main

    monkeypatch.setenv("PAPERCHAT_PRESET", "debug")
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(tmp_path / "store"))
    path = tmp_path / "figure.bib"
    path.write_text(SVG, encoding="utf-8")
    assert main(["ingest", str(path), "--strict", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "no BibTeX entries found" in err and "nothing was ingested (--strict)" in err
    assert main(["ingest", str(path), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "0 added" in out and "1 skipped" in out and "figure.bib:1: no BibTeX entries found" in err
