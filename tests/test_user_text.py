"""The one door for user text (issue 23, item 2) and the batch/argument checks (item 6).

A lone surrogate or invalid UTF-8 byte is refused with a clear message naming where it is (the line
of a batch file), a batch goes on with the rest, nothing reaches a tokenizer unchecked; --out and --k
are checked before any work; a repeated id is a warning.
"""

from __future__ import annotations

import json

import gradio as gr
import pytest
from conftest import PAPERS

from assistant.cli import main
from assistant.questions import read_question_file, read_questions
from assistant.testing import HashEmbedder
from assistant.user_text import UserTextError, clean_user_text, decode_utf8

SURROGATE = "graph \udcff networks"  # what Python makes of the byte 0xff in a command-line argument
HALF_EMOJI = "pruning \ud83d results"  # a JSON "\ud83d" escape without its pair


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERCHAT_PRESET", "debug")
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(tmp_path / "store"))
    f = tmp_path / "papers.jsonl"
    f.write_text("\n".join(json.dumps({"id": r.paper_id, "title": r.title, "abstract": r.text, "year": r.year})
                           for r in PAPERS) + "\n", encoding="utf-8")
    assert main(["ingest", str(f), "--quiet"]) == 0
    return tmp_path


@pytest.fixture
def strict_tokenizer(monkeypatch):
    """The hash embedder with the real tokenizers' contract: a lone surrogate is a TypeError."""
    calls = []

    def vec(self, text, _orig=HashEmbedder._vec):
        calls.append(len(text))
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
            raise TypeError("TextEncodeInput must be Union[TextInputSequence, Tuple[InputSequence, InputSequence]]")
        return _orig(self, text)

    monkeypatch.setattr(HashEmbedder, "_vec", vec)
    return calls


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- the normaliser ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, where", [(SURROGATE, "position 7"), (HALF_EMOJI, "position 9")])
def test_broken_characters_are_refused_with_their_position(text, where):
    with pytest.raises(UserTextError) as e:
        clean_user_text(text, where="q.jsonl line 4")
    assert e.value.message.startswith("q.jsonl line 4: the question holds a broken character")
    assert where in e.value.message
    assert e.value.hint and e.value.exit_code == 2


def test_invalid_utf8_bytes_name_the_byte_and_column():
    with pytest.raises(UserTextError, match=r"byte 0xe9 at column 4"):
        decode_utf8(b"caf\xe9 au lait", where="pairs.jsonl line 2")
    assert clean_user_text("caf\u00e9".encode()) == "café"


def test_control_characters_nfc_and_the_length_cap():
    assert clean_user_text(" a\x00b\x1b[31m c\u0301 ") == "a b [31m ć"
    assert clean_user_text("x" * 20, max_chars=20) == "x" * 20
    with pytest.raises(UserTextError, match="21 characters long; the limit is 20"):
        clean_user_text("x" * 21, max_chars=20)
    with pytest.raises(UserTextError, match="is empty"):
        clean_user_text(" \x00 ")
    assert clean_user_text("  ", allow_empty=True) == ""
    with pytest.raises(UserTextError, match="must be text"):
        clean_user_text(123)


# ---- CLI arguments: ask, search, verify --------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["search", SURROGATE], ["ask", SURROGATE, "--model", "extractive"], ["ask", HALF_EMOJI, "--model", "extractive"],
    ["ask", "What is pruning?", "--history", SURROGATE, "--model", "extractive"],
    ["search", "graph", "--author", SURROGATE],
])
def test_a_broken_character_in_an_argument_is_a_clear_error(store, capsys, strict_tokenizer, argv):
    code, _out, err = run(capsys, *argv)
    assert code == 2 and "broken character" in err and "hint:" in err and "Traceback" not in err


def test_verify_claim_with_a_broken_character(capsys):
    code, _, err = run(capsys, "verify", SURROGATE, "--source", "Graph networks are fast.")
    assert code == 2 and "The claim holds a broken character at position 7" in err
    code, _, err = run(capsys, "verify", "Graph networks are fast.", "--source", HALF_EMOJI)
    assert code == 2 and "The source holds a broken character" in err


