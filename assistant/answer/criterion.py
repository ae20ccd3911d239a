"""A topic or a list's criterion read as words, and whether a paper's text uses them: its content words
(`topic_words`), the facets a preposition attaches to it (`facets`: "spiking neural networks | for object
detection"), whether it names a topic in a few words or describes one; a word used in some form (`uses_word`:
"sign" is not "design", "LLMs" is "large language models"). Nothing here reads the corpus (topics.py does).
"""

from __future__ import annotations

import re

from ..types import Hit
from .nameforms import definitions, norm
from .support import STOP, stem
from .words import FUNCTION_WORDS

TOPIC_WORDS = 4  # a criterion of at most this many content words names a topic (longer ones describe it) ...
# ... unless a clause
_CLAUSE = re.compile(r"\b(?:where|when|how|why|that|which|who|whose|is|are|was|were|been|being)\b", re.I)
# the examples a topic gives of itself, to its end: "..., e.g. with transformers", "(such as YOLO)", "like BERT or GPT"
_EXAMPLE_LEAD = r"(?:e\.\s?g\.?|for example|for instance|such as)"
EXAMPLES = re.compile(rf"[,;]?\s*\(?\b{_EXAMPLE_LEAD}\s.*$|\s*[,;(]\s*(?:like|including)\s.*$", re.I)
# ... and within a question, to the bracket or the question mark that closes them
_EXAMPLES_IN = re.compile(rf"\s*\(\s*(?:{_EXAMPLE_LEAD}|like|including)[\s,][^()]*\)"
                          rf"|[,;]?\s*\b{_EXAMPLE_LEAD}[\s,][^?!()]*|\s*[,;]\s*(?:like|including)\s[^?!()]*", re.I)


def without_examples(question: str) -> str:
    """The question without the examples it gives of its topic, which are no part of the frame that asks for it
    (an example may sit between a topic and the rest of its description). Examples run to a closing bracket or to
    the end of the sentence.

    >>> without_examples("Is there a paper on theorem proving, e.g. in Lean or Isabelle?")
    'Is there a paper on theorem proving?'
    >>> without_examples("Any paper on watermarking LLM text (e.g., green/red lists) so it can be detected?")
    'Any paper on watermarking LLM text so it can be detected?'
    >>> without_examples("Any paper on proofs in assistants such as Lean, Coq or Isabelle? What do they report?")
    'Any paper on proofs in assistants? What do they report?'
    >>> without_examples("What does the model look like?")
    'What does the model look like?'
    """
    return _EXAMPLES_IN.sub("", question).strip()


# what a description sets its topic against ("using court records instead of economic data"): no part of it
_CONTRAST_IN = re.compile(r"\s*,?\s*\b(?:instead of|rather than|as opposed to)\s[^,;.?!()]*", re.I)


def without_contrast(question: str) -> str:
    """The question without what it sets its topic against, which a paper on the topic need not cover (the asker's
    words for the alternative the paper replaces). A contrast runs to the next punctuation.

    >>> without_contrast("There's a paper that predicts city FDI from court records instead of GDP statistics.")
    "There's a paper that predicts city FDI from court records."
    >>> without_contrast("Which paper uses pooling rather than attention, and how well does it do?")
    'Which paper uses pooling, and how well does it do?'
    >>> without_contrast("Which paper uses pooling as its token mixer?")
    'Which paper uses pooling as its token mixer?'
    """
    return _CONTRAST_IN.sub("", question).strip()


def as_written(phrase: str, text: str) -> str:
    """A phrase read as words (`tokens`: "people s voice recordings") as the text writes it ("people's voice
    recordings"), or the phrase itself when the text does not hold it.

    >>> as_written("people s voice recordings", "detects depression from people's voice recordings")
    "people's voice recordings"
    >>> as_written("voice", "speech"), as_written("x-ray images", "chest X-ray images")
    ('voice', 'X-ray images')
    """
    words = phrase.split()
    m = re.search(r"[\s'’]+".join(map(re.escape, words)), text, re.I) if words else None
    return m.group(0) if m else phrase


