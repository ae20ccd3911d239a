"""TeX and markup debris out of text, as a reader should see it: ``quotes'', \\times, $...$, \\textbf{x}, braces, URLs.

Shared by the answer's prose (`answer/prose.py`: what the reader reads) and the claim verifier (`verify/verifier.py`:
it reads a claim and its source typeset alike, so "96.9%" is not a new figure beside "$96.9\\%$").
"""

from __future__ import annotations

import re

_SYMBOLS = {
    "times": "×", "pm": "±", "sim": "~", "approx": "≈", "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ",
    "epsilon": "ε", "lambda": "λ", "mu": "µ", "sigma": "σ", "tau": "τ", "theta": "θ", "rho": "ρ", "pi": "π",
    "downarrow": "↓", "uparrow": "↑", "rightarrow": "→", "leftarrow": "←", "to": "→", "leq": "≤", "geq": "≥",
    "le": "≤", "ge": "≥", "neq": "≠", "cdot": "·", "infty": "∞", "ldots": "…", "dots": "…", "deg": "°",
    "circ": "°", "times10": "×10", "%": "%", "&": "&", "_": "_", "#": "#", "$": "$",
}
_WRAPPERS = ("textbf", "textit", "emph", "texttt", "textsc", "underline", "text", "mathrm", "mathbf", "mathit",
             "mathcal", "mathbb", "textsuperscript", "textsubscript", "url", "mbox", "textrm", "textsf", "bm",
             "boldsymbol", "operatorname", "hat", "tilde", "bar")
_HREF = re.compile(r"\\href\{[^{}]*\}\{([^{}]*)\}")
_FOOTNOTE = re.compile(r"\\footnote\{[^{}]*\}")
_WRAP = re.compile(r"\\(?:" + "|".join(_WRAPPERS) + r")\{([^{}]*)\}")
_CMD = re.compile(r"\\([A-Za-z]+|[%&_#$])(?:\{\})?")
_MATH = re.compile(r"\$(?=\S)([^$]{1,80}?)(?<=\S)\$(?!\d)")  # "$k$", "$5\\times$"; not "$0.46 ... $50" (money)
_OWN_MACRO = re.compile(r"\\(?:ours|ourmethod|our|method|name|model|sys)\b\s?", re.IGNORECASE)
URL = re.compile(r"(?:https?://|www\.)\S+?(?=[)\],;]?(?:\s|$)|\.(?:\s|$))")


def clean_markup(s: str, name: str = "") -> str:
    """TeX and markup debris out of one sentence: ``quotes'', \\times, $...$, \\textbf{x}, braces, URLs.

    >>> clean_markup(r"a ``novel'' $3\\times$ gain (see https://x.org/a) in {BERT} \\emph{models}")
    'a “novel” 3× gain in BERT models'
    """
    s = s.replace("``", "“").replace("''", "”")
    s = _HREF.sub(r"\1", s)
    s = _FOOTNOTE.sub("", s)
    for _ in range(3):  # nested wrappers
        s = _WRAP.sub(r"\1", s)
    s = _MATH.sub(lambda m: m.group(1), s)
    s = _OWN_MACRO.sub(lambda m: (name or "the proposed method") + " ", s)
    s = _CMD.sub(lambda m: _SYMBOLS.get(m.group(1), ""), s)
    s = re.sub(r"[\^_]\{([^{}]*)\}", lambda m: m.group(0)[0] + m.group(1), s)
    s = s.replace("{", "").replace("}", "")
    s = re.sub(r"(?<=[A-Za-z.])~(?=[A-Za-z0-9])", " ", s)  # TeX's non-breaking space ("Table~1")
    s = re.sub(r"\s*[(\[]\s*(?:see\s+|at\s+|code:?\s*)?" + URL.pattern + r"\s*[)\]]", "", s)
    s = URL.sub("", s)
    s = re.sub(r"\s+([,.;:!?])", r"\1", s)
    s = re.sub(r"\(\s*\)|\[\s*\]", "", s)
    s = re.sub(r"([(\[])\s+", r"\1", re.sub(r"\s+([)\]])", r"\1", s))  # "(the method )" from a macro
    return " ".join(s.split())
