"""Filters from the question end to end on a real Chroma store in tmp_path (debug preset): a filtered
question retrieves only papers that pass; the three dense paths agree; arXiv categories are carried
from the JSON file to the store; the CLI shows and drops question filters; the UI re-asks without one."""

from __future__ import annotations

import json

import pytest
from ui_helpers import make_assistant

from assistant.cli import main
from assistant.retrieve import hybrid
from assistant.retrieve.hybrid import Filters, HybridRetriever
from assistant.types import Record
from ui import app as ui_app

TOPIC = ("Federated learning trains a shared model across clients without moving their data. We study "
         "client drift and personalised aggregation for federated learning on non-IID data, variant {i}.")


def _records() -> list[Record]:
    out = []
    for i in range(24):
        year = 2023 + i % 4  # 2023..2026
        cats = ("cs.LG", "cs.CL") if i % 3 == 0 else ("cs.LG",)
        out.append(Record(f"fl-{i}", TOPIC.format(i=i), title=f"Federated study {i}", label=f"Federated study {i}",
                          year=year, authors=("Wei Chen",) if i % 5 == 0 else ("Ann Lee",), categories=cats,
                          venue="NeurIPS" if i % 4 == 0 else "arXiv"))
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return make_assistant(tmp_path_factory.mktemp("qf-e2e"), _records())


def test_filtered_question_retrieves_only_passing_papers(built):
    a, _ = built
    plain = a.ask("Which papers study client drift in federated learning?", k=10)
    assert any(h.record.year < 2025 for h in plain.retrieved)  # without a filter older papers come back
    ans = a.ask("Which papers from 2025 on in cs.CL study client drift in federated learning?", k=10)
    assert ans.filters["applied"] == {"year_min": 2025, "categories": ["cs.CL"]}
    assert [s["kind"] for s in ans.filters["from_question"]] == ["year", "categories"]
    assert ans.retrieved and all(h.record.year >= 2025 and "cs.CL" in h.record.categories for h in ans.retrieved)
    assert all(c.paper_id in {h.paper_id for h in ans.retrieved} for c in ans.citations)
    assert ans.to_json()["filters"] == ans.filters
    by = a.ask("What do papers by Wei Chen say about client drift?", k=10)
    assert by.filters["applied"] == {"author": "Wei Chen"}
    assert by.retrieved and all("Wei Chen" in h.record.authors for h in by.retrieved)


def test_explicit_filters_win_and_question_filters_can_be_dropped(built):
    a, _ = built
    q = "Which papers from 2026 on study client drift in federated learning?"
    ans = a.ask(q, k=10, filters=Filters(year_max=2024))
    assert ans.filters["applied"] == {"year_max": 2024} and ans.filters["from_question"] == []
    assert all(h.record.year <= 2024 for h in ans.retrieved)
    off = a.ask(q, k=10, filters=Filters(ignore_from_question=frozenset({"all"})))
    assert off.filters["applied"] == {} and any(h.record.year < 2026 for h in off.retrieved)


def test_dense_paths_agree(built, monkeypatch):
    """Over-fetch (broad filter), Chroma ids (narrow filter), `where $in` (index not knowing the chunks)
    and the growing over-fetch (an allowed list too long for Chroma) give the same filtered ranking."""
    a, s = built
    r = HybridRetriever(a.index, s.retrieval)
    q = "personalised aggregation for non-IID clients"
    for f in (Filters(year_min=2024), Filters(author="Wei Chen"), Filters(venue="neurips", year_max=2025)):
        allowed = r.matching_papers(f)
        want = {p.paper_id for p in _records() if f.matches(p)}
        assert allowed == want
        over = r.search(q, k=5, filters=f, mode="dense")
        monkeypatch.setattr(hybrid, "OVERFETCH_MAX", 0)
        ids = r.search(q, k=5, filters=f, mode="dense")
        monkeypatch.setattr(hybrid, "OVERFETCH_MAX", 1)
        # every list is "too long": fetch 1, then more (by the pass rate seen) unfiltered
        monkeypatch.setattr(hybrid, "IDS_MAX", 1)
        grow = r.search(q, k=5, filters=f, mode="dense")
        monkeypatch.setattr(hybrid, "IDS_MAX", 10_000)
        monkeypatch.setattr(hybrid, "OVERFETCH_MAX", 0)
        lex = a.index.refresh_lexical()
        monkeypatch.setattr(type(lex), "restrict", lambda self, papers: (None, ["gone::0"]))  # stale index
        where = r.search(q, k=5, filters=f, mode="dense")
        monkeypatch.undo()
        ranked = [h.paper_id for h in over]
        assert ranked == [h.paper_id for h in ids] == [h.paper_id for h in where] == [h.paper_id for h in grow]
        assert over and all(h.paper_id in want for h in over)