LIST_WORDS = frozenset("paper papers work works study studies abstract abstracts article articles method methods "
                       "approach approaches model models collection corpus".split())


def key_of(word: str) -> str:
    return norm(stem(word))[:6]  # "protein" -> "protei": any ending, any spacing


def keys(alternatives: list[list[str]]) -> list[list[str]]:
    """Distinctive words as the stem prefixes a paper's normalised text is searched for."""
    return [[key_of(w) for w in alt] for alt in alternatives]


def uses_distinctive(hit: Hit, keys: list[list[str]]) -> bool:
    """The paper's label or abstract uses one of some alternative's distinctive words (`TopicWords.distinctive`)."""
    text = norm(f"{hit.title} {hit.text}")
    return any(any(k in text for k in alt) for alt in keys)


def uses_every_word(hit: Hit, alternatives: list[list[str]]) -> bool:
    """The paper's label or abstract uses every word of some alternative as a word (any ending: "Kalman" in
    "Kalman filter", not "tackle" in "tackled" ... nor "conformal" in "conformance")."""
    text = f"{hit.title} {hit.text}"
    stems, normed = stems_of(text), norm(text)
    return any(alt and all((norm(w) in normed) if "-" in w else stem(w) in stems for w in alt) for alt in alternatives)


def stems_of(text: str) -> set[str]:
    """The stems of a text's words and of the parts of its hyphenated words."""
    words = re.findall(r"[A-Za-z][\w\-]*", text)
    return {stem(w) for w in words + [part for w in words if "-" in w for part in w.split("-")]}


def tokens(criterion: str) -> list[str]:
    """A criterion's words, as `essential_words` embeds it with and without each ("electrocardiogram ECG data")."""
    return re.findall(r"[A-Za-z][\w\-]*", criterion)


def spelled_out(criterion: str) -> list[tuple[str, set[str]]]:
    """Acronyms a criterion defines (`nameforms.definitions`), with the words right before that they abbreviate.

    >>> [(acronym, sorted(words)) for acronym, words in spelled_out("variants of rotary positional embeddings (RoPE)")]
    [('RoPE', ['embeddings', 'positional', 'rotary'])]
    """
    return [(acronym, set(long.split())) for acronym, long in defined_forms(criterion)]


def defined_forms(criterion: str) -> list[tuple[str, str]]:
    """Each acronym a criterion defines with its long form as written: either names the same thing (a possessive's
    "s" is no word of it).

    >>> defined_forms("papers that involve the Model Context Protocol (MCP)")
    [('MCP', 'Model Context Protocol')]
    >>> defined_forms("results on Humanity's Last Exam (HLE)")
    [('HLE', "Humanity's Last Exam")]
    """
    out = []
    for acronym, at in definitions(criterion):
        letters = re.sub(r"[^A-Z]", "", acronym)
        words = [m for m in re.finditer(r"[A-Za-z][\w\-]*", criterion[:at]) if m.group(0) != "s"][-len(letters):]
        if len(words) == len(letters) and "".join(m.group(0)[0] for m in words).upper() == letters:
            out.append((acronym, criterion[words[0].start():words[-1].end()]))
    return out


def _acronym_of(word: str, text: str) -> bool:
    """An acronym the text spells out as words ("LLMs": "large language models")."""
    letters = re.sub(r"s$", "", word).lower()
    if not (2 <= len(letters) <= 6 and re.fullmatch(r"[A-Z]{2,6}s?", word)):
        return False
    return letters in "".join(w[0].lower() for w in re.findall(r"[A-Za-z]+", text))  # consecutive words' initials


