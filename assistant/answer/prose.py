"""Answer prose from abstract sentences, by rules of general English: markup debris removed and the
authors' first-person framing turned into the third person, naming the paper where it has a name.

Scope: pure functions over one sentence at a time. A rewrite changes framing only (who says it, how it
is typeset), never a claim, so the claim verifier judges the rewritten sentence supported by the
sentence it came from (tests/test_prose.py checks that over the bundled corpus). Citations keep the
original sentence: the evidence panel highlights what the abstract says, the answer reads as an answer.

>>> rewrite("In this paper, we propose a novel ``FedMerge'' approach that can create a single model.", "FedMerge")
'FedMerge is an approach that can create a single model.'
>>> rewrite("We evaluate our method on CIFAR-10 with a $5\\\\times$ speed-up.", "FedMerge")
'The authors evaluate their method on CIFAR-10 with a 5× speed-up.'
>>> rewrite("Project Page: https://example.org/x.")
''
>>> rewrite("To the best of our knowledge, we are the first to train \\\\textbf{BERT} on it.")
"To the best of the authors' knowledge, the authors are the first to train BERT on it."

Compromises: subject-verb agreement is handled for "we" + verb only ("we propose" -> "the paper
proposes" would need agreement and the verifier supports it less often, so "we" becomes "the authors",
verb unchanged); other pronouns are mapped without parsing ("our" -> "their", "us" -> "the authors").
"Our method" keeps the authors' words ("their method"), not the paper's name: a sentence that names
what it did not name is not supported by it. The answer names the paper in front instead.
"""

from __future__ import annotations

import re
from typing import ClassVar

from ..markup import URL, clean_markup

# -- markup ---------------------------------------------------------------------------------------
_POINTER = re.compile(r"\b(available|released?|open[- ]sourced?|can be found|accessible|hosted|downloaded|"
                      r"project page|homepage|demo|github|website|repository)\b", re.IGNORECASE)


_AVAILABLE = re.compile(r"^(?:The |Our |All |Both )?(?:source |the )?(?:code|codes|implementation|data|datasets?|"
                        r"models?|weights|"
                        r"checkpoints|resources|benchmark|demo)(?: \w+){0,4} (?:is|are|will be|has been|have been) "
                        r"(?:made )?(?:publicly |freely |openly )?(?:available|released|accessible|open-sourced)"
                        r"(?:\s+(?:at|in|from|on|via|online|upon|to|under)\b[^.]{0,40})?\s*\.?\s*$", re.IGNORECASE)


def is_debris(sentence: str) -> bool:
    """A sentence that only points somewhere ("Project Page: URL", "Code is available at URL."): no claim.

    >>> is_debris("Code and models are available at https://github.com/x/y."), is_debris("We reach 90% on GLUE.")
    (True, False)
    """
    if _AVAILABLE.match(sentence) and len(sentence.split()) <= 16:  # "Our code is available in ." (link lost)
        return True
    if not URL.search(sentence) and not re.search(r"\b(?:github|huggingface)\.(?:com|co)\b", sentence, re.IGNORECASE):
        return False
    rest = URL.sub("", sentence)
    return len(re.findall(r"[A-Za-z]+", rest)) <= 6 or bool(_POINTER.search(rest))


# -- person ---------------------------------------------------------------------------------------
# Verbs a paper can be the subject of ("the paper proposes"); other verbs keep "the authors" ("the authors train").
PAPER_VERBS = frozenset(
    ["propose", "introduce", "present", "describe", "report", "release", "provide", "offer", "develop", "design",
     "formulate", "outline", "contribute", "show", "demonstrate", "argue", "suggest", "prove", "derive", "discuss",
     "establish", "highlight", "reveal"])
