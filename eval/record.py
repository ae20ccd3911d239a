"""One question -> its result record: the question's fields plus the answer JSON exactly as
`paperchat ask --json` prints it (retrieval-only: an answer without text whose `retrieved` hold the
ranking, abstract texts included), plus the ranking the retrieval metrics use. Used by eval.runner."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any


def _question_fields(q: Mapping) -> dict[str, Any]:
    """The question's fields for its result record (its reference `answer` becomes `reference_answer`)."""
    rec: dict[str, Any] = {k: v for k, v in q.items() if k != "answer"}
    if "answer" in q:
        rec["reference_answer"] = q["answer"]
    rec.setdefault("kind", "factoid")
    return rec


def answer_fields(answer) -> dict[str, Any]:
    """An Answer's JSON exactly as `paperchat ask --json` prints it, with its `kind` (answer | compare | list
    | abstain) renamed `answer_kind` so the question's `kind` keeps its place; `record_answer_json`
    undoes that."""
    js = answer.to_json()
    js["answer_kind"] = js.pop("kind", "")
    return js


def record_answer_json(rec: Mapping) -> dict[str, Any]:
    """The `paperchat ask --json` object held in a results.jsonl row (for audits and tests)."""
    from assistant.types import Answer

    keys = [f for f in Answer.__dataclass_fields__ if f != "kind"] + ["kind"]
    out = {k: rec.get(k) for k in keys if k in rec}
    out["kind"] = rec.get("answer_kind", "")
    return out


def evaluate_question(assistant, q: Mapping, *, retrieval_only: bool, k_eval: int) -> dict:
    """Run one question; return its result record (without metrics): the question's fields plus the answer
    JSON of `paperchat ask --json` (retrieval-only: an answer with no text whose `retrieved` hold the
    ranking, abstract text included), plus the ranking the retrieval metrics use."""
    from assistant.types import Answer

    history = [str(h) for h in (q.get("history") or [])]
    rec = _question_fields(q)
    t0 = time.perf_counter()
    conv = assistant.conversation_from_history(history) if history else None
    rec["history_s"] = round(time.perf_counter() - t0, 4) if history else 0.0
    if retrieval_only:
        query = conv.rewrite(q["question"]) if conv is not None else q["question"]
        t = time.perf_counter()
        hits = assistant.retriever.search(query, k=k_eval)
        dt = time.perf_counter() - t
        ans = Answer(question=q["question"], answer="", standalone_query=query, abstained=False, retrieved=tuple(hits),
                     kind="retrieval", timings={"retrieval_s": round(dt, 4)}, id=str(q["id"]))
        rec.update(answer_fields(ans))
        rec.update({"abstained": None, "retrieval_only": True})  # no answer: abstention is not measured
        rec["ranking"] = [h.paper_id for h in hits]
        return rec
    ans = assistant.ask(q["question"], conv, id=str(q["id"]))
    rec.update({**answer_fields(ans), "id": rec["id"]})  # the question's id, whatever the answer carries
    rec["retrieval_only"] = False
    query = ans.standalone_query or q["question"]
    t = time.perf_counter()
    hits = assistant.retriever.search(query, k=k_eval)
    rec["ranking"] = [h.paper_id for h in hits]
    rec["ranking_scores"] = [round(float(h.score), 6) for h in hits]
    rec["ranking_retrieval_s"] = round(time.perf_counter() - t, 4)
    return rec


def _warm_up(assistant, retrieval_only: bool) -> float | None:
    """Load the embedder and chat model before the clock starts, so loading weights (a one-off per process)
    does not land in the first question's latency. Returns the seconds it took (None if nothing to do)."""
    t = time.perf_counter()
    try:
        assistant.retriever.search("warm-up", k=1)
        if not retrieval_only and callable(getattr(assistant, "model", None)):
            assistant.model()
    except Exception:  # noqa: BLE001 -- a real problem shows again (with its hint) on the first question
        return None
    return round(time.perf_counter() - t, 2)


def _ask(assistant, q: Mapping, retrieval_only: bool, k_eval: int, first: bool) -> dict:
    """One question's record; a failing question becomes a record with `error` (the run goes on)."""
    from assistant.errors import AssistantError, StoreError

    try:
        return evaluate_question(assistant, q, retrieval_only=retrieval_only, k_eval=k_eval)
    except StoreError:
        raise  # an empty or broken store fails every question: stop with its hint
    except AssistantError as e:
        if first:
            raise  # a configuration problem (model, prompt) shows on the first question: stop with its hint
        return {**_question_fields(q), "error": f"{type(e).__name__}: {e.message}", "retrieval_only": retrieval_only}
    except Exception as e:  # noqa: BLE001 -- one bad question must not lose the run
        return {**_question_fields(q), "error": f"{type(e).__name__}: {e}", "retrieval_only": retrieval_only}
