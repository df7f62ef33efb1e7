"""Result and error records on disk: the final files, written whole or not at all.

A crawl's parts (`sitesift.io.parts`) become `results.jsonl` (or `results.parquet`) and
`errors.jsonl`: `concat` and `jsonl_to_parquet` read spans of files (each site's run of
records in its part, in site order) and write to a temporary name, then rename.

A write that fails (a full disk, a folder made read-only) names its file (`writing`) and
deletes its temporary file, so the space is free for the rerun; `hold_folder` (and
`hold_file`) keeps a second run out of a folder (a file) a run is writing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from sitesift.errors import FolderInUse, writing
from sitesift.io.records import DUP_OF_FIELDS, METADATA_FIELDS, RESULT_FIELDS

LOCK_NAME = ".lock"

FORMATS = ("jsonl", "parquet")
_PARQUET_BATCH = 2000
_OPEN_READERS = 64  # files `_Readers` keeps open at once

Span = tuple[Path, int, int]  # a file's bytes [start, end): whole JSONL lines


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def result_schema() -> Any:
    import pyarrow as pa

    dup_types = {"position": pa.int64(), "similarity": pa.float64(), "exact": pa.bool_()}
    dup_of = pa.struct([(name, dup_types.get(name, pa.string())) for name in DUP_OF_FIELDS])
    types = {"position": pa.int64(), "offset": pa.int64(), "blocks": pa.int32(),
             "content_blocks": pa.int32(), "warnings": pa.list_(pa.string()), "dup_of": dup_of,
             "language_score": pa.float64(), "page_type_score": pa.float64(),
             "metadata": pa.struct([(name, pa.string()) for name in METADATA_FIELDS]),
             "confidence": pa.float64(), "fallback_from_confidence": pa.float64()}
    return pa.schema([(name, types.get(name, pa.string())) for name in RESULT_FIELDS])


@contextlib.contextmanager
def replacing(target: Path) -> Iterator[Path]:
    """A temporary path beside `target` to write, renamed over `target` when the block ends
    well and deleted when it fails; an OSError names the file."""
    tmp = target.with_name(target.name + ".tmp")
    try:
        with writing(tmp):
            yield tmp
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    os.replace(tmp, target)


def write_atomic(path: Path, text: str) -> None:
    with replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


@contextlib.contextmanager
def hold_folder(folder: Path, what: str = "crawl") -> Iterator[None]:
    """Hold `folder` for this run alone (a crawl's, clean's, evaluate's or bench's --out):
    `hold` on `folder/.lock`, so that no two runs of any of them write into it at once."""
    folder.mkdir(parents=True, exist_ok=True)
    with hold(folder, folder / LOCK_NAME, what):
        yield


@contextlib.contextmanager
def hold_file(path: Path, what: str) -> Iterator[None]:
    """Hold the file `path` for this run alone (the model `fit` writes): `hold` on a hidden
    lock beside it, so that runs writing other files of its folder go on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with hold(path, path.with_name(f".{path.name}.lock"), what):
        yield


@contextlib.contextmanager
def hold(target: Path, lock: Path, what: str) -> Iterator[None]:
    """Hold `target` while the block runs: an exclusive lock (flock) on the file `lock`, or
    FolderInUse at once naming the run that holds it (its pid and command, which the lock
    file holds). The kernel drops the lock when its holder dies, however it dies, so a killed
    run's lock is taken over by the next without a stale-lock check. The lock file is
    deleted when the block ends (a killed run's stays, empty of meaning, until the next run
    takes it over). (Where flock is missing, not POSIX, nothing is locked.)"""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = _locked(target, lock, what, fcntl)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {what}".encode(), 0)
        yield
    finally:
        # deleted while still locked: a run that opened it meanwhile finds it gone, retries
        with contextlib.suppress(OSError):
            lock.unlink()
        os.close(fd)  # the lock goes with the descriptor


