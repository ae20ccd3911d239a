"""Question understanding: what kind of question, about which papers, asking for which detail.

`analyze(question, conversation, lexicon)` returns a typed `Question`:

- `kind`: SINGLE (one answer), COMPARE (2-4 sides, one table row each) or LIST ("which papers ...",
  "are there abstracts on ...": every matching paper).
- `sides`: for comparisons, the papers the question names (linked through the corpus lexicon, so
  "A vs B vs C", "what does A add on top of B", "which is faster, A or B", "what do A and B have in
  common" all find their sides), or the phrases around "and"/"vs" when a side is a description
  ("clustering-based personalised FL") rather than a name.
- `topic`: the papers the question is about (named, or referred to by a follow-up); the answer's
  first citation comes from them.
- `unlinked`: names in the subject position of the question ("How does R-CNN ...", "What does YOLOX
  change ...") that no paper of the corpus is about, with their status ('passing' or 'missing'): a
  near-miss question is declined instead of answered from the paper that mentions the name.
- `details`, `asked`, `numeric`: what the answer must contain: named terms other than the topic
  ("FID", "MVBench", "LLaVA-NeXT"), the asked noun phrase ("batch size", "word error rate"), and
  whether a number is asked for ("how much", "what fraction"); `more` holds what further clauses ask
  ("Which models was X tested with, and over how many benchmarks?"). `answerable.py` checks them against
  the topic paper's abstract.
- `parts`: for lists, the named parts of the criterion ("FEMNIST"): a listed paper must match all.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from enum import Enum

from .conversation import Conversation
from .figures import CARDINAL
from .linker import Lexicon, Link, named_terms, norm
from .phrasing import (
    ASKED,
    ASKED_TAIL,
    CLAUSE,
    COMPARE_RX,
    CUE,
    DESCRIBED_PAIR,
    LEAD,
    LIST,
    MEASURE_ASKED,
    MEASURED,
    NOT_NOUN,
    NUMERIC,
    OPENER,
    TOPIC_AT,
    TWO_PAPERS,
    WEAK_CUE,
)
from .words import FUNCTION_WORDS


class Kind(str, Enum):  # noqa: UP042 - StrEnum would turn str() and f"{kind}" from "Kind.LIST" into "list"
    SINGLE = "answer"
    COMPARE = "compare"
    LIST = "list"


@dataclass(frozen=True)
class Side:
    text: str  # the name or description as written
    paper_ids: tuple[str, ...] = ()  # linked papers (empty: retrieve by the text)


@dataclass(frozen=True)
class Ask:
    """One thing a question asks for: a noun phrase ("batch size", "" when none) and whether a value is asked."""

    asked: str = ""
    numeric: bool = False
    measure: str = ""  # "duration" ("how long ...?"): the abstract must state a time or length, not any number


@dataclass(frozen=True)
class Question:
    text: str
    standalone: str
    kind: Kind = Kind.SINGLE
    sides: tuple[Side, ...] = ()
    criterion: str = ""
    parts: tuple[str, ...] = ()
    topic: tuple[str, ...] = ()
    topic_names: tuple[str, ...] = ()
    topic_placed: bool = False  # the topic is named in the subject position (or referred to)
    topic_strong: tuple[str, ...] = ()  # topic papers named by a label head or a defined name
    unlinked: tuple[tuple[str, str], ...] = ()
    details: tuple[str, ...] = ()
    asked: str = ""
    numeric: bool = False
    measure: str = ""  # what kind of value is asked ("duration"), see Ask
    more: tuple[Ask, ...] = ()  # what the further clauses ask ("..., and over how many benchmarks?")
    followup: bool = False
    links: tuple[Link, ...] = field(default=(), repr=False)


def analyze(text: str, conversation: Conversation | None, lexicon: Lexicon) -> Question:
    q = lexicon.restore_case(text.strip())  # "what fid does diffmoe reach?" reads as its capitalised form
    own_links = lexicon.link(q)
    resolved = conversation.resolve(q) if conversation is not None and conversation.turns else None
    followup = bool(resolved and resolved.referents) and not (own_links and resolved.standalone == q)
    if followup and any(link.strong for link in _topic(q, own_links, lexicon)[0]) and not set(resolved.referents) & {
            p for link in own_links for p in link.paper_ids}:
        followup = False  # a paper named as the question's subject beats "it" and the conversation's focus
    standalone = resolved.standalone if followup else q
    links = _drop_aliases(standalone, lexicon.link(standalone) if followup else own_links)
    referents = tuple(resolved.referents) if followup else ()
    placed, topic_links, unlinked = _topic(standalone, links, lexicon)
    # "DiffMoE FID on ImageNet?": a name written right after another is a property of it, not a second topic
    topic_links = [b for i, b in enumerate(topic_links)
                   if not (i and re.fullmatch(r"\s*(?:'s|’s)?\s*",
                                              standalone[topic_links[i - 1].start + len(topic_links[i - 1].name):
                                                         b.start]))]
    if any(link.strong for link in topic_links):  # "the FID of DiffMoE": a paper's own name beats a shared term
        topic_links = [link for link in topic_links if link.strong]
    pairs = {link.paper_ids[0]: link.name for link in reversed(topic_links)}
    pairs = {p: pairs[p] for p in dict.fromkeys(link.paper_ids[0] for link in topic_links)}
    topic_ids = referents or tuple(pairs)
    strong = tuple(p for p in topic_ids
                   if referents or any(link.strong for link in topic_links if link.paper_ids[0] == p))
    topic_names = tuple(conversation.labels.get(p, p) for p in referents) if referents else tuple(pairs.values())
    kind, sides, criterion = _kind(standalone, links, referents, conversation, original=q)
    details = tuple(t for t in named_terms(standalone)
                    if norm(t) not in {norm(n) for n in topic_names} and lexicon.status(t) != "common"
                    and not any(norm(t) in norm(n) or norm(n) in norm(t) for n in topic_names)
                    # "Does X beat GPT-4o?": X's abstract must name it
                    and (topic_ids or t not in {u for u, _ in unlinked}))
    # "What gain does X give for Swahili?", "Does X beat Whisper?": a capitalised word no paper is about is a detail
    if topic_ids:
        details += tuple(t for t in named_terms(standalone, capitalised=True)
                         if t not in details and " " not in t and len(t) >= 4
                         and lexicon.status(t) in ("missing", "passing") and not lexicon.is_common(t)
                         and not any(norm(t) in norm(n) for n in topic_names))  # (a word of its name)
    parts = tuple(t for t in named_terms(criterion) if not lexicon.is_common(t)  # "in LLMs or VLMs": either will do
                  and not re.search(rf"(?:\bor\s+{re.escape(t)}\b|\b{re.escape(t)}\s+or\b|/\s*{re.escape(t)}|"
                                    rf"{re.escape(t)}\s*/)",
                                    criterion)) if kind is Kind.LIST else ()
    lead = LEAD.match(standalone)
    asking = lead.group("ask") if lead else standalone  # "... - which corpus?": the asked part is after the dash
    clauses = [c for c in CLAUSE.split(asking) if c and c.strip(" ,?")] or [asking]
    first, *more = [_ask(c, topic_names, fragment=i > 0 or bool(lead)) for i, c in enumerate(clauses)]
    return Question(
        text=q, standalone=standalone, kind=kind, sides=sides, criterion=criterion, parts=parts,
        topic=topic_ids if kind is Kind.SINGLE else (), topic_names=topic_names, unlinked=unlinked,
        topic_placed=bool(placed or referents), topic_strong=strong,
        details=details, asked=first.asked, numeric=first.numeric, measure=first.measure,
        more=tuple(a for a in more if a.asked or a.numeric),
        followup=followup, links=tuple(links),
    )


def _ask(clause: str, topic_names: tuple[str, ...], fragment: bool = False) -> Ask:
    """What one clause asks for: its noun phrase and whether a value is asked (a later clause may be a
    fragment: "..., and over how many benchmarks?")."""
    c = clause.strip().rstrip("?").strip()
    m = ASKED.match(c) or (ASKED_TAIL.match(c) if fragment else None)
    asked = NOT_NOUN.sub("", next((g for g in (m.groups() if m else ()) if g), "")).strip()
    bounded = bool(m and m.re is ASKED and (m.group("a") or m.group("c")))  # ends at its auxiliary ("which X did")
    if not bounded:  # "what real data backed the tests": "real data" (not "self-supervised pretrained backbone did")
        asked = re.sub(r"^(\S+(?:\s+\S+)*?)\s+[a-z]+(?<!e)ed(?=\s|$).*$", r"\1", asked)
    asked = re.sub(rf"^(?:{CARDINAL}|\d+)\s+(?=\S)", "", asked, flags=re.I)  # "which two LLMs"
    if asked and norm(asked) in {norm(n) for n in topic_names}:
        asked = ""
    measure = next((m for m, rx in MEASURE_ASKED.items() if rx.search(c)), "")  # what kind of value the clause asks
    return Ask(asked, bool(NUMERIC.search(c) or (asked and MEASURED.search(c)) or measure), measure)


def _drop_aliases(q: str, links: list[Link]) -> list[Link]:
    """'MM-LG (Multimodal Learngene)', 'Multimodal Learngene (MM-LG)': the bracketed name is the same paper's."""
    out: list[Link] = []
    for link in links:
        if out:
            prev_end = out[-1].start + len(out[-1].name)
            m = re.fullmatch(r"\s*\([^()]*", q[prev_end: link.start])
            if m:
                continue
        out.append(link)
    return out


