"""The docs cannot drift from the code: every `paperchat ...` command shown in README.md, docs/*.md and
bench/README.md parses with the real argparse parser, and every `make TARGET` they name is a Makefile target.

Shell code blocks (```sh, ```bash, ```shell, unlabelled; in ```console only lines after "$ ") are read as
shell: continuation lines joined, comments dropped, commands split at `|`, `&&`, `;`, `&`, redirections
and leading `VAR=value` assignments removed. A command whose program is `paperchat` (any path ending in
`/paperchat`, or `python -m assistant.cli`) must name existing subcommands, use only options those
subcommands define (spelled out in full: argparse's prefix matching is not accepted as documentation), and
be accepted by `parse_args`. Nothing is run. Inline code spans that start with `paperchat ` get the
subcommand and option check only (prose spans may carry placeholders such as `ID...`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from assistant.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
SHELL_LANGS = {"", "sh", "bash", "shell", "console", "zsh"}
SEPARATORS = {"|", "||", "&&", ";", "&", "(", ")", ";;"}
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)[^\n]*$")
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
MAKE_INLINE = re.compile(r"`make ([A-Za-z0-9_.-]+)")
TARGET = re.compile(r"^([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:(?!=)", re.M)


def doc_files() -> list[Path]:
    return [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def code_blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """(language, first line number, lines) of each fenced block."""
    blocks, open_, lang, start, lines = [], None, "", 0, []
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if open_ is None and m:
            open_, lang, start, lines = m["fence"], m["lang"].lower(), n + 1, []
        elif open_ is not None and line.strip().startswith(open_) and not line.strip()[len(open_):].strip():
            blocks.append((lang, start, lines))
            open_ = None
        elif open_ is not None:
            lines.append(line)
    return blocks


def shell_commands(lang: str, lines: list[str]) -> list[str]:
    """Logical command lines of a shell block (continuations joined; console: only '$ ' lines)."""
    out, buf = [], ""
    for line in lines:
        if lang == "console":
            if not buf and not line.lstrip().startswith("$ "):
                continue
            if not buf:
                line = line.lstrip()[2:]
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return out


def simple_commands(line: str) -> list[list[str]]:
    """Split one shell line into simple commands (argv lists) without running anything."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    tokens = list(lex)
    commands, cur, skip = [], [], False
    for tok in tokens:
        if skip:
            skip = False
            continue
        if tok in SEPARATORS:
            commands.append(cur)
            cur = []
        elif set(tok) <= set("<>&") and ("<" in tok or ">" in tok):  # a redirection: drop it and its target
            if cur and cur[-1].isdigit() and f"{cur[-1]}{tok}" in line:  # the 2 of 2>/dev/null
                cur.pop()
            skip = True
        else:
            cur.append(tok)
    commands.append(cur)
    result = []
    for argv in commands:
        while argv and (argv[0] in {"export", "env", "exec", "time", "nohup", "sudo"}
                        or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0])):
            argv = argv[1:]
        if argv:
            result.append(argv)
    return result


def paperchat_args(argv: list[str]) -> list[str] | None:
    """The arguments after the program if argv runs paperchat, else None."""
    prog = argv[0]
    if prog == "paperchat" or prog.endswith("/paperchat"):
        return argv[1:]
    if re.search(r"(^|/)python(3(\.\d+)?)?$", prog) and argv[1:3] == ["-m", "assistant.cli"]:
        return argv[3:]
    return None


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def check_options(args: list[str], parser: argparse.ArgumentParser, placeholders: bool = False) -> list[str]:
    """Subcommands exist and every option is one the (sub)parser defines, in full.

    With `placeholders` (prose), an upper-case word where a subcommand stands (`paperchat COMMAND --help`)
    ends the check: what follows belongs to a subcommand not named."""
    problems, cur, path, expect_value = [], parser, ["paperchat"], False
    for tok in args:
        if expect_value:
            expect_value = False
            continue
        if tok.startswith("-") and len(tok) > 1 and not re.match(r"^-\d", tok):
            name = tok.split("=", 1)[0]
            action = cur._option_string_actions.get(name)
            if action is None:
                problems.append(f"`{' '.join(path)}` has no option {name}")
            elif "=" not in tok and action.nargs != 0:
                expect_value = True
            continue
        subs = _subparsers(cur)
        if subs:
            if placeholders and re.fullmatch(r"[A-Z][A-Z_./-]*", tok):
                return problems
            if tok not in subs:
                problems.append(f"`{' '.join(path)}` has no subcommand {tok!r} (it has: {', '.join(sorted(subs))})")
                return problems
            cur = subs[tok]
            path.append(tok)
    return problems


