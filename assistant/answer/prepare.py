"""Preparation, the part of an answer before any writing: analyze -> retrieve -> weigh.

Runs as a LangChain runnable sequence over a typed `Prepared` state (see `Assistant.prepare`):

- analyze: the question's kind, sides, topic papers and asked detail, with follow-ups resolved
  (question.py), names linked through a lexicon of the corpus (rebuilt when the store changes);
- retrieve: papers for the question; a question about named or referred-to papers retrieves inside
  them first; each side of a comparison is retrieved on its own; a list retrieves widely;
- weigh: findings, never verdicts: names linked or not, the asked details the main paper's abstract
  lacks, the evidence and the bar it is held to (every adjustment named), the comparison sides found,
  the papers meeting a list's criterion; it picks the paper the answer rests on (retrieval's first,
  unless another paper's sentences answer clearly better, `answer.rerank_margin`). Then `decide()`
  (decide.py), the one place that turns findings into answer, partial answer or abstention.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace

from ..retrieve import query_filters
from ..retrieve.hybrid import Filters, HybridRetriever
from ..retrieve.langchain import PaperRetriever
from ..settings import AnswerSettings
from ..types import Hit
from .answerable import figure_evidence, figures_in, missing_detail
from .asked import in_own_words, noun_phrase
from .asked_topic import described_topic
from .comparing import one_paper, rivalled, side_misses, weigh_compare
from .decide import decide
from .evidence import (
    ABSTAIN_SENTENCE,
    evidence_bar,
    gather_evidence,
)
from .findings import CompareFinding, DetailFinding, EvidenceFinding, FilterFinding, Findings
from .lexcache import LexiconCache
from .linker import Lexicon
from .listsize import LIST_POOL, LIST_SHOW, uncovered, weigh_list
from .metadata_asked import asked_of, asks_metadata, on_topic
from .name_finding import name_finding
from .nameforms import named_terms, norm
from .naming import names_for
from .question import Ask, Kind, analyze
from .sides import Side, shared_context
from .state import Prepared
from .support import SupportScorer
from .topics import TopicWords

LIST_MAX = LIST_SHOW  # papers a list answer writes out (listsize.py); LIST_POOL are retrieved and checked
CALIBRATED_EMBEDDER = "all-MiniLM-L6-v2"  # the embeddings the dense-score settings were calibrated on
LIST_MARGIN = 0.05  # a listed paper's best sentence must beat the abstention threshold by this much
DESCRIBED_POOL = 8  # papers retrieved for a described comparison side before its distinctive words reorder them
__all__ = ["ABSTAIN_SENTENCE", "LIST_MAX", "Preparer"]


class Preparer:
    def __init__(self, retriever: HybridRetriever, scorer: SupportScorer, lexicon: LexiconCache,
                 settings: AnswerSettings) -> None:
        self.retriever, self.scorer, self.lexicon, self.settings = retriever, scorer, lexicon, settings
        self.topics = TopicWords(lexicon, scorer)

    def analyze(self, state: dict) -> Prepared:
        # filters stated in the question ("from 2025 on", "by Chen", "in cs.CL"); explicit ones win
        explicit, text = state.get("filters"), state["question"]
        vocab = self.retriever.catalog().derived("question_vocabulary", query_filters.Vocabulary.build)
        parsed = query_filters.parse_filters(text, vocab)
        applied = query_filters.applied_from_question(explicit, parsed)
        filters = query_filters.merge(explicit, parsed.filters) if applied else explicit
        q = analyze(parsed.cleaned if applied else text, state.get("conversation"), self.lexicon.get())
        return Prepared(q, k=state["k"], filters=filters, timings=state.get("timings", {}),
                        filters_from_question=applied, filter_finding=self.retriever.check_filters(filters))

    # -- retrieve ------------------------------------------------------------------------------
    def _search(self, query: str, k: int, filters: Filters | None, within: tuple[str, ...] = ()) -> list[Hit]:
        """Retrieval through the LangChain retriever; `within` restricts it to those papers."""
        if within:
            filters, k = replace(filters or Filters(), paper_ids=frozenset(within)), max(k, len(within))
        docs = PaperRetriever(retriever=self.retriever, k=k, filters=filters).invoke(query)
        return [d.metadata["hit"] for d in docs]

    def retrieve(self, p: Prepared) -> Prepared:
        """Papers for the question (the question itself is never rewritten here): a comparison's sides each on
        their own, a list widely, a single question inside its named papers first. Names linked elsewhere than the
        subject that retrieval does not find for the question are not its topic (`p.topic`; the trace says so)."""
        t = time.perf_counter()
        q = p.question
        p.topic, p.topic_names = q.topic, q.topic_names
        if q.kind is Kind.COMPARE:
            context = shared_context(q.standalone, [s.text for s in q.sides])
            p.sides = [self._search(side.text, 1, p.filters, self._coined_by(side, context, p)) if side.paper_ids
                       else self._described(side.text, p.filters, context) for side in q.sides]
            p.side_specs = list(q.sides)
            p.hits = _unique([h for side in p.sides for h in side[:1]])
            # a follow-up comparing things inside its paper (when the filters keep that paper), or every side
            # finding the same paper first
            inside = self._search(q.standalone, 1, p.filters, (q.inside,)) if q.inside else []
            if inside:
                p.within = inside[0].paper_id
            else:  # a described side that is an approach of its own (`rivalled`) keeps the papers apart
                p.separate = rivalled(q, p.sides)
                p.within = "" if p.separate else one_paper(q, p.sides)
            if p.within:  # "X vs placebo", "A versus B in the Y trial": a contrast inside one paper is about it
                p.topic = (p.within,)
                p.topic_names = q.topic_names[:1] if inside else tuple(
                    s.text for s in q.sides if p.within in s.paper_ids)[:1]
                p.hits = _unique((inside or p.hits[:1]) + self._search(q.standalone, p.k, p.filters))[: p.k]
        elif q.kind is Kind.LIST:
            p.hits = self._search(q.criterion, LIST_POOL, p.filters)  # wide: the criterion is checked on each
        else:
            hits = self._search(q.standalone, p.k, p.filters)
            if not (q.followup or q.topic_placed):  # names linked elsewhere than the subject: retrieval must agree
                found = {h.paper_id for h in hits}
                keep = [(t, n) for t, n in zip(q.topic, q.topic_names) if t in q.topic_strong or t in found]
                p.topic, p.topic_names = tuple(t for t, _ in keep), tuple(n for _, n in keep)
            if not q.followup:  # a term several abstracts use ("GDM") means the one retrieval ranks first
                lex, ranked = self.lexicon.get(), [h.paper_id for h in hits]
                chosen = [lex.by_retrieval(n, t, ranked) for t, n in zip(p.topic, p.topic_names)]
                p.rechosen = tuple(f"{n}: {t} -> {c}" for t, n, c in zip(p.topic, p.topic_names, chosen) if c != t)
                named: dict[str, str] = {}
                for c, n in zip(chosen, p.topic_names):
                    named.setdefault(c, n)
                p.topic, p.topic_names = tuple(named), tuple(named.values())
            if p.topic:
                first = self._search(q.standalone, len(p.topic), p.filters, p.topic)
                order = {pid: i for i, pid in enumerate(p.topic)}
                first.sort(key=lambda h: order.get(h.paper_id, len(order)))
                hits = _unique(first + hits)[: max(p.k, len(first))]
            p.hits = hits
        p.timings["retrieval_s"] = time.perf_counter() - t
        return p

    def _coined_by(self, side: Side, context: str, p: Prepared) -> tuple[str, ...]:
        """A named side's paper; of several papers coining the name, the one retrieval ranks first for the name
        with what the question says of every side (noted in `p.rechosen`)."""
        rivals = self.lexicon.get().coiners(side.text)
        if not rivals:
            return side.paper_ids
        best = [h.paper_id for h in self._search(f"{side.text} {context}".strip(), 1, p.filters, rivals)][:1]
        if best and best[0] != side.paper_ids[0]:
            p.rechosen += (f"{side.text}: {side.paper_ids[0]} -> {best[0]}",)
        return tuple(best) or side.paper_ids

    def _described(self, text: str, filters: Filters | None, context: str = "", keep: int = 3) -> list[Hit]:
        """Papers for a side given by description, searched with what the question says of all sides (`context`:
        "staple line leaks after sleeve gastrectomy: how do the X study and the Y analysis compare?"): of the best
        DESCRIBED_POOL, those using the description's distinctive words (topics.py: "on-policy" in "the two papers
        on on-policy distillation") first."""
        hits = self._search(f"{text} {context}".strip(), DESCRIBED_POOL, filters)
        return sorted(hits, key=side_misses(self.topics, text))[:keep]  # stable: retrieval's order within a tier

    # -- weigh: findings, then the one decision ------------------------------------------------
    def weigh(self, p: Prepared) -> Prepared:
        q = p.question
        lexicon = self.lexicon.get()
        p.names = names_for(p.hits, lexicon)  # real names only: never a generic first word (naming.py)
        if p.kind is Kind.COMPARE:
            f = Findings("compare", compare=self._weigh_compare(p, lexicon, self.settings.abstain_threshold))
        elif p.kind is Kind.LIST:
            bar = self.settings.abstain_threshold + LIST_MARGIN
            f = Findings("list", listing=weigh_list(p, self.topics, self.scorer, bar, self._dense_calibrated()))
        else:
            f = self._weigh_single(p, lexicon)
            if p.within:
                paper = p.names.get(p.within) or (p.hits[0].title if p.hits else p.within)
                f.within = (f"{' vs '.join(repr(s.text) for s in q.sides)}: "
                            + (f"no side is a paper; asked of {paper}, the paper the conversation is about"
                               if p.within == q.inside else f"each side's best paper is {paper}"))
        f.filters = _filter_finding(p)
        if p.kind is Kind.SINGLE and p.hits:
            f.metadata = asks_metadata(q.text)
            # "what year was the HumanMAC baseline published?": a name only mentioned is no record's paper
            f.metadata_of = next((t for t in named_terms(asked_of(q.text), capitalised=True)
                                  if lexicon.status(t) in ("passing", "missing") and not lexicon.is_common(t)
                                  and not any(norm(t) in norm(k.name) for k in q.links)), "") if f.metadata else ""
            p.on_topic = on_topic(q.text, p.hits) if "recent" in f.metadata else []
            f.on_topic = len(p.on_topic)
        p.findings = f
        p.decision = decide(f)
        return p

    def _weigh_single(self, p: Prepared, lexicon: Lexicon) -> Findings:
        q = p.question
        f = Findings("answer", names=name_finding(p, lexicon))
        # (a paper named only by a term several abstracts use is still described: "which paper uses KANs for X?")
        strong = set(p.topic) & set(q.topic_strong)
        topic, named_topic = described_topic(q.standalone) if not strong else ("", False)
        # "Is there a paper on protein structure prediction?": off the corpus's topics, checked as a list's criterion
        # is (not "which paper does X?": a description in the asker's own words)
        if topic and named_topic:
            calibrated, short = self._dense_calibrated(), len(topic.split()) <= 6
            unused = self.topics.absent_words(topic, p.hits, calibrated, compounds=short)
            f.topic_absent = unused[0] if unused else ""
        n_topic = len([h for h in p.hits if h.paper_id in p.topic])
        p.evidence = ev = gather_evidence(q.standalone, p.hits, self.scorer, top=n_topic or 5, restrict=bool(n_topic))
        p.main = 0 if n_topic else self._main(ev)
        if topic and p.hits and not f.topic_absent:
            f.topic_uncovered = uncovered(topic, p.hits[p.main], self.topics, self.scorer)
            # "which paper detects X?": "No indexed abstract detects X" (not "is on detects X")
            f.topic_does = bool(not named_topic and f.topic_uncovered and re.match(r"[a-z]+(?:s|ed)\s",
                                                                                   f.topic_uncovered[0]))
        if p.hits:
            f.details = self._details(p, lexicon, n_topic)
        f.evidence = self._evidence(p)
        return f

    def _details(self, p: Prepared, lexicon: Lexicon, n_topic: int) -> tuple[DetailFinding, ...]:
        """Each thing asked, checked against the main paper's abstract: the ones it lacks."""
        q, ev = p.question, p.evidence
        text = p.hits[p.main].text
        similar, common = self.scorer.phrase_similarity, lexicon.is_common
        names = p.topic_names[:1] if n_topic else ()  # no paper named: a paraphrase, its wording checked loosely
        given = figures_in(q.standalone)  # "the two benchmarks": a number the question states answers nothing
        out = []
        for i, ask in enumerate((Ask(q.asked, q.numeric, q.measure), *q.more)):
            ask = replace(ask, asked=noun_phrase(ask.asked))  # the thing checked and named, never a verb
            missing = missing_detail(names, q.details if i == 0 else (), ask.asked, ask.numeric, text,
                                     heads_only=not n_topic, similar=similar, common=common, measure=ask.measure,
                                     given=given)
            if missing:
                # "how many X?" is answered in other words only by a sentence that gives a figure: the evidence a soft
                # miss is weighed with is the best of those (a sentence sharing the question's words and no figure,
                # "evaluated on the first large-scale dataset", answers no count)
                strength = figure_evidence(q.standalone, text, given, self.scorer) if ask.numeric else ev.score
                out.append(DetailFinding(i, ask.asked, missing.why, missing.firm, bool(n_topic), strength,
                                         self.settings.detail_override, missing.partial, in_own_words(ask.asked)))
        return tuple(out)

    def _evidence(self, p: Prepared) -> EvidenceFinding:
        """The evidence strength and the bar it is held to, with every adjustment of the bar named."""
        named = bool(set(p.topic) & set(p.question.topic_strong))
        shared = frozenset(t for t in p.evidence.subjects if self.lexicon.get().is_shared(t))
        return evidence_bar(p.evidence, p.hits, self.settings, dense_ok=self._dense_calibrated(), topic=p.topic,
                            named_paper=", ".join(p.topic_names) if named else "", main=p.main, shared=shared)

    def _weigh_compare(self, p: Prepared, lexicon: Lexicon, th: float) -> CompareFinding:
        sure = self._dense_calibrated() and self.retriever.settings.fusion == "score"  # (the share means this only)
        return weigh_compare(p, lexicon, self.scorer, th, topics=self.topics, sure=sure, agreement=self._agreement,
                             floor=self.settings.agreement_floor)

    def _dense_calibrated(self) -> bool:
        """The dense-score rules (dense floor, side agreement, close-match relief) were calibrated on the
        MiniLM embeddings (any backend serving them); they apply to those only, and only at full dense
        coverage (lexical-first ingest: a missing vector says nothing about a paper)."""
        index = self.retriever.index
        embedder = getattr(getattr(index, "embedder", None), "name", "")
        coverage = getattr(index, "coverage", None)
        return CALIBRATED_EMBEDDER in embedder and (coverage is None or coverage().get("complete", True))

    def _agreement(self, hit: Hit) -> float:
        """The hit's fused score as a share of the most it can be (1.0: dense and BM25 both rank it first);
        1.0 when the fusion is not the score fusion (RRF scores do not say this)."""
        r = self.retriever.settings
        top = r.dense_weight + r.lexical_weight
        return hit.score / top if r.fusion == "score" and top > 0 else 1.0

    def _main(self, ev) -> int:
        """Retrieval's first paper, unless another paper's best sentence beats its best by the margin."""
        best: dict[int, float] = {}
        for hi, _, score in ev.best:
            best.setdefault(hi, score)
        if not best:
            return 0
        top = max(best, key=best.get)
        return top if top != 0 and best[top] - best.get(0, 0.0) > self.settings.rerank_margin else 0


def _filter_finding(p: Prepared) -> FilterFinding | None:
    """The filters retrieval applied, as a finding (reported in the trace; query_filters owns them)."""
    applied = query_filters.summary(query_filters.describe(p.filters, p.filters_from_question).get("applied") or {})
    none = p.filter_finding  # filter_check.py: why the filters leave no paper
    if not (applied or none):
        return None
    return FilterFinding(applied, tuple(s.text.strip() for s in p.filters_from_question),
                         leaves_none=none.message if none else "", check=none.rule if none else "")


def _unique(hits: list[Hit]) -> list[Hit]:
    seen, out = set(), []
    for h in hits:
        if h.paper_id not in seen:
            seen.add(h.paper_id)
            out.append(h)
    return out
