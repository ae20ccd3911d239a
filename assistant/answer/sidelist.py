"""A comparison's sides read as one coordinated list, whatever frame holds it.

The frames of `sides.py` each read one shape of comparison ("how does A differ from B", "A vs B: ..."). Asked
freely, a comparison puts its sides in any clause: after a lead ("Graph pruning: how do A, the B one and C
differ?"), after a colon ("Compare three pruning papers: the one that X, the one that Y, and Z."), as the subject
of a statement ("A and the B framework are both tested on C. How do they ...?"), or as "one X, another Y". This
reader looks in every clause for a list of two to four phrases that each start like a paper (a linked name, a
capitalised name, a determiner, "one"/"another"/"the other"), strips the words that frame the list ("how do",
"compare", "one paper") and cuts the last phrase where the clause's predicate begins ("... are both tested",
"... all push", "... differ in"). A number the question gives ("these three", "two papers") must match.

`question_kind` consults it as a second reading: it replaces the frames' sides only when it finds more of them,
and makes a comparison of a question the frames left single only when the question says its papers are several
(a comparison cue, "both", "each", "they").
"""

from __future__ import annotations

import re

from .linker import Link
from .nameforms import norm
from .phrasing import AUX, WH
from .sides import MAX_SIDES, Side, bracketed_name, clean, side_in
from .words import QUOTED_SPAN, is_english, is_word

_SEP = re.compile(r"(\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&|vs\.?|versus)\s+)", re.I)
_VS = re.compile(r"(\s+(?:vs\.?|versus)\s+)", re.I)
_CLAUSES = re.compile(r"[?;!]|:\s|\.\s|\s[-\u2013\u2014]\s")
# the words that open a clause before its list: "how do", "in what ways did", "compare", "contrast how", "both"
_OPENER = re.compile(
    r"^\s*(?:(?:so|and|but|now|also|then)\s*,?\s+)?(?:"
    rf"(?:(?:in what ways?|{WH})(?:\s+[\w\-]+){{0,3}}?\s+)?"  # ("which base models did", "how exactly do")
    rf"{AUX}\s+"
    r"|(?:compare|contrast)\s+(?:how\s+|what\s+|whether\s+|the approaches of\s+)?"
    r"|(?:both|between|across|among|of)\s+)", re.I)
_COMPARE_VERB = re.compile(r"(?<=[,\s])(?:compare|contrast)\s+(?=\S)", re.I)
_GROUP_LEAD = re.compile(r"^\s*(?:these|those|the|all)\s+(?:two|three|four)\b", re.I)  # "how do these three use ..."
# where a statement's or question's predicate begins after its subject list
_PREDICATE = re.compile(r"\s+(?:(?:are|were|do|did|have|had|can|could|would)\s+)?(?:both|all|each|respectively)\b"
                        r"|\s+(?:differ\w*|compare[sd]?|contrast(?:s|ed)?)\b", re.I)
# a phrase that starts a new side: a determiner, "one"/"another"/"the other", a capitalised word or a name
_START = re.compile(r"^(?i:the|a|an|one|another|other|this|that|both)\b|^[A-Z0-9]|^\S*[A-Z]|^\x00")  # (capitals: case)
_OPENS_DESCRIPTION = re.compile(r"^(?:the|one|another)\s", re.I)  # "the X paper", "one paper X", "another X"
_ONE_OF = re.compile(r"^(?:(?:the )?(?:one|paper|study|work)|another|the other|other)\s+"
                     r"(?:(?:paper|study|work|method|approach|model|article|abstract|one)s?\s+)?(?:(?:that|which|who)\s+)?",
                     re.I)
_COUNT = re.compile(r"\b(?:these|those|the|all)\s+(two|three|four)\b|\b(two|three|four|2|3|4)\s+(?:[\w\-]+\s+){0,4}?"
                    r"(?:papers|studies|works|methods|approaches|models|abstracts|systems|frameworks|articles)\b",
                    re.I)
