"""Topic phrases for display labels: sentence and word helpers, and the phrase extractors.

Scope: pure functions over abstract text, shared by `names` (method names) and `labels`. A topic
phrase is at most ~`MAX_TOPIC_WORDS` words: the problem an abstract studies ("We study the problem of
X"), its contribution ("we propose a X for Y"), or the subject of its first sentence.
"""

from __future__ import annotations

import re

MAX_LABEL = 80
MAX_TOPIC_WORDS = 8
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(\[`'])")
QUOTES = "\"'`“”‘’«»"
PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")
WORD = re.compile(r"\S+")
_SUBJ = r"\b(?:we|this (?:paper|work|study|article|letter|report)|the (?:paper|work)|our (?:paper|work))\s+"
_ADV = (
    r"(?:(?:first|also|further|then|here|therefore|thus|newly|hence|instead|innovatively|now|additionally|"
    r"subsequently|finally)\s+)?"
)
_VERBS_ALL = (
    r"(?:propose|introduce|present|develop|release|design|devise|build|contribute|put forward|offer|unveil|"
    r"construct|create|formulate|describe)"
)
_VERBS_CORE = r"(?:propose|introduce|present|develop|design|devise|construct|formulate)"
PROPOSE = re.compile(_SUBJ + _ADV + _VERBS_ALL + r"(?:s|d|ed)?(?:\s+and\s+[a-z]+)?\s+", re.IGNORECASE)
_CONTRIBUTION = re.compile(_SUBJ + _ADV + _VERBS_CORE + r"(?:s|d|ed)?(?:\s+and\s+[a-z]+)?\s+", re.IGNORECASE)
AND_PROPOSE = re.compile(
    r"\b(?:we|our)\b[^.]*?\band\s+(?:then\s+|also\s+|further\s+)?" + _VERBS_CORE + r"[sd]?\s+", re.IGNORECASE
)
_PROBLEM_OF = re.compile(r"\b(?:problem|task|challenge|question)s? of\s+", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"^(?:we|this (?:paper|work|study))\s+[a-z]+\s+(?:how\s+)?(?:to\s+)?", re.IGNORECASE)
_LEAD_IN = re.compile(
    r"^(?:(?:in|since|despite|while|although|though|with|over|for|as|due|given|unlike|after|during|to|using|"
    r"recently|currently|nowadays|today|traditionally|historically|conventionally|typically|generally|"
    r"however|here|moreover|furthermore|lately|notably|especially|particularly|by)\b[^,]{0,160},\s*)+",
    re.IGNORECASE,
)
ARTICLES = frozenset("a an the our its their this these such".split())
FILLER_ADJ = frozenset(
    "novel new simple first general generic principled unified effective efficient innovative comprehensive "
    "lightweight powerful strong robust scalable flexible fast practical elegant versatile but and yet highly "
    "more very straightforward systematic".split()
)
GENERIC = frozenset(
    "approach method framework model technique algorithm system scheme strategy solution architecture "
    "module network paradigm mechanism pipeline tool study analysis way idea design procedure use work "
    "variant two three several set benchmark dataset".split()
)
BOUNDARY_WORDS = frozenset(
    "that which where whose while who when whereby thereby because since although though so such named called "
    "dubbed termed coined consisting designed spanning built inspired featuring incorporating comprising "
    "containing aimed tailored capable able".split()
)
# After a generic head ("a benchmark designed to ..."), these clauses say what the thing is: keep them.
_CLAUSE_KEEP = frozenset("that which designed built aimed tailored inspired".split())
PREPOSITIONS = frozenset("of in on for to with by from via using at into over under based through per as".split())
_TRAILING_STOP = PREPOSITIONS | frozenset("a an the and or but its their our this these that is are be can".split())
_SUBJECT_VERBS = frozenset(
    """is are was were has have had aims aim remains remain plays play presents achieves achieve shows show
    shown can could may might will would should must often usually typically generally commonly rely relies
    refers refer reduces reduce compresses becomes become became enables enable allows allow requires require
    uses use suffer suffers face faces encounter encounters deliver delivers offer offers provide provides
    involves involve seeks seek targets target predicts predict leads lead brings bring hinder hinders persist
    persists afflicts marks opens contain contains extracts emerged attracted received gained demonstrated
    achieved sparked made witnessed reigned considers helps help exhibit exhibits capture captures struggle
    struggles depend depends serve serves lack lacks appear appears continue continues represents represent
    promise promises operate operates seem seems consist consists focus focuses assume assumes adopt adopts
    employ employs exploit exploits utilize utilizes leverage leverages perform performs generate generates
    produce produces improve improves enhance enhances outperform outperforms study studies explore explores
    investigate investigates address addresses tackle tackles need needs fail fails yield yields obtain
    obtains train trains compress learn learns consider""".split()
)
_AUX = frozenset("can could does do did is are was were how what why which when should will would".split())


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT_SPLIT.split(text) if s.strip()]


def strip_token(tok: str) -> str:
    return tok.strip(QUOTES + ".,;:!?)(")


def cap(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:] if phrase else phrase


def is_generic(word: str) -> bool:
    w = word.lower().strip(".,;:")
    return w in GENERIC or (w.endswith("s") and w[:-1] in GENERIC)


def content_words(phrase: str) -> list[str]:
    return [
        w
        for w in phrase.lower().split()
        if w not in ARTICLES and w not in FILLER_ADJ and w not in _TRAILING_STOP and not is_generic(w)
    ]


def trim_words(words: list[str], limit: int = MAX_TOPIC_WORDS) -> list[str]:
    """Cut a phrase to about `limit` words -- before its first preposition after the head, and not inside a
    run of capitalised words -- without a dangling function word."""
    if len(words) > limit:
        cut = limit
        for i in range(3, limit + 1):
            if words[i].lower() in PREPOSITIONS or words[i].lower() in {"and", "or"}:
                cut = i
                break
        while cut < min(len(words), limit + 4) and words[cut][:1].isupper() and words[cut - 1][:1].isupper():
            cut += 1
        words = words[:cut]
    words = [w.rstrip(",;:") if i == len(words) - 1 else w for i, w in enumerate(words)]
    while words and words[-1].lower().strip(",;:") in _TRAILING_STOP:
        words = words[:-1]
        if words:
            words[-1] = words[-1].rstrip(",;:")
    return words


def clip_phrase(text: str, limit: int = MAX_TOPIC_WORDS) -> str:
    """A topic phrase from the start of `text`: parentheticals and braces dropped, cut at a clause boundary."""
    text = PAREN.sub("", text).replace("{", "").replace("}", "")
    text = re.split(r"[,;:.!?]\s|[,;:.!?]$| [–—-] ", text + " ", maxsplit=1)[0]
    words: list[str] = []
    for w in WORD.findall(text):
        if w.lower() in BOUNDARY_WORDS and words:
            break
        words.append(w.strip(QUOTES))
    words = [w for w in words if w]
    while words and (words[0].lower() in ARTICLES or words[0].lower() == "to"):
        words = words[1:]
    return " ".join(trim_words(words, limit))


def describe_phrase(text: str, name: str = "") -> str:
    """Topic phrase from a description such as "a novel framework for zero learning, ..."; a generic head
    (or one the method's `name` already says: "ICExplainer, an explainer that ...") keeps its clause."""
    words = WORD.findall(text)
    while words and (words[0].lower() in ARTICLES or words[0].lower() in FILLER_ADJ):
        words = words[1:]
    phrase = clip_phrase(" ".join(words))
    says_nothing = all(w in name.lower() for w in content_words(phrase))
    if words and says_nothing and len(words) > 1 and words[1].lower() in _CLAUSE_KEEP:
        clause = re.split(r"[,;:.!?]\s|[,;:.!?]$", PAREN.sub("", " ".join(words)) + " ", maxsplit=1)[0]
        phrase = " ".join(trim_words(clause.replace("{", "").replace("}", "").split()))
    return phrase


def _subject(sentence: str) -> str:
    """The subject of a sentence: the words before its first verb (lead-in clauses removed)."""
    s = PAREN.sub("", _LEAD_IN.sub("", sentence).strip())
    out: list[str] = []
    for w in WORD.findall(s):
        bare = w.lower().strip(",;:.")
        after_article = bool(out) and out[-1].lower() in ARTICLES
        if bare in _SUBJECT_VERBS and out and not after_article:
            break
        if w.endswith((",", ";", ":")):
            out.append(w.rstrip(",;:"))
            break
        out.append(w)
    else:
        return ""
    while out and out[0].lower() in ARTICLES:
        out = out[1:]
    if not out or len(out) > 12 or out[0].lower() in {"we", "it", "they", "there", "i", "one", *_AUX}:
        return ""
    if out[-1].lower() in {"year", "years", "decade", "decades", "time", "times"}:
        return ""
    if len(out) == 1 and out[0].islower():
        return ""  # "their performance remains ..." -> too vague
    phrase = clip_phrase(" ".join(out))
    return phrase if content_words(phrase) else ""


def topic_phrases(text: str) -> list[str]:
    """Candidate topic phrases, best first: the problem studied, the contribution, the first subject.

    >>> topic_phrases("Chart editing reduces manual effort in visualization design. We present a benchmark.")[0]
    'Chart editing'
    """
    sents = sentences(text)
    out: list[str] = []
    for sent in sents[:6]:
        m = _PROBLEM_OF.search(sent)
        if m and re.search(r"\b(?:we|this (?:paper|work|study))\b", sent, re.IGNORECASE):
            out.append(clip_phrase(sent[m.end() :]))
    for sent in sents:
        m = _CONTRIBUTION.search(sent)
        if m:
            phrase = describe_phrase(sent[m.end() :])
            if len(content_words(phrase)) >= 2:
                out.append(phrase)
            break
    if sents:
        first = sents[0]
        if first.endswith("?") and len(first) <= MAX_LABEL:
            out.append(first)
        lead = _LEAD_IN.sub("", first)
        if _FIRST_PERSON.match(lead):  # "This work considers X", "We seek to improve X"
            out.append(clip_phrase(_FIRST_PERSON.sub("", lead)))
        out.append(_subject(first))
        m = _PROBLEM_OF.search(first)
        if m:
            out.append(clip_phrase(first[m.end() :]))
    result: list[str] = []
    for p in out:
        p = cap(p.strip())
        if p and p not in result and content_words(p):
            result.append(p)
    return result


def fallback_phrase(text: str) -> str:
    """The first words of the first sentence, lead-in and "we study ..." removed (the last resort)."""
    sents = sentences(text)
    if not sents:
        return ""
    lead = _LEAD_IN.sub("", sents[0])
    return cap(clip_phrase(_FIRST_PERSON.sub("", lead)) or clip_phrase(sents[0]))
