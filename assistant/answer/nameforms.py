"""How names are written: accents and LaTeX accents folded (`fold`), the key names are matched on (`norm`),
the named terms of a text (acronyms, CamelCase, hyphenated capitals, letter-digit tokens; `named_terms`), a
label's short head (`label_head`), descriptive compounds that are not names ("LLM-based"; `described`), and how
an abstract names things: the names it gives its own work (`coined_names`: "we propose X", "termed X") and the
names it defines (`definitions`: "Byte Pair Encoding (BPE)", "ZEUS (Zotarolimus-Eluting ...)").
Text only: what the corpus says about a name is `linker.Lexicon`'s job.
"""

from __future__ import annotations

import re
import unicodedata

from .words import FUNCTION_WORDS, OWN_WORK, is_word

NAMED = re.compile(
    r"(?<![\w^&-])(?:[A-Za-z][A-Za-z0-9-]*@\d+(?:\.\d+)?|[A-Z][A-Za-z0-9]*(?:[-&^][A-Za-z0-9]+)+|[A-Z]{2,}[A-Za-z0-9]*|[A-Z][a-z]+[A-Z][A-Za-z0-9]*"
    # "o3-mini": letters, digits, more parts (not a multiplier: "x3")
    r"|(?![xX]\d+(?![\w^&-]))[A-Za-z]+\d+[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)\+{0,2}(?![\w^&-])"
)

_LATEX_ACCENT = re.compile(r"""\{\\[\"'`^~=.]\s*([A-Za-z])\}|\\[\"'`^~=.]\s*\{?\s*([A-Za-z])\s*\}?"""
                           r"""|\\[uvHc]\{([A-Za-z])\}""")


# a TeX font command around a word ("we propose \texttt{D-STT}"): the word is what is written
_LATEX_FONT = re.compile(r"\\(?:texttt|textbf|textit|textsc|textsf|textrm|emph|mathrm|mathbf|mathtt|text)\s*"
                         r"\{([^{}]*)\}")


def fold(text: str) -> str:
    r"""Accents and LaTeX accent commands folded to plain letters; a TeX font command keeps only its text.

    >>> fold(r"T\'yr-the-Pruner, Týr, G{\"o}del and Schrödinger")
    'Tyr-the-Pruner, Tyr, Godel and Schrodinger'
    >>> fold(r"we propose \texttt{D-STT}, a defense; \textbf{Con Instruction} helps")
    'we propose D-STT, a defense; Con Instruction helps'
    """
    text = _LATEX_ACCENT.sub(lambda m: next(g for g in m.groups() if g), text)
    if "\\" in text:
        text = _LATEX_FONT.sub(r"\1", text)
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def norm(name: str) -> str:
    """'GC-ViT' and 'GC ViT' -> 'gcvit'; a '+' is kept ('DeepLabv3+' is another model than 'DeepLabv3')."""
    return re.sub(r"[^a-z0-9+]+", "", fold(name).lower())


_CAPITAL = re.compile(r"\b[A-Z][a-z]{2,}[a-z0-9]*\b")


def inner_capitals(text: str, initial: bool = False) -> list[tuple[int, str]]:
    """Capitalised words that are not capitalised for starting a sentence (unless `initial`)."""
    out = []
    for m in _CAPITAL.finditer(text):
        before = text[: m.start()].rstrip()
        if initial or (before and before[-1] not in ".!?:\"“("):
            out.append((m.start(), m.group(0)))
    return out


