"""Issue 23 against a real `paperchat ui` process: the records store removed or truncated under the server,
then a paper uploaded, then a restart. The upload is refused with a clear message (and the page's banner
names the fix), `doctor` exits non-zero naming the loss and the server's PID, a restart is refused, and
`rebuild-index --records` brings back every record Chroma still holds (counted)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from conftest import PAPERS, ROOT
from servers import free_port, wait_http

from assistant.cli import main
from assistant.index.indexer import Index
from assistant.index.records import FILE
from assistant.settings import load_settings

pytestmark = pytest.mark.slow

NEW = {"id": "p-zebra", "title": "Zebra finch song learning",
       "abstract": "We study zebra finch song learning with recurrent models. Juvenile birds copy a tutor's song."}


def _env(data_dir: Path) -> dict[str, str]:
    return {**os.environ, "PAPERCHAT_PRESET": "debug", "PAPERCHAT_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT),
            "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "GRADIO_ANALYTICS_ENABLED": "False"}


def _cli(data_dir: Path, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant.cli", *argv], env=_env(data_dir), capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, check=False)


def _call(url: str, api_name: str, data: list, session: str) -> list:
    """Run one (private) event of the app through the queue, as the page does; its output data."""
    base = url + "/gradio_api"
    with httpx.Client(timeout=60) as h:
        fns = h.get(url + "/config").json()["dependencies"]
        fn = next(d["id"] for d in fns if d.get("api_name") == api_name)
        r = h.post(base + "/queue/join", json={"data": data, "fn_index": fn, "session_hash": session,
                                               "event_data": None, "trigger_id": None})
        r.raise_for_status()
        with h.stream("GET", base + "/queue/data", params={"session_hash": session}) as s:
            for line in s.iter_lines():
                if "process_completed" in line:
                    msg = json.loads(line.split("data:", 1)[1])
                    assert msg.get("success"), msg
                    return msg["output"]["data"]
    raise AssertionError("no answer")


def _upload(url: str, path: Path) -> str:
    with httpx.Client(timeout=60) as h:
        up = h.post(url + "/gradio_api/upload", files=[("files", (path.name, path.read_bytes(), "text/plain"))])
        up.raise_for_status()
        server_path = up.json()[0]
    data = [[{"path": server_path, "orig_name": path.name, "meta": {"_type": "gradio.FileData"}}]]
    return str(_call(url, "add_files", data, "upload-session")[0])


def _vector_papers(data_dir: Path) -> int:
    index = Index(load_settings("debug", {"store.data_dir": str(data_dir)}, env={}), new_vectors=True)
    n = index.store.count()[0]
    del index
    gc.collect()
    return n


@pytest.mark.parametrize("damage", ["remove", "truncate"])
def test_records_store_lost_under_a_running_server(tmp_path, monkeypatch, damage):
    data = tmp_path / "store"
    monkeypatch.setenv("PAPERCHAT_PRESET", "debug")
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(data))
    src = tmp_path / "papers.jsonl"
    src.write_text("\n".join(json.dumps({"id": r.paper_id, "title": r.label, "abstract": r.text}) for r in PAPERS)
                   + "\n")
    assert main(["ingest", str(src), "--quiet"]) == 0
    gc.collect()
    new = tmp_path / "new.jsonl"
    new.write_text(json.dumps(NEW) + "\n")

    port = free_port()
    with open(tmp_path / "ui.log", "w") as log:
        server = subprocess.Popen([sys.executable, "-m", "assistant.cli", "ui", "--port", str(port)], env=_env(data),
                                  stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_http(url + "/config", server, timeout_s=180)
        assert _call(url, "store_banner", [], "banner-before")[0]["visible"] is False
        if damage == "remove":
            (data / FILE).unlink()
        else:
            os.truncate(data / FILE, 0)
        report = _upload(url, new)
        assert "Writes are refused" in report and "rebuild-index --records" in report, report
        assert "1 added" not in report and "Something went wrong" not in report
        banner = _call(url, "store_banner", [], "banner-after")[0]
        assert banner["visible"] is True and "rebuild-index --records" in banner["value"], banner

        served = _cli(data, "doctor")  # beside the server: read-only, names it, never "database is locked"
        assert served.returncode == 1, served.stdout + served.stderr
        assert f"PID {server.pid}" in served.stdout and "rebuild-index --records" in served.stdout
        assert "database is locked" not in served.stdout + served.stderr
        busy = _cli(data, "rebuild-index", "--records")
        assert busy.returncode != 0 and f"PID {server.pid}" in busy.stderr and "Traceback" not in busy.stderr
    finally:
        server.terminate()
        server.wait(timeout=60)

    restart = _cli(data, "ui", "--port", str(free_port()), timeout=180)
    assert restart.returncode != 0, restart.stdout + restart.stderr
    assert "rebuild-index --records" in restart.stderr and "Traceback" not in restart.stderr
    assert "paperchat UI on" not in restart.stdout

    doctor = _cli(data, "doctor", "--no-probe")
    assert doctor.returncode == 1 and "BAD records" in doctor.stdout, doctor.stdout
    assert "store is healthy" not in doctor.stdout

    held = _vector_papers(data)
    assert held == len(PAPERS)
    repair = _cli(data, "rebuild-index", "--records")
    assert repair.returncode == 0, repair.stdout + repair.stderr
    records = json.loads(_cli(data, "stats", "--json").stdout)
    assert records["records"] == held == records["papers"], (repair.stdout, records)
    if damage == "remove":  # the server rescued what it held before refusing the write
        assert "from the copy rescued at" in repair.stdout, repair.stdout
    else:
        assert f"{held} records ({held} from the vector store)" in repair.stdout, repair.stdout
    assert "p-zebra" not in _cli(data, "search", "zebra finch song").stdout  # the refused upload wrote nothing
    assert _cli(data, "doctor").returncode == 0
