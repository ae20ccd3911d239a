"""Filters from the question: the parser (each phrase kind, the no-filter cases, the 40-question fixture's
precision and recall), merging with explicit filters, and the filtered search path (catalog, lexical
paper->chunk rows) against brute force."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from assistant.index.lexical import LexicalIndex
from assistant.retrieve.catalog import Catalog
from assistant.retrieve.hybrid import Filters
from assistant.retrieve.query_filters import (
    Vocabulary,
    applied_from_question,
    describe,
    merge,
    parse_filters,
    summary,
)
from assistant.types import Record

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    data = json.loads((FIXTURES / "filter_vocabulary.json").read_text(encoding="utf-8"))
    return Vocabulary.build(Record.from_dict(d) for d in data["records"])


def pairs(d: dict) -> set[tuple[str, object]]:
    out: set[tuple[str, object]] = set()
    for k, v in d.items():
        out |= {(k, c) for c in v} if k == "categories" else {(k, v)}
    return out


def score(vocab: Vocabulary) -> tuple[float, float, list[str]]:
    tp = fp = fn = 0
    wrong = []
    for line in (FIXTURES / "filter_questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        got, exp = pairs(parse_filters(q["question"], vocab).filters.describe()), pairs(q["expected"])
        tp, fp, fn = tp + len(got & exp), fp + len(got - exp), fn + len(exp - got)
        if got != exp:
            wrong.append(f"{q['id']}: got {sorted(got)} expected {sorted(exp)}")
    return tp / max(1, tp + fp), tp / max(1, tp + fn), wrong


def test_fixture_has_40_questions_with_and_without_filters():
    rows = [json.loads(x) for x in (FIXTURES / "filter_questions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 40 and len({r["id"] for r in rows}) == 40
    assert sum(1 for r in rows if not r["expected"]) >= 12  # no-filter questions, incl. ambiguous years


def test_precision_and_recall_on_the_fixture(vocab):
    precision, recall, wrong = score(vocab)
    assert precision >= 0.9 and recall >= 0.9, wrong


@pytest.mark.parametrize("question, expected, cleaned", [
    ("Which papers from 2025 on study LoRA?", {"year_min": 2025}, "Which papers study LoRA?"),
    ("What was proposed since 2024 for decoding?", {"year_min": 2024}, "What was proposed for decoding?"),
    ("Which methods after 2024 prune layers?", {"year_min": 2025}, "Which methods prune layers?"),
    ("2024 or later work on agents?", {"year_min": 2024}, "work on agents?"),
    ("Were there audio diffusion models before 2023?", {"year_max": 2022}, "Were there audio diffusion models?"),
    ("Which papers up to 2024 used RLHF?", {"year_max": 2024}, "Which papers used RLHF?"),
    ("What was published in 2024 on MMLU?", {"year_min": 2024, "year_max": 2024}, "What was on MMLU?"),
    ("Between 2023 and 2025, what improved LoRA?", {"year_min": 2023, "year_max": 2025}, "what improved LoRA?"),
    ("Which papers from 2023 to 2024 study RAG?", {"year_min": 2023, "year_max": 2024}, "Which papers study RAG?"),
    ("What did papers from last year say about agents?", {"year_min": 2025, "year_max": 2025},
     "What did papers say about agents?"),
    ("What did this year's papers find?", {"year_min": 2026, "year_max": 2026}, "What did papers find?"),
    ("Which papers in the past three years study ASR?", {"year_min": 2024}, "Which papers study ASR?"),
])
def test_year_phrases(vocab, question, expected, cleaned):
    qf = parse_filters(question, vocab)
    assert qf.filters.describe() == expected
    assert qf.cleaned == cleaned
    assert [s.kind for s in qf.spans] == ["year"] * len(qf.spans) and qf.spans


@pytest.mark.parametrize("question, author, cleaned", [
    ("Which papers by Chen study GNNs?", "Chen", "Which papers study GNNs?"),
    ("Papers by Wei Chen on graphs", "Wei Chen", "Papers on graphs"),
    ("Summarise the work of Sara Hooker on pruning.", "Sara Hooker", "Summarise the work on pruning."),
    ("What does LeCun et al. propose?", "LeCun", "What does a paper propose?"),
    ("What do Hooker's papers say about pruning?", "Hooker", "What do papers say about pruning?"),
    ("What do papers by Garcia and colleagues find?", "Garcia", "What do papers find?"),
])
def test_author_phrases(vocab, question, author, cleaned):
    qf = parse_filters(question, vocab)
    assert qf.filters.author == author and qf.cleaned == cleaned
    assert [s.kind for s in qf.spans] == ["author"]


def test_category_and_venue_phrases(vocab):
    qf = parse_filters("Which cs.CV or cs.RO papers use depth?", vocab)
    assert qf.filters.categories == {"cs.CV", "cs.RO"} and qf.cleaned == "Which papers use depth?"
    qf = parse_filters("Find papers in cs.RO about locomotion.", vocab)
    assert qf.filters.categories == {"cs.RO"} and qf.cleaned == "Find papers about locomotion."
    qf = parse_filters("Which papers at NeurIPS study scaling laws?", vocab)
    assert qf.filters.venue == "NeurIPS" and qf.cleaned == "Which papers study scaling laws?"
    qf = parse_filters("Which EMNLP papers from 2024 study instruction tuning?", vocab)
    assert qf.filters.describe() == {"venue": "EMNLP", "year_min": 2024, "year_max": 2024}
    qf = parse_filters("What was presented at ICML 2024 on sparsity?", vocab)  # venue with its year
    assert qf.filters.describe() == {"venue": "ICML", "year_min": 2024, "year_max": 2024}
    assert {s.kind for s in qf.spans} == {"venue", "year"}


@pytest.mark.parametrize("question", [
    "How does ResNet-2015 style training compare to ViTs?",
    "How does GPT-4 perform on code generation?",
    "Which methods are evaluated on COCO 2017?",
    "What is the WMT 2014 BLEU of the best model?",
    "Which datasets came with SemEval-2023 tasks?",
    "Can a model trained in 2048 steps converge?",  # not a year this corpus can mean
    "What does the Transformer by Vaswani change?",  # no stored author Vaswani
    "How is Adam used by Transformers?",
    "Papers from Google on efficient attention?",
    "What is the role of randomness in icml-style reviewing?",  # a venue written in lower case is a word
    "Which models handle cs.XX inputs?",  # not a category of this corpus
    "What do recent papers say about agents?",  # "recent" is not a year range
])
def test_no_filter(vocab, question):
    qf = parse_filters(question, vocab)
    assert not qf and not qf.filters.active() and qf.cleaned == question


def test_nothing_is_guessed_without_a_vocabulary():
    qf = parse_filters("Which papers by Chen in cs.CL at NeurIPS from last year?", Vocabulary())
    assert qf.filters.describe() == {}  # no authors, categories, venues or newest year to confirm them


def test_explicit_filters_win_and_kinds_can_be_ignored(vocab):
    qf = parse_filters("Which papers by Chen from 2025 on in cs.CL study LoRA?", vocab)
    explicit = Filters(year_min=2020)
    merged = merge(explicit, qf.filters)
    assert merged.year_min == 2020 and merged.year_max is None  # the UI's year wins as a whole
    assert merged.author == "Chen" and merged.categories == {"cs.CL"}
    assert {s.kind for s in applied_from_question(explicit, qf)} == {"author", "categories"}
    drop = Filters(ignore_from_question=frozenset({"author"}))
    assert merge(drop, qf.filters).author == "" and merge(drop, qf.filters).year_min == 2025
    assert {s.kind for s in applied_from_question(drop, qf)} == {"year", "categories"}
    off = Filters(ignore_from_question=frozenset({"all"}))
    assert not merge(off, qf.filters).active() and applied_from_question(off, qf) == ()
    shown = describe(merged, applied_from_question(explicit, qf))
    assert shown["applied"] == {"year_min": 2020, "author": "Chen", "categories": ["cs.CL"]}
    assert summary(shown["applied"]) == "year >= 2020 · author Chen · category cs.CL"
    assert [s["text"] for s in shown["from_question"]] == ["by Chen", "in cs.CL"]


# -- the filtered search path ---------------------------------------------------------------------------
def _records(n: int, seed: int = 7) -> list[Record]:
    rnd = random.Random(seed)
    cats = ["cs.CL", "cs.CV", "cs.LG", "stat.ML"]
    names = ["Wei Chen", "Ann Lee", "Bo Wang", "Chen Li", "Maria Garcia"]
    return [Record(f"p{i}", "x", authors=tuple(rnd.sample(names, rnd.randint(0, 2))),
                   year=rnd.choice([None, 2023, 2024, 2025, 2026]), venue=rnd.choice(["", "ACL 2024", "NeurIPS"]),
                   source=rnd.choice(["a.jsonl", "b.jsonl"]), categories=tuple(rnd.sample(cats, rnd.randint(0, 2))))
            for i in range(n)]


@pytest.mark.parametrize("f", [
    Filters(year_min=2025), Filters(year_max=2024), Filters(year_min=2024, year_max=2025),
    Filters(author="chen"), Filters(venue="acl"), Filters(categories=frozenset({"cs.CL", "stat.ML"})),
    Filters(year_min=2025, categories=frozenset({"cs.CV"}), author="Lee", source="a.jsonl"),
    Filters(paper_ids=frozenset({"p1", "p2", "p3"}), year_min=2025),
])
def test_catalog_agrees_with_filters_matches(f):
    records = _records(400)
    cat = Catalog("g", records)
    assert cat.allowed(f) == {r.paper_id for r in records if f.matches(r)}
    assert cat.allowed(f) is cat.allowed(f)  # memoised: the lexical index memoises its mask on this object


def test_lexical_restrict_equals_the_chunk_scan():
    ids = [f"p{i}::{j}" for i in range(50) for j in range(i % 3 + 1)]
    lex = LexicalIndex.build(ids, [f"graph pooling text {i}" for i in range(len(ids))])
    papers = frozenset(f"p{i}" for i in range(0, 50, 4)) | {"not-indexed"}  # p0, p4, ..., p48
    rows, chunk_ids = lex.restrict(papers)
    scan = {c for c in ids if c.rsplit("::", 1)[0] in papers}
    assert set(chunk_ids) == scan and {ids[i] for i in rows} == scan
    got = lex.search("graph pooling 12", 100, papers=papers)
    assert got and {c for c, _ in got} <= scan
    masked = dict(lex.search("graph pooling 12", 100, allowed=scan))  # bm25s's own weight mask: the same scores
    assert dict(got).keys() == masked.keys()
    assert [s for _, s in got] == pytest.approx(sorted(masked.values(), reverse=True))
    assert [s for _, s in lex.search("graph pooling 12", 3, papers=papers)] == pytest.approx([s for _, s in got[:3]])
    assert lex.search("graph pooling", 10, papers=frozenset({"nope"})) == []


def test_record_categories_round_trip_and_old_records_read():
    r = Record("2501.00001", "x", categories=("cs.CL", "cs.LG"))
    assert Record.from_dict(r.to_dict()) == r
    assert Record.from_dict({"paper_id": "a", "text": "x"}).categories == ()  # stored before the field
    old = Record.from_dict({"paper_id": "a", "text": "x", "categories": "cs.CL; cs.LG"})
    assert old.categories == ("cs.CL", "cs.LG")
