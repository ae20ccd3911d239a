"""Answer prose (assistant/answer/prose.py): markup debris out, the authors' voice in the third person, and
every rewrite still supported by the sentence it came from (the real claim verifier, over many sentences)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from assistant.answer.prose import DEBRIS, clean_markup, first_person_outside_quotes, is_debris, rewrite, third_person
from assistant.index.sentences import split_sentences

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("raw,want", [
    ("This paper proposes a novel ``FedMerge'' approach that merges models.", "“FedMerge”"),
    (r"It runs $3\times$ faster with \textbf{BERT} and \emph{no} tuning.", "3× faster with BERT and no tuning"),
    (r"Accuracy rises by 5\% (p~0.01) on {ImageNet}.", "5% "),
    (r"See \href{https://x.org}{our page} for \texttt{code}.", "our page for code"),
    ("Gains of 2.1 points, see https://github.com/a/b for details.", "Gains of 2.1 points"),
])
def test_markup_debris_is_removed(raw, want):
    out = clean_markup(raw)
    assert want in out and not DEBRIS.search(out), out


@pytest.mark.parametrize("raw,want", [
    ("We propose X-Net, a detector for small objects.", "The authors propose X-Net, a detector for small objects."),
    ("In this paper, we study pruning and we find that it helps.",
     "The authors study pruning and the authors find that it helps."),
    ("Our results show that our method is 2x faster.", "The authors' results show that their method is 2x faster."),
    ("This lets us scale to 1B tokens, as shown in the US data.",
     "This lets the authors scale to 1B tokens, as shown in the US data."),
    ("To the best of our knowledge, this is the first study.",
     "To the best of the authors' knowledge, this is the first study."),
])
def test_first_person_becomes_third_person(raw, want):
    assert third_person(raw) == want
    assert not first_person_outside_quotes(want)


def test_a_named_method_becomes_the_subject():
    assert rewrite("We propose a novel ``FedMerge'' approach that merges global models per client.", "FedMerge") \
        == "FedMerge is an approach that merges global models per client."
    assert (rewrite("We introduce SHARD, a distillation method for safety.", "SHARD")
            == "SHARD is a distillation method for safety.")
    # a name the sentence does not give is never put in ("their method", not the name: unverifiable otherwise)
    assert "FedMerge" not in rewrite("Our method beats all baselines.", "FedMerge")


def test_pointer_sentences_are_dropped():
    assert is_debris("Project Page: https://shiml20.github.io/DiffMoE/")
    assert rewrite("Project Page: https://x.io/p/") == ""
    assert is_debris("Our code is available at https://github.com/x/y.")
    assert not is_debris("We reach 91.2% accuracy on GLUE.")
    assert not is_debris("The model (https://x.org) reaches 91.2% accuracy on GLUE "
                         "after pre-training on web text for ten days.")


def test_untouched_sentences_stay_as_they_are():
    s = "Prune&Comp reduces perplexity by 24.72% on LLaMA-3-8B."
    assert rewrite(s) == s


def _rewritten_pairs(n: int) -> list[tuple[str, str]]:
    pairs = []
    for line in (ROOT / "data" / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        for s in split_sentences(json.loads(line)["text"]):
            r = rewrite(s.text)
            if r and r.rstrip(".") != s.text.rstrip("."):
                pairs.append((r, s.text))
    return random.Random(7).sample(pairs, min(n, len(pairs)))


@pytest.mark.slow
def test_rewrites_are_supported_by_their_sentence_by_the_claim_verifier():
    from assistant.settings import Settings
    from assistant.verify import get_verifier

    pairs = _rewritten_pairs(160)
    assert len(pairs) >= 150
    verdicts = get_verifier(Settings().verify).verify_many([(r, [o]) for r, o in pairs])
    supported = sum(v.label == "supported" for v in verdicts) / len(verdicts)
    assert supported >= 0.97, [(o, r) for (r, o), v in zip(pairs, verdicts) if v.label != "supported"][:5]
    assert not any(first_person_outside_quotes(r) or DEBRIS.search(r) for r, _ in pairs)


@pytest.mark.slow
def test_the_verified_rewriter_shows_supported_prose_without_markup():
    from assistant.answer.prose import Rewriter
    from assistant.settings import Settings
    from assistant.verify import get_verifier

    verifier = get_verifier(Settings().verify)
    originals = [o for _, o in _rewritten_pairs(160)]
    originals += [r"It is up to $\mathbf{61.4\times}$ faster than \emph{all} baselines."]
    rw = Rewriter(verifier.verify_many)
    rw.prepare([(o, "") for o in originals])
    shown = [(rw(o), o) for o in originals]
    assert not any(DEBRIS.search(r) for r, _ in shown)
    changed = [(r, o) for r, o in shown if r and r.rstrip(".") != o.rstrip(".")]
    verdicts = verifier.verify_many([(r, [o]) for r, o in changed])
    assert sum(v.label == "supported" for v in verdicts) / len(verdicts) >= 0.97
    assert sum(bool(first_person_outside_quotes(r)) for r, _ in shown) <= 2  # kept only where the verifier disagreed


def test_a_pointer_sentence_stays_dropped_through_the_rewriter():
    from assistant.answer.prose import Rewriter

    class Yes:
        label = "supported"

    rw = Rewriter(lambda pairs: [Yes() for _ in pairs])
    s = "Our code implementation is available in https://github.com/someone/some-repo."
    rw.prepare([(s, "")])
    assert rw(s) == "" and is_debris("Code and data will be made publicly available.")
    assert not is_debris("The data are available for 40 patients with long follow-up "
                         "and were analysed with regression models.")


def test_a_rewrite_the_verifier_rejects_for_its_name_falls_back_to_the_third_person_without_it():
    """A paper named by the wrong short name ("SFD" for the problem it fixes): the verifier rejects "SFD" in the
    claim; the rewriter then tries the third person without any name before keeping the authors' voice."""
    from assistant.answer.prose import Rewriter

    class Verdict:
        def __init__(self, label):
            self.label = label

    def checker(pairs):  # supports a claim only when it names nothing the source does not
        return [Verdict("not_supported" if "SFD" in c or "we " in c.lower() else "supported")
                for c, _ in pairs]

    out = Rewriter(checker)(r"To mitigate drift, we introduce \textbf{Lookahead Reward (\ours{})}.", "SFD")
    assert out == "To mitigate drift, the authors introduce Lookahead Reward (the proposed method)."


