"""The sides of a comparison: which phrases of the question are its sides, and which paper each names.

A side is a phrase the question coordinates ("A vs B", "A, B and C", "the A one or the B one"). A name the
corpus links strongly to a paper (its label head or a name its abstract defines) gives that paper; any other
phrase is a description that retrieval searches for ("the oestrogen receptor SNP study"), even when it holds a
term some abstract repeats. Terms outside the coordinated phrases ("...: which is cheaper per QALY?") are never
sides (`framed_sides`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from .linker import Link
from .nameforms import norm
from .phrasing import COMPARE_RX, OPENER, REPORT, SIDES_END, TWO_PAPERS
from .words import FUNCTION_WORDS, QUOTED_SPAN


@dataclass(frozen=True)
class Side:
    text: str  # the name or description as written
    paper_ids: tuple[str, ...] = ()  # linked papers (empty: retrieve by the text)


MAX_SIDES = 4
_ITEMS = re.compile(r"(\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus)\s+)", re.I)
# where a side's clause ends: a colon, a question mark, a dash, the end of its sentence ("Orca vs the pruning paper.
# Which one ...?"), or the word that asks of each side
_CLAUSE_END = re.compile(r"\s*(?:[:;?]|\s[-\u2013\u2014]\s|\.\s+(?=(?-i:[A-Z]))).*$|\s+(?:each|both|respectively)\b.*$",
                         re.S | re.I)
# an item that starts a new side: a determiner, a capitalised word or a name ("the B cohort", "Orca", "GPT-4o")
_SIDE_START = re.compile(r"^(?:[Tt]he|[Aa]n?|[Oo]ne|[Bb]oth)\b|^[A-Z0-9]|^\S*[A-Z]")
# "the follow-up of the A study": an attribute asked of the side, not part of it
_ATTRIBUTE_OF = re.compile(r"^(?!(?:the|a|an)\s)[\w\-]+(?:\s+[\w\-]+){0,2}\s+(?:of|in|for)\s+(?=the\s)", re.I)


def split_items(text: str) -> list[str]:
    """A coordinated list's items ("A, B and C", "A vs B", "A, or B"). A piece that does not start like a side
    (a determiner, a capital, a name) continues the item before it: "the farmers' distress and disability study"
    is one item, and so is "MemX on how they organise and retrieve memory".

    >>> split_items("the A study, the B cohort and the C trial")
    ['the A study', 'the B cohort', 'the C trial']
    >>> split_items("the SNP study on sample size and main finding")
    ['the SNP study on sample size and main finding']
    """
    parts = _ITEMS.split(text.strip())
    items = [parts[0]] if parts[0].strip() else []
    for sep, piece in zip(parts[1::2], parts[2::2]):
        piece = piece.strip()
        if not piece:
            continue
        if items and not _SIDE_START.match(piece):
            items[-1] += sep + piece
        else:
            items.append(piece)
    return [i.strip() for i in items if i.strip()]


def framed_sides(q: str, links: list[Link]) -> tuple[Side, ...]:
    """The sides of a comparison whose frame names them ("How does A differ from B", "A vs B: ...", "Which of
    ..., A or B, ...?"): each coordinated phrase is a side, named when a strong link heads it, else described.
    A side never runs past its clause (":", ";", "?", " - "). () when no frame matches or a phrase is empty.

    >>> framed_sides("IADPSG screening vs the CIPT incentives: which is cheaper per QALY?", [])
    (Side(text='IADPSG screening', paper_ids=()), Side(text='CIPT incentives', paper_ids=()))
    >>> [s.text for s in framed_sides("Compare size and follow-up of the A study, the B cohort and the C trial.", [])]
    ['A study', 'B cohort', 'C trial']
    >>> [s.text for s in framed_sides("How do the 'Fast vs. Exact Pricing' paper and Orca differ?", [])]
    ["'Fast vs. Exact Pricing'", 'Orca']
    """
    quoted = [m.group(0) for m in QUOTED_SPAN.finditer(q)]  # a quoted title is one piece, whatever it holds ("vs.")
    masked = QUOTED_SPAN.sub(lambda m: f"\x00{quoted.index(m.group(0))}\x00", q)
    for rx in COMPARE_RX:
        m = rx.match(masked)
        if not m:
            continue
        # "Compare how three papers judge: A, B and C": what comes before a colon in the first side is a lead
        a, b = _CLAUSE_END.sub("", m.group("a").rsplit(": ", 1)[-1]), _CLAUSE_END.sub("", m.group("b"))
        if m.group("a").endswith(a):  # (the first side's clause runs up to the frame's word: it may run on past it)
            a, b = description_runs_on(a, b, masked[m.end("a"):m.start("b")])
        items = [_ATTRIBUTE_OF.sub("", i) for i in (*split_items(a), *split_items(b))]
        shaped = [i for i in items[:-1] if _SIDE_START.match(i)] + items[-1:]  # (the last item ends the list)
        if len(items) > 2 and len(shaped) >= 2:  # "Compare cohort size and follow-up of the A, the B and the C"
            items = shaped
        texts = [re.sub(r"\x00(\d+)\x00", lambda t: quoted[int(t.group(1))], clean(i)) for i in items]
        if len(texts) < 2 or not all(texts):
            return ()
        return tuple(side_in(t, links) for t in texts[:MAX_SIDES])
    return ()


_PAPER_NOUN = r"(?:paper|work|study|one|method|approach|model|framework|abstract|article|technique|system)s?"
# "the paper on X", "the one based on Y", "the work that proposes Z": the description is what follows
_VERB_OF = (r"(?:on|about|for|with|into|based on|built on|using|uses|use|proposing|proposes|introducing|introduces|"
            r"presenting|presents|studying|studies|applying|applies)")
# a side given by a description of what its paper does: "the paper that decomposes the reward", "the one using X"
_DOES = re.compile(rf"^(?:the|a|an|one)\s+(?:[\w\-]+\s+){{0,2}}?{_PAPER_NOUN}\s+(?:that|which|who|where|{_VERB_OF})\b",
                   re.I)
# where the next side starts inside what followed the frame's first "and / with / to / vs"
_NEXT_SIDE = re.compile(r",?\s+(?:and|with|to|vs\.?|versus)\s+(?=(?:the|a|an|one|another)\s)", re.I)


def description_runs_on(a: str, b: str, sep: str) -> tuple[str, str]:
    """A frame splits at its first "and / with / to": when the first side describes what its paper does and the
    second does not start like a side ("the paper that decomposes the reward | to | reduce sycophancy with the one
    stress-testing ..."), the description went on, and the second side starts at the next such word before a
    determiner. Otherwise (a, b) as they are: "keepkv | with | logquant" (names in lower case), "the one that
    merges | and | the one that prunes".

    >>> description_runs_on("the paper that decomposes the reward", "reduce sycophancy with the one that tests", " to ")
    ('the paper that decomposes the reward to reduce sycophancy', 'the one that tests')
    >>> description_runs_on("keepkv", "logquant with the most memory", " with ")
    ('keepkv', 'logquant with the most memory')
    >>> description_runs_on("the one that merges", "the one that prunes", " and ")
    ('the one that merges', 'the one that prunes')
    """
    nxt = _NEXT_SIDE.search(b)
    if not _DOES.match(a) or _SIDE_START.match(b) or not nxt:
        return a, b
    return f"{a}{sep}{b[:nxt.start()]}", b[nxt.end():]


# a paper given by a description headed by what kind of report it is: "the PK/PD study in MRSA pneumonia", "the
# halofantrine one", "Mosaic vs Perimount randomized study" (opening the question), "the 10-year case review"
_REPORT = rf"(?:{REPORT}|one)"
_SIDE_ENDS = (r"(?:and|with|vs\.?|versus|compared?|each|both|concluded?|found|finds?|reports?|reported|says?|said|"
              r"differ|measured?|showed?|shows|did|do|does)")  # where a described side ends
_DESCRIBED = re.compile(
    r"(?:^|(?<=\s))(?P<np>(?:the\s+|^(?!(?:compare|contrast|how|what|which|who|why|when|where|do|does|did|is|are|was|"
    r"were|in|for|across|between|among|of)\b))(?!(?:two|2|three|3|both|other|same|first|second|third|former|latter|"
    r"last)\b)"
    rf"(?:[^\s,;:?.]+\s+){{0,8}}?{_REPORT}\b"
    r"(?:\s+(?:in|of|from|on|that|which|with|among|at|for|by|using|comparing|assessing)\s+"
    rf"(?:(?!\s{_SIDE_ENDS}\s|\s[-\u2013\u2014]\s)[^,;:?])*?)??)"
    rf"(?=\s*(?:[,;:?]|\.(?:\s|$)|$|\s[-\u2013\u2014]\s)|\s+{_SIDE_ENDS}\b)", re.I)


def described_sides(q: str, links: list[Link]) -> tuple[Side, ...]:
    """Two to four papers each given by a description headed by its kind of report ("Compare the dynamic hip screw
    vs nail randomized trial with the Gamma3 matched study", "the topical NAC perforation study and the
    halofantrine one"): each description is a side, whatever coordinates them; () for fewer than two.

    >>> [s.text for s in described_sides("Compare the A vs B randomized trial with the C matched study: designs?", [])]
    ['A vs B randomized trial', 'C matched']
    >>> [s.text for s in described_sides("How do the PK study in MRSA pneumonia and the MIC study differ?", [])]
    ['PK study in MRSA pneumonia', 'MIC']
    >>> [s.text for s in described_sides("The two cell papers, the colour one and the bridge one: what does each do?",
    ...                                  [])]
    ['colour cell', 'bridge cell']
    >>> described_sides("In the X trial, what did each group receive?", [])
    ()
    """
    found = [m.group("np") for m in _DESCRIBED.finditer(q)]
    two = TWO_PAPERS.search(q)  # "the two cell segmentation papers, the four-colour one and the ...": the group
    group = " ".join(g for g in (two.group("pre"), two.group("post")) if g) if two else ""
    texts = [clean(t) + (f" {group}" if group and re.search(r"\bone$", t, re.I) else "") for t in found]
    if not 2 <= len(texts) <= MAX_SIDES or not all(texts) or len({norm(t) for t in texts}) < len(texts):
        return ()
    return tuple(side_in(t, links) for t in texts)


# words that frame a comparison rather than say what its papers share
_FRAME = frozenset("compare compared comparing contrast contrasted differ differs difference differences each both one "
                   "ones two three four study studies paper papers work works trial trials find found finds report "
                   "reported reports say says said conclude concluded show showed shows measure measured look looked "
                   "tell respectively versus vs".split())


def shared_context(q: str, sides: list[str]) -> str:
    """What the question says of every side, outside the sides' own phrases ("staple line leaks after sleeve
    gastrectomy: how do the NG tube study and the registry analysis compare on leak rates?"): its content words.

    >>> shared_context("statin users: compare the stroke study and the AF study - which showed a benefit?",
    ...                ["stroke", "AF"])
    'statin users benefit'
    """
    rest = q
    for s in sorted(sides, key=len, reverse=True):
        rest = re.sub(re.escape(s), " ", rest, flags=re.I)
    words = [w for w in re.findall(r"[A-Za-z][\w\-/']*", rest)
             if len(w) > 2 and w.lower() not in FUNCTION_WORDS and w.lower() not in _FRAME]
    return " ".join(dict.fromkeys(words))


def lead_context(q: str, sides: list[str]) -> str:
    """What a lead clause says of the sides before the first is named: the group they belong to ("statin users:
    compare the stroke study and the AF study", "Three undescended testis papers: one on ..."). The rest is mostly
    what is asked of each ("how did each gather evidence?", "Which base LLMs did ..."), which says nothing of which
    paper a side is.

    >>> lead_context("statin users: compare the stroke study and the AF study - which showed a benefit?",
    ...              ["stroke", "AF"])
    'statin users'
    >>> lead_context("Compare the survey from China and the vehicle experiment: how big was each sample?",
    ...              ["survey from China", "vehicle experiment"])
    ''
    >>> lead_context("Which base LLMs did the routing paper and the AF paper each tune?", ["routing", "AF"])
    ''
    """
    starts = [m.start() for s in sides if s for m in [re.search(rf"(?<!\w){re.escape(s)}(?!\w)", q, re.I)] if m]
    before = q[: min(starts)] if starts else ""
    lead = re.match(r"^(.*?)(?::\s|\s[-\u2013\u2014]\s)", before)  # a lead clause, not the question's own words
    return shared_context(lead.group(1), []) if lead else ""


def side_in(text: str, links: list[Link]) -> Side:
    """A side named by a link: the whole phrase, or a strong link heading it ("Orca on FEMNIST", "Lumen for vision
    transformers"); otherwise a description retrieval searches for, names inside it included ("Spanish CYP2D6
    breast cancer study": an acronym many abstracts define does not pick the paper)."""
    exact = [link for link in links if norm(link.name) == norm(text)]
    if exact:
        return Side(exact[0].name, exact[0].paper_ids[:1])
    head = [link for link in links if link.strong and re.match(rf"{re.escape(link.name)}(?!\w)", text)]
    head = head or bracketed_name(text, links)
    return Side(head[0].name, head[0].paper_ids[:1]) if head else Side(text)


_BRACKET_END = re.compile(r"\(([^()]+)\)\s*$")


def bracketed_name(text: str, links: list[Link]) -> list[Link]:
    """The name a phrase gives its paper in a closing bracket ("joint multi-token prediction (JTP)", "the
    projection-aware steering paper (StTP/StMP)"): a strong link that is one of the bracket's names, or none.

    >>> from .linker import Link
    >>> [k.name for k in bracketed_name("the steering paper (StTP/StMP)", [Link("StTP", 20, ("a",))])]
    ['StTP']
    >>> bracketed_name("the steering paper (with StTP)", [Link("StTP", 25, ("a",))])
    []
    """
    m = _BRACKET_END.search(text)
    names = {norm(n) for n in re.split(r"\s*[/,;]\s*", m.group(1))} if m else set()
    return [link for link in links if link.strong and norm(link.name) in names]


def coordinated(q: str, links: list[Link], words: tuple[str, ...] = ("and", "or", "&")) -> bool:
    """'A and B', 'A, B and C', 'A or B': the names stand side by side."""
    a, b = links[-2], links[-1]
    between = q[a.start + len(a.name): b.start]
    return bool(re.fullmatch(rf"\s*,?\s*(?:{'|'.join(map(re.escape, words))})\s*", between, re.I))


def with_described(q: str, links: list[Link]) -> tuple[Side, ...]:
    """The linked sides, plus the described ones standing in the same list ("Contrast A, B and the
    dynamic-pooling language model: ..."), in the order written (at most 4)."""
    sides = [Side(link.name, link.paper_ids[:1]) for link in links]
    run = re.split(r"[:?;]|\.\s", q[links[0].start:], maxsplit=1)[0]
    items = [i.strip() for i in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus)\s+", run) if i.strip()]
    if items:  # "... and the global-batch paper all deal with MoE": the last item ends where its verb begins
        items[-1] = re.split(rf"\s+{SIDES_END}\b", items[-1])[0]
    linked = {norm(link.name) for link in links}
    if not items or norm(items[0]) not in linked or not any(norm(i) in linked for i in items[1:]):
        return tuple(sides)  # the names are not one list
    described = [clean(i) for i in items if not any(k in norm(i) for k in linked) and 1 <= len(i.split()) <= 8
                 and not _WH.match(i)]
    return tuple(sides + [Side(d) for d in described if d])[:4]


_WH = re.compile(rf"^{OPENER}\b", re.I)


def listed(q: str, links: list[Link]) -> bool:
    """Every linked name stands in one list: 'A and B', 'A, B and C', 'A, B, or C', 'A, B and the X paper'."""
    end = links[-1].start + len(links[-1].name)
    described_after = bool(re.match(r"\s*,?\s*(?:and|or)\s+(?:the|a|an)\s+\S", q[end:], re.I))  # "..., and the X paper"
    for a, b in itertools.pairwise(links):
        between = q[a.start + len(a.name): b.start]
        last = b is links[-1] and not described_after
        if not re.fullmatch(r"\s*,?\s*(?:and|or|&)\s*" if last
                            else r"\s*,\s*|\s*(?:and|&)\s*" if len(links) == 2 else r"\s*,\s*", between, re.I):
            return False
    return True


_DESCRIBED_HEAD = re.compile(rf"^{_PAPER_NOUN}\s+(?:(?:that|which|who)\s+(?:(?:is|are|was)\s+)?(?:{_VERB_OF}\s+)?|"
                             rf"{_VERB_OF}\s+)(?=\S)", re.I)
_DESCRIBED_TAIL = re.compile(r"(?<=\S)\s+(?:paper|work|study|abstract|article|one)s?$", re.I)  # "the X paper"


def clean(s: str) -> str:
    """A comparison side as retrieval should search it: a name, or a paper's description without the words that
    say it is a paper.

    >>> [clean(s) for s in ("the paper on speculative decoding", "the one based on Gaussian splatting",
    ...                      "the token-pruning paper", "a method that uses a server-side generator", "Orca",
    ...                      "the one that distils a server ensemble")]  # doctest: +NORMALIZE_WHITESPACE
    ['speculative decoding', 'Gaussian splatting', 'token-pruning', 'a server-side generator', 'Orca',
     'distils a server ensemble']
    """
    s = re.sub(r"^(?:(?:is |that is |which is )?(?:called|named|termed|dubbed) |(?:is |that is )?(?:for|on|about) )",
               "", s.strip(" ?.,"), flags=re.I)
    s = re.sub(r"^(?:the |a |an )", "", s.strip(" ?.,"), flags=re.I).strip()
    core = _DESCRIBED_TAIL.sub("", _DESCRIBED_HEAD.sub("", s)).strip()
    return core if core and core.lower() not in _PAPER_NOUN else s
