"""`launch(app, settings, host, port)`: serve a built app with the safe defaults of RELIABILITY.md §4.

- Binds 127.0.0.1 unless told otherwise; `share=False` always; no analytics, no Chroma telemetry,
  no monitoring endpoint, no MCP server, no browser run history.
- Optional login from PAPERCHAT_UI_USER / PAPERCHAT_UI_PASSWORD (never argv): a callable comparing
  SHA-256 digests with `hmac.compare_digest`, so the check takes the same time for any input.
- Files: GRADIO_TEMP_DIR is a dedicated 0700 directory; `allowed_paths=[]`; `blocked_paths` holds the
  data directory, the project root and `.env` files; uploads are capped at `ui.max_upload_mb` and only
  .jsonl/.csv/.bib/.txt are accepted (checked again server-side).
- The raw upload route (/gradio_api/upload) takes only the accepted types, at most `ui.max_upload_files`
  files and `ui.max_upload_total_mb` per request (`UploadGuard`: the body is spooled to disk while its
  part headers are checked, then handed to gradio; a refusal is a 400/413 with a plain message).
- Temp files: the `paperchat-gradio-*` directory a launch makes is removed at exit, and directories
  left by servers that died (their marker names a PID that is gone) are removed at the next start.
- Queue: `max_size=ui.queue_size`, default concurrency 1, `api_open=False`; `show_error=False`.
- A damaged store (the open checks of `assistant.index.doctor`) is an error before anything is served.
Environment variables are set here, at launch time, never at import.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from assistant.errors import ConfigError
from assistant.runtime import go_offline
from assistant.settings import PROJECT_DIR, Settings

from .hosts import is_loopback

log = logging.getLogger("paperchat.ui")

USER_ENV = "PAPERCHAT_UI_USER"
PASSWORD_ENV = "PAPERCHAT_UI_PASSWORD"
TEMP_ENV = "PAPERCHAT_UI_TEMP_DIR"


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()


def auth_from_env(env: Mapping[str, str] | None = None) -> Callable[[str, str], bool] | None:
    """A login check from PAPERCHAT_UI_USER / PAPERCHAT_UI_PASSWORD, or None when neither is set.

    Only digests are kept; both are always compared (no early exit), in constant time."""
    env = os.environ if env is None else env
    user, password = env.get(USER_ENV, ""), env.get(PASSWORD_ENV, "")
    if not user and not password:
        return None
    if not (user and password):
        raise ConfigError(
            f"Only one of {USER_ENV} and {PASSWORD_ENV} is set.",
            hint="Set both to require a login, or neither to serve without one (only on 127.0.0.1).",
        )
    want_user, want_password = _digest(user), _digest(password)

    def check(username: str, password: str) -> bool:
        ok_user = hmac.compare_digest(_digest(username or ""), want_user)
        ok_password = hmac.compare_digest(_digest(password or ""), want_password)
        return ok_user & ok_password

    return check


def dedicated_temp_dir(env: Mapping[str, str] | None = None) -> Path:
    """PAPERCHAT_UI_TEMP_DIR if set, else a fresh private directory for this server's gradio files."""
    env = os.environ if env is None else env
    if env.get(TEMP_ENV):
        path = Path(env[TEMP_ENV]).expanduser().resolve()
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        return path
    remove_stale_temp_dirs()
    path = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX)).resolve()
    atexit.register(shutil.rmtree, path, True)  # uploads and exports of this run
    return path


TEMP_PREFIX = "paperchat-gradio-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temp_dirs(root: Path | None = None) -> list[Path]:
    """Remove `paperchat-gradio-*` directories whose server is gone (marker PID dead, or no marker and
    older than a day); returns what was removed. Never touches a directory without our prefix."""
    import time

    removed = []
    for d in Path(root or tempfile.gettempdir()).glob(TEMP_PREFIX + "*"):
        if not d.is_dir() or d.is_symlink():
            continue
        m = re.search(r"pid (\d+)", (d / MARKER).read_text(errors="replace")) if (d / MARKER).is_file() else None
        stale = not _alive(int(m.group(1))) if m else time.time() - d.stat().st_mtime > 86400
        if stale:
            shutil.rmtree(d, ignore_errors=True)
            removed.append(d)
    return removed


def blocked_paths(settings: Settings, cwd: Path | None = None) -> list[str]:
    """What the server must never serve, even if something hands gradio such a path."""
    cwd = (cwd or Path.cwd()).resolve()
    paths = [
        Path(settings.store.data_dir).expanduser().resolve(),
        PROJECT_DIR.resolve(),
        PROJECT_DIR.resolve() / ".env",
        cwd / ".env",
        Path.home().resolve() / ".cache" / "huggingface",
        Path("/etc"),
        Path("/proc"),
    ]
    return list(dict.fromkeys(str(p) for p in paths))


MARKER = ".paperchat-ui"


