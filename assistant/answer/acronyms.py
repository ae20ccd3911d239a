"""An acronym spelled out at its first use in an answer, as a careful writer does: "GFL constructs the clusters ..."
reads "Global Feature-guided Learning (GFL) constructs the clusters ..." when the abstract defines GFL and the
answer has not yet said what it stands for.

    shown = spell_out([(sentence, abstract, source), ...], check)   # the answer's sentences, in order

The long form is the abstract's own ("words (ACR)" whose initials spell the acronym, `ingest.longforms.expansion`);
an acronym the abstract does not define, or whose long form or definition the answer already gives, is left as it
is. Each changed sentence is kept only when the claim verifier (`check`: [(claim, [sources])] -> verdicts) judges
it supported by the sentence it came from together with the abstract's defining sentence (it reads a spelled-out
acronym its source defines as the acronym: `verify.abbrev`); without a verifier the rule alone decides (the long
form is the abstract's words, moved).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..index.sentences import split_sentences
from ..ingest.longforms import expansion
from ..verify import VerifierUnavailableError
from ..verify.abbrev import spellable
from .words import is_word

# an acronym as written: two capitals or more ("GFL", "BoN"; which are spelled out: `verify.abbrev.spellable`); not
# inside a word, a hyphenated compound, brackets (a definition already) or a possessive ("GFL's": the next use is)
ACRONYM = re.compile(r"(?<![\w(\-])([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)(?![\w\-)'’])")


def definitions(sentence: str, abstract: str, said: str,
                refused: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(acronym, long form) for each acronym of `sentence` (not in `refused`) the abstract defines and `said` (the
    answer so far, this sentence included) does not spell out in those words.

    >>> definitions("GFL smooths noise.", "We propose Global Feature-guided Learning (GFL). GFL smooths noise.",
    ...             "GFL smooths noise.")
    [('GFL', 'Global Feature-guided Learning')]
    >>> definitions("GFL smooths noise.", "GFL smooths noise.", "GFL smooths noise.")  # not defined: left
    []
    >>> definitions("P2AT is fast.", "We propose Pyramid Pooling Axial Transformer (P2AT).", "P2AT is fast.")
    []
    >>> definitions("GFL smooths noise.", "We propose Global Feature-guided Learning (GFL).",
    ...             "Global Feature-guided Learning is new. GFL smooths noise.")  # spelled out already
    []
    """
    out: list[tuple[str, str]] = []
    low = said.lower()
    for acr in dict.fromkeys(ACRONYM.findall(sentence)):
        if acr in refused or not spellable(acr):
            continue
        long = expansion(abstract, acr, exact=True)
        if long and long.lower() not in low and long != acr:  # another paper's "(CP)" may mean something else
            out.append((acr, in_sentence_case(long, abstract)))
    return out


def in_sentence_case(long: str, abstract: str) -> str:
    """A long form as it reads inside a sentence: "Large language models", capitalised only because it opened the
    abstract's sentence, is "large language models" (its first word a common English word, or one the abstract also
    writes in lower case); a name keeps its capitals ("Global Feature-guided Learning", "Bayesian optimization").

    >>> in_sentence_case("Large language models", "Large language models (LLMs) reason.")
    'large language models'
    >>> in_sentence_case("Bayesian optimization", "Bayesian optimization (BO) tunes it.")
    'Bayesian optimization'
    >>> in_sentence_case("Global Feature Learning", "We propose Global Feature Learning (GFL).")
    'Global Feature Learning'
    """
    first, *rest = long.split(" ")
    if not (rest and re.fullmatch(r"[A-Z][a-z]+", first) and all(w == w.lower() for w in rest)):
        return long
    low = first.lower()
    return low + long[len(first):] if is_word(low) or re.search(rf"\b{low}\b", abstract) else long


