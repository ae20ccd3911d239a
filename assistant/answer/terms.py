"""Where a term stands in an abstract: written as is, spelled out ("FID" as "Frechet Inception Distance"), and
the sentences that speak of it (the one naming it and the next one that refers back to it); a word or phrase of an
asked detail in any form (`has_word`, `phrase_present`), a figure next to a word (`figure_near`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..ingest.longforms import expansion
from .instances import EVALUATED_ON, WORD
from .nameforms import named_terms, norm
from .support import STOP, stem

_GLOSS = re.compile(r"\s*\([^()]{1,20}\)")  # a short gloss in brackets: "the Minimal Video Pairs (MVP) benchmark"


def has_term(term: str, text: str) -> bool:
    """The text writes the term: in any case and spacing, with a short gloss in brackets between its words, or
    spelled out (an acronym).

    >>> has_term("Minimal Video Pairs benchmark", "the Minimal Video Pairs (MVP) benchmark"), has_term("MVP", "MVPs")
    (True, True)
    """
    key = norm(term)
    plain, unglossed = _normed(text)
    return key in plain or key in unglossed or spelled_out(term, text) or spelled_compound(term, text)


@lru_cache(maxsize=256)
def _normed(text: str) -> tuple[str, str]:
    """The text normalised, and without its short bracketed glosses ("" when it has none); `has_term` asks this of
    each abstract once per term, so it is kept for the last texts."""
    return norm(text), (norm(_GLOSS.sub("", text)) if "(" in text else "")


_TITLE_CASE = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][\w\-]*)+")  # "Minimal Video Pairs": a name, not "LLM backbone"


def names_itself(asked: str, text: str) -> bool:
    """The thing asked is given by its own name in title case, and the text writes it ("What is the Minimal Video
    Pairs benchmark?"); a capitalised kind alone is no name ("Which LLM backbone ...?").

    >>> names_itself("Minimal Video Pairs benchmark", "the Minimal Video Pairs (MVP) benchmark")
    True
    >>> names_itself("LLM backbone", "an LLM backbone"), names_itself("Minimal Video Pairs benchmark", "a benchmark")
    (False, False)
    """
    return bool(_TITLE_CASE.search(asked)) and has_term(asked, text)


def spelled_compound(term: str, text: str) -> bool:
    """An acronym joined to a word ("QA-pair", "RL-based") the abstract writes out, the word right after the spelled
    words ("question answer pairs"); the word pins the spelling, so two letters do.

    >>> spelled_compound("QA-pair", "a dataset with 1.6M question answer pairs"), spelled_compound("QA-pair", "QA")
    (True, False)
    >>> spelled_compound("RL-based", "results largely based"), spelled_compound("ML model", "a more lightweight model")
    (False, False)
    """
    m = re.fullmatch(r"([A-Z]{2,6})s?[-\s]([A-Za-z][a-z]+)", term)
    if not m:
        return False
    letters, word = m.group(1), stem(m.group(2))
    # content words only ("more", "results" spell nothing), a short word breaking the run as in `spelled_out`
    words = [w if len(w) > 2 and w.lower() not in STOP else "" for w in re.findall(r"[A-Za-z]+", text)]
    n = len(letters)
    return any(all(words[i + j][:1].upper() == letters[j] for j in range(n)) and stem(words[i + n] or "-") == word
               for i in range(len(words) - n))


_SKIP = frozenset("of and for the to in on a an".split())


def spelled_out(term: str, text: str) -> bool:
    """An acronym the abstract writes out: "FID" in "Frechet Inception Distance", "ASR" in "speech recognition"
    (the spelled-out words may drop one leading qualifier, "automatic"). Three letters, two words at least.

    >>> spelled_out("ASR", "End-to-end models reach state-of-the-art performance for speech recognition.")
    True
    >>> spelled_out("FID", "We report top-1 accuracy.")
    False
    """
    acro = re.sub(r"s$", "", term)
    if not re.fullmatch(r"[A-Z]{3,6}", acro):  # two letters ("RL") spell too many word pairs
        return False
    words = [w for w in re.findall(r"[A-Za-z]+", text) if w.lower() not in _SKIP]
    runs = "".join(w[0].upper() if len(w) > 2 else " " for w in words).split()  # a short word breaks a run
    return any(acro in run or acro[1:] in run for run in runs)


def abbreviated(phrase: str, text: str) -> str:
    """The abstract's acronym for two or more consecutive words of the asked `phrase`, an acronym in the phrase
    kept whole ("relative WER reduction": "WERR"; "intersection over union": "IoU"), or "" when it has none.

    >>> abbreviated("relative WER reduction", "We get an average of 49% WERR over the USM-CTC baseline.")
    'WERR'
    >>> abbreviated("mean absolute error", "The MAE fell to 0.03."), abbreviated("mean absolute error", "Errors fell.")
    ('MAE', '')
    >>> abbreviated("hazard ratio", "Mortality rose (HR: 1.74)."), abbreviated("hazard ratio", "The HR team met.")
    ('HR', '')

    Two letters also where the abstract defines them for those very words ("question-answer (QA)"), not for others:

    >>> text = "A question-answer (QA) benchmark. It comprises 69,225 QA pairs."
    >>> abbreviated("question-answer pairs", text), abbreviated("quality assessment", text)
    ('QA', '')
    """
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", phrase) if w.lower() not in _SKIP]
    letters = [w if re.fullmatch(r"[A-Z][A-Z0-9]+", w) else w[0].upper() for w in words]
    found = {t.upper(): t for t in re.findall(r"\b[A-Za-z]*[A-Z][A-Za-z]*[A-Z][A-Za-z]*\b", text)}  # 2+ capitals
    for n in range(len(letters), 1, -1):
        for i in range(len(letters) - n + 1):
            short = "".join(letters[i:i + n])
            if short in found and (len(short) >= 3 or re.search(rf"\b{found[short]}\s*[:=]?\s*\d", text)
                                   or _defined_for(found[short], words[i:i + n], text)):
                return found[short]  # (two letters only where a value follows them, "HR: 1.74", or defined for them)
    return ""


def _defined_for(acronym: str, words: list[str], text: str) -> bool:
    """The text defines the acronym for these words: "question-answer (QA)" for question, answer."""
    long = re.findall(r"[A-Za-z][A-Za-z0-9]*", expansion(text, acronym, exact=True).lower())
    return bool(long) and long == [w.lower() for w in words]


_REFERS = re.compile(r"\b(?:it|its|they|them|their|these|those|this|both|each|respectively|there)\b", re.I)


def following(sents: list[str], keep: list[bool], details: tuple[str, ...] = ()) -> list[str]:
    """The kept sentences and the sentence after each that refers back to it ("We test on A and B. Results
    on them outperform SOTA by 3.7%"): a figure there is a figure for what the kept one names, unless it
    names one of the kept one's other things ("We test on A and B. It reaches 96% on A" says nothing of B)."""
    out = []
    for i, s in enumerate(sents):
        if keep[i]:
            out.append(s)
        elif i and keep[i - 1] and _REFERS.search(s):
            siblings = {norm(t) for t in named_terms(sents[i - 1])} - {norm(t) for t in details}
            if not siblings & {norm(t) for t in named_terms(s)}:
                out.append(s)
    return out


VARIANTS = {
    "dataset": ("dataset", "benchmark", "corpus", "corpora", "data"),
    "data": ("data", "dataset", "benchmark", "corpus", "corpora"),
    "benchmark": ("benchmark", "dataset", "task", "suite"),
    "param": ("param", "parameter", "weight"),
    "parameter": ("parameter", "param", "weight"),
    "accuracy": ("accuracy", "acc", "top-1", "precision", "f1", "performance of"),
    "speed": ("speed", "fast", "throughput", "latency", "time"),
    "speedup": ("speedup", "speed-up", "faster", "×"),
    "result": ("result", "outperform", "improv", "achiev", "gain"),
    "limitation": ("limitation", "limit", "drawback", "fail", "challenge"),
    "metric": ("metric", "score", "accuracy", "error", "f1"),
}
GAP = 2


_PREFIX = re.compile(r"^(?:sub|multi|pre|post|re|non|co|inter|intra|cross|self|semi|over|under)-?(?=[a-z]{4,})")


def has_word(word: str, text_low: str, stems: set[str], text: str = "") -> bool:
    """The word in the abstract (lower-cased `text_low`, its `stems`): as a word or word beginning, a known
    variant ("datasets" ~ benchmark), or without a prefix ("subscores": "score")."""
    bare = _PREFIX.sub("", word.lower())
    if bare != word.lower() and has_word(bare, text_low, stems, text):
        return True  # "subscores": a prefixed word is answered by its stem ("the continence score")
    s = stem(word)
    if s in ("dataset", "benchmark", "data") and EVALUATED_ON.search(text):
        return True  # "Experiments on CIFAR-10 ..." names its datasets
    for v in VARIANTS.get(s, (s,)):
        if v in stems or (len(v) >= 4 and re.search(rf"(?<![a-z]){re.escape(v)}", text_low)):
            # a word, or a word beginning ("improv" in "improves"), never inside another ("rate" in "accurate")
            return True
    return False


def phrase_present(words: list[str], text: str) -> bool:
    """The words in this order with at most GAP words between them ("top-1 classification accuracy"
    for "top-1 accuracy"), or their acronym ("WER" for "word error rate")."""
    if len(words) == 1 and "-" not in words[0]:
        return has_word(words[0], text.lower(), {stem(w) for w in WORD.findall(text)}, text)
    acronym = "".join(w[0] for w in words).upper()
    if len(words) > 1 and re.search(rf"\b{re.escape(acronym)}s?\b", text):
        return True
    toks = [stem(w) for w in re.findall(r"[A-Za-z0-9]+", text)]
    want = [stem(w) for word in words for w in re.findall(r"[A-Za-z0-9]+", word)]
    if len(want) > 1 and stem("".join(w.lower() for word in words for w in re.findall(r"[A-Za-z0-9]+", word))) in toks:
        return True  # "run time" as "runtime", "data set" as "dataset"
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


def figure_near(word: str, text: str, window: int = 2) -> bool:
    """A number within `window` words of `word` ("a 36-Fr bougie", "particles of 500 um"): a value of it.

    >>> figure_near("bougie", "A 36-Fr bougie was used."), figure_near("learning", "Deep learning ran on 5 qubits.")
    (True, False)
    """
    toks = [re.sub(r"\W+$", "", t) for t in re.findall(r"\S+", text)]
    digit = [bool(re.search(r"\d", t)) for t in toks]
    near = [any(digit[max(0, i - window):i] + digit[i + 1:i + window + 1]) for i in range(len(toks))]
    return any(near[i] and has_word(word, t.lower(), {stem(t)}, t) for i, t in enumerate(toks))
