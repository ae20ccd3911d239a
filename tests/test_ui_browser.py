"""Headless Chromium (Debian's, through playwright's Python API) against the launched app: ask, see the
linked [n] marker and the <mark>ed evidence, no script from an abstract runs, Stop stops, screenshot."""

from __future__ import annotations

import os
import re
import time

import pytest
from conftest import PAPERS
from ui_helpers import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, RecordingModel, echo_first_source, make_assistant, running

from assistant.settings import BUNDLED_CORPUS
from assistant.types import Record
from ui.app import build_app

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
]

XSS = Record(
    "p-xss",
    'Xylophagous beetles <img src=x onerror="window.__xss=1"> digest wood with gut microbes. '
    "They were sampled in 12 forests.",
    label='Xylophagous beetles <img src=x onerror="window.__xss=2">', year=2020, authors=("Eve Ng",),
    source="evil.jsonl",
)


@pytest.fixture(scope="module")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium chromium-driver (make test does this)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # screenshots land here (not tracked by git)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def browser_page(chromium, tmp_path_factory):
    model = RecordingModel(default=echo_first_source)
    a, s = make_assistant(tmp_path_factory.mktemp("ui-browser"), [*PAPERS, XSS], chat_model=model)
    app = build_app(a, s, env={})
    with running(app, s) as url:
        context = chromium.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_selector("#pc-question textarea", timeout=60_000)
        yield {"page": page, "model": model, "url": url, "browser": context}
        context.close()


def assert_on_screen(page, locator, scroll: bool = True) -> None:
    """Not just "visible" to playwright: (scrolled into view and) the element itself is what is
    painted at its centre (not clipped by a scroll box, not covered by a neighbour)."""
    if scroll:
        locator.scroll_into_view_if_needed()
    hit = locator.evaluate(
        """el => { const r = el.getClientRects()[0];  // first line box (a <mark> may wrap)
                   if (!r || !r.width || !r.height) return false;
                   const t = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                   return !!t && (el === t || el.contains(t)); }"""
    )
    assert hit, "element is covered or clipped"


def ask(page, question: str) -> None:
    box = page.locator("#pc-question textarea")
    box.fill(question)
    page.locator("#pc-send").click()


def test_chat_shows_linked_citation_and_highlighted_evidence(browser_page):
    page = browser_page["page"]
    ask(page, "How does FedMerge personalise federated learning?")
    mark = page.locator("#pc-evidence .pc-active mark").first
    mark.wait_for(state="visible", timeout=60_000)
    assert "FedMerge" in mark.inner_text()
    assert_on_screen(page, page.locator("#pc-evidence .pc-active .pc-card .pc-title").first, scroll=False)
    assert_on_screen(page, mark)
    marker = page.locator('#pc-chat a[href^="#pc-ev-"]').first
    marker.wait_for(state="visible", timeout=10_000)
    assert marker.inner_text().strip() == "[1]"
    href = marker.get_attribute("href")
    card = page.locator(f'#pc-evidence [id="{href[1:]}"]')
    assert card.count() == 1 and "FedMerge" in card.inner_text()
    assert "Sources" in page.locator("#pc-chat").inner_text()
    assert "FedMerge" in page.locator("#pc-focus").inner_text()  # papers in focus
    followups = page.locator("#pc-followups button:visible")
    followups.first.wait_for(state="visible", timeout=10_000)
    assert followups.count() >= 2
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui_chat.png"), full_page=True)
    marker.click()  # the marker jumps to its card: the card ends up in view
    page.wait_for_timeout(500)
    box = card.bounding_box()
    assert box is not None and box["y"] < page.viewport_size["height"] and box["y"] + box["height"] > 0


def test_followup_button_asks_it(browser_page):
    page = browser_page["page"]
    button = page.locator("#pc-followups button:visible").first
    text = button.inner_text().strip()
    n_before = page.locator("#pc-chat .message").count()
    button.click()
    page.wait_for_function(
        "n => document.querySelectorAll('#pc-chat .message').length >= n + 2", arg=n_before, timeout=30_000
    )
    page.locator("#pc-chat", has_text=text).wait_for(timeout=10_000)
    page.locator("#pc-evidence .pc-active mark").first.wait_for(state="visible", timeout=60_000)


