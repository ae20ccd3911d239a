"""Damage matrix (issue 13): damage a finished store each way, then doctor -> search -> rebuild-index -> doctor.

For each damage: detected (doctor exits 1 with a finding), the finding names a `rebuild-index` fix,
`search` fails with a clear error (no traceback, never silently wrong results), the repair exits 0, and
afterwards doctor is healthy with every sampled chunk finding itself first (30/30). Each case runs in its
own process (Chroma can panic in Rust on damaged files). Uses the `debug` preset (hash embedder).

    python scripts/damage_matrix.py [--records 1500] [--json OUT]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARXIV = ROOT.parent / "shared" / "data" / "arxiv" / "arxiv_cs_abstracts_2025-2026.jsonl.gz"
BUNDLED = ROOT / "data" / "corpus.jsonl"


def _segments(store: Path) -> list[Path]:
    return sorted(p for p in (store / "chroma").iterdir() if p.is_dir() and (p / "data_level0.bin").exists())


def _zero(p: Path) -> None:
    p.write_bytes(b"\0" * p.stat().st_size)


def _flip(p: Path) -> None:
    data = bytearray(p.read_bytes())
    for off in range(4096, len(data), 4096):  # one byte in every page after the header page
        data[off + 100] ^= 0xFF
    p.write_bytes(bytes(data))


def _truncate(p: Path) -> None:
    with p.open("r+b") as fh:
        fh.truncate(p.stat().st_size // 2)


DAMAGES = {
    "zeroed data_level0.bin": lambda s: [_zero(d / "data_level0.bin") for d in _segments(s)],
    "deleted data_level0.bin": lambda s: [(d / "data_level0.bin").unlink() for d in _segments(s)],
    "deleted HNSW segment dir": lambda s: [shutil.rmtree(d) for d in _segments(s)],
    "byte-flipped chroma.sqlite3": lambda s: _flip(s / "chroma" / "chroma.sqlite3"),
    "truncated chroma.sqlite3": lambda s: _truncate(s / "chroma" / "chroma.sqlite3"),
    "0-byte chroma.sqlite3": lambda s: (s / "chroma" / "chroma.sqlite3").write_bytes(b""),
    "deleted lexical index": lambda s: shutil.rmtree(s / "lexical"),
}
SELF_HEALING = {"deleted lexical index"}  # rebuilt from the chunks on the next open: search just works


def _cli(*argv: str) -> tuple[int, str, str]:
    from assistant.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(argv))
    except BaseException as e:  # noqa: BLE001 - a crash is a result here
        code = 99
        err.write(f"Traceback: {type(e).__name__}: {e}")
    return code, out.getvalue(), err.getvalue()


def run_case(store: Path) -> dict:
    """In this process: doctor, search, rebuild-index, doctor on an already damaged store."""
    base = ["--preset", "debug", "--data-dir", str(store)]
    code, out, _err = _cli(*base, "doctor", "--json")
    found = json.loads(out) if out.strip().startswith("{") else {"findings": []}
    bad = [f for f in found["findings"] if not f["ok"]]
    s_code, _s_out, s_err = _cli(*base, "search", "graph neural networks")
    r_code, r_out, r_err = _cli(*base, "rebuild-index", "--quiet")
    a_code, a_out, _ = _cli(*base, "doctor", "--json")
    after = json.loads(a_out) if a_out.strip().startswith("{") else {"findings": [], "ok": False}
    probe = next((f["message"] for f in after["findings"] if f["check"] == "self-retrieval"), "")
    return {
        "detected": code == 1 and bool(bad), "findings": [f"{f['check']}: {f['message']}"[:160] for f in bad],
        "fix_named": bool(bad) and all("rebuild-index" in f["fix"] for f in bad),
        "search_exit": s_code, "search_clear_error": s_code != 0 and "Traceback" not in s_err and "hint:" in s_err,
        "search_error": s_err.strip().splitlines()[0][:160] if s_err.strip() else "",
        "repair_exit": r_code, "repair_out": (r_out + r_err).strip()[-200:],
        "healthy_after": a_code == 0 and bool(after.get("ok")), "self_retrieval_after": probe,
    }


def build(store: Path, n: int) -> None:
    src = store.parent / "corpus.jsonl"
    with src.open("w", encoding="utf-8") as out:
        if ARXIV.exists():
            with gzip.open(ARXIV, "rt", encoding="utf-8") as fh:
                for i, line in enumerate(fh):
                    if i >= n:
                        break
                    out.write(line)
        else:  # no ../shared/data (a clone elsewhere): the bundled abstracts, repeated as distinct records up to n
            lines = [line for line in BUNDLED.read_text(encoding="utf-8").splitlines() if line.strip()]
            for i in range(n):
                rec = json.loads(lines[i % len(lines)])
                if i >= len(lines):
                    rec["paper_id"] = f"{rec['paper_id']}-r{i}"
                    # words up front, so no chunk repeats another's text (a tie would let a probe "find itself")
                    rec["text"] = f"Replica {i} restates an abstract for the damage matrix. {rec['text']}"
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    p = subprocess.run([sys.executable, "-m", "assistant.cli", "--preset", "debug", "--data-dir", str(store), "ingest",
                        "--quiet", str(src)], capture_output=True, text=True, cwd=ROOT, env=_env())
    if p.returncode:
        raise SystemExit(f"building the store failed: {p.stderr}")


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}


def matrix(n: int, work: Path, cases: list[str] | None = None) -> dict:
    clean = work / "clean"
    build(clean, n)
    results = {}
    for name in cases or list(DAMAGES):
        store = work / name.replace(" ", "_")
        shutil.copytree(clean, store)
        DAMAGES[name](store)
        p = subprocess.run([sys.executable, __file__, "--case", str(store)], capture_output=True, text=True, cwd=ROOT,
                           env=_env())
        try:
            results[name] = json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            results[name] = {"detected": False, "crash": (p.stderr or p.stdout)[-300:]}
        shutil.rmtree(store, ignore_errors=True)
    return results


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1500)
    ap.add_argument("--case", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "damage_matrix.json")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.case:
        print(json.dumps(run_case(args.case)))
        return
    with tempfile.TemporaryDirectory(prefix="paperchat-damage-") as tmp:
        res = matrix(args.records, Path(tmp))
    for name, r in res.items():
        print(f"{name:28} detected={r.get('detected')} fix_named={r.get('fix_named')} "
              f"search_clear_error={r.get('search_clear_error')} repaired={r.get('healthy_after')} "
              f"probe_after='{r.get('self_retrieval_after', '')}'")
        if name in SELF_HEALING:
            print(f"    self-healing: search exit {r.get('search_exit')}, "
                  f"doctor healthy after: {r.get('healthy_after')}")
        for f in r.get("findings", [])[:2]:
            print(f"    {f}")
        if r.get("crash"):
            print(f"    CRASH {r['crash']}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"records": args.records, "cases": res}, indent=2))


if __name__ == "__main__":
    main()
