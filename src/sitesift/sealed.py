"""The sealed document format every sitesift model file is written in (site models,
`sitesift.model_io`; the default cleaner's, `extractor.model`; the page type's,
`sitesift.page_type`), apart from any kind of model, so a module low in the package reads
its own file without the methods' registry.

A sealed document is one JSON object whose bytes begin with its format tag and version,
then its seal, then its body: `{"format":"...","format_version":N,"sha256":"<64 hex>",...}`.
The seal is the SHA-256 of exactly these bytes with its own 64 digits written as zeros. A
reader checks it on the bytes as they are, so truncation and tampering are reported
instead of silently producing a different model. Hashing the bytes costs a fraction of
re-serialising the parsed body to hash it, as files of older versions need (for the
default model, 0.003 s against 0.11 s: docs/native.md).
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import hmac
import json
import os
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from sitesift import __version__
from sitesift.errors import InputError, ModelError, ModelVersionWarning
from sitesift.reading import json_line, read_bounded

T = TypeVar("T")
CHECKSUM_MISMATCH = "checksum mismatch: the file was altered or damaged"
_HEAD = ("format", "format_version")
_ZEROS = "0" * 64

def _compact(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def head_prefix(fmt: str, version: int) -> bytes:
    """The bytes a sealed document of this format and version starts with, up to its
    seal's digits: exactly what `seal` writes, so a reader compares bytes, not JSON."""
    return _compact({"format": fmt, "format_version": version})[:-1] + b',"sha256":"'


def seal(doc: Mapping[str, Any]) -> bytes:
    """The sealed JSON bytes of a document: its `format` and `format_version` first, the
    seal, then its other keys in their order (a `sha256` it holds is dropped). Tests use it
    to make an altered document that passes the checksum and meets a later check."""
    body = {k: v for k, v in doc.items() if k not in (*_HEAD, "sha256")}
    head = {k: doc[k] for k in _HEAD}
    return seal_bytes(_compact({**head, "sha256": _ZEROS, **body}), *head.values())


def seal_bytes(data: bytes, fmt: str, version: int) -> bytes:
    """`data`, JSON bytes that start with the head of this format and version and 64 more
    bytes, with those 64 made the seal: the SHA-256 of `data` with them zeroed."""
    at = len(head_prefix(fmt, version))
    return data[:at] + _seal_of(data, at) + data[at + 64:]


def _seal_of(data: bytes, at: int) -> bytes:
    """The SHA-256 (hex digits) of `data` with its 64 bytes from `at` taken as zeros,
    hashed in place: a model file may be hundreds of megabytes."""
    view = memoryview(data)
    sha = hashlib.sha256(view[:at])
    sha.update(_ZEROS.encode())
    sha.update(view[at + 64:])
    return sha.hexdigest().encode()


def check_seal(raw: bytes, fmt: str, version: int) -> None:
    """ModelError unless `raw` (a document's uncompressed bytes) starts with the head
    `seal` writes for this format and version and its seal is the SHA-256 of its bytes
    with the seal's digits zeroed. The bytes are hashed as they are, never re-serialised."""
    at = len(head := head_prefix(fmt, version))
    if (not raw.startswith(head) or raw[at + 64:at + 65] != b'"'
            or not hmac.compare_digest(_seal_of(raw, at), raw[at:at + 64])):
        raise ModelError(CHECKSUM_MISMATCH)


def write_document(doc: dict[str, Any], path: str | Path) -> Path:
    """Write a document sealed (`seal`), gzipped when the name ends in `.gz` (the seal is
    over the uncompressed JSON), atomically (a reader never sees half a file). Shared by
    every model file sitesift writes."""
    path = Path(path)
    data = seal(doc)
    if path.suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path


def file_reader(label: str, read: Callable[[Path], T]) -> Callable[[str | Path], T]:
    """A reader of one kind of model file (`read` checks and builds it): each file read
    once per process while its modification time and size stay the same, and every problem
    a ModelError naming the file and `label` (`sitesift.confidence` reads its file so)."""

    @functools.lru_cache(maxsize=2)
    def cached(path: str, mtime_ns: int, size: int) -> T:
        try:
            return read(Path(path))
        except ModelError as exc:
            raise ModelError(f"{path}: {exc}") from None

    def load(path: str | Path) -> T:
        path = Path(path)
        try:
            stat = path.stat()
        except OSError as exc:
            raise ModelError(f"{path}: {label}: {exc.strerror or exc}") from None
        return cached(str(path), stat.st_mtime_ns, stat.st_size)

    return load


def check_writer(written: Any, path: str | Path) -> None:
    """Warn (`ModelVersionWarning`) when the model file at `path` names a sitesift version
    other than this one as its writer; a file that names none (written before files
    carried it) is read without a word. Every model format calls this as it reads."""
    if isinstance(written, str) and written != __version__:
        warnings.warn(f"{path}: model written by sitesift {written}, read by sitesift "
                      f"{__version__}; it may clean differently (refit or retrain it with "
                      "this version)", ModelVersionWarning, stacklevel=3)