def check_parses(args: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """argparse accepts the whole command line (types, choices, required options, values)."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(args)
    except SystemExit as e:
        if e.code not in (0, None):  # --help exits 0
            return [err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else f"exit {e.code}"]
    return []


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set()
    for m in TARGET.finditer(text):
        targets.update(m.group(1).split())
    return targets


def problems_in(text: str, name: str, parser: argparse.ArgumentParser, targets: set[str]) -> list[str]:
    """Every drift between one Markdown document and the CLI or the Makefile, as readable lines."""
    problems: list[str] = []
    for lang, start, lines in code_blocks(text):
        if lang not in SHELL_LANGS:
            continue
        for line in shell_commands(lang, lines):
            try:
                commands = simple_commands(line)
            except ValueError as e:  # unbalanced quotes
                if lang:
                    problems.append(f"{name} (block at line {start}): cannot read {line.strip()!r}: {e}")
                continue
            for argv in commands:
                where = f"{name} (block at line {start}): {' '.join(argv)}"
                if argv[0] == "make":
                    problems += [f"{where}: no Makefile target {t!r}"
                                 for t in argv[1:] if not t.startswith("-") and "=" not in t and t not in targets]
                    continue
                args = paperchat_args(argv)
                if args is None:
                    continue
                found = check_options(args, parser)
                found = found or check_parses(args, parser)
                problems += [f"{where}: {p}" for p in found]
    prose = re.sub(r"(?ms)^\s*(```+|~~~+).*?^\s*\1\s*$", "", text)
    for span in INLINE.findall(prose):
        if span.startswith("paperchat "):
            tokens = [t.strip("[]") for t in span.split()[1:]]
            tokens = [t for t in tokens if t and t not in {"|", "..."}]
            problems += [f"{name}: `{span}`: {p}" for p in check_options(tokens, parser, placeholders=True)]
    problems += [f"{name}: `make {t}`: no such Makefile target" for t in MAKE_INLINE.findall(prose) if t not in targets]
    return problems


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    return build_parser()


@pytest.mark.parametrize("doc", doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_documented_command_parses(doc: Path, parser):
    assert doc.exists(), f"{doc.relative_to(ROOT)} is missing"
    problems = problems_in(doc.read_text(encoding="utf-8"), str(doc.relative_to(ROOT)), parser, makefile_targets())
    assert not problems, "the docs drifted from the CLI or the Makefile:\n" + "\n".join(problems)


def test_the_docs_show_commands_at_all(parser):
    """The check above must have something to check: the README shows real commands."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = [argv for lang, _, lines in code_blocks(text) if lang in SHELL_LANGS
             for line in shell_commands(lang, lines) for argv in simple_commands(line)
             if paperchat_args(argv) is not None]
    assert len(shown) >= 5
    assert {"make run", "make test"} <= {" ".join(a) for lang, _, lines in code_blocks(text) if lang in SHELL_LANGS
                                        for line in shell_commands(lang, lines) for a in simple_commands(line)}


FABRICATED = """
# A doc that drifted

```sh
paperchat ask "What is FedMerge?" --no-such-option        # an option that does not exist
.venv/bin/paperchat --data-dir /tmp/x frobnicate          # a subcommand that does not exist
paperchat eval run --questions q.jsonl --split half       # a value outside the choices
paperchat ingest a.jsonl --stri                           # a prefix argparse would accept
make no-such-target
paperchat ask "fine" --json && paperchat stats --json | head -3   # these two are right
```

Also `paperchat doctor --fix-everything` in prose, and `make nowhere`; `paperchat COMMAND --help` is fine.
"""


def test_a_fabricated_drifted_doc_is_caught(parser):
    problems = problems_in(FABRICATED, "fake.md", parser, makefile_targets())
    text = "\n".join(problems)
    assert "has no option --no-such-option" in text
    assert "no subcommand 'frobnicate'" in text
    assert "invalid choice: 'half'" in text
    assert "has no option --stri" in text
    assert "no Makefile target 'no-such-target'" in text
    assert "`paperchat doctor` has no option --fix-everything" in text
    assert "`make nowhere`: no such Makefile target" in text
    assert len(problems) == 7, text  # the two right commands add nothing


def test_shell_reading():
    assert simple_commands("A=1 B=2 paperchat stats --json 2>/dev/null | grep -q x") == [
        ["paperchat", "stats", "--json"], ["grep", "-q", "x"]]
    quoted = "paperchat ask 'a # not a comment' # a comment"
    assert simple_commands(quoted) == [["paperchat", "ask", "a # not a comment"]]
    assert simple_commands("cmd >log 2>&1 &") == [["cmd"]]
    assert shell_commands("sh", ["paperchat ingest a \\", "  --strict"]) == ["paperchat ingest a    --strict"]
    assert shell_commands("console", ["$ paperchat stats", "papers: 210"]) == ["paperchat stats"]
    assert paperchat_args(["/work/x/.venv/bin/paperchat", "ui"]) == ["ui"]
    assert paperchat_args(["python", "-m", "assistant.cli", "ui"]) == ["ui"]
    assert paperchat_args(["chroma", "run"]) is None
    assert {"test", "lint", "run", "embed-server"} <= makefile_targets()
