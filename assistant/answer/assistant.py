"""The Assistant: question (+ conversation) -> verified, cited Answer. The public entry point.

    a = Assistant(settings)
    for ev in a.stream("How much does Prune&Comp reduce perplexity?", Conversation()):
        ...                                  # Status, Token (raw model text), then Done(answer)
    answer = a.ask("Which papers use a server-side generator?")

The preparation is a LangChain runnable sequence (rewrite -> retrieve through the LangChain retriever
-> evidence and abstention -> prompt); the model streams; verification runs last. Comparisons and
"which papers" lists are composed from evidence by code (compose.py) with an optional model-written
overview that is verified like any answer. The extractive model composes answers from evidence only.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from langchain_core.runnables import RunnableLambda

from ..errors import ModelError
from ..index.indexer import Index
from ..index.sentences import split_sentences
from ..retrieve.hybrid import Filters, HybridRetriever
from ..retrieve.langchain import PaperRetriever
from ..settings import Settings
from ..types import Answer, Citation, Hit, Turn
from .citations import SourceIndex, verify
from .compose import classify, comparison_table, extractive_answer, trim
from .conversation import Conversation
from .events import Done, Event, Status, Token
from .evidence import ABSTAIN_SENTENCE, coverage_note, decide, effective_threshold, gather_evidence
from .models import IncompleteGeneration, get_chat_model
from .prompts import load_prompt
from .support import SupportScorer

log = logging.getLogger(__name__)

SOURCE_SENTENCES = 3  # sentences of each abstract shown to the model: its best ones for the question, in order
LIST_MAX = 30


class Assistant:
    def __init__(self, settings: Settings, index: Index | None = None, chat_model=None) -> None:
        self.settings = settings
        self.index = index or Index(settings)
        self.retriever = HybridRetriever(self.index, settings.retrieval)
        self.scorer = SupportScorer(self.index.embedder.embed_documents)
        self._model = chat_model
        self._model_lock = threading.Lock()
        for name in ("system", "answer", "compare"):
            load_prompt(name)  # fail at start-up, not mid-answer
        self.prepare = (
            RunnableLambda(self._rewrite, name="rewrite")
            | RunnableLambda(self._retrieve, name="retrieve")
            | RunnableLambda(self._weigh, name="evidence")
        )

    # -- models -------------------------------------------------------------------------------
    def model(self, name: str | None = None):
        if name and name != self.settings.answer.model:
            return get_chat_model(self.settings.answer.model_copy(update={"model": name}))
        with self._model_lock:
            if self._model is None:
                self._model = get_chat_model(self.settings.answer)
            return self._model

    def warm_up(self) -> dict[str, float]:
        """Load what the first question would otherwise wait for: the chat model (weights and first
        kernels), the query embedder and the lexical index. Seconds per part; failures are left for the
        first question to report with its hint."""
        took: dict[str, float] = {}
        for part, step in (("index", lambda: self.index.refresh_lexical()),
                           ("embedder", lambda: self.index.embedder.embed_query("warm up")),
                           ("model", self._warm_model)):
            t = time.perf_counter()
            try:
                step()
            except Exception as e:  # noqa: BLE001
                log.info("warm-up of the %s failed: %s", part, e)
            took[part] = round(time.perf_counter() - t, 2)
        return took

    def _warm_model(self) -> None:
        from .models.hf import HFChatModel

        chat = self.model()
        chat.count_tokens("warm up")  # loads local weights
        if isinstance(chat, HFChatModel):  # first-call kernel set-up; remote servers are not called
            for _ in chat.stream([{"role": "user", "content": "Hi"}], max_new_tokens=1):
                pass

    # -- chain steps (plain dict state) --------------------------------------------------------
    def _rewrite(self, st: dict) -> dict:
        st["standalone"] = st["conversation"].rewrite(st["question"])
        st["qtype"] = classify(st["standalone"])
        return st

    def _retrieve(self, st: dict) -> dict:
        t = time.perf_counter()
        lc = PaperRetriever(retriever=self.retriever, k=st["k"], filters=st["filters"])
        qt = st["qtype"]
        if qt.kind == "compare":
            st["sides"] = [[d.metadata["hit"] for d in lc.with_k(3).invoke(side)] for side in qt.sides]
            st["hits"] = _unique([h for side in st["sides"] for h in side[:1]])
        elif qt.kind == "list":
            st["hits"] = [d.metadata["hit"] for d in lc.with_k(LIST_MAX).invoke(qt.criterion)]
        else:
            st["hits"] = [d.metadata["hit"] for d in lc.invoke(st["standalone"])]
        st["timings"]["retrieval_s"] = time.perf_counter() - t
        return st

    def _weigh(self, st: dict) -> dict:
        th = self.settings.answer.abstain_threshold
        if st["qtype"].kind == "compare":
            chosen: list[Hit] = []
            for i, hs in enumerate(st["sides"]):  # each side's best paper that is not already a row
                pick = [h for h in hs if h.paper_id not in {c.paper_id for c in chosen}][:1]
                st["sides"][i] = pick
                chosen += pick
            st["side_evidence"] = [gather_evidence(s, hs, self.scorer, top=1) for s, hs in zip(st["qtype"].sides, st["sides"])]
            st["abstain"], st["why"] = all(decide(e, th)[0] for e in st["side_evidence"]), "no side covered"
        elif st["qtype"].kind == "list":
            st["abstain"], st["why"] = False, ""
        else:
            st["evidence"] = ev = gather_evidence(st["standalone"], st["hits"], self.scorer)
            st["abstain"], st["why"] = decide(ev, th)
        return st

    # -- public API ---------------------------------------------------------------------------
    def stream(
        self, question: str, conversation: Conversation | None = None, *, filters: Filters | None = None,
        k: int | None = None, model: str | None = None, stop: threading.Event | None = None, id: str = "",
    ) -> Iterator[Event]:
        conversation = conversation if conversation is not None else Conversation()
        t0 = time.perf_counter()
        self.index.require_content()
        yield Status("retrieving")
        st = self.prepare.invoke({
            "question": question, "conversation": conversation, "filters": filters, "timings": {},
            "k": max(k or self.settings.retrieval.k, self.settings.answer.sources),
        })
        chat = self.model(model)
        res: dict = {"notes": [], "unsupported": [], "incomplete": False, "kind": st["qtype"].kind}
        if st["abstain"]:
            res.update(text=ABSTAIN_SENTENCE, citations=[], kind="abstain", notes=[f"Abstained: {st['why']}."])
        elif st["qtype"].kind == "compare":
            yield from self._compare(st, chat, res, stop)
        elif st["qtype"].kind == "list":
            self._list(st, res)
        else:
            yield from self._answer(st, chat, res, stop, conversation)
        st["timings"].setdefault("first_token_s", time.perf_counter() - t0)
        st["timings"]["total_s"] = time.perf_counter() - t0
        answer = Answer(
            question=question, answer=res["text"], standalone_query=st["standalone"], abstained=res["kind"] == "abstain",
            citations=tuple(res["citations"]), retrieved=tuple(st["hits"]), unsupported=tuple(res["unsupported"]),
            notes=tuple(res["notes"]), model=chat.name, kind=res["kind"], incomplete=res["incomplete"],
            timings={k2: round(v, 4) for k2, v in st["timings"].items()}, id=id,
        )
        cited = tuple(c.paper_id for c in answer.citations) or tuple(h.paper_id for h in st["hits"][:3])
        conversation.add(
            Turn(question, answer.answer, answer.standalone_query, () if answer.abstained else cited),
            {h.paper_id: short_name(h.title) for h in st["hits"]},
        )
        yield Done(answer)

    def ask(self, question: str, conversation: Conversation | None = None, *, history: list[str] | None = None, **kw) -> Answer:
        if conversation is None and history:
            conversation = self.conversation_from_history(history)
        for ev in self.stream(question, conversation, **kw):
            if isinstance(ev, Done):
                return ev.answer
        raise ModelError("The answer stream ended without an answer.")  # pragma: no cover

    def conversation_from_history(self, history: list[str]) -> Conversation:
        """Replay earlier user turns (retrieval only, no generation) so follow-ups resolve."""
        conv = Conversation()
        for q in history:
            st = self.prepare.invoke({"question": q, "conversation": conv, "filters": None, "timings": {},
                                      "k": self.settings.retrieval.k})
            hits = st["hits"][:3] if st["qtype"].kind != "list" else st["hits"][:5]
            conv.add(Turn(q, "", st["standalone"], tuple(h.paper_id for h in hits)),
                     {h.paper_id: short_name(h.title) for h in st["hits"]})
        return conv

    def suggest_followups(self, answer: Answer) -> list[str]:
        if answer.abstained or not answer.citations:
            return []
        names = [short_name(c.title) for c in answer.citations[:2]]
        out = [f"Which datasets does {names[0]} use?", f"What results does {names[0]} report?"]
        if len(names) > 1:
            out.append(f"How does {names[0]} differ from {names[1]}?")
        else:
            out.append(f"Which papers are similar to {names[0]}?")
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

    # -- answer kinds -------------------------------------------------------------------------
    def _answer(self, st, chat, res, stop, conversation) -> Iterator[Event]:
        ev = st["evidence"]
        th = self.settings.answer.support_threshold
        note = coverage_note(ev)
        if not getattr(chat, "generative", True):
            self._extractive(st, res)
        else:
            sources, dropped, messages = self._prompt(st, chat, conversation)
            if dropped:
                res["notes"].append(f"{dropped} lower-ranked source(s) not shown to the model (answer.prompt_tokens).")
            yield Status("generating")
            raw = yield from self._generate(chat, messages, st, res, stop)
            yield Status("verifying")
            v = verify(raw, SourceIndex(sources), self.scorer, th)
            res["notes"] += v.notes
            res["unsupported"] += v.unsupported
            if v.text and ABSTAIN_SENTENCE.lower()[:30] not in raw.lower():
                res.update(text=v.text, citations=v.citations)
            else:
                res["notes"].append("The model's answer could not be verified against the abstracts; showing the evidence sentences instead.")
                self._extractive(st, res)
        if note:
            res["text"] += f"\n\n*{note}*"
            res["notes"].append(note)

    def _extractive(self, st, res) -> None:
        ev, hits = st["evidence"], st["hits"]
        picks = extractive_answer(ev.best, hits, effective_threshold(ev, self.settings.answer.abstain_threshold))
        markers: dict[int, int] = {}
        chosen: dict[int, list[int]] = {}
        parts = []
        for hi, si in picks:
            n = markers.setdefault(hi, len(markers) + 1)
            chosen.setdefault(hi, []).append(si)
            parts.append(f"{split_sentences(hits[hi].text)[si].text.rstrip('.')} [{n}].")
        cites = []
        for hi, n in markers.items():
            h, sents = hits[hi], split_sentences(hits[hi].text)
            ids = tuple(sorted(chosen[hi]))
            cites.append(Citation(n, h.paper_id, h.title, h.text, tuple(sents[i].text for i in ids), ids))
        res.update(text=" ".join(parts) or ABSTAIN_SENTENCE, citations=cites)
        if not parts:
            res["kind"] = "abstain"

    def _generate(self, chat, messages, st, res, stop) -> Iterator[Event]:
        pieces: list[str] = []
        t = time.perf_counter()
        s = self.settings.answer
        try:
            for piece in chat.stream(messages, max_new_tokens=s.max_new_tokens, temperature=s.temperature, stop=stop):
                if not pieces:
                    st["timings"]["first_token_s"] = st["timings"].get("retrieval_s", 0) + (time.perf_counter() - t)
                pieces.append(piece)
                yield Token(piece)
        except IncompleteGeneration as e:
            pieces = [e.partial]
            res["incomplete"] = True
            res["notes"].append(f"The answer is incomplete: {e.message}")
        if stop is not None and stop.is_set():
            res["incomplete"] = True
            res["notes"].append("Generation was stopped.")
        return "".join(pieces)

    def _prompt(self, st, chat, conversation: Conversation, template: str = "answer"):
        """Numbered, delimited sources + history, fitted to `answer.prompt_tokens` and the model's window.

        Each part is counted once; older turns go first, then the lowest-ranked sources (one always
        stays). Prefill time grows with the prompt (~430 tokens/s for the bundled model on two cores),
        so the budget is what keeps the first token quick.
        """
        s = self.settings.answer
        hits = st["hits"][: s.sources]
        best_by_hit: dict[int, list[int]] = {}
        for hi, si, _ in st.get("evidence").best if st.get("evidence") else []:
            best_by_hit.setdefault(hi, []).append(si)
        system = load_prompt("system").render()
        history = [f"Earlier question: {t.question}\nEarlier answer: {trim(t.answer, 60)}" for t in conversation.turns]
        blocks = [_source_block(n, h, best_by_hit.get(i, [])) for i, (n, h) in enumerate(zip(range(1, len(hits) + 1), hits))]

        def render(k: int, first_turn: int) -> str:
            block, turns = "\n".join(blocks[:k]), history[first_turn:]
            hist = ("\nConversation so far:\n" + "\n".join(turns) + "\n") if turns else ""
            values = {"sources": block, "question": st["standalone"]}
            return load_prompt(template).render(**({**values, "history": hist} if template == "answer" else values))

        budget = min(min(chat.context_tokens, s.context_tokens) - s.max_new_tokens - 16, s.prompt_tokens)
        fixed = chat.count_tokens(system) + chat.count_tokens(render(0, len(history))) + 24  # chat template too
        block_n = [chat.count_tokens(b) + 1 for b in blocks]
        turn_n = [chat.count_tokens(t) + 1 for t in history]

        def size(k: int, first_turn: int) -> int:
            turns = sum(turn_n[first_turn:]) + (8 if first_turn < len(history) else 0)  # + the heading
            return fixed + sum(block_n[:k]) + turns

        k, first_turn = len(blocks), 0
        while size(k, first_turn) > budget:
            if first_turn < len(history):
                first_turn += 1
            elif k > 1:
                k -= 1
            else:
                break
        return hits[:k], len(hits) - k, [{"role": "system", "content": system}, {"role": "user", "content": render(k, first_turn)}]

    def _compare(self, st, chat, res, stop) -> Iterator[Event]:
        th = self.settings.answer.abstain_threshold
        rows, notes = [], []
        for side, side_hits, ev in zip(st["qtype"].sides, st["sides"], st["side_evidence"]):
            if side_hits and not decide(ev, th)[0]:
                rows.append(side_hits[0])
            else:
                notes.append(f"No indexed abstract describes {side}.")
        rows = _unique(rows)
        st["hits"] = rows + [h for h in st["hits"] if h not in rows]
        table, used = comparison_table([(h, n) for n, h in enumerate(rows, start=1)])
        cites = [
            Citation(n, h.paper_id, h.title, h.text,
                     tuple(split_sentences(h.text)[i].text for i in sorted(set(used.get(n, [])))), tuple(sorted(set(used.get(n, [])))))
            for n, h in enumerate(rows, start=1)
        ]
        overview = ""
        if getattr(chat, "generative", True) and len(rows) > 1:
            block = "\n".join(_source_block(n, h, []) for n, h in enumerate(rows, start=1))
            body = load_prompt("compare").render(sources=block, question=st["standalone"])
            msgs = [{"role": "system", "content": load_prompt("system").render()}, {"role": "user", "content": body}]
            yield Status("generating")
            raw = yield from self._generate(chat, msgs, st, res, stop)
            v = verify(raw, SourceIndex(rows), self.scorer, self.settings.answer.support_threshold)
            res["notes"] += v.notes
            res["unsupported"] += v.unsupported
            overview = _remap(v, rows)
        text = (overview + "\n\n" if overview else "") + table
        if notes:
            text += "\n\n*" + " ".join(notes) + "*"
            res["notes"] += notes
        res.update(text=text, citations=cites)

    def _list(self, st, res) -> None:
        crit = st["qtype"].criterion
        hits = st["hits"]
        th = self.settings.answer.abstain_threshold + 0.05
        found = []
        for h in hits:
            sents = [s.text for s in split_sentences(h.text)]
            row = self.scorer.matrix([crit], sents)[0]
            j = int(row.argmax())
            if row[j] >= th:
                found.append((float(row[j]), h, j, sents[j]))
        found.sort(key=lambda x: -x[0])
        if not found:
            res.update(text=ABSTAIN_SENTENCE, citations=[], kind="abstain")
            return
        lines = [f"**{len(found)} paper{'s' if len(found) != 1 else ''}** in the indexed abstracts match “{crit}”:", ""]
        cites = []
        for n, (_, h, j, sent) in enumerate(found, start=1):
            lines.append(f"{n}. **{h.title}** — {trim(sent, 30)} [{n}]")
            cites.append(Citation(n, h.paper_id, h.title, h.text, (sent,), (j,)))
        st["hits"] = [f[1] for f in found] + [h for h in hits if h not in [f[1] for f in found]]
        res.update(text="\n".join(lines), citations=cites)


def _source_block(n: int, h: Hit, best: list[int]) -> str:
    """One numbered source, delimited and marked untrusted; the abstract's best sentences in order."""
    sents = split_sentences(h.text)
    keep = sorted(set(best[:SOURCE_SENTENCES])) if best else list(range(min(len(sents), SOURCE_SENTENCES)))
    text = " ".join(sents[i].text for i in keep if i < len(sents))
    text = text.replace("<source", "&lt;source").replace("</source", "&lt;/source")
    title = h.title.replace('"', "'").replace("<", "(").replace(">", ")")  # a label cannot close the delimiter
    return f'<source id="{n}" title="{title}">\n{text}\n</source>'


def short_name(label: str) -> str:
    """'Prune&Comp: Free Lunch for ...' -> 'Prune&Comp'; labels without a short head stay whole."""
    head = label.split(":")[0].strip()
    return head if head and len(head.split()) <= 4 else label


def _unique(hits: list[Hit]) -> list[Hit]:
    seen, out = set(), []
    for h in hits:
        if h.paper_id not in seen:
            seen.add(h.paper_id)
            out.append(h)
    return out


def _remap(v, rows: list[Hit]) -> str:
    """Verified overview markers are renumbered 1..n by first use; map them back to table rows."""
    row_of = {h.paper_id: n for n, h in enumerate(rows, start=1)}
    mapping = {c.marker: row_of[c.paper_id] for c in v.citations}
    return re.sub(r"\[(\d+)\]", lambda m: f"[{mapping.get(int(m.group(1)), int(m.group(1)))}]", v.text)