def uses_word(word: str, text: str, stems: set[str] | None = None) -> bool:
    """The text uses the word in some form: the same stem ("sign", "signs"; not "design" nor "signal"), a longer
    word on a stem of five letters or more ("music", "musical"), a part of a hyphenated word, or for an acronym
    its spelled-out words. `stems`: the text's (`stems_of`), when the caller has them.

    >>> uses_word("sign", "We design signal filters."), uses_word("robots", "robotic arms")
    (False, True)
    >>> uses_word("LLMs", "Large language models are tested."), uses_word("LLMs", "Language models are tested.")
    (True, False)
    """
    s = stem(word)
    return (any(t == s or (len(s) >= 5 and t.startswith(s)) for t in (stems_of(text) if stems is None else stems))
            or _acronym_of(word, text))


def topic_words(criterion: str) -> tuple[tuple[str, str], ...]:
    """A criterion's content words, each with the criterion without it (as `TopicWords.lacks` takes them).

    >>> topic_words("person re-identification across cameras")[0]
    ('person', 're-identification across cameras')
    """
    toks = tokens(criterion)
    return tuple((t, " ".join(toks[:i] + toks[i + 1:])) for i, t in enumerate(toks)
                 if len(t) >= 3 and t.lower() not in STOP and t.lower() not in LIST_WORDS)


# a preposition that attaches a facet to a topic: "spiking neural networks | for object detection", "3D object
# detection | from LiDAR point clouds | for self-driving cars"
_PREPOSITIONS = "for|from|in|on|with|between|using|via|across|under|over"
_FACET = re.compile(rf"\b(?:{_PREPOSITIONS})\s+((?:(?!\b(?:{_PREPOSITIONS}|that|which|where|to)\b)[\w\-]+\s*)+)", re.I)


def facets(criterion: str) -> tuple[tuple[str, str], ...]:
    """The facets a criterion attaches to its topic with a preposition, of two or more content words, each with
    the criterion without the preposition and facet (as `topic_words` pairs a word with the rest).

    >>> [f for f, _ in facets("spiking neural networks for object detection")]
    ['object detection']
    >>> facets("trajectory prediction for autonomous driving")[0][1]
    'trajectory prediction'
    """
    toks = " ".join(tokens(criterion))
    spans: list[tuple[int, int, str]] = []
    for m in _FACET.finditer(toks):
        if spans and re.search(r"\bor\s*$", spans[-1][2]):  # "for X or for Y": one facet, two alternatives
            spans[-1] = (spans[-1][0], m.end(), f"{spans[-1][2].strip()} {m.group(1)}")
        else:
            spans.append((m.start(), m.end(), m.group(1)))
    return tuple((facet.strip(), " ".join((toks[:start] + toks[end:]).split()))
                 for start, end, facet in spans if len(topic_words(facet)) >= 2)


# a word linking the parts of a description: a preposition, "to", a relative word or a participle ("graph neural
# networks | to predict | drug-target binding affinity", "a distillation method | designed for | graph data")
_LINK = re.compile(r"(?<![\w\-])(for|from|in|on|with|between|using|via|across|under|over|to|into|about|by|that|"
                   r"which|when|where|without|against|after|before|during|based|designed|applied|applying|used)"
                   r"(?![\w\-])", re.I)


def parts(description: str) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """The parts of a description its linking words separate, each with its content words (as `topic_words` takes
    them) and the description without it (and the word linking it); parts without content words are left out.

    >>> [(p, w) for p, w, _ in parts("graph neural networks to predict binding affinity")]
    [('graph neural networks', ('graph', 'neural', 'networks')), ('predict binding affinity', ('predict', 'binding', \
'affinity'))]
    >>> parts("graph neural networks to predict binding affinity")[1][2]
    'graph neural networks'
    >>> parts("graph neural networks for binding affinity in proteins")[1][2]
    'graph neural networks in proteins'
    """
    seq = _LINK.split(description)  # piece, link, piece, link, ..., piece
    out = []
    for i in range(0, len(seq), 2):
        words = tuple(w for w, _ in topic_words(seq[i]))
        if words:
            gone = {i, i - 1 if i else i + 1}  # the part and the link before it (the first part: the one after it)
            rest = " ".join(x for j, x in enumerate(seq) if j not in gone)
            out.append((seq[i].strip(), words, " ".join(tokens(rest))))
    return tuple(out)


