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

import re
from dataclasses import dataclass, field
from enum import Enum

from .conversation import Conversation
from .linker import Lexicon, Link, named_terms, norm


class Kind(str, Enum):
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
    more: tuple[Ask, ...] = ()  # what the further clauses ask ("..., and over how many benchmarks?")
    followup: bool = False
    links: tuple[Link, ...] = field(default=(), repr=False)


_COMPARE_RX = [
    re.compile(r"^(?:how|in what ways?) (?:does|do|is|are) (?P<a>.+?) (?:differ|different) (?:from|to|than) (?P<b>.+?)\??$", re.I),
    re.compile(r"^(?:how|in what ways?) (?:does|do) (?P<a>.+?) (?:and|vs\.?|versus) (?P<b>.+?) (?:differ|compare)\b.*$", re.I),
    re.compile(r"^how (?:does|do) (?P<a>.+?) compare (?:to|with|against) (?P<b>.+?)\??$", re.I),
    re.compile(r"^(?:what (?:is|are) )?the differences? between (?P<a>.+?) and (?P<b>.+?)\??$", re.I),
    re.compile(r"^compare (?P<a>.+?) (?:and|with|to|vs\.?|versus) (?P<b>.+?)\??$", re.I),
    re.compile(r"^what (?:separates|distinguishes|differentiates|sets) (?P<a>.+?) (?:apart )?from (?P<b>.+?)"
               r"(?:\s+(?:in|on|when|for|regarding|with respect to)\b.*)?\??$", re.I),
    re.compile(r"^(?:do|does|did|are|is|were) (?P<a>.+?) and (?P<b>.+?) (?:\w+\s+){1,2}?(?:(?:in )?the same way|alike|"
               r"similarly|the same)\b.*$", re.I),
    # "A vs B: ...", not "How many prompts were collected in the study of global versus local harms?"
    re.compile(r"^(?!(?:how|what|which|why|when|where|who|whose|is|are|does|do|did|can|in|on)\b)(?P<a>[^:]+?) "
               r"(?:vs\.?|versus) (?P<b>[^:]+?)(?::.*)?\??$", re.I),
]
_CUE = re.compile(
    r"\b(?:differ\w*|difference\w*|compar\w+|contrast\w*|versus|vs\.?|in common|on top of|add\w* (?:to|over)|than|"
    r"separates?|distinguish\w*|the same way|alike|"
    r"better|worse|faster|slower|similarit\w+|similar to|unlike|relative to|whereas|which of)\b",
    re.I,
)
_WEAK_CUE = re.compile(r"\b(?:both|each|share|shared)\b", re.I)
_LIST = re.compile(
    r"^(?:which|what) (?:papers|abstracts|works|studies|articles|methods|approaches|frameworks|models)\b(?P<c>.*?)\??$"
    r"|^(?:list|find|show|name)(?: me)?(?: all)? (?:the )?(?:papers|abstracts|works|studies|methods)\b(?P<c2>.*?)\??$"
    # "are there papers ...", "is there any research on ...": a list; "is there work / a paper that ...": one paper
    r"|^(?:are there (?:any |some )?(?:papers?|abstracts?|works?|studies|study|research|articles?)"
    r"|is there (?:any |some )(?:papers?|abstracts?|works?|studies|study|research|articles?)"
    r"|is there (?:papers|abstracts|works|studies|articles))\b(?P<c3>.*?)\??$"
    # terse asks: "papers building on X?", "any paper on X?", "which ones are X papers?", "anything on X?"
    r"|^(?:any |all |other )?(?:papers?|abstracts?|works|studies|articles)\s+(?=(?:on|about|that|which|who|using|"
    r"building|proposing|introducing|applying|with|where|for|in)\b)(?P<c4>.*?)\??$"
    r"|^(?:which|what) ones (?:are|were|is)\s+(?P<c5>.*?)(?:\s+(?:papers|works|studies|abstracts))?\??$"
    r"|^(?:is there |do you have )?anything (?:on|about|regarding|related to)\s+(?P<c6>.*?)\??$"
    r"|^what does the (?:corpus|collection|index) (?:say|have|contain|hold) (?:about|on)\s+(?P<c7>.*?)\??$",
    re.I,
)
_AUX = r"(?:does|do|did|is|are|was|were|has|have|had|can|could|would|should|will)"
_TOPIC_AT = [
    re.compile(rf"\b{_AUX}\s+(?:the\s+|an?\s+)?(?P<t>[^\s,?]+(?:\s+[^\s,?]+){{0,2}})", re.I),
    re.compile(r"\baccording to (?:the\s+)?(?P<t>[^\s,?]+)", re.I),
    re.compile(r"\bin the (?P<t>(?:\S+\s+){0,3}?\S+?) (?:paper|abstract|work)\b", re.I),
    re.compile(rf"^(?!(?:how|what|which|why|when|where|who|whose|is|are|does|do|did|can|in|on)\b)(?P<t>\S+?)(?:'s|’s)?\s+{_AUX}\b", re.I),
    re.compile(r"\((?P<t>[A-Z][\w\-^&]+)\)"),  # "super token attention (STA)"
    re.compile(r"^(?:please\s+)?(?:explain|describe|summari[sz]e|tell me about|what about|give me an overview of)\s+"
               r"(?:the\s+)?(?P<t>[^\s,?]+(?:\s+[^\s,?]+){0,2})", re.I),
    # "... the idea behind X?", "the key idea of Swin Transformer?": a name of up to three words ends the question
    re.compile(r"\b(?:of|behind|in|by|for|about)\s+(?:the\s+)?(?P<t>[^\s,?]+(?:\s+(?-i:[A-Z0-9])[^\s,?]*){0,2})\s*[?.!]*\s*$", re.I),
]
_PREP = r"(?:under|in|on|at|for|with|by|from|to|over|across|against)"
_ASKED = re.compile(
    rf"^(?:{_PREP}\s+)?(?:what|which)\s+(?P<a>(?:[\w\-^@.]+\s+){{0,5}}?[\w\-^@.]+)\s+{_AUX}\b"
    rf"|^what\s+(?:is|are|was|were)\s+(?:the\s+)?(?:\S+?(?:'s|’s)\s+)(?P<b>[\w\-\s]+?)(?:\s+(?:on|in|for|of|with|at)\b.*)?\??$"
    rf"|^(?:{_PREP}\s+)?which\s+(?P<e>[\w\-^@.]+(?:\s+[\w\-^@.]+)??)\s+(?!{_AUX}\b)[a-z]+(?:s|ed)\b"  # "Which LLM serves ..."
    rf"|^(?:{_PREP}\s+)?how\s+(?:many|much)\s+(?P<c>(?:[\w\-^]+\s+){{0,3}}?[\w\-^]+)\s+{_AUX}\b",
    re.I,
)
_CLAUSE = re.compile(  # "Which X ..., and over how many Y?": a second thing asked
    rf",?\s+and\s+(?=(?:{_PREP}\s+)?(?:what|which|how|where|when|who|whose|does|did|do|is|are|was|were|can)\b|#)|;\s*",
    re.I,
)
_ASKED_TAIL = re.compile(  # a clause that ends on what it asks for: "over how many evaluation suites", "with which network"
    rf"^(?:{_PREP}\s+)?(?:what|which|how many|how much|#)\s*(?P<d>(?:[\w\-^@.]+\s+){{0,4}}?[\w\-^@.]+)$", re.I)
