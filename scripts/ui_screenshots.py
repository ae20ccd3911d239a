"""Screenshots of the chat for the README and the issue notes: `paperchat ui` on the store in
$PAPERCHAT_DATA_DIR (build it with `paperchat ingest`), driven by headless Chromium.

    python scripts/ui_screenshots.py PREFIX        # -> docs/img/PREFIX-fedmerge.png, -compare.png, -list.png

Three conversations: "What is FedMerge?" then a follow-up on clustering-based personalised federated
learning; a three-way comparison; a "which papers" list. Prints the page height after each (the list
is the one that used to make the page very tall). Starts and stops its own server on a free port.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
CHROMIUM = "/usr/bin/chromium"
CONVERSATIONS = {
    "fedmerge": ["What is FedMerge?", "How does it differ from clustering-based personalised federated learning?"],
    "compare": ["Compare Prune&Comp, OTARo and DiffMoE"],
    "list": ["Which papers in the corpus are about federated learning?"],
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait(url: str, proc: subprocess.Popen, timeout_s: float = 240) -> None:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"paperchat ui exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer within {timeout_s:.0f} s")


def ask(page, question: str) -> None:
    n = page.locator("#pc-chat .message").count()
    page.locator("#pc-question textarea").fill(question)
    page.locator("#pc-send").click()
    page.wait_for_function("n => document.querySelectorAll('#pc-chat .message').length >= n + 2", arg=n,
                           timeout=120_000)
    page.wait_for_function(  # the answer is finished when its Sources (or its abstention) is shown
        "() => { const m = document.querySelectorAll('#pc-chat .message'); const t = m[m.length - 1].innerText;"
        " return !/…\\s*$/.test(t.trim()) && t.length > 20; }", timeout=180_000)
    page.wait_for_timeout(1500)


def main(prefix: str) -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
           "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "ui", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    heights = {}
    try:
        url = f"http://127.0.0.1:{port}"
        wait(url, proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                        args=["--no-sandbox", "--disable-gpu", "--disable-quic"])
            for name, questions in CONVERSATIONS.items():
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(url, wait_until="domcontentloaded")
                page.wait_for_selector("#pc-question textarea", timeout=60_000)
                for q in questions:
                    ask(page, q)
                heights[name] = page.evaluate("() => document.documentElement.scrollHeight")
                page.screenshot(path=str(OUT / f"{prefix}-{name}.png"), full_page=False)
                page.close()
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(json.dumps({"prefix": prefix, "page_height_px": heights}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "chat"))