def test_markup_in_abstracts_is_shown_as_text_and_never_runs(browser_page):
    page = browser_page["page"]
    ask(page, "Which microbes do xylophagous beetles use to digest wood?")
    page.locator("#pc-evidence .pc-active .pc-card", has_text="Xylophagous").first.wait_for(state="visible",
                                                                                          timeout=60_000)
    text = page.locator("#pc-evidence").inner_text()
    assert '<img src=x onerror="window.__xss=1">' in text  # shown literally, escaped
    assert page.locator("#pc-evidence img").count() == 0 and page.locator("#pc-chat img[src='x']").count() == 0
    time.sleep(0.5)
    assert page.evaluate("typeof window.__xss") == "undefined"


def test_stop_button_stops_generation(browser_page):
    page, model = browser_page["page"], browser_page["model"]
    model.default = lambda m: " ".join(["wordy"] * 300)  # type: ignore[assignment]
    model.delay_s = 0.05  # ~15 s if nothing stops it
    try:
        calls, pieces = model.calls, model.pieces
        assert page.locator("#pc-stop").is_hidden()  # Stop is shown only while an answer runs
        ask(page, "How much does Prune&Comp reduce perplexity?")
        page.locator("#pc-chat", has_text="wordy").wait_for(timeout=30_000)
        assert page.locator("#pc-stop").is_visible()
        t0 = time.monotonic()
        page.locator("#pc-stop").click()
        page.locator("#pc-chat", has_text="incomplete").wait_for(timeout=10_000)
        assert time.monotonic() - t0 < 5
        page.locator("#pc-stop").wait_for(state="hidden", timeout=10_000)
        assert model.calls == calls + 1
        assert model.stops[-1] is not None and model.stops[-1].is_set()
        assert model.pieces - pieces < 300
    finally:
        model.default = echo_first_source  # type: ignore[assignment]
        model.delay_s = 0.0


def test_empty_question_gives_one_clear_error(browser_page):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = browser_page["page"]
    n = page.locator("#pc-chat .message").count()
    page.locator("#pc-question textarea").fill("   ")
    clicks = 0
    for attempt in range(3):  # a click that lands before Gradio has wired the button does nothing (seen on a busy
        page.locator("#pc-send").click()  # host); the first waits long, since a slow error clicked again shows twice
        clicks += 1
        try:
            page.get_by_text("Type a question first.").first.wait_for(state="visible",
                                                                     timeout=15_000 if attempt == 0 else 5_000)
            break
        except PlaywrightTimeout:
            continue
    else:
        raise AssertionError("an empty question showed no error after three clicks")
    time.sleep(0.5)
    shown = page.get_by_text("Type a question first.")
    # one error per click: one on a quiet host; a slow first error and a retried click may show one each
    assert 1 <= sum(shown.nth(i).is_visible() for i in range(shown.count())) <= clicks
    page.screenshot(path=str(ARTIFACTS / "ui_empty_question.png"), full_page=False)
    errors = page.locator("#pc-chat .error, #pc-evidence .error, #pc-focus .error, .status-tracker .error")
    assert errors.count() == 0 or not any(errors.nth(i).is_visible() for i in range(errors.count()))
    assert page.locator("#pc-chat .message").count() == n  # nothing was asked
    assert page.locator("#pc-stop").is_hidden()


def test_old_citation_links_open_their_own_evidence_after_three_turns(browser_page):
    """Three answers about three papers; the [1] of the FIRST still opens that answer's card (FedMerge),
    inside the evidence panel's own scroll box: neither the page nor the chat moves."""
    page = browser_page["page"]
    page.locator("#pc-new").click()
    page.wait_for_function("() => document.querySelectorAll('#pc-chat .message').length === 0", timeout=10_000)
    for i, q in enumerate(["How does FedMerge personalise federated learning?",
                           "How much does Prune&Comp reduce perplexity?",
                           "Which microbes do xylophagous beetles use to digest wood?"]):
        ask(page, q)
        page.wait_for_function("n => document.querySelectorAll('#pc-evidence .pc-ans').length === n",
                               arg=i + 1, timeout=60_000)
        page.locator("#pc-stop").wait_for(state="hidden", timeout=60_000)  # the event (and its follow-ups) ended
    first = page.locator('#pc-chat a[href^="#pc-ev-"]').first  # [1] of the first answer
    first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    chat_box = "() => { const c = document.querySelector('#pc-chat [role=log], #pc-chat .bubble-wrap'); " \
               "return [window.scrollY, c ? c.scrollTop : -1]; }"
    before = page.evaluate(chat_box)
    first.dispatch_event("click")  # a click's default action on an anchor would scroll to its target
    card = page.locator(f'[id="{first.get_attribute("href")[1:]}"]')
    card.wait_for(state="visible", timeout=5_000)
    assert "FedMerge" in card.inner_text()
    assert_on_screen(page, card.locator(".pc-title"), scroll=False)  # the panel scrolled to it by itself
    assert page.evaluate(chat_box) == before  # the page and the chat stayed where they were
    page.screenshot(path=str(ARTIFACTS / "ui_old_link.png"), full_page=False)


