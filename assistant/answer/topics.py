"""The words of a topic or a list's criterion, checked against the corpus: words no abstract uses (a topic
the corpus lacks: "protein structure prediction"), a short criterion's distinctive words (words few
abstracts use: a listed paper must use one of them), and the words and facets that carry part of it (a listed
paper must cover them). How a criterion reads as words, and whether a text uses a word: criterion.py.
"""

from __future__ import annotations

import re

from ..index.sentences import split_sentences
from ..types import Hit
from .alternatives import topic_alternatives
from .answerable import SOFT_MATCH
from .criterion import (
    EXAMPLES,
    LIST_WORDS,
    facets,
    key_of,
    keys,
    named_words,
    names_topic,
    parts,
    spelled_out,
    stems_of,
    tokens,
    topic_words,
    writes,
    writes_form,
)
from .nameforms import norm
from .support import STOP, SupportScorer, stem
from .words import is_word

# A list whose best chunk is this far from the criterion (MiniLM cosine) is off the corpus's topics unless its
# words say otherwise: then a criterion word no abstract uses is a part nothing matches. Lists asked of the
# corpus (project, blind sets, tuning half): best chunk >= 0.44 but two short criteria with every word in the
# corpus; lists on topics it lacks ("protein structure prediction", "robot manipulation"): 0.34-0.39.
LIST_TOPIC_COSINE = 0.45
RARE_SHARE = 0.03  # a criterion word this rare in the abstracts is distinctive: a listed paper must use one
# A criterion word without which the criterion's MiniLM vector moves this far (cosine below) carries part of its
# topic: "music" in "music recommendation systems" (0.75), "sign" in "sign language recognition" (0.71); not a word
# that only frames it, "tackle" in "tackle video anomaly detection" (0.94), "actually enrolled people with ..." (0.93).
# On the tuning sets' lists (194 listed papers holding a gold sentence) 0.80 kept 193.
ESSENTIAL = 0.80
# ... and a word no form of which the paper uses is said in other words only when its best sentence is this much nearer
# the criterion with the word than without (a sentence on neither is as near both: "robot actions" for "whole-body
# control for humanoid robots"). On the tuning sets' lists no gold paper lacking a word lexically lies within it.
SAID_MARGIN = 0.03
# A list's facet that barely moves its criterion's vector ("... for self-driving cars"), which a paper does not write,
# must be said by some sentence of the paper (or its title) on its own: the best one's cosine with the facet alone
# reaches this. (The margin above cannot judge it: the sentence is as near the criterion with it as without.) On the
# tuning sets' lists (2026-12-04), papers holding a gold sentence without a facet's words: 0.39-0.73 when listed,
# except one benchmark "in the SPLADE family" (0.05) and one imaging study "for diagnosing a complication" (0.12);
# listed papers not meeting the criterion: 0.07-0.29 among those below 0.39 (a crop-mapping robot for "... for
# self-driving cars", code translation for "... between human languages").
FACET_SAID = 0.30

# A described paper ("is there a paper that uses graph neural networks to predict binding affinity?") is on every part
# of a short description (`criterion.parts`) that carries part of it: the description's MiniLM vector moves this far
# without it (cosine below). One word of a description moves it little ("graph": 0.93), a part much ("graph neural
# networks": 0.78). On the tuning sets (2026-12-05, 856 first-turn questions), described papers lacking such a part:
# 7 unanswerable questions answered, no answered answerable one (at 0.90, one).
PART_ESSENTIAL = 0.88
# ... when the description has at most this many content words: a longer one is the asker's own paraphrase ("a 7B
# model so people can describe a flow problem in plain English and get a runnable setup"), whose parts a paper
# says in words of its own (at 14 words, three answerable questions on the tuning sets would have been declined).
DESCRIBED_WORDS = 8


def _title_and_sentences(hit: Hit) -> list[str]:
    """The paper's title and the sentences of its abstract (none empty)."""
    return [s for s in (hit.title, *(x.text for x in split_sentences(hit.text))) if s and s.strip()]