def test_a_huge_question_is_refused_before_any_tokenizer_sees_it(store, capsys, strict_tokenizer):
    """RELIABILITY 38: the input length is capped before tokenisation, with a clear message."""
    strict_tokenizer.clear()
    for argv in (["ask", "graph " * 200_000, "--model", "extractive"], ["search", "graph " * 200_000]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "1,200,000 characters long; the limit is 2,000" in err, err
    code, _, err = run(capsys, "verify", "x " * 200_000, "--source", "Graph networks are fast.")
    assert code == 2 and "the limit is 2,000" in err
    assert not [n for n in strict_tokenizer if n > 10_000]  # nothing that long was embedded


def test_the_library_refuses_too(store, strict_tokenizer):
    """The Assistant and the retriever guard themselves: the UI, the eval harness and any caller are safe."""
    from assistant.answer.assistant import Assistant
    from assistant.retrieve.hybrid import HybridRetriever
    from assistant.settings import load_settings

    a = Assistant(load_settings("debug", {}))
    with pytest.raises(UserTextError, match="broken character"):
        a.ask(SURROGATE)
    with pytest.raises(UserTextError, match="broken character"):
        HybridRetriever(a.index, a.settings.retrieval).search(HALF_EMOJI)
    assert a.ask("How much does Prune&Comp reduce perplexity?\x00").question.endswith("perplexity?")


# ---- batches: report the line, go on with the rest ---------------------------------------------------------


def _lines(path, rows):
    path.write_bytes(b"\n".join(r if isinstance(r, bytes) else json.dumps(r).encode() for r in rows) + b"\n")
    return path


def test_ask_batch_skips_the_bad_lines_and_answers_the_rest(store, capsys, strict_tokenizer):
    q = _lines(store / "q.jsonl", [
        {"id": "a", "question": "How much does Prune&Comp reduce perplexity?"},
        b'{"id": "b", "question": "graph \\udcff networks"}',  # a JSON escape of a lone surrogate
        b'{"id": "c", "question": "caf\xe9 networks"}',  # Latin-1
        {"id": "d", "question": "Which method merges models in federated learning?"},
        {"id": "a", "question": "What do graph networks sparsify?"},
    ])
    out = store / "r.jsonl"
    code, stdout, err = run(capsys, "ask", "--batch", str(q), "--out", str(out), "--model", "extractive")
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r["question"] for r in rows] == ["How much does Prune&Comp reduce perplexity?",
                                             "Which method merges models in federated learning?",
                                             "What do graph networks sparsify?"]
    assert f"{q} line 2: the question holds a broken character" in err
    assert f"{q} line 3: the line is not valid UTF-8 (byte 0xe9 at column 29" in err
    assert f"{q} line 5: duplicate id 'a' (first on line 1)" in err and "Traceback" not in err
    assert code == 1 and "3 answers" in stdout and "2 bad line(s) skipped" in stdout


def test_search_batch_goes_on_past_a_bad_line(store, capsys, strict_tokenizer):
    q = _lines(store / "q.jsonl", [{"id": "a", "question": "Prune&Comp"}, b'{"id": "b", "question": "x \\ud83d"}',
                                   {"id": "c", "question": "graph networks"}])
    code, _stdout, err = run(capsys, "search", "--batch", str(q), "--out", str(store / "r.jsonl"))
    assert code == 1 and "line 2: the question holds a broken character" in err
    assert [json.loads(x)["id"] for x in (store / "r.jsonl").read_text().splitlines()] == ["a", "c"]


def test_verify_batch_latin1_and_surrogate_lines_are_named_the_rest_verified(tmp_path, capsys):
    src = "Prune&Comp reduces perplexity by 24.72% on LLaMA-3-8B."
    pairs = _lines(tmp_path / "pairs.jsonl", [
        {"id": "a", "claim": "Prune&Comp reduces perplexity by 24.72%.", "source": src},
        b'{"id": "b", "claim": "Prune&Comp reduces perplexity by 24.72%\xe9.", "source": "x"}',
        b'{"id": "c", "claim": "half \\ud83d emoji", "source": "' + src.encode() + b'"}',
        {"id": "a", "claim": "Prune&Comp increases perplexity.", "source": [src]},
    ])
    out = tmp_path / "r.jsonl"
    code, stdout, err = run(capsys, "verify", "--batch", str(pairs), "--out", str(out))
    assert f"{pairs} line 2: the line is not valid UTF-8 (byte 0xe9" in err
    assert f"{pairs} line 3: the claim holds a broken character" in err
    assert f"{pairs} line 4: duplicate id 'a' (first on line 1)" in err
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["a", "a"] and rows[0]["verdict"] == "supported"
    assert code == 1 and "2 verdicts" in stdout and not list(tmp_path.glob("*.part"))