def spelled(sentence: str, pairs: Sequence[tuple[str, str]]) -> str:
    """`sentence` with the first use of each acronym written "Long Form (ACR)", in one pass (an acronym inside
    another's long form stays as the abstract wrote it).

    >>> spelled("GFL builds clusters; GFL is fast.", [("GFL", "Global Feature-guided Learning")])
    'Global Feature-guided Learning (GFL) builds clusters; GFL is fast.'
    >>> spelled("CP gauges uncertainty.", [("CP", "conformal prediction")])
    'Conformal prediction (CP) gauges uncertainty.'
    >>> spelled("mBERT and CP are used.", [("CP", "conformal prediction")])
    'mBERT and conformal prediction (CP) are used.'
    >>> spelled("CGS improves CLIP scores.", [("CGS", "CLIP Guided Sampling"), ("CLIP", "Contrastive Pretraining")])
    'CLIP Guided Sampling (CGS) improves Contrastive Pretraining (CLIP) scores.'
    """
    long = dict(pairs)
    if not long:
        return sentence
    done: set[str] = set()

    def one(m: re.Match) -> str:
        acr = m.group(1)
        if acr not in long or acr in done:
            return acr
        done.add(acr)
        written = f"{long[acr]} ({acr})"
        return written[:1].upper() + written[1:] if m.start() == 0 else written  # still opens the sentence

    return ACRONYM.sub(one, sentence)


def defining_sentence(abstract: str, acronym: str) -> str:
    """The abstract's sentence that gives the acronym in brackets (its definition)."""
    return next((s.text for s in split_sentences(abstract) if f"({acronym})" in s.text), "")


def spell_out(items: Sequence[tuple[str, str, str]],
              check: Callable[[list[tuple[str, list[str]]]], list] | None = None) -> list[str]:
    """The answer's sentences with each acronym spelled out at its first use in the answer. `items`: per sentence
    shown, in order, (the sentence, its abstract, the abstract sentence it came from: what the verifier reads it
    against). A changed sentence the verifier does not support stays as it was, and the acronym's next use is
    tried (one more round).

    >>> abstract = "We propose Global Feature-guided Learning (GFL). GFL builds clusters. GFL is fast."
    >>> spell_out([("GFL builds clusters.", abstract, "GFL builds clusters."), ("GFL is fast.", abstract, "")])
    ['Global Feature-guided Learning (GFL) builds clusters.', 'GFL is fast.']
    >>> class No:
    ...     label = "not_supported"
    >>> spell_out([("GFL builds clusters.", abstract, "")], lambda pairs: [No() for _ in pairs])
    ['GFL builds clusters.']
    """
    refused: dict[int, frozenset[str]] = {}  # sentence index -> acronyms whose spelled-out form was not supported
    supported: dict[tuple[str, tuple[str, ...]], bool] = {}  # verdicts of the first round, not asked again
    for _ in range(2):
        out: list[str] = []
        asks: dict[int, tuple[tuple[str, tuple[str, ...]], list[str]]] = {}  # index -> ((form, evidence), acronyms)
        for i, (sentence, abstract, source) in enumerate(items):
            pairs = definitions(sentence, abstract, " ".join([*out, sentence]), refused.get(i, frozenset()))
            new = spelled(sentence, pairs) if pairs else sentence
            if new != sentence:
                evidence = [source or sentence, *dict.fromkeys(defining_sentence(abstract, a) for a, _ in pairs)]
                asks[i] = ((new, tuple(e for e in evidence if e)), [a for a, _ in pairs])
            out.append(new)
        if not asks or check is None:
            return out
        todo = list(dict.fromkeys(key for key, _ in asks.values() if key not in supported))
        try:
            verdicts = check([(new, list(ev)) for new, ev in todo]) if todo else []
        except VerifierUnavailableError:
            return out  # the rule alone, as without a verifier
        supported.update((key, getattr(v, "label", "") == "supported") for key, v in zip(todo, verdicts))
        rejected = [i for i, (key, _) in asks.items() if not supported[key]]
        if not rejected:
            return out
        for i in rejected:
            refused[i] = refused.get(i, frozenset()) | frozenset(asks[i][1])
    return [items[i][0] if i in rejected else s for i, s in enumerate(out)]  # still refused after the second round


def as_shown(rw, items: Sequence[tuple[str, str, str]]) -> list[str]:
    """Each (source sentence, paper's name, its abstract) as an answer shows it, in order: prose from `rw` (a
    `prose.Rewriter`: third person, no markup, verified; "" for a sentence with no claim, a pointer to code), then each
    acronym spelled out at its first use across them (`spell_out`, verified). The one way single answers, lists and
    comparison overviews turn abstract sentences into what the reader sees."""
    rw.prepare([(source, name) for source, name, _ in items])
    prose = [rw(source, name) for source, name, _ in items]
    spelled = iter(spell_out([(text, abstract, source) for text, (source, _, abstract) in zip(prose, items) if text],
                             rw.checker))
    return [next(spelled) if text else "" for text in prose]
