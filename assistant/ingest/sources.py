"""Opening a source file: whole-file checks, transparent gzip, numbered byte lines, per-line decoding.

Scope: the only module of `assistant.ingest` that touches the file system. Files are read as bytes and
line by line, so nothing is ever loaded whole (a 75k-record .jsonl.gz streams in constant memory).
Whole-file problems raise `IngestError` with a hint; a stream that breaks part-way (a truncated .gz)
raises `SourceTruncated`, which `read_source` turns into one final `IngestIssue`.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..errors import IngestError, ParseError

GZIP_MAGIC = b"\x1f\x8b"
SNIFF_BYTES = 64 * 1024


class SourceTruncated(ParseError):
    """The byte stream broke after `line` good lines (corrupt or truncated compressed data)."""

    def __init__(self, message: str, line: int, hint: str = "") -> None:
        super().__init__(message, hint)
        self.line = line


def is_gzip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_binary(path: Path) -> IO[bytes]:
    """Open `path` for binary reading, decompressing gzip (detected by its magic bytes, not its name)."""
    if is_gzip(path):
        return gzip.open(path, "rb")
    return path.open("rb")


def check_readable(path: Path) -> bytes:
    """Raise IngestError if `path` can't be read as a text source; return its first bytes (decompressed).

    Rejected: missing paths, directories, unreadable files, bad gzip data, and binary content (NUL
    bytes, PDF, UTF-16) -- each with a hint saying what to do instead.
    """
    if not path.exists():
        raise IngestError(
            f"{path}: no such file", hint="Check the path; relative paths start at the current directory."
        )
    if path.is_dir():
        raise IngestError(
            f"{path} is a directory", hint="Pass a file (e.g. abstracts.jsonl), or ingest each file of the folder."
        )
    try:
        with open_binary(path) as fh:
            head = fh.read(SNIFF_BYTES)
    except PermissionError as e:
        raise IngestError(f"{path}: permission denied", hint="Make the file readable for this user.") from e
    except (OSError, EOFError, zlib.error) as e:
        if is_gzip(path):
            raise IngestError(
                f"{path}: the gzip data is corrupt ({e})",
                hint="Re-download or re-compress the file (`gzip -t FILE` checks it).",
            ) from e
        raise IngestError(f"{path}: cannot be read ({e})", hint="Check that the file is a readable text file.") from e
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise IngestError(f"{path} is UTF-16 text", hint="Re-save the file as UTF-8 (e.g. `iconv -f UTF-16 -t UTF-8`).")
    if head.startswith(b"%PDF-"):
        raise IngestError(
            f"{path} is a PDF", hint="Export the abstracts to JSONL, CSV, BibTeX or plain text and ingest that file."
        )
    if b"\x00" in head:
        raise IngestError(
            f"{path} looks binary (it contains NUL bytes)",
            hint="Ingest a text file: JSONL, CSV, BibTeX or plain text (UTF-8), optionally gzip-compressed.",
        )
    return head


MB = 1024 * 1024
DEFAULT_MAX_LINE_BYTES = 4 * MB
DEFAULT_MAX_DECOMPRESSED_BYTES = 1024 * MB
_DRAIN = 1 * MB


class TooMuchData(SourceTruncated):
    """A compressed file decompressed to more than the configured bound (a gzip bomb, or a wrong file)."""


class LineSource:
    """(1-based line number, line bytes without the line ending) of a file, read lazily with bounds.

    A line longer than `max_line_bytes` is never held whole: it is yielded as b"" (so readers see a
    blank line) and its number is appended to `oversize`, which `read_source` turns into one issue per
    line. A gzip file that decompresses past `max_decompressed_bytes` raises `TooMuchData` after the
    last good line; a compressed stream that breaks part-way raises `SourceTruncated`.
    """

    def __init__(self, path: Path, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                 max_decompressed_bytes: int = DEFAULT_MAX_DECOMPRESSED_BYTES) -> None:
        self.path = path
        self.max_line = max(1, max_line_bytes)
        self.max_total = max_decompressed_bytes
        self.oversize: list[int] = []

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        lineno, total = 0, 0
        gz = is_gzip(self.path)
        try:
            with open_binary(self.path) as fh:
                while True:
                    raw = fh.readline(self.max_line + 1)
                    if not raw:
                        return
                    lineno += 1
                    total += len(raw)
                    if len(raw.rstrip(b"\r\n")) > self.max_line:
                        while raw and not raw.endswith(b"\n"):  # skip the rest of the line in bounded reads
                            raw = fh.readline(_DRAIN)
                            total += len(raw)
                            self._check_total(gz, total, lineno)
                        self.oversize.append(lineno)
                        yield lineno, b""
                        continue
                    self._check_total(gz, total, lineno)
                    yield lineno, raw.rstrip(b"\n").rstrip(b"\r")
        except (EOFError, zlib.error, gzip.BadGzipFile) as e:
            raise SourceTruncated(
                f"the compressed data ends or breaks after line {lineno} ({e}); the records before it were read",
                lineno,
                hint="Re-download or re-compress the file; `gzip -t FILE` checks it.",
            ) from e

    def _check_total(self, gz: bool, total: int, lineno: int) -> None:
        if gz and total > self.max_total:
            raise TooMuchData(
                f"the gzip data decompresses to more than {self.max_total // MB:,} MB "
                f"(ingest.max_decompressed_mb); stopped at line {lineno}, the records before it were read",
                max(0, lineno - 1),
                hint="If the file is genuine, raise the bound: --set ingest.max_decompressed_mb=N; "
                "otherwise it is a decompression bomb: delete it.",
            )


def iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """Yield (1-based line number, line bytes without the line ending) lazily, with the default bounds."""
    return iter(LineSource(path))


def decode_strict(raw: bytes, lineno: int) -> str | None:
    """Decode one line as UTF-8 (a BOM on line 1 is dropped); None if the bytes are not valid UTF-8."""
    if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decode_lenient(raw: bytes, lineno: int) -> str:
    """Decode one line keeping bad bytes as lone surrogates (see `clean.has_undecodable`)."""
    if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    return raw.decode("utf-8", errors="surrogateescape")


def bad_utf8_message(raw: bytes) -> str:
    """Say where the first invalid UTF-8 byte of `raw` is."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"invalid UTF-8 (byte 0x{raw[e.start]:02x} at column {e.start + 1}); re-save the file as UTF-8"
    return "invalid UTF-8; re-save the file as UTF-8"
