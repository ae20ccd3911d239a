"""Judge-model metrics: correctness against the reference answer, faithfulness to the cited abstracts,
answer relevance. Optional: only when a judge is configured (`--judge openai` or `--judge hf:DIR`).

    judge = make_judge("openai", settings)          # the project's chat-model factory, not a new client
    info = judge_records(records, judge)            # adds rec["judge"] and rec["metrics"]["judge_*"]

Each metric's prompt is a file (prompts/judge_*.md, variables declared on its first line). The reply
must be ONE JSON object with an integer "score" from 1 to 5 (an optional "reason" string); a single
```json fence around it is tolerated, nothing else is. Scores map to 0-1 as (score - 1) / 4.

Failures are never silent: a reply that does not parse is a *parse failure*, a request that fails is
an *error*; both leave that question's metric unset (None, not 0 and not NaN), keep the raw reply and
the reason in rec["judge"], and are counted per metric in the returned summary, which the report and
the comparison print. A failing first request stops the run with its hint (a configuration problem).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from assistant.errors import AssistantError, ConfigError

from .runfiles import load_run

METRICS = ("judge_correctness", "judge_faithfulness", "judge_relevance")
MAX_NEW_TOKENS = 160
MAX_SOURCE_CHARS = 2500  # per cited abstract shown to the judge
_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?```$", re.S)


class JudgeParseError(ValueError):
    """The judge's reply is not one JSON object with an integer score 1-5."""


def parse_verdict(text: str) -> tuple[int, str]:
    """(score 1-5, reason) from a judge reply, strictly.

    >>> parse_verdict('{"score": 4, "reason": "misses a detail"}')
    (4, 'misses a detail')
    >>> parse_verdict('```json\\n{"score": 2}\\n```')
    (2, '')
    """
    s = (text or "").strip()
    m = _FENCE.match(s)
    if m:
        s = m.group(1).strip()
    if not s:
        raise JudgeParseError("empty reply")
    try:
        obj = json.loads(s)
    except json.JSONDecodeError as e:
        raise JudgeParseError(f"not JSON ({e.msg} at char {e.pos})") from None
    if not isinstance(obj, dict):
        raise JudgeParseError(f"JSON {type(obj).__name__}, not an object")
    score = obj.get("score")
    if isinstance(score, bool) or not isinstance(score, int):
        if isinstance(score, float) and score.is_integer():
            score = int(score)
        else:
            raise JudgeParseError(f"'score' is {score!r}, not an integer")
    if not 1 <= score <= 5:
        raise JudgeParseError(f"'score' {score} is outside 1-5")
    reason = obj.get("reason", "")
    return score, reason if isinstance(reason, str) else str(reason)


@dataclass(frozen=True)
class Verdict:
    metric: str
    score: float | None  # 0-1, None when there is none
    raw_score: int | None
    reason: str = ""
    status: str = "scored"  # scored | parse_failure | error
    detail: str = ""  # what failed
    raw: str = ""  # the reply, for audits

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, "raw_score": self.raw_score, "reason": self.reason, "status": self.status,
                "detail": self.detail, "raw": self.raw}


class Judge:
    """A chat model (ChatModel interface) asked one prompt per metric and question."""

    def __init__(self, model: Any, name: str) -> None:
        self.model, self.name = model, name

    def ask(self, metric: str, **values: str) -> Verdict:
        from assistant.answer.models import generate
        from assistant.answer.prompts import load_prompt

        body = load_prompt(metric).render(**values)
        messages = [{"role": "system", "content": "You are a strict evaluator. You reply with JSON only."},
                    {"role": "user", "content": body}]
        raw = generate(self.model, messages, max_new_tokens=MAX_NEW_TOKENS, temperature=0.0)
        try:
            score, reason = parse_verdict(raw)
        except JudgeParseError as e:
            return Verdict(metric, None, None, status="parse_failure", detail=str(e), raw=raw[:2000])
        return Verdict(metric, (score - 1) / 4, score, reason=reason[:500], raw=raw[:2000])


def make_judge(spec: str, settings) -> Judge:
    """'openai' (answer.openai_* settings / PAPERCHAT_OPENAI_* variables) or 'hf:DIR', through the
    project's chat-model factory."""
    from assistant.answer.models import get_chat_model

    spec = (spec or "").strip()
    if spec != "openai" and not spec.startswith("hf:"):
        raise ConfigError(f"Unknown judge '{spec}'.",
                          hint="Use --judge openai (an OpenAI-compatible server) or --judge hf:/path/to/model.")
    model = get_chat_model(settings.answer.model_copy(update={"model": spec}))
    label = f"openai:{settings.answer.openai_model}@{settings.answer.openai_base_url}" if spec == "openai" else spec
    return Judge(model, label)


