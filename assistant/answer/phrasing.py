"""How questions are phrased: the patterns `question.py` reads a question's shape with.

Comparisons ("how does A differ from B", "A vs B: ..."), lists ("which papers ...", "papers on X?",
"anything on X?"), the subject position of a name ("How does X ...", "... the idea behind X?"), a lead that sets the
question up ("<description> - which corpus?"), a yes/no question. What a clause asks of a paper: asked_patterns.py.
Patterns only: the decisions are made in `question.py`.
"""

from __future__ import annotations

import re

# the words a question opens with, one list for every pattern ("What ...", "Does ...", "Could ...")
WH = "how|what|which|why|when|where|who|whose"
OPENER = rf"(?:{WH}|is|are|does|do|did|can|could|was|were)"

# where the last of a list of sides ends: the predicate that follows them ("... and the X paper all deal with ...")
SIDES_END = (r"(?:all|both|each|are|is|was|were|do|does|did|have|has|deal|deals|use|uses|target|targets|address|"
             r"addresses|tackle|tackles|propose|proposes|study|studies|share|differ|rely|relies|report|reports|"
             r"combine|combines|apply|applies|train|trains|evaluate|evaluates)")
# the kinds of research report a question calls a paper by: "the PK/PD study", "that cohort", "the second trial"
REPORT = (r"(?:study|trial|paper|review|analysis|series|experiment|cohort|report|survey|registry|work|article|"
          r"replication|audit|investigation|meta-analysis)")
# "Which trials were pooled in the X meta-analysis?", "What experiments does the X paper report?": the items of one
# paper, not papers of the corpus
IN_ONE_REPORT = re.compile(rf"\b(?:(?:in|of|from|by) the (?:[^\s,;:?]+\s+){{0,6}}?|(?:does|did|do) the "
                           rf"(?:[^\s,;:?]+\s+){{1,4}}?){REPORT}\b", re.I)
A_REPORT = re.compile(rf"\b{REPORT}\b", re.I)  # a side called a report: "the PK/PD study in MRSA pneumonia"
# "the two studies", "each paper", "both trials", "the paper that A vs the one that B": the question itself says its
# sides are separate reports
SEPARATE_REPORTS = re.compile(r"\b(?:studies|trials|papers|reviews|analyses|experiments|cohorts|reports|surveys|"
                              r"registries|works|articles|investigations|meta-analyses|abstracts)\b|"
                              rf"\b(?:each|both|either|neither|other)\s+(?:[^\s,;:?]+\s+){{0,2}}?{REPORT}\b|"
                              rf"\b{REPORT}\b.*\bthe (?:other )?one (?:that|which|where|who|from|about|using|on)\b",
                              re.I)