_NUMBER = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4}
_WH = re.compile(rf"^(?:{WH}|whether)\b", re.I)
_ENDS_AUX = re.compile(rf"\b{AUX}\s+$", re.I)  # the opener ends on an auxiliary: a predicate follows the list
MAX_WORDS = 20  # a longer phrase is a clause, not a side
# a plural head the list's topics share: "the ECG papers on A, B, and C", "the three studies of A, B and C"
_PLURAL_HEAD = re.compile(r"^the\s+(?:(?:two|three|four)\s+)?(?P<head>(?:[\w\-]+\s+){0,3}?)(?:papers|studies|works|"
                          r"articles|abstracts)\s+(?:on|about|of|for|using)\s+(?P<first>\S.*)$", re.I)


def stated_count(q: str) -> int:
    """How many papers the question says it compares ("these three", "two federated learning papers"), or 0.

    >>> stated_count("How do these three handle noise: A, B and C?"), stated_count("Compare A and B.")
    (3, 0)
    """
    m = _COUNT.search(q)
    return _NUMBER[(m.group(1) or m.group(2)).lower()] if m else 0


def _items(clause: str, links: list[Link]) -> list[str]:
    """The phrases of one clause's coordinated list, or [] when the clause holds none."""
    verb = list(_COMPARE_VERB.finditer(clause))
    clause = clause[verb[-1].start():] if verb else clause  # "On hate speech, compare A, B and C"
    opener = _OPENER.match(clause)
    aux = bool(opener and _ENDS_AUX.search(opener.group(0)))
    body = clause[opener.end():] if opener else clause
    if _GROUP_LEAD.match(body):
        return []  # "how do these three use X" (the sides are in another clause)
    first_sep = _SEP.search(body)
    if not first_sep:
        return []
    end = _PREDICATE.search(body, first_sep.end())
    cut = bool(end)
    body = body[:end.start()] if end else body
    # "A with X and Y vs the one that Z": where the list says "vs", only "vs" separates its sides
    by_vs = bool(_VS.search(body))  # "vs" says each piece is a side, whatever its case ("text-to-unlearn vs DSG")
    parts = (_VS if by_vs else _SEP).split(body.strip())
    shared = _PLURAL_HEAD.match(parts[0].strip())
    if shared and len(parts) >= 5 and not any(_START.match(p.strip()) for p in parts[2::2]):
        # "the ECG papers on VAE generation, attention networks, and LightGBM": one head, a topic per paper
        head = " ".join(shared.group("head").split())
        return [f"{head} {t.strip()}".strip() for t in (shared.group("first"), *parts[2::2]) if t.strip()]
    items = [parts[0]] if parts[0].strip() else []
    for sep, piece in zip(parts[1::2], parts[2::2]):
        piece = piece.strip()
        if not piece:
            continue
        # a piece giving its name in a bracket is a side ("..., joint multi-token prediction (JTP), and ..."), unless
        # it ends a description ("the tool for reading and writing transcripts (Kite)": one side)
        linked = any(link.strong and len(link.name) > 1 and piece.lower().startswith(link.name.lower())
                     for link in links) or bool(bracketed_name(piece, links) and items
                                                and not _OPENS_DESCRIPTION.match(items[-1]))
        if items and not (_START.match(piece) or linked or by_vs):
            items[-1] += sep + piece  # "the tool for reading and writing": one phrase
        else:
            items.append(piece)
    if items and aux and not cut:  # "how do A and B tokens use X": the verb ends the last side
        items[-1] = re.split(r"\s+(?:use|uses|rely|relies|handle|handles|tackle|tackles|deal|deals|treat|treats|"
                             r"improve|improves|approach|approaches|address|addresses|choose|chooses|decide|decides|"
                             r"define|defines|get|gets|measure|measures|report|reports)\b", items[-1], maxsplit=1)[0]
    return [i.strip(" ,") for i in items if i.strip(" ,")]


def _name_like(token: str) -> bool:
    """A token that reads as a name, not as a word opening a clause: an inner capital or a digit ("KORMo",
    "GPT-4o", "Shoes-of-Others"), a quoted title, or a capitalised token that is no English word ("Mi:dm"). (A
    name written in lower case counts where it links: `_side_like`.)"""
    core = token.strip("'\"(),")
    return ("\x00" in token or bool(re.search(r".[A-Z]|\d", core))
            or (core[:1].isupper() and not is_english(core.lower()) and not is_word(core)))


