"""The role each abstract sentence plays: problem, method, data or result (the comparison table's columns).

Scope: pure functions over one abstract. Each role has cue patterns of general scientific English (no
paper, dataset or question named), each with an example it must match (`CUES`, tested in
tests/test_roles.py), and a position prior (abstracts open with the problem and close with results).
`role_scores` scores every sentence for every role; `assign` fills the columns with distinct sentences
maximising the total score, leaving a column empty ("not stated") only when no sentence plays it.

>>> s = ["Federated learning suffers from client drift on non-IID data.",
...      "We propose FedX, a method that corrects drift with control variates.",
...      "Experiments on CIFAR-10 and FEMNIST with 100 clients are reported.",
...      "FedX improves accuracy by 4.2% over FedAvg."]
>>> assign(s)
{'Problem': 0, 'Method': 1, 'Data': 2, 'Result': 3}
"""

from __future__ import annotations

import itertools
import re

ROLES = ("Problem", "Method", "Data", "Result")

# (pattern, weight, example it must match)
CUES: dict[str, list[tuple[str, float, str]]] = {
    "Problem": [
        (r"\b(?:challeng\w*|problems?|bottlenecks?|limitations?|drawbacks?|shortcomings?)\b",
         1.0, "A key challenge is drift."),
        (r"\b(?:suffers?|fails?|lacks?|struggles?|hinders?|remains? (?:unclear|challenging|difficult|an open)|"
         r"(?:is|are)\s+(?:often\s+|usually\s+|still\s+|severely\s+)?(?:limited|restricted|hampered|constrained))\b",
         1.2, "Their performance is often limited by cost."),
        (r"\b(?:however|despite|although|yet)\b", 0.8, "However, these models are costly."),
        (r"\b(?:costly|expensive|difficult|inefficient|unreliable|vulnerable|prone to|little is known|"
         r"under-?explored)\b", 0.8, "Training is expensive."),
        (r"^(?:To (?:assess|determine|evaluate|investigate|examine|compare|identify|describe|explore)|"
         r"The (?:aim|objective|purpose|goal) of)\b", 1.5, "To assess the quality of storage."),
        (r"\b(?:whether|is (?:crucial|important|essential)|has (?:gained|attracted|become)|widely used|increasingly)\b",
         0.6, "It has attracted attention."),
        (r"\b(?:hypothes[ie]s|we (?:aim|sought|set out) to|this study (?:aims|aimed|sought)|was undertaken to)\b",
         1.0, "The hypothesis was tested that X helps."),
        (r"\b(?:existing|prior|previous|current|conventional|traditional) (?:\w+ )?(?:methods|approaches|works|models|"
         r"techniques|studies)\b", 0.7, "Existing approaches ignore it."),
    ],
    "Method": [
        (r"\b(?:we|this (?:paper|work)|the authors) (?:\w+ )?(?:propose|introduce|present|develop|design|devise|"
         r"formulate)[sd]?\b", 2.0, "We propose a new module."),
        (r"\b(?:propose[sd]?|introduce[sd]?|framework|architecture|module|mechanism|algorithm|pipeline|strategy|"
         r"paradigm)\b", 0.8, "The framework has two parts."),
        (r"\b(?:consists? of|composed of|comprises?|is based on|builds? (?:on|upon)|leverag\w+|employ\w*|adopt\w*|"
         r"incorporat\w+|utiliz\w+|combin\w+)\b", 0.9, "It consists of an encoder."),
        (r"\b(?:by (?:\w+ing)|via|through (?:a|an|the))\b", 0.5, "It aligns features by matching moments."),
        (r"\b(?:key idea|specifically|in particular|first,|then,|to this end|our (?:method|approach|model))\b",
         0.8, "Specifically, we align features."),
        (r"\b(?:(?:was|were) (?:performed|conducted|randomi[sz]ed|measured|assessed|recorded|analy[sz]ed|administered|"
         r"used|carried|tested|examined|compared|determined|estimated|calculated|obtained|treated|exposed)|"
         r"retrospective|prospective|questionnaire|cross-sectional|randomi[sz]ed|cohort study|case-control|"
         r"regression)\b", 1.0, "Patients were randomized to two arms."),
        (r"\b(?:in this (?:paper|work|study),? we|we (?:use|train|apply|adapt|model|formulate|frame|cast|extend|"
         r"fine-tune)|our (?:method|approach|model|framework|system))\b", 0.9, "In this paper, we adapt a parser."),
    ],
    "Data": [
        (r"\b(?:datasets?|benchmarks?|corpus|corpora|collections?|testbeds?|suites?)\b", 1.5, "We use three datasets."),
        (r"\b(?:evaluated on|experiments? on|trained on|tested on|experiments across|evaluations? on|collected|"
         r"annotated|gathered|curated)\b", 1.2, "Experiments on two corpora."),
        (r"\b(?:participants?|patients?|subjects?|volunteers?|cohort|respondents?|children|women|men|cases|controls|"
         r"samples?|images|videos|recordings|utterances|documents|languages|articles|hospitals?|practices|clinics|mice|"
         r"rats|cells|strains|tissues?|specimens|leaves|plants|lines|records|registry|database)\b",
         0.8, "We enrolled 45 patients."),
        (r"\b\d[\d,.]*\s+(?:\w+\s+)?(?:tasks?|datasets?|benchmarks?|languages?|participants|patients|subjects|images|"
         r"samples|clients|users|hours|domains|models|queries|questions|documents|sentences|pairs|examples)\b",
         1.2, "It covers 9 QA tasks."),
        (r"\b(?:[A-Z][A-Za-z]*-?\d+[A-Za-z0-9\-]*|[A-Z]{2,}[a-z]*-?[A-Z0-9]+\w*)\b",
         0.4, "Results on CIFAR-10 are given."),
        (r"^(?:Settings?|Participants|Subjects|Patients|Data|Materials)\s*:", 1.5, "Participants: 40 adults."),
    ],
    "Result": [
        (r"\b(?:outperform\w*|surpass\w*|beats?|exceed\w*|state-of-the-art|sota|best)\b",
         1.5, "It outperforms all baselines."),
        (r"\b(?:improv\w+|achiev\w+|reduc\w+|increas\w+|gains?|boost\w*|speed-?ups?|faster|higher|lower|better|fewer)\b",
         0.8, "It improves accuracy."),
        (r"\b(?:results? (?:show|demonstrate|indicate|suggest|reveal)|experiments? (?:show|demonstrate|indicate|"
         r"reveal)|we (?:show|find|found|observe|demonstrate)|(?:show|shows|showed|demonstrate[sd]?|reveal(?:s|ed)?|"
         r"indicate[sd]?|found) that)\b", 1.3, "Results show that it helps."),
        (r"\d+(?:\.\d+)?\s?(?:%|×|x\b|-fold|points?\b|pp\b)|\bp\s?[<=]\s?0?\.\d+|\bodds ratio\b|\bCI\b",
         1.3, "It gains 4.2% accuracy."),
        (r"\b(?:significant(?:ly)?|conclu\w+|effective(?:ly|ness)?|consistently|robust(?:ly|ness)?|competitive|"
         r"comparable)\b", 0.7, "The method is effective."),
        (r"^(?:Results?|Conclusions?|Findings)\s*:", 1.5, "Results: mortality fell."),
        (r"\bfrom \d[\d.,]*\s?%? to \d|\bby (?:up to |over |more than |nearly |about )?\d[\d.,]*\s?%",
         1.0, "Accuracy rose from 39.0% to 68.8%."),
        (r"\b(?:associated with|correlated with|resulted in|led to|brought about|caused|promoted|reversed|"
         r"was (?:higher|lower|greater|smaller)|were (?:higher|lower|greater|smaller)|more pronounced|"
         r"no (?:significant )?difference)\b", 0.8, "The change was associated with higher stiffness."),
        (r"\b(?:demonstrat\w+ (?:its|the|their) (?:effectiveness|superiority|potential|generality)|extends? beyond|"
         r"generali[sz]es? (?:well )?to)\b", 1.0, "It extends beyond images, demonstrating its potential."),
    ],
}
_COMPILED = {role: [(re.compile(p, re.IGNORECASE if role != "Data" or "A-Z" not in p else 0), w) for p, w, _ in cues]
             for role, cues in CUES.items()}
