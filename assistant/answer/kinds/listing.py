"""A "which papers ..." list: the papers weighing found to meet the criterion (`prep.rows`: each named part
of the criterion in the abstract, a sentence matching it above the bar), a count, and a cited
justification per paper. Whether to list at all is decided in decide.py (`list.*` rules).
"""

from __future__ import annotations

from collections.abc import Generator

from ..compose import trim
from ..events import Event
from ..state import Draft, Prepared, cite, shown_name
from .base import Context


class ListWriter:
    def write(self, prep: Prepared, ctx: Context) -> Generator[Event, None, Draft]:
        yield from ()  # a generator like every writer; lists are composed without events
        draft = Draft("list")
        # the matching papers (weigh found them; decide() abstains when there are none), in retrieval order (the
        # whole abstract against the criterion), not by one sentence's overlap with it: "it" in a follow-up is the first
        found = prep.rows
        lines = [f"**{len(found)} paper{'s' if len(found) != 1 else ''}** in the indexed abstracts match “{prep.question.criterion}”:", ""]
        for n, (h, j, sent) in enumerate(found, start=1):
            name = shown_name(prep.names, h, full=True)
            shown = f"**{h.title}**" if not name or name == h.title else f"**{name}** ({h.title})"  # a derived label after the name
            lines.append(f"{n}. {shown} — {trim(sent, 30)} [{n}]")
            draft.citations.append(cite(n, h, [j]))
        draft.text = "\n".join(lines)
        return draft
