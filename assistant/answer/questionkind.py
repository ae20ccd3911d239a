"""What kind of question it is: one answer (SINGLE), a comparison of 2-4 sides (COMPARE) or a list of every
matching paper (LIST), and for a comparison its sides, for a list its criterion. Read from the question's shape
(`phrasing.py` patterns, `sides.py` for the sides) and the names linked in it; `question.analyze` calls
`question_kind` once per question.

    kind, sides, criterion = question_kind("Which papers study federated learning?", links, (), None)
"""

from __future__ import annotations

import itertools
import re
from enum import Enum

from .asked_topic import existence_topic
from .linker import Link
from .nameforms import norm
from .phrasing import CUE, DESCRIBED_PAIR, DESCRIBED_PAPER, IN_ONE_REPORT, LIST, TWO_PAPERS, WEAK_CUE
from .sidelist import listed_sides, stated_count
from .sides import (
    MAX_SIDES,
    Side,
    clean,
    coordinated,
    described_sides,
    framed_sides,
    listed,
    side_in,
    with_described,
)


class Kind(str, Enum):  # noqa: UP042 - StrEnum would turn str() and f"{kind}" from "Kind.LIST" into "list"
    SINGLE = "answer"
    COMPARE = "compare"
    LIST = "list"


def question_kind(q: str, links: list[Link], referents: tuple[str, ...], conversation,
                  original: str = "", shared: frozenset[str] = frozenset()) -> tuple[Kind, tuple[Side, ...], str]:
    """The kind of question `q` (standalone), its comparison sides and its list criterion (see the module doc);
    `referents`: papers a follow-up refers to; `shared`: linked terms many abstracts use (they name no side).
    The frames' reading (`_framed_kind`) is checked against the coordinated list the question holds
    (`sidelist.listed_sides`): a question that says its papers are several ("both", "each", "they", "how do they
    differ", "these three") and lists more sides than the frames found is a comparison of those sides."""
    kind, sides, criterion = _framed_kind(q, links, referents, conversation, original, shared)
    several = _SEVERAL.search(q) or stated_count(q) >= 2  # ("A versus B" alone may be a contrast inside one paper)
    if kind is Kind.LIST or not (several or (kind is Kind.COMPARE and CUE.search(q))):
        return kind, sides, criterion
    listed = listed_sides(q, links)
    # more sides, or the same sides read whole ("the study of training and inference scaling laws": not cut at "and")
    longer = len(listed) == len(sides) >= 2 and listed != sides and all(
        a == b or (not a.paper_ids and len(b.text) > len(a.text) and _words(a.text) <= _words(b.text))
        for a, b in zip(sides, listed))
    return (Kind.COMPARE, listed, "") if len(listed) > len(sides) or longer else (kind, sides, criterion)


def _words(text: str) -> set[str]:
    """A side's words, without the noun for a paper ("the study of X": "of", "x")."""
    return set(re.findall(r"[a-z0-9]+", text.lower())) - {"the", "paper", "study", "work", "one", "article"}


# kinds of paper a listed one must call itself ("are there datasets for X?": the kind is in the criterion and a part,
# question.py); a generic kind of contribution ("are there tools / methods / frameworks that do X?") is any paper
# doing X, whatever it calls its work ("a simple application", "a framework"): not in the criterion
PAPER_KINDS = frozenset({"benchmarks", "datasets", "corpora", "surveys"})
# where a list's papers are looked for, after its criterion: "... are in the collection", "... here"
_WHERE = re.compile(r"\s+(?:(?:are|is|were|exist|can be found)\s+)?(?:(?:in|from|across)\s+(?:the |this |my |our )?"
                    r"(?:corpus|collection|index|library|abstracts)|(?:in\s+)?here)$", re.I)


# an exclusion in a list's criterion: "(not just quantum-inspired tricks)", "but not for imaging", ", excluding X"
_EXCEPT = re.compile(r"\s*\((?:but\s+|and\s+)?(?:not|except|excluding|other than|apart from)\b[^()]*\)"
                     r"|(?:,\s*(?:but\s+not|except(?:\s+for)?|excluding|other than|apart from)"
                     r"|\s+(?:but\s+not|excluding))\b.*$", re.I)  # ("set X apart from Y" is none: after a comma only)


# the question says its papers are several: a plural word refers to them, or it asks how they differ
_SEVERAL = re.compile(r"\b(?:both|each|all|they|their|them|these|those|differ\w*|compar\w+|contrast\w*)\b", re.I)