COMPARE_RX = [
    re.compile(r"^(?:how|in what ways?) (?:does|do|is|are) (?P<a>.+?) (?:differ|different) (?:from|to|than)"
               r" (?P<b>.+?)\??$", re.I),
    re.compile(r"^(?:how|in what ways?) (?:does|do) (?P<a>.+?) (?:and|vs\.?|versus) (?P<b>.+?) (?:differ|compare)\b.*$",
               re.I),
    re.compile(r"^how (?:does|do) (?P<a>.+?) compare (?:to|with|against) (?P<b>.+?)\??$", re.I),
    # "How does A relate to B? Is each one ...?": a relation asked, then something asked of each (alone, "How is sleep
    # duration related to obesity?" asks a finding of one study; nor a property of one paper: "How do Orca's FLOPs
    # relate to Lumen?")
    re.compile(r"^how (?:does|do|is|are) (?P<a>[^'’?]+?) (?:relate|related) (?:to|with) "
               r"(?!(?:its|their|his|her|this|that)\b)(?P<b>[^?]+?)\?\s+[^?]*\b(?:each|both|either|they|them|their)\b"
               r"[^?]*\??$", re.I),
    re.compile(r"^(?:what (?:is|are) )?the differences? between (?P<a>.+?) and (?P<b>.+?)\??$", re.I),
    re.compile(r"^compare (?:(?:how|what|whether|why|where|which)\s+)?(?P<a>.+?) (?:and|with|to|vs\.?|versus) "
               r"(?P<b>.+?)\??$", re.I),
    # "Both the A paper and the B paper use thermal imagery. What task does each tackle?"
    re.compile(rf"^both (?P<a>.+?) and (?P<b>.+?)\s+{SIDES_END}\b[^?]*?\b(?:each|both|they|their|respectively)\b"
               r"[^?]*\??$", re.I),
    re.compile(r"^what (?:separates|distinguishes|differentiates|sets) (?P<a>.+?) (?:apart )?from (?P<b>.+?)"
               r"(?:\s+(?:in|on|when|for|regarding|with respect to)\b.*)?\??$", re.I),
    re.compile(r"^(?:do|does|did|are|is|were) (?P<a>.+?) and (?P<b>.+?) (?:\w+\s+){1,2}?(?:(?:in )?the same way|alike|"
               r"similarly|the same)\b.*$", re.I),
    # "Which reports the higher accuracy, GC ViT or the super token attention transformer?", "Which X looked more
    # useful: A, or B?", "Which of the two studies, the A one or the B one, found ...?": a choice between two (not
    # "Which encoder does LGCL use, CLIP's or BERT?": a question about one paper, its options asked of it)
    re.compile(r"^(?:in [^,;:?]{3,80},\s*)?(?:which|who)\b(?![^,;:]*\b(?:does|do|did|has|have)\b)[^,;:]{3,120}[,:]\s*"
               r"(?P<a>[^,;:?]+?),?\s+or\s+(?:the\s+)?(?P<b>[^,;:?]+?)\s*(?:,[^?]*)?\??$", re.I),
    # "Two papers cluster tokens: one for ColBERT indexes and one called Token Pooling for ViTs. What does each save?"
    re.compile(r"^(?:there are )?(?:two|2) (?:papers|works|studies|methods|approaches|abstracts)\b[^:;.?]*[:;,]\s*"
               r"one (?P<a>[^.;?]+?),?\s+and (?:one|the other) (?P<b>[^.;?]+?)\s*[.?;].*$", re.I),
    # "Across A, B and C, what cost per QALY did each report?": the items before the question, each asked about
    re.compile(r"^(?:across|among|between|for|of|in) (?P<a>[^?]+?),?\s+and\s+(?P<b>[^,?]+?),\s*"
               r"(?:what|which|how|who|did|does|do|is|are|was|were)\b[^?]*\b(?:each|both|they|their)\b[^?]*\??$", re.I),
    # "Personalized FL: the paper that A vs the one where B. How does each decide ...?": a lead, the sides as a
    # statement, then a question asking of each of them
    re.compile(rf"^(?:[^:.?]{{3,80}}:\s+)?(?!(?:{OPENER}|in|on)\b)(?P<a>[^:.?]+?) (?:vs\.?|versus) (?P<b>[^:?]+?)\.\s+"
               rf"(?:{OPENER})\b[^?]*\b(?:each|both|they|their|them)\b[^?]*\??$", re.I),
    # "Three attack papers: A, the one on B and C. What does each target?": a lead naming the group, its members as a
    # statement, then a question asking of each of them
    re.compile(rf"^[^:.?]{{3,80}}:\s+(?!(?:{OPENER}|in|on)\b)(?P<a>[^:.?]+?),?\s+and\s+(?P<b>[^:?]+?)\.\s+"
               rf"(?:{OPENER})\b[^?]*\b(?:each|both|they|their|them)\b[^?]*\??$", re.I),
    # "Take A, and B. How does each ...?", "Consider A and B. Which of them ...?": the sides set out by an imperative,
    # then a question asking of each of them
    re.compile(rf"^(?:take|consider|look at)\s+(?P<a>[^.?]+(?=,\s+and\s)|[^.?]+?),?\s+and\s+(?P<b>[^?]+?)\.\s+"
               rf"(?:{OPENER})\b[^?]*\b(?:each|both|they|their|them)\b[^?]*\??$", re.I),
    # "A vs B: ...", not "How many prompts were collected in the study of global versus local harms?" (nor a "versus"
    # in a later sentence: "One study did A, another B. Do they find LLMs better versus humans?")
    re.compile(rf"^(?!(?:{OPENER}|in|on)\b)(?P<a>(?:[^:.?]|\.(?!\s+(?-i:[A-Z])))+?) "  # ("U.S. vs. U.K.")
               r"(?:vs\.?|versus) (?P<b>[^:]+?)(?::.*)?\??$", re.I),
]
_PAPERS = r"(?:papers|studies|works|abstracts|articles|methods|approaches)"
# "the two papers on on-policy distillation ...", "compare the two false-belief studies of open-weight LMs: ...", "X
# has two papers on Y. How do they differ?": two
# papers given by one description (a comparison of the two that fit it best)
TWO_PAPERS = re.compile(
    rf"\b(?:the|these|those|has|have|had) (?:two|2) (?:(?P<pre>[\w\-]+(?:\s+[\w\-]+){{0,4}}?)\s+)?{_PAPERS}\b"
    r"(?:\s+(?:on|about|of|for|into|studying|that study)\s+(?P<post>[^:;?,.]{3,80}?))?"
    r"(?=\s*(?:$|[:;?,.]|\s[-\u2013\u2014]\s)|\s+(?:each|both|do|does|did|differ|compare|use|have|and)\b)", re.I)
