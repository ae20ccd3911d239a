"""Lists honest about their size: retrieve widely, check the criterion on every candidate, say how many.

Retrieval for a list asks for `LIST_POOL` papers, not the `LIST_SHOW` an answer shows. The first
`LIST_SHOW` are checked as before (their best sentence against the criterion); the rest only when their
abstract uses every content word of the criterion (a cheap lexical gate, so a wide pool costs little),
then the same sentence check. The header gives the full count, "at least N" when the pool itself was
full of matches, and says how many are shown; every match is cited, so a front end can show all.

>>> list_header(35, 30, "federated learning", complete=True)
'**35 papers** in the indexed abstracts match “federated learning” (showing the first 30; all 35 are cited below):'
>>> list_header(3, 30, "FEMNIST", complete=True)
'**3 papers** in the indexed abstracts match “FEMNIST”:'
>>> list_header(100, 30, "learning", complete=False)
'**At least 100 papers** in the indexed abstracts match “learning” (showing the first 30; all 100 are cited below):'
"""

from __future__ import annotations

import re

from ..index.sentences import split_sentences
from ..types import Hit
from .criterion import (
    EXAMPLES,
    as_written,
    defined_forms,
    has_clause,
    keys,
    stems_of,
    tokens,
    uses_distinctive,
    uses_every_word,
    writes_form,
)
from .findings import ListFinding
from .nameforms import norm
from .prose import is_debris
from .state import Prepared
from .support import SupportScorer, content_words
from .topics import TopicWords, names_topic
from .words import is_word

LIST_SHOW = 30  # papers written out in a list answer
LIST_POOL = 120  # papers retrieved for a list (the criterion is checked on each)
# a paper using every distinctive word of the criterion ("Minecraft", "Kalman") meets it at a bar this much lower:
# the word says what the paper is about even where no sentence restates the asker's phrasing
LEXICAL_RELIEF = 0.15


def candidates(hits: list[Hit], criterion: str, show: int = LIST_SHOW) -> list[Hit]:
    """The hits whose sentences to check: the first `show`, then those whose abstract has every word of the
    criterion's topic (`criterion_core`: not "deal" of "deal with chest X-ray images"), in any spacing ("Xray").

    >>> from assistant.types import Record
    >>> hs = [Hit(f"p{i}", Record(f"p{i}", t), 1.0) for i, t in enumerate(["A.", "B.", "Reading chest Xray images."])]
    >>> [h.paper_id for h in candidates(hs, "deal with chest X-ray images", show=1)]
    ['p0', 'p2']
    """
    words = _joined(content_words(criterion_core(criterion)))
    return hits[:show] + [h for h in hits[show:] if words and words <= _joined(content_words(h.title + " " + h.text))]


def _joined(words: set[str]) -> set[str]:
    return {w.replace("-", "") for w in words}


def list_header(found: int, show: int, criterion: str, complete: bool) -> str:
    many = "s" if found != 1 else ""
    count = f"**{found} paper{many}**" if complete else f"**At least {found} paper{many}**"
    tail = f" (showing the first {show}; all {found} are cited below)" if found > show else ""
    return f"{count} in the indexed abstracts match “{criterion}”{tail}:"


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
        if single and (not topic or _alternative(phrase, criterion)):
            continue
        count = _word_count if single else str.count  # one word as a word: "Rust" is not in "trust"
        upper = sum(count(t, phrase) for t in texts)
        lower = sum(count(t, phrase.lower()) for t in lowered) - upper
        if upper and upper >= lower and not (single and lower):
            out.append(phrase)
    return tuple(out)


def _word_count(text: str, word: str) -> int:
    return len(re.findall(rf"\b{re.escape(word)}\b", text))


