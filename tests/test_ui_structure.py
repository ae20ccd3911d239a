"""The UI package's shape: short modules, no import cycle with ui.app, the corpus only through
`assistant.corpus` (never `assistant.index` / `assistant.retriever`)."""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parent.parent / "ui"
SPLIT = ("app", "layout", "handlers", "corpus_handlers", "session", "errors", "exports", "eval_tab", "eval_compare",
         "panel", "server_handlers", "hosts", "launch")


def _tree(name: str) -> ast.AST:
    return ast.parse((UI / f"{name}.py").read_text(encoding="utf-8"))


def _ui_imports(name: str) -> set[str]:
    out = set()
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                out |= {node.module} if node.module else {a.name for a in node.names}
            elif (node.module or "").startswith("ui."):
                out.add(node.module.split(".", 1)[1])
    return out


def test_modules_are_short():
    for name in SPLIT:
        n = len((UI / f"{name}.py").read_text(encoding="utf-8").splitlines())
        assert n < 310, f"ui/{name}.py has {n} lines"


def test_no_module_imports_ui_app_back():
    graph = {name: _ui_imports(name) for name in SPLIT}
    assert "app" not in set().union(*(deps for name, deps in graph.items() if name != "app"))
    # and no cycle at all among the split modules
    def reach(start, seen):
        for d in graph.get(start, ()):
            if d == "app" or d in seen:
                continue
            seen.add(d)
            reach(d, seen)
        return seen
    for name in SPLIT:
        assert name not in reach(name, set()), f"import cycle through ui/{name}.py"


def test_the_ui_reaches_papers_only_through_the_corpus_facade():
    bad = []
    for path in UI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("index", "retriever"):
                base = ast.unparse(node.value)
                if "assistant" in base or base in ("self._a", "a"):
                    bad.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    assert not bad, bad
