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

import threading
import time
from dataclasses import replace

from ..retrieve import query_filters
from ..retrieve.hybrid import Filters, HybridRetriever
from ..retrieve.langchain import PaperRetriever
from ..settings import AnswerSettings
from ..types import Hit
from .answerable import missing_detail
from .evidence import ABSTAIN_SENTENCE, decide, gather_evidence
from .linker import Lexicon
from .question import Kind, Question, analyze
from .state import Prepared
from .support import SupportScorer

LIST_MAX = 30
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
            p.hits = self._search(q.criterion, LIST_MAX, p.filters)
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
        if q.kind is Kind.COMPARE:
            chosen: list[Hit] = []
            for i, hs in enumerate(p.sides):  # each side's best paper that is not already a row
                p.sides[i] = [h for h in hs if h.paper_id not in {c.paper_id for c in chosen}][:1]
                chosen += p.sides[i]
            p.side_evidence = [gather_evidence(s.text, hs, self.scorer, top=1) for s, hs in zip(q.sides, p.sides)]
            p.abstain = all(decide(e, th)[0] for e in p.side_evidence)
            p.reason = "Abstained: no side of the comparison is described by an indexed abstract." if p.abstain else ""
            return p
        if q.kind is Kind.LIST:
            return p
        if q.unlinked and not q.topic_placed and not q.topic_strong:
            term, status = q.unlinked[0]
            p.abstain = True
            p.why = (f"No indexed abstract is about {term}; it is only mentioned in passing." if status == "passing"
                     else f"No indexed abstract mentions {term}.")
            return p
        n_topic = len([h for h in p.hits if h.paper_id in q.topic])
        p.evidence = ev = gather_evidence(q.standalone, p.hits, self.scorer, top=n_topic or 5)
        p.main = 0 if n_topic else self._main(ev)
        if p.hits:
            text = p.hits[p.main].text
            if n_topic:
                missing = missing_detail(q.topic_names[:1], q.details, q.asked, q.numeric, text)
            else:  # no paper named: a paraphrase describes in its own words; only the asked head is checked
                missing = missing_detail((), (), q.asked, False, text, heads_only=True)
            if missing and ev.score < self.settings.detail_override:
                p.abstain, p.why = True, missing
                return p
        hits = p.hits
        if len(hits) > 1 and hits[0].score - hits[1].score >= self.settings.confident_gap:
            th -= self.settings.confident_relief  # retrieval singles out one paper: a paraphrase needs less wording overlap
        p.abstain, why = decide(ev, th, names=False)
        p.reason = f"Abstained: {why}." if p.abstain else ""
        return p

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
