"""Evaluation harness: question sets, metrics (pure functions), runner, report, comparison, dataset adapters.

    paperchat eval run --questions eval/questions.jsonl --out eval/runs/latest
    paperchat eval run --dataset scifact --limit 100 --out eval/runs/scifact
    paperchat eval compare eval/runs/a eval/runs/b --out eval/runs/a-vs-b
    paperchat eval export-feedback --out candidates.jsonl

`metrics` is pure Python (no I/O, no models); `runner` imports the assistant only when it runs, and
`report`/`compare` import matplotlib (Agg backend) only when they draw.
"""

KINDS = ("factoid", "multi", "compare", "followup", "paraphrase", "absent", "nearmiss", "feedback", "dataset")
