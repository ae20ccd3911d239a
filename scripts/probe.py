"""Replay issue 23's probes against a fresh temporary store and print a table: probe | expected | got | ok.

    python scripts/probe.py                   # default preset (MiniLM embedder: the real tokenizer)
    python scripts/probe.py --preset debug    # hash embedder, faster; the tokenizer crashes do not show
    python scripts/probe.py --json            # the rows as JSON instead of Markdown
    python scripts/probe.py --only args,bytes # some groups: store, bytes, readers, eval, filters, args

The store is built from the first bundled abstracts (data/corpus.jsonl) with years 2021-2025 and
venues (ACL / NeurIPS) added, so year and venue filters have something to match. Every probe that
damages the store works on its own copy. Each probe runs the real `paperchat` CLI in a subprocess
(the store-loss "server" is a Python process holding an open Index, as the UI does). The expected
column is issue 23's "What to build"; `ok` is a check of the output against it, never a constant.
Exit status: 0 when every row is ok, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GROUPS = ("store", "bytes", "readers", "eval", "filters", "args")
N_PAPERS = 12
SURROGATE = "graph \udcff networks"  # a byte 0xff in an argument, as Python decodes it


@dataclass
class Row:
    group: str
    probe: str
    expected: str
    got: str
    ok: bool


@dataclass
class Env:
    tmp: Path
    base: Path  # the fresh store (never damaged)
    preset: str
    papers: int
    ids: list[str]

    def copy(self, name: str) -> Path:
        d = self.tmp / name
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(self.base, d)
        return d


def _environ() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "ANONYMIZED_TELEMETRY": "False", "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONIOENCODING": "utf-8"}


def cli(env: Env, data: Path, *argv: str, timeout: int = 300) -> tuple[int, str, str]:
    cmd = [sys.executable, "-m", "assistant.cli", "--preset", env.preset, "--data-dir", str(data), *argv]
    try:
        p = subprocess.run(cmd, env=_environ(), cwd=ROOT, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -9, "", f"timed out after {timeout}s"
    dec = lambda b: b.decode("utf-8", "replace")  # noqa: E731
    return p.returncode, dec(p.stdout), dec(p.stderr)


def python(code: str, timeout: int = 300) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-c", code], env=_environ(), cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout, errors="replace")
    return p.returncode, p.stdout, p.stderr


def key_line(rc: int, out: str, err: str, *needles: str) -> str:
    """rc plus the most telling line: a Traceback's last line, an `error:` line, or one with a needle."""
    lines = [ln.strip() for ln in (err + "\n" + out).splitlines() if ln.strip() and "it/s]" not in ln]
    pick = ""
    if "Traceback" in err:
        pick = next((ln for ln in reversed(err.splitlines()) if ln.strip() and not ln.startswith(" ")), "")
    errors = [ln for ln in lines if "error:" in ln or "warning:" in ln]
    for pool in (errors, lines):
        for n in needles:
            pick = pick or next((ln for ln in pool if n.lower() in ln.lower()), "")
    pick = pick or (errors[0] if errors else lines[-1] if lines else "")
    return f"rc={rc}: {pick}"


def traceback_free(err: str) -> bool:
    return "Traceback" not in err


# ---- the store --------------------------------------------------------------------------------------------------


def build_store(tmp: Path, preset: str) -> Env:
    rows = [json.loads(x) for x in (ROOT / "data" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:N_PAPERS]]
    src = tmp / "papers.jsonl"
    with src.open("w", encoding="utf-8") as f:
        for i, r in enumerate(rows):
            f.write(json.dumps({"id": f"paper-{i:02d}", "title": r.get("title") or r.get("label") or f"Paper {i}",
                                "abstract": r["text"], "year": 2021 + i % 5, "venue": "ACL" if i % 2 else "NeurIPS",
                                "authors": [f"Author {i}"]}) + "\n")
    base = tmp / "base"
    env = Env(tmp, base, preset, N_PAPERS, [f"paper-{i:02d}" for i in range(N_PAPERS)])
    rc, out, err = cli(env, base, "ingest", str(src), "--quiet")
    if rc != 0:
        sys.exit(f"probe: could not build the store ({key_line(rc, out, err)})")
    rc, out, _ = cli(env, base, "stats", "--json")
    if rc != 0 or json.loads(out)["papers"] != N_PAPERS or not json.loads(out)["dense_coverage"]["complete"]:
        sys.exit(f"probe: the fresh store is not complete: {out[:300]}")
    return env