def _side_like(item: str, links: list[Link]) -> bool:
    """A phrase that names or describes a paper: a linked name heads it, it opens like a description ("the ...",
    "one paper ...", "another ..."), or its first token reads as a name (`_name_like`)."""
    words = item.split()
    if not words or len(words) > MAX_WORDS or _WH.match(item):
        return False
    if any(link.strong and len(link.name) > 1 and item.lower().startswith(link.name.lower()) for link in links):
        return True
    if bracketed_name(item, links) or any(norm(link.name) == norm(item) for link in links):
        return True  # "joint multi-token prediction (JTP)": a name written out, then given; "text-to-unlearn"
    if _OPENS_DESCRIPTION.match(item):
        return len(words) >= 2
    return _name_like(words[0])


def _described(text: str) -> str:
    """ "one arguing that X" -> "arguing that X", "another builds Y" -> "builds Y" (after `clean`)."""
    rest = _ONE_OF.sub("", text)
    return rest if rest != text and len(rest.split()) >= 2 else text


def listed_sides(q: str, links: list[Link]) -> tuple[Side, ...]:
    """The sides of the first clause holding a coordinated list of two to four paper-like phrases (see the module
    doc); () when none does, or when the count the question states differs.

    >>> [s.text for s in listed_sides("Token pruning: how do FastV, the one that merges tokens by similarity, "
    ...                               "and the 4-bit study with 9 models differ in speed?", [])]
    ['FastV', 'merges tokens by similarity', '4-bit study with 9 models']
    >>> [s.text for s in listed_sides("Compare three caching papers: the one that evicts by age, the one that "
    ...                               "keeps heavy hitters, and the one arguing that caches hurt recall.", [])]
    ['evicts by age', 'keeps heavy hitters', 'arguing that caches hurt recall']
    >>> [s.text for s in listed_sides("Kaptor and the planner that uses a learned graph with beam search are both "
    ...                               "tested on MazeBench and SokoBench. How do they plan?", [])]
    ['Kaptor', 'planner that uses a learned graph with beam search']
    >>> [s.text for s in listed_sides("Two robotics papers: one learns from videos, the other uses teleoperation. "
    ...                               "How does each collect data?", [])]
    ['learns from videos', 'uses teleoperation']
    >>> [s.text for s in listed_sides("Speech tools: how do Zorvo, the tool for reading and writing transcripts, "
    ...                               "and Kaptor differ in cost?", [])]  # a piece not starting like a side goes on
    ['Zorvo', 'tool for reading and writing transcripts', 'Kaptor']
    >>> [s.text for s in listed_sides("How do these three cache keys: Kaptor, Zelvo and Quillet?", [])]
    ['Kaptor', 'Zelvo', 'Quillet']
    >>> listed_sides("How do these three cache keys: Kaptor and Zelvo?", [])  # the count says three
    ()
    >>> listed_sides("What accuracy does Kaptor reach on MazeBench and on SokoBench?", [])
    ()
    >>> [s.text for s in listed_sides("how do the ECG papers on conditional VAE generation, hierarchical attention "
    ...                               "networks, and heartbeat classification differ in goal?", [])]
    ['ECG conditional VAE generation', 'ECG hierarchical attention networks', 'ECG heartbeat classification']
    """
    quoted = [m.group(0) for m in QUOTED_SPAN.finditer(q)]  # a quoted title is one phrase, whatever it holds
    masked = QUOTED_SPAN.sub(lambda m: f"\x00{quoted.index(m.group(0))}\x00", q)
    want = stated_count(q)
    start = 0
    for m in [*_CLAUSES.finditer(masked), None]:
        stop = m.start() if m else len(masked)
        clause = masked[start:stop]
        start = m.end() if m else stop
        items = _items(clause, links)
        if (want and len(items) == want + 1 and _COUNT.search(items[0]) and not _WH.match(items[0])
                and all(map(_OPENS_DESCRIPTION.match, items[1:]))):
            items = items[1:]  # "There are two X papers here, one on A and one on B": the lead only counts them
        if not 2 <= len(items) <= MAX_SIDES or not all(_side_like(i, links) for i in items):
            continue
        if want and len(items) != want:
            continue
        texts = [re.sub(r"\x00(\d+)\x00", lambda t: quoted[int(t.group(1))], i) for i in items]
        texts = [_described(clean(t)) for t in texts]
        if len(texts) < 2 or not all(texts) or len({norm(t) for t in texts}) < len(texts):
            continue
        return tuple(side_in(t, links) for t in texts)
    return ()
