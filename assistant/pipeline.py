"""Files -> Records -> Index: the ingest pipeline the CLI, the UI upload and the benchmarks share.

Reads each file lazily with its reader, collects the per-record issues (file, line, key, message),
streams the good records into `Index.add` in batches, and returns one report with the counts a
person needs: added, updated, unchanged (already stored, identical), duplicates inside the input,
skipped (bad records), near-duplicates (a second version of a stored paper).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .errors import IngestError
from .index.indexer import Index
from .ingest.shard import Shard
from .settings import BUNDLED_CORPUS, IngestSettings
from .types import IngestIssue, Record


@dataclass
class IngestReport:
    files: list[str] = field(default_factory=list)
    read: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    duplicates: int = 0  # repeated inside the input itself
    skipped: int = 0
    truncated: int = 0  # abstracts cut at ingest.max_abstract_chars (kept, and listed in issues)
    near_duplicates: list[tuple[str, str]] = field(default_factory=list)
    issues: list[IngestIssue] = field(default_factory=list)
    chunks: int = 0
    multi_chunk_papers: int = 0
    other_shards: int = 0  # records left to the other workers (--shard)
    vectors_done: bool = True  # False: printed before the embedding (which is where near-duplicates are found)

    def summary(self) -> str:
        dups = (f"{len(self.near_duplicates)} near-duplicate versions marked" if self.vectors_done
                else "near-duplicate versions are checked while embedding")
        return (
            f"{self.added} added, {self.updated} updated, {self.unchanged + self.duplicates} duplicate "
            f"({self.unchanged} already stored, {self.duplicates} repeated in input), {self.skipped} skipped, "
            f"{self.truncated} truncated; {dups}; "
            f"{self.chunks} chunks ({self.multi_chunk_papers} abstracts needed more than one)."
            + (f" {self.other_shards} records left to the other shards." if self.other_shards else "")
        )


def _records(paths: Sequence[Path], report: IngestReport, limits: IngestSettings | None = None,
             shard: Shard | None = None) -> Iterator[Record]:
    from .ingest import read_source
    from .ingest.limits import TRUNCATED

    for path in paths:
        report.files.append(str(path))
        for item in read_source(path, limits=limits):
            if isinstance(item, IngestIssue):
                report.issues.append(item)
                if item.message.startswith(TRUNCATED):
                    report.truncated += 1
                elif item.message.lower().startswith("duplicate"):
                    report.duplicates += 1
                else:
                    report.skipped += 1
            elif shard is not None and not shard.owns(item.paper_id):
                report.other_shards += 1
            else:
                report.read += 1
                yield item


def validate(paths: Sequence[Path], limits: IngestSettings | None = None) -> IngestReport:
    """Read everything, store nothing: the issues a real ingest would report (`--strict` runs this first)."""
    report = IngestReport()
    for _ in _records(paths, report, limits):
        pass
    return report


def ingest_paths(
    index: Index, paths: Sequence[Path], progress: Callable[[int], None] | None = None, strict: bool = False,
    shard: Shard | None = None, embed: bool = True, embed_progress: Callable[[int], None] | None = None,
) -> IngestReport:
    """Read, store and index `paths`. Lexical first: every record is searchable by BM25 once `progress`
    has counted it; with `embed` its vectors follow before this returns (else `Index.embed_pending`).
    `shard` (i/N): only the records whose paper id falls in shard i, for N workers over the same input."""
    paths = list(paths) or [BUNDLED_CORPUS]
    for p in paths:
        if not p.exists():
            raise IngestError(f"No such file: {p}",
                              hint="Check the path; ingest accepts files (.jsonl, .csv, .bib, .txt, .jsonl.gz).")
    if strict:
        pre = validate(paths, index.settings.ingest)
        if pre.skipped:
            raise IngestError(
                f"{pre.skipped} record(s) would be skipped; nothing was ingested (--strict).\n"
                + "\n".join(str(i) for i in pre.issues[:20]),
                hint="Fix the records listed above, or run without --strict to ingest the good ones.",
            )
    report = IngestReport()
    result = index.add(_records(paths, report, index.settings.ingest, shard), progress=progress, embed=embed,
                       embed_progress=embed_progress)
    report.added, report.updated, report.unchanged = result.added, result.updated, result.unchanged
    report.near_duplicates = result.near_duplicates
    report.chunks, report.multi_chunk_papers = result.chunks.chunks, result.chunks.multi_chunk_papers
    return report