_NUMERIC = re.compile(
    r"\bhow (?:much|many|fast|large|small|big|long|often|far|well)\b|\bwhat (?:fraction|percentage|percent|share|"
    r"proportion|ratio|number|amount|speed-?up|gain|improvement)\b|\bby how\b|\bby what (?:margin|factor|amount)\b|"
    r"\bhow (?:much|many)\b|(?:^|\s)#\s?[a-z]",
    re.I,
)

_MEASURED = re.compile(  # "what X does Y achieve": a value is asked for
    r"\b(?:achieve|achieves|achieved|reach|reaches|reached|obtain|obtains|obtained|attain|attains|score|scores|get|gets|"
    r"yield|yields)\b|^what (?:is|are|was|were) .{0,40}\b(?:accuracy|error|rate|score|fid|bleu|f1|perplexity|latency|"
    r"throughput|auc|map|miou|psnr|speed|size)\b",
    re.I,
)


_LEAD = re.compile(  # "<what it is about> - <what is asked>?": terse questions put the description first
    r"^(?P<lead>.{12,}?)(?:\s+[-\u2013\u2014]+\s+|:\s+)(?P<ask>(?:(?:and|so|then|but)\s+)?(?:(?:what|which|how|who|where|when|"
    r"why|whose|is|are|does|do|did|can|could|was|were)\b|#).*)$",
    re.I,
)
_NOT_NOUN = re.compile(  # where an asked noun phrase ends: "which method says a plain ViT can ..." asks for a method
    r"\s+(?:a|an|the|that|this|these|those|which|who|whose|to|it|they|says|uses|gives|shows|makes|lets|allows|enables|"
    r"combines|replaces|adds|keeps|takes|runs|claims|argues|finds|predicts|generates|relies|learns|trains|proposes|"
    r"introduces|achieves|reaches|improves|reduces|outperforms|beats|handles|supports|needs|requires|treats|turns|"
    r"swaps|works|helps|avoids|builds|models|maps|matches|picks|selects|decides|computes)\b.*$",
    re.I,
)