def facet_words(alternative: str) -> list[str]:
    """The words a paper must use to cover one alternative of a facet: its content words, without a verb opening
    it ("measuring cultural bias": a paper on "evaluating cultural bias" covers it).

    >>> facet_words("measuring cultural bias"), facet_words("federated learning")
    (['cultural', 'bias'], ['federated', 'learning'])
    """
    words = [w for w, _ in topic_words(alternative)]
    return words[1:] if len(words) > 1 and words[0].endswith("ing") and words[0] == alternative.split()[0] else words


def named_words(criterion: str) -> tuple[tuple[str, str], ...]:
    """The content words of a criterion that names a topic in a few words and no clause (as `topic_words`), else ().

    >>> [w for w, _ in named_words("person re-identification across surveillance cameras")]
    ['person', 're-identification', 'surveillance', 'cameras']
    >>> named_words("robots that learn to walk from videos of animals running in the wild")
    ()
    """
    words = tuple((w, rest) for w, rest in topic_words(criterion) if w.lower() not in FUNCTION_WORDS)
    return words if len(words) <= TOPIC_WORDS and not _CLAUSE.search(criterion) else ()


def has_clause(criterion: str) -> bool:
    """A criterion with a clause describes its topic in the asker's words ("predict where on Earth a photo was taken").

    >>> has_clause("predict where on Earth a photo was taken"), has_clause("3D object detection from LiDAR")
    (True, False)
    """
    return bool(_CLAUSE.search(criterion))


def names_topic(criterion: str) -> bool:
    """A short criterion without a clause names a topic ("protein language models"); a longer one, or one with a
    clause, describes it in the asker's words ("predict where on Earth a photo was taken").

    >>> names_topic("protein language models"), names_topic("predict where on Earth a photo was taken")
    (True, False)
    """
    words = [w for w in re.findall(r"\b[a-z][a-z\-]{2,}\b", criterion.lower()) if w not in STOP and w not in LIST_WORDS]
    return not _CLAUSE.search(criterion) and len(words) <= TOPIC_WORDS


def writes_form(word: str, text: str, stems: set[str]) -> bool:
    """The text uses the word in some form (`uses_word`; a word of six letters or more also by its first six,
    "depression" in "depressive"), a compound when it uses each of its parts ("corruption-robustness" in
    "robustness under corruptions"). `stems`: the text's (`stems_of`).

    >>> text = "Robustness under corruptions in depressive disorder."
    >>> [writes_form(w, text, stems_of(text)) for w in ("corruption-robustness", "depression", "anxiety")]
    [True, True, False]
    """
    pieces = [p for p in word.split("-") if len(p) >= 3 and p.lower() not in STOP]
    return (uses_word(word, text, stems) or (len(word) >= 6 and key_of(word) in norm(text))
            or ("-" in word and bool(pieces) and all(uses_word(p, text, stems) for p in pieces)))


def writes(word: str, text: str, stems: set[str], spelled: list[tuple[str, set[str]]]) -> bool:
    """The text writes an essential word of a criterion in some form (`uses_word`; an acronym the criterion defines
    for it counts, `spelled_out`), or, for a facet, every content word of one of its alternatives (`facet_words`).
    `stems`: the text's (`stems_of`).

    >>> text = "Spiking networks for the detection of objects."
    >>> writes("object detection", text, stems_of(text), []), writes("tracking", text, stems_of(text), [])
    (True, False)
    """
    if " " in word:  # a facet ("for object detection")
        alternatives = re.split(r"\s+(?:or|and)\s+", word)
        return any(all(uses_word(w, text, stems) for w in facet_words(alt)) for alt in alternatives)
    return uses_word(word, text, stems) or any(word in words and uses_word(acronym, text, stems)
                                               for acronym, words in spelled)
