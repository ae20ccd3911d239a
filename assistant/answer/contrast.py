"""A comparison composed from evidence: the difference stated first, then a table whose columns come
from each sentence's role (roles.py), repeating nothing the statement says.

    statement, used = difference(rows, picks, names, asks_difference)
    table, used = role_table(rows, names, skip=used)

The statement is one paragraph: each side's sentence that best answers the question (picked by the
caller), rewritten as prose (prose.py) with its citation, the later sides introduced by "By contrast,"
when the question asks how they differ. The table has one row per paper and the columns Problem /
Method / Data / Result; a cell is the sentence that plays that role (not one the statement used),
trimmed and cited; "not stated" only when no sentence plays it. When the data are named only inside
another role's sentence ("when 5 layers of LLaMA-3-8B are pruned ..."), the Data cell lists those names.
"""

from __future__ import annotations

import re

from ..index.sentences import split_sentences
from ..types import Hit
from .acronyms import as_shown
from .compose import trim
from .naming import marked_label
from .prose import Rewriter, is_debris
from .roles import FLOOR, ROLES, Embed, assign, data_mentions, probabilities, role_scores

NOT_STATED = "not stated"
ASKS_DIFFERENCE = re.compile(r"\b(?:differ\w*|difference|contrast|versus|vs\.?|compare[sd]?|comparison|"
                             r"distinguish\w*)\b", re.IGNORECASE)


def difference(rows: list[tuple[Hit, int]], picks: dict[int, list[int]], names: dict[str, str], question: str,
               rw: Rewriter | None = None) -> str:
    """A lead-in ("How they differ:") and one line per side: its answering sentences as prose, each cited.
    (No connective is written into a sentence: "By contrast, X ..." is a sentence its abstract does not say,
    and the claim verifier rightly reads it so.)"""
    rw = rw or Rewriter()
    sides = []  # (hit, marker, name, the side's picked sentences)
    for hit, marker in rows:
        sents = [s.text for s in split_sentences(hit.text)]
        sides.append((hit, marker, names.get(hit.paper_id, ""),
                      [sents[i] for i in picks.get(marker, []) if 0 <= i < len(sents)]))
    # as prose, each acronym spelled out at its first use in the overview
    texts = iter(as_shown(rw, [(source, name, hit.text) for hit, _, name, picked in sides for source in picked]))
    lines = []
    for hit, marker, name, picked in sides:
        if said := [t.rstrip(".") for t in [next(texts) for _ in picked] if t]:
            label = f"**{name}**" if name and not hit.record.label_derived else marked_label(hit.record, name=name)
            lines.append(f"- {label} [{marker}]: " + " ".join(f"{s} [{marker}]." for s in said))
    if not lines:
        return ""
    lead = "How they differ:" if ASKS_DIFFERENCE.search(question) and len(lines) > 1 else "What each abstract says:"
    return "\n".join([lead, *lines])


def role_table(rows: list[tuple[Hit, int]], names: dict[str, str], skip: dict[int, list[int]] | None = None,
               words: int = 28, rw: Rewriter | None = None,
               embed: Embed | None = None) -> tuple[str, dict[int, list[int]]]:
    """Markdown table (one row per (hit, marker)) and the sentence ids each row's cells use (`embed`: the
    sentence vectors the role model reads, when the caller has them cached; see roles.py)."""
    skip = skip or {}
    rw = rw or Rewriter()
    rw.prepare([(s.text, names.get(h.paper_id, "")) for h, _ in rows for s in split_sentences(h.text)])
    lines = ["| Paper | " + " | ".join(ROLES) + " |", "|---" * (len(ROLES) + 1) + "|"]
    used_ids: dict[int, list[int]] = {}
    for hit, marker in rows:
        sents = [s.text for s in split_sentences(hit.text)]
        name = names.get(hit.paper_id, "")
        banned = frozenset(skip.get(marker, [])) | frozenset(i for i, s in enumerate(sents) if is_debris(s))
        scores = role_scores(p := probabilities(sents, embed))
        cols = assign(sents, skip=banned, p=p)
        cells = []
        for role in ROLES:
            i = cols[role]
            if i is not None:
                used_ids.setdefault(marker, []).append(i)
                cells.append(f"{trim(rw(sents[i], name) or sents[i], words)} [{marker}]")
            elif role == "Data":
                cells.append(_data_cell(sents, scores, marker, used_ids))
            else:
                cells.append(_stated_above(scores, role, skip.get(marker, []), marker))
        cells = [c.replace("|", "\\|") for c in cells]
        label = marked_label(hit.record, name=name)
        lines.append(f"| {label} [{marker}] | " + " | ".join(cells) + " |")
    return "\n".join(lines), used_ids


def _data_cell(sents: list[str], scores: list[dict[str, float]], marker: int, used: dict[int, list[int]]) -> str:
    """The data named inside another sentence (the one that names most), or "not stated"."""
    named = [i for i in range(len(sents)) if not is_debris(sents[i])]  # (a statement's sentence too: names, no repeats)
    best = max(named, key=lambda i: (len(data_mentions(sents[i])), scores[i]["Data"]), default=None)
    if best is None or not data_mentions(sents[best]):
        return NOT_STATED
    used.setdefault(marker, []).append(best)
    return ", ".join(data_mentions(sents[best])) + f" [{marker}]"


def _stated_above(scores: list[dict[str, float]], role: str, said: list[int], marker: int) -> str:
    """A role only the statement's sentence plays: say so instead of repeating it."""
    if any(0 <= i < len(scores) and scores[i][role] >= FLOOR for i in said):
        return f"(stated above) [{marker}]"
    return NOT_STATED