@dataclasses.dataclass(frozen=True)
class Kind:
    """What a model file of one kind must be: its format tag, the sealed version this
    sitesift writes, and each older version it still reads with that version's checksum
    of a parsed document (which may raise ModelError on a document it cannot hash)."""

    format: str
    what: str  # "a sitesift model": for the message on a file of another format
    version: int
    legacy: Mapping[int, Callable[[dict[str, Any]], str]]

    def versions(self) -> str:
        """The versions read, for a message: "version 3", "versions 1, 2 and 3"."""
        known = [str(v) for v in sorted({*self.legacy, self.version})]
        if len(known) == 1:
            return f"version {known[0]}"
        return f"versions {', '.join(known[:-1])} and {known[-1]}"




def parse_document(raw: bytes) -> Any:
    """A model file's JSON (uncompressed bytes) as `reading.json_line` reads it, faster:
    orjson takes the files sitesift writes (a worker reads its model in a third of the
    time); what orjson refuses (NaN, bad UTF-8, deep nesting) is read by `json_line` as any
    JSON sitesift reads, or refused with its reason. (One difference stays: an integer past
    64 bits, which sitesift never writes, is a float to orjson; the checks after parsing
    refuse it where a count or an index is due, as they refuse the integer.)"""
    import orjson

    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json_line(raw)


def read_document(path: Path, max_bytes: int, kind: Kind) -> dict[str, Any]:
    """The parsed JSON object of a model file of this kind (gzipped or not), its format,
    version and checksum checked; refuses files or unpacked data over `max_bytes`
    (inflated as a stream, stopped there) and anything but a regular file. Every problem
    is a ModelError (without the file's name)."""
    try:
        raw = read_bounded(path, max_bytes, gunzip=None)
    except InputError as exc:
        raise ModelError(str(exc)) from None
    sealed = raw.startswith(head_prefix(kind.format, kind.version))
    if sealed:  # checked before parsing: damage past the head is a mismatch, not bad JSON
        check_seal(raw, kind.format, kind.version)
    try:
        doc = parse_document(raw)
    except InputError as exc:  # also a number too long to read, which json gives as ValueError
        raise ModelError(f"not {kind.what} (corrupt or truncated JSON: {exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != kind.format:
        raise ModelError(f"not {kind.what} (missing format tag)")
    version = doc.get("format_version")
    if type(version) is not int or (version != kind.version and version not in kind.legacy):
        raise ModelError(f"model format version {version!r}; this sitesift reads "
                         f"{kind.versions()}")
    if version == kind.version:
        if not sealed:  # the head is not byte for byte what `seal` writes
            raise ModelError(CHECKSUM_MISMATCH)
    elif doc.get("sha256") != kind.legacy[version](doc):
        raise ModelError(CHECKSUM_MISMATCH)
    return doc


def sealed_head(path: Path, max_bytes: int, kind: Kind, keys: tuple[str, ...]
                ) -> dict[str, Any] | None:
    """The first fields of a sealed file of this kind's current version, parsed without
    its body: the values of `keys` when they are the first fields after the seal (as
    `seal` writes a document whose dict puts them first). The seal is checked on all the
    bytes (ModelError on a mismatch), so what follows the head is what sitesift wrote.
    None for any other file (an older version, another format, not JSON), which only
    `read_document` can judge, and for a head it cannot follow.

    For a process that checks a model its workers will read whole: parsing the default
    model's 5 MB of JSON is 0.08 s of its 0.12 s load (docs/lab/crawl.md)."""
    try:
        raw = read_bounded(path, max_bytes, gunzip=None)
    except InputError as exc:
        raise ModelError(str(exc)) from None
    start = head_prefix(kind.format, kind.version)
    if not raw.startswith(start):
        return None
    check_seal(raw, kind.format, kind.version)
    text = raw.decode("utf-8", "replace")  # (1 ms for the default model)
    decoder = json.JSONDecoder()
    at = len(start) + 65  # past the seal's digits and its closing quote (ASCII: same index)
    found: dict[str, Any] = {}
    try:
        while len(found) < len(keys):
            at = _skip(text, at)
            if text[at] != ",":
                return None
            at = _skip(text, at + 1)
            key, at = decoder.raw_decode(text, at)
            at = _skip(text, at)
            if key not in keys or key in found or text[at] != ":":
                return None
            at = _skip(text, at + 1)
            found[key], at = decoder.raw_decode(text, at)
    except (ValueError, IndexError, RecursionError):  # no JSON a writer of ours makes
        return None
    return found


def _skip(text: str, at: int) -> int:
    """The index of the first character from `at` that is not JSON whitespace."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at
