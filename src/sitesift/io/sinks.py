"""Result and error records on disk: per-site parts while a crawl runs, then the final files.

While a site is cleaned its records go to `<site>.results.jsonl.tmp` and
`<site>.errors.jsonl.tmp`; when it is done both are renamed at once, before the site is
entered in the done-manifest. A site whose parts were never renamed is redone from
scratch on resume, so a kill at any moment neither loses nor duplicates a record.
`finish` concatenates the parts in site order into `results.jsonl` (or converts them to
`results.parquet`) and `errors.jsonl`, each written to a temporary name and renamed.

A write that fails (a full disk, a folder made read-only) names its file (`writing`) and
deletes its temporary file, so the space is free for the rerun; `hold_folder` (and
`hold_file`) keeps a second run out of a folder (a file) a run is writing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from sitesift.errors import FolderInUse, writing
from sitesift.io.records import RESULT_FIELDS, is_result
from sitesift.io.spill import site_file

LOCK_NAME = ".lock"

FORMATS = ("jsonl", "parquet")
_PARQUET_BATCH = 2000


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def result_schema() -> Any:
    import pyarrow as pa

    types = {"position": pa.int64(), "offset": pa.int64(), "blocks": pa.int32(),
             "content_blocks": pa.int32(), "warnings": pa.list_(pa.string())}
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


class PartStore:
    """Per-site part files in `folder`; open ones are `.tmp` until `commit`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.tmp"):  # a site cut off by a kill: it is redone
            stale.unlink()
        self._open: dict[str, tuple[IO[str], IO[str]]] = {}

    def _paths(self, site: str) -> tuple[Path, Path]:
        name = site_file(site)
        return self.folder / f"{name}.results.jsonl", self.folder / f"{name}.errors.jsonl"

    def write(self, site: str, record: dict[str, Any]) -> None:
        files = self._open.get(site)
        tmps = [f"{path}.tmp" for path in self._paths(site)]
        if files is None:
            files = (open(tmps[0], "w", encoding="utf-8"),  # noqa: SIM115 - kept open
                     open(tmps[1], "w", encoding="utf-8"))  # noqa: SIM115
            self._open[site] = files
        kind = 0 if is_result(record) else 1
        with writing(tmps[kind]):
            files[kind].write(dumps(record))

    def commit(self, site: str) -> None:
        files = self._open.pop(site, None)
        for fh in files or ():
            _close(fh)
        for path in self._paths(site):
            tmp = Path(f"{path}.tmp")
            if files is None:
                tmp.touch()
            os.replace(tmp, path)

    def close(self) -> None:
        for files in self._open.values():
            for fh in files:
                _close(fh)
        self._open.clear()

    def abandon(self) -> None:
        """After a failure: close and delete the open parts (their sites are redone on
        resume anyway), freeing their space; errors on the way are the failure's own."""
        for site, files in self._open.items():
            for fh, path in zip(files, self._paths(site), strict=True):
                with contextlib.suppress(OSError):
                    fh.close()
                with contextlib.suppress(OSError):
                    Path(f"{path}.tmp").unlink()
        self._open.clear()

    def parts(self, sites: Iterable[str]) -> tuple[list[Path], list[Path]]:
        pairs = [self._paths(s) for s in sorted(sites)]
        return [r for r, _ in pairs], [e for _, e in pairs]


def _close(fh: IO[str]) -> None:
    with writing(fh.name):  # a full disk shows when the buffer is written out
        fh.close()


def concat(sources: Iterable[Path], target: Path) -> int:
    """Concatenate JSONL files into `target` (atomically); the number of lines."""
    lines = 0
    with replacing(target) as tmp, open(tmp, "wb") as out:
        for src in sources:
            with open(src, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    lines += chunk.count(b"\n")
                    out.write(chunk)
    return lines


def jsonl_to_parquet(sources: Iterable[Path], target: Path, schema: Any) -> int:
    """Convert JSONL files into one Parquet file (atomically), in batches of rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 0
    with replacing(target) as tmp, pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
        batch: list[dict[str, Any]] = []
        for src in sources:
            with open(src, encoding="utf-8") as fh:
                for line in fh:
                    batch.append(json.loads(line))
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
