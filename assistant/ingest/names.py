"""Method names: find the name of the method an abstract introduces, and a topic phrase for it.

Scope: pure functions over abstract text. Patterns: "... named/called/dubbed X", "we propose X, a ...",
"we propose Long Name (ACR)", "a method: X", "the X module", "X, a ..."; X must look like a name
(CamelCase, ALLCAPS, letters with digits, or -- right after "we propose" -- a capitalised word).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .longforms import expansion
from .phrases import (
    AND_PROPOSE,
    ARTICLES,
    BOUNDARY_WORDS,
    FILLER_ADJ,
    GENERIC,
    PREPOSITIONS,
    PROPOSE,
    QUOTES,
    WORD,
    clip_phrase,
    content_words,
    describe_phrase,
    is_generic,
    sentences,
    strip_token,
)

# "... Federated Learning with Learnable Aggregation Weights, named FedLAW": the capitalised run before "named"
_LEADING_TITLE = re.compile(r"((?:[A-Z][\w\-]*\s+(?:(?:with|of|for|and|in|to|on)\s+)?){1,8}[A-Z][\w\-]*),?\s*$")
_NAMING = re.compile(r"\b(?:named|called|dubbed|termed|coined|nicknamed)\s+(?:as\s+)?(?:the\s+)?")
# Common acronyms and terms that name a field, not the paper's own method (rejected in weak slots).
_COMMON_TERMS = frozenset(
    "llm llms mllm mllms vlm vlms lvlm lvlms gnn gnns cnn cnns dnn dnns rnn rnns ann anns nlp ai ml dl fl rl "
    "iot gpu gpus cpu api apis sota mlp mlps vit vits moe moes rag kv nn lstm gan gans vae vaes ssl cv ir "
    "qa vqa asr tts nerf sgd adam imagenet coco cifar pca svm knn".split()
)


class MethodName(NamedTuple):
    name: str
    topic: str  # expansion / appositive / contribution phrase, or ""
    kind: str  # a generic noun right after the name ("benchmark", "framework"), or ""


def _plain_capitalised(tok: str) -> bool:
    """ "Polygames", "Co-Sparsify", "Normal-Inverse-Wishart": capitalised parts, no inner capitals."""
    parts = [p for p in re.split(r"[-‐‑]", tok) if p]
    return bool(parts) and all(p[:1].isupper() and (p[1:].islower() or not p[1:]) for p in parts)


def is_name_like(tok: str, *, strong: bool = False) -> bool:
    """Whether `tok` looks like a method name: CamelCase, ALLCAPS, letters with digits.

    `strong` (a slot where a name is expected, e.g. right after "we propose") also accepts a plain
    capitalised word such as "Polygames"; weak slots reject common field acronyms such as "LLM".

    >>> [is_name_like(t) for t in ["FedMerge", "SUSing", "GCA", "SRe2L", "ViC-MAE", "LLMs", "method"]]
    [True, True, True, True, True, False, False]
    >>> is_name_like("Polygames"), is_name_like("Polygames", strong=True)
    (False, True)
    """
    tok = strip_token(tok)
    if not 2 <= len(tok) <= 32 or not tok[0].isalnum() or not re.fullmatch(r"[\w\-+&./‐‑]+", tok):
        return False
    if re.fullmatch(r"[A-Z]{2,}s", tok) or (not strong and tok.lower() in _COMMON_TERMS):
        return False
    letters = [c for c in tok if c.isalpha()]
    if not letters:
        return False
    has_lower = any(c.islower() for c in letters)
    camel = has_lower and any(c.isupper() for p in re.split(r"[-‐‑]", tok) for c in p[1:])
    allcaps = len(letters) >= 2 and not has_lower
    digit_mix = any(c.isdigit() for c in tok) and tok[0].isalpha()
    return camel or allcaps or digit_mix or (strong and _plain_capitalised(tok))


def _title_run(words: list[str]) -> list[str]:
    """Leading run of capitalised words (with lower-case connectors between them)."""
    run: list[str] = []
    for w in words:
        s = w.strip(QUOTES)
        if s[:1].isupper() or s[:1].isdigit():
            run.append(s.rstrip(",;:."))
            if re.search(r"[,;:.]$", s):
                break
        elif s.lower() in {"and", "of", "for", "in", "to", "with"} and run:
            run.append(s)
        else:
            break
    while run and run[-1].lower() in {"and", "of", "for", "in", "to", "with"}:
        run.pop()
    return run


def _acronym_in(rest: str, limit: int = 120) -> tuple[str, str, str] | None:
    """ "... words (ACR) rest" within `limit` characters of one sentence -> (ACR, words, rest)."""
    m = re.match(rf"([^().;]{{0,{limit}}}?)\s*\(\s*([^()]{{2,20}}?)\s*\)", rest)
    if m and is_name_like(m.group(2).replace(" ", ""), strong=True):
        return m.group(2), m.group(1).strip(" ,"), rest[m.end() :]
    return None


def _name_at(after: str) -> tuple[str, str, str] | None:
    """A name at the start of `after` (text following "named", "we propose", ...).

    Returns (name, expansion, rest-of-text) or None.
    """
    after = after.lstrip()
    quoted = re.match(r"(?:``|[\"“‘'])([^\"”’']{2,60})(?:''|[\"”’'])\s*", after)
    if quoted:
        phrase, rest = quoted.group(1).strip(), after[quoted.end() :]
        acr = _acronym_in(rest, 0)
        if acr:
            return acr[0], phrase, acr[2]
        if " " in phrase or is_name_like(phrase, strong=True):
            return phrase, "", rest
        return None
    words = WORD.findall(after[:300])
    if not words:
        return None
    run = _title_run(words)
    if run:
        last = run[-1]
        rest = after[after.find(last, sum(len(w) for w in run[:-1])) + len(last) :] if last in after else after
        acr = _acronym_in(rest, 0)
        if acr:
            return acr[0], " ".join(run), acr[2]
        if len(run) >= 2:
            acr = _acronym_in(rest)  # "termed X with Y, Z, and W (ACR)"
            if acr:
                return acr[0], " ".join(run) + " " + acr[1], acr[2]
            if run[0].lower() not in _COMMON_TERMS:
                return " ".join(run), "", rest
    else:
        acr = _acronym_in(after, 60)  # "the global context (GC) block", "method, Federated Orthogonal Training (FOT)"
        tail = acr[1].split(",")[-1].strip() if acr else ""
        plain = not any(w in PREPOSITIONS | BOUNDARY_WORDS for w in tail.split())
        if acr and tail and (plain or _title_run(tail.split()) == tail.split()) and 0 < len(tail.split()) <= 8:
            return acr[0], expansion(after, acr[0]) or tail, acr[2]
    first = words[0]
    token = strip_token(first)
    if not is_name_like(token, strong=True):
        return None
    nxt = words[1].lower() if len(words) > 1 else ""
    if _plain_capitalised(token) and not (
        re.search(r"[,;:(]$", first) or nxt in {"which", "that", "for", "to", "as"} or len(words) == 1
    ):
        return None  # a capitalised word inside a noun phrase: "Gaussian process", "Normal-Inverse-Wishart model"
    rest = after[after.find(token) + len(token) :].lstrip(QUOTES)
    spelled = re.match(r"\s*\(([^()]{3,100})\)", rest)
    if spelled and len(spelled.group(1).split()) >= 2:
        return token, spelled.group(1).strip(), rest[spelled.end() :]
    return token, "", rest


def _skip_fillers(text: str) -> str:
    """Drop leading articles and filler adjectives ("a novel", "the first")."""
    words = text.split(" ")
    i = 0
    while i < len(words) and (words[i].lower() in ARTICLES or words[i].lower() in FILLER_ADJ or not words[i]):
        i += 1
    return " ".join(words[i:])


def _paren_acronym(window: str) -> tuple[str, str, str] | None:
    """ "global context vision transformer (GC ViT), ..." -> ("GC ViT", "global context vision transformer", rest)."""
    m = re.search(r"\(\s*([^()]{2,20}?)\s*\)", window)
    if not m or not is_name_like(m.group(1).replace(" ", ""), strong=True):
        return None
    acr, before = m.group(1), window[: m.start()]
    words = before.split(",")[-1].split()
    if not words or len(words) > 10 or any(w.lower() in PREPOSITIONS | BOUNDARY_WORDS for w in words):
        return None
    long_form = expansion(window[: m.end()], acr) or " ".join(
        w for w in words if w.lower() not in ARTICLES and w.lower() not in FILLER_ADJ
    )
    return acr, long_form, window[m.end() :]


def _candidates(text: str) -> list[tuple[tuple[int, int, int], str, str, str, str]]:
    """(rank, name, expansion, rest after the name, description before it) for each name found.

    Rank: (tier, sentence, slot). Tier 0: named in a contribution sentence ("we propose X", "... named X",
    "a method: X"); 1: followed by a generic noun ("the X module"); 2: named elsewhere; 3: "X, a ...".
    """
    found: list[tuple[tuple[int, int, int], str, str, str, str]] = []
    seen_before = ""
    for si, sent in enumerate(sentences(text)):
        proposing = bool(PROPOSE.search(sent) or re.search(r"\b(?:we|our)\b", sent, re.IGNORECASE))
        for m in _NAMING.finditer(sent):
            got = _name_at(sent[m.end() :])
            if got and got[0] not in seen_before:
                before = sent[: m.start()]
                lead = _LEADING_TITLE.search(before)
                long_form = got[1] or (lead.group(1) if lead and " " in lead.group(1) else "")
                desc = PROPOSE.split(before)[-1] if PROPOSE.search(before) else ""
                found.append(((0, si, 0) if proposing else (2, si, 0), got[0], long_form, got[2], desc))
        for m in [*PROPOSE.finditer(sent), *AND_PROPOSE.finditer(sent)]:
            window = _skip_fillers(sent[m.end() :])
            got = _name_at(window)
            if got and got[0] not in seen_before and strip_token(got[0]).lower() not in _COMMON_TERMS:
                found.append(((0, si, 1), *got, ""))
                continue
            acr = _paren_acronym(window)
            if acr and acr[0] not in seen_before:
                found.append(((0, si, 1), *acr, ""))
                continue
            # weak slot: a name set off by punctuation ("a new framework, FedX, ...", "a pooling method: adaPool")
            # or followed by a generic noun ("the class-agnostic GWAP module")
            ws = WORD.findall(window)[:14]
            for i, w in enumerate(ws):
                tok = strip_token(w)
                if not is_name_like(tok) or tok in seen_before:
                    continue
                nxt = strip_token(ws[i + 1]).lower() if i + 1 < len(ws) else ""
                prev = ws[i - 1] if i else ""
                punct = re.search(r"[,(:]$", w) or re.search(r"[,:]$", prev) or (i + 1 == len(ws) and prev)
                if (punct and not tok.isupper()) or is_generic(nxt):
                    desc = ""
                    if w.startswith("("):  # "a method, federated training via contribution estimation (FedCE)"
                        desc = " ".join(ws[:i]).split(",")[-1]
                    elif prev.endswith((",", ":")):  # "a pooling method: adaPool"
                        desc = " ".join(ws[:i])
                    rank = (0, si, 2) if punct and not tok.isupper() else (1, si, 2)
                    found.append((rank, tok, "", window[window.find(w) + len(w) :], desc))
                    break
        for m in re.finditer(r"(?:^|\s)([\w\-+&.‐‑]{2,32}),\s+(?:a|an|our)\s+", sent):
            tok = m.group(1)
            if is_name_like(tok) and not tok.isupper() and tok not in seen_before:
                found.append(((3, si, 0), tok, "", sent[m.end(1) :], ""))
        seen_before += " " + sent
    return found


def find_method_name(text: str) -> MethodName:
    """The method the abstract introduces: its name, a topic phrase for it, and its kind noun.

    >>> find_method_name("We propose CONFIG (CONstrained efFIcient Global Optimization), a simple algorithm.")
    MethodName(name='CONFIG', topic='CONstrained efFIcient Global Optimization', kind='algorithm')
    >>> find_method_name("In this work we develop a new method, named Sub-graph Permutation Equivariant "
    ...                  "Networks (SPEN), which works.").name
    'SPEN'
    >>> find_method_name("Images are often hard. We introduce the GlobalRG benchmark, comprising two tasks.")
    MethodName(name='GlobalRG', topic='', kind='benchmark')
    >>> find_method_name("Graph networks are popular. We propose a simple baseline for node classification.")
    MethodName(name='', topic='', kind='')
    """
    found = _candidates(text)
    if not found:
        return MethodName("", "", "")
    _, name, long_form, rest, before = min(found, key=lambda c: c[0])
    name = name.strip()
    kind_m = re.match(r"\s*['’]*\s*(?:,\s*(?:a|an|our|the)\s+(?:(?:novel|new|simple)\s+)?)?([a-z]+)\b", rest)
    kind = kind_m.group(1) if kind_m and is_generic(kind_m.group(1)) else ""
    topic = clip_phrase(long_form, 12) if long_form else clip_phrase(expansion(text, name), 12)
    if not topic:
        generic = "|".join(sorted(GENERIC))
        appos = re.match(
            r"\s*['’]*\s*(?:\([^)]*\)\s*)?(?:(?:" + generic + r")s?\s*)?,\s*((?:a|an|our|the)\s.*)", rest
        )
        relative = re.match(r"\s*['’]*\s*(?:\([^)]*\)\s*)?,?\s*(?:which|that)\s+(.*)", rest)
        if appos:
            topic = describe_phrase(appos.group(1), name)
        elif kind and re.match(r"\s*['’]*\s*[a-z]+\s+(?:that|which)\b", rest):
            topic = describe_phrase(rest)
        elif before and content_words(describe_phrase(before)):
            topic = describe_phrase(before)
        elif relative:
            topic = clip_phrase(relative.group(1))
        if topic and not content_words(topic):
            topic = ""
    return MethodName(name, topic, kind)
