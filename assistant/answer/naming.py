"""How answers, follow-up suggestions and lists name a paper, honestly.

A paper has a *name* only when its source gives a title or its abstract gives a name (a coined name
"FedMerge", a defined acronym "PID"); a generic capitalised first word ("Bayesian", "Federated",
"Accuracy") is never a name. A label paperchat derived from the abstract ("Recent success of large
language models") is a description, not a title: it is shown marked ("*untitled: ...*") and never used
as a name in prose or in suggested questions.

>>> is_generic_name("Federated", {"federated"}), is_generic_name("FedMerge", {"federated"})
(True, False)
>>> is_generic_name("Accuracy", set()), is_generic_name("Polygames", set())
(True, False)
"""

from __future__ import annotations

import re

from ..ingest.names import is_name_like
from ..markup import clean_markup
from ..types import Answer, Citation, Hit, Record  # noqa: F401 -- Citation: the doctests
from .linker import Lexicon
from .nameforms import label_head
from .prose import third_person

# Capitalised first words of abstracts that are ordinary English (when the corpus never writes them in lower case)
_ENGLISH = frozenset(
    ["accuracy", "bayesian", "class", "contrastive", "deep", "federated", "language", "markov", "mixture", "semantic",
     "prompt-guided", "global", "local", "generic", "recent", "large", "small", "new", "novel", "neural", "learning",
     "model", "models", "method", "methods", "approach", "data", "graph", "vision", "visual", "multi", "multimodal",
     "efficient", "robust", "adaptive", "dynamic", "hierarchical", "personalized", "personalised", "unified",
     "generative", "general", "simple", "sparse", "distributed", "online", "active", "spectral", "causal", "temporal",
     "spatial"])


def is_generic_name(name: str, words: set[str] | frozenset[str]) -> bool:
    """A one-word "name" that is an ordinary word: capitalised only (no inner capital, digit or symbol) and
    written in lower case by the corpus (`words`) or ordinary English."""
    name = name.strip()
    if not name or " " in name:
        return False
    plain = re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)*", name)
    return bool(plain) and (name.lower().replace("-", "") in words or name.lower() in _ENGLISH
                            or name.lower() in words)


def short_name(label: str) -> str:
    """How a paper is called when nothing better names it: its label's short head, else the label.

    >>> short_name("Prune&Comp: Free Lunch for Layer-Pruned LLMs"), short_name("Sparsified 2-FWL GNNs for molecules")
    ('Prune&Comp', 'Sparsified 2-FWL GNNs for molecules')
    """
    return label_head(label) or label


def shown_name(names: dict[str, str], hit: Hit, full: bool = False) -> str:
    """How an answer names a paper: its short name from the lexicon ("DISCO"), else the head of a real
    label ("Prune&Comp"); `full` prefers a real title. '' when the paper has no name (a derived label). TeX in a
    title is no part of its name.

    >>> shown_name({}, Hit("p", Record("p", "text", label="SAEs $Can$ Improve Unlearning: A Study"), 1.0))
    'SAEs Can Improve Unlearning'
    """
    real = not hit.record.label_derived
    if full and real:
        return clean_markup(hit.title)
    return clean_markup(names.get(hit.paper_id) or (short_name(hit.title) if real else ""))


def real_name(record: Record, lexicon: Lexicon | None = None) -> str:
    """The paper's short name, or '' when it has none: the lexicon's name unless it is a generic word, else
    the head of a real title ("Prune&Comp: ..."), or of a derived label when that head is a name the
    abstract gives ("FedMerge: approach that ...")."""
    words = lexicon.words if lexicon is not None else set()
    name = lexicon.display.get(record.paper_id, "") if lexicon is not None else ""
    if name and not is_generic_name(name, words):
        return clean_markup(name)
    label = clean_markup(record.display)  # (TeX in a title: "SAEs $Can$ Improve Unlearning")
    head = label_head(label)
    if record.label_derived:  # only a colon head the labeller found as the method's name
        ok = ":" in label and head and " " not in head and is_name_like(head, strong=True)
        return head if ok and not is_generic_name(head, words) else ""
    return head if head and not is_generic_name(head, words) else ""


def names_for(hits: list[Hit], lexicon: Lexicon) -> dict[str, str]:
    """paper_id -> real name for the hits that have one."""
    out = {}
    for h in hits:
        name = real_name(h.record, lexicon)
        if name:
            out[h.paper_id] = name
    return out


def marked_label(record_or_title, derived: bool | None = None, name: str = "") -> str:
    """Markdown for a paper's label: a title in bold; a derived label in italics, marked "untitled" (after
    the name in bold when the paper has one): the shape answers give a label, "**X** (...)".

    >>> marked_label("Prune&Comp: Free Lunch", False)
    '**Prune&Comp: Free Lunch**'
    >>> marked_label("Recent success of large language models", True)
    '**untitled** (*Recent success of large language models*)'
    >>> marked_label("FedMerge: Approach that can create a model", True, "FedMerge")
    '**FedMerge** (*untitled: Approach that can create a model*)'
    """
    if isinstance(record_or_title, Record):
        title, derived = record_or_title.display, record_or_title.label_derived
    else:
        title = record_or_title
    title = clean_markup(title).replace("*", "").replace("|", "/")
    if derived:  # cut from the abstract: in the authors' voice ("Aim of our study")
        title = third_person(title)
    else:
        return f"**{title}**"
    if name and title.startswith(name + ":"):
        title = title[len(name) + 1:].strip()
    title = title.replace("(", "").replace(")", "")  # one parenthesis after the bold name: answers' label shape
    return f"**{name}** (*untitled: {title}*)" if name else f"**untitled** (*{title}*)"


def followup_questions(answer: Answer, lexicon: Lexicon | None) -> list[str]:
    """Candidate follow-ups about the answer's cited papers that have a real name (none for a paper known only
    by a derived label: "What results does Recent success of large language models report?" is not English).

    >>> a = Answer("q", "a", "q", False, citations=(Citation(1, "p1", "Prune&Comp: Free Lunch", "t"),
    ...     Citation(2, "p2", "Recent success of LLMs", "t", label_derived=True)))
    >>> followup_questions(a, None)[:2]
    ['Which datasets does Prune&Comp use?', 'What results does Prune&Comp report?']
    """
    records = {h.paper_id: h.record for h in answer.retrieved}
    names = []
    for c in answer.citations[:2]:
        rec = records.get(c.paper_id) or Record(c.paper_id, c.text, label=c.title, label_derived=c.label_derived)
        name = real_name(rec, lexicon)
        if name and name not in names:
            names.append(name)
    if not names:
        return []
    first = names[0]
    cands = [f"Which datasets does {first} use?", f"What results does {first} report?",
             f"What problem does {first} address?"]
    cands.insert(2, f"How does {first} differ from {names[1]}?" if len(names) > 1
                 else f"Which papers are similar to {first}?")
    return cands
