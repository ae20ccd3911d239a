"""Question understanding: what kind of question, about which papers, asking for which detail.

`analyze(question, conversation, lexicon)` returns a typed `Question`:

- `kind`: SINGLE (one answer), COMPARE (2-4 sides, one table row each) or LIST ("which papers ...",
  "are there abstracts on ...": every matching paper); read in `questionkind.py`.
- `sides`: for comparisons, the papers the question names (linked through the corpus lexicon, so
  "A vs B vs C", "what does A add on top of B", "which is faster, A or B", "what do A and B have in
  common" all find their sides), or the phrases around "and"/"vs" when a side is a description
  ("clustering-based personalised FL") rather than a name (`sides.py`: where a comparison frame names its
  sides, each coordinated phrase is one).
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

from .asked import Ask, asked_parts
from .conversation import Conversation
from .linker import Lexicon, Link
from .nameforms import named_terms, norm
from .phrasing import DESCRIBED, LEAD, LIST, TOPIC_AT
from .questionkind import PAPER_KINDS, Kind, question_kind
from .sides import Side
from .support import stem
from .words import FUNCTION_WORDS, expand_contractions, fold_stated_topic


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
    # a follow-up's comparison of things inside the one paper it is about ("how do humans compare with the best model
    # on it?"): that paper's id (answered about it, as a contrast inside one paper), else ""
    inside: str = ""
    links: tuple[Link, ...] = field(default=(), repr=False)


def analyze(text: str, conversation: Conversation | None, lexicon: Lexicon) -> Question:
    # "what fid does diffmoe reach?" reads as its capitalised form; "what's X's ..." as "what is X's ..."
    q = lexicon.restore_case(fold_stated_topic(expand_contractions(text.strip())))
    own_links = lexicon.link(q)
    resolved = conversation.resolve(q) if conversation is not None and conversation.turns else None
    followup = bool(resolved and resolved.referents) and not (own_links and resolved.standalone == q
                                                               and not resolved.implicit)
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
    held = "" if referents else lexicon.holding(links, [t for t in named_terms(standalone, capitalised=True)
                                                        if lexicon.status(t) in ("subject", "passing")])
    if held:  # the one paper the question's names all point to
        topic_links = [next(Link(k.name, k.start, (held,), k.strong) for k in links if held in k.paper_ids)]
    elif any(link.strong for link in topic_links):  # "the FID of DiffMoE": a paper's own name beats a shared term
        topic_links = [link for link in topic_links if link.strong]
    pairs = {link.paper_ids[0]: link.name for link in reversed(topic_links)}
    pairs = {p: pairs[p] for p in dict.fromkeys(link.paper_ids[0] for link in topic_links)}
    topic_ids = referents or tuple(pairs)
    strong = tuple(p for p in topic_ids
                   if referents or any(link.strong for link in topic_links if link.paper_ids[0] == p))
    topic_names = tuple(conversation.labels.get(p, p) for p in referents) if referents else tuple(pairs.values())
    shared = frozenset(k.name for k in links if not k.strong and lexicon.is_shared(k.name))
    asking, first, more = asked_parts(standalone, topic_names)
    # "What PSNR does SSH-Net reach compared to ...?": the thing asked of a paper is no side of a comparison
    sided = [k for k in links if not (first.asked and norm(k.name) == norm(first.asked))]
    kind, sides, criterion = question_kind(standalone, sided, referents, conversation, original=q, shared=shared)
    inside = referents[0] if len(referents) == 1 and kind is Kind.COMPARE and _compares_inside(q, own_links) else ""
    # a name in the lead describes the paper ("for the method that gives a black-box LM a memory: how much ...?")
    described = " ".join(m.group(0) for m in DESCRIBED.finditer(asking)) if not topic_ids else ""
    # "For DF-FLOPS (the SPLADE-Doc regularization paper), ...": an appositive that describes a paper, asker's words
    described += " " + " ".join(m.group(0) for m in _APPOSITIVE.finditer(asking))
    described += " " + " ".join(k.name for k in links if k.title)  # "... and 'Roll the dice & look before you leap'"
    # a follow-up's own words ask; what the standalone form adds from earlier turns only says which paper is meant
    own_lead = LEAD.match(q) if followup else None
    own = (own_lead.group("ask") if own_lead else q) if followup else asking
    details = tuple(t for t in named_terms(own)
                    # (a paper described in the asker's words: the names in the description are not asked of it)
                    if not _inside(t, described)
                    # (not a common term, nor English words capitalised: "Stretch-sensitive KCNQ1 mutation ...?")
                    if norm(t) not in {norm(n) for n in topic_names} and lexicon.status(t) != "common"
                    and not _capitalised_words(t, lexicon.words)
                    and not any(norm(t) in norm(n) or norm(n) in norm(t) for n in topic_names)
                    # "Does X beat GPT-4o?": X's abstract must name it
                    and (topic_ids or t not in {u for u, _ in unlinked}))
    # "What gain does X give for Swahili?", "Does X beat Whisper?": a capitalised word no paper is about is a detail
    if topic_ids:
        details += tuple(t for t in named_terms(own, capitalised=True)
                         if t not in details and " " not in t and len(t) >= 4
                         and not _inside(t, described)
                         and lexicon.status(t) in ("missing", "passing") and not lexicon.is_common(t)
                         and not any(norm(t) in norm(n) for n in topic_names))  # (a word of its name)
    parts = tuple(t for t in named_terms(criterion) if not lexicon.is_common(t)  # "in LLMs or VLMs": either will do
                  and not re.search(rf"(?:\bor\s+{re.escape(t)}\b|\b{re.escape(t)}\s+or\b|/\s*{re.escape(t)}|"
                                    rf"{re.escape(t)}\s*/)",
                                    criterion)) if kind is Kind.LIST else ()
    asked_kind = LIST.match(standalone) if kind is Kind.LIST else None
    noun = (asked_kind.group("m12") or "").lower() if asked_kind else ""
    if noun in PAPER_KINDS:  # "are there benchmarks for X?": a listed paper is one (says so)
        parts += ({"corpora": "corpus"}.get(noun) or stem(noun),)
    return Question(
        text=q, standalone=standalone, kind=kind, sides=sides, criterion=criterion, parts=parts,
        topic=topic_ids if kind is Kind.SINGLE else (), topic_names=topic_names, unlinked=unlinked,
        topic_placed=bool(placed or referents), topic_strong=strong,
        details=details, asked=first.asked, numeric=first.numeric, measure=first.measure,
        more=tuple(a for a in more if a.asked or a.numeric),
        followup=followup, inside=inside, links=tuple(links),
    )


# a side that is a paper: it refers back to one ("it", "they", "this one", "the former"), or names a report or another
# paper ("the paper", "the other study on X", "the earlier one"); "their framework", "the best model" are not
_PAPER_SIDE = re.compile(r"^(?:the\s+)?(?:it|its|they|them|this|that|these|those|former|latter)$"
                         r"|\b(?:paper|papers|study|studies|work|article|trial|abstract|report|one)\b"
                         r"|\b(?:other|previous|earlier|former|latter|another)\b", re.I)


def _compares_inside(q: str, links: list[Link]) -> bool:
    """A follow-up (as written, before "it" is resolved) compares things none of which is a paper: no side is
    named or refers to a paper (`_PAPER_SIDE`): "how do humans compare with the best open-source model on it?",
    "how did the model do on the first try versus after iterating with their framework?". Such a comparison is
    inside the paper the conversation is about; "how does it compare with X?" (a side is "it") and "how does the
    proposed approach compare with the pruning paper?" are comparisons of papers."""
    kind, sides, _ = question_kind(q, links, (), None, original=q)
    return kind is Kind.COMPARE and bool(sides) and not any(s.paper_ids or _PAPER_SIDE.search(s.text.strip())
                                                            for s in sides)