def test_new_chat_clears_the_conversation(browser_page):
    page = browser_page["page"]
    page.locator("#pc-new").click()
    page.wait_for_function("() => document.querySelectorAll('#pc-chat .message').length === 0", timeout=10_000)
    assert "No papers in focus" in page.locator("#pc-focus").inner_text()


def test_comparison_renders_as_a_table_and_lists_with_a_count(browser_page):
    page = browser_page["page"]
    ask(page, "Compare FedMerge and Prune&Comp")
    table = page.locator("#pc-chat table").last
    table.wait_for(state="visible", timeout=60_000)
    assert table.locator("tr").count() >= 3  # header + one row per paper
    assert table.locator('a[href^="#pc-ev-"]').count() >= 2  # cells cite their abstract
    page.locator("#pc-evidence .pc-active .pc-card").nth(1).wait_for(state="visible", timeout=10_000)
    page.set_viewport_size({"width": 1400, "height": 560})  # evidence taller than the window
    try:
        assert_on_screen(page, page.locator("#pc-evidence .pc-active .pc-card").nth(1).locator("mark").last)
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})
    page.screenshot(path=str(ARTIFACTS / "ui_compare.png"), full_page=True)
    ask(page, "Which papers study federated learning?")
    page.locator("#pc-chat", has_text="paper").last.wait_for(timeout=60_000)
    page.wait_for_function(
        "() => { const m = document.querySelectorAll('#pc-chat .message'); const t = m[m.length - 1].innerText;"
        " return /\\d+ papers?/.test(t) && m[m.length - 1].querySelector('ol li, ul li'); }",
        timeout=60_000,
    )


def test_corpus_tab_search_open_and_upload(browser_page, tmp_path):
    page = browser_page["page"]
    page.get_by_role("tab", name="Corpus").click()
    try:
        _corpus_tab(page, tmp_path)
    finally:
        page.get_by_role("tab", name="Chat").click()  # later tests start from the chat, pass or fail


def _corpus_tab(page, tmp_path):
    page.locator("#pc-search textarea, #pc-search input").first.fill("federated learning")
    page.get_by_role("button", name="Search", exact=True).click()
    cell = page.locator("#pc-results").get_by_text("p-fedmerge", exact=True).first
    cell.wait_for(state="visible", timeout=30_000)
    cell.click()
    page.locator("#pc-abstract", has_text="FedMerge merges several global models").wait_for(timeout=30_000)
    upload = tmp_path / "more.jsonl"
    upload.write_text(
        '{"id": "u-1", "title": "Sparse kittens", "abstract": "Sparse kittens purr in parallel. They scale."}\n'
        "{broken json\n",
        encoding="utf-8",
    )
    page.locator("#pc-upload input[type=file]").set_input_files(str(upload))
    # The upload itself can take a while on a loaded machine; a click before it has landed is refused
    # with "Choose one or more ... files first" (and nothing is ingested), so click again only then.
    report = page.get_by_text(re.compile(r"\d+ added")).first
    refused = page.get_by_text("Choose one or more").first
    for _ in range(12):
        page.get_by_role("button", name="Add to corpus").click()
        page.get_by_text(re.compile(r"\d+ added|Choose one or more")).first.wait_for(timeout=120_000)
        if report.is_visible():
            break
        refused.wait_for(state="hidden", timeout=30_000)  # the toast goes; the upload may have landed
        time.sleep(2)
    assert "1 added" in report.inner_text()
    assert "line 2" in page.locator("body").inner_text()
    page.screenshot(path=str(ARTIFACTS / "ui_corpus.png"), full_page=True)


