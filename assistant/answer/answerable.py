"""Is the asked detail in the abstract? The check behind "The DiffMoE abstract reports no FID."

The topic of a question can be in the corpus while the detail asked about is not: a number the
abstract never gives, a metric or dataset it never names, a training setting abstracts rarely report.
`missing_detail(topic_names, details, asked, numeric, text)` returns what is missing (a sentence to
show, and whether it is *firm*) or None.

It checks, against the abstract of the paper the question is about:
1. every named detail term of the question ("FID", "MVBench", "Recall@50") occurs in it (normalised:
   case, spaces and hyphens ignored). Firm: no wording difference explains a missing name;
2. "which datasets / benchmarks / base LLM / backbone": a sentence on that kind of thing *names* one
   ("experiments on the RUOD dataset"), not only the word ("a variety of datasets"). Firm;
3. otherwise the asked noun phrase ("batch size", "reward signals") occurs: its head noun, a known
   variant ("datasets" ~ benchmark / corpus), its acronym ("WER"), or, given a similarity function, the
   phrase in other words (cosine >= SOFT_MATCH to a 1-3 word span: "parameter-efficient training");
4. for "how much / how many / what fraction" questions, some sentence that speaks of the asked
   quantity gives a figure (firm when such sentences exist and none has a figure).

>>> missing_detail(("DiffMoE",), ("FID",), "", False, "DiffMoE scales diffusion transformers on ImageNet.")
Missing(why='The DiffMoE abstract reports no FID.', firm=True)
>>> missing_detail(("TitaNet",), (), "batch size", False, "TitaNet reaches an EER of 0.68% on VoxCeleb1.")
Missing(why='The TitaNet abstract reports no batch size.', firm=False)
>>> missing_detail(("SELMA",), (), "word error rate", False, "SELMA cuts the word error rate (WER) by 10%.") is None
True
>>> missing_detail(("Kite",), (), "clients and sessions", True, "Kite holds real client sessions.").firm
True
>>> missing_detail(("Kite",), (), "subscores", False, "The continence score of Kite was better.") is None
True
>>> missing_detail(("Kite",), (), "languages", False, "Kite covers 12 languages.", measure="names").why
'The Kite abstract does not name the languages.'
>>> missing_detail(("Kite",), (), "languages", False, "Kite covers Welsh, Irish and Breton languages.", measure="names")
>>> missing_detail(("X",), (), "", True, "X is fast. It is simple.")
Missing(why='The X abstract reports no figure for this.', firm=True)
>>> missing_detail(("Kite",), (), "datasets", False, "We evaluate Kite on a variety of datasets.").why
'The Kite abstract names no datasets.'
>>> missing_detail(("Kite",), (), "datasets", False, "Experiments on CIFAR-10 show that Kite is robust.") is None
True
>>> missing_detail((), (), "bougie size", False, "The sample size was 145.", heads_only=True).why
'The best-matching abstract reports no bougie size.'
>>> missing_detail((), (), "bougie size", False, "A 36-Fr bougie was used.", heads_only=True) is None
True
>>> missing_detail(("F",), (), "money per patient", True, "F was tested. Thirty patients were recruited.").partial
False
>>> missing_detail(("F",), (), "cost and patients", True, "F was tested. Thirty patients were recruited.").partial
True
>>> missing_detail(("Q",), (), "learning rate", False, "Q is deep learning. Q runs on 5 qubits.").why
'The Q abstract reports no learning rate.'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..index.sentences import split_sentences
from .asked import CHANGE, COORDINATED, DIMENSIONS, GENERIC_ASKED, SPLIT, asked_parts_of
from .figures import MEASURES, counts, figures_in, has_figure
from .instances import WORD, Common, kind_asked, names_best, names_instance, says_which_best
from .nameforms import named_terms
from .support import SupportScorer, stem
from .terms import abbreviated, figure_near, following, has_term, has_word, names_itself, phrase_present

__all__ = ["MEASURES", "Missing", "figures_in", "has_figure", "has_term", "missing_detail", "states_asked"]

_FRACTION_ASK = re.compile(r"\b(?:fraction|percentage|percent|share|proportion|ratio)\b", re.I)
_FRACTION = re.compile(
    r"\d\s?%|(?<![\d.])0?\.\d+\b|\b\d+\s?/\s?\d+\b|\b(?:half|third|quarter|fifth|tenth)s?\b|\bper ?cent", re.I)


@dataclass(frozen=True)
class Missing:
    why: str  # what to show: "The DiffMoE abstract reports no FID."
    firm: bool  # a named term, a figure or a named instance is absent: no other wording explains it
    # other parts of the asked phrase are there ("repair rate and 30-day mortality")
    partial: bool = field(default=False, repr=False)


_KIND_OF = re.compile(r"\b(?:kinds?|types?|sorts?|forms?) of\b", re.I)
SOFT_MATCH = 0.66  # phrase-to-span cosine at which an asked noun phrase counts as present in other words
Similarity = Callable[[str, str], float]  # (phrase, text) -> best cosine of the phrase to a span of the text


def missing_detail(topic_names: tuple[str, ...], details: tuple[str, ...], asked: str, numeric: bool, text: str,
                   heads_only: bool = False, similar: Similarity | None = None, common: Common | None = None,
                   measure: str = "", given: frozenset[str] = frozenset()) -> Missing | None:
    """What the abstract `text` lacks of the asked detail, or None when it has it (see the module doc).

    `heads_only`: a paraphrase, whose wording is the asker's own: named details and the asked thing are
    checked, a value's phrase only loosely. `similar` lets an asked noun phrase be present in other words
    (cosine >= SOFT_MATCH to a span of the abstract); without it the check is lexical. `given`: the numbers
    the question states, which answer no "how many" (see `figures_in`)."""
    who = f"The {topic_names[0]} abstract" if topic_names else "The best-matching abstract"
    if heads_only and common:  # a paraphrase's own descriptive compounds ("GPS-labelled photos") are not names to find
        details = tuple(t for t in details if not common(t))
    for t in details:
        if not has_term(t, text):
            return Missing(f"{who} reports no {t}.", True)
    named = named_terms(asked)
    for t in named:
        if not has_term(t, text):
            return Missing(f"{who} reports no {asked.strip()}.", True)
    kind, written = kind_asked(asked), asked.strip()  # before the names go: "base LLM" asks for a named LLM
    for t in named:
        asked = asked.replace(t, " ")
    phrase = " ".join(asked.split())
    parts, changes = asked_parts_of(asked)
    low = text.lower()
    stems = {stem(w) for w in WORD.findall(text)}
    sents = [s.text for s in split_sentences(text)]

    def close(words: list[str], where: str) -> bool:  # the part in other words
        return bool(similar and similar(" ".join(words), where) >= SOFT_MATCH)

    if measure == "names" and parts:  # "what are the 12 languages covered by X?": the abstract must name them
        head = parts[-1][-1].lower()
        if not names_instance("", sents, topic_names, common, words=(head, stem(head))):
            return Missing(f"{who} does not name the {written}.", True)
        return None
    if measure == "winner":  # "which optimizer gave the best accuracy?": the abstract must say one was best
        if not says_which_best(sents):  # (it evaluates several, says none was best or better: no wording explains)
            return Missing(f"{who} does not say which {written or 'one'} was best.", True)
        if kind and not names_best(kind, sents, topic_names):  # a named kind: the best one is named
            return Missing(f"{who} does not name the {written} that was best.", True)
        return None
    # "How long did it take to train X?", "How many millijoules per image?": a value of that kind
    if measure in MEASURES:
        if not any(MEASURES[measure][1].search(s) for s in sents):
            return Missing(f"{who} reports no {MEASURES[measure][0]}.", True)
        return None
    if measure == "size" and parts:  # "how big is the dataset they collected?": a figure where it speaks of it
        head = parts[-1][-1]
        about = [has_word(head, s.lower(), {stem(w) for w in WORD.findall(s)}, s) for s in sents]
        where = following(sents, about, (head,)) if any(about) else sents  # (never spoken of: "how large was the
        if not any(has_figure(s, given) for s in where):  # cohort?" - any figure may be its size)
            return Missing(f"{who} reports no size of the {phrase}.", True)
        return None
    value_asked = bool(numeric or changes or _FRACTION_ASK.search(asked))
    if heads_only and value_asked:
        if not parts:
            # "what BLEU score does the X transformer get?": a named measure's figure stands with it (or right after)
            if named and not any(has_figure(s, given) for s in following(
                    sents, [any(has_term(t, s) for t in named) for s in sents], tuple(named))):
                return Missing(f"{who} reports no figure for {written}.", True)
            return None  # "How much faster was it?": the quantity is the asker's wording; a figure may be words
        # a value asked for in the asker's words: some sentence sharing a word of the phrase gives a figure
        words = {stem(w) for p in parts for w in p}
        # (a hyphenated word shares its parts: "pathologist-assigned scores" speaks of pathologists)
        near = [s for s in sents if words & {stem(p) for w in WORD.findall(s) for p in (w, *w.split("-")) if p}
                ] or sents  # no word shared: any
        if not any(has_figure(s, given) for s in near):
            return Missing(f"{who} reports no figure for {phrase or 'this'}.", True)
        return None
    if value_asked:
        # a value is asked for: some sentence must name the asked quantity (the phrase, in order) and give a figure
        pattern = _FRACTION if _FRACTION_ASK.search(asked) else None
        figure_in = (lambda s: pattern.search(s)) if pattern else (lambda s: has_figure(s, given))
        if not any(figure_in(s) for s in sents):  # no figure anywhere: no wording difference can explain it
            return Missing(f"{who} reports no figure for {phrase or 'this'}.", True)
        short = abbreviated(written, text)  # "relative WER reduction" written as the abstract's "WERR"
        if short and any(re.search(rf"\b{re.escape(short)}\b", s) and figure_in(s) for s in sents):
            return None
        soft = False
        # "what accuracy does X reach on ScanObjectNN": the sentence that names the setting (or refers back to it)
        where = tuple(t for t in details if not (common and common(t)))  # not a description ("MoE-like")
        setting = (set(following(sents, [any(has_term(t, s) for t in where) for s in sents], where)) if where
                   else set(sents))
        if where and not any(figure_in(s) for s in setting):  # (a figure of another metric for it will do)
            return Missing(f"{who} reports no {phrase or 'figure'} for {' and '.join(where)}.", True)
        if parts:
            relevant = [s for s in sents if all(phrase_present(p, s) for p in parts)]
            if not relevant and similar:
                relevant, soft = [s for s in sents if all(phrase_present(p, s) or close(p, s) for p in parts)], True
        else:
            relevant = [s for s in sents if s in setting] or sents
        if len(parts) > 1 and not any(figure_in(s) for s in relevant):
            # "what repair rate and 30-day mortality?": each part with a figure of its own, in any sentence
            lacking = [p for p in parts if not any(figure_in(s) and (phrase_present(p, s) or close(p, s))
                                                   for s in sents)]
            if not lacking:
                return None  # ("patients with diabetes": 300 patients, 120 of them diabetic)
            if len(lacking) < len(parts) and COORDINATED.search(asked):  # (parts not coordinated are one quantity:
                said = [next((c.strip() for c in SPLIT.split(asked) if all(w in c for w in p)), " ".join(p))
                        for p in lacking]  # "money per patient" lacks money: the whole is missing, below)
                return Missing(f"{who} reports no {' and '.join(said)}.", False, partial=True)
        noun = parts[0][-1] if parts else ""  # "how many annotators": a figure must count them (soft: in other words)
        if measure == "count" and noun and not counts(noun, sents, given, lambda span: close([noun], span)):
            return Missing(f"{who} reports no number of {phrase}.", False)
        if not any(figure_in(s) for s in relevant):
            if parts and not relevant:
                # the quantity's head word in no form anywhere ("mean age": no "age", "aged"): firm
                absent = not any(has_word(p[-1], low, stems, text) or close(p, text) for p in parts)
                return Missing(f"{who} reports no {phrase}.", absent)
            return Missing(f"{who} reports no figure for {phrase or 'this'}.", not soft)
    elif _KIND_OF.search(asked):
        # "what kind of datasets / foundation model": a description answers; the asked noun must occur
        last = WORD.findall(asked)[-1]  # "type of model": a description answers, no word to find
        if last.lower() not in GENERIC_ASKED and not has_word(last, low, stems, text):
            return Missing(f"{who} reports no {phrase}.", False)
    else:
        if kind:
            # "which datasets", "which base LLM": a named one, not the word ("a variety of datasets"), or its own name
            if not names_itself(written, text) and not names_instance(kind, sents, topic_names, common):
                return Missing(f"{who} names no {written or phrase or kind}.", True)
        else:
            # a thing is asked for ("which techniques", "what kinds of preference pairs"): the askers' words
            # vary, so the head noun of each part must occur anywhere in the abstract, or the part in other words;
            # a dimension ("bougie size", "learning rate") is a value of its modifier's: the phrase, or a sentence
            # with the modifier and a figure ("a 36-Fr bougie"); "sample size" or "deep learning" answer nothing
            for words in parts:
                if len(words) > 1 and words[-1].lower() in DIMENSIONS:  # its value: said with a figure
                    found = (any(phrase_present(words, s) and has_figure(s, given) for s in sents)
                             or figure_near(words[-2], text))
                    if not found and phrase_present(words, text):  # "a learning rate scheduler": named, no value
                        return Missing(f"{who} reports no {phrase}.", True)
                else:
                    found = has_word(words[-1], low, stems, text)
                if not (found or close(words, text)):
                    return Missing(f"{who} reports no {phrase}.", False)
    for c in changes:
        if not any(re.search(rf"(?<![a-z]){re.escape(v)}", low) for v in CHANGE[c]):
            return Missing(f"{who} reports no {phrase}.", False)
    return None


def states_asked(asked: str, sentence: str, exclude: tuple[str, ...] = (), common: Common | None = None) -> bool:
    """Does this one sentence state the asked thing: a named instance of an asked kind ("which corpus":
    "... evaluated on the Kiritan corpus"), or every part of the asked phrase?

    >>> states_asked("corpus", "Experiments on the Kiritan singing database show gains.")
    True
    >>> states_asked("batch size", "We train with a batch size of 256.")
    True
    >>> states_asked("batch size", "We train for 100 epochs.")
    False
    """
    kind = kind_asked(asked)
    if kind:
        return names_instance(kind, [sentence], exclude, common)
    parts, _ = asked_parts_of(asked)
    return bool(parts) and all(phrase_present(p, sentence) for p in parts)


def figure_evidence(question: str, text: str, given: frozenset[str], scorer: SupportScorer) -> float:
    """How well the abstract's best sentence that gives a figure (not one the question states, `given`) supports the
    question; 0.0 when no sentence gives one. What a soft miss of a "how many" ask is
    weighed with: only a figure answers it in other words."""
    sents = [s.text for s in split_sentences(text) if has_figure(s.text, given)]
    return float(scorer.matrix([question], sents).max()) if sents else 0.0
