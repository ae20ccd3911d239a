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

from .conversation import Conversation
from .figures import CARDINAL
from .linker import Lexicon, Link
from .nameforms import named_terms, norm
from .phrasing import (
    ASKED,
    ASKED_NP,
    ASKED_TAIL,
    AUX,
    CLAUSE,
    IRREGULAR_PAST,
    LEAD,
    LIST,
    MEASURE_ASKED,
    MEASURED,
    NOT_NOUN,
    NUMERIC,
    OPENER,
    TOPIC_AT,
    WH,
)
from .questionkind import Kind, question_kind
from .sides import Side
from .support import stem
from .words import FUNCTION_WORDS, expand_contractions, fold_stated_topic


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
    kind, sides, criterion = question_kind(standalone, links, referents, conversation, original=q, shared=shared)
    lead = LEAD.match(standalone)
    asking = lead.group("ask") if lead else standalone  # "... - which corpus?": the asked part is after the dash
    # a name in the lead describes the paper ("for the method that gives a black-box LM a memory: how much ...?")
    described = " ".join(m.group(0) for m in _DESCRIPTION.finditer(asking)) if not topic_ids else ""
    # a follow-up's own words ask; what the standalone form adds from earlier turns only says which paper is meant
    own_lead = LEAD.match(q) if followup else None
    own = (own_lead.group("ask") if own_lead else q) if followup else asking
    details = tuple(t for t in named_terms(own)
                    # (a paper described in the asker's words: the names in the description are not asked of it)
                    if not (described and re.search(rf"(?<!\w){re.escape(t)}(?!\w)", described))
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
                         and lexicon.status(t) in ("missing", "passing") and not lexicon.is_common(t)
                         and not any(norm(t) in norm(n) for n in topic_names))  # (a word of its name)
    parts = tuple(t for t in named_terms(criterion) if not lexicon.is_common(t)  # "in LLMs or VLMs": either will do
                  and not re.search(rf"(?:\bor\s+{re.escape(t)}\b|\b{re.escape(t)}\s+or\b|/\s*{re.escape(t)}|"
                                    rf"{re.escape(t)}\s*/)",
                                    criterion)) if kind is Kind.LIST else ()
    asked_kind = LIST.match(standalone) if kind is Kind.LIST else None
    if asked_kind and asked_kind.group("m12"):  # "are there benchmarks for X?": a listed paper is one (says so)
        noun = asked_kind.group("m12").lower()
        parts += ({"corpora": "corpus"}.get(noun) or stem(noun),)
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
    m = (ASKED.match(c) or (ASKED_TAIL.match(c) if fragment else None)
         or (None if fragment else ASKED_NP.match(c)))
    asked = NOT_NOUN.sub("", next((g for g in (m.groups() if m else ()) if g), "")).strip()
    if not m and not fragment:  # "crossformer segmentation F1 on which datasets?": what the words name is asked
        asked = terse_asked(c, topic_names)
    if asked and all(w.lower() in FUNCTION_WORDS for w in asked.split()):
        asked = ""  # "What exactly does it ...": no noun is asked
    if re.fullmatch(IRREGULAR_PAST, asked, re.I):
        asked = ""  # "- which won?": a verb, no noun asked
    bounded = bool(m and m.re is ASKED and (m.group("a") or m.group("c")))  # ends at its auxiliary ("which X did")
    if not bounded:  # "what real data backed the tests": "real data" (not "self-supervised pretrained backbone did")
        asked = re.sub(r"^(\S+(?:\s+\S+)*?)\s+[a-z]+(?<!e)ed(?=\s|$).*$", r"\1", asked)
    asked = re.sub(rf"^(?:{CARDINAL}|\d+)\s+(?=\S)", "", asked, flags=re.I)  # "which two LLMs"
    if asked and norm(asked) in {norm(n) for n in topic_names}:
        asked = ""
    measure = next((m for m, rx in MEASURE_ASKED.items() if rx.search(c)), "")  # what kind of value the clause asks
    if measure in ("names", "winner"):  # the items behind a count the question states, or the best one: names
        return Ask(asked, False, measure)
    return Ask(asked, bool(NUMERIC.search(c) or (asked and MEASURED.search(c)) or measure), measure)


# where a question describes the paper it means, in the asker's words: a clause on a paper noun ("the study that ran
# OpenAI's recognizers on Urdu, which ...", "I remember a paper where ...")
_DESCRIPTION = re.compile(r"\b(?:paper|study|work|method|approach|framework|model|system|analysis|tool|app|one)s?\s+"
                          r"(?:that|which|where|whose|who)\b(?:(?!,\s*(?:which|what|how|who|do|does|did|is|are|was|"
                          r"were|can)\b)[^.?;:])*", re.I)
# a terse question is a noun phrase: no question word, auxiliary or request opens it or stands in it
_FULL = re.compile(rf"^(?:{OPENER}|tell|give|list|show|name|compare|contrast|summari[sz]e|explain|describe|find|"
                   rf"please|i|we|there|any|anything|papers?|hey|hi)\b|(?:[,;:]|\s[-\u2013\u2014]+)\s*(?:{WH})\b"
                   rf"|\b{AUX}\b|[?]", re.I)  # (a question word after a preposition asks of the head: "F1 on which")
_HEAD_END = re.compile(r"(?:^|\s+)(?:on|in|for|of|with|at|by|from|to|over|than|per|across|under|using|via|vs\.?|versus|"
                       r"compared|relative|against|and|or|plus|applied|used)\b|\s*(?:[,/;:+]|\s[-\u2013\u2014]+\s)")
TERSE_WORDS = 12


def terse_asked(clause: str, topic_names: tuple[str, ...]) -> str:
    """What a terse question asks of the paper it names first: the names among the words after the name, up to the
    first preposition or conjunction ("crossformer segmentation F1 on which datasets?" -> "F1"); "" for a full
    question, when only the paper is named, or when the words name nothing.

    >>> terse_asked("crossformer segmentation F1 on which datasets", ("crossformer",))
    'F1'
    >>> terse_asked("Kite avg accuracy gain vs FedAvg", ("Kite",)), terse_asked("What does Kite report", ("Kite",))
    ('', '')
    """
    if _FULL.search(clause) or len(clause.split()) > TERSE_WORDS:
        return ""
    # the paper's name opens it ("TitaNet EER on VoxCeleb1"; a name inside reads as a title: "Storage of X: ...")
    opening = (re.match(rf"(?:the\s+)?{re.escape(n)}(?:'s|’s)?(?![\w\-])", clause.strip(), re.I)
               for n in sorted(topic_names, key=len, reverse=True))
    first = next((m for m in opening if m), None)
    if not first:
        return ""  # (naming no paper first: a description or a title)
    rest = clause.strip()[first.end():].strip(" ,")
    head = _HEAD_END.split(rest, maxsplit=1)[0] if rest else ""
    # its names only ("EER", "mAP50", "OSWorld success rate" -> "OSWorld"): a terse phrase in the asker's words ("avg
    # performance gain") is no wording the abstract must share
    return " ".join(named_terms(head))


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