def _alternative(term: str, criterion: str) -> bool:
    """The term is one of alternatives ("X or Y", "X / Y") or of examples: after a dash or colon that elaborates
    ("flow-based models - flow matching, Rectified flow and the like"), in a criterion that gives examples ("and
    the like", "etc."), or in a list of three or more ("A, B and C").

    >>> [_alternative(t, c) for t, c in (("Rectified", "flow models - flow matching, Rectified flow and the like"),
    ...                                   ("Kalman", "Kalman or Bayes filters"), ("Moltbook", "the Moltbook platform"),
    ...                                   ("Bengali", "LLMs for Hindi, Bengali and Tamil"),
    ...                                   ("Bangla", "models for Bengali (Bangla)"),
    ...                                   ("Rectified", "flows—Rectified flow"))]
    [True, True, False, True, True, True]
    """
    t = re.escape(term)
    listed = criterion.count(",") >= 2 or re.search(r",[^,]*\b(?:and|or)\b", criterion)  # "A, B and C"
    return bool(re.search(rf"\bor\s+{t}\b|\b{t}\s+or\b|/\s*{t}\b|\b{t}\s*/|\(\s*{t}\b|\b{t}\s*\(|"  # "X (Y)"
                          rf"(?:\s*[–—]\s*|\s-\s|:\s).*\b{t}\b", criterion, re.I)
                or re.search(r"\b(?:and the like|and so on|and others|etc)\b", criterion, re.I)
                or (listed and re.search(rf",[^,]*\b{t}\b|\b{t}\b[^,]*,", criterion)))


def _as_word(phrase: str) -> re.Pattern[str]:
    """A phrase as words of a text, in any case and spacing ("Humanity's Last Exam", "HLE"; not the "hle" of
    "athlete").

    >>> bool(_as_word("HLE").search("On HLE and GPQA")), bool(_as_word("HLE").search("an athlete"))
    (True, False)
    """
    words = re.findall(r"[A-Za-z0-9]+", phrase)
    return re.compile(r"(?<![A-Za-z0-9])" + r"[\W_]*".join(map(re.escape, words)) + r"(?![A-Za-z0-9])", re.I)


def best_sentence(hit: Hit, criterion: str, core: str, scorer: SupportScorer) -> tuple[int, str, float]:
    """The abstract's sentence that best matches a criterion (or its topic, `criterion_core`): its index, text and
    score. Debris ("Our code is available at URL") never shows that a paper meets a criterion."""
    sents = [s.text for s in split_sentences(hit.text)] or [hit.text]
    row = scorer.matrix(list(dict.fromkeys([criterion, core])), sents).max(axis=0)
    row[[is_debris(s) for s in sents]] = -1.0
    j = int(row.argmax())
    return j, sents[j], float(row[j])