FLOOR = 0.9  # a sentence plays a role when its score reaches this
PRIMARY = 0.8  # preference for giving a sentence the column of its strongest role


def role_scores(sentences: list[str], name: str = "") -> list[dict[str, float]]:
    """Score of every role for every sentence: cue weights plus a position prior; a sentence whose subject
    is the paper's own `name` ("FedMerge merges ...") describes the method unless it reports a result."""
    n = len(sentences)
    out = []
    own = re.compile(r"^(?:The |In )?" + re.escape(name)
                     + r"\b(?!\s+(?:achieves|outperforms|improves|reduces|surpasses))") if name else None
    for i, s in enumerate(sentences):
        sc = {role: sum(w for rx, w in _COMPILED[role] if rx.search(s)) for role in ROLES}
        if own is not None and own.search(s):
            sc["Method"] += 1.2
        at = i / max(n - 1, 1)  # 0 at the first sentence, 1 at the last
        sc["Problem"] += (0.9, 0.5, 0.2)[i] if i < 3 else (-0.6 if at > 0.6 else 0.0)
        if n > 2:
            sc["Result"] += 0.6 if i == n - 1 else 0.3 if i == n - 2 else (-0.6 if at < 0.34 else 0.0)
        if n > 3 and 0 < i < n - 1:
            sc["Method"] += 0.2
        out.append(sc)
    return out


