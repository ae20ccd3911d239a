"""A stable split of the input by paper id, so N ingest workers over the same files partition them.

    shard = Shard.parse("2/3")      # the second of three workers (1-based)
    shard.owns("arxiv:2401.00001")  # True for about one id in three; the same answer in every process

The split hashes the paper id (BLAKE2b, not Python's per-process `hash`), so it does not depend on the
order of the input or on which files a worker reads: every copy of an id lands in the same shard, and the
union of the N shards is the input, each record in exactly one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from ..errors import ConfigError


@dataclass(frozen=True)
class Shard:
    index: int  # 1..count
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """'i/N' with 1 <= i <= N."""
        m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
        if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
            raise ConfigError(f"Bad --shard '{text}'.",
                              hint="Use --shard I/N with 1 <= I <= N, e.g. --shard 1/3, 2/3 and 3/3 for three workers.")
        return cls(int(m.group(1)), int(m.group(2)))

    def owns(self, paper_id: str) -> bool:
        h = int.from_bytes(hashlib.blake2b(paper_id.encode("utf-8"), digest_size=8).digest(), "big")
        return h % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
