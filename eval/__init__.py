"""Evaluation harness: question sets, metrics (pure functions), runner, report, comparison, dataset adapters.

    paperchat eval run --questions eval/questions.jsonl --out eval/runs/latest
    paperchat eval run --dataset scifact --limit 100 --out eval/runs/scifact
    paperchat eval run --questions eval/questions.jsonl --judge openai --out eval/runs/judged
    paperchat eval compare eval/runs/a eval/runs/b [eval/runs/c ...] [--baseline a] --out eval/runs/a-vs-b
    paperchat eval judge eval/runs/a --judge openai
    paperchat eval export-feedback --out candidates.jsonl

Modules: `metrics` (pure functions: gold units, citations, support, abstention, aggregation), `ir`
(retrieval metrics by trec_eval through pytrec_eval), `stats` (paired bootstrap CI, sign-flip p-value,
questions needed; numpy), `compare` + `compare_report` (run vs run), `judge` (judge-model metrics,
failures counted), `questionset` (the question schema), `runner`, `runfiles` (reading a run back),
`report`, `datasets`. `runner` imports the assistant only when it runs, and
`report`/`compare_report` import matplotlib (Agg backend) only when they draw.
"""

KINDS = ("factoid", "multi", "compare", "followup", "paraphrase", "absent", "nearmiss", "feedback", "dataset")