def role_of(sentence: str, index: int = 1, total: int = 3) -> str:
    """The role one sentence plays most ('' when none reaches the floor).

    >>> role_of("Extensive experiments show that the method outperforms strong baselines by 3.1%.", 3, 5)
    'Result'
    """
    padded = [""] * total
    padded[index] = sentence
    sc = role_scores(padded)[index]
    best = max(ROLES, key=lambda r: sc[r])
    return best if sc[best] >= FLOOR else ""


_MENTION = re.compile(
    r"\b\d[\d,.]*\s+(?:[\w\-]+\s+)?(?:tasks?|datasets?|benchmarks?|languages?|participants|patients|subjects|images|"
    r"samples|clients|users|domains|models|queries|questions|documents|pairs|examples)\b"
    r"|\b(?:on|across|using|with)\s+((?:(?:the|popular|several|standard|public|large-scale|real-world|diverse|various|"
    r"different|multiple|two|three|four|five|six|[A-Z][\w\-.]*)[\s,]+){0,6}?(?:datasets?|benchmarks?|corpora|corpus|"
    r"tasks|settings|domains))\b"
    r"|\b[A-Z][A-Za-z]*[\-.]?\d+(?:\.\d+)?[A-Za-z0-9\-.]*[A-Za-z0-9]\b|\b[A-Z][a-zA-Z]*[A-Z][\w\-]*\s+(?:benchmark|"
    r"dataset|corpus)\b")


def data_mentions(sentence: str) -> list[str]:
    """The data a sentence names in passing ("when 5 layers of LLaMA-3-8B are pruned ... on 9 QA tasks").

    >>> data_mentions("When LLaMA-3-8B is pruned, accuracy on 9 QA tasks stays at 90.57%.")
    ['LLaMA-3-8B', '9 QA tasks']
    """
    out: list[str] = []
    for m in _MENTION.finditer(sentence):
        t = (m.group(1) or m.group(0)).strip(" ,")
        if not re.search(r"[A-Za-z]", t) or re.fullmatch(r"[\d.,]+%?", t) or any(t in o for o in out):
            continue
        out.append(t)
    return out[:4]


def assign(sentences: list[str], skip: frozenset[int] = frozenset(), name: str = "") -> dict[str, int | None]:
    """Column -> sentence index (None: no sentence plays it), distinct sentences, maximal total score; a
    sentence goes to a column where it is not clearly another role's (its score there within 1.5 of its best)."""
    scores = role_scores(sentences, name)
    cands = {}
    for role in ROLES:
        ok = [i for i in range(len(sentences)) if i not in skip and ((scores[i][role] >= FLOOR
              and scores[i][role] >= max(scores[i].values()) - 0.8)  # not clearly another role's sentence
              or (scores[i][role] >= FLOOR / 2 and scores[i][role] == max(scores[i].values())))  # weak, but its best
              and not (role == "Data" and scores[i]["Result"] > scores[i]["Data"])]  # a result naming its data
        cands[role] = [*sorted(ok, key=lambda i: -scores[i][role])[:5], None]
    best, best_total = dict.fromkeys(ROLES), -1.0
    for combo in itertools.product(*(cands[r] for r in ROLES)):
        used = [i for i in combo if i is not None]
        if len(used) != len(set(used)):
            continue
        total = sum(scores[i][r] + 0.5 + (PRIMARY if scores[i][r] == max(scores[i].values()) else 0.0)
                    for r, i in zip(ROLES, combo) if i is not None)
        if total > best_total:
            best, best_total = dict(zip(ROLES, combo)), total
    return best
