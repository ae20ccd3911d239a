"""The decision rules' ids, each with what it decides: the catalogue `decide.py` checks every trace step against,
the UI shows under an abstention, and docs/decisions.md lists with where each is measured and tested.
"""

from __future__ import annotations

from types import MappingProxyType

# id -> what the rule decides (the catalogue; docs/decisions.md says where each is measured and tested)
RULES = MappingProxyType({
    "metadata.not_a_paper": "a paper's authors, year or venue asked of a name no indexed abstract is about (a "
                            "baseline, a dataset): no record holds them",
    "metadata.from_record": "a question for a paper's authors, year or venue, or 'the most recent paper on X', is "
                            "answered from the records' fields (when it names its paper, nothing else declined it, "
                            "or a 'most recent' question no named miss declined with a paper using every topic word)",
    "filter.applied": "filters stated in the question restricted retrieval (reported)",
    "filter.none_pass": "the filters leave no paper (a year outside the corpus, contradictory years, no such "
                        "author/venue): say which filter, not that the topic is missing",
    "name.linked": "names in the question linked to the papers they name (the question's topic)",
    "name.unconfirmed": "a name linked to a paper retrieval did not find for the question is not the question's topic",
    "name.by_retrieval": "a term several abstracts use and none coins ('GDM'), or a name several papers coin, means "
                         "the paper retrieval ranks first for the whole question, not the first paper that defines it",
    "name.only_discussed": "the question asks for a named method's own paper ('the X paper proposes') and no abstract "
                           "is about the name (it heads no label, no abstract coins or defines it)",
    "name.not_introduced": "the question asks for the paper that introduced a name ('the original X paper') and the "
                           "linked paper uses the name without coining it or heading its title with it",
    "near_miss.passing": "the question's subject is a name the corpus only mentions in passing",
    "near_miss.missing": "the question's subject is a name no abstract mentions",
    "near_miss.yes_no": "a yes/no question ('Is the Hawkins sign able to predict ...?') asks whether a finding "
                        "holds: a name no paper is about is its context, not a paper asked for (no near-miss)",
    "topic.absent": "'is there a paper on X?' where a word of X is used by no abstract and no chunk is close, or a "
                    "compound of X ('text-to-music') no abstract writes",
    "topic.uncovered": "'the paper on X', 'which paper does X?': the paper answered lacks a word that carries part of "
                       "X (in any form, and its best sentence does not say it in other words), as a listed paper "
                       "must not",
    "detail.missing": "the main thing asked is not in the topic paper's abstract",
    "detail.partial": "a further part asked is not in the abstract: answer the rest and say which",
    "name.uncovered": "some named terms of the question are in no retrieved abstract: answer, naming them",
    "evidence.off_topic": "no chunk is close in meaning to the question (dense floor)",
    "evidence.weak": "the best evidence sentence is below the evidence bar",
    "evidence.no_sentence": "the answer would have no trusted sentence to show (main paper's, or another's "
                            "above the bar)",
    "compare.within_one": "every side of a comparison finds the same paper first and the question does not call its "
                          "sides separate reports ('X vs placebo'), or a follow-up compares things none of which is "
                          "a paper ('how do humans compare with the best model on it?'): a contrast inside that "
                          "paper, answered about it",
    "compare.separate": "every side of a comparison finds the same paper first, but a described side fits another "
                        "paper about as well: an approach of its own ('FedMerge vs clustering-based FL', FedMerge "
                        "naming clustering among its baselines), compared across papers",
    "compare.side": "each side of a comparison: the paper that is its row and how it was found "
                    "(named, evidence, retrieval)",
    "compare.no_side": "no side of a comparison is described by an abstract",
    "compare.side_unknown": "a side is a name no abstract is about (only mentioned in passing, or nowhere): compare "
                            "the rest and say so",
    "compare.setting_missing": "a setting the comparison asks about is in no side's abstract",
    "compare.side_missing": "one side was not found: compare the rest and say which is missing",
    "list.part_unmatched": "a named part of a list's criterion is in no retrieved abstract",
    "list.none_match": "no retrieved abstract has a sentence matching the list's criterion",
})
