"""A crawl's result and error records while it runs, and which of its sites are done.

Records come by site, the sites of several workers interleaved. A site's records are held in
memory until the site is done (up to `SITE_HELD` bytes; a site that outgrows that gets a part of
its own, written as its records come), then appended to the open batch part; so a part holds
each of its sites' records in one run, and small sites, however many, share a part. A part is
three files, `parts/part-<n>.results.jsonl`, `part-<n>.errors.jsonl` and `part-<n>.dups.bin`
(each result's row for the crawl-wide copy check, `sitesift.io.dups`, in the order of the
results), named `.tmp` until committed. Finished sites are committed together, once
`BATCH_SECONDS` have passed since the first of them finished (a site with a part of its own at
once, and the rest at the end): their parts are renamed into place, then one append to
`done.jsonl` enters them, each line a site's entry with where its records are (`part`: the part
and the byte span of its results, its errors and its rows). So a site is in done.jsonl only once
its records are in committed parts; a kill before that leaves `.tmp` files, deleted by the next
run, and sites it cleans again from scratch (at most `BATCH_SECONDS` of finished work lost); a
kill after the renames but within the append leaves parts that no line names (never overwritten:
new parts are numbered after every part there) and a last line cut short, whose site is cleaned
again. A failure (a full disk) deletes the `.tmp` files (`abandon`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from sitesift.errors import writing
from sitesift.io.records import DUP_ROW, is_result
from sitesift.io.sinks import Span, dumps

BATCH_SECONDS = 10.0  # finished sites wait at most this long to be committed
SITE_HELD = 1 << 20  # bytes of a site's records held in memory before it gets its own part
KINDS = ("results", "errors", "dups")
_FILES = ("results.jsonl", "errors.jsonl", "dups.bin")
_NUMBERED = re.compile(r"part-(\d+)\.")


class _Part:
    """A part being written: its `.tmp` files, opened at the first record."""

    def __init__(self, folder: Path, number: int) -> None:
        self.name = f"part-{number}"
        self.paths = tuple(folder / f"{self.name}.{file}" for file in _FILES)
        self.sizes = [0] * len(KINDS)
        self._files: list[IO[bytes]] = []

    def write(self, kind: int, lines: list[bytes]) -> None:
        if not self._files:
            for path in self.paths:
                with writing(_tmp(path)):
                    self._files.append(open(_tmp(path), "wb"))  # noqa: SIM115 - kept open
        with writing(_tmp(self.paths[kind])):
            self._files[kind].writelines(lines)
        self.sizes[kind] += sum(map(len, lines))

    def commit(self) -> None:
        """Close and rename into place (a part with nothing written has no files)."""
        for fh, path in zip(self._files, self.paths, strict=True):
            with writing(fh.name):  # a full disk shows when the buffer is written out
                fh.close()
            os.replace(_tmp(path), path)
        self._files = []

    def discard(self) -> None:
        for fh, path in zip(self._files, self.paths, strict=True):
            with contextlib.suppress(OSError):
                fh.close()
            with contextlib.suppress(OSError):
                _tmp(path).unlink()
        self._files = []


def _tmp(path: Path) -> Path:
    return path.with_name(path.name + ".tmp")


@dataclass(slots=True)
class _Held:
    """A site being cleaned: its records so far, in memory or in a part of its own."""

    lines: tuple[list[bytes], ...] = field(default_factory=lambda: tuple([] for _ in KINDS))
    size: int = 0
    own: _Part | None = None


class PartStore:
    """The parts and the done-manifest of the work folder `work` (see the module docstring):
    `done` holds the entries of the committed sites."""

    def __init__(self, work: Path, batch_seconds: float | None = None) -> None:
        self.folder = work / "parts"
        self.manifest = work / "done.jsonl"
        self.batch_seconds = BATCH_SECONDS if batch_seconds is None else batch_seconds
        self.folder.mkdir(parents=True, exist_ok=True)
        numbers = [-1]
        for path in self.folder.iterdir():
            if path.name.endswith(".tmp"):  # a batch cut off by a kill: its sites are redone
                path.unlink()
            elif match := _NUMBERED.match(path.name):
                numbers.append(int(match.group(1)))
        self._next = max(numbers) + 1
        self.done: dict[str, dict[str, Any]] = {}
        self._where: dict[str, dict[str, Any]] = {}
        self._read_manifest()
        self._held: dict[str, _Held] = {}
        self._batch: _Part | None = None
        self._ready: list[_Part] = []  # parts of finished sites, to commit with the batch
        self._pending: list[dict[str, Any]] = []  # their manifest lines
        self._since: float | None = None  # when the first of them finished

    def _read_manifest(self) -> None:
        if not self.manifest.is_file():
            return
        text = self.manifest.read_text("utf-8")
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:  # a line cut by a kill: that site is redone
                continue
            self._where[entry["site"]] = entry.pop("part")
            self.done[entry["site"]] = entry
        if text and not text.endswith("\n"):  # so that the next entry starts a line
            with writing(self.manifest), open(self.manifest, "a", encoding="utf-8") as log:
                log.write("\n")

    def _new_part(self) -> _Part:
        self._next += 1
        return _Part(self.folder, self._next - 1)

    def write(self, site: str, record: dict[str, Any]) -> None:
        """Keep a record of a site being cleaned (a result's row for the copy check,
        `DUP_ROW`, apart from it)."""
        held = self._held.setdefault(site, _Held())
        row = record.pop(DUP_ROW, None)
        kind = 0 if is_result(record) else 1
        if kind == 0 and row is None:
            raise ValueError(f"{record.get('url')}: a result without its row for the copy check")
        entries = [(kind, dumps(record).encode("utf-8"))] + ([(2, row)] if kind == 0 else [])
        if held.own is not None:
            for k, data in entries:
                held.own.write(k, [data])
        else:
            for k, data in entries:
                held.lines[k].append(data)
                held.size += len(data)
            if held.size > SITE_HELD:  # too large to hold: on to disk as it comes
                held.own = self._new_part()
                for k, lines in enumerate(held.lines):
                    held.own.write(k, lines)
                held.lines = tuple([] for _ in KINDS)
        self._commit_if_due()

    def finish(self, site: str, entry: dict[str, Any]) -> None:
        """The site is done, its `entry` what the manifest says of it: commit it with the
        batch, or at once if it has a part of its own."""
        held = self._held.pop(site, _Held())
        part = held.own
        if part is None:
            self._batch = part = self._batch or self._new_part()
            start = list(part.sizes)
            for kind, lines in enumerate(held.lines):
                if lines:
                    part.write(kind, lines)
        else:
            self._ready.append(part)
            start = [0] * len(KINDS)
        spans = {kind: [start[k], part.sizes[k]] for k, kind in enumerate(KINDS)}
        self._pending.append({**entry, "part": {"name": part.name, **spans}})
        self._since = self._since or time.monotonic()
        if held.own is not None:
            self.commit()
        else:
            self._commit_if_due()

    def _commit_if_due(self) -> None:
        if self._since is not None and time.monotonic() - self._since >= self.batch_seconds:
            self.commit()

    def commit(self) -> None:
        """Rename the finished sites' parts into place, then enter the sites as done."""
        if not self._pending:
            return
        for part in self._finished():
            part.commit()
        with writing(self.manifest), open(self.manifest, "a", encoding="utf-8") as log:
            log.write("".join(map(dumps, self._pending)))  # the sites count as done from here
        for line in self._pending:
            entry = dict(line)
            self._where[entry["site"]] = entry.pop("part")
            self.done[entry["site"]] = entry
        self._clear()

    def _finished(self) -> list[_Part]:
        """The parts of the finished sites not committed yet (the batch's last)."""
        return [*self._ready, *([self._batch] if self._batch else [])]

    def _clear(self) -> None:
        """No finished site waits for a commit."""
        self._batch, self._ready, self._pending, self._since = None, [], [], None

    def abandon(self) -> None:
        """After a failure: delete the parts not committed (their sites are redone on
        resume anyway), freeing their space; errors on the way are the failure's own."""
        owns = [held.own for held in self._held.values() if held.own is not None]
        for part in [*owns, *self._finished()]:
            part.discard()
        self._held.clear()
        self._clear()

    def spans(self, kind: str) -> list[Span]:
        """Where the done sites' results (`kind` "results"), errors or rows for the copy
        check ("dups", in the order of the results) are, in site order."""
        file = _FILES[KINDS.index(kind)]
        spans = []
        for site in sorted(self._where):
            where = self._where[site]
            start, end = where[kind]
            if end > start:
                spans.append((self.folder / f"{where['name']}.{file}", start, end))
        return spans