def _topic(q: str, links: list[Link], lexicon: Lexicon) -> tuple[list[Link], list[Link], tuple[tuple[str, str], ...]]:
    """The links in the question's subject position (all links when none is), and the subject-position
    names that no paper is about."""
    at: list[str] = [m.group("t") for rx in TOPIC_AT for m in rx.finditer(q)]
    spans = set()
    for phrase in at:
        toks = re.findall(r"[^\s,?]+", phrase)
        spans |= {norm(" ".join(toks[i:j])) for i in range(len(toks)) for j in range(i + 1, len(toks) + 1)}
    in_pos = [link for link in links if norm(link.name) in spans]
    unlinked = []
    for term in _name_runs(at, lexicon):
        if any(norm(term) == norm(link.name) or norm(term) in norm(link.name) for link in links):
            continue
        if " " in term:  # "Selective Token Pooling": a multi-word name is one name, judged whole
            status = lexicon.phrase_status(term)
            if status in ("passing", "missing") and not all(lexicon.is_common(w) for w in term.split()):
                unlinked.append((term, status))  # (not ordinary capitalised words: "Large Language Models")
            continue
        status = lexicon.status(term)
        if status in ("passing", "missing") and len(norm(term)) >= 3 and not lexicon.is_common(term):
            unlinked.append((term, status))
    return in_pos, (in_pos or links), tuple(unlinked)