def _framed_kind(q: str, links: list[Link], referents: tuple[str, ...], conversation,
                 original: str, shared: frozenset[str]) -> tuple[Kind, tuple[Side, ...], str]:
    m = LIST.match(q)
    terse = m and next((g for g in ("c5", "c6", "c7") if m.group(g)), "")
    if terse and (any(link.strong and link.name in q[m.start(terse):] for link in links)  # "anything on the cost of X?"
                  # "which ones ...?" of the last answer
                  or (terse == "c5" and conversation is not None and conversation.turns)):
        m = None
    if m and (len(referents) == 1 or (m.group("m10") and (any(link.strong for link in links) or referents
                                                          or DESCRIBED_PAPER.search(q)))):
        m = None  # "Which datasets are used by FedMerge?", "... in the paper on X?", "What models did they tune?"
    if m and re.match(r"^(?:which|what) (?:experiments|trials|cohorts)\b", q, re.I) and IN_ONE_REPORT.search(q):
        m = None  # "Which trials were pooled in the X meta-analysis?": the items of one paper
    if m:
        lead = next((g for g in ("m8", "m9", "m10", "m12") if m.group(g)), "")
        generic = lead == "m12" and m.group(lead).lower() not in PAPER_KINDS  # "are there tools that ...?": any paper
        if generic:
            crit = m.group("c12")
        else:
            crit = f"{m.group(lead)} {m.group('c' + lead[1:])}" if lead else next((g for g in m.groups() if g), "")
        crit = " ".join(crit.split())
        crit = re.sub(r"^(?:(?:in|from|across) (?:the |this |my |our )?(?:corpus|collection|index|library|abstracts) "
                      r"|here )?(?:that |which |who |to |about |on |in |of )?", "", crit, flags=re.I).strip(" ,?")
        if generic:
            crit = re.sub(r"^(?:for|with)\s+", "", crit, flags=re.I)
        crit = _WHERE.sub("", crit)  # "What approaches to X are in the collection?": the collection is no criterion
        crit = _EXCEPT.sub("", crit).strip(" ,")  # what a listed paper must not be is no word it must hold
        return Kind.LIST, (), crit or q
    described = described_sides(q, links) if CUE.search(q) or WEAK_CUE.search(q) else ()
    if described:  # "compare the A vs B trial with the C study", "the X study and the Y one. What did each find?"
        # a paper named beside them is a side too ("the X one, the Y one, and Kite"), unless a description holds it
        inside = " ".join(norm(s.text) for s in described)
        named = [Side(link.name, link.paper_ids[:1]) for link in links if link.strong and norm(link.name) not in inside
                 and link.paper_ids[:1] not in [s.paper_ids[:1] for s in described if s.paper_ids]]
        return Kind.COMPARE, (*described, *named)[:MAX_SIDES], ""
    distinct: list[Link] = []
    for link in links:  # a term many abstracts use and none coins ("AUROC", "PCI") names no side
        if link.name not in shared and link.paper_ids[0] not in {d.paper_ids[0] for d in distinct}:
            distinct.append(link)
    choice = (re.match(r"^(?:which|who)\b", q, re.I) and coordinated(q, distinct, ("or",))
              if len(distinct) >= 2 else False)
    in_list = 2 <= len(distinct) <= 4 and listed(q, distinct)  # "How do A, B and C avoid ...?": each side asked
    if 2 <= len(distinct) <= 4 and (CUE.search(q) or choice or in_list
                                    or (WEAK_CUE.search(q) and coordinated(q, distinct))):
        # the coordinated phrases of a comparison frame are its sides; else the linked names (and described ones
        # in their list)
        return Kind.COMPARE, framed_sides(q, links) or with_described(q, distinct), ""
    # "how do A and the X model (B) decide ...?" (no comparison word): each side asked
    joint = joint_subject(q, distinct) if 2 <= len(distinct) <= 4 else ()
    if joint:
        return Kind.COMPARE, joint, ""
    if len(referents) >= 2 and (CUE.search(q) or WEAK_CUE.search(original)):
        labels = conversation.labels if conversation is not None else {}
        return Kind.COMPARE, tuple(Side(labels.get(p, p), (p,)) for p in referents[:4]), ""
    two = TWO_PAPERS.search(q) if len(distinct) < 2 else None
    described = " ".join(g for g in (two.group("pre"), two.group("post")) if g) if two else ""
    if described:  # "the two papers on X ...": the two papers that fit the description best
        return Kind.COMPARE, (Side(described), Side(described)), ""
    framed = framed_sides(q, links)
    if framed:
        return Kind.COMPARE, framed, ""
    m = DESCRIBED_PAIR.search(q) if len(distinct) < 2 else None
    if m and (CUE.search(q) or WEAK_CUE.search(q)
              or (m.start() == 0 and re.match(r"\s*(?:[:;]|\s[-\u2013\u2014]\s)", m.group("end")))):
        a, b = clean(m.group("a")), clean(m.group("b"))  # two descriptions side by side, each asked about
        if a and b:
            return Kind.COMPARE, (side_in(a, links), side_in(b, links)), ""
    topic = existence_topic(q) if not referents and not any(link.strong for link in links) else ""
    if topic:  # "Has anyone here used X?", "X - any papers?": the papers on X
        return Kind.LIST, (), topic
    return Kind.SINGLE, (), ""


