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

from ..index.sentences import split_sentences
from ..types import Hit
from .criterion import EXAMPLES, as_written, stems_of, uses_distinctive, uses_every_word, writes_form
from .findings import ListFinding
from .listcriterion import ListCriterion, criterion_core
from .nameforms import norm
from .prose import is_debris
from .state import Prepared
from .support import SupportScorer, content_words
from .topics import TopicWords

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


def best_sentence(hit: Hit, criterion: str, core: str, scorer: SupportScorer) -> tuple[int, str, float]:
    """The abstract's sentence that best matches a criterion (or its topic, `criterion_core`): its index, text and
    score. Debris ("Our code is available at URL") never shows that a paper meets a criterion."""
    sents = [s.text for s in split_sentences(hit.text)] or [hit.text]
    row = scorer.matrix(list(dict.fromkeys([criterion, core])), sents).max(axis=0)
    row[[is_debris(s) for s in sents]] = -1.0
    j = int(row.argmax())
    return j, sents[j], float(row[j])


def meets(c: ListCriterion, h: Hit, topics: TopicWords, scorer: SupportScorer, bar: float
          ) -> tuple[Hit, int, str] | None:
    """The paper and its sentence that shows it meets the criterion (`weigh_list`), or None."""
    text = f"{h.title} {h.text}"
    normed = norm(text) if c.parts else ""
    if c.parts and not all(c.writes_part(x, normed) for x in c.parts):
        return None
    # a criterion that is names: a paper writing each as a word is held to the bar a paper using every distinctive
    # word is, whatever words of the long form it lacks
    if c.named_only and not all(c.writes_word(x, text) for x in c.parts):
        return None
    if c.rare and not c.named_only and not uses_distinctive(h, c.rare):
        return None  # "protein language models": a paper on language models only does not qualify
    j, sent, score = best_sentence(h, c.text, c.core, scorer)
    if not c.named_only and topics.lacks_all(c.essential, h, sent):
        return None  # a recommender paper does not meet "music recommendation systems"
    if c.term and writes_form(c.term, h.title, stems_of(h.title)):
        score = max(score, bar)  # the one term the criterion is ("EEG") is in the title: what the paper is on
    relieved = c.named_only or uses_every_word(h, c.rare_words)
    return (h, j, sent) if score >= bar or (score >= bar - LEXICAL_RELIEF and relieved) else None


def weigh_list(p: Prepared, topics: TopicWords, scorer: SupportScorer, bar: float, calibrated: bool) -> ListFinding:
    """The papers that meet a list's criterion (into `p.rows`, listed papers first in `p.hits`): every named part
    in the abstract, one of the criterion's distinctive words, every essential word (`TopicWords.lacks`), and a
    sentence matching the criterion at `bar` or above (`LEXICAL_RELIEF` lower for a paper using every distinctive
    word of an alternative as a word, or writing each name of a criterion that is names; none needed of a paper
    whose title writes the one term a criterion is, "EEG"). A word of the criterion no abstract uses (off the
    corpus's topics) is a part."""
    c = ListCriterion.read(p, topics, calibrated)
    if not c.unmatched:
        for h in candidates(p.hits, c.text):  # the first LIST_SHOW, then those using every criterion word
            row = meets(c, h, topics, scorer, bar)
            if row:
                p.rows.append(row)
    listed = [h for h, _, _ in p.rows]
    p.hits = listed + [h for h in p.hits if h not in listed]  # the listed papers lead what the answer retrieved
    return ListFinding(c.text, c.parts, c.unmatched, len(p.rows), bar,
                       tuple(w for alt in c.rare for w in alt),
                       tuple(tuple(w for w, _ in words) for _, words in c.essential if words))


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