def test_verify_batch_leaves_no_part_file_when_the_run_fails(tmp_path, capsys, monkeypatch):
    from assistant.verify.verifier import Verifier

    def boom(self, pairs, progress=None):
        raise RuntimeError("model died")

    monkeypatch.setattr(Verifier, "verify_many", boom)
    pairs = _lines(tmp_path / "pairs.jsonl", [{"id": 1, "claim": "A claim.", "source": "A source."}])
    with pytest.raises(RuntimeError):
        main(["verify", "--batch", str(pairs), "--out", str(tmp_path / "r.jsonl")])
    assert not list(tmp_path.glob("r.jsonl*"))


def test_read_questions_stays_strict_for_evaluation_sets(tmp_path):
    q = _lines(tmp_path / "q.jsonl", [{"id": 1, "question": "One?"}, {"id": 1, "question": "Two?"}])
    with pytest.raises(Exception, match=r"q\.jsonl:2: duplicate id 1 \(first on line 1\)"):
        read_questions(q)
    q = _lines(tmp_path / "q.jsonl", [{"id": 1, "question": "One?"}, b'{"question": "bad \\udcff"}'])
    with pytest.raises(Exception, match=r"q\.jsonl:2: the question holds a broken character"):
        read_questions(q)
    f = read_question_file(q)
    assert [x["question"] for x in f.questions] == ["One?"] and len(f.problems) == 1


# ---- --out and --k are checked before the work -------------------------------------------------------------


def _never(*a, **k):
    raise AssertionError("the work started before --out was checked")


@pytest.mark.parametrize("cmd", ["ask", "verify", "search"])
def test_out_that_is_a_directory_is_refused_before_the_work(store, capsys, monkeypatch, cmd):
    import assistant.cli.answer_cmds as answer_cmds
    import assistant.cli.index_cmds as index_cmds
    import assistant.verify as verify

    monkeypatch.setattr(answer_cmds, "_assistant", _never)
    monkeypatch.setattr(index_cmds, "_retriever", _never)
    monkeypatch.setattr(verify, "get_verifier", _never)
    batch = _lines(store / "b.jsonl", [{"id": 1, "question": "Prune&Comp?", "claim": "x", "source": "y"}])
    code, _, err = run(capsys, cmd, "--batch", str(batch), "--out", str(store))
    assert code == 2 and f"--out {store} is a directory" in err and "results.jsonl" in err
    blocker = store / "a-file"
    blocker.write_text("")
    code, _, err = run(capsys, cmd, "--batch", str(batch), "--out", str(blocker / "r.jsonl"))
    assert code == 2 and "cannot create its folder" in err and "Traceback" not in err


@pytest.mark.parametrize("k", ["0", "-3", "1000000000", "five"])
@pytest.mark.parametrize("cmd", [["ask", "What is pruning?"], ["search", "pruning"]])
def test_k_out_of_range_is_refused_with_the_range(capsys, cmd, k):
    with pytest.raises(SystemExit) as e:
        main([*cmd, "--k", k])
    assert e.value.code == 2 and "argument --k" in capsys.readouterr().err


# ---- the UI and its API ------------------------------------------------------------------------------------


def test_ui_refuses_broken_characters_with_a_message_not_a_trace_id(settings):
    from ui.handlers import Handlers

    h = Handlers(assistant=None, settings=settings, choices=["extractive"])
    for text in (SURROGATE, HALF_EMOJI):
        with pytest.raises(gr.Error) as e:
            h.check_question(text)
        assert "broken character" in e.value.message and "trace id" not in e.value.message
    with pytest.raises(gr.Error, match="broken character"):
        h.options(author=SURROGATE)
    assert h.check_question("  graph\x00networks ") == "graph networks"


def test_chat_reports_a_broken_line_and_goes_on(store, capsys, monkeypatch, strict_tokenizer):
    lines = iter([SURROGATE, "How much does Prune&Comp reduce perplexity?", "/quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    code, out, err = run(capsys, "chat", "--model", "extractive")
    assert code == 0 and "error: The question holds a broken character" in out
    assert "24.72%" in out and "Traceback" not in err