# "how do ... / what did ... / are ...": a plural (or tense-only) auxiliary whose subject follows it
_PLURAL_AUX = re.compile(r"^(?:[^,?:;]{1,60},\s*)?(?:(?:how|what|which|why|where|when|in what ways?)"
                         r"(?:\s+[\w\-]+){0,3}?\s+)?(?:do|did|are|were|have|had|can|could|would)\s+", re.I)
# words that open a clause or a relation between two names, not a description of the second one
_RELATION = re.compile(r"\b(?:that|which|who|whose|than|to|from|with|without|by|on|in|into|of|for|against|over|"
                       r"when|while|if|because|vs\.?|versus|do|does|did|use|uses|used|is|are|was|were)\b", re.I)


def joint_subject(q: str, links: list[Link]) -> tuple[Side, ...]:
    """The sides when the question's names are the coordinated subject of one plural verb, each asked about: 'How
    do A and B decide ...?', 'What did A and the X model (B) use?', 'how do the diffusion-based A B entry and C
    bring in ...?' (names written side by side are one side, found by retrieval). () when a name follows a
    relation word ('How do A's results compare with B', 'do A on B') or the names are not coordinated.

    >>> from .linker import Link
    >>> q = "how do RTPrune and the remote sensing token compressor (UHR-BAT) decide which tokens to keep?"
    >>> joint_subject(q, [Link("RTPrune", 7, ("a",)), Link("UHR-BAT", 56, ("b",))])
    (Side(text='RTPrune', paper_ids=('a',)), Side(text='UHR-BAT', paper_ids=('b',)))
    >>> q = "For speed, how do the diffusion-based NTIRE UGC entry and HiTokSR bring in priors?"
    >>> joint_subject(q, [Link("NTIRE", 38, ("a",)), Link("UGC", 44, ("b",)), Link("HiTokSR", 58, ("c",))])
    (Side(text='diffusion-based NTIRE UGC entry', paper_ids=()), Side(text='HiTokSR', paper_ids=('c',)))
    >>> joint_subject("How do RTPrune's tokens relate to UHR-BAT?", [Link("RTPrune", 7, ("a",)),
    ...                                                               Link("UHR-BAT", 34, ("b",))])
    ()
    """
    m = _PLURAL_AUX.match(q)
    if not m or m.end() > links[0].start or len(q[m.end(): links[0].start].split()) > 3 \
            or _RELATION.search(q[m.end(): links[0].start]):
        return ()
    groups = [[links[0]]]
    for a, b in itertools.pairwise(links):
        between = q[a.start + len(a.name): b.start]
        if not between.strip(" -"):  # "NTIRE UGC": one phrase
            groups[-1].append(b)
        elif re.search(r"(?:^|\s|,)(?:and|&)\s|^\s*,", between, re.I) and not _RELATION.search(between) \
                and len(between.split()) <= 8:
            groups.append([b])
        else:
            return ()
    if len(groups) < 2:
        return ()
    span = q[m.end(): links[-1].start + len(links[-1].name)].strip()
    items = [i for i in re.split(r"\s*,\s*(?:and\s+)?|\s+(?:and|&)\s+", span) if i.strip()]
    if len(items) != len(groups):
        return ()
    return tuple(Side(g[0].name, g[0].paper_ids[:1]) if len(g) == 1 else Side(clean(item))
                 for item, g in zip(items, groups))[:MAX_SIDES]