def named_terms(text: str, capitalised: bool = False, initial: bool = False) -> list[str]:
    """Acronyms, CamelCase, hyphenated-capital and letter-digit tokens, in order, without repeats; with
    `capitalised`, also capitalised words inside a sentence ("Whisper", "Conformer").

    >>> named_terms("What FID does DiffMoE reach on ImageNet-1K vs. R-CNN and GlobalCom^2?")
    ['FID', 'DiffMoE', 'ImageNet-1K', 'R-CNN', 'GlobalCom^2']
    >>> named_terms("Its Recall@50 and mAP@0.5?")
    ['Recall@50', 'mAP@0.5']
    >>> named_terms("How does Whisper compare with a Conformer?", capitalised=True)
    ['Whisper', 'Conformer']
    >>> named_terms("Among 18 models, o3-mini performs best.")  # a lower-case name with a digit, in parts
    ['o3-mini']
    >>> named_terms("enteroscopy x3: the X3D series")  # a multiplier is no name
    ['X3D']
    """
    found = [(m.start(), m.group(0).rstrip("-")) for m in NAMED.finditer(text)]
    if capitalised:
        found += inner_capitals(text, initial)
    return list(dict.fromkeys(t for _, t in sorted(found)))


_DESCRIBING = re.compile(r"(?:ed|like|wise|free|aware|based|style|level|specific|agnostic|only|scale|sized|driven|"
                         r"friendly|centric|oriented|efficient|intensive)")


def described(name: str, words) -> bool:
    """'LLM-based', 'GPS-labelled', 'Transformer-like': a descriptive compound (its last part an adjective-like
    word the corpus writes in lower case), not a name ('Q-networks' is one)."""
    last = name.rsplit("-", 1)[-1] if "-" in name else ""
    if not (last and last.islower() and last.isalpha() and _DESCRIBING.search(last)):
        return False
    return last in words or bool(_DESCRIBING.fullmatch(last)) or (last.endswith("ed") and len(last) > 4)  # "U-shaped"


def label_head(label: str) -> str:
    """'Prune&Comp: Free Lunch ...' -> 'Prune&Comp'; '' when the label has no short head."""
    if ":" not in label:
        return label.strip() if len(label.split()) <= 2 else ""
    head = label.split(":")[0].strip()
    return head if head and len(head.split()) <= 4 else ""


_VERSIONED = re.compile(r"([a-z]{2,})(-\d+(?:\.\d+)?[a-z]?)")


def unknown_name(token: str) -> str:
    """A lower-case token the corpus does not write but shaped like a model's name ("gpt-4", "resnet-50"):
    written with capitals so it is read as a name (a short head as an acronym); '' otherwise.

    >>> unknown_name("gpt-4"), unknown_name("resnet-50"), unknown_name("top-1"), unknown_name("model")
    ('GPT-4', 'Resnet-50', '', '')
    """
    m = _VERSIONED.fullmatch(token)
    if not m or is_word(m.group(1)):
        return ""
    head = m.group(1)
    return (head.upper() if len(head) <= 4 else head.capitalize()) + m.group(2)


_TITLED_WORD = re.compile(r" ([A-Z][a-z]{2,})\b")


def modifies_longer_name(question: str, end: int, words: set[str]) -> bool:
    """A capitalised word follows that the corpus writes in lower case (`words`) or that is common English: the name
    is the modifier of a longer proper name ("NIH Stroke Scale", "the ACME Trial Group"), not a paper's name."""
    m = _TITLED_WORD.match(question, end)
    if not m or m.group(1).lower() in FUNCTION_WORDS:
        return False
    return m.group(1).lower() in words or is_word(m.group(1))


_DEFINED = re.compile(r"\(([A-Z][A-Za-z0-9\-&^]{1,20}\+{0,2})\)")  # "... Byte Pair Encoding (BPE)"
# "The ZEUS (Zotarolimus-Eluting Endeavor Sprint Stent in Uncertain DES Candidates) is a ... trial": the name first
_SPELLED = re.compile(r"\b([A-Z][A-Z0-9\-]{1,14})\s+\(([A-Z][^()]{4,160})\)")
_ACRONYM_AFTER = re.compile(r"(?:\s+[A-Z][\w\-]*){0,5}\s*\(([A-Z][A-Za-z0-9\-&^]{1,20})\)")
_CALLED = re.compile(r"\b(?:termed|called|named|dubbed|coined)\s+([A-Z][\w\-&^]+\+{0,2})"
                     r"|\b(?:coin|term|call|name|dub|refer to)\w*\s+(?:(?:it|them|this|the|our|\w+)\s+){0,3}?"
                     r"as\s+(?:the\s+)?([A-Z][\w\-&^]+\+{0,2})")