def _sources(citations: Iterable[Mapping]) -> str:
    return "\n".join(f"[{c.get('marker')}] {c.get('title', '')}\n{(c.get('text') or '')[:MAX_SOURCE_CHARS]}"
                     for c in citations)


def tasks(rec: Mapping) -> dict[str, dict[str, str]]:
    """The metrics that apply to one result record, with their prompt values. Only answered questions
    are judged (no error, not retrieval-only, not abstained); correctness needs a reference answer,
    faithfulness at least one citation."""
    if rec.get("error") or rec.get("retrieval_only") or rec.get("abstained") or not (rec.get("answer") or "").strip():
        return {}
    q, a = str(rec.get("question", "")), str(rec.get("answer", ""))
    out: dict[str, dict[str, str]] = {"judge_relevance": {"question": q, "answer": a}}
    ref = rec.get("reference_answer")
    if isinstance(ref, str) and ref.strip():
        out["judge_correctness"] = {"question": q, "reference": ref, "answer": a}
    if rec.get("citations"):
        out["judge_faithfulness"] = {"sources": _sources(rec["citations"]), "answer": a}
    return out


def judge_records(records: list[dict], judge: Judge, progress: Callable[[], None] | None = None) -> dict[str, Any]:
    """Judge every applicable record in place; return {"judge", "scale", "counts": {metric: {...}}}."""
    counts = {m: {"scored": 0, "parse_failures": 0, "errors": 0, "not_applicable": 0} for m in METRICS}
    first = True
    for rec in records:
        todo = tasks(rec)
        verdicts: dict[str, Any] = {}
        metrics = rec.setdefault("metrics", {})
        for m in METRICS:
            if m not in todo:
                counts[m]["not_applicable"] += 1
                metrics[m] = None
                continue
            try:
                v = judge.ask(m, **todo[m])
            except AssistantError as e:
                if first:
                    raise
                v = Verdict(m, None, None, status="error", detail=f"{type(e).__name__}: {e.message}")
            first = False
            key = "scored" if v.status == "scored" else "parse_failures" if v.status == "parse_failure" else "errors"
            counts[m][key] += 1
            verdicts[m] = v.to_json()
            metrics[m] = v.score
        if verdicts:
            rec["judge"] = verdicts
        if progress:
            progress()
    return {"judge": judge.name, "scale": "score 1-5 from the judge, mapped to 0-1 as (score - 1) / 4",
            "counts": counts}


def note(info: Mapping | None) -> str:
    """One line for the run's notes: what the judge measured, and every failure counted."""
    if not info:
        return ("Not measured: judge metrics (judge_correctness, judge_faithfulness, judge_relevance) -- no judge "
                "was configured (`--judge openai` or `--judge hf:DIR`).")
    parts = []
    for m, c in info["counts"].items():
        fails = c["parse_failures"] + c["errors"]
        parts.append(f"{m}: {c['scored']} scored" + (f", {c['parse_failures']} unparseable replies and {c['errors']} "
                                                     "failed requests left out (not counted as 0)" if fails else ""))
    return f"Judge `{info['judge']}` ({info['scale']}): " + "; ".join(parts) + "."


def judge_run(run_dir, judge: Judge, progress: Callable[[], None] | None = None) -> dict[str, Any]:
    """Judge a finished run directory in place: results.jsonl gets the verdicts, summary.json the judge
    metrics (overall and by kind) and counts, report.md is rewritten. Returns the new summary."""
    from pathlib import Path

    from . import metrics as M
    from .report import write_report

    d = Path(run_dir)
    summary, records = load_run(d)
    if (summary.get("config") or {}).get("retrieval_only"):
        raise ConfigError(f"{d} is a retrieval-only run: there are no answers to judge.",
                          hint="Judge a run made without --retrieval-only.")
    info = judge_records(records, judge, progress)
    rows = [{"id": r.get("id"), "kind": r.get("kind", "factoid"), **(r.get("metrics") or {})} for r in records]
    summary["overall"], summary["by_kind"] = M.aggregate(rows), M.by_kind(rows)
    summary["judge"] = info
    kept = [n for n in summary.get("notes", [])
            if not n.startswith(("Not measured: judge", "Not measured: answer correctness", "Judge `"))]
    summary["notes"] = [note(info), *kept]
    with open(d / "results.jsonl", "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")
    (d / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    write_report(d, summary, rows, plots=any(p.suffix == ".png" for p in d.iterdir()))
    return summary
