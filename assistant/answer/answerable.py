"""Is the asked detail in the abstract? The check behind "The DiffMoE abstract reports no FID."

The topic of a question can be in the corpus while the detail asked about is not: a number the
abstract never gives, a metric or dataset it never names, a training setting abstracts rarely report.
`missing_detail(question, name, text)` returns what is missing, as a sentence to show, or "".

It checks, against the abstract of the paper the question is about:
1. every named detail term of the question ("FID", "MVBench", "LLaVA-NeXT") occurs in it
   (normalised: case, spaces and hyphens ignored);
2. the asked noun phrase ("batch size", "word error rate", "vocabulary sizes") occurs: each content
   word, or a known variant ("datasets" ~ benchmark / corpus), or its acronym ("WER");
3. for "how much / how many / what fraction" questions, some sentence that matches the question has
   a number.

>>> missing_detail(("DiffMoE",), ("FID",), "", False, "DiffMoE scales diffusion transformers on ImageNet.")
'The DiffMoE abstract reports no FID.'
>>> missing_detail(("TitaNet",), (), "batch size", False, "TitaNet reaches an EER of 0.68% on VoxCeleb1.")
'The TitaNet abstract reports no batch size.'
>>> missing_detail(("SELMA",), (), "word error rate", False, "SELMA cuts the word error rate (WER) by 10%.")
''
>>> missing_detail(("X",), (), "", True, "X is fast. It is simple.")
'The X abstract reports no figure for this.'
"""

from __future__ import annotations

import re

from ..index.sentences import split_sentences
from .linker import named_terms, norm
from .support import STOP, stem

GENERIC_ASKED = frozenset(
    "kind kinds type types sort way ways part parts role main key new specific exact particular aspect aspects "
    "thing things idea ideas problem problems goal goals purpose design changes change contribution contributions "
    "paper papers method methods approach work model models technique framework system they it authors "
    "fraction percentage percent share proportion ratio number amount much many value values techniques technique "
    "strategies strategy components component steps step mechanisms mechanism ingredients elements tricks "
    "architecture architectures pipeline procedure scheme structure setup score scores performance result results "
    "numbers figure figures".split()
)
CHANGE = {  # change words: the abstract must state a change of this direction (and, asked, a number)
    "gain": ("gain", "improv", "outperform", "increas", "boost", "higher", "better", "surpass"),
    "improvement": ("improv", "gain", "outperform", "increas", "boost", "higher", "better", "surpass"),
    "increase": ("increas", "improv", "gain", "higher", "boost"),
    "reduction": ("reduc", "decreas", "lower", "fewer", "cut", "less", "sav"),
    "decrease": ("decreas", "reduc", "lower", "fewer", "less"),
    "drop": ("drop", "decreas", "reduc", "lower"),
    "speedup": ("speed", "faster", "×", "accelerat"),
    "boost": ("boost", "improv", "gain", "increas"),
}
_SPLIT = re.compile(r"\s+(?:and|or|over|on|in|at|for|of|with|from|by|to|when|against|compared|across|per|between)\s+", re.I)
_FRACTION_ASK = re.compile(r"\b(?:fraction|percentage|percent|share|proportion|ratio)\b", re.I)
_FRACTION = re.compile(r"\d\s?%|(?<![\d.])0?\.\d+\b|\b\d+\s?/\s?\d+\b|\b(?:half|third|quarter|fifth|tenth)s?\b|\bper ?cent", re.I)
_NUMBER_WORDS = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twice|double|triple|half|dozens?|"
                           r"hundreds?|thousands?|millions?|orders? of magnitude|\w+fold)\b", re.I)
VARIANTS = {
    "dataset": ("dataset", "benchmark", "corpus", "corpora", "data"),
    "data": ("data", "dataset", "benchmark", "corpus", "corpora"),
    "benchmark": ("benchmark", "dataset", "task", "suite"),
    "param": ("param", "parameter", "weight"),
    "parameter": ("parameter", "param", "weight"),
    "accuracy": ("accuracy", "acc", "top-1", "precision", "f1"),
    "speed": ("speed", "fast", "throughput", "latency", "time"),
    "speedup": ("speedup", "speed-up", "faster", "×"),
    "result": ("result", "outperform", "improv", "achiev", "gain"),
    "limitation": ("limitation", "limit", "drawback", "fail", "challenge"),
    "metric": ("metric", "score", "accuracy", "error", "f1"),
}
_NUMBER = re.compile(r"\d")
GAP = 2
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")


def _words(phrase: str) -> list[str]:
    return [w for w in _WORD.findall(phrase) if w.lower() not in STOP and w.lower() not in GENERIC_ASKED and len(w) > 1]


