"""Short display labels for abstracts that come without a title.

Scope: pure functions over the abstract text. A record with a title is labelled by its title
(`label_derived=False`); `derive_label` is for the others. It prefers the name of the method the
abstract introduces ("we propose FedMerge ...", "... named SUSing", "called SPP-net", "X (ACRONYM)"),
followed by a short topic phrase (the name's expansion, its appositive "X, a ...", or the contribution);
else a topic phrase of at most ~8 words: the problem studied, the contribution, or the subject of the
first sentence (see `names` and `phrases`). Labels are at most `MAX_LABEL` characters and never empty.
`unique_labels` makes derived labels unique across a stream of records.

>>> derive_label("One global model might not serve many clients. In this paper, we propose a novel "
...              "``FedMerge'' approach that can create a personalized model per client by merging models.")
'FedMerge: Approach that can create a personalized model'
>>> derive_label("Singing voice synthesis is a generative task. In this paper, we proposed SU-net for "
...              "singing voice synthesis named SUSing. Synthesizing singing voice is treated as translation.")
'SUSing: SU-net for singing voice synthesis'
>>> derive_label("Zero learning became the state of the art for board games. Using these features, we "
...              "release Polygames, our framework for Zero learning, with its library of games.")
'Polygames: Framework for Zero learning'
>>> derive_label("Classical pooling is hard to localise objects. We revisit the global weighted average "
...              "pooling (GWAP) method for this task and propose the class-agnostic GWAP module.")
'GWAP: Global weighted average pooling'
>>> derive_label("Singing voice synthesis is a generative task that involves control of the singing model.")
'Singing voice synthesis'
>>> derive_label("We study the problem of recovering an underlying 3D shape from a set of images.")
'Recovering an underlying 3D shape'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TypeVar

from ..types import Record
from .names import find_method_name
from .phrases import MAX_LABEL, MAX_TOPIC_WORDS, WORD, cap, fallback_phrase, topic_phrases, trim_words

T = TypeVar("T")


def _fit(label: str) -> str:
    label = " ".join(label.split())
    if len(label) <= MAX_LABEL:
        return label
    words = label[: MAX_LABEL + 1].split()[:-1]
    cut = " ".join(trim_words(words, len(words)))[:MAX_LABEL].rstrip(" :,-")
    return cut or label[: MAX_LABEL - 1].rstrip() + "…"  # one very long "word" (e.g. unspaced CJK text)


def label_candidates(text: str) -> list[str]:
    """Labels for an abstract, best first (never empty)."""
    method = find_method_name(text)
    topics = topic_phrases(text)
    out: list[str] = []
    if method.name:
        name = method.name
        if method.topic:
            out.append(f"{name}: {cap(method.topic)}")
        out.extend(f"{name}: {t}" for t in topics if name.lower() not in t.lower())
        if method.kind:
            out.append(f"{name} {method.kind}")
        out.append(name)
    out.extend(topics)
    out.append(fallback_phrase(text))
    out.append(" ".join(WORD.findall(text)[:MAX_TOPIC_WORDS]))
    result: list[str] = []
    for label in out:
        label = _fit(label)
        if label and label not in result:
            result.append(label)
    return result or ["(empty abstract)"]


def derive_label(text: str) -> str:
    """The best short display label for an untitled abstract (see the module docstring)."""
    return label_candidates(text)[0]


def unique_labels(items: Iterable[T]) -> Iterator[T]:
    """Pass items through, giving each derived-label Record a label no earlier record of the stream has.

    A clash is solved with the abstract's next candidate label, else a " (2)", " (3)" suffix. Titles are
    never changed (they are the source's own), but they count as taken labels. Other items pass unchanged.
    """
    taken: set[str] = set()
    for item in items:
        if isinstance(item, Record) and item.label:
            label = item.label
            if item.label_derived and label.casefold() in taken:
                free = [c for c in label_candidates(item.text) if c.casefold() not in taken]
                if free:
                    label = free[0]
                else:
                    n = 2
                    while True:
                        suffix = f" ({n})"
                        label = item.label[: MAX_LABEL - len(suffix)].rstrip() + suffix
                        if label.casefold() not in taken:
                            break
                        n += 1
                item = replace(item, label=label)  # type: ignore[assignment]
            taken.add(label.casefold())
        yield item
