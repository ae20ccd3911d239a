"""One lexicon per index (`linker.Lexicon`), shared by the analysis and weighing of every question."""

from __future__ import annotations

import threading

from .linker import Lexicon


class LexiconCache:
    """The corpus lexicon, rebuilt when the records change (not when only vectors were added)."""

    def __init__(self, index) -> None:
        self.index = index
        self._lock = threading.Lock()
        self._cached: tuple[str, Lexicon] | None = None

    def get(self) -> Lexicon:
        gen = self.index.searchable_generation()
        with self._lock:
            if self._cached is None or self._cached[0] != gen:
                self._cached = (gen, Lexicon.build((r.paper_id, r.display, r.text, r.label_derived)
                                                   for r in self.index.all_records()))
            return self._cached[1]
