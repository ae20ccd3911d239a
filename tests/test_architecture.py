"""Data flows one way: a stage imports only from stages to its left and the shared modules."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "assistant"
ORDER = ["ingest", "index", "retrieve", "verify", "answer"]
FORBIDDEN_APIS = ("RetrievalQA", "ConversationalRetrievalChain", "LLMChain", "langchain_community")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            mod = node.module
            if node.level:  # relative: resolve against the package path
                pkg = path.relative_to(ROOT.parent).with_suffix("").parts[: -node.level]
                mod = ".".join(pkg + ((mod,) if mod else ()))
            out.add(mod)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_stages_import_only_leftwards():
    bad = []
    for i, stage in enumerate(ORDER):
        later = [*ORDER[i + 1 :], "cli"]
        for path in (ROOT / stage).rglob("*.py"):
            for mod in _imports(path):
                parts = mod.split(".")
                if parts[0] == "assistant" and len(parts) > 1 and parts[1] in later:
                    bad.append(f"{path.relative_to(ROOT.parent)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_no_legacy_langchain_chains():
    hits = [str(p) for p in ROOT.rglob("*.py") for api in FORBIDDEN_APIS if api in p.read_text(encoding="utf-8")]
    assert not hits, hits


def test_library_does_not_print():
    hits = []
    for p in ROOT.rglob("*.py"):
        if "cli" in p.parts:
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print":
                hits.append(f"{p}:{node.lineno}")
    assert not hits, hits
