"""Pages spilled to disk by site, so a crawl is grouped without holding it in memory.

One spill file per input (so inputs can be read in parallel and a half-read input can be
discarded whole), holding every site's pages of that input: a run of LZ4 frames, each one
site's pages of one flush, and an index of where each site's frames are (`frames`: offset
and length in the file, in the order written), so a site task reads its own frames and
nothing else. A site's pages are buffered until the writer holds `budget` bytes (the largest
sites are flushed then) or the input ends, so most sites of an input, however many, cost one
frame each and no file of their own. The frames are written and read by FastWARC's stream
classes, one writer per input that ends a frame per site (`finish`). LZ4 (since layout 5 of
the work folder, `sitesift.io.ingest.LAYOUT`; zstd level 1 before): ingest is the crawl's
serial step, and on the yardstick's pages (`benchmarks/crawl_throughput.py`, 114 KB a page)
zstd cost the reading process about 1.7 M instructions a page and 0.4 ms to end each frame
(most sites are a frame of a page or two), where LZ4 costs 1.1 M and about 1 µs, for spill
files twice as large (32 % of the pages' bytes, against 16 %).
Unpacked, a frame is a run of records `<u32 meta length><u32 body length><meta JSON><body>`,
the meta a JSON list: input index, position, input, url, content type, offset, site, and the
record's WARC-Record-ID, WARC-Date and WARC-Payload-Digest (a list without them reads as
nulls), and for a page left in its WARC (since layout 6) where its payload is there (a
`sitesift.io.warcref.Ref`'s row; the body is then empty, and read from the WARC again).
A site's records are held as they came (a header with the meta, and the body itself: not
copied) until they are compressed.
Appending never rewrites what is there.
"""

from __future__ import annotations

import io
import itertools
import json
import struct
from collections import Counter
from collections.abc import Container, Iterable, Iterator, Sequence
from pathlib import Path

from fastwarc.stream_io import Lz4Reader, Lz4Writer

from sitesift.errors import InputError, writing
from sitesift.io.records import PageRecord
from sitesift.io.warcref import Ref, RefReader

_RECORD = struct.Struct("<II")
_LZ4_END = b"\0\0\0\0"

Frames = Sequence[Sequence[int]]  # (offset, length) of each of a site's frames in its file