# "the urdu speech study and the phoneme recognition work: ...", "How do the X critique and the Y paper each ...?":
# two papers each given by a description
DESCRIBED_PAIR = re.compile(
    r"(?:^|\b(?:do|does|did|are|is|were|compare|contrast)\s+)"
    r"the (?P<a>[^,:;?]{3,80}?),?\s+and the (?P<b>[^,:;?]{3,80}?)"
    r"(?P<end>\s*(?:[:;?,]|\s[-\u2013\u2014]\s)|\s+(?:each|both|all|differ|compare|do|does|did|use|uses|rely|relies|"
    r"propose|proposes|handle|handles)\b)", re.I)
CUE = re.compile(
    r"\b(?:differ\w*|difference\w*|compar\w+|contrast\w*|versus|vs\.?|in common|on top of|add\w* (?:to|over)|than|"
    r"separates?|distinguish\w*|the same way|alike|"
    r"better|worse|faster|slower|similarit\w+|similar to|unlike|relative to|whereas|which of)\b",
    re.I,
)
WEAK_CUE = re.compile(r"\b(?:both|each|share|shared)\b", re.I)
LIST = re.compile(
    r"^(?:which|what) (?:papers|abstracts|works|studies|articles|methods|approaches|frameworks|models|experiments|"
    r"trials|cohorts)\b(?P<c>.*?)\??$"
    r"|^(?:list|find|show|name)(?: me)?(?: all)? (?:the )?(?:papers|abstracts|works|studies|methods)\b(?P<c2>.*?)\??$"
    # "are there papers ...", "is there any research on ...": a list; "is there work / a paper that ...": one paper
    r"|^(?:are there (?:any |some )?(?:papers?|abstracts?|works?|studies|study|research|articles?)"
    r"|is there (?:any |some )(?:papers?|abstracts?|works?|studies|study|research|articles?)"
    r"|is there (?:papers|abstracts|works|studies|articles))\b(?P<c3>.*?)\??$"
    # terse asks: "papers building on X?", "any paper on X?", "which ones are X papers?", "anything on X?"
    # "guinea pig studies in here?": a description, then the papers asked for, and where
    r"|^(?!(?:which|what|who|how|is|are|do|does|did|can)\b)(?:any |some )?(?P<c11>[^?,;:]{3,60}?)\s+(?:papers|studies|"
    r"works|abstracts|experiments|trials)\s+(?:in here|here|in (?:the|this|my|our) (?:corpus|collection|index|library|"
    r"set))\s*\??$"
    # "any spiking neural network papers?": the papers asked for, described by the words before them (and where, and
    # a gloss that restates them: "any X papers here, meaning ones that ...?"); "dataset distillation papers?"
    r"|^(?:any|some)\s+(?P<c13>[^?,;:]{3,60}?)\s+(?:papers|studies|works|abstracts|articles)(?:\s+(?:in\s+)?here)?"
    r"(?:\s*,\s*(?:meaning|i\.e\.|that is|namely)\b[^?]*)?\s*\??$"
    rf"|^(?!(?:{OPENER}|and|or|but|so|the|these|those|both|its|their|other|more|all|his|her|tell|give|show|list|"
    r"find|name|compare|contrast|summari[sz]e|explain|describe|please)\b)"  # a bare noun phrase, no request
    r"(?P<c14>(?:(?!(?:and|or|vs)\b)[\w\-]+\s+){0,4}[\w\-]+)(?<!\bthe)(?<!\bother)(?<!\bany)(?<!\bboth)(?<!\bthese)(?<!\bthose)(?<!\btwo)"
    r"\s+papers\s*\?$"
    # "papers on X?", "any work here on X?"
    r"|^(?:any |all |other )?(?:papers?|abstracts?|works?|studies|articles)\s+(?:(?:in )?here\s+)?(?=(?:on|about|that|"
    r"which|who|using|building|proposing|introducing|applying|with|where|for|in)\b)(?P<c4>.*?)\??$"
    r"|^(?:which|what) ones (?:are|were|is)\s+(?P<c5>.*?)(?:\s+(?:papers|works|studies|abstracts))?\??$"
    r"|^(?:is there |do you have )?anything (?:on|about|regarding|related to)\s+(?P<c6>.*?)\??$"
    r"|^what does the (?:corpus|collection|index) (?:say|have|contain|hold) (?:about|on)\s+(?P<c7>.*?)\??$"
    # "Which federated learning papers have ...": the words before "papers" are part of the criterion
    # ("What ablation studies does X run?", "Which method works best?" are not lists: papers/abstracts/articles only,
    # and not followed by an auxiliary)
    r"|^(?:which|what) (?!of\b|one\b|two\b)(?P<m8>(?:[\w\-]+ ){1,4}?)(?:papers|abstracts|articles)\b"
    r"(?!\s+(?:does|do|did|is|are|was|were|can)\b)(?P<c8>.*?)\??$"
    # "Which benchmarks in the collection evaluate X?": any plural asked across the corpus
    r"|^(?:which|what) (?!of\b|one\b|two\b)(?P<m9>(?:[\w\-]+ ){0,4}?[\w\-]+s) (?:in|from|across) (?:the |this |our )?"
    r"(?:collection|corpus|index|library|abstracts)\b(?P<c9>.*?)\??$"
    # "Which memory frameworks are evaluated on X?": a plural subject of a passive, no paper named (question.py checks)
    r"|^(?:which|what) (?!of\b|one\b|two\b|ones\b)(?P<m10>(?:[\w\-]+ ){0,4}?[\w\-]+s) (?:are|were|have been) "
    r"(?P<c10>\w+ed\b.*?)\??$"
    # "are there new benchmarks for evaluating X?": kinds of work asked across the corpus, the kind in the criterion
    r"|^are there (?:any |some )?(?:new |recent |other )?(?P<m12>(?:benchmarks|datasets|corpora|methods|models|"
    r"approaches|frameworks|techniques|algorithms|tools|systems|surveys|architectures)) "
    r"(?P<c12>(?:for|on|about|of|that|which|using|to|in|with)\b.*?)\??$",
    re.I,
)
AUX = r"(?:does|do|did|is|are|was|were|has|have|had|can|could|would|should|will)"
POLITE = r"(?:(?:can|could|would|will)\s+you\s+)"  # a request put as a question: "Can you explain ...?"
TOPIC_AT = [
    re.compile(rf"\b{AUX}\s+(?:the\s+|an?\s+)?(?P<t>[^\s,?]+(?:\s+[^\s,?]+){{0,2}})", re.I),
    re.compile(r"\baccording to (?:the\s+)?(?P<t>[^\s,?]+)", re.I),
    re.compile(r"\bin the (?P<t>(?:\S+\s+){0,3}?\S+?) (?:paper|abstract|work)\b", re.I),
    re.compile(rf"^(?!(?:{OPENER}|in|on)\b)(?P<t>\S+?)(?:'s|’s)?\s+{AUX}\b", re.I),
    re.compile(r"\((?P<t>[A-Z][\w\-^&]+)\)"),  # "super token attention (STA)"
    re.compile(rf"^{POLITE}?(?:please\s+|\w+ly\s+)?"  # ("Can you explain ...?": a request)
               r"(?:explain|describe|summari[sz]e|tell me about|what about|give me an overview of)\s+"
               r"(?:the\s+)?(?P<t>[^\s,?]+(?:\s+[^\s,?]+){0,2})", re.I),
    # "... the idea behind X?", "the key idea of Swin Transformer?": a name of up to three words ends the question
    re.compile(r"\b(?:of|behind|in|by|for|about)\s+(?:the\s+)?"
               r"(?P<t>[^\s,?]+(?:\s+(?-i:[A-Z0-9])[^\s,?]*){0,2})\s*[?.!]*\s*$", re.I),
]


