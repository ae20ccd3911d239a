"""Issue 13, UI: the raw upload route takes only accepted types, a bounded count and total size; temp dirs
are removed at exit and stale ones at start; the default queue serves 50 concurrent sessions."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx
import pytest
from conftest import PAPERS, ROOT
from ui_helpers import free_port, make_assistant, running

from ui.app import build_app
from ui.launch import MARKER, TEMP_PREFIX, remove_stale_temp_dirs

pytestmark = pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    a, s = make_assistant(tmp_path_factory.mktemp("ui-limits"), list(PAPERS),
                          **{"ui.max_upload_files": 3, "ui.max_upload_total_mb": 2})
    with running(build_app(a, s, env={}), s) as u:
        yield u


def _post(url, files):
    return httpx.post(url + "/gradio_api/upload", files=files, timeout=60)


@pytest.mark.slow
def test_upload_route_refuses_other_types(url):
    for name in ("x.html", "x.svg", "x.exe", "x.jsonl.html", "noext"):
        r = _post(url, [("files", (name, b"<script>alert(1)</script>", "text/html"))])
        assert r.status_code == 400 and "not accepted" in r.text, (name, r.status_code)
    ok = _post(url, [("files", ("a.jsonl", b"{}\n", "text/plain")), ("files", ("b.CSV", b"a,b\n", "text/csv"))])
    assert ok.status_code == 200 and len(ok.json()) == 2


@pytest.mark.slow
def test_upload_route_bounds_count_and_total_size(url):
    many = [("files", (f"f{i}.txt", b"x", "text/plain")) for i in range(4)]
    r = _post(url, many)
    assert r.status_code == 400 and "At most 3 files" in r.text
    big = [("files", (f"f{i}.jsonl", b"x" * (900 * 1024), "text/plain")) for i in range(3)]  # 2.7 MB > 2 MB total
    r = _post(url, big)
    assert r.status_code == 413


def test_stale_temp_dirs_are_removed_and_live_ones_kept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f"{TEMP_PREFIX}old"
    stale.mkdir()
    (stale / MARKER).write_text(f"gradio files of one paperchat UI server, pid {dead.stdout.strip()}\n")
    live = tmp_path / f"{TEMP_PREFIX}live"
    live.mkdir()
    (live / MARKER).write_text(f"gradio files of one paperchat UI server, pid {os.getpid()}\n")
    other = tmp_path / "unrelated-dir"
    other.mkdir()
    assert remove_stale_temp_dirs(tmp_path) == [stale]
    assert live.exists() and other.exists() and not stale.exists()


def test_temp_dir_of_a_launch_is_removed_at_exit(tmp_path):
    code = ("import os; from ui.launch import prepare_environment; from assistant.settings import load_settings; "
            "s = load_settings('debug', {'store.data_dir': os.environ['D']}, env={}); print(prepare_environment(s))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path), "D": str(tmp_path / "store")}
    env.pop("GRADIO_TEMP_DIR", None)
    env.pop("PAPERCHAT_UI_TEMP_DIR", None)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
    made = Path(p.stdout.strip())
    assert p.returncode == 0 and made.name.startswith(TEMP_PREFIX), p.stderr
    assert not made.exists()


@pytest.mark.slow
def test_fifty_concurrent_sessions_with_the_extractive_model(tmp_path):
    sys.path.insert(0, str(ROOT))
    from bench.ui_sessions import run

    res = run(50, tmp_path)
    print(res)  # noqa: T201 - the measured figures, in the log of a passing run too (-rP)
    assert res["errors"] == 0 and res["queue_full"] == 0, res
    assert res["leaks"] == 0, res
    assert res["followups_resolved"] == 50 and res["own_paper_cited_first"] == 50, res


def test_launch_refuses_a_store_whose_vectors_are_wrong(tmp_path, monkeypatch):
    from assistant.errors import StoreDamagedError
    from assistant.index import store as store_mod
    from ui.launch import launch

    a, s = make_assistant(tmp_path, list(PAPERS))
    real = store_mod.ChromaStore.query_chunks

    def scrambled(self, vector, n, where=None, metadata=True):  # what a zeroed HNSW file answers
        return list(reversed(real(self, -vector, n, where, metadata)))

    monkeypatch.setattr(store_mod.ChromaStore, "query_chunks", scrambled)
    app = build_app(a, s, env={})
    with pytest.raises(StoreDamagedError, match="wrong results") as e:
        launch(app, s, "127.0.0.1", free_port(), block=False, quiet=True, env={})
    assert "rebuild-index --dense" in e.value.hint
