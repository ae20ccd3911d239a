"""Names in a question, linked to the papers of the corpus.

The index knows every paper's label, title and abstract; from them the `Lexicon` learns, per paper,
the names it is *about* (its label's short head, acronyms it defines, "termed X" / "called X", and
named terms it repeats) and every named term it merely *mentions* (read in `lexbuild.py`). Question
understanding then rests on the corpus, not on phrasing patterns alone:

- `link(question)` finds the paper names in a question, longest match first, in the order written,
  so "How do GC ViT and xT differ?" has two sides and "the second one" later means xT;
- `status(term)` says whether a named term is the subject of some paper, only mentioned in passing,
  or absent: a question about a method the corpus names once ("How does R-CNN generate region
  proposals?") is a near-miss, not a question about the paper that mentions it.

Names are matched on a normalised key (lower case, letters and digits only, accents and LaTeX accent
commands folded), so "GC-ViT", "GC ViT" and "gc vit" are one name, and "T\\'yr-the-Pruner" or "Týr" in an
abstract is "Tyr" in a question. A variant of a paper's own name that its abstract mentions
("MIGA-Conv" in the MIGA abstract, "ResNet-50" in a ResNet abstract) names that paper too. A name that is the
subject of more than `COMMON` papers (ImageNet, LLMs, Transformer) is a common term, not a paper name.

>>> lx = Lexicon.build([("p1", "FedMerge: one model per client",
...                      "We propose FedMerge, which merges models. FedMerge is simple.", False),
...                     ("p2", "Polygames: zero learning",
...                      "Polygames won at TAAI. Unlike R-CNN, it plays games.", False)])
>>> [(l.name, l.paper_ids) for l in lx.link("How does FedMerge compare with Polygames?")]
[('FedMerge', ('p1',)), ('Polygames', ('p2',))]
>>> lx.status("R-CNN"), lx.status("TAAI"), lx.status("YOLOX")
('passing', 'passing', 'missing')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from .lexbuild import COMMON, GENERIC, NameTables, read_names
from .nameforms import NAMED, described, modifies_longer_name, norm, unknown_name
from .support import stem
from .words import FUNCTION_WORDS, is_english, is_word

MAX_NGRAM = 6
SHARED_BY = 3  # a term this many abstracts use, none coining it, is shared: no compared paper, no named-subject relief
_INDEFINITE = re.compile(r"\b(?:a|an|any|another|some|every|each)\s+$", re.I)  # right before a term: a common noun
# ... unless the term modifies the noun after it ("an IM shot", "a STEMI trial"): a word that is no function word
_MODIFIES = re.compile(rf"[\s\-]+(?!(?:{'|'.join(map(re.escape, sorted(FUNCTION_WORDS)))})\b)[a-z][a-z\-]+")


_QUOTED = re.compile(r"(?<!\w)['‘\"“](?P<q>[^'‘’\"“”]{4,120}?)['’\"”](?!\w)")  # 'a title', “a title”


@dataclass(frozen=True)
class Link:
    name: str  # as written in the question
    start: int  # character offset in the question
    paper_ids: tuple[str, ...]  # papers this name is the subject of
    strong: bool = True  # a label head or a defined name (not only a repeated term)
    title: bool = False  # the paper's title, quoted or written whole: its words are the asker's, no detail asked


@dataclass
class Lexicon(NameTables):
    @cached_property
    def stems(self) -> frozenset[str]:
        """The corpus's lower-case words, stemmed ("recordings" and "recorded" share "record")."""
        return frozenset(stem(w) for w in self.words)

    @classmethod
    def build(cls, papers: Iterable[tuple[str, str, str, bool]]) -> Lexicon:
        """From (paper_id, label or title, abstract, label_derived) tuples (`lexbuild.read_names`)."""
        return read_names(papers, cls)

    def restore_case(self, question: str) -> str:
        """A lower-case question written as the corpus writes its names ("what fid does diffmoe reach on
        imagenet?" -> "what FID does DiffMoE reach on ImageNet?"), so it is understood like its capitalised
        form. English words and words the corpus writes in lower case stay as they are.

        Only a question whose writer used no capitals but at the start of a sentence is restored: where names are
        written with capitals, a lower-case word is a word ("Do our brains react ...?" is not about "ReAct").

        >>> lx = Lexicon.build([("p1", "GC ViT: global context",
        ...                      "GC ViT reaches 84% on ImageNet-1K. GC ViT is fast.", False)])
        >>> lx.restore_case("how fast is gc vit on imagenet-1k? Is it fast?")
        'how fast is GC ViT on ImageNet-1K? Is it fast?'
        >>> lx.restore_case("How fast is gc vit on ImageNet-1K?")
        'How fast is gc vit on ImageNet-1K?'
        >>> lx = Lexicon.build([("p1", "VQ-Mix", "A Vector-Quantized VAE. Model quantization saves memory.", False)])
        >>> lx.restore_case("how much memory does the quantized vq-mix need?")
        'how much memory does the quantized VQ-Mix need?'
        >>> lx = Lexicon.build([("p1", "Anomaly to Prompt", "We propose Anomaly to Prompt (APP) for forecasting. APP "
        ...                      "beats baselines. APP is fast.", False)])
        >>> lx.restore_case("that mobile app for plants - how many species?")  # an English word, whoever defines it
        'that mobile app for plants - how many species?'
        """
        if re.search(r"(?<![.?!:]\s)(?<!^)(?<![.?!:])\b[A-Za-z]*[A-Z]", question.strip()):
            return question  # capitals inside a sentence: the writer capitalises names
        toks = [(m.group(0), m.start(), m.end())
                for m in re.finditer(r"[A-Za-z0-9][\w\-&^+.]*[A-Za-z0-9^+]|[A-Za-z0-9]", question)]
        out, i, last = [], 0, 0
        while i < len(toks):
            for n in (3, 2, 1):
                span = toks[i: i + n]
                if len(span) < n or any(not t.islower() for t, _, _ in span):
                    continue
                surface = self.surface.get(norm(question[span[0][1]: span[-1][2]]), "")
                if not surface and n == 1:
                    surface = unknown_name(span[0][0])
                # "kite" is Kite's own name; "quantized" a word the corpus writes in other forms ("quantization"),
                # not the "Quantized" of "Vector-Quantized"
                # ... and "app" is a word, though one paper defines "APP": an acronym that is an English word is a
                # name only where written in capitals (`acronym_words`)
                word = n == 1 and (is_word(span[0][0]) or len(span[0][0]) < 2 or norm(span[0][0]) in self.acronym_words
                                   or ((is_english(span[0][0]) or stem(span[0][0]) in self.stems)
                                       and not self._own_name(span[0][0])))
                if not surface or word:
                    continue
                if n > 1 and (len(surface.split()) != n or all(is_english(t) for t, _, _ in span)):
                    continue  # "token pooling": English words describe a technique, whoever named a paper so
                out += [question[last: span[0][1]], surface]
                last, i = span[-1][2], i + n - 1
                break
            i += 1
        return "".join(out) + question[last:]

    def papers_about(self, name: str) -> tuple[str, ...]:
        """Papers `name` is a proper name of (none for a common term)."""
        k = norm(name)
        got = self.about.get(k, {})
        if not got or len(got) > COMMON or len(self.mentions.get(k, {})) > max(COMMON, 2 * len(got)):
            return ()  # no paper's name, or a shared term many abstracts mention (a dataset, a baseline)
        top = max(got.values())
        return tuple(p for p, s in sorted(got.items(), key=lambda kv: -kv[1]) if s == top)

    def status(self, term: str) -> str:
        """'subject' (some paper is about it), 'common', 'passing' (mentioned, no paper about it) or 'missing'."""
        k = norm(term)
        if k in GENERIC or k in self.words or all(w.lower() in FUNCTION_WORDS
                                                  for w in re.findall(r"[A-Za-z0-9]+", term) or [term]):
            return "common"  # (a frequent word may still be a name the corpus lacks: "Adam"; it never links to a paper)
        about = self.about.get(k, {})
        if about:
            return "common" if len(about) > COMMON else "subject"
        return "passing" if self.mentions.get(k) else "missing"

    def is_common(self, term: str) -> bool:
        """A common term ("Transformer", "ImageNet") or a capitalised word the corpus writes in lower case too
        ("Large Language Models"): not a name."""
        words = re.findall(r"[A-Za-z0-9]+", term)
        if words and all(w.lower() in self.words for w in words) and not NAMED.fullmatch(term):
            return True
        if described(term, self.words):
            return True  # "LLM-based", "GPS-labelled": a description
        parts = term.split("-")
        plain = len(parts) > 1 and all(re.fullmatch(r"[a-z]+", w) and (len(w) <= 3 or w in self.words)
                                       for w in parts[1:])
        if plain and re.fullmatch(r"[A-Z][a-z]+", parts[0]) and norm(term) not in self.about:
            return True  # "Earth-system models", "Mixture-of-experts": a capital and plain words, no name
        if plain and re.fullmatch(r"[A-Z]{2,4}", parts[0]) and self.status(parts[0]) == "common":
            return True  # "AI-agent platform": a term most abstracts use, then plain words (a title says "AI-Agent")
        return self.status(term) == "common"

    def is_own_name(self, name: str) -> bool:
        """Some paper has `name` as its own (a label head, a coined or defined name), however many others mention it:
        "the EAGLE-3 paper" is in the corpus only if one is."""
        return any(strength >= 2 for strength in self.about.get(norm(name), {}).values())

    def _own_name(self, name: str) -> bool:
        """`name` is a paper's own name (a label head, a defined or coined name), not only a repeated term."""
        papers = self.papers_about(name)
        return bool(papers) and self.about[norm(name)][papers[0]] >= 2

    def phrase_status(self, phrase: str) -> str:
        """`status` for a multi-word name, from where it is written: 'subject' when a paper is about it (its label
        head, or written twice in one label and abstract), 'passing' when written once, else 'missing'."""
        k = norm(phrase)
        if not k:
            return "missing"
        if k in self.about:
            return "subject" if len(self.about[k]) <= COMMON else "common"
        most = max((t.count(k) for t in self.texts), default=0)
        return "subject" if most >= 2 else "passing" if most else "missing"

    def mentioned_in(self, term: str) -> set[str]:
        return set(self.mentions.get(norm(term), {}))

    def is_shared(self, term: str) -> bool:
        """A term SHARED_BY or more abstracts use and none coins ("AUROC", "MACE", "RCTs"): it picks out no paper."""
        return not self.owners.get(norm(term)) and len(self.mentioned_in(term)) >= SHARED_BY

    def by_retrieval(self, name: str, pid: str, ranked: list[str]) -> str:
        """The paper a term means that no paper coins or heads its label with ("gestational diabetes mellitus
        (GDM)", defined or repeated by several abstracts), or that several coin: of those papers, the one retrieval
        ranks first for the whole question (`ranked`). One paper's own name keeps its paper; `pid` when none is
        ranked."""
        owners = self.owners.get(norm(name), set())
        if len(owners) >= 2:  # a name several papers coin ("SAP" for a segmenter and for a reasoning method)
            return next((r for r in ranked if r in owners), pid)
        users = self.mentioned_in(name) | set(self.about.get(norm(name), {}))
        if owners or len(users) < 2:
            return pid
        return next((r for r in ranked if r in users), pid)

    def coiners(self, name: str) -> tuple[str, ...]:
        """The papers that coin `name` or head their label with it, when several do (else ())."""
        owners = self.owners.get(norm(name), set())
        return tuple(sorted(owners)) if len(owners) >= 2 else ()

    def holding(self, links: list[Link], terms: list[str]) -> str:
        """Of the papers `links` could mean, the only one whose abstract mentions every name of the question
        (`terms`): "VEGF ... in pT3 renal cell carcinoma" is the paper on both, not another that defines VEGF;
        "HIV/STD control in Jamaica" the STD paper set in Jamaica. "" when none or several do."""
        cands = list(dict.fromkeys(pid for link in links for pid in link.paper_ids))
        names = list(dict.fromkeys([link.name for link in links] + terms))
        full = [p for p in cands if all(p in self.mentioned_in(t) or p in self.papers_about(t) for t in names)]
        return full[0] if len(cands) > 1 and len(full) == 1 else ""

    def titled(self, question: str) -> list[Link]:
        """Papers a question names by their title: a quoted part of one title, its opening or three words or more
        ("the 'no hard negatives' paper", "'SAEs Are Good for Steering'", "'good enough embedding'"), or a whole
        title or title head of three words or more as written ("Looking beyond the next token"; shorter, not only
        words the corpus uses). A quote that two titles hold names neither.

        >>> lx = Lexicon.build([("p1", "No Hard Negatives Required: Concept Centric Learning", "We train.", False),
        ...                     ("p2", "Looking beyond the next token", "We look.", False)])
        >>> [(k.name, k.paper_ids) for k in lx.titled("Do the 'no hard negatives' paper and Looking beyond the "
        ...                                            "next token agree?")]
        [("'no hard negatives'", ('p1',)), ('Looking beyond the next token', ('p2',))]
        """
        out = []
        for m in _QUOTED.finditer(question):
            k = norm(m.group("q"))
            words = len(m.group("q").split())  # (two words inside a title are a term: "'sparse autoencoders'")
            held = {pid for t, pid in self.titles.items() if pid and (t.startswith(k) or (k in t and words >= 3))}
            if words >= 2 and len(k) >= 8 and len(held) == 1:
                out.append(Link(m.group(0), m.start(), (held.pop(),), title=True))  # (quotes and all: one list item)
        words = [(w.start(), w.end()) for w in re.finditer(r"\S+", question)]
        for i in range(len(words)):
            for j in range(len(words), i + 2, -1):  # longest first
                span = question[words[i][0]: words[j - 1][1]].strip("\"'‘’“”?,.;:!()")
                pid = self.titles.get(norm(span), "")
                if pid and j - i < 5 and all(w.lower() in self.words for w in re.findall(r"[A-Za-z]+", span)):
                    pid = ""  # "Large Language Models": words, whichever paper is titled so, unless quoted
                if pid and not any(k.start <= words[i][0] < k.start + len(k.name) for k in out):
                    out.append(Link(span, question.index(span, words[i][0]), (pid,), title=True))
                    break
        return sorted(out, key=lambda link: link.start)

    def link(self, question: str) -> list[Link]:
        """Paper names in `question`, longest first, non-overlapping, in the order written; a title quoted or
        written whole names its paper first (`titled`)."""
        toks = [(m.group(0), m.start(), m.end())
                for m in re.finditer(r"[A-Za-z0-9][\w\-&^+.]*[A-Za-z0-9^+]|[A-Za-z0-9]", question)]
        found: list[Link] = self.titled(question)
        taken: set[int] = {i for i, (_, a, _) in enumerate(toks)
                           for k in found if k.start <= a < k.start + len(k.name)}
        for n in range(min(MAX_NGRAM, len(toks)), 0, -1):
            for i in range(len(toks) - n + 1):
                if any(j in taken for j in range(i, i + n)):
                    continue
                span = question[toks[i][1]: toks[i + n - 1][2]]
                surface = re.sub(r"'s$|’s$", "", span)
                k = norm(surface)
                if len(k) < 2 or k in GENERIC or (surface.islower() and (n > 1 or k in self.words)):
                    continue  # names are written with capitals; a lower-case word of the corpus is a word
                english = re.findall(r"[A-Za-z0-9]+", surface)
                if all(is_word(w, acronym_ok=True) for w in english):
                    continue  # "it", "The", "ALL": never a name, whatever its case
                if modifies_longer_name(question, toks[i + n - 1][2], self.words):
                    continue  # "the NIH Stroke Scale": part of a longer proper name, not the name of a paper
                papers = self.papers_about(surface) if k not in self.acronym_words or surface.isupper() else ()
                if papers:
                    strong = self.about[norm(surface)][papers[0]] >= 2
                    if strong and not self.owners.get(k) and len(self.mentions.get(k, {})) >= 2:
                        strong = False  # a term several abstracts use and none coins ("STEMI", "RCTs"): weak
                    if not strong and all(is_word(w) for w in english):
                        continue  # "SORT" is a name only where an abstract defines it
                    if (not strong and _INDEFINITE.search(question[:toks[i][1]])
                            and not _MODIFIES.match(question, toks[i + n - 1][2])):
                        continue  # "Is there an RCT of ...?": a term no abstract coins, used as a common noun
                    found.append(Link(surface, toks[i][1], papers, strong))
                    taken.update(range(i, i + n))
        return sorted(found, key=lambda link: link.start)
