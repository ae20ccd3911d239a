"""The alternatives a list's criterion or a described topic offers: "event cameras / neuromorphic sensors" (either
topic will do: `topic_alternatives`), and whether a word of it is one of several alternatives or examples
("Bengali or Bangla": `one_of_alternatives`), so that no single one of them is required.
"""

from __future__ import annotations

import itertools
import re

# an alternative that is a whole topic of its own: two to four words, no preposition or verb linking it to more
# ("event cameras", "neuromorphic sensors"; not "translation" of "sign language recognition or translation")
_PARALLEL = re.compile(r"(?!.*\b(?:for|in|of|on|with|from|to|by|into|about|using|do|does|use|that|which)\b)"
                       r"[\w\-]+(?:\s+[\w\-]+){1,3}", re.I)


# what the last of several alternatives may carry for all of them: "lip reading / visual speech recognition | from
# video"
_SHARED_TAIL = re.compile(r"\s+((?:for|in|from|on|with|of|using|via|by)\s+.+)$", re.I)


def topic_alternatives(criterion: str) -> list[str]:
    """The topics a criterion offers as alternatives ("X or Y", "X / Y"), each a whole topic of two to four words
    (`_PARALLEL`); a phrase after the last one that qualifies them all ("... from video") goes with each. Otherwise
    the criterion is one topic: "recognition or translation", coordinated verbs ("LLMs writing or checking proofs"),
    "X for hospital or imaging data", "3D occupancy prediction or reconstruction for driving" (one word: elided).

    >>> topic_alternatives("event cameras / neuromorphic sensors")
    ['event cameras', 'neuromorphic sensors']
    >>> topic_alternatives("lip reading / visual speech recognition from video")
    ['lip reading from video', 'visual speech recognition from video']
    >>> topic_alternatives("flood detection or flood mapping from remote sensing imagery")
    ['flood detection from remote sensing imagery', 'flood mapping from remote sensing imagery']
    >>> [len(topic_alternatives(c)) for c in ("3D occupancy prediction or reconstruction for autonomous driving",
    ...     "LLMs writing or checking mathematical proofs", "federated learning for hospital or imaging data",
    ...     "sign language recognition or translation", "lip reading from video")]
    [1, 1, 1, 1, 1]
    """
    alternatives = [a.strip() for a in re.split(r"\s+or\s+|/", criterion) if a.strip()]
    if len(alternatives) < 2:
        return [criterion]
    verbs = any(re.search(r"(?:ing|ed)$", a) and re.match(r"\S+(?:ing|ed)\b", b)  # "LLMs writing or checking
                for a, b in itertools.pairwise(alternatives))  # proofs": coordinated verbs, one scope
    if verbs:
        return [criterion]
    if all(_PARALLEL.fullmatch(a) for a in alternatives):
        return alternatives
    tail = _SHARED_TAIL.search(alternatives[-1])
    heads = [*alternatives[:-1], alternatives[-1][:tail.start()]] if tail else []
    if tail and all(_PARALLEL.fullmatch(h) for h in heads):
        return [f"{h} {tail.group(1)}" for h in heads]
    return [criterion]


def one_of_alternatives(term: str, criterion: str) -> bool:
    """The term is one of alternatives ("X or Y", "X / Y") or of examples: after a dash or colon that elaborates
    ("flow-based models - flow matching, Rectified flow and the like"), in a criterion that gives examples ("and
    the like", "etc."), or in a list of three or more ("A, B and C").

    >>> [one_of_alternatives(t, c) for t, c in (
    ...     ("Rectified", "flow models - flow matching, Rectified flow and the like"),
    ...     ("Kalman", "Kalman or Bayes filters"), ("Moltbook", "the Moltbook platform"),
    ...     ("Bengali", "LLMs for Hindi, Bengali and Tamil"), ("Bangla", "models for Bengali (Bangla)"),
    ...     ("Rectified", "flows—Rectified flow"))]
    [True, True, False, True, True, True]
    """
    t = re.escape(term)
    listed = criterion.count(",") >= 2 or re.search(r",[^,]*\b(?:and|or)\b", criterion)  # "A, B and C"
    return bool(re.search(rf"\bor\s+{t}\b|\b{t}\s+or\b|/\s*{t}\b|\b{t}\s*/|\(\s*{t}\b|\b{t}\s*\(|"  # "X (Y)"
                          rf"(?:\s*[–—]\s*|\s-\s|:\s).*\b{t}\b", criterion, re.I)
                or re.search(r"\b(?:and the like|and so on|and others|etc)\b", criterion, re.I)
                or (listed and re.search(rf",[^,]*\b{t}\b|\b{t}\b[^,]*,", criterion)))