def test_feedback_and_export(browser_page):
    page = browser_page["page"]
    ask(page, "How does FedMerge personalise federated learning?")
    page.locator("#pc-evidence .pc-active mark").first.wait_for(state="visible", timeout=60_000)
    page.locator("#pc-settings").get_by_text("Settings").first.click()
    page.locator("#pc-feedback").get_by_text("Feedback and export").first.click()
    page.locator("#pc-comment textarea, #pc-comment input").first.fill("clear and cited")
    page.locator("#pc-up").click()
    page.get_by_text("Thanks, your feedback was saved").wait_for(timeout=30_000)
    page.locator("#pc-export").click()
    link = page.locator("#pc-export-files a[download$='.md']").first
    link.wait_for(state="visible", timeout=30_000)
    href = link.get_attribute("href")
    assert "/gradio_api/file=" + os.environ["GRADIO_TEMP_DIR"] in href  # served from the dedicated temp dir
    resp = page.request.get(href if href.startswith("http") else browser_page["url"] + href)
    assert resp.status == 200 and resp.text().startswith("# How does FedMerge") and "## Sources" in resp.text()
    assert page.locator("#pc-export-files a[download$='.bib']").count() == 1
    page.screenshot(path=str(ARTIFACTS / "ui_feedback.png"), full_page=True)


def test_closing_the_tab_stops_generation(browser_page):
    """The generator is closed when the browser goes away, and its `finally` sets the model's stop."""
    model = browser_page["model"]
    model.default = lambda m: " ".join(["tabby"] * 400)  # type: ignore[assignment]
    model.delay_s = 0.05  # ~20 s if nothing stops it
    page = browser_page["browser"].new_page()
    pieces = model.pieces
    try:
        page.goto(browser_page["url"], wait_until="domcontentloaded")
        page.wait_for_selector("#pc-question textarea", timeout=60_000)
        ask(page, "How much does Prune&Comp reduce perplexity?")
        page.locator("#pc-chat", has_text="tabby").wait_for(timeout=30_000)
        stop = model.stops[-1]
        page.close()
        deadline = time.monotonic() + 10
        while not stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert stop.is_set(), "generation kept running after the tab closed"
        assert model.pieces - pieces < 400
    finally:
        model.default = echo_first_source  # type: ignore[assignment]
        model.delay_s = 0.0


@pytest.mark.skipif(not BUNDLED_CORPUS.is_file(), reason="data/corpus.jsonl is not built yet")
def test_bundled_corpus_conversation_layout(chromium, tmp_path):
    """A real-sized conversation (bundled corpus, debug preset): a long "which papers" list, then a
    comparison; the evidence panel is painted where it is, not clipped or covered by the focus list."""
    from assistant.pipeline import ingest_paths

    a, s = make_assistant(tmp_path, [])
    ingest_paths(a.index, [BUNDLED_CORPUS])
    with running(build_app(a, s, env={}), s) as url:
        context = chromium.new_context(viewport={"width": 1400, "height": 1000})
        try:
            page = context.new_page()
            page.goto(url, wait_until="domcontentloaded")
            page.wait_for_selector("#pc-question textarea", timeout=60_000)
            ask(page, "Which papers study federated learning?")
            cards = page.locator("#pc-evidence .pc-active .pc-card")
            cards.nth(4).wait_for(state="visible", timeout=60_000)
            # a long list is folded: the page stays short; "show all" opens the rest, in the chat and the panel
            assert cards.count() > 10 and cards.nth(6).is_hidden()
            assert page.evaluate("() => document.documentElement.scrollHeight") < 2500
            show_all = page.locator("#pc-chat .message").last.locator("details.pc-more > summary").first
            assert re.fullmatch(r"Show all \d+", show_all.inner_text().strip())
            hidden_item = page.locator("#pc-chat .message").last.locator("details.pc-more").first.locator("li").last
            assert hidden_item.is_hidden()
            show_all.click()
            hidden_item.wait_for(state="visible", timeout=5_000)
            page.locator("#pc-evidence .pc-active details.pc-more > summary").click()
            cards.nth(6).wait_for(state="visible", timeout=5_000)
            assert_on_screen(page, cards.nth(6).locator(".pc-title"))
            page.screenshot(path=str(ARTIFACTS / "ui_show_all.png"), full_page=False)
            ask(page, "Compare the first two")
            page.locator("#pc-chat table").last.wait_for(state="visible", timeout=60_000)
            page.get_by_text("Searched for:").last.wait_for(state="visible", timeout=10_000)
            page.wait_for_function("() => document.querySelectorAll('#pc-evidence .pc-active .pc-card').length === 2",
                                   timeout=30_000)
            assert "and " in page.locator("#pc-focus").inner_text()  # many papers in focus: "and N more"
            assert_on_screen(page, page.locator("#pc-evidence .pc-active .pc-card .pc-title").first, scroll=False)
            assert_on_screen(page, page.locator("#pc-evidence .pc-active .pc-card").nth(1).locator("mark").last)
            page.screenshot(path=str(ARTIFACTS / "ui_corpus_chat.png"), full_page=True)
        finally:
            context.close()


