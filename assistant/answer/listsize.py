"""Lists honest about their size: retrieve widely, check the criterion on every candidate, say how many.

Retrieval for a list asks for `LIST_POOL` papers, not the `LIST_SHOW` an answer shows. The first
`LIST_SHOW` are checked as before (their best sentence against the criterion); the rest only when their
abstract uses every content word of the criterion (a cheap lexical gate, so a wide pool costs little),
then the same sentence check. The header gives the full count, "at least N" when the pool itself was
full of matches, and says how many are shown; every match is cited, so a front end can show all.

>>> list_header(35, 30, "federated learning", complete=True)
'**35 papers** in the indexed abstracts match “federated learning” (showing the first 30; all 35 are cited below):'
>>> list_header(3, 30, "FEMNIST", complete=True)
'**3 papers** in the indexed abstracts match “FEMNIST”:'
>>> list_header(100, 30, "learning", complete=False)
'**At least 100 papers** in the indexed abstracts match “learning” (showing the first 30; all 100 are cited below):'
"""

from __future__ import annotations

from ..types import Hit
from .support import content_words

LIST_SHOW = 30  # papers written out in a list answer
LIST_POOL = 120  # papers retrieved for a list (the criterion is checked on each)


def candidates(hits: list[Hit], criterion: str, show: int = LIST_SHOW) -> list[Hit]:
    """The hits whose sentences to check: the first `show`, then those whose abstract has every criterion word."""
    words = content_words(criterion)
    return hits[:show] + [h for h in hits[show:] if words and words <= content_words(h.title + " " + h.text)]


def list_header(found: int, show: int, criterion: str, complete: bool) -> str:
    many = "s" if found != 1 else ""
    count = f"**{found} paper{many}**" if complete else f"**At least {found} paper{many}**"
    tail = f" (showing the first {show}; all {found} are cited below)" if found > show else ""
    return f"{count} in the indexed abstracts match “{criterion}”{tail}:"