def analyze(text: str, conversation: Conversation | None, lexicon: Lexicon) -> Question:
    q = text.strip()
    own_links = lexicon.link(q)
    resolved = conversation.resolve(q) if conversation is not None and conversation.turns else None
    followup = bool(resolved and resolved.referents) and not (own_links and resolved.standalone == q)
    standalone = resolved.standalone if followup else q
    links = _drop_aliases(standalone, lexicon.link(standalone) if followup else own_links)
    referents = tuple(resolved.referents) if followup else ()
    placed, topic_links, unlinked = _topic(standalone, links, lexicon)
    pairs = {link.paper_ids[0]: link.name for link in reversed(topic_links)}
    pairs = {p: pairs[p] for p in dict.fromkeys(link.paper_ids[0] for link in topic_links)}
    topic_ids = referents or tuple(pairs)
    strong = tuple(p for p in topic_ids if referents or any(link.strong for link in topic_links if link.paper_ids[0] == p))
    topic_names = tuple(conversation.labels.get(p, p) for p in referents) if referents else tuple(pairs.values())
    kind, sides, criterion = _kind(standalone, links, referents, conversation, original=q)
    details = tuple(t for t in named_terms(standalone)
                    if norm(t) not in {norm(n) for n in topic_names} and lexicon.status(t) != "common"
                    and not any(norm(t) in norm(n) or norm(n) in norm(t) for n in topic_names)
                    and t not in {u for u, _ in unlinked})
    parts = tuple(t for t in named_terms(criterion) if lexicon.status(t) != "common"  # "in LLMs or VLMs": either will do
                  and not re.search(rf"(?:\bor\s+{re.escape(t)}\b|\b{re.escape(t)}\s+or\b|/\s*{re.escape(t)}|{re.escape(t)}\s*/)",
                                    criterion)) if kind is Kind.LIST else ()
    lead = _LEAD.match(standalone)
    asking = lead.group("ask") if lead else standalone  # "... - which corpus?": the asked part is after the dash
    clauses = [c for c in _CLAUSE.split(asking) if c and c.strip(" ,?")] or [asking]
    first, *more = [_ask(c, topic_names, fragment=i > 0 or bool(lead)) for i, c in enumerate(clauses)]
    return Question(
        text=q, standalone=standalone, kind=kind, sides=sides, criterion=criterion, parts=parts,
        topic=topic_ids if kind is Kind.SINGLE else (), topic_names=topic_names, unlinked=unlinked,
        topic_placed=bool(placed or referents), topic_strong=strong,
        details=details, asked=first.asked, numeric=first.numeric, more=tuple(a for a in more if a.asked or a.numeric),
        followup=followup, links=tuple(links),
    )