def test_evaluation_tab_compares_two_runs(chromium, tmp_path):
    """Evaluation tab: two runs (B regresses on known questions) -> the paired table with CIs, the changed
    questions side by side, the "Regressions only" filter, a citation link that opens its abstract."""
    import copy

    from eval_helpers import _rec, base_records, write_run

    a = base_records(60)
    b = copy.deepcopy(a)
    right = [i for i, r in enumerate(a) if r["kind"] != "absent" and r["metrics"]["gold_cited"]]
    wrong = [i for i, r in enumerate(a) if r["kind"] != "absent" and not r["metrics"]["gold_cited"]]
    for i in right[:10]:
        b[i] = _rec(i, a[i]["kind"], False)
    for i in wrong[:2]:
        b[i] = _rec(i, a[i]["kind"], True)
    b[right[0]]["answer"] = 'Evil <img src=x onerror="window.__cmpxss=1"> answer [1].'
    b[right[0]]["citations"][0]["text"] = "Other work studies something else. It reports no gains at all."
    b[right[0]]["citations"][0]["sentences"] = ["It reports no gains at all."]
    runs = tmp_path / "runs"
    write_run(runs / "base", a)
    write_run(runs / "new", b, model="local")
    os.utime(runs / "base" / "summary.json", (time.time() - 60, time.time() - 60))  # base is the older run

    assistant, s = make_assistant(tmp_path, list(PAPERS))
    app = build_app(assistant, s, env={})
    app.paperchat_eval.project_runs = runs
    with running(app, s) as url:
        context = chromium.new_context(viewport={"width": 1400, "height": 1000})
        try:
            page = context.new_page()
            page.goto(url, wait_until="domcontentloaded")
            page.get_by_role("tab", name="Evaluation").click()
            page.wait_for_function(  # the run lists are filled on load: B = the newest run, A = the one before
                "() => { const i = document.querySelector('#pc-cmp-b input'); "
                "return i && i.value === 'eval/runs/new'; }",
                timeout=60_000)
            page.locator("#pc-cmp-run").click()
            view = page.locator("#pc-cmp-view")
            view.locator(".pc-cmp-q").nth(11).wait_for(state="attached", timeout=60_000)
            assert view.locator(".pc-cmp-q").count() == 12
            assert "A = eval/runs/base (baseline), B = eval/runs/new" in view.inner_text()
            worse = view.locator("tr.pc-worse").first
            assert "outcome_right" in worse.inner_text()
            page.locator("#pc-cmp-a").scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "ui_eval_compare_table.png"), full_page=False)
            assert page.evaluate("typeof window.__cmpxss") == "undefined"
            page.locator("#pc-cmp-regressions input").check()
            page.wait_for_function("() => document.querySelectorAll('#pc-cmp-view .pc-cmp-q').length === 10",
                                   timeout=60_000)
            assert view.locator(".pc-cmp-q.pc-improved").count() == 0
            q = view.locator(f'.pc-cmp-q[data-qid="{a[right[0]]["id"]}"]')
            q.locator(".pc-cmp-side").nth(1).locator(".pc-cmp-cites a").first.click()
            card = q.locator(".pc-cmp-card").nth(1)
            assert "It reports no gains at all." in card.locator("mark").inner_text()
            assert_on_screen(page, card.locator("mark"), scroll=False)  # the link scrolled it into view
            q.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "ui_eval_compare.png"), full_page=False)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "ui_eval_compare_failed.png"), full_page=True)
            raise
        finally:
            context.close()
