"""CLI: `paperchat ui [--host H] [--port N]` starts the web chat (ui.app + ui.launch)."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

from ..errors import ConfigError


def register(sub) -> None:
    p = sub.add_parser(
        "ui",
        help="Start the web chat (http://127.0.0.1:7860 by default).",
        description="Start the web chat. Login: set PAPERCHAT_UI_USER and PAPERCHAT_UI_PASSWORD in the "
        "environment (required before binding anything but 127.0.0.1 on a shared network).",
    )
    p.add_argument("--host", help="Address to bind (default: ui.host, 127.0.0.1).")
    p.add_argument("--port", type=int, help="Port (default: ui.port, 7860).")
    p.set_defaults(handler=cmd_ui)


def _workdir() -> Path:
    """An empty directory to run the server from, so nothing of the current directory is near it."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    path = Path(base) / f"paperchat-ui-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def cmd_ui(args, ctx) -> int:
    from ..runtime import go_offline

    go_offline()  # before chromadb / gradio are imported: no telemetry, no analytics, no hub downloads
    if args.port is not None and not 1 <= args.port <= 65535:
        raise ConfigError(f"Invalid port {args.port}.", hint="Use --port 1..65535.")
    # absolute data dir first: the server then runs from its own empty working directory
    data_dir = Path(ctx.settings.store.data_dir).expanduser().resolve()
    settings = ctx.settings.with_overrides({"store.data_dir": str(data_dir)})

    from ui.app import build_app
    from ui.launch import TEMP_ENV, check_store, launch, prepare_environment

    from ..answer.assistant import Assistant

    temp = prepare_environment(settings)  # dedicated GRADIO_TEMP_DIR before any gradio component exists
    assistant = Assistant(settings)
    app = build_app(assistant, settings)
    check_store(app)  # a damaged store is refused before the address is printed
    # load the chat model, embedder and lexical index while the server starts, not on the first question
    threading.Thread(target=assistant.warm_up, name="warm-up", daemon=True).start()
    os.chdir(_workdir())
    host = args.host or settings.ui.host
    port = args.port or settings.ui.port
    print(f"paperchat UI on http://{host}:{port} (Ctrl+C to stop)")
    try:
        launch(app, settings, host, port, block=True, quiet=True)
    finally:
        app.close()
        if not os.environ.get(TEMP_ENV):  # a directory this run made (not one the operator chose)
            shutil.rmtree(temp, ignore_errors=True)  # uploads and exports of this run
    return 0
