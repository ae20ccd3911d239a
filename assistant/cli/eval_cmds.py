"""Placeholder registry for this command group (filled in by its own issue)."""


def register(sub) -> None:  # noqa: ARG001
    return None
