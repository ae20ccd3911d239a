"""Take the README's screenshot: the web chat answering a comparison on the bundled corpus.

Start the chat first (any free port), then point this at it; headless Chromium through Playwright:

    .venv/bin/paperchat ui --port 7861 &
    .venv/bin/python scripts/screenshot.py --port 7861 --out docs/img/chat-comparison.png

The chat is scrolled to its top after the answer's table is rendered, so the question, the answer and
the table's head are in view beside the evidence panel.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

QUESTION = "Compare Prune&Comp, OTARo and DiffMoE"  # three sides: the overview, then the table by role
SCROLL_CHAT_TO_TOP = """() => { for (const el of document.querySelectorAll('#pc-chat *')) {
    if (el.scrollHeight > el.clientHeight + 5) el.scrollTop = 0; } }"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True, help="Port of a running `paperchat ui` on 127.0.0.1.")
    ap.add_argument("--out", type=Path, default=Path("docs/img/chat-comparison.png"))
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    a = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=a.chromium, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(f"http://127.0.0.1:{a.port}/", wait_until="load", timeout=90_000)
        box = page.locator("#pc-question textarea")
        box.wait_for(timeout=90_000)
        box.fill(a.question)
        page.locator("#pc-send").click()
        page.locator("#pc-chat table").first.wait_for(timeout=180_000)  # the comparison table is rendered
        time.sleep(3)  # the evidence panel fills in after the answer
        page.evaluate(SCROLL_CHAT_TO_TOP)
        time.sleep(1)
        a.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(a.out), full_page=False)
        browser.close()
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
