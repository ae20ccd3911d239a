"""How a question phrases what it asks of a paper: the asked noun phrase ("which datasets did ...", "the names of
the ...", "how many annotators ..."), where it ends (`NOT_NOUN`), a second thing asked in one turn (`CLAUSE`),
whether a value is asked (`NUMERIC`, `MEASURED`) and of what kind (`MEASURE_ASKED`). Patterns only: `asked.py` reads
a clause with them; the shape of the whole question (comparison, list, lead) is phrasing.py's.
"""

from __future__ import annotations

import re

from .figures import CARDINAL
from .phrasing import AUX, OPENER

# verbs whose past tense is not "-ed": where an asked noun phrase ends ("which code LLM got the highest score")
IRREGULAR_PAST = "gave|took|made|got|found|won|chose|led|kept|held|brought|built|came|became|saw|drew|grew|lost|wrote"
PREP = r"(?:under|in|on|at|for|with|by|from|to|over|across|against)"
COUNTED = rf"(?:{CARDINAL}|\d+)\s+(?:[\w\-]+\s+)?[a-z][\w\-]*s\b"  # "12 languages", "three routing benchmarks"
ASKED = re.compile(
    rf"^(?:which|what) (?:values?|settings?) of (?:the )?(?P<v>(?:[\w\-^]+\s+){{0,3}}?[\w\-^]+)\s+(?:{AUX}|works?|"
    rf"gives?|performs?)\b|"
    rf"^(?:{PREP}\s+)?(?:what|which)\s+(?P<a>(?:[\w\-^@.]+\s+){{0,5}}?[\w\-^@.]+)\s+{AUX}\b"
    rf"|^what\s+(?:is|are|was|were)\s+(?:the\s+)?(?:\S+?(?:'s|’s)\s+)(?P<b>[\w\-\s]+?)(?:\s+(?:on|in|for|of|with|at)\b.*)?\??$"
    # "Which LLM serves"
    rf"|^(?:{PREP}\s+)?which\s+(?P<e>[\w\-^@.]+(?:\s+[\w\-^@.]+){{0,2}}?)\s+(?!{AUX}\b)(?:[a-z]+(?:s|ed)|{IRREGULAR_PAST})\b"
    rf"|^(?:{PREP}\s+)?how\s+(?:many|much)\s+(?P<c>(?:[\w\-^]+(?:'|’)?\s+){{0,3}}?[\w\-^]+)\s+{AUX}\b"
    # "how many annotators labelled X", "how many medical students annotated ...", "how many GPUs" ending its clause
    # ("How many GPUs and how much time ...?"): the counted noun is plural
    rf"|^(?:{PREP}\s+)?how\s+many\s+(?P<n>(?:[\w\-]+\s+){{0,2}}?(?:[\w\-]+(?-i:[^su\W])s|people|children|data))"
    r"(?:\s+[a-z]|\s*\??$)"
    rf"|^(?:what|which)\s+(?:is|are|was|were)\s+the\s+(?P<h>{COUNTED})"
    rf"|^(?:(?:what (?:is|are|was|were) |give me |list |tell me )?the\s+)?names?\s+of\s+(?:the\s+)?"
    rf"(?P<f>(?:[\w\-^@.]+\s+){{0,5}}?[\w\-^@.]+)"
    rf"(?=\s+(?:that|which|used|in|of|by|does|did|do|is|are)\b|\s+\S+\s+(?:uses?|introduces?|proposes?|evaluates?)\b|\s*\??$)"
    # "how big is the dataset they collected?": the size of that noun phrase is asked (not of one referred back to:
    # "how big is that variant?", "how large is it?")
    rf"|^(?:{PREP}\s+)?how\s+(?:big|large|small)\s+(?:is|are|was|were)\s+(?:the\s+)?"
    rf"(?!(?:that|this|these|those|its|their|each|it|they|he|she)\b)(?P<g>(?:(?!{AUX}\b)[\w\-^@.]+\s+){{0,3}}?(?!{AUX}\b)[\w\-^@.]+?)(?=\s+(?:the|that|which|they|it|its|their|"
    rf"he|she|we|of|in|for|on|at|used|built|collected|created|released|introduced|proposed|trained)\b|\s+\S+\s+{AUX}\b"
    r"|\s*\??$)"  # (a relative clause without "that": "the corpus X was trained on")
    # "What was the rebleeding rate after X?", "what is the FID of DiffMoE?": the noun phrase before its complement
    rf"|^(?:{PREP}\s+)?what\s+(?:is|are|was|were)\s+the\s+(?!names?\b)(?P<w>(?:[\w\-^@.]+\s+){{0,3}}?[\w\-^@.]+?)"
    r"(?=\s+(?:of|in|for|on|at|after|before|with|among|between|from|to|by|during|under|across|per|when|that|which|"
    r"who|reported|achieved|used|obtained|found|observed)\b|\s*\??$)",
    re.I,
)
CLAUSE = re.compile(  # "Which X ..., and over how many Y?", "what data is X trained on? how many scans?": a second
    rf",?\s+and\s+(?=(?:{PREP}\s+)?{OPENER}\b|#)|;\s*|\?\s+(?=(?:and\s+)?(?:{PREP}\s+)?{OPENER}\b)",  # thing asked
    re.I,
)
ASKED_TAIL = re.compile(  # a clause ending on what it asks: "over how many evaluation suites", "with which network"
    rf"^(?:{PREP}\s+)?(?:what|which|how many|how much|#)\s*(?:(?:is|are|was|were)\s+(?:(?:the|their|its)\s+)?)?"
    rf"(?P<d>(?:[\w\-^@.]+\s+){{0,4}}?[\w\-^@.]+)$", re.I)  # "..., and what was their agreement"