def _stats(env: Env, data: Path) -> dict:
    rc, out, _ = cli(env, data, "stats", "--json")
    try:
        return json.loads(out) if rc == 0 else {}
    except ValueError:
        return {}


# ---- group 1: the records store ---------------------------------------------------------------------------------

SERVER = """
import json, os, sys
from pathlib import Path
from assistant.errors import AssistantError
from assistant.index.indexer import Index
from assistant.settings import load_settings
from assistant.types import Record
s = load_settings({preset!r}, {{"store.data_dir": {data!r}}})
index = Index(s)
index.stats()  # the store is open and in use, as in a serving UI
Path({data!r}, "records.sqlite3").{damage}
try:
    res = index.add([Record("uploaded-1", "An uploaded abstract about sparse attention for long documents. "
                            "It reports faster inference at equal accuracy.", title="Uploaded paper")])
    print("ACCEPTED", res.added)
except AssistantError as e:
    print("REFUSED", e.message, "| hint:", e.hint)
"""


HOLDER = """
import time
from pathlib import Path
from assistant.index.indexer import Index
from assistant.settings import load_settings
from assistant.types import Record
index = Index(load_settings({preset!r}, {{"store.data_dir": {data!r}}}))
index.stats()
Path({data!r}, "records.sqlite3").write_bytes(b"")
for call in (lambda: index.add([Record("u1", "An uploaded abstract about sparse attention. It is fast.", title="U")]),
             index.stats):
    try:
        call()
    except Exception:  # the damaged store: whatever the server does with it, it keeps running
        pass
print("held", flush=True)
time.sleep(120)
"""


def _repair_named(doctor_output: str) -> list[str]:
    """The `paperchat rebuild-index ...` command of doctor's first `fix:` line, else plain rebuild-index."""
    for line in doctor_output.splitlines():
        words = line.replace("`", " ").split()
        if "fix:" in words and "rebuild-index" in words:
            i = words.index("rebuild-index")
            return ["rebuild-index", *[w.strip(",;.()") for w in words[i + 1:] if w.startswith("--")][:1]]
    return ["rebuild-index"]


def probe_store(env: Env) -> list[Row]:
    rows = []
    for name, damage in (("rm", "unlink()"), ("truncate -s 0", "write_bytes(b'')")):
        d = env.copy(f"served-{name.split()[0]}")
        rc, out, err = python(SERVER.format(preset=env.preset, data=str(d), damage=damage))
        said = (out.strip().splitlines() or [key_line(rc, out, err)])[-1]
        after = _stats(env, d)
        rows.append(Row("store", f"`{name} records.sqlite3` under a serving process, then an upload",
                        "the write is refused with a clear message; nothing written into a fresh empty file",
                        f"{said[:150]}; then stats: {after.get('records')} records / {after.get('papers')} papers",
                        said.startswith("REFUSED") and traceback_free(err)))
    for name, damage in (("rm", lambda p: p.unlink()), ("truncate -s 0", lambda p: p.write_bytes(b""))):
        d = env.copy(f"stopped-{name.split()[0]}")
        damage(d / "records.sqlite3")
        rc, out, err = cli(env, d, "doctor", "--no-probe")
        rows.append(Row("store", f"`{name} records.sqlite3` (server stopped), then `doctor`",
                        f"exit != 0, names the loss (0 records while {env.papers} papers are indexed) and the repair",
                        key_line(rc, out, err, "record"), rc != 0 and "store is healthy" not in out))
        repair = _repair_named(out + err)
        rc, out, err = cli(env, d, *repair, "--quiet")
        st = _stats(env, d)
        rows.append(Row("store", f"`{name} records.sqlite3`, then the repair doctor names (else `rebuild-index`)",
                        f"not 'nothing to rebuild': every record Chroma holds comes back ({env.papers})",
                        f"`{' '.join(repair)}` " + key_line(rc, out, err, "record", "rebuil")
                        + f"; stats records={st.get('records')}",
                        st.get("records") == env.papers and "nothing to rebuild" not in out))
    d = env.copy("truncated-dense")
    (d / "records.sqlite3").write_bytes(b"")
    rc, out, err = cli(env, d, "rebuild-index", "--dense", "--quiet")
    st = _stats(env, d)
    rows.append(Row("store", "`truncate -s 0 records.sqlite3`, then `rebuild-index --dense`",
                    "names the records loss and its repair (rebuild the records from Chroma), never 'holds no records'",
                    key_line(rc, out, err, "record"), "holds no records" not in err + out and
                    (st.get("records") == env.papers or "--records" in err + out)))
    d = env.copy("served-damaged")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER.format(preset=env.preset, data=str(d))],
                              stdout=subprocess.PIPE, text=True, env=_environ(), cwd=ROOT)
    try:
        holder.stdout.readline()  # the "server" has the store open, damaged under it
        rc, out, err = cli(env, d, "doctor", "--no-probe", timeout=120)
    finally:
        holder.kill()
        holder.wait()
    hint = next((ln for ln in err.splitlines() if ln.startswith("hint:")), "")
    rows.append(Row("store", "`doctor` while a serving process holds a damaged (truncated) records store",
                    "exit != 0 naming the damage (or the server's PID, to stop it first); "
                    "no hint to run `paperchat doctor`",
                    key_line(rc, out, err, "record", "lock"), rc != 0 and "store is healthy" not in out
                    and "paperchat doctor" not in hint and traceback_free(err)))
    return rows


