"""The launched server (ui.launch safe defaults) driven over HTTP: gradio_client /ask, follow-ups,
session isolation with canaries, file-route probes, FileData injection, login."""

from __future__ import annotations

import http.client
import re
import threading
import time
import urllib.parse
from pathlib import Path

import httpx
import pytest
from conftest import PAPERS
from gradio_client import Client
from gradio_client.exceptions import AppError, AuthenticationError
from ui_helpers import echo_first_source, make_assistant, running

from assistant.answer.models.fake import FakeChatModel
from assistant.settings import BUNDLED_CORPUS
from assistant.types import Record
from ui.app import build_app

pytestmark = [
    pytest.mark.slow,
    # gradio's queue statistics call a pandas option pandas now deprecates (a warning in production,
    # an error under this project's warning filters): not ours to fix
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
]

CANARY_A, CANARY_B = "CANARYA7Q", "CANARYB3X"
CANARY_RECORDS = [
    Record("p-canary-a",
           f"Zorbulax {CANARY_A} networks compress zorbulax graphs quickly. We evaluate them on the QM9 set.",
           label=f"Zorbulax {CANARY_A}", year=2021, source="canary.jsonl"),
    Record("p-canary-b", f"Quenvile {CANARY_B} models denoise quenvile audio streams. Tests use LibriSpeech.",
           label=f"Quenvile {CANARY_B}", year=2022, source="canary.jsonl"),
]
ENV_CANARY = "ENVCANARY-9f1c"
PASSWD_MARK = "root:x:0:0"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ui-server")
    workdir = tmp / "cwd"
    workdir.mkdir()
    (workdir / ".env").write_text(f"SECRET={ENV_CANARY}\n")
    model = FakeChatModel(default=echo_first_source)  # records every prompt it receives
    a, s = make_assistant(tmp, list(PAPERS) + CANARY_RECORDS, chat_model=model)
    app = build_app(a, s, env={})
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(workdir)
        with running(app, s) as url:
            yield {"url": url, "assistant": a, "settings": s, "model": model, "app": app, "cwd": workdir}


def client(url: str, **kw) -> Client:
    return Client(url, verbose=False, download_files=False, **kw)


# -- gradio_client ------------------------------------------------------------------------------------
def test_ask_returns_answer_with_citations_and_sources(server):
    c = client(server["url"])
    out = c.predict("How does FedMerge personalise federated learning?", api_name="/ask")
    assert isinstance(out, str)
    assert "[1]" in out and "**Sources**" in out
    assert "- [1] untitled: FedMerge: model merging (p-fedmerge)" in out  # a label paperchat derived says so


def test_followup_in_the_same_client_session_is_rewritten(server):
    c = client(server["url"])
    c.predict("How does FedMerge personalise federated learning?", api_name="/ask")
    out = c.predict("Which datasets did they use?", api_name="/ask")
    assert "_Searched for:_" in out
    assert "FedMerge" in out.split("_Searched for:_", 1)[1].split("\n", 1)[0]
    # a new client session has no history: the same follow-up is not rewritten
    fresh = client(server["url"]).predict("Which datasets did they use?", api_name="/ask")
    assert "_Searched for:_" not in fresh


def test_ordinal_followup_is_answered_from_the_paper_meant(server):
    c = client(server["url"])
    c.predict("Tell me about FedMerge and Prune&Comp.", api_name="/ask")
    out = c.predict("How much does the second one reduce perplexity?", api_name="/ask")
    searched = out.split("_Searched for:_", 1)[1].split("\n", 1)[0]
    assert "Prune&Comp" in searched and "FedMerge" not in searched
    assert "- [1] Prune&Comp: Free Lunch for Layer-Pruned LLMs (p-prune)" in out
    assert "p-fedmerge" not in out.split("**Sources**", 1)[1]