# a terse question that is only a noun phrase, typed in lower case: "mean age of the patients in the X study?" (a
# capitalised one reads as a paper's title: "Storage of vaccines in the community: weak link in the cold chain?")
ASKED_NP = re.compile(
    rf"^(?!(?i:{OPENER}|and|or|so|then|but|also|the|an?|tell|give|list|show|name|compare|contrast)\b)"
    r"(?P<n>[a-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,2})\s+(?:of|between)\s+(?=\S)"
    r"(?!.*\b(?:is|are|was|were|does|do|did)\b)")
NUMERIC = re.compile(
    r"\bhow (?:much|many|fast|large|small|big|long|often|far|well|strongly)\b|"
    r"\bwhat (?:fraction|percentage|percent|share|proportion|ratio|number|amount|speed-?up|gain|improvement)\b|"
    r"\bby how\b|\bby what (?:margin|factor|amount)\b|"
    r"\bhow (?:much|many)\b|(?:^|\s)#\s?[a-z]|\b(?:which|what) (?:values?|settings?) of\b"
    r"|^(?:which|who)\b.{0,40}?\b(?:higher|lower|highest|lowest|larger|smaller|better|best|worse|faster|slower|fewer)\s+"
    r"(?:[\w\-]+\s+){0,3}?(?:accuracy|score|error|rate|fid|bleu|f1|perplexity|latency|throughput|auc|map|miou|psnr|speed|"
    r"size|cost|memory|parameters|return)\b",
    re.I,
)

MEASURED = re.compile(  # "what X does Y achieve", "mean age of ...": a value is asked for
    r"\b(?:mean|median|average)\s+(?!(?:that|to|it|the|an?|for|in|of|by|when|we|they|this)\b)[a-z]|"
    r"\b(?:achieve|achieves|achieved|reach|reaches|reached|obtain|obtains|obtained|attain|attains|score|scores|get|gets|"
    r"yield|yields)\b|^what (?:is|are|was|were) .{0,40}\b(?:accuracy|error|rate|score|fid|bleu|f1|perplexity|latency|"
    r"throughput|auc|map|miou|psnr|speed|size)\b",
    re.I,
)
NOT_NOUN = re.compile(  # where an asked noun phrase ends: "which method says a plain ViT can ..." asks for a method
    r"\s+(?:a|an|the|that|this|these|those|which|who|whose|to|it|they|says|uses|gives|shows|makes|lets|allows|enables|"
    r"combines|replaces|adds|keeps|takes|claims|argues|finds|predicts|generates|relies|learns|proposes|"
    r"introduces|achieves|reaches|improves|reduces|outperforms|beats|requires|treats|turns|"
    rf"swaps|avoids|picks|selects|decides|computes|{IRREGULAR_PAST})\b.*$",
    # (not "models", "maps", "works": nouns as often; irregular past tenses: "which optimizer gave the best ...")
    re.I,
)

# the kind of value a clause asks for, when the question names it: the abstract must then state a value of that
# kind ("how long ...?" wants a time or length, "in millijoules" an energy), not just any number
MEASURE_ASKED = {
    # "how long", "over what period": a time span ("from days to hours", "a 15-year study" answer it)
    "duration": re.compile(r"^(?:(?:and|so|but)\s+)?(?:for\s+)?how long\b|^(?:(?:and|so|but)\s+)?(?:over|during|for|in)"
                           r"\s+what\s+(?:(?:time\s+)?period|time\s*(?:span|frame)|timeframe|span of time)\b", re.I),
    "time": re.compile(r"\bin (?:milli)?seconds\b|\bin (?:minutes|hours|days)\b"
                       r"|\bhow many (?:GPU[- ])?(?:hours|days|minutes|seconds)\b", re.I),
    "energy": re.compile(r"\b(?:milli|kilo)?joules?\b|\bm?J per\b|\bkWh\b|\bwatts?\b|\bhow much (?:energy|power)\b",
                         re.I),
    "memory": re.compile(r"\b(?:giga|mega|tera)bytes\b|\bin (?:GB|MB|GiB|MiB)\b|\bhow much (?:GPU )?memory\b", re.I),
    # "what are the 12 languages ...?", "list the three tasks": the count is known, the items themselves are asked
    "names": re.compile(rf"^(?:(?:what|which)\s+(?:is|are|was|were)\s+|(?:list|name|give me)\s+)the\s+{COUNTED}"
                        rf"|^(?:what|which)\s+{COUNTED}(?!\s+of\b)", re.I),  # "which nine acupoints were needled?"
    # "which optimizer gave the best accuracy?", "which model did best": the abstract must say one was best
    # (not "what is the best accuracy?" nor "which value of X works best?": a value)
    "winner": re.compile(r"\bwhich\b(?!\s+(?:values?|settings?|numbers?|amounts?|levels?)\s+of\b)[^?.;]*?"
                         r"\b(?:best|highest|top|won|wins|strongest|most accurate)\b", re.I),
    "count": re.compile(r"\bhow many\b", re.I),  # a figure counting the thing asked ("115 abstracts": no annotators)
    # "how big is the dataset they collected?": a figure where the abstract speaks of it (any, when it never does)
    "size": re.compile(r"^(?:(?:and|so|but)\s+)?how\s+(?:big|large|small)\s+(?:is|are|was|were)\b", re.I),
}