def test_a_sentence_the_verifier_rejects_in_every_form_still_reaches_the_reader_in_the_third_person():
    """The last fallback keeps the claim's words as written, typeset and without the authors' "we"/"our" (a list
    line had read "Our results show that SAU is robust"): pronouns are no claim."""
    from assistant.answer.prose import Rewriter, first_person_outside_quotes

    class Verdict:
        label = "not_supported"

    out = Rewriter(lambda pairs: [Verdict() for _ in pairs])(
        r"Our results show that SAU is a robust and \textbf{practical} defense for us.", "SAU")
    assert not first_person_outside_quotes(out) and "\\textbf" not in out
    assert out.startswith("The authors' results show that SAU is a robust and practical defense")


def test_a_title_with_tex_names_its_paper_without_markup_in_every_place_an_answer_shows_it():
    """arXiv titles carry TeX ("SAEs $Can$ Improve Unlearning: ..."): the name in bold before a comparison line,
    the table's label and the answer's name carry none of it."""
    from assistant.answer.contrast import difference
    from assistant.answer.naming import marked_label, real_name, shown_name
    from assistant.types import Hit, Record

    rec = Record("p1", "The authors introduce DSG, a guardrail for unlearning. It works on two benchmarks.",
                 label="SAEs $Can$ Improve Unlearning: Dynamic Sparse Autoencoder Guardrails")
    hit = Hit("p1", rec, 1.0)
    assert real_name(rec) == shown_name({}, hit) == "SAEs Can Improve Unlearning"
    assert not DEBRIS.search(marked_label(rec))
    text = difference([(hit, 1)], {1: [0]}, {"p1": real_name(rec)}, "How do they differ?")
    assert "**SAEs Can Improve Unlearning**" in text and not DEBRIS.search(text)