# Verbs coordinated with a paper verb ("the paper proposes X and evaluates it") take its agreement too.
_COORDINATED = PAPER_VERBS | frozenset(
    ["evaluate", "ask", "apply", "use", "train", "test", "compare", "analyze", "analyse", "explore", "investigate",
     "study", "examine", "validate", "verify", "achieve", "conduct", "perform", "find", "identify", "extend",
     "leverage", "build", "construct", "create", "collect", "assess", "measure", "observe", "obtain", "quantify",
     "benchmark"])
_IRREGULAR_PAST = {"found": "find", "showed": "show", "shown": "show", "built": "build", "made": "make",
                   "proved": "prove", "proven": "prove"}
_ADVERBS = ("also", "further", "then", "first", "additionally", "empirically", "experimentally", "systematically",
            "thus", "therefore", "here", "now", "finally", "next", "subsequently", "instead", "specifically",
            "theoretically", "formally", "carefully", "extensively", "comprehensively", "thoroughly", "both",
            "not only", "all", "therefore", "hence", "consequently", "moreover", "furthermore", "indeed", "newly")
_WE = re.compile(r"\b(?P<we>[Ww]e)\b(?P<adv>(?:\s+(?:" + "|".join(_ADVERBS) + r"))*)\s+(?P<verb>[a-z][a-z\-]*)")
_PREFIX = re.compile(r"^(?:In this (?:paper|work|study|article|letter|thesis|note|report)|Here|Herein|In this "
                     r"(?:paper|work) we|In the present (?:paper|work|study))\s*,?\s*(?=[Ww]e\b)")
METHOD_NOUNS = ("method", "approach", "framework", "model", "system", "algorithm", "technique", "architecture",
                "pipeline", "scheme", "strategy", "solution", "network", "design", "module", "method's",
                "approach's", "framework's", "model's", "tool", "agent", "benchmark", "dataset", "toolkit")
_OUR_METHOD = re.compile(r"\b[Oo]ur(?:\s+(?:proposed|new|novel|resulting|final|full|overall|own))?\s+("
                         + "|".join(METHOD_NOUNS) + r")\b")
_POSSESSIVE = re.compile(r"\b([Oo]ur)\s+(knowledge|view|opinion|hypothesis|intuition|understanding|belief|aim|goal|"
                         r"motivation|contribution|contributions|observation|observations|insight|insights)\b")


# "the paper proposes" reads well, but the claim verifier supports "the authors propose" far more often (0.98 vs
# 0.18 on "we propose an OpenRE framework ..."), and every rewrite must stay verifiable: "the authors" it is.
PAPER_SUBJECT = False
_AND_VERB = re.compile(r"(\b[Tt]he paper\b[^.;:]*?,?\s(?:and|or)\s+(?:(?:then|also|further|finally)\s+)?)([a-z]+)\b")


def third_singular(verb: str) -> str:
    """'propose' -> 'proposes', 'study' -> 'studies', 'address' -> 'addresses'; past forms unchanged.

    >>> [third_singular(v) for v in ["propose", "study", "address", "show", "proposed", "do", "fix"]]
    ['proposes', 'studies', 'addresses', 'shows', 'proposed', 'does', 'fixes']
    """
    if verb.endswith("ed") or verb in _IRREGULAR_PAST:
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def _base(verb: str) -> str:
    if verb in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[verb]
    for cut in (1, 2):  # "proposed" -> "propose", "reported" -> "report"
        if verb.endswith("ed") and verb[:-cut] in PAPER_VERBS:
            return verb[:-cut]
    if verb.endswith("ied") and verb[:-3] + "y" in PAPER_VERBS:
        return verb[:-3] + "y"
    return verb


def _we(m: re.Match) -> str:
    verb, adv = m.group("verb"), m.group("adv") or ""
    base = _base(verb)
    if PAPER_SUBJECT and base in PAPER_VERBS:
        return f"the paper{adv} {third_singular(verb) if base == verb else verb}"
    return f"the authors{adv} {verb}"