def weigh_list(p: Prepared, topics: TopicWords, scorer: SupportScorer, bar: float, calibrated: bool) -> ListFinding:
    """The papers that meet a list's criterion (into `p.rows`, listed papers first in `p.hits`): every named part
    in the abstract, one of the criterion's distinctive words, every essential word (`TopicWords.lacks`), and a
    sentence matching the criterion at `bar` or above (`LEXICAL_RELIEF` lower for a paper using every distinctive
    word of an alternative as a word; none needed of a paper whose title writes the one term a criterion is, "EEG").
    A word of the criterion no abstract uses (off the corpus's topics) is a part."""
    q = p.question
    core = criterion_core(q.criterion)  # "evaluate on KITTI": a sentence on KITTI matches
    absent = topics.absent_words(core, p.hits, calibrated)  # "anything on protein structure ...?"
    parts = q.parts + tuple(w for w in absent if not any(norm(w) in norm(x) for x in q.parts))  # (not "Kinetics" again)
    texts = {h.paper_id: f"{h.title} {h.text}" for h in p.hits}
    normed = {pid: norm(t) for pid, t in texts.items()}
    proper = proper_phrases(q.criterion, list(texts.values()))  # "the Decision Transformer"
    parts += tuple(x for x in proper if not any(norm(x) in norm(y) for y in parts))
    # a part the criterion defines by an acronym ("the Model Context Protocol (MCP)", or a piece of its long form,
    # "Last Exam" of "Humanity's Last Exam (HLE)"): either form will do
    defined = defined_forms(q.criterion)

    def forms(x: str) -> set[str]:
        return {x} | {f for a, long in defined if norm(x) == norm(a) or norm(x) in norm(long) for f in (a, long)}

    def writes_part(x: str, text: str) -> bool:  # (`text` normed)
        return any(norm(f) in text for f in forms(x))

    def writes_word(x: str, text: str) -> bool:  # a form as a word of the text: "HLE", not the "hle" of "athlete"
        return any(_as_word(f).search(text) for f in forms(x))

    unmatched = tuple(x for x in parts if not any(writes_part(x, t) for t in normed.values()))
    # one list per alternative ("X or Y"): [] where one needs none; of the topic, not of what papers do with it
    rare_words = topics.distinctive_words(core)
    rare = keys(rare_words)
    # "music" in "music recommendation systems"; per alternative ("event cameras / neuromorphic sensors")
    # (every facet of a criterion naming its topic; of one describing it in a clause, "predict where on Earth a photo
    # was taken", only those that carry part of it)
    essential = topics.essential_alternatives(core, every_facet=not has_clause(core))
    # a criterion that is one term, not an English word ("EEG", "SemEval"): a title writing it says the paper is on it
    term = core if len(tokens(core)) == 1 and not is_word(core) else ""
    # a criterion that is only names ("results on Humanity's Last Exam (HLE)"): a paper writing them needs a sentence
    # only LEXICAL_RELIEF below the bar ("On the benchmarks HLE and GPQA, X achieves ..." scores 0.27 against 0.35)
    names = " ".join([*parts, *(f"{a} {long}" for a, long in defined)])
    named_only = bool(parts) and not content_words(core) - content_words(names)
    if not unmatched:
        for h in candidates(p.hits, q.criterion):  # the first LIST_SHOW, then those using every criterion word
            if parts and not all(writes_part(x, normed[h.paper_id]) for x in parts):
                continue
            # a criterion that is names: a paper writing each as a word ("HLE", not the "hle" of "athlete") is held
            # to the bar a paper using every distinctive word is, whatever words of the long form it lacks
            if named_only and not all(writes_word(x, texts[h.paper_id]) for x in parts):
                continue
            if rare and not named_only and not uses_distinctive(h, rare):
                continue  # "protein language models": a paper on language models only does not qualify
            j, sent, score = best_sentence(h, q.criterion, core, scorer)
            if not named_only and topics.lacks_all(essential, h, sent):
                continue  # a recommender paper does not meet "music recommendation systems"
            if term and writes_form(term, h.title, stems_of(h.title)):
                score = max(score, bar)  # the one term the criterion is ("EEG") is in the title: what the paper is on
            if score >= bar or (score >= bar - LEXICAL_RELIEF and (named_only or uses_every_word(h, rare_words))):
                p.rows.append((h, j, sent))
    listed = [h for h, _, _ in p.rows]
    p.hits = listed + [h for h in p.hits if h not in listed]  # the listed papers lead what the answer retrieved
    return ListFinding(q.criterion, parts, unmatched, len(p.rows), bar, tuple(w for alt in rare for w in alt),
                       tuple(tuple(w for w, _ in words) for _, words in essential if words))


def uncovered(described: str, hit: Hit, topics: TopicWords,
              scorer: SupportScorer) -> tuple[str, str, tuple[str, ...]] | tuple[()]:
    """A described paper ("the paper on X", "which paper does X?") is a list of one: the paper answered must meet
    the description as a listed paper meets a criterion, covering its essential words (every content word of a
    topic named in a few words: `TopicWords.essential_alternatives(every=True)`) and every part of a short
    description that carries part of it (`TopicWords.essential_parts`). (topic, title, words it lacks) when it does
    not, else ()."""
    core = criterion_core(EXAMPLES.sub("", described).strip() or described, base_verbs=False)
    _, sentence, _ = best_sentence(hit, described, core, scorer)
    lacking = (topics.lacks_all(topics.essential_alternatives(core, every=True), hit, sentence)
               or topics.lacks_parts(topics.essential_parts(core), hit))
    return (core, hit.title, tuple(as_written(x, described) for x in lacking)) if lacking else ()
