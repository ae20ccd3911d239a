import sys, time
from playwright.sync_api import sync_playwright
port, out = sys.argv[1], sys.argv[2]
q = "How does FedMerge differ from clustering-based personalised FL?"
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium",
                          args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
    page = b.new_page(viewport={"width": 1600, "height": 1000})
    page.goto(f"http://127.0.0.1:{port}/", wait_until="load", timeout=90_000)
    page.locator("#pc-question textarea").wait_for(timeout=90_000)
    page.locator("#pc-question textarea").fill(q)
    page.locator("#pc-send").click()
    # wait until the answer table is rendered
    page.locator("#pc-chat table").first.wait_for(timeout=180_000)
    time.sleep(3)
    page.evaluate("""() => { for (const el of document.querySelectorAll('#pc-chat *')) {
        if (el.scrollHeight > el.clientHeight + 5) el.scrollTop = 0; } }""")
    time.sleep(1)
    page.screenshot(path=out, full_page=False)
    b.close()