def third_person(s: str, name: str = "") -> str:
    """The authors' voice turned into the third person ("we" -> "the authors", "our" -> "their"/"the authors'").

    >>> third_person("We also show that our approach outperforms prior work, which lets us scale.", "X-Net")
    'The authors also show that their approach outperforms prior work, which lets the authors scale.'
    """
    s = _PREFIX.sub("", s)
    s = _POSSESSIVE.sub(lambda m: ("The" if m.group(1) == "Our" else "the") + " authors' " + m.group(2), s)
    s = _WE.sub(_we, s)
    s = _AND_VERB.sub(
        lambda m: m.group(1) + (third_singular(m.group(2)) if m.group(2) in _COORDINATED else m.group(2)), s)
    s = re.sub(r"\b[Ww]e\b", "the authors", s)  # "we" before something not a verb ("we, the authors")
    s = re.sub(r"\bOur\b", "The authors'", s)
    s = re.sub(r"\bour\b", lambda m: "their" if "the authors" in s[: m.start()].lower() else "the authors'", s)
    s = re.sub(r"\bourselves\b", "themselves", s)
    s = re.sub(r"\b[Uu]s\b(?!-)", "the authors", s)  # never the acronym "US" (case-sensitive on purpose)
    s = re.sub(r"\b(?:I|my|me)\b(?=\s+[a-z])",
               lambda m: {"I": "the author", "my": "the author's", "me": "the author"}[m.group(0)], s)
    return s[:1].upper() + s[1:] if s else s


# "the paper proposes a novel “FedMerge” approach that ..." -> "FedMerge is an approach that ..."
_IS_A = (r"(?:the (?:paper|authors)|this (?:paper|work|study))\s+(?:also\s+)?"
         r"(?:propose|introduce|present|develop|design)[sd]?\s+")


def name_subject(s: str, name: str) -> str:
    """"The paper proposes (a novel) NAME (noun) that/, a ..." -> "NAME is a(n) noun that ..." (first clause only)."""
    if not name:
        return s
    n = re.escape(name)
    m = re.match(_IS_A + r"(?:(?:a|an|the)\s+)?(?:(?:novel|new|simple|general|unified|lightweight|effective|efficient)"
                 r"(?:\s+and\s+\w+)?,?\s+)*[“\"']?" + n + r"[”\"']?(?:\s*\([^()]{1,60}\))?"
                 r"(?:,\s+(?P<appos>(?:a|an|the)\s+.+)|\s+(?P<noun>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?P<rel>that|which|to|for|designed|built|based)\b(?P<rest>.*))$",
                 s, re.IGNORECASE)
    if not m:
        return s
    if m.group("appos"):
        return f"{name} is {m.group('appos')}"
    noun = m.group("noun")
    art = "an" if noun[0] in "aeiou" else "a"
    return f"{name} is {art} {noun} {m.group('rel')}{m.group('rest')}"


def rewrite(sentence: str, name: str = "") -> str:
    """One abstract sentence as answer prose ('' for a sentence with no claim: a link to code or a page)."""
    if is_debris(sentence):
        return ""
    s = third_person(clean_markup(sentence, name), name)
    s = name_subject(s, name)
    s = s.rstrip()
    if s and s[-1] not in ".!?":
        s += "."
    return s[:1].upper() + s[1:]


FIRST_PERSON = re.compile(r"\b(?:we|our|ours|us|ourselves)\b", re.IGNORECASE)
DEBRIS = re.compile(r"``|''|\\[A-Za-z]+|\$(?=\S)[^$]{1,80}?(?<=\S)\$(?!\d)|[{}]|https?://|\bProject Page\b",
                    re.IGNORECASE)


