"""Preparation, the part of an answer before any writing: analyze -> retrieve -> weigh.

Runs as a LangChain runnable sequence over a typed `Prepared` state (see `Assistant.prepare`):

- analyze: the question's kind, sides, topic papers and asked detail, with follow-ups resolved
  (question.py), names linked through a lexicon of the corpus (rebuilt when the store changes);
- retrieve: papers for the question; a question about named or referred-to papers retrieves inside
  them first; each side of a comparison is retrieved on its own; a list retrieves widely;
- weigh: evidence and abstention. Declines when the question's subject is a name no paper is about
  (near-miss), when the asked detail is not in the topic paper's abstract, or when the evidence is
  weak; otherwise picks the paper the answer rests on: retrieval's first, unless another paper's
  sentences answer clearly better (`answer.rerank_margin`).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import replace

from ..retrieve import query_filters
from ..retrieve.hybrid import Filters, HybridRetriever
from ..retrieve.langchain import PaperRetriever
from ..settings import AnswerSettings
from ..types import Hit
from .answerable import SOFT_MATCH, figures_in, has_term, missing_detail
from .evidence import ABSTAIN_SENTENCE, decide, gather_evidence
from .linker import Lexicon, named_terms, norm
from .listsize import LIST_POOL, LIST_SHOW
from .naming import names_for
from .phrasing import DESCRIBED_PAPER, OWN_PAPER, PAPER_ON
from .question import Ask, Kind, analyze
from .state import Prepared
from .support import STOP, SupportScorer, content_words, stem

LIST_MAX = LIST_SHOW  # papers a list answer writes out (listsize.py); LIST_POOL are retrieved and checked
CALIBRATED_EMBEDDER = "all-MiniLM-L6-v2"  # the embeddings the dense-score settings were calibrated on
# A list whose best chunk is this far from the criterion (MiniLM cosine) is off the corpus's topics unless its
# words say otherwise: then a criterion word no abstract uses is a part nothing matches. Lists asked of the
# corpus (project, blind sets, tuning half): best chunk >= 0.44 but two short criteria with every word in the
# corpus; lists on topics it lacks ("protein structure prediction", "robot manipulation"): 0.34-0.39.
LIST_TOPIC_COSINE = 0.45
_CHOICE = re.compile(r"^(?:which|who)\b", re.I)
# A near-miss asks about the name itself ("How does R-CNN propose regions?", "What does the CLIP paper say?": at most
# 8 content words in every set); a longer question describes a paper in which the name is a detail (checked as one)
NEAR_MISS_WORDS = 12
__all__ = ["ABSTAIN_SENTENCE", "LIST_MAX", "LexiconCache", "Preparer"]


class LexiconCache:
    """The corpus lexicon, rebuilt when the records change (not when only vectors were added)."""

    def __init__(self, index) -> None:
        self.index = index
        self._lock = threading.Lock()
        self._cached: tuple[str, Lexicon] | None = None

    def get(self) -> Lexicon:
        gen = self.index.searchable_generation()
        with self._lock:
            if self._cached is None or self._cached[0] != gen:
                self._cached = (gen, Lexicon.build((r.paper_id, r.display, r.text, r.label_derived) for r in self.index.all_records()))
            return self._cached[1]


class Preparer:
    def __init__(self, retriever: HybridRetriever, scorer: SupportScorer, lexicon: LexiconCache, settings: AnswerSettings) -> None:
        self.retriever, self.scorer, self.lexicon, self.settings = retriever, scorer, lexicon, settings

    def analyze(self, state: dict) -> Prepared:
        # filters stated in the question ("from 2025 on", "by Chen", "in cs.CL"); explicit ones win
        explicit, text = state.get("filters"), state["question"]
        vocab = self.retriever.catalog().derived("question_vocabulary", query_filters.Vocabulary.build)
        parsed = query_filters.parse_filters(text, vocab)
        applied = query_filters.applied_from_question(explicit, parsed)
        filters = query_filters.merge(explicit, parsed.filters) if applied else explicit
        q = analyze(parsed.cleaned if applied else text, state.get("conversation"), self.lexicon.get())
        return Prepared(q, k=state["k"], filters=filters, timings=state.get("timings", {}), filters_from_question=applied)

    # -- retrieve ------------------------------------------------------------------------------
    def _search(self, query: str, k: int, filters: Filters | None, within: tuple[str, ...] = ()) -> list[Hit]:
        """Retrieval through the LangChain retriever; `within` restricts it to those papers."""
        if within:
            filters, k = replace(filters or Filters(), paper_ids=frozenset(within)), max(k, len(within))
        docs = PaperRetriever(retriever=self.retriever, k=k, filters=filters).invoke(query)
        return [d.metadata["hit"] for d in docs]

    def retrieve(self, p: Prepared) -> Prepared:
        t = time.perf_counter()
        q = p.question
        if q.kind is Kind.COMPARE:
            p.sides = [self._search(side.text, 1 if side.paper_ids else 3, p.filters, side.paper_ids) for side in q.sides]
            p.hits = _unique([h for side in p.sides for h in side[:1]])
        elif q.kind is Kind.LIST:
            p.hits = self._search(q.criterion, LIST_POOL, p.filters)  # wide: the criterion is checked on each
        else:
            hits = self._search(q.standalone, p.k, p.filters)
            if not (q.followup or q.topic_placed):  # names linked elsewhere than the subject: retrieval must agree
                keep = [(t, n) for t, n in zip(q.topic, q.topic_names) if t in q.topic_strong or t in {h.paper_id for h in hits}]
                p.question = q = replace(q, topic=tuple(t for t, _ in keep), topic_names=tuple(n for _, n in keep))
            if q.topic:
                first = self._search(q.standalone, len(q.topic), p.filters, q.topic)
                order = {pid: i for i, pid in enumerate(q.topic)}
                first.sort(key=lambda h: order.get(h.paper_id, len(order)))
                hits = _unique(first + hits)[: max(p.k, len(first))]
            p.hits = hits
        p.timings["retrieval_s"] = time.perf_counter() - t
        return p

    # -- weigh ---------------------------------------------------------------------------------
    def weigh(self, p: Prepared) -> Prepared:
        th = self.settings.abstain_threshold
        q = p.question
        lexicon = self.lexicon.get()
        p.names = names_for(p.hits, lexicon)  # real names only: never a generic first word (naming.py)
        if q.kind is Kind.COMPARE:
            return self._weigh_compare(p, lexicon, th)
        if q.kind is Kind.LIST:
            unused = self._off_topic_words(q.criterion, p.hits)
            if unused:  # "anything on protein structure prediction?": a criterion word no abstract uses
                p.question = replace(q, parts=q.parts + unused)
            return p
        if q.topic and not q.topic_strong and not q.followup and OWN_PAPER.search(q.standalone):
            # "How does FNet ..., according to the FNet paper?": FNet's own paper is asked for, and the abstracts
            # that link to the name only discuss it (repeat it), none is named by it
            p.abstain = True
            p.why = f"No indexed abstract is about {q.topic_names[0]}; it is only discussed in others."
            return p
        if q.unlinked and not q.topic_placed and not q.topic_strong and not DESCRIBED_PAPER.search(q.standalone) \
                and len(content_words(q.standalone)) <= NEAR_MISS_WORDS:
            term, status = q.unlinked[0]
            p.abstain = True
            p.why = (f"No indexed abstract is about {term}; it is only mentioned in passing." if status == "passing"
                     else f"No indexed abstract mentions {term}.")
            return p
        on = PAPER_ON.search(q.standalone) if not q.topic else None
        topic = (on.group("t") or on.group("u")) if on else ""
        if topic and len(topic.split()) <= 6:  # "Is there a paper on protein structure prediction?": off the topics
            unused = self._off_topic_words(topic, p.hits)
            if unused:
                p.abstain, p.why = True, f"No indexed abstract mentions {unused[0]}."
                return p
        n_topic = len([h for h in p.hits if h.paper_id in q.topic])
        p.evidence = ev = gather_evidence(q.standalone, p.hits, self.scorer, top=n_topic or 5, restrict=bool(n_topic))
        p.main = 0 if n_topic else self._main(ev)
        if p.hits:
            text = p.hits[p.main].text
            similar, common = self.scorer.phrase_similarity, lexicon.is_common
            names = q.topic_names[:1] if n_topic else ()  # no paper named: a paraphrase, its wording checked loosely
            lacks: list[tuple[int, str]] = []
            given = figures_in(q.standalone)  # "the two benchmarks": a number the question states answers nothing
            for i, ask in enumerate((Ask(q.asked, q.numeric, q.measure), *q.more)):
                missing = missing_detail(names, q.details if i == 0 else (), ask.asked, ask.numeric, text,
                                         heads_only=not n_topic, similar=similar, common=common, measure=ask.measure,
                                         given=given)
                # a paraphrase names no paper: its asked words are the asker's own, so only a firm miss counts
                if missing and (missing.firm or (n_topic and ev.score < self.settings.detail_override)):
                    lacks.append((i, missing.why))
            if lacks and lacks[0][0] == 0:  # the main thing asked is not there
                p.abstain, p.why = True, lacks[0][1]
                return p
            p.gaps = [why for _, why in lacks]  # a further part is not there: answer the rest, say which
        hits = p.hits
        # dense-based declines only where every searchable paper has its vectors (lexical-first ingest)
        dense = [h.scores["dense"] for h in hits if "dense" in h.scores] if self._dense_calibrated() else []
        if not q.topic and dense and max(dense) < self.settings.dense_floor:
            p.abstain, p.reason = True, f"Abstained: no chunk is close to the question (cosine {max(dense):.2f} < {self.settings.dense_floor:.2f})."
            return p
        lead = len(hits) > 1 and hits[0].score - hits[1].score >= self.settings.confident_gap
        if lead or (dense and hits[0].scores.get("dense", 0.0) >= self.settings.confident_cosine):
            th -= self.settings.confident_relief  # retrieval singles out one paper: a paraphrase needs less wording overlap
        if not q.topic and ev.cosine >= self.settings.paraphrase_cosine:
            th = min(th, ev.score)  # a paraphrase: close in meaning to a sentence, however few words it shares
        p.abstain, why = decide(ev, th, names=False)
        p.reason = f"Abstained: {why}." if p.abstain else ""
        return p

    def _weigh_compare(self, p: Prepared, lexicon: Lexicon, th: float) -> Prepared:
        """Each side's row paper and whether it was found; declines when no side is found, when a side is a name
        no abstract is about and no other side speaks of it, or when a setting asked ("on FEMNIST") is in none."""
        q = p.question
        candidates = {h.paper_id for side in p.sides for h in side}  # every paper retrieved for a side
        chosen: list[Hit] = []
        named_first = sorted(range(len(p.sides)), key=lambda i: not q.sides[i].paper_ids)
        for i in named_first:  # each side's best paper that is not already a row; named sides choose first
            p.sides[i] = [h for h in p.sides[i] if h.paper_id not in {c.paper_id for c in chosen}][:1]
            chosen += p.sides[i]
        p.side_evidence = [gather_evidence(s.text, hs, self.scorer, top=1) for s, hs in zip(q.sides, p.sides)]
        if _CHOICE.match(q.standalone):  # "Which of A and B generates ...?": the side that answers comes first
            fit = [gather_evidence(q.standalone, hs, self.scorer, top=1).score for hs in p.sides]
            order = sorted(range(len(p.sides)), key=lambda i: -fit[i])
            p.sides, p.side_evidence = [p.sides[i] for i in order], [p.side_evidence[i] for i in order]
            p.question = q = replace(q, sides=tuple(q.sides[i] for i in order))
        # a side is found when it is named, its sentences answer, or (a described side) retrieval is sure of it
        sure = self._dense_calibrated() and self.retriever.settings.fusion == "score"  # (the share means this only)
        p.side_found = [bool(hs) and bool(s.paper_ids or not decide(e, th)[0]
                                         or (sure and self._agreement(hs[0]) >= self.settings.agreement_floor))
                        for s, hs, e in zip(q.sides, p.sides, p.side_evidence)]
        any_found, why = any(p.side_found), ""
        for i, side in enumerate(q.sides):  # "How do FedMerge and FedProx differ?": a name no abstract is about
            status = lexicon.status(side.text) if not side.paper_ids and named_terms(side.text) == [side.text] else ""
            if status not in ("passing", "missing") or lexicon.is_common(side.text):
                continue
            p.side_found[i] = False  # the paper retrieved for it only mentions it: not its row
            if any_found and not why and not any(has_term(side.text, hs[0].text) for hs, ok in zip(p.sides, p.side_found) if ok):
                why = (f"No indexed abstract is about {side.text}; it is only mentioned in passing." if status == "passing"
                       else f"No indexed abstract mentions {side.text}.")  # and no other side's abstract speaks of it
        found = [hs[0] for hs, ok in zip(p.sides, p.side_found) if ok]
        if why or not found:
            p.abstain, p.why = True, why
            p.reason = "" if why else "Abstained: no side of the comparison is described by an indexed abstract."
            return p
        asked = [t for t in q.details if not lexicon.is_common(t)  # not a description, not in a side's own words
                 and not any(norm(t) in norm(side.text) for side in q.sides)]
        # a setting no side's abstract names, and no other paper retrieved for a side either (that one may be the side)
        absent = [t for t in asked if not any(has_term(t, h.text) for h in found) and not lexicon.mentioned_in(t) & candidates]
        if absent:  # "How do A and B differ on FEMNIST?": no side's abstract names FEMNIST
            who = " and ".join(p.names.get(h.paper_id, h.title) for h in found)
            p.abstain, p.why = True, f"The {who} abstract{'s' if len(found) > 1 else ''} report{'' if len(found) > 1 else 's'} no {absent[0]}."
        return p

    def _off_topic_words(self, phrase: str, hits: list[Hit]) -> tuple[str, ...]:
        """Words of `phrase` no abstract uses, when the best chunk is far from it (LIST_TOPIC_COSINE): off the topics."""
        dense = [h.scores["dense"] for h in hits if "dense" in h.scores] if self._dense_calibrated() else []
        return self._unused_words(phrase, hits) if dense and max(dense) < LIST_TOPIC_COSINE else ()

    def _unused_words(self, criterion: str, hits: list[Hit]) -> tuple[str, ...]:
        """Lower-case words of a list's criterion that no abstract of the corpus uses (any form) and that no
        retrieved abstract says in other words (a 1-3 word span within SOFT_MATCH): the part nothing matches."""
        stems = self.lexicon.get().stems
        out = []
        verbs = set(re.findall(r"\b(?:that|which|who|to|not|can|will|does|do)\s+([a-z]+)", criterion))  # "that stands in for"
        for w in dict.fromkeys(re.findall(r"\b[a-z]{4,}\b", criterion)):
            if w in STOP or w in verbs or w.endswith("ly") or stem(w) in stems:  # not "fairly"
                continue
            if not any(self.scorer.phrase_similarity(w, h.text) >= SOFT_MATCH for h in hits[:5]):
                out.append(w)
        return tuple(out)

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


def _unique(hits: list[Hit]) -> list[Hit]:
    seen, out = set(), []
    for h in hits:
        if h.paper_id not in seen:
            seen.add(h.paper_id)
            out.append(h)
    return out
