"""Pages spilled to disk by site, so a crawl is grouped without holding it in memory.

One spill file per input (so inputs can be read in parallel and a half-read input can be
discarded whole), holding every site's pages of that input: a run of zstd frames, each one
site's pages of one flush, and an index of where each site's frames are (`frames`: offset
and length in the file, in the order written), so a site task reads its own frames and
nothing else. A site's pages are buffered until the writer holds `budget` bytes (the largest
sites are flushed then) or the input ends, so most sites of an input, however many, cost one
frame each and no file of their own. The frames are written and read by FastWARC's stream
classes (level 1: four times faster than zlib's fastest level on the corpora's pages, at a
third of the size; ingest is the crawl's serial step), one writer per input that ends a
frame per site (`finish`: about 0.3 ms a frame, where a new writer a frame costs 0.5 ms).
Unpacked, a frame is a run of records `<u32 meta length><u32 body length><meta JSON><body>`,
the meta a JSON list: input index, position, input, url, content type, offset, site, and the
record's WARC-Record-ID, WARC-Date and WARC-Payload-Digest (added in layout 3 of the work
folder, `sitesift.io.ingest.LAYOUT`; a list without them reads as nulls).
Appending never rewrites what is there.
"""

from __future__ import annotations

import io
import json
import struct
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from fastwarc.stream_io import ZstdReader, ZstdWriter

from sitesift.errors import InputError, writing
from sitesift.io.records import PageRecord

_RECORD = struct.Struct("<II")
_SLICE = 1 << 20

Frames = Sequence[Sequence[int]]  # (offset, length) of each of a site's frames in its file


class SpillWriter:
    """Append pages to the spill file `path` by site, buffering up to `budget` bytes;
    `frames[site]` says where each site's frames went."""

    def __init__(self, path: Path, budget: int = 32 * 1024 * 1024) -> None:
        self.path = path
        self.budget = budget
        self.counts: Counter[str] = Counter()
        self.frames: dict[str, list[tuple[int, int]]] = {}
        self._buffers: dict[str, bytearray] = {}
        self._held = 0
        self._size = 0  # bytes in the file so far: the next frame's offset
        # Frames are made in memory and then written: FastWARC's writer panics (in Rust,
        # when it is dropped) after a write to its file failed, so a full disk must reach a
        # plain file's write(), which raises an OSError that names the file.
        self._frame = io.BytesIO()
        self._zstd = ZstdWriter(self._frame, compression_level=1)
        path.parent.mkdir(parents=True, exist_ok=True)
        with writing(path), open(path, "wb"):
            pass  # the file exists even for an input without pages

    def add(self, page: PageRecord) -> None:
        meta = json.dumps([page.input_index, page.position, page.input, page.url,
                           page.content_type, page.offset, page.site, page.warc_record_id,
                           page.warc_date, page.warc_payload_digest]).encode("utf-8")
        buf = self._buffers.setdefault(page.site, bytearray())
        buf += _RECORD.pack(len(meta), len(page.body))
        buf += meta
        buf += page.body
        self._held += _RECORD.size + len(meta) + len(page.body)
        self.counts[page.site] += 1
        if self._held > self.budget:  # the largest sites out, down to half the budget
            out, left = [], self._held
            for site in sorted(self._buffers, key=lambda s: -len(self._buffers[s])):
                out.append(site)
                left -= len(self._buffers[site])
                if left <= self.budget // 2:
                    break
            self._flush(out)

    def _flush(self, sites: Iterable[str]) -> None:
        with writing(self.path), open(self.path, "ab") as fh:
            for site in sites:
                buf = self._buffers.pop(site)
                self._held -= len(buf)
                frame = self._compress(buf)
                fh.write(frame)
                self.frames.setdefault(site, []).append((self._size, len(frame)))
                self._size += len(frame)

    def _compress(self, buf: bytearray) -> bytes:
        done = 0
        while done < len(buf):  # write() takes at most 2 MiB a call
            done += self._zstd.write(bytes(buf[done : done + _SLICE]))
        self._zstd.finish()  # ends the frame; the next write starts another
        self._zstd.flush()
        frame = self._frame.getvalue()
        self._frame.seek(0)
        self._frame.truncate()
        return frame

    def close(self) -> Counter[str]:
        """Flush everything; the number of pages spilled per site."""
        self._flush(list(self._buffers))
        self._zstd.close()
        return self.counts


def read_spill(parts: Iterable[tuple[str | Path, Frames]]) -> Iterator[PageRecord]:
    """The pages in the given frames of spill files (per file, its path and the frames to
    read), in the order they were added."""
    for path, frames in parts:
        try:
            with open(path, "rb") as fh:
                for offset, length in frames:
                    fh.seek(offset)
                    data = fh.read(length)
                    if len(data) != length:
                        raise ValueError("truncated")
                    yield from _records(ZstdReader(io.BytesIO(data)))
        except (OSError, ValueError, struct.error) as exc:
            raise InputError(f"{path}: unreadable spill file: {exc}") from None


def _records(reader: ZstdReader) -> Iterator[PageRecord]:
    while header := reader.read(_RECORD.size):
        meta_len, body_len = _RECORD.unpack(_exactly(reader, header, _RECORD.size))
        meta = json.loads(_exactly(reader, b"", meta_len))
        index, position, source, url, ctype, offset, site, *warc = meta
        body = _exactly(reader, b"", body_len)
        yield PageRecord(index, position, source, url, ctype, body, offset, site, *warc)


def _exactly(reader: ZstdReader, start: bytes, size: int) -> bytes:
    data = bytearray(start)
    while len(data) < size:
        chunk = reader.read(size - len(data))
        if not chunk:
            raise ValueError("truncated")
        data += chunk
    return bytes(data)
