"""The bytes of a WARC file, decompressed and read forward, with the places reading can
start again after damage.

- uncompressed: the file itself; any position can be read again (seek).
- gzip: the members one after another, read with zlib-ng (zlib's API and output, its inflate
  and CRC in about 0.6x zlib's time: the crawl's ingest inflates every page) so that each
  member's end is known
  (the record reader stops at it between records) and a corrupt or cut member is `Damaged`
  there; reading starts again at the next gzip member after it (`after_damage`), found by
  its magic bytes. A position inside a member can be read again by decompressing the
  member from its start (up to `REWIND_LIMIT` bytes into it).
- zstd and lz4: FastWARC's readers (they take the dictionary frame of a .warc.zst); damage
  ends the file, as a dictionary-compressed stream cannot be entered in the middle.

Positions are counted in decompressed bytes; `offset_of` turns one into a file offset: the
position itself (uncompressed, zstd, lz4) or the offset of its gzip member.
"""

from __future__ import annotations

import bisect
from typing import BinaryIO

from fastwarc.stream_io import Lz4Reader, ZstdReader
from zlib_ng import zlib_ng as zlib

from sitesift.io.http import head_end
from sitesift.reading import INFLATE_ERROR

CHUNK = 1 << 16
RAW_CHUNK = 1 << 14
"""Compressed bytes of a gzip file read at a time: about one record's gzip member, so that
little is left over at a member's end (zlib copies what is left, and the next member is
read again from its start) or at each read's output limit (copied as well)."""
REWIND_LIMIT = 64 << 20
"""Decompressed bytes of one gzip member read again at most, to look for records inside a
bad record's claimed length (past it, the search goes on from where reading stopped)."""
_GZIP_MAGIC = b"\x1f\x8b\x08"
_LZ4_MAGIC = b"\x04\x22\x4d\x18"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class Damaged(Exception):
    """The file cannot be read on here: corrupt or cut compressed data, or a read error."""


def _is_error(exc: BaseException) -> bool:
    """An error of the data or the disk, a Rust panic included (PyO3 raises those as a
    BaseException, so that `except Exception` lets them through)."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


class Source:
    """Decompressed bytes: `read` gives b"" at the end of the file or of a gzip member."""

    def read(self, n: int) -> bytes:
        raise NotImplementedError

    def skip(self, n: int) -> int:
        """Drop up to `n` bytes (without holding them); how many there were."""
        done = 0
        while done < n and (chunk := self.read(min(CHUNK, n - done))):
            done += len(chunk)
        return done

    def next_part(self) -> bool:
        """Go on to the next gzip member after the end of one; False if there is none."""
        return False

    def rewind(self, pos: int) -> bool:
        """Read from `pos` again; False if that cannot be done."""
        return False

    def offset_of(self, pos: int) -> int:
        return pos

    def forget(self, pos: int) -> None:
        """Nothing before `pos` will be read again."""

    def after_damage(self) -> Source | None:
        """Where reading starts again after `Damaged`: None for the end of the file."""
        return None


class Plain(Source):
    def __init__(self, fh: BinaryIO) -> None:
        self._fh = fh
        self._size = fh.seek(0, 2)
        fh.seek(0)

    def read(self, n: int) -> bytes:
        return self._fh.read(n)

    def skip(self, n: int) -> int:
        pos = self._fh.tell()
        k = max(0, min(n, self._size - pos))
        self._fh.seek(pos + k)
        return k

    def rewind(self, pos: int) -> bool:
        self._fh.seek(pos)
        return True


class Gzip(Source):
    """The members of a gzip file from `offset` on."""

    def __init__(self, fh: BinaryIO, offset: int) -> None:
        self._fh = fh
        self._out = 0  # decompressed bytes handed out
        self._parts = [(0, offset)]  # (position, file offset) of the members begun
        self._start(offset)

    def _start(self, offset: int) -> None:
        self._fh.seek(offset)
        self._z = zlib.decompressobj(31)
        self._raw = b""  # compressed bytes read but not yet decompressed
        self.member = offset

    def read(self, n: int) -> bytes:
        while not self._z.eof:
            if not self._raw:
                self._raw = self._fh.read(RAW_CHUNK)
                if not self._raw:
                    raise Damaged("truncated gzip member (the file ends inside it)")
            try:
                out = self._z.decompress(self._raw, n)
            except INFLATE_ERROR as exc:
                raise Damaged(f"corrupt gzip member ({exc})") from None
            self._raw = self._z.unconsumed_tail
            if out:
                self._out += len(out)
                return out
        return b""

    def next_part(self) -> bool:
        # At a member's end the input after it is in unused_data (CPython may leave a copy
        # of it in unconsumed_tail too when the output limit was reached: not counted).
        here = self._fh.tell()
        offset = here - len(self._z.unused_data)
        self._fh.seek(offset)
        magic = self._fh.read(3)
        if not magic or (magic != _GZIP_MAGIC and _blank_to_end(self._fh)):
            self._fh.seek(here)  # the end, or padding after the last member: stay there
            return False
        self._start(offset)  # not a member: read, it is Damaged here
        self._parts.append((self._out, offset))
        return True

    def _part(self, pos: int) -> int:
        return max(0, bisect.bisect_right(self._parts, pos, key=lambda part: part[0]) - 1)

    def rewind(self, pos: int) -> bool:
        i = self._part(pos)
        start, offset = self._parts[i]
        if pos - start > REWIND_LIMIT:
            return False
        del self._parts[i + 1 :]
        self._start(offset)
        self._out = start
        return self.skip(pos - start) == pos - start

    def offset_of(self, pos: int) -> int:
        return self._parts[self._part(pos)][1]

    def member_at(self, pos: int) -> tuple[int, int]:
        """The position and file offset of the member `pos` is in."""
        return self._parts[self._part(pos)]

    def forget(self, pos: int) -> None:
        del self._parts[: self._part(pos)]

    def after_damage(self) -> Source | None:
        offset = _find(self._fh, _GZIP_MAGIC, self.member + 1)
        return None if offset is None else Gzip(self._fh, offset)


class Framed(Source):
    """zstd or lz4 frames, through FastWARC's reader."""

    def __init__(self, reader: ZstdReader | Lz4Reader, name: str) -> None:
        self._reader, self._name = reader, name

    def read(self, n: int) -> bytes:
        try:
            return self._reader.read(n)
        except BaseException as exc:
            if not _is_error(exc):
                raise
            raise Damaged(f"corrupt {self._name} data ({exc})") from None