class TopicWords:
    def __init__(self, lexicon, scorer: SupportScorer) -> None:
        self.lexicon, self.scorer = lexicon, scorer  # lexicon: the LexiconCache (rebuilt when the corpus changes)

    def abstracts_using(self, word: str) -> int:
        """How many abstracts of the corpus use the word in some form (its stem's first six letters, `key_of`)."""
        return sum(1 for t in self.lexicon.get().texts if key_of(word) in t)

    def distinctive(self, criterion: str) -> list[list[str]]:
        """A short criterion's distinctive words, per alternative ("X or Y"), as stem prefixes (`keys`; the words
        themselves: `distinctive_words`). A listed paper must use one of some alternative's."""
        return keys(self.distinctive_words(criterion))

    def distinctive_words(self, criterion: str) -> list[list[str]]:
        """A short criterion's distinctive words, per alternative ("X or Y"): content words few abstracts of this
        corpus use (at most RARE_SHARE of them, some at least): "minecraft", "kalman". The words every abstract
        shares ("language models" in a corpus of NLP papers) do not make a paper meet "protein language models". A
        long criterion describes its topic in the asker's words (a paper on geolocation meets "predict where on
        Earth a photo was taken"): none; so for an alternative without such words."""
        texts = self.lexicon.get().texts
        cap = max(2, int(RARE_SHARE * len(texts)))
        if not names_topic(criterion):
            return []  # a description: "predict where on Earth a photo was taken"
        out = []
        for alt in re.split(r"\s+or\s+|/", criterion.lower()):
            words = [w for w in dict.fromkeys(re.findall(r"\b[a-z][a-z\-]{3,}\b", alt))
                     if not (w in STOP or w in LIST_WORDS or is_word(w))
                     and 0 < self.abstracts_using(w) <= cap]
            if not words:
                return []  # an alternative any paper may meet
            out.append(words)
        return out

    def essential_words(self, criterion: str, every_facet: bool = False) -> tuple[tuple[str, str], ...]:
        """The words of a criterion that carry part of its topic (`ESSENTIAL`) and its facets (`facets`: "for object
        detection") that do, each with the criterion without it: a listed paper must use the word (`uses_word`; a
        facet: every word of one of its alternatives) or have its best sentence match the criterion better than the
        criterion without it (`lacks`). `every_facet` (a list's criterion): every facet, however little
        MiniLM's vector moves without it ("3D object detection from LiDAR point clouds | for self-driving cars": what
        the asker restricts the list to); one that barely moves it keeps no "without" ("") and is covered only by
        being written or said. (A paper described in the asker's words keeps only the facets that move it: "a big
        chunk of Africa" is the asker's wording, not the topic.)"""
        words, parts = topic_words(criterion), facets(criterion)
        if len(words) + len(parts) < 2:
            return ()  # one topic word: the sentence check is the whole criterion
        cands = words + parts
        vecs = self.scorer.vectors([" ".join(tokens(criterion)), *(rest for _, rest in cands)])
        moves = [cos < ESSENTIAL for cos in vecs[1:] @ vecs[0]]
        return (tuple(c for c, m in zip(words, moves) if m)
                + tuple(c if m else (c[0], "") for c, m in zip(parts, moves[len(words):]) if m or every_facet))

    def essential_alternatives(self, criterion: str, every: bool = False, every_facet: bool = False
                               ) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
        """Each alternative of a criterion naming topics ("event cameras / neuromorphic sensors", "X or Y") with
        its essential words: a listed paper covers those of one alternative (`lacks_all`). A criterion that is no
        list of topics is its own one alternative. `every`: an alternative that names a topic in a few words
        (`named_words`) has every content word essential (one paper asked for by its topic is on all of it:
        "person re-identification" is no animal re-identification, though MiniLM puts them close)."""
        alternatives = topic_alternatives(criterion)
        return tuple((a, (every and named_words(a)) or self.essential_words(a, every_facet)) for a in alternatives)

    def lacks_all(self, alternatives: tuple[tuple[str, tuple[tuple[str, str], ...]], ...], hit: Hit,
                  sentence: str) -> tuple[str, ...]:
        """What the paper lacks of the alternative it covers best: () when it covers every essential word of one
        (`essential_alternatives`), else the words it lacks of the first."""
        missing = [self.lacks(words, alt, hit, sentence) for alt, words in alternatives if words]
        return () if len(missing) < len(alternatives) or not all(missing) else missing[0]

    def lacks(self, essential: tuple[tuple[str, str], ...], criterion: str, hit: Hit, sentence: str) -> tuple[str, ...]:
        """The essential words (`essential_words`) a paper lacks: neither used in its title or abstract nor
        said in other words by its best sentence (which matches the criterion less well than the criterion
        without the word: a recommender paper's sentence is nearer "recommendation systems" than "music
        recommendation systems")."""
        text = f"{hit.title} {hit.text}"
        stems, whole = stems_of(text), " ".join(tokens(criterion))
        out = []
        spelled = spelled_out(criterion)  # "rotary positional embeddings (RoPE)": RoPE covers those words
        for word, rest in essential:
            if writes(word, text, stems, spelled):
                continue
            # a facet that barely moves the criterion (rest ""): said by some sentence on its own
            said = self._nearer_with(sentence, whole, rest) if rest else self.said_alone(word, hit) >= FACET_SAID
            if not said:
                out.append(word)
        return tuple(out)

    def essential_parts(self, description: str) -> tuple[tuple[str, tuple[str, ...], str, str], ...]:
        """The parts of a short description (`criterion.parts`, `DESCRIBED_WORDS`) that carry part of it
        (`PART_ESSENTIAL`), each as (part, its words, not counting common English words when it has others, the
        description, the description without it); a part with a word no abstract uses is in the asker's own words
        ("a bespoke network"): none. (Every word, not only the rarest: "prevent falls" is not written by a paper
        that prevents something else, though "prevent" is the rarer word.)"""
        pieces = parts(description)
        if (len(pieces) < 2 or sum(len(words) for _, words, _ in pieces) > DESCRIBED_WORDS
                or re.search(r"\bor\b|/", description, re.I)):
            return ()  # (alternatives, "for X or for Y": a paper is on one of them, `essential_alternatives`)
        whole = " ".join(tokens(description))
        vecs = self.scorer.vectors([whole, *(rest for _, _, rest in pieces)])
        out = []
        for (part, words, rest), cos in zip(pieces, vecs[1:] @ vecs[0]):
            if cos >= PART_ESSENTIAL:
                continue
            used = {w: self.abstracts_using(w) for w in words}
            topical = [w for w in words if not is_word(w)] or list(words)  # "makes", "trains": no topic
            if all(used[w] for w in topical):
                out.append((part, tuple(topical), whole, rest))
        return tuple(out)

    def lacks_parts(self, essential: tuple[tuple[str, tuple[str, ...], str, str], ...], hit: Hit) -> tuple[str, ...]:
        """The essential parts (`essential_parts`) the paper neither writes (each of the part's words, in any form)
        nor says in other words (a sentence of it nearer the description with the part than without it, by
        `SAID_MARGIN`)."""
        if not essential:
            return ()
        text = f"{hit.title} {hit.text}"
        stems, sents = stems_of(text), _title_and_sentences(hit)
        out = []
        for part, words, whole, rest in essential:
            if all(writes_form(w, text, stems) for w in words):
                continue
            with_part, without = self.scorer.matrix([whole, rest], sents)
            if (with_part - without).max() < SAID_MARGIN:  # no sentence nearer the description with it than without
                out.append(part)
        return tuple(out)

    def _nearer_with(self, sentence: str, whole: str, rest: str) -> bool:
        """The sentence matches the criterion better with the word than without it (by `SAID_MARGIN`)."""
        with_word, without = self.scorer.cosines(sentence, [whole, rest])
        return with_word >= without + SAID_MARGIN

    def said_alone(self, facet: str, hit: Hit) -> float:
        """How near the paper's title or one of its sentences comes to a facet on its own (MiniLM cosine)."""
        sents = _title_and_sentences(hit)
        return float(self.scorer.matrix([facet], sents).max()) if sents else 0.0

    def off_topic_words(self, phrase: str, hits: list[Hit], calibrated: bool,
                        compounds: bool = True) -> tuple[str, ...]:
        """Words of `phrase` no abstract uses, when the best chunk is far from it (LIST_TOPIC_COSINE; only for
        the dense scores it was calibrated on, `calibrated`), or a compound of it no abstract writes: off the
        corpus's topics."""
        dense = [h.scores["dense"] for h in hits if "dense" in h.scores] if calibrated else []
        if dense and max(dense) < LIST_TOPIC_COSINE:
            return self.unused_words(phrase, hits)
        return self.unwritten_compounds(phrase) if compounds else ()

    def unwritten_compounds(self, phrase: str) -> tuple[str, ...]:
        """Hyphenated compounds of a topic that no abstract writes, in any spacing ("text-to-music" where the
        corpus has "music-to-dance", "e-cigarette", "whole-body"): a topic the corpus lacks, whatever its parts.
        (Only for a topic or a list's criterion: a paraphrase coins compounds of its own, "two-handed".)"""
        texts = self.lexicon.get().texts
        return tuple(w for w in dict.fromkeys(re.findall(r"(?<![\w\-])[a-z]+(?:-[a-z]+)+(?![\w\-])", phrase))
                     if len(norm(w)) >= 6 and not any(norm(w) in t for t in texts))

    def absent_words(self, criterion: str, hits: list[Hit], calibrated: bool,
                     compounds: bool = False) -> tuple[str, ...]:
        """A list's criterion (or the topic of "is there a paper on X?") words nothing matches: every alternative
        ("music or song lyrics") has a word no abstract uses in any form or in other words; else (as for any
        topic) only when no chunk is close, or (`compounds`) it has a compound no abstract writes. Examples the
        criterion gives ("generating music, e.g. with transformers or diffusion models") are not alternatives:
        the topic is what comes before them."""
        criterion = EXAMPLES.sub("", criterion).strip() or criterion
        alternatives = [a for a in re.split(r"\s+or\s+|/", criterion) if a.strip()]
        if all(names_topic(a) for a in alternatives):  # a long description has words of its own: only the gate below
            unused = self.unused_words(criterion, hits)
            if unused and all(any(re.search(rf"\b{re.escape(w)}\b", a, re.I) for w in unused) for a in alternatives):
                return unused
        return self.off_topic_words(criterion, hits, calibrated, compounds=compounds)  # (a description coins its own)

    def unused_words(self, criterion: str, hits: list[Hit]) -> tuple[str, ...]:
        """Words of a list's criterion (lower-case or capitalised, "Minecraft"; not acronyms) that no abstract of
        the corpus uses (any form) and that no retrieved abstract says in other words (a 1-3 word span within
        SOFT_MATCH): the part nothing matches."""
        stems = self.lexicon.get().stems
        out = list(self.unwritten_compounds(criterion))
        # "that stands in for"
        verbs = set(re.findall(r"\b(?:that|which|who|to|not|can|will|does|do)\s+([a-z]+)", criterion))
        for written in dict.fromkeys(re.findall(r"\b[A-Za-z][a-z]{3,}\b", criterion)):
            w = written.lower()
            if w in STOP or w in verbs or w.endswith("ly") or stem(w) in stems:  # not "fairly"
                continue
            if not any(self.scorer.phrase_similarity(w, h.text) >= SOFT_MATCH for h in hits[:5]):
                out.append(written)
        return tuple(out)
