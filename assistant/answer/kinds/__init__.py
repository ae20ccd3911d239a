"""One writer per answer kind, behind one small interface (`base.Writer.write`).

    draft = yield from WRITERS[prep.kind].write(prep, ctx)
"""

from __future__ import annotations

from ..question import Kind
from .base import Context, Writer
from .compare import CompareWriter
from .listing import ListWriter
from .single import SingleWriter

WRITERS: dict[Kind, Writer] = {Kind.SINGLE: SingleWriter(), Kind.COMPARE: CompareWriter(), Kind.LIST: ListWriter()}

__all__ = ["WRITERS", "Context", "Writer"]
