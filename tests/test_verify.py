"""The shipped claim verifier: real int8 ONNX model, hand-written pairs, CLI JSON contract, missing model."""

from __future__ import annotations

import json
import shutil

import pytest

from assistant.cli import main
from assistant.settings import VerifySettings
from assistant.verify import Verdict, Verifier, VerifierUnavailableError, get_verifier
from assistant.verify.model import FILES, MODEL_DIR
from assistant.verify.windows import windows

pytestmark = pytest.mark.slow  # loads the shipped model (small: ~1 s)

SOURCE = ("We propose FedMerge, a federated learning method that merges client models on the server. "
          "On CIFAR-10, FedMerge improves accuracy by 24.7% over FedAvg. "
          "Dropout reduces overfitting in the small client networks. "
          "Training takes 3 hours on a single GPU.")

# (claim, source, acceptable verdicts); written by hand for this test, not drawn from any training data.
CASES = [
    # verbatim and close paraphrase: supported
    ("On CIFAR-10, FedMerge improves accuracy by 24.7% over FedAvg.", SOURCE, {"supported"}),
    ("Dropout reduces overfitting in the small client networks.", SOURCE, {"supported"}),
    pytest.param("FedMerge improves accuracy on CIFAR-10 by 24.7% compared with FedAvg.", SOURCE, {"supported"},
                 marks=pytest.mark.xfail(strict=True, reason="known miss (MODEL_CARD): a paraphrase that moves a "
                                         "phrase reads as swapped sides -> contradicted")),
    pytest.param("Training takes 3 hours on one GPU.", SOURCE, {"supported"},
                 marks=pytest.mark.xfail(strict=True, reason="known miss (MODEL_CARD): 'one' for 'a single' reads as a "
                                         "changed number (support 0.55 < 0.63)")),
    # numbers swapped
    ("On CIFAR-10, FedMerge improves accuracy by 12.5% over FedAvg.", SOURCE, {"contradicted", "not_supported"}),
    ("Training takes 30 hours on a single GPU.", SOURCE, {"contradicted", "not_supported"}),
    # negation and antonym
    ("Dropout does not reduce overfitting in the small client networks.", SOURCE, {"contradicted", "not_supported"}),
    ("Dropout increases overfitting in the small client networks.", SOURCE, {"contradicted", "not_supported"}),
    # names swapped
    ("On CIFAR-10, FedAvg improves accuracy by 24.7% over FedMerge.", SOURCE, {"contradicted", "not_supported"}),
    # unrelated
    ("Protein folding is predicted from amino acid sequences.", SOURCE, {"not_supported"}),
]


@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return get_verifier(VerifySettings()).load()


def test_model_ships_inside_the_package_and_is_small():
    for f in FILES:
        assert (MODEL_DIR / f).is_file(), f
    assert sum((MODEL_DIR / f).stat().st_size for f in FILES) <= 30 * 2**20
    assert (MODEL_DIR / "MODEL_CARD.md").is_file()


@pytest.mark.parametrize("claim,source,ok", CASES, ids=[str(i) for i in range(len(CASES))])
def test_hand_written_pairs(verifier, claim, source, ok):
    v = verifier.verify(claim, source)
    assert isinstance(v, Verdict)
    assert v.label in ok, (v, claim)
    assert 0.0 <= v.support <= 1.0 and 0.0 <= v.contradiction <= 1.0


def test_meaning_change_scores_below_the_verbatim_claim(verifier):
    same, *changed = verifier.verify_many([(CASES[0][0], SOURCE), (CASES[4][0], SOURCE), (CASES[8][0], SOURCE)])
    assert all(c.support < same.support for c in changed)
    assert same.evidence and "24.7%" in same.evidence and 1 in same.sentences


def test_a_typeset_claim_and_a_line_cut_short_are_quotes_of_their_sentence(verifier):
    """An answer shows TeX typeset ("96.9%" for "$96.9\\%$") and cuts long list lines with an ellipsis: such a claim
    quotes its sentence word for word and is supported without a model reading (support 1.0, the evidence is the
    source as written). An edited figure, or a quote that stops before a qualifier without saying so, is read by the
    model. (Sentences written for this test.)"""
    src = (r"We present Kite, a $7$B model for retrieval. Kite reaches $96.9\%$ accuracy on GLUE and $91.3\%$ on "
           r"SQuAD, but only with distillation from a teacher model.")
    whole = "Kite reaches 96.9% accuracy on GLUE and 91.3% on SQuAD, but only with distillation from a teacher model."
    v = verifier.verify(whole, src)
    assert (v.label, v.support, v.sentences) == ("supported", 1.0, (1,)) and "$96.9\\%$" in v.evidence
    cut = verifier.verify("Kite reaches 96.9% accuracy on GLUE and 91.3% on SQuAD, but only …", src)
    assert (cut.label, cut.support) == ("supported", 1.0)
    edited = verifier.verify(whole.replace("96.9%", "69.9%"), src)
    short = verifier.verify("Kite reaches 96.9% accuracy on GLUE and 91.3% on SQuAD.", src)
    assert edited.label != "supported" and edited.support < 1.0 and short.support < 1.0