LEAD = re.compile(  # "<what it is about> - <what is asked>?": terse questions put the description first
    rf"^(?!{OPENER}\b)"  # the lead describes
    r"(?P<lead>.{12,}?)(?:\s+[-\u2013\u2014]+\s+|:\s+)(?:(?:and|so|then|but)\s+)?"
    rf"(?P<ask>(?:{OPENER}\b|#).*)$",
    re.I,
)
# "In the X paper, which model did best?", "For HCC, what particle size ...?": a fronted phrase that sets the
# question up, as a lead does (the asked part follows the comma)
FRONTED = re.compile(
    r"^(?P<lead>(?:in|for|on|from|with|among|across|at|by|within|regarding|according to|after|during|under|using)\s"
    rf"[^?,;:]{{2,100}}?),\s+(?P<ask>(?:{OPENER})\b.*)$",
    re.I,
)

# where a question describes the paper it means, in the asker's words: a clause on a paper noun ("the study that ran
# OpenAI's recognizers on Urdu, which ...", "I remember a paper where ...")
DESCRIBED = re.compile(r"\b(?:paper|study|work|method|approach|framework|model|system|analysis|tool|app|one)s?\s+"
                       r"(?:that|which|where|whose|who)\b(?:(?!,\s*(?:which|what|how|who|do|does|did|is|are|was|"
                       r"were|can)\b)[^.?;:])*", re.I)


