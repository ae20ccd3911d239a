"""A list's criterion as read for checking papers against it: its topic without what papers do with it
(`criterion_core`), the proper names a listed paper must write (`proper_phrases`), and the whole reading as one
record (`ListCriterion`), built once per list and used for every candidate (`listsize.meets`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .alternatives import one_of_alternatives
from .criterion import defined_forms, has_clause, keys, tokens
from .nameforms import norm
from .state import Prepared
from .support import content_words
from .topics import TopicWords, names_topic
from .words import is_word

# what a criterion says papers do with its topic: "evaluate on KITTI", "deploy their models on microcontrollers"
_DOING = re.compile(
    r"^(?:(?:do|does|use|uses|used|using|involve|involves|involved|involving|propose|proposes|study|studies|studied|address|"
    r"addresses|apply|applies|employ|employs|examine|examines|investigate|investigates|target|targets|mention|"
    r"mentions|discuss|discusses|concern|concerns|tackle|tackles|solve|solves|handle|handles|explore|explores|"
    r"cover|covers|consider|considers|analy[sz]e|analy[sz]es|present|presents|introduce|introduces|develop|"
    r"develops)\s+"
    # a participle that frames the topic: "dealing with ECG data", "focusing on X", "building on X"
    r"|(?:deal(?:s|ing)?|work(?:s|ing)?|focus(?:es|ing|ed)?|look(?:s|ing)|rel(?:y|ies|ying)|build(?:s|ing)|based|"
    r"cent(?:er|re)d)\s+(?:with|on|at|upon)\s+"
    # ... and the participles that say what a work is about: "touching on X", "relating to X", "concerned with X"
    r"|(?:(?:touch|bear)(?:es|s|ing)?\s+(?:on|upon)|(?:relat(?:e|es|ed|ing)|pertain(?:s|ing)?)\s+to|"
    r"concerned\s+with|revolv(?:e|es|ing)\s+around|aim(?:s|ed|ing)?\s+at)\s+"
    r")(?=\S)", re.I)
# a verb in its base form (as after "papers that"), not a noun ("transformers for", "learning in"): a guess, right
# after "papers that" and wrong in "a trial of aspirin in diabetics"
# (or a verb of reporting and what is reported of it: "report results on SWE-bench", "run experiments on KITTI";
# not a noun phrase, "model evaluation in healthcare", "clinical improvements in depression")
_BASE_VERB = re.compile(r"^(?:(?-i:[a-z]+(?<!s)(?<!ing))\s+(?:(?:their|its|the)\s+[a-z]+\s+)?|"
                        r"(?:report|run|conduct|perform|present|show|give|provide|publish|achieve|obtain)\s+"
                        r"(?:(?:their|its)\s+)?(?:results|experiments|performance|evaluations?|scores|gains|improvements)"
                        r"\s+)(?:on|with|in|for|about|into)\s+(?=\S)", re.I)


def criterion_core(criterion: str, base_verbs: bool = True) -> str:
    """The topic of a list's criterion, without what the papers do with it: a sentence naming the topic matches.
    `base_verbs`: a lower-case word before a preposition is read as such a verb ("deploy ... on X"); not for the
    noun phrase a paper is described by ("a trial of aspirin in diabetics").

    >>> [criterion_core(c) for c in ("evaluate on KITTI", "deploy their models on microcontrollers",
    ...                                "involve robotic surgery", "federated learning", "learning in healthcare",
    ...                                "transformers for vision", "tackle multi-agent path finding", "do lip reading",
    ...                                "dealing with ECG (electrocardiogram) data", "building on Kalman filters",
    ...                                "report results on SWE-bench", "model evaluation in healthcare",
    ...                                "touching on Alzheimer's disease", "relating to sleep apnoea")]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['KITTI', 'microcontrollers', 'robotic surgery', 'federated learning', 'learning in healthcare',
     'transformers for vision', 'multi-agent path finding', 'lip reading', 'ECG (electrocardiogram) data',
     'Kalman filters', 'SWE-bench', 'model evaluation in healthcare', "Alzheimer's disease", 'sleep apnoea']
    """
    text = criterion.strip(" .?")
    core = _DOING.sub("", text).strip()
    if base_verbs and core == text:
        core = _BASE_VERB.sub("", text).strip()
    return core or criterion


_TITLED = re.compile(r"(?<![.?!]\s)(?<!^)\b[A-Z][a-z]+(?:[\s\-]+[A-Z][a-z]+){0,3}\b")


def proper_phrases(criterion: str, texts: list[str]) -> tuple[str, ...]:
    """Capitalised phrases of a criterion that the retrieved abstracts write capitalised at least as often as in
    lower case: a method's proper name ("Decision Transformer", "Monte Carlo Tree Search"), which a listed paper
    must write, unlike a capitalised common phrase ("Large Language Models").

    >>> proper_phrases("work with the Decision Transformer", ["The Decision Transformer (DT) predicts actions."])
    ('Decision Transformer',)
    >>> proper_phrases("use Large Language Models", ["Large language models are everywhere.", "LLMs are large."])
    ()

    One proper word ("the Moltbook platform", "LLMs in Ukrainian") is one when the abstracts never write it in lower
    case, the criterion names a topic (not a description in the asker's words: "predict where on Earth a photo was
    taken") and the word is not one of alternatives or examples ("Bengali / Bangla": either will do).

    >>> proper_phrases("study the Moltbook agent platform", ["Agents post on Moltbook.", "AI agents trust humans."])
    ('Moltbook',)
    >>> proper_phrases("use Transformers for speech", ["Transformers are used.", "Speech transformers are big."])
    ()
    >>> proper_phrases("corpora in Bengali or Bangla", ["A Bengali corpus.", "Bangla text."])
    ()
    >>> proper_phrases("predict where on Earth a photo was taken", ["Photos from all over the Earth."])
    ()
    """
    out, lowered = [], [t.lower() for t in texts]
    topic = names_topic(criterion_core(criterion))  # (not a description: "predict where on Earth a photo was taken")
    for m in _TITLED.finditer(criterion):
        phrase = m.group(0)
        single = " " not in phrase and "-" not in phrase
        if single and (not topic or one_of_alternatives(phrase, criterion)):
            continue
        count = _word_count if single else str.count  # one word as a word: "Rust" is not in "trust"
        upper = sum(count(t, phrase) for t in texts)
        lower = sum(count(t, phrase.lower()) for t in lowered) - upper
        if upper and upper >= lower and not (single and lower):
            out.append(phrase)
    return tuple(out)


def _word_count(text: str, word: str) -> int:
    return len(re.findall(rf"\b{re.escape(word)}\b", text))


def _as_word(phrase: str) -> re.Pattern[str]:
    """A phrase as words of a text, in any case and spacing ("Humanity's Last Exam", "HLE"; not the "hle" of
    "athlete").

    >>> bool(_as_word("HLE").search("On HLE and GPQA")), bool(_as_word("HLE").search("an athlete"))
    (True, False)
    """
    words = re.findall(r"[A-Za-z0-9]+", phrase)
    return re.compile(r"(?<![A-Za-z0-9])" + r"[\W_]*".join(map(re.escape, words)) + r"(?![A-Za-z0-9])", re.I)


# per alternative of a criterion: (alternative, ((essential word or facet, the alternative without it), ...))
Essential = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]


@dataclass(frozen=True)
class ListCriterion:
    """A list's criterion as each candidate paper is checked against it (`ListCriterion.read`, `meets`)."""
    text: str  # as asked: "report results on Humanity's Last Exam (HLE)"
    core: str  # its topic, without what papers do with it (`criterion_core`): "Humanity's Last Exam (HLE)"
    parts: tuple[str, ...]  # named parts a listed paper writes (and criterion words no abstract uses)
    unmatched: tuple[str, ...]  # parts no retrieved abstract writes: nothing is listed
    defined: tuple[tuple[str, str], ...]  # (acronym, long form) the criterion defines: either form will do
    rare_words: list[list[str]]  # distinctive words per alternative (`TopicWords.distinctive_words`)
    rare: list[list[str]]  # ... as stem prefixes (`criterion.keys`), what a listed paper uses one of
    essential: Essential  # essential words per alternative (`TopicWords.essential_alternatives`)
    term: str  # a criterion that is one term, not an English word ("EEG"): a title writing it says the paper is on it
    named_only: bool  # a criterion that is only names ("results on Humanity's Last Exam (HLE)")

    @classmethod
    def read(cls, p: Prepared, topics: TopicWords, calibrated: bool) -> ListCriterion:
        q = p.question
        core = criterion_core(q.criterion)  # "evaluate on KITTI": a sentence on KITTI matches
        absent = topics.absent_words(core, p.hits, calibrated)  # "anything on protein structure ...?"
        # (a word the question's parts hold already is none: not "Kinetics" again beside "Kinetics-700")
        parts = q.parts + tuple(w for w in absent if not any(norm(w) in norm(x) for x in q.parts))
        texts = list({h.paper_id: f"{h.title} {h.text}" for h in p.hits}.values())
        proper = proper_phrases(q.criterion, texts)  # "the Decision Transformer"
        parts += tuple(x for x in proper if not any(norm(x) in norm(y) for y in parts))
        # a part the criterion defines by an acronym ("the Model Context Protocol (MCP)", or a piece of its long form,
        # "Last Exam" of "Humanity's Last Exam (HLE)"): either form will do
        defined = defined_forms(q.criterion)
        # one list per alternative ("X or Y"): [] where one needs none; of the topic, not of what papers do with it
        rare_words = topics.distinctive_words(core)
        # "music" in "music recommendation systems"; per alternative ("event cameras / neuromorphic sensors")
        # (every facet of a criterion naming its topic; of one describing it in a clause, "predict where on Earth a
        # photo was taken", only those that carry part of it)
        essential = topics.essential_alternatives(core, every_facet=not has_clause(core))
        term = core if len(tokens(core)) == 1 and not is_word(core) else ""
        # only names: a paper writing them needs a sentence only LEXICAL_RELIEF below the bar ("On the benchmarks HLE
        # and GPQA, X achieves ..." scores 0.27 against 0.35)
        names = " ".join([*parts, *(f"{a} {long}" for a, long in defined)])
        named_only = bool(parts) and not content_words(core) - content_words(names)
        c = cls(q.criterion, core, parts, (), defined, rare_words, keys(rare_words), essential, term, named_only)
        normed = [norm(t) for t in texts]
        return replace(c, unmatched=tuple(x for x in parts if not any(c.writes_part(x, t) for t in normed)))

    def forms(self, part: str) -> set[str]:
        """The part, and both forms of an acronym it is or is a piece of."""
        return {part} | {f for a, long in self.defined if norm(part) == norm(a) or norm(part) in norm(long)
                         for f in (a, long)}

    def writes_part(self, part: str, normed: str) -> bool:
        """A form of the part is in the (`norm`ed) text."""
        return any(norm(f) in normed for f in self.forms(part))

    def writes_word(self, part: str, text: str) -> bool:
        """A form of the part is a word of the text: "HLE", not the "hle" of "athlete"."""
        return any(_as_word(f).search(text) for f in self.forms(part))