def open_source(fh: BinaryIO) -> Source:
    """The decompressed bytes of a WARC file, compressed as its first bytes say (not its
    name: a plain WARC named .gz is read as what it is)."""
    magic = fh.read(4)
    fh.seek(0)
    if magic.startswith(_GZIP_MAGIC[:2]):
        return Gzip(fh, 0)
    if magic == _ZSTD_MAGIC or (magic[1:] == b"\x2a\x4d\x18" and magic[0] & 0xF0 == 0x50):
        return Framed(ZstdReader(fh), "zstd")  # a frame, or the skippable dictionary frame
    if magic == _LZ4_MAGIC:
        return Framed(Lz4Reader(fh), "lz4")
    return Plain(fh)


def _find(fh: BinaryIO, token: bytes, start: int) -> int | None:
    """The offset of the first `token` in the file at or after `start`."""
    try:
        fh.seek(start)
        tail = b""
        while chunk := fh.read(CHUNK):
            data = tail + chunk
            if (i := data.find(token)) >= 0:
                return start - len(tail) + i
            start += len(chunk)
            tail = data[-(len(token) - 1) :]
    except OSError:
        pass
    return None


def _blank_to_end(fh: BinaryIO) -> bool:
    """Is the rest of the file whitespace or NUL padding?"""
    while chunk := fh.read(CHUNK):
        if chunk.strip(b"\0\r\n\t "):
            return False
    return True


class Stream:
    """A source read forward through a buffer, by position. Reading stops at the end of a
    gzip member unless `span` is set (while a record's content is read: a record may go on
    in the next member)."""

    def __init__(self, source: Source) -> None:
        self.src = source
        self.pos = 0
        self.span = False
        self._buf = b""
        self._at = 0
        self._damage: Damaged | None = None  # raised once the bytes before it are read

    def _more(self, n: int) -> bytes:
        if self._damage is not None:
            raise self._damage
        while not (chunk := self.src.read(n)) and self.span and self.src.next_part():
            pass
        return chunk

    def peek(self, n: int) -> bytes:
        """The next `n` bytes (fewer at the end), without reading past them."""
        have = len(self._buf) - self._at
        if have < n:
            self._buf, self._at = self._gather(n, have, CHUNK), 0
        return self._buf[self._at : self._at + n]

    def take(self, n: int) -> bytes:
        """The next `n` bytes (fewer at the end), read past. Bytes not all held yet (a
        page's body) are read to their end and no further, so that they are copied once
        at most: the bytes held and the rest joined."""
        have = len(self._buf) - self._at
        if have >= n:
            data = self._buf[self._at : self._at + n]
            self._at += n
        else:
            data = self._gather(n, have, 0)
            self._buf, self._at = b"", 0
        self.pos += len(data)
        return data

    def _gather(self, n: int, have: int, least: int) -> bytes:
        """The `have` bytes held and more read, `least` bytes a read at least, until there
        are `n` (or the data ends)."""
        parts: list[bytes | memoryview] = [memoryview(self._buf)[self._at :]] if have else []
        try:
            while have < n and (chunk := self._more(max(least, n - have))):
                parts.append(chunk)
                have += len(chunk)
        except Damaged as exc:  # a look ahead must not lose the records before damage
            self._damage = exc
            if not have:
                raise
        return b"".join(parts)  # one part: itself, not a copy

    def skip(self, n: int) -> int:
        have = len(self._buf) - self._at
        done = min(n, have)
        self._at += done
        if done < n:
            self._buf, self._at = b"", 0
            while done < n and ((k := self.src.skip(n - done))
                                or (self.span and self.src.next_part())):
                done += k
        self.pos += done
        return done

    def rewind(self, pos: int) -> bool:
        if not self.src.rewind(pos):
            return False
        self._buf, self._at, self.pos = b"", 0, pos
        return True

    def skip_blank(self) -> None:
        """Past the blank lines between records (CRLFs, stray spaces, NUL padding)."""
        while data := self.peek(256):
            rest = data.lstrip(b"\r\n\t \0")
            self.skip(len(data) - len(rest))
            if rest:
                return

    def head(self, limit: int) -> bytes | None:
        """The header block here, up to and with its empty line, if it ends within `limit`
        bytes (None if it does not, or the data ends first)."""
        n = 4096
        while True:
            data = self.peek(min(n, limit))
            if (end := head_end(data)) is not None:
                return data[:end]
            if len(data) < min(n, limit) or n >= limit:
                return None
            n *= 4

    def seek_line(self, token: bytes) -> bool:
        """On to the next line that starts with `token` (past this position); False at the
        end of the data or of the gzip member."""
        pattern = b"\n" + token
        while len(data := self.peek(CHUNK)) >= len(pattern):
            if (i := data.find(pattern)) >= 0:
                self.skip(i + 1)
                return True
            self.skip(len(data) - len(pattern) + 1)
        self.skip(len(data))
        return False