def test_concurrent_sessions_never_see_each_other(server):
    results: dict[str, list[str]] = {"a": [], "b": []}
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def converse(key: str, first: str) -> None:
        try:
            c = client(server["url"])
            for q in (first, "What data did they use?", "And their results?"):
                barrier.wait(timeout=60)  # interleave the turns of the two sessions
                results[key].append(c.predict(q, api_name="/ask"))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [
        threading.Thread(target=converse, args=("a", f"What do zorbulax {CANARY_A} networks do?")),
        threading.Thread(target=converse, args=("b", f"What do quenvile {CANARY_B} models do?")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not errors, errors
    a, b = "\n".join(results["a"]), "\n".join(results["b"])
    assert CANARY_A in a and CANARY_B in b  # each session got its own answers...
    assert CANARY_B not in a and CANARY_A not in b  # ...and nothing of the other's
    assert "Zorbulax" in results["a"][1].split("_Searched for:_", 1)[1]  # follow-ups resolve to own history
    assert "Quenvile" in results["b"][1].split("_Searched for:_", 1)[1]
    # what each prompt says about its conversation (the sources block may hold any abstract)
    own = [
        "\n".join(line for line in "\n".join(m["content"] for m in p).splitlines()
                  if line.startswith(("Earlier question:", "Earlier answer:", "Question:")))
        for p in server["model"].prompts
    ]
    with_history = [p for p in own if "Earlier question" in p and (CANARY_A in p or CANARY_B in p)]
    assert len(with_history) >= 4, "the follow-up prompts carry their own session's history"
    assert not [p for p in own if CANARY_A in p and CANARY_B in p]


def test_errors_reach_the_client_as_safe_messages(server):
    c = client(server["url"])
    limit = server["settings"].ui.max_question_chars
    with pytest.raises(AppError) as e:
        c.predict("x" * (limit + 500), api_name="/ask")
    msg = str(e.value)
    assert "limit" in msg and "Traceback" not in msg and str(server["settings"].store.data_dir) not in msg


def test_private_endpoints_are_not_offered_to_clients(server):
    c = client(server["url"])
    assert set(c.view_api(print_info=False, return_format="dict")["named_endpoints"]) == {"/ask", "/search"}
    with pytest.raises(ValueError, match="Cannot find a function"):
        c.predict("hi", api_name="/chat_stream")
    rows = c.predict("federated learning", 3, None, None, "", api_name="/search")
    assert rows["data"][0][4] == "p-fedmerge"


# -- file routes --------------------------------------------------------------------------------------------
def raw_get(url: str, path: str) -> tuple[int, bytes]:
    """GET with the path sent byte for byte (no client-side normalisation of ../ or %2f)."""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_file_routes_serve_nothing_outside_the_app(server):
    data_dir = Path(server["settings"].store.data_dir).resolve()
    sqlite = data_dir / "chroma" / "chroma.sqlite3"
    assert sqlite.is_file()
    project = Path(__file__).resolve().parent.parent
    cwd = server["cwd"]
    probes = [
        "/gradio_api/file=/etc/passwd",
        f"/gradio_api/file={sqlite}",
        f"/gradio_api/file={data_dir}/feedback.jsonl",
        "/gradio_api/file=.env",
        f"/gradio_api/file={cwd}/.env",
        f"/gradio_api/file={project}/pyproject.toml",
        "/gradio_api/file=pyproject.toml",
        "/gradio_api/file=../../../../../../etc/passwd",
        "/gradio_api/file=..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd",
        "/gradio_api/file=%2fetc%2fpasswd",
        "/gradio_api/file=//etc/passwd",
        "/gradio_api/file=/tmp/../etc/passwd",
        f"/gradio_api/file={server['settings'].store.data_dir}/../store/chroma/chroma.sqlite3",
        "/gradio_api/file=/etc/passwd%00.txt",
        "/gradio_api/file=/etc/./passwd",
        "/file=/etc/passwd",
        "/static/..%2f..%2f..%2f..%2fetc%2fpasswd",
        "/static/../../../../etc/passwd",
        "/assets/..%2f..%2f..%2f..%2fetc%2fpasswd",
        "/gradio_api/file=http://169.254.169.254/latest/meta-data/",
        "/gradio_api/file=file:///etc/passwd",
    ]
    for path in probes:
        status, body = raw_get(server["url"], path)
        assert status in (400, 403, 404), (path, status)
        assert PASSWD_MARK.encode() not in body, path
        assert b"SQLite format 3" not in body and ENV_CANARY.encode() not in body, path
        assert b"[build-system]" not in body, path


def test_filedata_with_an_absolute_path_is_refused(server):
    """A hand-made queue request hands the (private) upload event a FileData pointing at /etc/passwd."""
    app, a = server["app"], server["assistant"]
    fn_index = next(i for i, d in app.fns.items() if d.api_name == "add_files")
    before = a.index.stats()["papers"]
    base = server["url"] + "/gradio_api"
    payload = {
        "data": [[{"path": "/etc/passwd", "orig_name": "passwd.txt", "meta": {"_type": "gradio.FileData"}}]],
        "fn_index": fn_index, "session_hash": "probe-filedata", "event_data": None,
    }
    with httpx.Client(timeout=30) as h:
        r = h.post(base + "/queue/join", json=payload)
        text = r.text
        if r.status_code == 200:
            with h.stream("GET", base + "/queue/data", params={"session_hash": "probe-filedata"}) as s:
                for line in s.iter_lines():
                    text += line + "\n"
                    if "process_completed" in line:
                        break
    assert PASSWD_MARK not in text
    assert a.index.stats()["papers"] == before
    assert '"success": true' not in text.replace('"success":true', '"success": true')


# -- login ----------------------------------------------------------------------------------------------------
def test_login_covers_the_api_and_file_routes(tmp_path):
    a, s = make_assistant(tmp_path, list(PAPERS))
    app = build_app(a, s, env={})
    env = {"PAPERCHAT_UI_USER": "ann", "PAPERCHAT_UI_PASSWORD": "correct horse"}
    with running(app, s, env=env) as url:
        for path in ("/gradio_api/info", "/config", "/gradio_api/file=/etc/passwd", "/gradio_api/upload"):
            status, body = raw_get(url, path)
            assert status in (401, 403, 404, 405), (path, status)
            assert PASSWD_MARK.encode() not in body
        with pytest.raises(AuthenticationError):
            client(url)  # no credentials
        with pytest.raises(ValueError, match="Could not login"):
            client(url, auth=("ann", "wrong"))
        out = client(url, auth=("ann", "correct horse")).predict("How much does Prune&Comp reduce perplexity?",
                                                                 api_name="/ask")
        assert "p-prune" in out


def test_queue_is_bounded(tmp_path):
    """More simultaneous requests than queue slots: the extra ones are refused, not queued forever."""
    slow = FakeChatModel(default=lambda m: "word " * 30, delay_s=0.05)
    a, s = make_assistant(tmp_path, list(PAPERS), chat_model=slow, **{"ui.queue_size": 1})
    app = build_app(a, s, env={})
    with running(app, s) as url:
        outcomes: list[str] = []

        def one():
            try:
                client(url).predict("How does FedMerge personalise federated learning?", api_name="/ask")
                outcomes.append("ok")
            except Exception as e:  # noqa: BLE001
                outcomes.append(f"error: {e}")

        threads = [threading.Thread(target=one) for _ in range(5)]
        for t in threads:
            t.start()
            time.sleep(0.05)
        for t in threads:
            t.join(timeout=120)
    assert "ok" in outcomes
    assert any("queue" in o.lower() and "full" in o.lower() for o in outcomes), outcomes


def test_uploads_over_the_size_limit_are_refused(server):
    limit = server["settings"].ui.max_upload_mb * 1024 * 1024
    files = {"files": ("big.jsonl", b"x" * (limit + 1), "application/octet-stream")}
    r = httpx.post(server["url"] + "/gradio_api/upload", files=files, timeout=60)
    assert r.status_code == 413
    ok = httpx.post(server["url"] + "/gradio_api/upload", files={"files": ("ok.jsonl", b"{}\n", "text/plain")},
                    timeout=60)
    assert ok.status_code == 200


def test_paperchat_ui_command_starts_the_server(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    from ui_helpers import free_port

    port = free_port()
    env = {**os.environ, "PAPERCHAT_PRESET": "debug", "PAPERCHAT_DATA_DIR": str(tmp_path / "store")}
    for k in ("GRADIO_TEMP_DIR", "PAPERCHAT_UI_USER", "PAPERCHAT_UI_PASSWORD"):
        env.pop(k, None)
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from assistant.cli import main; sys.exit(main(sys.argv[1:]))",
         "ui", "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/gradio_api/info", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            time.sleep(0.5)
        info = httpx.get(url + "/gradio_api/info", timeout=10).json()
        assert set(info["named_endpoints"]) == {"/ask", "/search"}
        with pytest.raises(AppError) as e:  # empty store: a clear message with the hint, no internals
            client(url).predict("What is FedMerge?", api_name="/ask")
        assert "ingest" in str(e.value).lower() and str(tmp_path) not in str(e.value)
        assert raw_get(url, "/gradio_api/file=/etc/passwd")[0] in (403, 404)
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl+C: the server closes and removes its temp directory
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.mark.skipif(not BUNDLED_CORPUS.is_file(), reason="data/corpus.jsonl is not built yet")
def test_bundled_corpus_over_the_api(tmp_path):
    """The bundled corpus (debug preset: hash embeddings, scripted model): answer, list, comparison."""
    from assistant.pipeline import ingest_paths

    a, s = make_assistant(tmp_path, [])
    report = ingest_paths(a.index, [BUNDLED_CORPUS])
    assert report.added > 100
    with running(build_app(a, s, env={}), s) as url:
        c = client(url)
        out = c.predict("What does Prune&Comp do?", api_name="/ask")
        assert "[1]" in out and "**Sources**" in out and re.search(r"- \[1\] Prune&Comp.*\(", out)
        listed = c.predict("Which papers study federated learning?", api_name="/ask")
        assert re.search(r"\*\*(\d+) papers?\*\*", listed) and "\n1. " in listed
        table = c.predict("Compare the first two", api_name="/ask")
        assert "| Paper |" in table and "_Searched for:_ Compare" in table
