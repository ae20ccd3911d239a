"""Figures and measures: is there a value in a sentence, and of the asked kind?

`has_figure` finds a number standing on its own ("3.71%", "42.8B tokens", "five datasets"), not a digit in a
name ("CIFAR-10", "GPT-4o"), a formula, an enumeration or a citation, and not a number the question itself
states. `MEASURES` are the kinds of value a question may name ("how long", "in millijoules", "in GB"): the
abstract must then state a value of that kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .support import stem

# the number words, one list for every module ("which two LLMs", "the first three", "five datasets")
NUMBER_VALUES = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())} | {"thirty": 30, "forty": 40, "fifty": 50}
_TENS = {w: v for w, v in NUMBER_VALUES.items() if v >= 20} | {"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_WRITTEN = re.compile(rf"\b({'|'.join(_TENS)})(?:[\s\-]({'|'.join(list(NUMBER_VALUES)[1:10])}))?\b"
                      rf"|\b({'|'.join(list(NUMBER_VALUES)[2:20])})\b", re.I)


def counts_in(text: str) -> set[int]:
    """The whole numbers a text states as counts, in digits or in words ("Forty-four patients", "44 patients");
    a length of time is no count ("the 10-year review", "ten years", "24 hours").

    >>> sorted(counts_in("Forty-four patients (20 women) and twelve controls; 3.5 mg"))
    [12, 20, 44]
    >>> sorted(counts_in("a 10-year review of 14 patients, followed for three years"))
    [14]
    """
    def timed(m: re.Match) -> bool:
        return bool(_TIMED.match(text, m.end()))

    out = {int(m.group(0)) for m in re.finditer(r"(?<![\d.,])\d{1,6}(?![\d.,]\d)", text) if not timed(m)}
    for m in _WRITTEN.finditer(text):
        if timed(m):
            continue
        if m.group(1):
            out.add(_TENS[m.group(1).lower()] + (NUMBER_VALUES[m.group(2).lower()] if m.group(2) else 0))
        else:
            out.add(NUMBER_VALUES[m.group(3).lower()])
    return out


CARDINAL = "(?:" + "|".join(w for w in NUMBER_VALUES if w != "zero") + ")"
NUMBER_WORDS = re.compile(rf"\b(?:{CARDINAL[3:-1]}|twice|double|triple|half|dozens?|"
                          r"hundreds?|thousands?|millions?|orders? of magnitude|\w+fold)\b", re.I)
# a figure: a number standing on its own ("3.71%", "7,964 samples", "42.8B tokens", "1.8x", "16-bit"), or a range
# ("7-9%", "20-75%"), not a digit inside a name ("CIFAR-10", "GPT-4o", "CSI300"), a formula ("sum_{i=1}", "x^2"),
# an enumeration "(1)" or a citation "[2]"
_FIGURE = re.compile(r"(?<![\w^_{=@.\-/])\d+(?:[.,]\d+)*(?:[-–]\d+(?:[.,]\d+)*)?"
                     r"(?:\s?%|\s?×|(?:x|k|K|M|B|T|G|GB|MB|TB|ms|s|h|fps)\b|-[a-z]|(?![\w\-^]))")
_NOT_FIGURE = re.compile(r"\(\s*(?:\d{1,2}|[ivx]{1,4}|[a-e])\s*\)|\[\d+(?:[,\s–-]+\d+)*\]")


def has_figure(sentence: str, given: frozenset[str] = frozenset()) -> bool:
    """A number (see _FIGURE) or a number word ("five datasets", "only one forward pass"), but not "one"
    opening the sentence or as a pronoun ("One global model serves many clients", "one of", "one another"),
    and not one the question itself states (`given`, lower case: "the two benchmarks" answers no "how many").

    >>> [has_figure(s) for s in ("Gains of 3.71%.", "On CIFAR-10 and GPT-4o.", "It uses 42.8B tokens.", "(1) a pool")]
    [True, False, True, False]
    >>> has_figure("It surpasses earlier methods by 7-9% on average."), has_figure("A 20-75% parameter reduction.")
    (True, True)
    >>> has_figure("We introduce two benchmarks.", frozenset({"two"}))
    False
    >>> has_figure("Counseling is a process, not a one-time event."), has_figure("It keeps one model per client.")
    (False, True)
    """
    if any(m.group(0).lower() not in given for m in _FIGURE.finditer(_NOT_FIGURE.sub(" ", sentence))):
        return True
    for m in NUMBER_WORDS.finditer(sentence):
        if m.group(0).lower() in given:
            continue
        if m.group(0).lower() != "one":
            return True
        if m.start() > 0 and not re.match(r"\s+(?:of|another|or|such|can|may|might|would|could|should)\b|-[a-z]",
                                          sentence[m.end():]):  # (not "a one-time event" either)
            return True
    return False


def figures_in(question: str) -> frozenset[str]:
    """The numbers and number words a question states ("the two benchmarks", "top-5"), lower case."""
    return frozenset(m.group(0).lower() for rx in (_FIGURE, NUMBER_WORDS) for m in rx.finditer(question))


def figure_strings(text: str) -> set[str]:
    """The figures of a text as written, lower case, without spaces ("75%", "29.6", "45").

    >>> sorted(figure_strings("a 75 % rate, 29.6 days, CIFAR-10"))
    ['29.6', '75%']
    """
    return {re.sub(r"\s+", "", m.group(0).lower()) for m in _FIGURE.finditer(text)}


# a unit of time after a quantity ("3 days", "120 ms", "one-year")
_TIME_UNIT = (r"(?:ms|milliseconds?|s|secs?|seconds?|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|"
              r"GPU[- ]?(?:hours?|days?))")
_TIMED = re.compile(rf"[\s\-]*{_TIME_UNIT}\b", re.I)  # right after a number: a length of time, not a count
MEASURES = {  # "how long ...?", "in millijoules": the abstract must state a value of that kind, not just any number
    # "how long": a time ("from days to hours", "30-day", "an hour") or a length; a lone singular unit is no
    # duration ("the day before surgery")
    "duration": ("time or duration", re.compile(
        r"\b(?:ms|milliseconds|seconds|minutes|mins|hours|hrs|days|weeks|months|years|epochs|GPU[- ]?(?:hours|days))\b"
        rf"|(?:\d[\d.,]*\s*-?\s*|\b(?:{CARDINAL[3:-1]}|an?|half an?|a few|several)(?:\s*-\s*|\s+))"
        rf"(?:{_TIME_UNIT}|epochs?)\b"  # (a word and its unit apart: "as" and "ones" are no "a s", "one s")
        r"|\d[\d.,]*\s*(?:s|sec|h|steps?|iterations?|rounds?|tokens?|frames?|words?)\b", re.I)),
    "time": ("time figure", re.compile(  # a unit asked ("in seconds"): a number with a time unit, "3 days", "120 ms"
        rf"(?:\d[\d.,]*\s*-?\s*|\b(?:{CARDINAL[3:-1]}|a few|several|"
        rf"hundreds of|thousands of)(?:\s*-\s*|\s+)){_TIME_UNIT}\b", re.I)),
    "energy": ("energy figure",
               re.compile(r"\d[\d.,]*\s*(?:[mkµμ]?J|[mk]?Wh|[mk]?W)\b|\b(?:milli|kilo)?joules?\b|\bwatts?\b")),
    "memory": ("memory figure", re.compile(r"\d[\d.,]*\s*(?:[KMGT]i?B|bytes?)\b|\b(?:kilo|mega|giga|tera)bytes\b")),
}


def counts(noun: str, sents: list[str], given: frozenset[str] = frozenset(),
           same: Callable[[str], bool] | None = None) -> bool:
    """Some sentence gives a figure that counts the noun: the noun in any form within the four words after the
    figure ("12 annotators", "twelve trained annotators"; "115 abstracts" counts no annotators), or those words
    say it otherwise (`same`, given them). Figures the question states (`given`) count nothing.

    >>> counts("annotators", ["A corpus of 115 abstracts was annotated."]), counts("annotators", ["Two annotators."])
    (False, True)
    >>> counts("examples", ["228K examples in 18 sub-tasks."]), counts("savings", ["It gives 8x parameter savings."])
    (True, True)
    """
    head = stem(noun)
    for s in sents:
        for m in re.finditer(rf"(?<![\w.])(?:\d[\d,.]*[KkMBx×]?|{CARDINAL})(?!\w)", s, re.I):  # "228K", "8x"
            if m.group(0).lower() in given:
                continue
            after = re.findall(r"[A-Za-z][A-Za-z0-9\-]*", s[m.end():])[:4]
            if after and (any(stem(w) == head for w in after) or (same is not None and same(" ".join(after)))):
                return True
    return False
