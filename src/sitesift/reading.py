"""Reading files that may be hostile: one home for the rules every reader of pages, JSONL,
dataset indexes, folders and model files follows.

- Only regular files are opened (`open_regular`): a FIFO named like a page would block the
  reader forever, a device would never end.
- Nothing is held past a limit (`read_bounded`, `bounded_lines`): gzip is inflated as a
  stream and stopped at the limit, so a small bomb costs its limit, not its inflated size.
  Nor is time spent past a limit on what is no record: blank lines between JSON lines are
  passed over a buffer at a time, and a run of them longer than a line may be ends the file.
- A JSON line is one value or an `InputError` (`json_line`): `json` raises ValueError for
  a number of more than 4,300 digits and RecursionError for deep nesting, besides its own
  decode errors.
- Names are text (`text_name`, `check_text`): a file name that is not UTF-8, or a string
  with a lone surrogate escape, fails only when it is written out, far from its input.

Every problem is an `InputError` whose message gives the reason without the file's name:
the caller names the input (an error record's `input`, a page's id, a model's path).
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import stat
import sys
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, cast

from zlib_ng import gzip_ng, zlib_ng

from sitesift.errors import InputError

Pathish = str | os.PathLike[str]
MAX_PAGE_BYTES = 64 * 1024 * 1024  # a page file, unpacked, unless a reader is given another
_CHUNK = 1 << 20


def text_name(path: Pathish) -> str:
    """The path as text that can be written anywhere: bytes that are not UTF-8 (kept by
    the OS's file-name decoding as lone surrogates) shown as `\\xNN`."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def gzipped(path: Pathish) -> bool:
    """Is the file gzipped, by its name (`.gz`, in any case)?"""
    return os.fspath(path).lower().endswith(".gz")


def is_text_name(path: Pathish) -> bool:
    """Is the path's name valid UTF-8 (so writable in JSON, output names, reports)?"""
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def reason(exc: BaseException) -> str:
    """Why a read failed, as one line without the path (the caller names the input): an
    OSError's text and errno name, a cut gzip stream, a corrupt one."""
    if isinstance(exc, EOFError):
        return "cannot read: truncated gzip data"
    if isinstance(exc, OSError) and exc.errno:
        return f"cannot read: {exc.strerror} [{errno.errorcode.get(exc.errno, exc.errno)}]"
    return f"cannot read: {exc}"  # gzip.BadGzipFile (an OSError without errno), zlib.error


# What reading a file or a gzip stream raises; `reason` words each.
INFLATE_ERROR = cast(type[Exception], zlib_ng.error)  # (zlib-ng's stub types it an instance)
"""What zlib-ng raises on corrupt deflate data (gzipped pages here, .warc.gz members in
`sitesift.io.warcstream`): CPython's `zlib.error` is another class."""
READ_ERRORS = (OSError, EOFError, zlib.error, INFLATE_ERROR)


class LinesCut(InputError):
    """Reading a file's lines stopped at line `line` (`bounded_lines`), for the reason `why`;
    the lines before it stand."""

    def __init__(self, line: int, why: str) -> None:
        super().__init__(f"line {line}: {why}")
        self.line, self.why = line, why


class LineSource(Protocol):
    """A file read by lines with a look ahead: an open file (`io.BufferedReader`) or a
    `gzip.GzipFile`, as `open_lines` gives them."""

    def read(self, size: int, /) -> bytes: ...

    def readline(self, size: int, /) -> bytes: ...

    def peek(self, size: int, /) -> bytes: ...


def open_regular(path: Pathish) -> io.BufferedReader:
    """`path` opened for binary reading; InputError if it cannot be opened or is not a
    regular file. Opened without blocking, so that a FIFO is refused at once instead of
    waiting for a writer (a stat before an ordinary open would race with the file)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InputError(reason(exc)) from None
    except ValueError as exc:  # a NUL in the name
        raise InputError(f"cannot read: {exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError("not a regular file (a FIFO, device or socket is never read)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@contextmanager
def open_lines(path: Pathish, *, gunzip: bool) -> Iterator[io.BufferedReader | gzip.GzipFile]:
    """A regular file opened for reading (`bounded_lines`, a bounded `read`), gunzipped as
    it is read if `gunzip`."""
    with open_regular(path) as fh:
        if not gunzip:
            yield fh
            return
        # zlib-ng's GzipFile (the standard one's subclass): inflated in about 0.6x the
        # time of CPython's zlib, the same bytes and errors (`clean DIR`'s .html.gz pages)
        with gzip_ng.GzipFile(fileobj=fh, mode="rb") as unpacked:  # leaves `fh` to its `with`
            yield unpacked


def read_head(path: Pathish, size: int, *, gunzip: bool) -> bytes:
    """The first `size` bytes of the file (unpacked if `gunzip`); a longer file is no
    error, an unreadable one is an InputError."""
    with open_lines(path, gunzip=gunzip) as fh:
        try:
            return fh.read(size)
        except READ_ERRORS as exc:
            raise InputError(reason(exc)) from None


def read_bounded(path: Pathish, max_bytes: int, *, gunzip: bool | None) -> bytes:
    """The file's bytes, gunzipped if `gunzip` (None: if they start as gzip does), never
    holding more than `max_bytes` of them: past that, InputError naming the limit. The
    gzip stream is inflated as it is read and stopped at the limit."""
    if gunzip is None:
        gunzip = read_head(path, 2, gunzip=False) == b"\x1f\x8b"
    with open_lines(path, gunzip=gunzip) as fh:
        if not gunzip and (size := os.fstat(fh.fileno()).st_size) > max_bytes:
            raise InputError(f"too large: file of {size:,} bytes exceeds the limit of "
                             f"{max_bytes:,}")
        try:
            data = _read_upto(fh, max_bytes + 1)  # bounded even if a plain file grows
        except READ_ERRORS as exc:
            raise InputError(reason(exc)) from None
    if len(data) > max_bytes:
        raise InputError(f"too large: {'unpacks to' if gunzip else 'grew to'} more than "
                         f"{max_bytes:,} bytes, the limit"
                         + (" (a decompression bomb?)" if gunzip else ""))
    return data


def _read_upto(fh: LineSource, size: int) -> bytes:
    """At most `size` bytes, a chunk at a time: `fh.read(size)` would reserve all `size`
    bytes at once, even for a small file."""
    out = io.BytesIO()  # whose getvalue() hands over its buffer without a copy
    while (room := size - out.tell()) > 0 and (chunk := fh.read(min(_CHUNK, room))):
        out.write(chunk)
    return out.getvalue()


def bounded_lines(fh: LineSource, max_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line) for each line of JSON in `fh`; the line is None when it is longer
    than `max_bytes`: it is read to its end a chunk at a time and dropped, never held whole.
    Blank lines (ASCII white space only) are no records: they are passed over a buffer at a
    time (`_skip_blank`), and a run of them longer than `max_bytes` is a `LinesCut` that
    ends the reading. Read errors (a cut or corrupt gzip) propagate: the caller knows what
    came before."""
    number = 0
    while True:
        number += _skip_blank(fh, number, max_bytes)
        if not (line := fh.readline(max_bytes + 1)):
            return
        number += 1
        if len(line) > max_bytes and not line.endswith(b"\n"):
            while (rest := fh.readline(_CHUNK)) and not rest.endswith(b"\n"):
                pass
            yield number, None
        else:
            yield number, line


def _skip_blank(fh: LineSource, number: int, max_bytes: int) -> int:
    """Past the white space at this point of `fh` (blank lines, and the indent of the next
    line: JSON ignores it); how many lines ended in it. Read one line at a time, a billion
    blank lines (1 GiB, a megabyte gzipped) took an hour for no record; a buffer at a time
    they cost what inflating them costs, and past `max_bytes` in a row (what one line may
    hold) the rest of the file is not read: LinesCut at the line where they began."""
    lines = size = 0
    while data := fh.peek(_CHUNK):
        rest = data.lstrip()  # ASCII white space: what `line.strip()` passed over
        blank = len(data) - len(rest)
        fh.read(blank)  # from the buffer peeked at
        lines += data.count(b"\n", 0, blank)
        size += blank
        if size > max_bytes:
            raise LinesCut(number + 1, f"blank lines past {max_bytes:,} bytes in a row (a "
                                       "bomb of blank lines?); the rest is not read")
        if rest:
            break
    return lines


def json_line(line: bytes) -> Any:
    """One JSON value; InputError saying why the line is none. Bytes that are not UTF-8
    become U+FFFD, as in a file read as text with `errors="replace"`."""
    try:
        return json.loads(line.decode("utf-8", "replace"))
    except RecursionError:
        raise InputError("bad JSON: nested too deep") from None
    except ValueError as exc:  # JSONDecodeError, or a number too long to convert
        if "integer string conversion" in str(exc):  # not the advice on raising the limit
            raise InputError(f"bad JSON: a number of more than {sys.get_int_max_str_digits():,}"
                             " digits") from None
        raise InputError(f"bad JSON: {exc}") from None


def check_text(value: Any, what: str) -> None:
    """InputError if a string in `value` holds a lone surrogate (a `\\ud800` escape in
    JSON): it cannot be written as UTF-8, so it would fail at the output instead."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except RecursionError:
        raise InputError(f"{what} is nested too deep") from None
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end].encode("utf-8", "backslashreplace").decode()
        raise InputError(f"{what} holds a lone surrogate ({bad}), not text") from None
