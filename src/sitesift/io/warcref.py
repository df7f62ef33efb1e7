"""A crawl page's payload left where it is in its WARC file: a `Ref` to it, spilled in place
of its bytes (`sitesift.io.spill`), and read again by the worker that cleans the page.

The ingest reads every record of a WARC as it did (`sitesift.io.warc`: the same framing, the
same checks, the same items, the gzip member inflated to its end and its CRC checked), but
a page whose payload needs no decoding (no chunked transfer coding, no content coding; and
a Content-Type, so that it is kept by its header) is spilled as where its payload is:

- in an uncompressed WARC, its offset in the file and its length;
- in a .warc.gz, the offset of its record's gzip member (a record that starts the member and
  whose payload ends in it: the norm, one member per record) and where the payload is in
  the member's inflated bytes.

So the ingest neither compresses the pages into the spill nor the worker decompresses them
from it: the worker inflates the member once more (to the payload's end), and the spill
holds a few dozen bytes a page. Other pages (a chunked or content-coded payload; a WARC that
is one gzip stream, zstd or lz4; an input read through fsspec), are spilled as bytes.

A reference names the input's absolute path and its size and modification time when it was
read: an input changed since (or gone) is an `InputError` where a page is read from it, as a
spill file's damage is, never another page's bytes (a crawl resumed after the input changed
is refused earlier: `crawl.json`'s input fingerprint).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO

from zlib_ng import zlib_ng as zlib

from sitesift.errors import InputError
from sitesift.reading import INFLATE_ERROR

_RAW_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class Ref:
    """Where a record's payload is: in file `path` (absolute; `size` bytes, modified at
    `mtime_ns`, when it was read), at `offset` (the payload's own, or its gzip member's) and,
    for a member (`gzip`), `skip` inflated bytes into it; `length` bytes of it."""

    path: str
    size: int
    mtime_ns: int
    offset: int
    skip: int
    length: int
    gzip: bool

    def row(self) -> list[object]:
        return [self.path, self.size, self.mtime_ns, self.offset, self.skip, self.length,
                self.gzip]

    @classmethod
    def from_row(cls, row: list[object]) -> Ref:
        path, size, mtime_ns, offset, skip, length, gzip = row
        if not (isinstance(path, str) and all(isinstance(n, int) and n >= 0 for n in
                                              (size, mtime_ns, offset, skip, length))):
            raise ValueError(f"not a payload reference: {row!r}")
        return cls(path, size, mtime_ns, offset, skip, length, bool(gzip))  # type: ignore[arg-type]


class RefReader:
    """Reads payloads by reference, holding the input file last read open; `close` it."""

    def __init__(self) -> None:
        self._path: str | None = None
        self._fh: BinaryIO | None = None

    def read(self, ref: Ref, name: str) -> bytes:
        """The payload `ref` points at; `name` is the input as its records name it."""
        try:
            fh = self._open(ref)
            data = _inflated(fh, ref) if ref.gzip else _plain(fh, ref)
        except (OSError, INFLATE_ERROR, ValueError) as exc:
            raise InputError(f"{name}: cannot read the record at offset {ref.offset} again "
                             f"({exc}); was the input changed during the crawl?") from None
        return data

    def _open(self, ref: Ref) -> BinaryIO:
        if self._fh is not None and self._path == ref.path:
            return self._fh
        self.close()
        fh = open(ref.path, "rb")  # noqa: SIM115  (held open for the next pages; `close`)
        stat = os.fstat(fh.fileno())
        if (stat.st_size, stat.st_mtime_ns) != (ref.size, ref.mtime_ns):
            fh.close()
            raise ValueError("it changed since it was read: another size or modification time")
        self._path, self._fh = ref.path, fh
        return fh

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
        self._path = self._fh = None


def _plain(fh: BinaryIO, ref: Ref) -> bytes:
    fh.seek(ref.offset)
    data = fh.read(ref.length)
    if len(data) != ref.length:
        raise ValueError(f"the file ends {ref.length - len(data):,} bytes short")
    return data


def _inflated(fh: BinaryIO, ref: Ref) -> bytes:
    """Inflate the member at `ref.offset` up to the payload's end (its CRC was checked when
    the WARC was read, and the file is the same): the bytes before the payload dropped, the
    payload itself inflated in one piece where the read gave its compressed bytes whole."""
    fh.seek(ref.offset)
    inflate = _Inflate(fh)
    inflate.take(ref.skip)
    return inflate.take(ref.length)


class _Inflate:
    """A gzip member read from where `fh` is, inflated a given number of bytes at a time."""

    def __init__(self, fh: BinaryIO) -> None:
        self._fh = fh
        self._z = zlib.decompressobj(31)
        self._raw = b""

    def take(self, n: int) -> bytes:
        parts: list[bytes] = []
        have = 0
        while have < n:
            if not self._raw:
                self._raw = self._fh.read(_RAW_CHUNK)
                if not self._raw:
                    raise ValueError("the file ends inside the gzip member")
            out = self._z.decompress(self._raw, n - have)
            self._raw = self._z.unconsumed_tail
            if out:
                parts.append(out)
                have += len(out)
            elif self._z.eof:
                raise ValueError("the gzip member ends before the payload")
        return parts[0] if len(parts) == 1 else b"".join(parts)