# ---- group 2: bad bytes -----------------------------------------------------------------------------------------


def _jsonl(path: Path, rows: list) -> Path:
    path.write_bytes(b"\n".join(r if isinstance(r, bytes) else json.dumps(r).encode() for r in rows) + b"\n")
    return path


def probe_bytes(env: Env) -> list[Row]:
    rows = []
    refused = "exit 2, 'holds a broken character at position N', no traceback"
    for argv in (["search", SURROGATE], ["ask", SURROGATE],
                 ["verify", SURROGATE, "--source", "Graph networks are fast."]):
        rc, out, err = cli(env, env.base, *argv)
        rows.append(Row("bytes", f"`{argv[0]}` with a lone surrogate in the argument", refused,
                        key_line(rc, out, err, "broken"),
                        rc == 2 and "broken character" in err and traceback_free(err)))
    q = _jsonl(env.tmp / "q3.jsonl", [{"id": "a", "question": "What do the papers say about federated learning?"},
                                      b'{"id": "b", "question": "graph \\udcff networks"}',
                                      {"id": "c", "question": "Which papers study language models?"}])
    out_path = env.tmp / "q3-answers.jsonl"
    rc, out, err = cli(env, env.base, "ask", "--batch", str(q), "--out", str(out_path))
    n = len(out_path.read_text(encoding="utf-8").splitlines()) if out_path.exists() else 0
    rows.append(Row("bytes", "`ask --batch`: 3 questions, the 2nd with a lone surrogate",
                    "line 2 named and skipped, the other 2 answered, exit 1",
                    f"{key_line(rc, out, err, 'line 2')}; {n} answers written",
                    n == 2 and "line 2" in err and rc == 1 and traceback_free(err)))
    src = "Federated learning trains models on data that stays on the clients."
    for name, bad in (("a lone surrogate", b'{"id": "b", "claim": "bad \\ud83d claim", "source": "x"}'),
                      ("a Latin-1 byte", b'{"id": "b", "claim": "caf\xe9 claim", "source": "x"}')):
        p = _jsonl(env.tmp / "pairs.jsonl",
                   [{"id": "a", "claim": "Federated learning keeps data on clients.", "source": src},
                    bad, {"id": "c", "claim": "Models train on client data.", "source": src}])
        o = env.tmp / "verdicts.jsonl"
        o.unlink(missing_ok=True)
        rc, out, err = cli(env, env.base, "verify", "--batch", str(p), "--out", str(o))
        n = len(o.read_text(encoding="utf-8").splitlines()) if o.exists() else 0
        part = o.with_name(o.name + ".part").exists()
        rows.append(Row("bytes", f"`verify --batch` with {name} on line 2",
                        "line 2 named, the other pairs verified and written, no .part left",
                        f"{key_line(rc, out, err, 'line 2')}; {n} verdicts; .part left: {part}",
                        n == 2 and "line 2" in err and not part and traceback_free(err)))
    rc, out, err = python(
        "import gradio as gr\nfrom assistant.settings import load_settings\nfrom ui.handlers import Handlers\n"
        f"h = Handlers(None, load_settings({env.preset!r}, {{}}), ['extractive'])\n"
        "try:\n    h.ask('graph \\udcff networks', None)\nexcept gr.Error as e:\n    print('gr.Error:', e.message)\n")
    rows.append(Row("bytes", "UI/API `/ask` handler with a lone surrogate (in-process)",
                    "a clear message naming the broken character, not a trace id",
                    (out.strip() or key_line(rc, out, err))[:160], "broken character" in out and "trace id" not in out))
    return rows