def _locked(target: Path, lock: Path, what: str, fcntl: Any) -> int:
    """A descriptor of `lock` holding its flock; FolderInUse if another run holds it."""
    while True:
        with writing(lock):
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 256, 0).decode("utf-8", "replace").split()
            os.close(fd)
            pid = holder[0] if holder else "unknown"
            command = holder[1] if len(holder) > 1 else what  # an older crawl wrote its pid
            raise FolderInUse(f"{target} is in use by another {command} (process {pid}): "
                              "wait for it to end, or give another --out") from None
        try:
            current = os.stat(lock)
        except FileNotFoundError:
            current = None
        mine = os.fstat(fd)
        if current is not None and (current.st_ino, current.st_dev) == (mine.st_ino,
                                                                         mine.st_dev):
            return fd
        os.close(fd)  # its holder deleted the file as it let go: lock the one there now


def whole(path: Path) -> Span:
    """A whole file as a span."""
    return path, 0, path.stat().st_size


class _Readers:
    """Open files to read spans from: the spans of many sites come from few parts, in
    another order, so a part is opened once, not once a site (at most `_OPEN_READERS` open
    at once, the least recently used closed first)."""

    def __init__(self) -> None:
        self._open: dict[Path, IO[bytes]] = {}

    def __enter__(self) -> _Readers:
        return self

    def __exit__(self, *exc: object) -> None:
        for fh in self._open.values():
            fh.close()

    def chunks(self, span: Span) -> Iterator[bytes]:
        path, start, end = span
        fh = self._open.pop(path, None) or open(path, "rb")  # noqa: SIM115 - kept open
        self._open[path] = fh  # the most recently used last
        if len(self._open) > _OPEN_READERS:
            self._open.pop(next(iter(self._open))).close()
        fh.seek(start)
        while start < end:
            chunk = fh.read(min(1 << 20, end - start))
            if not chunk:
                raise OSError(f"{path}: shorter than the {end} bytes its entry names")
            start += len(chunk)
            yield chunk


def read_spans(sources: Iterable[Span]) -> bytes:
    """The spans' bytes, one after another."""
    with _Readers() as readers:
        return b"".join(chunk for span in sources for chunk in readers.chunks(span))


Edit = Callable[[dict[str, Any]], dict[str, Any] | None]
"""A change to some of the lines of a concatenation: the record in, the record to write (or
None: drop it)."""


def _lines(sources: Iterable[Span], readers: _Readers) -> Iterator[bytes]:
    """The lines of the spans (without their line ends)."""
    for span in sources:
        rest = b""
        for chunk in readers.chunks(span):
            *lines, rest = (rest + chunk).split(b"\n")
            yield from lines
        if rest:
            raise OSError(f"{span[0]}: a record cut short at byte {span[2]}")


def concat(sources: Iterable[Span], target: Path, edits: Mapping[int, Edit] | None = None) -> int:
    """Concatenate spans of JSONL files into `target` (atomically); the number of lines.
    `edits`: changes to the lines of those numbers (from 0, in the concatenation)."""
    lines = 0
    with replacing(target) as tmp, open(tmp, "wb") as out, _Readers() as readers:
        if not edits:
            for span in sources:
                for chunk in readers.chunks(span):
                    lines += chunk.count(b"\n")
                    out.write(chunk)
            return lines
        for number, line in enumerate(_lines(sources, readers)):
            edit = edits.get(number)
            record = edit(json.loads(line)) if edit is not None else None
            if edit is None:
                out.write(line + b"\n")
            elif record is not None:
                out.write(dumps(record).encode("utf-8"))
            else:
                continue
            lines += 1
    return lines


def jsonl_to_parquet(sources: Iterable[Span], target: Path, schema: Any,
                     edits: Mapping[int, Edit] | None = None) -> int:
    """Convert spans of JSONL files into one Parquet file (atomically), in batches of rows;
    the number of rows. `edits` as for `concat`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    edits = edits or {}
    rows = 0
    with replacing(target) as tmp, pq.ParquetWriter(tmp, schema, compression="zstd") as writer, \
            _Readers() as readers:
        batch: list[dict[str, Any]] = []
        for number, line in enumerate(_lines(sources, readers)):
            edit = edits.get(number)
            record = json.loads(line) if edit is None else edit(json.loads(line))
            if record is None:  # dropped
                continue
            batch.append(record)
            if len(batch) >= _PARQUET_BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema))
                rows += len(batch)
                batch = []
        if batch or rows == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema))
            rows += len(batch)
    return rows


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
