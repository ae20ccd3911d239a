"""The Assistant: question (+ conversation) -> verified, cited Answer. The public entry point.

    a = Assistant(settings)
    for ev in a.stream("How much does Prune&Comp reduce perplexity?", Conversation()):
        ...                                  # Status, Token (raw model text), then Done(answer)
    answer = a.ask("Which papers use a server-side generator?")

Preparation is a LangChain runnable sequence over a typed `Prepared` state (prepare.py: analyze the
question against the corpus lexicon -> retrieve through the LangChain retriever -> weigh evidence and
decide whether to abstain); then the writer for the question's kind (kinds/: single, compare, list)
returns a `Draft`: composed from cited evidence sentences (the default, `extractive`), or written by a
chat model and verified sentence by sentence. The turn is remembered with the papers it was about,
so follow-ups resolve to them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableLambda

from ..errors import ConfigError, ModelError
from ..index.indexer import Index
from ..retrieve.hybrid import Filters, HybridRetriever
from ..settings import Settings
from ..types import Answer, Turn
from ..user_text import clean_user_text
from ..verify import get_verifier
from .conversation import Conversation
from .events import Done, Event, Status
from .evidence import ABSTAIN_SENTENCE
from .kinds import WRITERS, Context
from .kinds.metadata import MetadataWriter
from .lexcache import LexiconCache
from .models import ChatModel, get_chat_model
from .nameforms import norm
from .naming import followup_questions, real_name, short_name
from .prepare import Preparer
from .prompts import load_prompt
from .prose import Rewriter
from .question import Kind
from .state import Draft, Prepared
from .support import SupportScorer

log = logging.getLogger(__name__)

REQUEST_MODEL_OPTIONS = ("openai_base_url", "openai_model")  # what a front end may set per request


class Assistant:
    def __init__(self, settings: Settings, index: Index | None = None, chat_model=None) -> None:
        self.settings = settings
        self.index = index or Index(settings)
        self.retriever = HybridRetriever(self.index, settings.retrieval)
        self.scorer = SupportScorer(self.index.embedder.embed_documents, name=self.index.embedder.name)
        self._model = chat_model
        self._model_ready = chat_model is not None
        self._model_lock = threading.Lock()
        for name in ("system", "answer", "compare"):
            load_prompt(name)  # fail at start-up, not mid-answer
        self.lexicon = LexiconCache(self.index)
        prep = Preparer(self.retriever, self.scorer, self.lexicon, settings.answer)
        self.prepare = (
            RunnableLambda(prep.analyze, name="analyze")
            | RunnableLambda(prep.retrieve, name="retrieve")
            | RunnableLambda(prep.weigh, name="evidence")
        )

    # -- models -------------------------------------------------------------------------------
    def model(self, name: str | None = None, options: Mapping[str, Any] | None = None) -> ChatModel | None:
        """The chat model (None for 'extractive': answers composed from the evidence). `options`: answer
        settings for this request only, e.g. {"openai_base_url": ..., "openai_model": ...} (see `stream`)."""
        if options:
            bad = set(options) - set(REQUEST_MODEL_OPTIONS)
            if bad:
                raise ConfigError(f"Not a per-request model option: {', '.join(sorted(bad))}.",
                                  hint=f"Use one of: {', '.join(REQUEST_MODEL_OPTIONS)}.")
            update = {"model": name or self.settings.answer.model, **options}
            configured = self.settings.answer.openai_base_url.rstrip("/")
            if str(options.get("openai_base_url") or configured).rstrip("/") != configured:
                update["openai_api_key_env"] = ""  # the operator's key goes to the operator's server only
            return get_chat_model(self.settings.answer.model_copy(update=update))
        if name and name != self.settings.answer.model:
            return get_chat_model(self.settings.answer.model_copy(update={"model": name}))
        with self._model_lock:
            if not self._model_ready:
                self._model = self._model or get_chat_model(self.settings.answer)
                self._model_ready = True
            return self._model

    def served_models(self, base_url: str | None = None) -> list[str]:
        """Model names an OpenAI-compatible server lists (default: the configured one). The configured
        API key is sent only to the configured server."""
        import os

        from .models.openai_compat import list_models

        a = self.settings.answer
        url = (base_url or a.openai_base_url).rstrip("/")
        key = os.environ.get(a.openai_api_key_env, "") if a.openai_api_key_env else ""
        return list_models(url, key if key and url == a.openai_base_url.rstrip("/") else None,
                           min(a.timeout_s, 10.0))

    def _check_claims(self, pairs):
        """The claim verifier over (claim, abstract) pairs (loaded on first use; raises VerifierUnavailableError)."""
        return get_verifier(self.settings.verify).verify_many(pairs)

    def warm_up(self) -> dict[str, float]:
        """Load what the first question would otherwise wait for: the chat model (weights and first
        kernels), the query embedder and the lexical index. Seconds per part; failures are left for the
        first question to report with its hint."""
        took: dict[str, float] = {}
        for part, step in (("index", lambda: self.index.refresh_lexical()),
                           ("embedder", lambda: self.index.embedder.embed_query("warm up")),
                           ("verifier", lambda: self._check_claims([("warm up", ["warm up"])])),
                           ("model", self._warm_model)):
            t = time.perf_counter()
            try:
                step()
            except Exception as e:  # noqa: BLE001
                log.info("warm-up of the %s failed: %s", part, e)
            took[part] = round(time.perf_counter() - t, 2)
        return took

    def _warm_model(self) -> None:
        chat = self.model()
        warm = getattr(chat, "warm_up", None)  # local models load and run one token; remote servers are not called
        if warm is not None:
            warm()

    # -- public API ---------------------------------------------------------------------------
    def clean_question(self, question: str) -> str:
        """`question` through the one door for user text (user_text.clean_user_text); UserTextError if
        it holds a broken character, is empty, or is longer than ui.max_question_chars."""
        return clean_user_text(question, max_chars=self.settings.ui.max_question_chars)

    def prepared(self, question: str, conversation: Conversation | None = None, *, filters: Filters | None = None,
                 k: int | None = None) -> Prepared:
        """Everything before writing (analysis, retrieval, evidence, abstention) for `question`."""
        question = self.clean_question(question)
        conversation = conversation if conversation is not None else Conversation()
        prep = self.prepare.invoke({
            "question": question, "conversation": conversation, "filters": filters, "timings": {},
            "k": max(k or self.settings.retrieval.k, self.settings.answer.sources),
        })
        prep.turns = list(conversation.turns)
        return prep

    def stream(
        self, question: str, conversation: Conversation | None = None, *, filters: Filters | None = None,
        k: int | None = None, model: str | None = None, stop: threading.Event | None = None, id: str = "",
        model_options: Mapping[str, Any] | None = None,
    ) -> Iterator[Event]:
        """Events of one answer (Status, Token, Done). `model_options`: answer settings of the chat model
        for this request only (REQUEST_MODEL_OPTIONS: the OpenAI-compatible server's URL and model name)."""
        question = self.clean_question(question)  # refused before anything is tokenised
        conversation = conversation if conversation is not None else Conversation()
        t0 = time.perf_counter()
        self.index.require_content()
        yield Status("retrieving")
        prep = self.prepared(question, conversation, filters=filters, k=k)
        chat = self.model(model, model_options)
        ctx = Context(chat, self.scorer, self.settings.answer, stop, self._check_claims if chat is not None else None,
                      Rewriter(self._check_claims))  # each sentence rewritten as prose only where the verifier agrees
        draft = yield from _write(prep, ctx)
        prep.timings.setdefault("first_token_s", time.perf_counter() - t0)
        prep.timings["total_s"] = time.perf_counter() - t0
        answer = with_coverage(draft.to_answer(prep, chat.name if chat is not None else "extractive", question, id),
                               self.index.coverage())
        self._remember(conversation, prep, answer)
        yield Done(answer)

    def _remember(self, conversation: Conversation, prep: Prepared, answer: Answer) -> None:
        """Add the turn: the papers it was about (named, referred to, or the answer's main paper)."""
        q = prep.question
        cited = tuple(c.paper_id for c in answer.citations)
        if prep.kind is Kind.COMPARE:
            focus = tuple(h.paper_id for side in prep.sides for h in side[:1])
        elif prep.topic:
            focus = prep.topic
        else:
            focus = cited[:1] if prep.kind is Kind.SINGLE else cited
        lex = self.lexicon.get()
        labels = {h.paper_id: real_name(h.record, lex) or short_name(h.title) for h in prep.hits}  # never "Federated"
        for pid, name in zip(prep.topic, prep.topic_names):  # the name the user used, spelled as the paper spells it
            canonical = lex.display.get(pid, "")
            labels[pid] = canonical if norm(canonical) == norm(name) else name
        for side in q.sides:
            if side.paper_ids and side.paper_ids[0] not in labels:
                labels[side.paper_ids[0]] = side.text
        conversation.add(Turn(answer.question, answer.answer, q.standalone, () if answer.abstained else cited,
                              () if answer.abstained and not prep.topic else focus), labels,
                         {h.paper_id: f"{h.title} {h.text}" for h in prep.hits if h.paper_id in cited})

    def ask(self, question: str, conversation: Conversation | None = None, *, history: list[str] | None = None,
            **kw) -> Answer:
        if conversation is None and history:
            conversation = self.conversation_from_history(history)
        for ev in self.stream(question, conversation, **kw):
            if isinstance(ev, Done):
                return ev.answer
        raise ModelError("The answer stream ended without an answer.")  # pragma: no cover

    def conversation_from_history(self, history: list[str]) -> Conversation:
        """Replay earlier user turns (no generation: evidence composition) so follow-ups resolve."""
        conv = Conversation()
        for q in history:
            prep = self.prepared(q, conv)
            draft = _drain(_write(prep, Context(None, self.scorer, self.settings.answer)))
            self._remember(conv, prep, draft.to_answer(prep, "replay", q))
        return conv

    def would_answer(self, question: str, conversation: Conversation | None = None) -> bool:
        """True when the corpus answers `question` (no generation; used to vet suggested follow-ups)."""
        prep = self.prepared(question, Conversation(list(conversation.turns), dict(conversation.labels))
                             if conversation else None)
        return not prep.abstain  # decided before any writing (decide.py)

    def suggest_followups(self, answer: Answer, conversation: Conversation | None = None, limit: int = 3) -> list[str]:
        """Follow-up questions the corpus can answer (each is checked with `would_answer`)."""
        if answer.abstained or not answer.citations:
            return []
        cands = followup_questions(answer, self.lexicon.get())  # real names only; none: no suggestions
        out = []
        for q in cands:
            if len(out) >= limit:
                break
            if self.would_answer(q, conversation):
                out.append(q)
        return out

    def ingest(self, paths: list[Path], progress=None):
        from ..pipeline import ingest_paths

        return ingest_paths(self.index, paths, progress=progress)

    @property
    def corpus(self):
        """The indexed papers for front ends: search_papers, paper, papers, stats, facets, add_files
        (assistant/corpus.py), so they need not reach `index` or `retriever`."""
        from ..corpus import Corpus

        return Corpus(self.index, self.retriever)


def _write(prep: Prepared, ctx: Context):
    """The Draft for a prepared question: the abstention `decide()` made (saying what is missing), or its kind's
    writer, which never abstains; a question for a paper's authors, year or venue is answered from the record
    (even where its abstract says nothing of them), one for "the most recent paper on ..." from the years of the
    papers retrieved."""
    if prep.decision.rule == "metadata.from_record":  # decide() answers it from the records
        return (yield from MetadataWriter(prep.findings.metadata).write(prep, ctx))
    if prep.abstain:
        return Draft("abstain", f"{ABSTAIN_SENTENCE} {prep.why}".strip(), related=list(prep.hits[:3]),
                     notes=[n for n in (prep.why, prep.reason) if n])
    return (yield from WRITERS[prep.kind].write(prep, ctx))


def with_coverage(answer: Answer, coverage: dict) -> Answer:
    """The answer with the dense coverage it was retrieved at; below 100% a note says so (lexical-first ingest)."""
    import dataclasses

    notes = answer.notes
    if not coverage.get("complete", True):
        notes = (*notes, f"Dense retrieval covers {coverage['embedded']:,} of {coverage['papers']:,} papers so far "
                         "(the rest are found by keywords only until their embeddings are made).")
    return dataclasses.replace(answer, dense_coverage=coverage, notes=notes)


def _drain(gen):
    """Run a writer to its Draft, discarding its events."""
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value