# "DF-FLOPS (the SPLADE-Doc regularization paper)": an appositive describing a paper, in the asker's words
_APPOSITIVE = re.compile(r"\((?:the|a|an)\s[^()]*\)", re.I)


def _inside(term: str, text: str) -> bool:
    """`term` stands as a whole in `text` (a description the asker gave)."""
    return bool(text.strip()) and bool(re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text))


def _capitalised_words(term: str, words) -> bool:
    """Words the corpus writes in lower case, joined by hyphens and capitalised ("Stretch-sensitive" opening a
    question): no name. A name in it keeps it a name ("BERT-style")."""
    return bool(re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)+", term)) and all(w.lower() in words for w in term.split("-"))


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
        if status in ("passing", "missing") and len(norm(term)) >= 3 and not lexicon.is_common(term) \
                and not (status == "missing" and _nationality(term, lexicon)):
            unlinked.append((term, status))
    return in_pos, (in_pos or links), tuple(unlinked)


def _nationality(term: str, lexicon: Lexicon) -> bool:
    """A word shaped as an adjective of a name the corpus writes ("Bangladeshi", "Kenyan", "Brazilian": the name and
    -i, -n, -an, -ian, -ese; a place, as a rule). Where the corpus never writes the adjective itself, it describes a
    paper's setting, no missing method's name. (One the corpus writes only in passing, "Japanese" speech, stays a
    term no paper is about.)

    >>> lx = Lexicon.build([("p1", "Rickshaw detection", "Traffic in Bangladesh and Kenya is dense.", False)])
    >>> _nationality("Bangladeshi", lx), _nationality("Kenyan", lx), _nationality("Dhakaformer", lx)
    (True, True, False)
    """
    bases = [term[: -len(suffix)] for suffix in ("i", "n", "an", "ian", "ese") if term.endswith(suffix)]
    return any(len(b) >= 4 and b[0].isupper() and lexicon.status(b) != "missing" for b in bases)


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