# ---- group 3: readers -------------------------------------------------------------------------------------------


def probe_readers(env: Env) -> list[Row]:
    rows = []
    d = env.copy("csv")
    p = env.tmp / "joined.csv"
    p.write_text("id,title,abstract\n"
                 "csv-1,Sparse attention,We propose sparse attention for long documents and halve inference time.\n"
                 "id,title,abstract\n"
                 "csv-2,Tiny transformers,We distil transformers into tiny models that keep most of their accuracy.\n"
                 "paper_id,title,text\n", encoding="utf-8")
    rc, out, err = cli(env, d, "ingest", str(p), "--quiet")
    st = _stats(env, d)
    rc2, out2, _ = cli(env, d, "search", "abstract", "--json", "--k", "3")
    ids = [h["paper_id"] for h in json.loads(out2)["hits"]] if rc2 == 0 else []
    rows.append(Row("readers", "CSV header repeated mid-file (line 3) and a row of column names (line 5)",
                    "both rows reported as not data; 2 papers added, no paper `id`; "
                    "search 'abstract' does not find one",
                    f"{key_line(rc, out, err, 'header')}; papers {st.get('papers')}; search 'abstract' -> {ids}",
                    st.get("papers") == env.papers + 2 and "id" not in ids and "joined.csv:3:" in err
                    and "joined.csv:5:" in err))
    return rows


# ---- group 4: the evaluation harness ----------------------------------------------------------------------------