def lead_match(question: str) -> re.Match[str] | None:
    """The lead that sets a question up and the part that asks ("... - which corpus?", "In X, how many ...?").

    >>> lead_match("In ContractEval, which open-source LLM scored highest?").group("ask")
    'which open-source LLM scored highest?'
    >>> lead_match("Meta-learning for few-shot NER - which datasets?").group("lead")
    'Meta-learning for few-shot NER'
    >>> lead_match("Which datasets, in short, does X use?") is None
    True
    """
    return LEAD.match(question) or FRONTED.match(question)
DESCRIBED_PAPER = re.compile(  # the question describes the paper it means: "In the work that re-annotates ..."
    r"\b(?:in|from|by|of|for)\s+the\s+(?:[\w\-]+\s+){0,3}?(?:work|paper|study|method|approach|framework|model)\s+"
    r"(?:that|which|where|whose|on|about|proposing|introducing)\b|^there (?:is|was|'s) (?:a|an|one)\b"
    # "in the 5- vs 11-needle study of ...", "... in the randomized nurse-led trial?": lower-case modifiers
    r"|\b(?:in|from|by|of|for)\s+the\s+(?-i:(?:[a-z0-9][\w\-]*\s+){1,4})(?:study|trial|paper|work)\b"
    r"(?:\s+(?:of|in|with|among)\b|\s*[?.,]|\s*$)"
    r"|\bI (?:remember|recall)\b",
    re.I,
)
# the paper of a name is asked for: "according to the X paper", "summarize the X paper", "the Dynamic Tanh (DyT)
# paper", "the GCG attack paper", "according to its paper" (a name in capitals or coined: `NAMED`, checked by the
# caller)
OWN_PAPER = re.compile(r"\b(?:its|their) own paper\b|\baccording to (?:its|their) paper\b|"
                       r"\bthe (?:[\w\-]+\s+){0,4}\((?P<n>[^\s,?()]+)\)\s+(?:[a-z]+\s+)?paper\b|"
                       r"\bthe (?P<m>[^\s,?]+)\s+(?:[a-z]+\s+)?paper\b", re.I)
# the paper that introduced a name is asked for: "Summarize the original X paper", "X's original study"
ORIGINAL = re.compile(r"\boriginal\s+(?:[^\s,?]+\s+){0,5}?(?:paper|study|article|publication|report|trial)\b|"
                      r"\b(?:paper|study|article|work) that (?:first )?(?:introduced|proposed|coined)\b", re.I)
# "Is/Does/Did/Can ...?": a yes/no question, whether a finding holds (not a polite request: "Can you explain ...?")
YES_NO = re.compile(rf"^(?!{POLITE}(?:please\s+|\w+ly\s+)?(?:explain|describe|summari[sz]e|tell(?!\s+(?:me|us)\s+"
                    r"(?:whether|if)\b)|give|list|show|outline|compare)\b)"  # ("Can you tell me whether X?": yes/no)
                    r"(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|may|might)\b", re.I)