def _ask(clause: str, topic_names: tuple[str, ...], fragment: bool = False) -> Ask:
    """What one clause asks for: its noun phrase and whether a value is asked (a later clause may be a
    fragment: "..., and over how many benchmarks?")."""
    c = clause.strip().rstrip("?").strip()
    m = _ASKED.match(c) or (_ASKED_TAIL.match(c) if fragment else None)
    asked = _NOT_NOUN.sub("", next((g for g in (m.groups() if m else ()) if g), "")).strip()
    asked = re.sub(r"^(\S+(?:\s+\S+)*?)\s+[a-z]+(?<!e)ed(?=\s|$).*$", r"\1", asked)  # "what real data backed the tests": "real data"
    if asked and norm(asked) in {norm(n) for n in topic_names}:
        asked = ""
    return Ask(asked, bool(_NUMERIC.search(c) or (asked and _MEASURED.search(c))))


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
    at: list[str] = [m.group("t") for rx in _TOPIC_AT for m in rx.finditer(q)]
    spans = set()
    for phrase in at:
        toks = re.findall(r"[^\s,?]+", phrase)
        spans |= {norm(" ".join(toks[i:j])) for i in range(len(toks)) for j in range(i + 1, len(toks) + 1)}
    in_pos = [link for link in links if norm(link.name) in spans]
    unlinked = []
    for term in named_terms(" , ".join(at), capitalised=True, initial=True):
        if any(norm(term) == norm(link.name) or norm(term) in norm(link.name) for link in links):
            continue
        status = lexicon.status(term)
        if status in ("passing", "missing") and len(norm(term)) >= 3 and not lexicon.is_common(term):
            unlinked.append((term, status))
    return in_pos, (in_pos or links), tuple(unlinked)


def _kind(q: str, links: list[Link], referents: tuple[str, ...], conversation, original: str = "") -> tuple[Kind, tuple[Side, ...], str]:
    m = _LIST.match(q)
    if m:
        crit = next((g for g in m.groups() if g), "").strip()
        crit = re.sub(r"^(?:in the corpus |here )?(?:that |which |who |to |about |on |in |of )?", "", crit).strip(" ,?")
        return Kind.LIST, (), crit or q
    distinct: list[Link] = []
    for link in links:
        if link.paper_ids[0] not in {d.paper_ids[0] for d in distinct}:
            distinct.append(link)
    choice = re.match(r"^(?:which|who)\b", q, re.I) and _coordinated(q, distinct, ("or",)) if len(distinct) >= 2 else False
    listed = 2 <= len(distinct) <= 4 and _listed(q, distinct)  # "How do A, B and C avoid ...?": each side asked
    if 2 <= len(distinct) <= 4 and (_CUE.search(q) or choice or listed or (_WEAK_CUE.search(q) and _coordinated(q, distinct))):
        return Kind.COMPARE, _with_described(q, distinct), ""
    if len(referents) >= 2 and (_CUE.search(q) or _WEAK_CUE.search(original)):
        labels = conversation.labels if conversation is not None else {}
        return Kind.COMPARE, tuple(Side(labels.get(p, p), (p,)) for p in referents[:4]), ""
    for rx in _COMPARE_RX:
        m = rx.match(q)
        if m:
            a, b = _clean(m.group("a")), _clean(m.group("b"))
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
    run = re.split(r"[:?;]", q[links[0].start:], maxsplit=1)[0]
    items = [i.strip() for i in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus)\s+", run) if i.strip()]
    linked = {norm(link.name) for link in links}
    if not items or norm(items[0]) not in linked or not any(norm(i) in linked for i in items[1:]):
        return tuple(sides)  # the names are not one list
    described = [_clean(i) for i in items if not any(k in norm(i) for k in linked) and 1 <= len(i.split()) <= 8
                 and not _WH.match(i)]
    return tuple(sides + [Side(d) for d in described if d])[:4]


_WH = re.compile(r"^(?:what|which|how|why|when|where|who|whose|is|are|does|do|did|can)\b", re.I)


def _listed(q: str, links: list[Link]) -> bool:
    """Every linked name stands in one list: 'A and B', 'A, B and C', 'A, B, or C'."""
    for a, b in zip(links, links[1:]):
        between = q[a.start + len(a.name): b.start]
        last = b is links[-1]
        if not re.fullmatch(r"\s*,?\s*(?:and|or|&)\s*" if last else r"\s*,\s*|\s*(?:and|&)\s*" if len(links) == 2 else r"\s*,\s*", between, re.I):
            return False
    return True


def _side(text: str, links: list[Link]) -> Side:
    inside = [link for link in links if norm(link.name) == norm(text)]
    return Side(text, inside[0].paper_ids[:1] if inside else ())


def _clean(s: str) -> str:
    return re.sub(r"^(?:the |a |an )", "", s.strip(" ?.,"), flags=re.I).strip()