def probe_eval(env: Env) -> list[Row]:
    rows = []
    good = _jsonl(env.tmp / "gold-good.jsonl", [
        {"id": "g1", "question": "Which papers study federated learning?", "gold": [env.ids[0]]},
        {"id": "g2", "question": "What is said about training data?", "gold": [env.ids[0], env.ids[1]]}])
    run_a, run_b = env.tmp / "run-a", env.tmp / "run-b"
    for r in (run_a, run_b):
        shutil.rmtree(r, ignore_errors=True)
        rc, out, err = cli(env, env.base, "eval", "run", "--questions", str(good), "--retrieval-only", "--out", str(r),
                           "--no-plots", "--quiet")
    for name, q in (('"gold": "a string"', {"id": "j1", "question": "Which papers study pruning?", "gold": env.ids[0]}),
                    ('"gold": 123', {"id": "j2", "question": "Which papers study pruning?", "gold": 123}),
                    ('"gold": [null, {...}]',
                     {"id": "j3", "question": "Which papers study pruning?", "gold": [None, {"a": 1}]}),
                    ("a list as `id`", {"id": ["x"], "question": "Which papers study pruning?", "gold": [env.ids[0]]})):
        p = _jsonl(env.tmp / "gold-bad.jsonl", [{"id": "ok", "question": "Which papers study language models?",
                                                 "gold": [env.ids[1]]}, q])
        out_dir = env.tmp / "run-bad"
        shutil.rmtree(out_dir, ignore_errors=True)
        rc, out, err = cli(env, env.base, "eval", "run", "--questions", str(p), "--retrieval-only", "--out",
                           str(out_dir), "--no-plots", "--quiet")
        rows.append(Row("eval", f"`eval run` with {name} on line 2",
                        "refused by the schema, naming line 2 and the field; no metrics computed on junk",
                        key_line(rc, out, err, "gold", "id"),
                        rc != 0 and ("line 2" in err or ":2" in err) and traceback_free(err)))
    for fname in ("results.jsonl", "summary.json"):
        cut = env.tmp / f"run-cut-{fname.split('.')[0]}"
        shutil.rmtree(cut, ignore_errors=True)
        if run_b.is_dir():
            shutil.copytree(run_b, cut)
            text = (cut / fname).read_text(encoding="utf-8")
            (cut / fname).write_text(text[: max(1, len(text) // 2 + 3)], encoding="utf-8")
        rc, out, err = cli(env, env.base, "eval", "compare", str(run_a), str(cut))
        rows.append(Row("eval", f"`eval compare` on a run whose {fname} is cut mid-line",
                        f"names {fname} and the line; no bare JSONDecodeError", key_line(rc, out, err, fname),
                        rc != 0 and fname in err and traceback_free(err)))
    cmp_dir = env.tmp / "cmp"
    rc, out, err = cli(env, env.base, "eval", "compare", str(run_a), str(run_b), "--resamples", "200",
                       "--out", str(cmp_dir))
    md = (cmp_dir / "compare.md").read_text(encoding="utf-8") if (cmp_dir / "compare.md").exists() else ""
    says = [w for w in ("10,000", "10000", "200") if w in md]
    rows.append(Row("eval", "`eval compare --resamples 200`: compare.md and compare.json",
                    "compare.md says 200 resamples, as compare.json does", f"rc={rc}; compare.md mentions {says}",
                    rc == 0 and "200" in md and "10,000" not in md and "10000" not in md))
    return rows


# ---- group 5: filters -------------------------------------------------------------------------------------------


def _answer(env: Env, *argv: str) -> tuple[int, dict, str]:
    rc, out, err = cli(env, env.base, "ask", *argv, "--json")
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, {}, key_line(rc, out, err)


def probe_filters(env: Env) -> list[Row]:
    rows = []
    for q, year in (("Which papers in 2031 study language models?", "2031"),
                    ("Which papers from year 99999999999 study language models?", "99999999999")):
        rc, a, err = _answer(env, q)
        text = a.get("answer", err)
        rows.append(Row("filters", f"ask {q!r}", f"says no paper is from {year} and the newest is 2025; lists none",
                        f"rc={rc}: {text[:150]!r}; {len(a.get('citations') or [])} cited",
                        year in text and "2025" in text and not a.get("citations")))
    rc, out, err = cli(env, env.base, "search", "language models", "--year-min", "2025", "--year-max", "2020")
    rows.append(Row("filters", "`search --year-min 2025 --year-max 2020`", "refused: the range is empty (exit 2)",
                    key_line(rc, out, err, "year"), rc == 2 and "year" in err.lower() and traceback_free(err)))
    q = "Which ACL papers published before 2021 and after 2024 study language models?"
    rc, a, err = _answer(env, q)
    text = a.get("answer", err)
    rows.append(Row("filters", f"ask {q!r} (contradictory years; 6 papers have venue ACL)",
                    "the abstention names the year filter, not the topic or ACL", f"rc={rc}: {text[:150]!r}",
                    "mentions ACL" not in text and ("2021" in text or "2024" in text or "year" in text.lower())))
    return rows


# ---- group 6: arguments -----------------------------------------------------------------------------------------


def probe_args(env: Env) -> list[Row]:
    rows = []
    q = _jsonl(env.tmp / "dups.jsonl", [{"id": "a", "question": "Which papers study federated learning?"},
                                        {"id": "a", "question": "Which papers study language models?"}])
    p = _jsonl(env.tmp / "dup-pairs.jsonl",
               [{"id": "a", "claim": "Models are trained.", "source": "Models are trained."},
                {"id": "a", "claim": "Data is private.", "source": "Data stays private."}])
    q1 = _jsonl(env.tmp / "one.jsonl", [{"id": "a", "question": "Which papers study federated learning?"}])
    p1 = _jsonl(env.tmp / "one-pair.jsonl",
                [{"id": "a", "claim": "Models are trained.", "source": "Models are trained."}])
    outdir = env.tmp / "out-dir"
    outdir.mkdir(exist_ok=True)
    for argv, what in ((["ask", "--batch", str(q1)], "ask"), (["verify", "--batch", str(p1)], "verify")):
        t0 = time.perf_counter()
        rc, out, err = cli(env, env.base, *argv, "--out", str(outdir))
        s = time.perf_counter() - t0
        rows.append(Row("args", f"`{what} --batch --out DIR` (a directory)",
                        "refused before any work: '--out DIR is a directory', exit 2",
                        f"{key_line(rc, out, err, 'directory')} ({s:.1f} s)",
                        rc == 2 and "is a directory" in err and traceback_free(err)))
    for cmd, k in (("search", "0"), ("ask", "-3"), ("search", "1000000000"), ("ask", "1000000000")):
        rc, out, err = cli(env, env.base, cmd, "language models", "--k", k)
        rows.append(Row("args", f"`{cmd} --k {k}`", "refused with the allowed range (1-100), exit 2",
                        key_line(rc, out, err, "--k"), rc == 2 and "--k" in err and "100" in err))
    for argv, what in ((["verify", "--batch", str(p)], "verify"), (["ask", "--batch", str(q)], "ask")):
        o = env.tmp / f"dup-{what}.jsonl"
        rc, out, err = cli(env, env.base, *argv, "--out", str(o))
        rows.append(Row("args", f"`{what} --batch` with a duplicate id", "a warning naming both lines",
                        key_line(rc, out, err, "duplicate"), "duplicate id" in err and "line 1" in err))
    svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><text>@article</text></svg>\n'
    html = "<!DOCTYPE html>\n<html><body>Download @article{x, ...}</body></html>\n"
    for name, content in (("SVG", svg), ("HTML", html)):
        p = env.tmp / f"renamed-{name.lower()}.bib"
        p.write_text(content, encoding="utf-8")
        rc, out, err = cli(env, env.copy("bib"), "ingest", str(p), "--quiet")
        rows.append(Row("args", f"{name} renamed to .bib: `ingest`",
                        "says 'no BibTeX entries found' (not a silent '0 added, 0 skipped')",
                        key_line(rc, out, err, "no BibTeX"), "no BibTeX entries found" in err))
        rc, out, err = cli(env, env.copy("bib"), "ingest", str(p), "--strict", "--quiet")
        rows.append(Row("args", f"{name} renamed to .bib: `ingest --strict`", "exit != 0",
                        key_line(rc, out, err, "no BibTeX"), rc != 0 and traceback_free(err)))
    return rows


PROBES: dict[str, Callable[[Env], list[Row]]] = {
    "store": probe_store, "bytes": probe_bytes, "readers": probe_readers, "eval": probe_eval,
    "filters": probe_filters, "args": probe_args,
}


def markdown(rows: list[Row]) -> str:
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    out = ["| probe | expected | got | ok |", "|---|---|---|---|"]
    out += [f"| {esc(r.probe)} | {esc(r.expected)} | {esc(r.got)} | {'ok' if r.ok else '**not ok**'} |" for r in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="default", help="Settings preset of the store (default: default).")
    ap.add_argument("--json", action="store_true", help="Print the rows as JSON.")
    ap.add_argument("--only", default=",".join(GROUPS), help=f"Comma-separated groups ({', '.join(GROUPS)}).")
    ap.add_argument("--keep", type=Path, help="Build the store in this directory and keep it.")
    args = ap.parse_args(argv)
    groups = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in groups if g not in PROBES]
    if unknown:
        ap.error(f"unknown group(s): {', '.join(unknown)}; choose from {', '.join(GROUPS)}")
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="paperchat-probe-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        env = build_store(tmp, args.preset)
        rows = [r for g in groups for r in PROBES[g](env)]
        for r in rows:  # the same table on every machine
            r.got = r.got.replace(str(tmp), "$TMP")
        if args.json:
            print(json.dumps({"preset": args.preset, "seconds": round(time.perf_counter() - t0, 1),
                              "ok": sum(r.ok for r in rows), "rows": [asdict(r) for r in rows]}, indent=2,
                             ensure_ascii=False))
        else:
            print(markdown(rows))
            print(f"\n{sum(r.ok for r in rows)} of {len(rows)} probes as expected "
                  f"(preset {args.preset}, {time.perf_counter() - t0:.0f} s).")
        return 0 if all(r.ok for r in rows) else 1
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