_EVALUATED_ON = re.compile(
    r"(?i:\b(?:experiments?|evaluat\w+|tested|tests|results|trained|validated)\s+(?:\w+\s+){0,3}?(?:on|with|using|use)\s+(?:the\s+)?)[A-Z]"
)


def _has_word(word: str, text_low: str, stems: set[str], text: str = "") -> bool:
    s = stem(word)
    if s in ("dataset", "benchmark", "data") and _EVALUATED_ON.search(text):
        return True  # "Experiments on CIFAR-10 ..." names its datasets
    for v in VARIANTS.get(s, (s,)):
        if v in stems or (len(v) >= 4 and re.search(rf"(?<![a-z]){re.escape(v)}", text_low)):
            return True  # a word, or a word beginning ("improv" in "improves"), never inside another ("rate" in "accurate")
    return False


def _has_term(term: str, text: str) -> bool:
    return norm(term) in norm(text)


def _phrase_present(words: list[str], text: str) -> bool:
    """The words in this order with at most GAP words between them ("top-1 classification accuracy"
    for "top-1 accuracy"), or their acronym ("WER" for "word error rate")."""
    if len(words) == 1 and "-" not in words[0]:
        return _has_word(words[0], text.lower(), {stem(w) for w in _WORD.findall(text)}, text)
    acronym = "".join(w[0] for w in words).upper()
    if len(words) > 1 and re.search(rf"\b{re.escape(acronym)}s?\b", text):
        return True
    toks = [stem(w) for w in re.findall(r"[A-Za-z0-9]+", text)]
    want = [stem(w) for word in words for w in re.findall(r"[A-Za-z0-9]+", word)]
    for i, t in enumerate(toks):
        if t != want[0]:
            continue
        j, ok = i, True
        for w in want[1:]:
            nxt = next((k for k in range(j + 1, min(j + 2 + GAP, len(toks))) if toks[k] == w), None)
            if nxt is None:
                ok = False
                break
            j = nxt
        if ok:
            return True
    return False


def _asked_parts(asked: str) -> tuple[list[list[str]], list[str]]:
    """The asked phrase as noun-phrase parts (each a word list) and its change words."""
    parts, changes = [], []
    for chunk in _SPLIT.split(asked):
        words = []
        for w in _WORD.findall(chunk):
            lw = w.lower()
            if lw in CHANGE or stem(lw) in CHANGE:
                changes.append(lw if lw in CHANGE else stem(lw))
            elif lw not in STOP and lw not in GENERIC_ASKED and len(w) > 1 and not _NUMBER_WORDS.fullmatch(lw):
                words.append(w)
        if words:
            parts.append(words)
    return parts, changes


def missing_detail(topic_names: tuple[str, ...], details: tuple[str, ...], asked: str, numeric: bool, text: str,
                   heads_only: bool = False) -> str:
    who = f"The {topic_names[0]} abstract" if topic_names else "The best-matching abstract"
    for t in details:
        if not _has_term(t, text):
            return f"{who} reports no {t}."
    named = named_terms(asked)
    for t in named:
        if not _has_term(t, text):
            return f"{who} reports no {asked.strip()}."
    for t in named:
        asked = asked.replace(t, " ")
    parts, changes = _asked_parts(asked)
    if heads_only:  # a paraphrase: the asker's own words throughout; only a non-numeric head is checked
        changes, numeric = [], False
    low = text.lower()
    stems = {stem(w) for w in _WORD.findall(text)}
    sents = [s.text for s in split_sentences(text)]
    if numeric or changes or (_FRACTION_ASK.search(asked) and not heads_only):
        # a value is asked for: some sentence must name the asked quantity (the phrase, in order) and give a figure
        pattern = _FRACTION if _FRACTION_ASK.search(asked) else None
        has_figure = (lambda s: pattern.search(s)) if pattern else (lambda s: _NUMBER.search(s) or _NUMBER_WORDS.search(s))
        if parts:
            relevant = [s for s in sents if all(_phrase_present(p, s) for p in parts)]
        else:  # "what score does X reach on Cityscapes": the sentence that names the setting
            relevant = [s for s in sents if all(_has_term(t, s) for t in details)] or sents
        if not any(has_figure(s) for s in relevant):
            if parts and not relevant:
                return f"{who} reports no {' '.join(asked.split())}."
            return f"{who} reports no figure for {' '.join(asked.split()) or 'this'}."
    else:
        # a thing is asked for ("which techniques", "what kinds of preference pairs"): the askers' words vary,
        # so the head noun of each part must occur, anywhere in the abstract
        for words in parts:
            if not _has_word(words[-1], low, stems, text):
                return f"{who} reports no {' '.join(asked.split())}."
    for c in changes:
        if not any(re.search(rf"(?<![a-z]){re.escape(v)}", low) for v in CHANGE[c]):
            return f"{who} reports no {' '.join(asked.split())}."
    return ""
