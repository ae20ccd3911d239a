"""Escaping and sanitising for the UI: corpus text is escaped (`esc` for HTML, `md_escape` for Markdown),
model Markdown is made safe to render (`safe_markdown`: no raw HTML, no images, only http(s)/mailto/#
links), and errors lose their file-system paths (`safe_error_text`). Pure functions, no gradio."""

from __future__ import annotations

import html
import re

_SAFE_LINK_PREFIXES = ("http://", "https://", "mailto:", "#")


def esc(value: object) -> str:
    """HTML-escape anything (quotes too), for text nodes and attribute values."""
    return html.escape("" if value is None else str(value), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}|~#!])")


def md_escape(text: object) -> str:
    """Corpus text as literal Markdown: markup characters backslash-escaped, `<`/`>` as entities."""
    s = " ".join(str(text or "").split())
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return s.replace("<", "&lt;").replace(">", "&gt;")


def is_safe_url(url: str) -> bool:
    """True for http(s)://, mailto: and #anchor targets, after undoing the usual obfuscations."""
    u = html.unescape(url or "").strip()
    if u.startswith("<"):
        u = u[1:].rstrip(">")
    u = u.replace("\\", "")
    u = re.sub(r"[\x00-\x20\x7f]+", "", u).lower()
    return u.startswith(_SAFE_LINK_PREFIXES)


_IMAGE = re.compile(r"!\[([^\[\]]*)\]\([^)]*\)")
_REF_DEF = re.compile(r"(?m)^ {0,3}\[[^\]\n]+\]:[ \t]*(?:\n[ \t]*)?\S.*$")
_INLINE_DEST = re.compile(r"\]\(([^)]*)\)?")


def safe_markdown(text: str) -> str:
    """Model Markdown made safe to render: no raw HTML, no images, only http(s)/mailto/# links."""
    s = (text or "").replace("\x00", "")
    s = s.replace("<", "&lt;")
    s = _IMAGE.sub(lambda m: f"(image removed: {m.group(1).strip()})" if m.group(1).strip() else "(image removed)", s)
    s = s.replace("![", "!\\[")  # leftover (nested / reference) image syntax becomes plain text
    s = _REF_DEF.sub("", s)  # `[r]: url` definitions: no reference-style links or images at all

    def _dest(m: re.Match) -> str:
        dest = m.group(1).strip()
        target = dest.split()[0] if dest.split() else ""
        return m.group(0) if target and is_safe_url(target) else "]"

    return _INLINE_DEST.sub(_dest, s)


def safe_error_text(message: str, hint: str = "") -> str:
    """An error for the browser: no file-system paths (basename only), escaped, with the hint."""

    def _strip_paths(s: str) -> str:
        s = re.sub(r"(?:[A-Za-z]:)?(?:[\\/][^\s\\/'\"`:;,()]+){2,}[\\/]?",
                   lambda m: m.group(0).rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1], s)
        return re.sub(r"~[\\/][^\s'\"`]+", "~", s)

    text = _strip_paths(message or "")
    if hint:
        text += f" — {_strip_paths(hint)}"
    return esc(text)
