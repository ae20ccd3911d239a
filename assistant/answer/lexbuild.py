"""What the corpus names: per paper, the names it is *about* (its label's short head, acronyms it defines,
"termed X" / "called X", named terms it repeats) and every named term it merely *mentions*, read once from the
labels and abstracts (`read_names`) into the tables the `linker.Lexicon` links questions with.

    tables = read_names([("p1", "FedMerge: one model per client", "We propose FedMerge ...", False)], NameTables)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from .nameforms import (
    NAMED,
    coined_names,
    definitions,
    described,
    fold,
    inner_capitals,
    label_head,
    norm,
    sentence_before,
)
from .words import OWN_WORK, is_english, is_word

COMMON = 3  # a name that is the subject of more papers than this is a common term
GENERIC = frozenset(
    "llm llms ai ml gnn gnns cnn cnns rl nlp fl moe vit vits gpu gpus sota api apis mlp mlps rnn rnns lstm "
    "gan gans vae qa nn dnn dnns cv iot".split()
)
_OURS = re.compile(rf"{OWN_WORK}\b|\b(?:we|this (?:paper|work|study))\s+(?:call|name|term|dub|coin)\w*\b", re.I)
_CITES = re.compile(r"\b(?:like|such as|e\.g\.|including|compared (?:with|to)|than|unlike|traditional|existing|prior|"
                    r"previous|conventional|classic(?:al)?|popular|standard|widely used|well-known|similar|resembl\w*|"
                    r"inspired by|based on|follow\w*|extends?|built (?:on|upon))", re.I)
# a definition that gives the name to other work, in the clause that defines it: "A recent paper proposed Dynamic
# Tanh (DyT)", "X (Y) was introduced by", "previously proposed" (not "The authors proposed", "The present study
# introduced", "first proposed in this paper": this paper's own)
_ATTRIBUTED = re.compile(r"\b(?:an?|one|recent|previous|prior|earlier|other)\s+(?:\w+\s+)?(?:paper|work|study|"
                         r"studies|works)\s+(?:\w+\s+)?(?:proposed|introduced|presented)\b|"
                         r"\b(?:recently|previously|originally|first)\s+(?:been\s+)?(?:proposed|introduced)\b|"
                         r"\b(?:was|were|has been|have been)\s+(?:recently\s+)?(?:proposed|introduced)\s+(?:by|in)\b",
                         re.I)
_OWN_PLACE = re.compile(r"\b(?:in|by)\s+(?:this|our|the present|the current)\b|\b(?:the )?authors\b", re.I)
_PRESENTED = re.compile(r"\b(?:novel|new|proposed|propose[sd]?|introduce[sd]?|presents?|presented|develop(?:s|ed)?|"
                        r"design(?:s|ed)?|called|named|dubbed|termed)\b", re.I)  # a definition presenting its own
_CONTRAST = re.compile(r"\b(?:against|than|versus|vs|compared|unlike|over|beyond|outperform\w*|beats?)\b", re.I)
_ITS = re.compile(r"\b(?:our|its|the proposed|this (?:method|model|framework|approach|paper|work))\b", re.I)


@dataclass
class NameTables:
    about: dict[str, dict[str, int]] = field(default_factory=dict)  # key -> {paper_id: strength}
    mentions: dict[str, dict[str, int]] = field(default_factory=dict)  # key -> {paper_id: count}
    display: dict[str, str] = field(default_factory=dict)  # paper_id -> its best short name
    words: set[str] = field(default_factory=set)  # words the corpus writes in lower case
    texts: list[str] = field(default_factory=list, repr=False)  # each paper's label and abstract, normalised
    surface: dict[str, str] = field(default_factory=dict)  # key -> the corpus's spelling ("diffmoe" -> "DiffMoE")
    acronym_words: set[str] = field(default_factory=set)  # names that are also common words: link only in capitals
    owners: dict[str, set[str]] = field(default_factory=dict)  # key -> papers that coin it or head their label with it
    titles: dict[str, str] = field(default_factory=dict, repr=False)  # key of a real title (or its head) -> paper


T = TypeVar("T", bound=NameTables)


def read_names(papers: Iterable[tuple[str, str, str, bool]], make: Callable[..., T]) -> T:
    """From (paper_id, label or title, abstract, label_derived) tuples. A derived label (a phrase cut
    from the abstract) names its paper only through a named head ("FedMerge: ..."); a capitalised
    plain word ("Global: ...") that abstracts use in lower case is a word, not a name."""
    papers = [(pid, fold(label), fold(text), derived) for pid, label, text, derived in papers]
    lower_df: dict[str, int] = {}
    for _, _, text, _ in papers:
        for w in set(re.findall(r"\b[a-z][a-z\-]{2,}\b", text)):
            lower_df[w] = lower_df.get(w, 0) + 1
    lx = make(words={w.replace("-", "") for w in lower_df},
             texts=[norm(f"{label} {text}") for _, label, text, _ in papers])
    acronyms: dict[str, str] = {}  # paper -> a defined acronym, its name when nothing better names it
    spelled: dict[str, dict[str, int]] = {}  # key -> {surface: count}
    for pid, label, text, derived in papers:
        if not derived:  # a title a question may quote ("the 'SAEs Are Good for Steering' paper")
            for t in {label, label.split(":")[0]}:
                if len(t.split()) >= 2:
                    lx.titles[norm(t)] = pid if lx.titles.get(norm(t), pid) == pid else ""  # (two papers: neither)
        counts: dict[str, int] = {}
        for t in [m.group(0) for m in NAMED.finditer(f"{label}. {text}")] + [t for _, t in inner_capitals(text)]:
            k = norm(t)
            counts[k] = counts.get(k, 0) + 1
            spelled.setdefault(k, {}).setdefault(t, 0)
            spelled[k][t] += 1
        for k, c in counts.items():
            lx.mentions.setdefault(k, {})[pid] = c
        names = {}
        head = label_head(label)
        titled = all(w[:1].isupper() for w in head.split())
        if head and ((derived and " " in head and not (NAMED.search(head) or titled))
                     or lower_df.get(head.lower(), 0) >= COMMON):
            head = ""
        if head:
            names[head] = 3
        coined: list[str] = []  # names the abstract gives its own work ("we propose X", "termed X")
        for got in coined_names(text):
            names.setdefault(got, 2)
            if norm(got) not in GENERIC:
                coined.append(got)
        defined = definitions(text)
        for got, _ in defined:
            names.setdefault(got.rstrip("-.,"), 2)
        for m in NAMED.finditer(f"{label}. {text}"):
            t = m.group(0)
            if (counts.get(norm(t), 0) >= 2 or t in label) and not described(t, lower_df):
                names.setdefault(t, 1)
        # An acronym the abstract defines for another's work and mentions at most twice is not this paper's
        # name: when the paper has its own ("similar to Squeeze-Excitation Network (SENet)" in GC's), or when
        # the definition cites it ("Traditional models like ... (GARCH)"). Discussed at length: about it, its own only
        # when it has no other name or the definition presents it (below).
        mine = {norm(n) for n in [head, *coined] if n}
        for a, start in defined:
            said = sentence_before(text, start)
            ours = bool(_OURS.search(said))
            clause = re.split(r"[,;:]|\s(?:and|but|while|whereas)\s", said)[-1]  # the clause defining it
            if (not ours and norm(a) not in mine and a not in label and _ATTRIBUTED.search(clause)
                    and not _OWN_PLACE.search(clause)):
                names[a.rstrip("-.,")] = 1  # another's, discussed here: linked by repetition only
                continue
            if ours:
                lx.owners.setdefault(norm(a), set()).add(pid)  # "We then introduce the ... (ENF) framework"
            if ours or a in label or norm(a) in mine or any(norm(a) in k or k in norm(a) for k in mine if k):
                continue  # its own
            if counts.get(norm(a), 0) > 2:  # discussed at length: about it; not its own when the paper has its own
                # name and the clause defining it (without the words it abbreviates) neither presents it nor names the
                # paper's own ("even against Greedy Coordinate Gradient (GCG)": the paper tests GCG, it is no GCG
                # paper; "The core of Kite is a Hierarchical Routing Module (HRM)": Kite's own)
                lead = " ".join(clause.split()[:-len(re.sub(r"[^A-Z]", "", a)) or None])
                own_said = any(k in norm(lead) for k in mine if k) and not _CONTRAST.search(lead)
                if mine and not (_ITS.search(said) or _PRESENTED.search(lead) or own_said):
                    names[a.rstrip("-.,")] = 1
                continue
            if _CITES.search(said) or (mine and not _ITS.search(said)):  # "Its router, a Dual Gating Unit (DGU)"
                names.pop(a, None)
        if head and derived and coined and not any(norm(head) in norm(c) or norm(c) in norm(head) for c in coined):
            names[head] = 1  # "CLIP: ..." cut from "CLIP (...) has attracted attention", the paper proposing MM-LG
            head = ""
        for n in (head, *coined):
            if n:
                lx.owners.setdefault(norm(n), set()).add(pid)
        own = {norm(n) for n in names}
        for m in NAMED.finditer(text):  # "MIGA-Conv" in the MIGA abstract: a variant of its own name
            t = m.group(0)
            stem_name = re.split(r"[-&^]", t, maxsplit=1)[0]
            if t != stem_name and norm(stem_name) in own and len(norm(stem_name)) >= 3:
                names.setdefault(t, 1)
        for name, strength in names.items():
            k = norm(name)
            if " " not in name and lower_df.get(name.lower(), 0) >= COMMON:
                if not (strength >= 2 and name.isupper()):
                    continue  # "Global", "Transformers": words the corpus writes in lower case
                lx.acronym_words.add(k)  # "we propose GUIDE (...)": a name only where written in capitals
            elif name.isupper() and len(name) >= 3 and is_english(name.lower()):
                lx.acronym_words.add(k)  # "polyarteritis nodosa (PAN)" is no "Pan Masala"
            if all(is_word(w, acronym_ok=strength >= 2) for w in re.findall(r"[A-Za-z0-9]+", name)):
                continue  # "It", "ALL", "Sort": an English word is no paper's name, whatever its case
            spelled.setdefault(k, {}).setdefault(name, 0)
            spelled[k][name] += 1
            if len(k) >= 2 and k not in GENERIC:
                lx.about.setdefault(k, {})[pid] = max(strength, lx.about.get(k, {}).get(pid, 0))
        defined = [n for n, st in names.items()
                   if st == 2 and counts.get(norm(n), 0) >= 2 and norm(n) not in GENERIC]
        best = head or next(iter(coined), "")
        if best:
            lx.display[pid] = best
        elif defined:
            acronyms[pid] = defined[0]
    for pid, name in acronyms.items():  # "out-of-distribution (OOD)": a concept several papers use, not a paper
        if len(lx.mentions.get(norm(name), {})) <= 1:
            lx.display[pid] = name
    lx.surface = {k: max(forms, key=forms.get) for k, forms in spelled.items()
                  if k not in lx.words and not any(f.islower() for f in forms)}
    return lx