def test_categories_are_carried_from_arxiv_json_to_the_store(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PAPERCHAT_PRESET", "debug")
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(tmp_path / "store"))
    f = tmp_path / "arxiv.jsonl"
    rows = [{"id": f"2501.0000{i}", "title": f"Federated study {i}", "abstract": TOPIC.format(i=i),
             "authors": ["Wei Chen"] if i % 2 else ["Ann Lee"],
             "categories": ["cs.CL"] if i % 2 else ["cs.CV", "cs.LG"],
             "first_seen": "2025-01-02", "url": f"https://arxiv.org/abs/2501.0000{i}"} for i in range(6)]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    assert main(["ingest", str(f), "--quiet"]) == 0
    capsys.readouterr()
    q = "Which papers in cs.CL study client drift in federated learning?"
    assert main(["ask", "--json", "--model", "extractive", "--k", "6", q]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["filters"]["applied"] == {"categories": ["cs.CL"]}
    assert out["retrieved"] and {h["paper_id"][-1] for h in out["retrieved"]} <= {"1", "3", "5"}
    assert main(["ask", "--model", "extractive", q]) == 0
    assert 'filters applied: category cs.CL (from the question: "in cs.CL"' in capsys.readouterr().out
    assert main(["ask", "--json", "--model", "extractive", "--k", "6", "--no-question-filters", q]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["filters"]["applied"] == {} and {h["paper_id"][-1] for h in out["retrieved"]} - {"1", "3", "5"}


def test_ui_shows_the_filters_and_asks_again_without_one(built):
    a, s = built
    h = ui_app.build_app(a, s, env={}).paperchat_handlers
    session = ui_app.UISession()
    q = "Which papers by Wei Chen from 2025 on study client drift in federated learning?"
    outs = list(h.chat(q, session, h.choices[0], 10, None, None, ""))
    answer = session.last[0]
    assert answer.filters["applied"] == {"year_min": 2025, "author": "Wei Chen"}
    assert "Filters applied:" in session.messages[-1]["content"] and "by Wei Chen" in session.messages[-1]["content"]
    keep = [x for o in outs for x in o if isinstance(x, dict) and x.get("choices")][-1]  # the filters' checkboxes
    assert sorted(k for _, k in keep["choices"]) == ["author", "year"] and keep["visible"]
    list(h.ask_again(["author"], session, h.choices[0], 10, None, None, ""))  # untick the year
    again = session.last[0]
    assert again.question == q and again.filters["applied"] == {"author": "Wei Chen"}
    assert any(x.record.year < 2025 for x in again.retrieved)


def test_a_growing_over_fetch_stops_at_grow_max(built, monkeypatch):
    """A query far from every allowed paper does not walk the whole collection: the over-fetch stops at
    GROW_MAX results and keeps the allowed ones found (BM25 ranks the rest in hybrid)."""
    a, s = built
    r = HybridRetriever(a.index, s.retrieval)
    f = Filters(author="Wei Chen")
    asked: list[int] = []
    real = a.index.store.query_chunks

    def spy(vector, n, where, metadata=True):
        asked.append(n)
        return real(vector, n, where, metadata=metadata)

    monkeypatch.setattr(a.index.store, "query_chunks", spy)
    monkeypatch.setattr(hybrid, "OVERFETCH_MAX", 1)
    monkeypatch.setattr(hybrid, "IDS_MAX", 1)  # the allowed list is "too long" for Chroma: over-fetch and grow
    monkeypatch.setattr(hybrid, "GROW_MAX", 3)
    hits = r.search("personalised aggregation for non-IID clients", k=5, filters=f, mode="dense")
    assert asked and max(asked) <= 3
    want = r.matching_papers(f)
    assert all(h.paper_id in want for h in hits)
