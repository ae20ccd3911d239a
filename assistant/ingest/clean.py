"""Text cleaning for ingested abstracts: whitespace, invisible characters, page debris, light LaTeX.

Scope: pure string functions, no I/O. Typographic characters (’ “ ” ‐ ‑ × – —) are kept exactly as
they are: nothing here applies Unicode compatibility normalisation (NFKC would turn them into ASCII).
"""

from __future__ import annotations

import re
import unicodedata

# Invisible characters that only get in the way of matching and display (zero-width, BOM, soft hyphen).
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
# C0/C1 control characters other than whitespace become spaces.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\udc80-\udcff]")  # bytes kept by decode(errors="surrogateescape")
_LONE_SURROGATE = re.compile(r"[\ud800-\udc7f\udd00-\udfff]")  # e.g. a JSON escape "\ud83d" without its pair
_ANY_SURROGATE = re.compile(r"[\ud800-\udfff]")

# CJK ideographs, kana, hangul, CJK punctuation and full-width forms.
_CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]")
_PDF_PREFIX = re.compile(r"^\s*PDF\s*↗\s*")
# Page chrome copied together with abstracts from paper-listing websites (compared case-insensitively).
_PAGE_CHROME = frozenset({"daily papers", "pdf ↗", "pdf", "↗"})
CJK_DEBRIS_MAX_CHARS = 100  # longer CJK lines may be real (Chinese) abstracts, not UI text


def normalise_whitespace(text: str) -> str:
    """Collapse every run of Unicode whitespace to one space and strip the ends.

    >>> normalise_whitespace("  a\\t b\\u00a0\\n c ")
    'a b c'
    """
    return " ".join(text.split())


def clean_text(text: str) -> str:
    """Remove invisible and control characters, then normalise whitespace. Typography is kept.

    >>> clean_text("Cost\\u200b‐effective “models” ×2\\x07 ")
    'Cost‐effective “models” ×2'

    A lone surrogate that is not an undecodable byte (a JSON escape such as "\\ud83d" whose pair is
    missing) cannot be encoded as UTF-8: it becomes U+FFFD, the replacement character.

    >>> clean_text("Half emoji \\ud83d")
    'Half emoji \ufffd'
    """
    text = _LONE_SURROGATE.sub("\ufffd", text)
    return normalise_whitespace(_CONTROL.sub(" ", text.translate(_INVISIBLE)))


def scrub(text: str) -> str:
    """`text` with every surrogate replaced by U+FFFD: safe to print and encode (ids in issue messages)."""
    return _ANY_SURROGATE.sub("\ufffd", text)


def has_undecodable(text: str) -> bool:
    """True if `text` holds bytes that were not valid UTF-8 (decoded with errors="surrogateescape")."""
    return bool(_SURROGATE.search(text))


def cjk_ratio(text: str) -> float:
    """Share of CJK characters among the letters, digits and CJK characters of `text`."""
    cjk = len(_CJK.findall(text))
    other = sum(1 for ch in text if ch.isalnum() and not _CJK.match(ch))
    total = cjk + other
    return cjk / total if total else 0.0


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


def mostly_cjk(text: str, threshold: float = 0.5) -> bool:
    """True for lines written mostly in Chinese/Japanese/Korean (e.g. a search page's UI text).

    >>> mostly_cjk("输入标题、作者或关键词，从 100,903 篇学术成果中精准定位")
    True
    >>> mostly_cjk("We evaluate on the 中文 subset of the benchmark.")
    False
    """
    return cjk_ratio(text) >= threshold


def is_page_debris(line: str) -> bool:
    """True for lines that are website chrome rather than content: known headers, short mostly-CJK UI text.

    >>> is_page_debris("Daily Papers"), is_page_debris("论文检索"), is_page_debris("We propose a model.")
    (True, True, False)
    """
    s = normalise_whitespace(line)
    return not s or s.casefold() in _PAGE_CHROME or (len(s) < CJK_DEBRIS_MAX_CHARS and mostly_cjk(s))


def strip_pdf_prefix(line: str) -> tuple[str, bool]:
    """Remove a "PDF ↗" link label glued to the start of an abstract; say whether there was one.

    >>> strip_pdf_prefix("PDF ↗Despite the prevalent assumption")
    ('Despite the prevalent assumption', True)
    """
    stripped, n = _PDF_PREFIX.subn("", line, count=1)
    return stripped, bool(n)


def word_count(text: str) -> int:
    """Words in `text`; each CJK character counts as a word.

    >>> word_count("Deep nets, 2 ways — fast.")
    5
    """
    latin = len(re.findall(r"[^\W_]+(?:['’\-‐][^\W_]+)*", _CJK.sub(" ", text)))
    return latin + len(_CJK.findall(text))


# ---- light LaTeX (BibTeX fields) -------------------------------------------------------------------

_ACCENTS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "r": "\u030a",
}
_ACCENT_CMD = re.compile(r"""\\([\"'`^~=.]|[uvHckr](?![A-Za-z]))\s*\{?\s*(\\[ij]\b|[A-Za-z])\s*\}?""")
_LETTERS = {
    r"\ss": "ß", r"\o": "ø", r"\O": "Ø", r"\ae": "æ", r"\AE": "Æ", r"\oe": "œ", r"\OE": "Œ",
    r"\aa": "å", r"\AA": "Å", r"\l": "ł", r"\L": "Ł", r"\i": "ı", r"\j": "ȷ",
}
_LETTER_CMD = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])\s?")
_FORMAT_CMD = re.compile(r"\\(?:textit|textbf|emph|textsc|texttt|textrm|textsf|mathrm|mbox|text)\s*\{")
_ESCAPES = re.compile(r"\\([&%_#$])")


def latex_to_text(text: str) -> str:
    """Turn the LaTeX found in BibTeX fields into plain text: accents, escapes, formatting commands, braces.

    Math (`$x^2$`) and unknown commands are left as written.

    >>> latex_to_text(r"{BERT}: G{\\"o}del \\& Co. at 5\\% with \\emph{{LLMs}}")
    'BERT: Gödel & Co. at 5% with LLMs'
    """

    def accent(m: re.Match[str]) -> str:
        base = m.group(2)
        base = {r"\i": "i", r"\j": "j"}.get(base, base)
        return unicodedata.normalize("NFC", base + _ACCENTS[m.group(1)])

    text = _ACCENT_CMD.sub(accent, text)
    text = _LETTER_CMD.sub(lambda m: _LETTERS["\\" + m.group(1)], text)
    text = _FORMAT_CMD.sub("{", text)
    text = _ESCAPES.sub(r"\1", text)
    text = text.replace("{", "").replace("}", "")
    return clean_text(text)