def _name_runs(phrases: list[str], lexicon: Lexicon) -> list[str]:
    """The names in subject-position phrases, consecutive capitalised words kept together as one name
    ("How does Graph Token Mixer work?" names "Graph Token Mixer", not "Mixer")."""
    out: list[str] = []
    for phrase in phrases:
        terms = named_terms(phrase, capitalised=True, initial=True)
        toks = re.findall(r"[^\s,?()]+", phrase)
        run: list[str] = []
        for tok in [*toks, ""]:
            t = tok.rstrip(".:;!'’s") if tok.endswith(("'s", "’s")) else tok.rstrip(".:;!")
            if t and t in terms and not (t.lower() in FUNCTION_WORDS and not run):
                run.append(t)
                continue
            if run:
                out.append(" ".join(run))
            run = []
    return list(dict.fromkeys(out))


def _kind(q: str, links: list[Link], referents: tuple[str, ...], conversation,
          original: str = "") -> tuple[Kind, tuple[Side, ...], str]:
    m = LIST.match(q)
    terse = m and next((g for g in ("c5", "c6", "c7") if m.group(g)), "")
    if terse and (any(link.strong and link.name in q[m.start(terse):] for link in links)  # "anything on the cost of X?"
                  # "which ones ...?" of the last answer
                  or (terse == "c5" and conversation is not None and conversation.turns)):
        m = None
    if m:
        crit = f"{m.group('m8')}{m.group('c8')}" if m.group("m8") else next((g for g in m.groups() if g), "")
        crit = " ".join(crit.split())
        crit = re.sub(r"^(?:in the corpus |here )?(?:that |which |who |to |about |on |in |of )?", "", crit).strip(" ,?")
        return Kind.LIST, (), crit or q
    distinct: list[Link] = []
    for link in links:
        if link.paper_ids[0] not in {d.paper_ids[0] for d in distinct}:
            distinct.append(link)
    choice = (re.match(r"^(?:which|who)\b", q, re.I) and _coordinated(q, distinct, ("or",))
              if len(distinct) >= 2 else False)
    listed = 2 <= len(distinct) <= 4 and _listed(q, distinct)  # "How do A, B and C avoid ...?": each side asked
    if 2 <= len(distinct) <= 4 and (CUE.search(q) or choice or listed
                                    or (WEAK_CUE.search(q) and _coordinated(q, distinct))):
        return Kind.COMPARE, _with_described(q, distinct), ""
    if len(referents) >= 2 and (CUE.search(q) or WEAK_CUE.search(original)):
        labels = conversation.labels if conversation is not None else {}
        return Kind.COMPARE, tuple(Side(labels.get(p, p), (p,)) for p in referents[:4]), ""
    two = TWO_PAPERS.search(q) if len(distinct) < 2 else None
    described = " ".join(g for g in (two.group("pre"), two.group("post")) if g) if two else ""
    if described:  # "the two papers on X ...": the two papers that fit the description best
        return Kind.COMPARE, (Side(described), Side(described)), ""
    for rx in COMPARE_RX:
        m = rx.match(q)
        if m:
            a, b = _clean(m.group("a")), _clean(m.group("b"))
            if a and b:
                return Kind.COMPARE, (_side(a, links), _side(b, links)), ""
    m = DESCRIBED_PAIR.search(q) if len(distinct) < 2 else None
    if m and (CUE.search(q) or WEAK_CUE.search(q)
              or (m.start() == 0 and re.match(r"\s*(?:[:;]|\s[-\u2013\u2014]\s)", m.group("end")))):
        a, b = _clean(m.group("a")), _clean(m.group("b"))  # two descriptions side by side, each asked about
        if a and b:
            return Kind.COMPARE, (_side(a, links), _side(b, links)), ""
    return Kind.SINGLE, (), ""


