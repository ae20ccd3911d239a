"""Build the bundled corpus `data/corpus.jsonl` from the seed files.

Usage: .venv/bin/python scripts/build_corpus.py [--seeds DIR] [--out data/corpus.jsonl]

Reads every *.txt file of the seeds folder (default: ../shared/seeds next to the project root) in
sorted filename order with the "seed" reader, makes derived labels unique across all files, marks
near-duplicate abstracts (`duplicate_of` = the earlier version's paper_id), and writes one
`Record.to_dict()` per line (sorted keys, UTF-8, not ASCII-escaped). The output is deterministic:
running it twice gives byte-identical files. Exit status 1 if any seed record was rejected.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.errors import IngestError  # noqa: E402
from assistant.ingest import read_source  # noqa: E402
from assistant.ingest.dedupe import drop_exact_duplicates, near_duplicates  # noqa: E402
from assistant.ingest.labels import unique_labels  # noqa: E402
from assistant.types import IngestIssue, Record  # noqa: E402

DEFAULT_SEEDS = ROOT.parent / "shared" / "seeds"
DEFAULT_OUT = ROOT / "data" / "corpus.jsonl"


def build(seeds: Path) -> tuple[list[Record], list[IngestIssue]]:
    """Parse the seed files and return (records with labels and duplicate_of set, issues)."""
    files = sorted(p for p in seeds.iterdir() if p.is_file() and p.suffix == ".txt")
    if not files:
        raise IngestError(f"{seeds}: no seed files (*.txt)", hint="Pass --seeds DIR with the seed .txt files.")
    items = [item for path in files for item in read_source(path, fmt="seed")]
    records: list[Record] = []
    issues: list[IngestIssue] = []
    for item in unique_labels(drop_exact_duplicates(items)):
        (records if isinstance(item, Record) else issues).append(item)  # type: ignore[arg-type]
    dups = near_duplicates(records)
    records = [replace(r, duplicate_of=dups.get(r.paper_id, "")) for r in records]
    return records, issues


def write(records: list[Record], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        for r in records:
            fh.write(json.dumps(r.to_dict(), sort_keys=True, ensure_ascii=False) + "\n")
    os.replace(tmp, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=Path, default=DEFAULT_SEEDS, help=f"seed folder (default {DEFAULT_SEEDS})")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output file (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    try:
        records, issues = build(args.seeds)
    except IngestError as e:
        print(f"error: {e.message}\nhint: {e.hint}", file=sys.stderr)
        return 2
    for issue in issues:
        print(f"issue: {issue}", file=sys.stderr)
    write(records, args.out)
    titled = sum(1 for r in records if r.title)
    dups = [(r.paper_id, r.duplicate_of) for r in records if r.duplicate_of]
    print(f"wrote {len(records)} records ({titled} with titles, {len(dups)} near-duplicates) to {args.out}")
    for later, earlier in dups:
        print(f"  {later} duplicates {earlier}")
    return 1 if issues else 0


if __name__ == "__main__":
    sys.exit(main())
