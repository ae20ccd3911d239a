"""What analysis and retrieval found about the names of a single question, as the `NameFinding` the decision point
reads: which names linked to which paper, which retrieval did not confirm, whether "the X paper" asks for X's own
paper, whether the question is a yes/no one. Measured here, decided in decide.py.
"""

from __future__ import annotations

import re

from .findings import NameFinding
from .linker import Lexicon
from .nameforms import NAMED, norm
from .phrasing import DESCRIBED_PAPER, ORIGINAL, OWN_PAPER, YES_NO, lead_match
from .state import Prepared
from .support import content_words


def name_finding(p: Prepared, lexicon: Lexicon) -> NameFinding:
    """The names of the prepared single question `p`, after retrieval chose its topic papers."""
    q = p.question
    own = OWN_PAPER.search(q.standalone)  # "the EAGLE-3 paper proposes": a name, whether or not it links
    paper_named = next((x for x in (own.group("n"), own.group("m")) if x and NAMED.fullmatch(x)), "") if own else ""
    return NameFinding(
        topic_names=p.topic_names,
        linked=tuple(f"{k.name} -> {lexicon.display.get(k.paper_ids[0], k.paper_ids[0])}"
                     + ("" if k.strong else " (weak)") for k in q.links),
        unconfirmed=tuple(n for n in q.topic_names if n not in p.topic_names), rechosen=p.rechosen,
        unlinked=q.unlinked, placed=q.topic_placed, strong=bool(q.topic_strong), followup=q.followup,
        own_paper_asked=_asks_own_paper(own, paper_named, q.topic_names),
        original_asked=bool(ORIGINAL.search(q.standalone)),
        paper_named=paper_named,  # (a name no abstract mentions is left to the near-miss rules)
        paper_named_own=(not paper_named or lexicon.is_own_name(paper_named)
                         or not lexicon.mentioned_in(paper_named)),
        owned=any(pid in lexicon.owners.get(norm(name), ()) for pid in p.topic for name in p.topic_names),
        describes_paper=bool(DESCRIBED_PAPER.search(q.standalone)), yes_no=yes_no(q.standalone),
        content_words=len(content_words(q.standalone)))


def _asks_own_paper(own: re.Match[str] | None, paper_named: str, topic_names: tuple[str, ...]) -> bool:
    """The question asks for a name's own paper (`OWN_PAPER`): "its own paper", "according to its paper", or "the X
    paper" where X is a name (not "the best paper on X") and the question's first ("For DF-FLOPS (the SPLADE-Doc
    regularization paper), ...?" asks of DF-FLOPS's paper)."""
    if own is None:
        return False
    if not (own.group("n") or own.group("m")):
        return True
    return bool(paper_named) and (not topic_names or norm(paper_named) == norm(topic_names[0]))


def yes_no(question: str) -> bool:
    """A yes/no question, also after a lead that sets it up ("Search engines in hard cases: is Google useful?").

    >>> yes_no("Search engines in hard cases: is Google useful?"), yes_no("What does Kite report?")
    (True, False)
    >>> yes_no("Can Kite run on phones?"), yes_no("Can you explain how Kite routes tokens?")
    (True, False)
    >>> yes_no("Could you briefly explain Kite?"), yes_no("Can you tell me whether Kite needs public data?")
    (False, True)
    """
    lead = lead_match(question)
    return bool(YES_NO.match(lead.group("ask") if lead else question))