def prepare_environment(settings: Settings, env: dict[str, str] | None = None) -> Path:
    """Process switches the server needs (offline, no telemetry/analytics, dedicated GRADIO_TEMP_DIR).

    Call it before `build_app` (gradio components note their cache directory when created); `launch`
    calls it too and re-points an app built earlier. Idempotent: a directory it made is reused."""
    env = os.environ if env is None else env
    go_offline()
    env["GRADIO_ANALYTICS_ENABLED"] = "False"
    env["ANONYMIZED_TELEMETRY"] = "False"
    env.setdefault("GRADIO_SSR_MODE", "False")
    current = env.get("GRADIO_TEMP_DIR", "")
    if current and (Path(current) / MARKER).is_file():
        return Path(current)
    temp = dedicated_temp_dir(env)
    (temp / MARKER).write_text(f"gradio files of one paperchat UI server, pid {os.getpid()}\n")
    for blocked in blocked_paths(settings):
        b = Path(blocked)
        if temp == b or b in temp.parents:
            raise ConfigError(
                f"The UI's temporary directory would be inside a blocked directory ({b.name}).",
                hint=f"Set {TEMP_ENV} to a directory outside the data directory and the project.",
            )
    env["GRADIO_TEMP_DIR"] = str(temp)
    return temp


def launch(
    app: Any,
    settings: Settings,
    host: str | None = None,
    port: int | None = None,
    *,
    block: bool = True,
    quiet: bool = False,
    env: Mapping[str, str] | None = None,
) -> tuple[Any, str]:
    """Queue and launch `app` (built by `ui.app.build_app`). Returns (fastapi app, local URL).

    `block=False` returns once the server is up (tests); close it with `app.close()`."""
    from .layout import CSS, HEAD  # (imported here: importing ui.launch imports no gradio)

    host = host or settings.ui.host
    port = settings.ui.port if port is None else port
    if not 1 <= int(port) <= 65535:
        raise ConfigError(f"Invalid port {port}.", hint="Use --port 1..65535 (7860 by default).")
    auth = auth_from_env(env)
    if not is_loopback(host) and auth is None:
        log.warning(
            "Serving on %s without a login: anyone who can reach this address can use the app and its "
            "upload. Set %s and %s, and put a TLS proxy with rate limits in front.", host, USER_ENV, PASSWORD_ENV,
        )
    check_store(app)
    hold_serve_lock(app)
    handlers = getattr(app, "paperchat_handlers", None)
    if handlers is not None:  # visitors may point the chat at another model server only on loopback
        handlers.server_url_editable = is_loopback(host)
    temp = prepare_environment(settings)
    for component in app.blocks.values():  # an app built before the environment was prepared
        if getattr(component, "GRADIO_CACHE", None) is not None:
            component.GRADIO_CACHE = str(temp)
    app.queue(max_size=settings.ui.queue_size, default_concurrency_limit=1, api_open=False)
    fastapi_app, local_url, _ = app.launch(
        server_name=host,
        server_port=int(port),
        share=False,
        auth=auth,
        auth_message="paperchat: log in with the credentials the operator set." if auth else None,
        show_error=False,
        allowed_paths=[],
        blocked_paths=blocked_paths(settings),
        max_file_size=f"{settings.ui.max_upload_mb}mb",
        prevent_thread_lock=not block,
        inbrowser=False,
        quiet=quiet,
        enable_monitoring=False,
        strict_cors=True,
        ssr_mode=False,
        pwa=False,
        mcp_server=False,
        run_history=False,
        footer_links=["api"],
        css=CSS,
        head=HEAD,
        app_kwargs={"middleware": [upload_guard(settings)]},
    )
    return fastapi_app, local_url


def check_store(app: Any) -> None:
    """Refuse to serve a damaged store (zeroed vectors, a broken Chroma file): StoreDamagedError naming
    the fix, instead of an app that answers from wrong search results."""
    from assistant.index.doctor import open_check

    index = getattr(getattr(getattr(app, "paperchat_handlers", None), "assistant", None), "index", None)
    if index is not None and hasattr(index, "records_db"):
        open_check(index)


def hold_serve_lock(app: Any) -> None:
    """Advertise this server on its data directory (DATA_DIR/serve.lock, PID inside) while it serves, so
    `paperchat doctor` checks read-only beside it and `rebuild-index` names it instead of racing it."""
    from assistant.index.lock import ServeLock

    index = getattr(getattr(getattr(app, "paperchat_handlers", None), "assistant", None), "index", None)
    data_dir = getattr(index, "data_dir", None)
    if data_dir is None or getattr(app, "paperchat_serve_lock", None) is not None:
        return
    lock = ServeLock(data_dir).acquire()
    app.paperchat_serve_lock = lock
    close = app.close

    def close_and_release(*args: Any, **kwargs: Any) -> Any:
        try:
            return close(*args, **kwargs)
        finally:
            lock.release()
            app.paperchat_serve_lock = None

    app.close = close_and_release


def upload_guard(settings: Settings):
    from starlette.middleware import Middleware

    from .upload_guard import UploadGuard

    return Middleware(UploadGuard, types=ACCEPTED_UPLOADS, max_files=settings.ui.max_upload_files,
                      max_bytes=settings.ui.max_upload_total_mb * 1024 * 1024)


ACCEPTED_UPLOADS = (".jsonl", ".csv", ".bib", ".txt")
