"""Whether a host to serve on is this machine only: `is_loopback` (no gradio import).

`ui.launch` asks it before serving without a login; `ui.handlers` (through `ui.server_handlers`) decides with
it whether a visitor may point the chat at another model server.
"""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
