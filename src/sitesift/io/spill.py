"""Pages spilled to disk by site, so a crawl is grouped without holding it in memory.

One file per site (per input, so inputs can be read in parallel and a half-read input can
be discarded whole). A file is a stream of zstd frames, one appended per flush, written and
read by FastWARC's stream classes (level 1: four times faster than zlib's fastest level on
the corpora's pages, at a third of the size; ingest is the crawl's serial step). Unpacked,
it is a run of records `<u32 meta length><u32 body length><meta JSON><body bytes>`.
Appending never rewrites what is there, and the writer holds at most `budget` bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import struct
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from fastwarc.stream_io import ZstdReader, ZstdWriter

from sitesift.errors import InputError, writing
from sitesift.io.records import PageRecord

_FRAME = struct.Struct("<II")
_SLICE = 1 << 20
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def site_file(site: str) -> str:
    """A file name for a site: readable, and unique through a hash of the full key."""
    readable = _UNSAFE.sub("_", site)[:60].strip("._") or "site"
    return f"{readable}-{hashlib.sha1(site.encode('utf-8')).hexdigest()[:12]}"


class SpillWriter:
    """Append pages to `folder/<site file>.spill`, buffering up to `budget` bytes."""

    def __init__(self, folder: Path, budget: int = 32 * 1024 * 1024) -> None:
        self.folder = folder
        self.budget = budget
        self.counts: Counter[str] = Counter()
        self._buffers: dict[str, bytearray] = {}
        self._held = 0
        folder.mkdir(parents=True, exist_ok=True)

    def add(self, page: PageRecord) -> None:
        meta = json.dumps([page.input_index, page.position, page.input, page.url,
                           page.content_type, page.offset, page.site]).encode("utf-8")
        buf = self._buffers.setdefault(page.site, bytearray())
        buf += _FRAME.pack(len(meta), len(page.body))
        buf += meta
        buf += page.body
        self._held += _FRAME.size + len(meta) + len(page.body)
        self.counts[page.site] += 1
        if self._held > self.budget:
            for site in sorted(self._buffers, key=lambda s: -len(self._buffers[s])):
                self._flush(site)
                if self._held <= self.budget // 2:
                    break

    def _flush(self, site: str) -> None:
        buf = self._buffers.pop(site, None)
        if not buf:
            return
        self._held -= len(buf)
        # The frame is made in memory and then written: FastWARC's writer panics (in Rust,
        # when it is dropped) after a write to its file failed, so a full disk must reach
        # a plain file's write(), which raises an OSError that names the file.
        frame = io.BytesIO()
        writer = ZstdWriter(frame, compression_level=1)
        done = 0
        while done < len(buf):  # write() takes at most 2 MiB a call
            done += writer.write(bytes(buf[done : done + _SLICE]))
        writer.close()  # ends the frame
        path = self.folder / (site_file(site) + ".spill")
        with writing(path), open(path, "ab") as fh:
            fh.write(frame.getbuffer())

    def close(self) -> Counter[str]:
        """Flush everything; the number of pages spilled per site."""
        for site in list(self._buffers):
            self._flush(site)
        return self.counts


def read_spill(paths: Iterable[Path]) -> Iterator[PageRecord]:
    """The pages of spill files, in the order they were added."""
    for path in paths:
        try:
            with open(path, "rb") as fh:
                reader = ZstdReader(fh)
                while header := reader.read(_FRAME.size):
                    meta_len, body_len = _FRAME.unpack(_exactly(reader, header, _FRAME.size))
                    meta = json.loads(_exactly(reader, b"", meta_len))
                    index, position, source, url, ctype, offset, site = meta
                    body = _exactly(reader, b"", body_len)
                    yield PageRecord(index, position, source, url, ctype, body, offset, site)
        except (OSError, ValueError, struct.error) as exc:
            raise InputError(f"{path}: unreadable spill file: {exc}") from None


def _exactly(reader: ZstdReader, start: bytes, size: int) -> bytes:
    data = bytearray(start)
    while len(data) < size:
        chunk = reader.read(size - len(data))
        if not chunk:
            raise ValueError("truncated")
        data += chunk
    return bytes(data)
