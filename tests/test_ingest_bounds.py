"""Issue 13, part 1: one bad record never costs its file; lines, records, abstracts and .gz are bounded."""

from __future__ import annotations

import gzip
import json
import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.ingest import read_source
from assistant.ingest.limits import truncate_at_sentence
from assistant.settings import IngestSettings
from assistant.types import IngestIssue, Record

GOOD = "We study graph neural networks on molecules and show that sparse message passing keeps accuracy. " * 2


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _split(items):
    recs = [i for i in items if isinstance(i, Record)]
    issues = [i for i in items if isinstance(i, IngestIssue)]
    return recs, issues


def test_lone_high_surrogate_in_a_title_costs_nothing(tmp_path):
    lines = [
        json.dumps({"id": "a", "title": "Good one", "abstract": GOOD}),
        '{"id": "b", "title": "Half emoji \\ud83d", "abstract": "' + GOOD + '"}',
        json.dumps({"id": "c", "title": "Good two", "abstract": GOOD + " More."}),
    ]
    recs, _issues = _split(list(read_source(_write(tmp_path, "s.jsonl", "\n".join(lines)))))
    assert [r.paper_id for r in recs] == ["a", "b", "c"]
    assert recs[1].title == "Half emoji \ufffd"
    for r in recs:  # every stored field encodes, so hashing and Chroma never see a surrogate
        assert r.hash
        json.dumps(r.to_dict(), ensure_ascii=False).encode("utf-8")


def test_surrogates_in_ids_authors_and_dupe_fields_are_per_record(tmp_path):
    lines = [
        '{"id": "x\\udc80", "abstract": "' + GOOD + '"}',  # an escaped low surrogate in the id: that record's issue
        '{"id": "y", "authors": ["A \\udbff B"], "duplicate_of": "\\ud800", "abstract": "' + GOOD + ' Y."}',
        json.dumps({"id": "z", "abstract": GOOD + " Z."}),
    ]
    recs, issues = _split(list(read_source(_write(tmp_path, "s.jsonl", "\n".join(lines)))))
    assert [r.paper_id for r in recs] == ["y", "z"]
    assert len(issues) == 1 and issues[0].line == 1
    str(issues[0]).encode("utf-8")  # printable


json_char = st.one_of(
    st.sampled_from(["\\ud83d", "\\ude00", "\\udc80", "\\udfff", "\\ud800", "\\u0000", "\\n", "\\\"", "\\\\", "\\/",
                     "\\u2028", "\\ufeff", "\\ud83d\\ude00"]),
    st.characters(blacklist_categories=("Cs",), blacklist_characters='"\\\n\r'),
)
json_str = st.lists(json_char, max_size=12).map("".join)


@settings(max_examples=60, deadline=timedelta(seconds=5), suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)
@given(title=json_str, author=json_str, ident=json_str, extra=json_str)
def test_any_json_escapes_in_one_record_never_cost_the_others(title, author, ident, extra):
    bad = (f'{{"id": "b{ident}", "title": "{title}", "authors": ["{author}"], "venue": "{extra}", '
           f'"duplicate_of": "{extra}", "abstract": "{GOOD}{extra}"}}')
    lines = [json.dumps({"id": "first", "abstract": GOOD + " First."}), bad,
             json.dumps({"id": "last", "abstract": GOOD + " Last."})]
    with tempfile.TemporaryDirectory() as tmp:
        items = list(read_source(_write(Path(tmp), "f.jsonl", "\n".join(lines))))
    recs, issues = _split(items)
    ids = [r.paper_id for r in recs]
    assert ids[0] == "first" and ids[-1] == "last"
    assert len(recs) + len(issues) == 3
    for item in items:
        str(item).encode("utf-8")
        if isinstance(item, Record):
            assert item.hash
            for v in (item.title, item.text, item.paper_id, item.venue, item.duplicate_of, *item.authors):
                v.encode("utf-8")


def test_long_line_is_skipped_not_read_whole(tmp_path):
    limits = IngestSettings(max_line_mb=0.01)  # ~10 KB
    lines = [json.dumps({"id": "a", "abstract": GOOD}), json.dumps({"id": "big", "abstract": "word " * 5000}),
             json.dumps({"id": "c", "abstract": GOOD + " C."})]
    recs, issues = _split(list(read_source(_write(tmp_path, "l.jsonl", "\n".join(lines)), limits=limits)))
    assert [r.paper_id for r in recs] == ["a", "c"]
    assert len(issues) == 1 and issues[0].line == 2 and "max_line_mb" in issues[0].message


def test_large_record_skipped_and_long_abstract_truncated_and_counted(tmp_path):
    limits = IngestSettings(max_record_chars=5000, max_abstract_chars=1000)
    long_abs = " ".join(f"Sentence {i} says something about graphs." for i in range(60))  # ~2.5k chars
    lines = [json.dumps({"id": "long", "abstract": long_abs}), json.dumps({"id": "huge", "abstract": "x y " * 3000}),
             json.dumps({"id": "ok", "abstract": GOOD})]
    recs, issues = _split(list(read_source(_write(tmp_path, "r.jsonl", "\n".join(lines)), limits=limits)))
    assert [r.paper_id for r in recs] == ["long", "ok"]
    assert len(recs[0].text) <= 1000 and recs[0].text.endswith("graphs.") and long_abs.startswith(recs[0].text)
    assert sorted(i.key for i in issues) == ["huge", "long"]
    assert next(i for i in issues if i.key == "long").message.startswith("truncated")


def test_truncation_prefers_sentence_end():
    assert truncate_at_sentence("A b. C d. E f.", 11) == "A b. C d."
    assert truncate_at_sentence("short", 100) == "short"


def test_gzip_bomb_stops_with_a_per_file_issue(tmp_path):
    p = tmp_path / "bomb.jsonl.gz"
    good = json.dumps({"id": "a", "abstract": GOOD}) + "\n"
    with gzip.open(p, "wb", compresslevel=9) as fh:
        fh.write(good.encode())
        chunk = b" " * (1 << 20)
        for _ in range(8):  # 8 MB of spaces (a bomb in miniature), no newline
            fh.write(chunk)
    limits = IngestSettings(max_decompressed_mb=4, max_line_mb=1)
    recs, issues = _split(list(read_source(p, limits=limits)))
    assert [r.paper_id for r in recs] == ["a"]
    assert any("max_decompressed_mb" in i.message for i in issues), [str(i) for i in issues]