_PROPOSE = re.compile(
    rf"{OWN_WORK}\s+"
    r"(?:a |an |the )?(?:(?:new|novel|simple|general|unified|lightweight|efficient)\s+)*"
    r"(?:[a-z\-]+\s+){0,4}?([A-Z][\w\-&^]+\+{0,2})"
    r"|\b[Oo]ur (?:\w+ ){0,2}?(?:method|model|approach|framework|algorithm|system|architecture|network),?"
    r" ([A-Z][\w\-&^]+\+{0,2})"
    r"|\b(?:[Tt]he|[Oo]ur) proposed [`'\"“‘]{1,2}([A-Z][\w\-&^]+\+{0,2})"
    r"|(?:^|\. )([A-Z][\w\-&^]*[A-Z0-9][\w\-&^]*),? (?:a|an) (?:\w+ ){0,3}?(?:method|model|approach|framework|"
    r"algorithm|network|benchmark)"
)

_TITLED = re.compile(r"[A-Z][\w\-&^+]*(?:\s+[A-Z][\w\-&^+]*){1,5}")  # every word capitalised


def coined_names(text: str) -> list[str]:
    """The names an abstract gives its own work: "termed X", "we propose X", "our method, X"; when an acronym follows
    ("Our method, Diversifying Sample Condensation (DISCO)"), the acronym and the capitalised name it stands for.

    >>> coined_names("We propose FedMerge. Our method, Diversifying Sample Condensation (DISCO), helps.")
    ['FedMerge', 'DISCO', 'Diversifying Sample Condensation']
    """
    out = []
    for rx in (_CALLED, _PROPOSE):
        for m in rx.finditer(text):
            got = next(g for g in m.groups() if g).rstrip("-.,")
            more = _ACRONYM_AFTER.match(text, m.end())
            if more:  # the acronym, and the name it stands for when that is written as one ("Audio-Aware Decoding")
                phrase = " ".join(f"{got}{text[m.end():more.start(1)]}".rstrip(" (").split())
                out += [more.group(1)] + ([phrase] if " " in phrase and _TITLED.fullmatch(phrase) else [])
            else:
                out.append(got)
    return out


def definitions(text: str) -> list[tuple[str, int]]:
    """The names an abstract defines, with where each definition starts: "Byte Pair Encoding (BPE)", and a name
    followed by what its letters stand for, "ZEUS (Zotarolimus-Eluting Endeavor Sprint Stent in Uncertain DES
    Candidates)" (its letters, in order, in the expansion, the first one opening it).

    >>> definitions("The ZEUS (Zotarolimus-Eluting Endeavor Sprint Stent in Uncertain DES Candidates) trial.")
    [('ZEUS', 4)]
    >>> definitions("We use Byte Pair Encoding (BPE). The ICU (mean age 64 years) was busy.")
    [('BPE', 26)]
    """
    out = [(m.group(1), m.start()) for m in _DEFINED.finditer(text)]
    for m in _SPELLED.finditer(text):
        letters, expansion = re.sub(r"[^A-Z]", "", m.group(1)), m.group(2)
        if len(letters) >= 2 and expansion[0] == letters[0] and re.search(
                ".*?".join(map(re.escape, letters[1:])), expansion[1:], re.I) and len(expansion.split()) >= 2:
            out.append((m.group(1), m.start()))
    return sorted(out, key=lambda d: d[1])


def sentence_before(text: str, at: int) -> str:
    """The sentence up to `at` (a full stop ends a sentence unless it is in "e.g." / "et al." / a number)."""
    cut = 0
    for m in re.finditer(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bal)(?<!\d)\.\s+(?=[A-Z])", text[:at]):
        cut = m.end()
    return text[cut:at]