def test_list_of_sentences_and_string_agree(verifier):
    sents = ["Dropout reduces overfitting in the small client networks.", "Training takes 3 hours on a single GPU."]
    a = verifier.verify("Training takes 3 hours on one GPU.", sents)
    b = verifier.verify("Training takes 3 hours on one GPU.", " ".join(sents))
    assert a.label == b.label and abs(a.support - b.support) < 1e-5


def test_windows_cover_long_sources():
    sents = [f"Sentence {i} is about topic {i}." for i in range(12)]
    ws = windows("Sentence 7 is about topic 7.", sents, top=1)
    assert {w.sentences for w in ws} == {(7,), (6, 7), (7, 8)}
    assert len(windows("x", sents, top=0)) == 12 + 11


def test_missing_model_raises_a_specific_error(tmp_path):
    with pytest.raises(VerifierUnavailableError) as e:
        Verifier(VerifySettings(model_dir=str(tmp_path))).verify("a claim", "a source")
    assert "missing" in str(e.value) and e.value.hint


def test_damaged_model_raises_a_specific_error(tmp_path):
    for f in FILES:
        shutil.copy(MODEL_DIR / f, tmp_path / f)
    (tmp_path / "encoder-int8.onnx").write_bytes(b"not an onnx file")
    with pytest.raises(VerifierUnavailableError):
        Verifier(VerifySettings(model_dir=str(tmp_path))).load()


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_single_pair(capsys):
    code, out, _ = run(capsys, "verify", CASES[6][0], "--source", SOURCE)
    assert code == 0
    d = json.loads(out)
    assert d["verdict"] in ("contradicted", "not_supported") and 0 <= d["support"] <= 1
    code, out, _ = run(capsys, "verify", CASES[0][0], "--source", SOURCE)
    assert json.loads(out)["verdict"] == "supported"


def test_cli_batch_contract_and_bad_lines(tmp_path, capsys):
    pairs = tmp_path / "pairs.jsonl"
    lines = [
        {"id": "a", "claim": CASES[0][0], "source": SOURCE},
        {"id": 2, "claim": "Training takes 3 hours on a single GPU.",
         "source": ["Dropout helps.", "Training takes 3 hours on a single GPU."]},
        "{not json",
        {"id": "c", "claim": "", "source": SOURCE},
        {"claim": "no id", "source": SOURCE},
        {"id": "d", "claim": "x", "source": [1, 2]},
        {"id": "e", "claim": CASES[6][0], "source": SOURCE},
    ]
    pairs.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    out = tmp_path / "r.jsonl"
    code, stdout, err = run(capsys, "verify", "--batch", str(pairs), "--out", str(out))
    assert code == 1  # bad lines were skipped
    for n, what in ((3, "not valid JSON"), (4, '"claim"'), (5, "missing field(s): id"), (6, '"source"')):
        assert f"line {n}: " in err and what in err
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["a", 2, "e"]
    for r in rows:
        assert {"id", "support", "verdict"} <= set(r) and 0 <= r["support"] <= 1
        assert r["verdict"] in ("supported", "not_supported", "contradicted")
    assert rows[0]["verdict"] == "supported" and rows[2]["verdict"] != "supported"
    assert "3 verdicts" in stdout and "4 bad line(s)" in stdout


def test_cli_errors_are_clear(tmp_path, capsys):
    code, _, err = run(capsys, "verify", "a claim")
    assert code == 2 and "No source given" in err and "hint:" in err
    code, _, err = run(capsys, "verify", "--batch", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "r.jsonl"))
    assert code == 2 and "Cannot read" in err
    code, _, err = run(capsys, "--set", f"verify.model_dir={tmp_path}", "verify", "a", "--source", "b")
    assert code == 1 and "verifier model" in err and "Traceback" not in err