def _coordinated(q: str, links: list[Link], words: tuple[str, ...] = ("and", "or", "&")) -> bool:
    """'A and B', 'A, B and C', 'A or B': the names stand side by side."""
    a, b = links[-2], links[-1]
    between = q[a.start + len(a.name): b.start]
    return bool(re.fullmatch(rf"\s*,?\s*(?:{'|'.join(map(re.escape, words))})\s*", between, re.I))


def _with_described(q: str, links: list[Link]) -> tuple[Side, ...]:
    """The linked sides, plus the described ones standing in the same list ("Contrast A, B and the
    dynamic-pooling language model: ..."), in the order written (at most 4)."""
    sides = [Side(link.name, link.paper_ids[:1]) for link in links]
    run = re.split(r"[:?;]|\.\s", q[links[0].start:], maxsplit=1)[0]
    items = [i.strip() for i in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus)\s+", run) if i.strip()]
    if items:  # "... and the global-batch paper all deal with MoE": the last item ends where its verb begins
        items[-1] = re.split(r"\s+(?:all|both|each|are|is|was|were|do|does|did|have|has|deal|deals|use|uses|target|"
                             r"targets|address|addresses|tackle|tackles|propose|proposes|study|studies|share|"
                             r"differ)\b", items[-1])[0]
    linked = {norm(link.name) for link in links}
    if not items or norm(items[0]) not in linked or not any(norm(i) in linked for i in items[1:]):
        return tuple(sides)  # the names are not one list
    described = [_clean(i) for i in items if not any(k in norm(i) for k in linked) and 1 <= len(i.split()) <= 8
                 and not _WH.match(i)]
    return tuple(sides + [Side(d) for d in described if d])[:4]


_WH = re.compile(rf"^{OPENER}\b", re.I)


def _listed(q: str, links: list[Link]) -> bool:
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


def _side(text: str, links: list[Link]) -> Side:
    inside = [link for link in links if norm(link.name) == norm(text)]
    return Side(text, inside[0].paper_ids[:1] if inside else ())


_PAPER_NOUN = r"(?:paper|work|study|one|method|approach|model|framework|abstract|article|technique|system)s?"
# "the paper on X", "the one based on Y", "the work that proposes Z": the description is what follows
_VERB_OF = (r"(?:on|about|for|with|into|based on|built on|using|uses|use|proposing|proposes|introducing|introduces|"
            r"presenting|presents|studying|studies|applying|applies)")
_DESCRIBED_HEAD = re.compile(rf"^{_PAPER_NOUN}\s+(?:(?:that|which|who)\s+(?:(?:is|are|was)\s+)?(?:{_VERB_OF}\s+)?|"
                             rf"{_VERB_OF}\s+)(?=\S)", re.I)
_DESCRIBED_TAIL = re.compile(r"(?<=\S)\s+(?:paper|work|study|abstract|article|one)s?$", re.I)  # "the X paper"


def _clean(s: str) -> str:
    """A comparison side as retrieval should search it: a name, or a paper's description without the words that
    say it is a paper.

    >>> [_clean(s) for s in ("the paper on speculative decoding", "the one based on Gaussian splatting",
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
