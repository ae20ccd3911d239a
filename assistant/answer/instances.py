"""Does an abstract *name* an instance of what is asked for? "Which datasets / base LLM / backbone"
is answered by a name ("experiments on the RUOD dataset"), not by the word ("a variety of datasets").

A name counts when it stands within NEAR words of where the sentence speaks of the kind ("a general LLM
judge": no name near), and is not the paper's own name, a concept the abstract defines for lower-case words
("Incomplete multi-view clustering (IMVC)"), a common term of the corpus, or a generic word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .lexbuild import GENERIC
from .nameforms import named_terms, norm
from .support import stem
from .words import is_english, is_word

Common = Callable[[str], bool]  # is this capitalised term a common word or term of the corpus (not a name)?
WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")

EVALUATED_ON = re.compile(
    r"(?i:\b(?:experiments?|evaluat\w+|tested|tests|results|trained|validated)\s+(?:\w+\s+){0,3}?(?:on|with|using|use)\s+(?:the\s+)?)[A-Z]"
)


NAMED_KINDS = {  # "which <kind>" asks for a named instance: the abstract must name one
    "dataset": ("dataset", "benchmark", "corpus", "corpora", "data"),
    "benchmark": ("benchmark", "dataset", "corpus", "suite", "task"),
    "suite": ("suite", "benchmark", "dataset", "task", "arena"),
    "corpus": ("corpus", "corpora", "dataset", "benchmark", "data"),
    "corpora": ("corpus", "corpora", "dataset", "benchmark", "data"),
    "model": ("model", "llm", "network", "backbone", "architecture", "transformer", "encoder", "built", "applied to"),
    "llm": ("llm", "model", "language model", "backbone", "applied to"),
    "backbone": ("backbone", "model", "network", "architecture", "encoder", "applied to"),
    "baseline": ("baseline", "compar", "outperform", "against", "over"),
}


def kind_asked(asked: str) -> str:
    """'specific datasets' -> 'dataset', 'base LLM' -> 'llm': the kind of named thing asked for, or ''."""
    words = WORD.findall(asked)
    if not words:
        return ""
    last = words[-1].lower()
    return next((k for k in (last, stem(last), last[:-1] if last.endswith("s") else "") if k in NAMED_KINDS), "")


# "a, b and c"
# items listed: "reasoning, coding and math", "two modules: spatial pyramid pooling and 3D CNN", "(i) X ... (ii) Y"
_ENUMERATION = re.compile(r"\b[\w\-]+(?:\s+[\w\-]+)?,\s+[\w\-]+(?:\s+[\w\-]+)?,?\s+(?:and|or)\s+[\w\-]+"
                          r"|:\s*[\w\-]+(?:\s+[\w\-]+){0,3}\s+(?:and|or)\s+[\w\-]+|\((?:i|1|a)\)\s.+?\((?:ii|2|b)\)\s")
NEAR = 8  # words between a named instance and the word for its kind ("a general LLM judge": no name near)
_DEFINES = re.compile(r"((?:[\w\-]+\s+){1,6})\(([A-Z][A-Za-z0-9\-]{1,12})\)")


def _concepts(text: str, common: Common | None = None) -> tuple[set[str], set[str]]:
    """Acronyms the abstract defines for a task or concept, not a named dataset or model: for lower-case phrases
    ("Incomplete multi-view clustering (IMVC)"), and, apart, for capitalised words the corpus writes in lower case
    too (`common`: "Knowledge Graphs (KGs)")."""
    lower, ordinary = set(), set()
    for m in _DEFINES.finditer(text):
        words = m.group(1).split()[-len(m.group(2)):]
        start = m.start(1) + len(m.group(1)) - len(" ".join(words)) - 1
        sentence_start = start <= 0 or text[:start].rstrip().endswith((".", ":", ";"))
        # ("Recently, Omni-modal large language models (OLLMs) ...": a capital on the first of three words is style)
        styled = [w[:1].islower() or (i == 0 and (sentence_start or len(words) > 2)) for i, w in enumerate(words)]
        if all(styled):
            lower.add(norm(m.group(2)))
        elif common and all(s or common(w) for s, w in zip(styled, words)):
            ordinary.add(norm(m.group(2)))
    return lower, ordinary


def names_instance(kind: str, sents: list[str], exclude: tuple[str, ...], common: Common | None = None,
                   words: tuple[str, ...] = ()) -> bool:
    """Some sentence that speaks of the kind ("experiments on", "dataset", "built upon"; or of `words`)
    names one (a name: not a word the corpus also writes in lower case, such as "Large Language Models", when
    `common` knows); for `words`, a list of several ("reasoning, coding and math tasks") also names them."""
    lowered, ordinary = _concepts(" ".join(sents), common)
    skip = {norm(n) for n in exclude} | lowered
    # (an acronym of ordinary capitalised words is that concept only, not a part of a name: "VAD" is no "ComplexVAD")
    concepts = {re.sub(r"s$", "", k) for k in ordinary - skip}
    own_words, words = bool(words), words or NAMED_KINDS[kind]
    for sent in sents:
        low = sent.lower()
        cues = [m.start() for v in words for m in re.finditer(re.escape(v), low)]
        if kind in ("dataset", "benchmark", "corpus", "corpora"):
            cues += [m.end() for m in EVALUATED_ON.finditer(sent)]
        if not cues:
            continue
        names = [t for t in named_terms(sent, capitalised=True) if norm(t) not in skip and norm(t) not in GENERIC
                 and re.sub(r"s$", "", norm(t)) not in concepts
                 and not any(norm(t) in k or k in norm(t) for k in skip if k) and not (common and common(t))]
        at = [m.start() for t in names for m in re.finditer(re.escape(t), sent)]
        if own_words:  # the items of a stated count ("the 12 languages") may be listed in lower case
            at += [m.start() for m in _ENUMERATION.finditer(sent)]
        if any(len(sent[min(c, a):max(c, a)].split()) <= NEAR for c in cues for a in at):
            return True  # a name (or a list of items) within NEAR words of where the sentence speaks of the kind
    return False


# a sentence saying one was best, or better than others: "o3-mini performs best", "the RF model outperforming the
# SVR", "peak levels were significantly higher at 250 um", "egocentric data can lead to superior performance"
# ("the most efficient solution was X": a superlative with "most")
BEST_SAID = re.compile(r"\b(?:best|highest|lowest|top(?:-performing)?|first place|leading|wins?|won|beats?|"
                       r"strongest|most accurate|better|higher|greater|lower|fewer|superior|outperform\w*|surpass\w*|"
                       r"exceed\w*|most\s+(?!of\b)[a-z]+(?:ive|ent|ant|ful|ate|ble|al|ic|ous))\b", re.I)


def says_which_best(sents: list[str]) -> bool:
    """Some sentence says one was best or better than others (`BEST_SAID`): "which optimizer gave the best
    accuracy?" has an answer there, though perhaps in lower-case words ("deeper ablation gave higher levels").

    >>> says_which_best(["Among 18 models evaluated, o3-mini performs best."])
    True
    >>> says_which_best(["We evaluate 44 popular code LLMs on it.", "Results are reported per task."])
    False
    """
    return any(BEST_SAID.search(s) for s in sents)


def names_best(kind: str, sents: list[str], exclude: tuple[str, ...]) -> bool:
    """A sentence saying one was best or better names an instance of the kind asked ("which open-source LLM scored
    highest?" is not answered by "proprietary models outperform open-source models"). A name many abstracts of the
    corpus use still names one ("the best model, GPT-5, ...").

    >>> names_best("llm", ["Proprietary models outperform open-source models."], ())
    False
    >>> names_best("llm", ["(1) Proprietary models outperform open-source models."], ())
    False
    >>> names_best("model", ["The RF model performs better than the SVR and LSTM models."], ())
    True
    """
    return names_instance(kind, [s for s in sents if BEST_SAID.search(s)], exclude, _english_words)


def _english_words(term: str) -> bool:
    """A capitalised term made of English words ("Proprietary", "Larger Models"): no name."""
    return all(is_english(w.lower()) or is_word(w) for w in re.findall(r"[A-Za-z]+", term))
