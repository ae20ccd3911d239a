"""The `paperchat` command line: global options, subcommand registry, errors translated at the edge.

Each command group lives in its own module exposing `register(subparsers)`; a handler receives the
parsed args and a `Context` (settings, lazily opened index). `AssistantError` becomes
"error: MESSAGE" + "hint: HINT" on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import AssistantError
from ..settings import Settings, load_settings, parse_assignments

COMMAND_MODULES = ("index_cmds", "store_cmds", "answer_cmds", "ui_cmd", "eval_cmds", "verify_cmd")


@dataclass
class Context:
    settings: Settings
    _index: object = field(default=None, repr=False)
    command_line: bool = False  # the real `paperchat` process (main() without argv): it may replace itself (exec)

    def index(self):
        if self._index is None:
            from ..index.doctor import open_check
            from ..index.indexer import Index

            index = Index(self.settings)
            open_check(index)  # a damaged store is an error naming its fix, never silently wrong results
            self._index = index
        return self._index


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="paperchat",
                                description="Chat with a corpus of paper abstracts, with checked citations.")
    p.add_argument("--data-dir", type=Path,
                   help="Store directory (default: $PAPERCHAT_DATA_DIR or ~/.local/share/paperchat).")
    p.add_argument("--chroma-url", help="Use a Chroma server (http://HOST:PORT) instead of the embedded store.")
    p.add_argument("--preset", help="Named settings preset (default, fast, extractive, debug).")
    p.add_argument("--set", dest="assign", action="append", default=[], metavar="GROUP.NAME=VALUE",
                   help="Override one setting, e.g. --set retrieval.k=10 (repeatable; see `paperchat settings`).")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return p


def make_context(args: argparse.Namespace) -> Context:
    overrides = parse_assignments(args.assign)
    if args.data_dir:
        overrides["store.data_dir"] = str(args.data_dir.expanduser())
    if args.chroma_url:
        overrides["store.chroma_url"] = args.chroma_url
    return Context(load_settings(args.preset, overrides))


def hint_for(hint: str, command: str, given: tuple[str, ...] | list[str] = ()) -> str:
    """The hint without its sentences that send the user to the command that just failed: `paperchat COMMAND`
    with no option the user did not give (`rebuild-index --records` is another repair than the
    `rebuild-index --dense` that failed, and stays).

    >>> hint_for("Run `paperchat rebuild-index --records`.", "rebuild-index", ["--dense"])
    'Run `paperchat rebuild-index --records`.'
    >>> hint_for("Run `paperchat rebuild-index --records`. Then `paperchat doctor`.", "rebuild-index", ["--records"])
    'Then `paperchat doctor`.'
    """
    if not hint or f"`paperchat {command}" not in hint:
        return hint

    def sends_back(sentence: str) -> bool:
        for span in re.findall(r"`paperchat ([^`]*)`", sentence):
            words = span.split()
            if words and words[0] == command and {w for w in words[1:] if w.startswith("--")} <= set(given):
                return True
        return False

    parts = re.split(r"(?<=[.;])\s+", hint)
    return " ".join(p for p in parts if not sends_back(p)).strip()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        ctx = make_context(args)
        ctx.command_line = argv is None
        return int(args.handler(args, ctx) or 0)
    except AssistantError as e:
        print(f"error: {e.message}", file=sys.stderr)
        given = [a.split("=", 1)[0] for a in (argv if argv is not None else sys.argv[1:])]
        hint = hint_for(e.hint, args.command, given)
        if hint:
            print(f"hint: {hint}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted: finished batches are kept; run the same command again to resume.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