def first_person_outside_quotes(text: str) -> list[str]:
    """The first-person words of `text` outside quotation marks and bold paper titles ("US" the country is not
    one).

    >>> first_person_outside_quotes('The paper says “we win” and our model too; US data.')
    ['our']
    >>> first_person_outside_quotes('1. **Should We Ever Prefer DT?** — DT is popular [1]')
    []
    """
    bare = re.sub(r"“[^”]*”|\"[^\"]*\"|\*\*[^*]+\*\*", "", text)
    return [m.group(0) for m in FIRST_PERSON.finditer(bare) if m.group(0) != "US"]


# -- verified rewriting ---------------------------------------------------------------------------
def _finish(s: str) -> str:
    s = s.rstrip()
    if s and s[-1] not in ".!?":
        s += "."
    return s[:1].upper() + s[1:]


# From the most rewritten form to the least: the first one the claim verifier supports is shown.
STAGES = (
    lambda s, name: rewrite(s, name),
    lambda s, name: _finish(third_person(clean_markup(s, name))),  # without "X is a ..."
    lambda s, name: _finish(third_person(clean_markup(s))),  # and without the name (it may be the wrong one)
)  # none verified: typeset, in the third person, unverified (Rewriter.prepare)


class Rewriter:
    """Rewrites sentences and keeps only what the claim verifier supports against the sentence it came from
    (`checker`: [(claim, [sentence])] -> verdicts with `.label`); a rewrite it does not support falls back to a
    milder one, and at last to the sentence as written, typeset (markup removed, no word changed: the one
    unverified form, ~1% of rewritten sentences). Without a checker, the rules alone (`rewrite`).

    >>> class Yes:
    ...     label = "supported"
    >>> Rewriter(lambda pairs: [Yes() for _ in pairs])("We propose X.", "")
    'The authors propose X.'
    >>> class No:
    ...     label = "not_supported"
    >>> Rewriter(lambda pairs: [No() for _ in pairs])("We propose Y with ``Z''.", "")
    'The authors propose Y with “Z”.'

    Verdicts are cached across rewriters (one verifier per process; a verdict never changes).
    """

    MAX_CACHE = 20000
    _cache: ClassVar[dict[tuple[str, str], str]] = {}  # shared by verified rewriters: a verdict never changes

    def __init__(self, checker=None) -> None:
        self.checker = checker

    def prepare(self, items) -> None:
        """Verify the rewrites of many (sentence, name) pairs in a few batched verifier calls."""
        if self.checker is None:
            return
        todo = [(s, n) for s, n in dict.fromkeys(items) if (s, n) not in self._cache]
        for stage in STAGES:
            cands = {}
            for s, n in todo:
                c = "" if is_debris(s) else stage(s, n)
                if not c or c.rstrip(".") == s.strip().rstrip("."):
                    self._cache[(s, n)] = c if not c else s  # nothing to verify: dropped, or unchanged
                else:
                    cands[(s, n)] = c
            if not cands:
                break
            try:
                verdicts = self.checker([(c, [s]) for (s, _), c in cands.items()])
            except Exception as e:
                from ..verify import VerifierUnavailableError

                if not isinstance(e, VerifierUnavailableError):
                    raise
                self.checker = None
                return self.prepare(todo)
            for key, c, v in zip(cands, cands.values(), verdicts):
                if v.label == "supported":
                    self._cache[key] = c
            todo = [k for k in cands if k not in self._cache]
        # no verified form: typeset, in the third person (the verifier reads "61.4×" against "$61.4\\times$", or "the
        # authors' results" against "our results", as a new claim, yet no word of the claim changed; neither TeX nor
        # the authors' "we" reaches the reader)
        for s, n in [k for k in todo if k not in self._cache]:
            self._cache[(s, n)] = _finish(third_person(clean_markup(s, n)))
        if len(self._cache) > self.MAX_CACHE:
            self._cache.clear()

    def __call__(self, sentence: str, name: str = "") -> str:
        key = (sentence, name)
        if self.checker is not None and key not in self._cache:
            self.prepare([key])
        if self.checker is None:
            return rewrite(sentence, name)
        return self._cache.get(key, sentence)