class _Frame:
    """Where FastWARC's writer puts a frame: its compressed chunks, as they come."""

    __slots__ = ("chunks",)

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def write(self, data: bytes) -> int:
        self.chunks.append(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class SpillWriter:
    """Append pages to the spill file `path` by site, buffering up to `budget` bytes;
    `frames[site]` says where each site's frames went."""

    def __init__(self, path: Path, budget: int = 32 * 1024 * 1024) -> None:
        self.path = path
        self.budget = budget
        self.counts: Counter[str] = Counter()
        self.frames: dict[str, list[tuple[int, int]]] = {}
        self._buffers: dict[str, list[bytes]] = {}  # per site: header and meta, body, ...
        self._sizes: dict[str, int] = {}  # bytes of each site's records
        self._held = 0
        self._size = 0  # bytes in the file so far: the next frame's offset
        # Frames are made in memory and then written: FastWARC's writer panics (in Rust,
        # when it is dropped) after a write to its file failed, so a full disk must reach a
        # plain file's write(), which raises an OSError that names the file.
        self._frame = _Frame()
        self._lz4 = Lz4Writer(self._frame)
        path.parent.mkdir(parents=True, exist_ok=True)
        with writing(path), open(path, "wb"):
            pass  # the file exists even for an input without pages

    def add(self, page: PageRecord, site: str | None = None) -> None:
        """Spill `page` as a page of `site` (by default its own `site`)."""
        if site is None:
            site = page.site
        row = [page.input_index, page.position, page.input, page.url, page.content_type,
               page.offset, site, page.warc_record_id, page.warc_date,
               page.warc_payload_digest]
        if page.ref is not None:
            row.append(page.ref.row())
        meta = json.dumps(row).encode("utf-8")
        body = page.body
        if type(body) is not bytes:  # FastWARC's writer takes bytes only
            body = bytes(body)
        size = _RECORD.size + len(meta) + len(body)
        if (parts := self._buffers.get(site)) is None:
            parts = self._buffers[site] = []
            self._sizes[site] = 0
        parts.append(_RECORD.pack(len(meta), len(body)) + meta)
        parts.append(body)
        self._sizes[site] += size
        self._held += size
        self.counts[site] += 1
        if self._held > self.budget:  # the largest sites out, down to half the budget
            out, left = [], self._held
            for site in sorted(self._sizes, key=lambda s: -self._sizes[s]):
                out.append(site)
                left -= self._sizes[site]
                if left <= self.budget // 2:
                    break
            self._flush(out)

    def _flush(self, sites: Iterable[str]) -> None:
        with writing(self.path), open(self.path, "ab") as fh:
            for site in sites:
                parts = self._buffers.pop(site)
                self._held -= self._sizes.pop(site)
                chunks = self._compress(parts)
                fh.writelines(chunks)
                length = sum(map(len, chunks))
                self.frames.setdefault(site, []).append((self._size, length))
                self._size += length

    def _compress(self, parts: list[bytes]) -> list[bytes]:
        """One frame of `parts`, as the compressed chunks FastWARC's writer gave."""
        for part in parts:
            done = self._lz4.write(part)
            while done < len(part):  # (it takes a whole part, but may say otherwise)
                done += self._lz4.write(part[done:])
        self._lz4.finish()  # ends the frame; the next write starts another
        self._lz4.flush()
        chunks, self._frame.chunks = self._frame.chunks, []
        return chunks

    def close(self) -> Counter[str]:
        """Flush everything; the number of pages spilled per site."""
        self._flush(list(self._buffers))
        self._lz4.close()
        return self.counts


def read_spill(parts: Iterable[tuple[str | Path, Frames]],
               unread: Container[int] = ()) -> Iterator[PageRecord]:
    """The pages in the given frames of spill files (per file, its path and the frames to
    read), in the order they were added. A page whose number in that order is in `unread`
    (its caller does not want it, or holds it already: a site's fit sample being cleaned)
    comes without a body where its body is left in the input: its WARC record is not read
    and inflated for nothing."""
    refs = RefReader()
    seq = itertools.count()
    try:
        for path, frames in parts:
            where = ""
            try:
                with open(path, "rb") as fh:
                    for offset, length in frames:
                        where = f" (the frame at {offset:,})"
                        fh.seek(offset)
                        data = fh.read(length)
                        if len(data) != length:
                            raise ValueError(f"truncated: {len(data):,} of {length:,} bytes")
                        _ends(data)
                        yield from _records(Lz4Reader(io.BytesIO(data)), refs, seq, unread)
            except BaseException as exc:
                if not _is_error(exc):
                    raise
                raise InputError(f"{path}: unreadable spill file{where}: {exc}") from None
    finally:
        refs.close()


def _is_error(exc: BaseException) -> bool:
    """Bad data or a failed read: a Rust panic of FastWARC's reader included (PyO3 raises
    those as a BaseException, so that `except Exception` lets them through)."""
    return (isinstance(exc, (OSError, ValueError, TypeError, struct.error))
            or type(exc).__name__ == "PanicException")


def _ends(frame: bytes) -> None:
    """Check that the frame ends as an LZ4 frame does, with its end mark (and then the
    checksum of its content, where its flags say it has one): FastWARC's reader takes a
    frame cut after a block for a whole one."""
    checksum = len(frame) > 4 and frame[4] & 0x04
    if (frame[-8:-4] if checksum else frame[-4:]) != _LZ4_END:
        raise ValueError("not a whole LZ4 frame (no end mark)")


def _records(reader: Lz4Reader, refs: RefReader, seq: Iterator[int],
             unread: Container[int]) -> Iterator[PageRecord]:
    while header := reader.read(_RECORD.size):
        meta_len, body_len = _RECORD.unpack(_exactly(reader, header, _RECORD.size))
        meta = json.loads(_exactly(reader, reader.read(meta_len), meta_len))
        index, position, source, url, ctype, offset, site, *warc = meta
        body = _exactly(reader, reader.read(body_len), body_len)
        number = next(seq)
        if len(warc) > 3:  # the payload left in the input: read it from there if wanted
            ref = warc.pop()
            if number not in unread:
                body = refs.read(Ref.from_row(ref), source)
        yield PageRecord(index, position, source, url, ctype, body, offset, site, *warc)


def _exactly(reader: Lz4Reader, start: bytes, size: int) -> bytes:
    """`size` bytes: `start` (what one read gave, usually all of them) and more."""
    if len(start) == size:
        return start
    data = [start]
    have = len(start)
    while have < size:
        chunk = reader.read(size - have)
        if not chunk:
            raise ValueError("truncated")
        data.append(chunk)
        have += len(chunk)
    return b"".join(data)
