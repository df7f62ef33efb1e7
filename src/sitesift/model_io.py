"""Saving and loading fitted cleaners as versioned, validated JSON (never pickle).

The file is one JSON object: a format tag and version, the method name, its parameters,
its fitted state, and a SHA-256 over the canonical parameters and state, so truncation and
tampering are reported instead of silently producing a different cleaner.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import math
import os
import re
import warnings
from pathlib import Path
from typing import Any

from sitesift import __version__
from sitesift.errors import InputError, ModelError, ModelVersionWarning, UnknownMethodError
from sitesift.methods.base import Cleaner, get_class
from sitesift.reading import json_line, read_bounded

FORMAT = "sitesift-model"
FORMAT_VERSION = 1
MAX_BYTES = 512 * 1024 * 1024


def _digest(method: str, params: dict[str, Any], state: dict[str, Any]) -> str:
    canonical = json.dumps({"method": method, "params": params, "state": state}, sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def save_model(cleaner: Cleaner, path: str | Path) -> Path:
    """Write a fitted cleaner; `.gz` in the name compresses it. Written atomically."""
    cleaner.check_fitted()
    path = Path(path)
    params, state = cleaner.get_params(), cleaner.to_state()
    doc = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "method": cleaner.name,
        "sitesift_version": __version__, "params": params, "state": state,
        "sha256": _digest(cleaner.name, params, state),
    }
    return write_document(doc, path)


def write_document(doc: dict[str, Any], path: str | Path) -> Path:
    """Write a JSON document, gzipped when the name ends in `.gz`, atomically (a reader
    never sees half a file). Shared by every model file sitesift writes."""
    path = Path(path)
    data = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if path.suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path


def check_writer(written: Any, path: str | Path) -> None:
    """Warn (`ModelVersionWarning`) when the model file at `path` names a sitesift version
    other than this one as its writer; a file that names none (written before files
    carried it) is read without a word. Every model format calls this as it reads."""
    if isinstance(written, str) and written != __version__:
        warnings.warn(f"{path}: model written by sitesift {written}, read by sitesift "
                      f"{__version__}; it may clean differently (refit or retrain it with "
                      "this version)", ModelVersionWarning, stacklevel=3)


def read_document(path: Path, max_bytes: int) -> Any:
    """The parsed JSON of a model file (gzipped or not), refusing files or unpacked data
    over `max_bytes` (inflated as a stream, stopped there) and anything but a regular file;
    every problem is a ModelError (without the file's name)."""
    try:
        raw = read_bounded(path, max_bytes, gunzip=None)
    except InputError as exc:
        raise ModelError(str(exc)) from None
    try:
        return json_line(raw)
    except InputError as exc:  # also a number too long to read, which json gives as ValueError
        raise ModelError(f"not a sitesift model (corrupt or truncated JSON: {exc})") from None


def load_model(path: str | Path, *, max_bytes: int = MAX_BYTES) -> Cleaner:
    """Read and validate a model file; every problem is a ModelError naming the file."""
    path = Path(path)
    try:
        return _load(path, max_bytes)
    except ModelError as exc:
        raise ModelError(f"{path}: {exc}") from None


def _load(path: Path, max_bytes: int) -> Cleaner:
    doc = read_document(path, max_bytes)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelError("not a sitesift model (missing format tag)")
    version = doc.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelError(f"model format version {version!r}; this sitesift reads "
                         f"version {FORMAT_VERSION}")
    params, state, method = doc.get("params"), doc.get("state"), doc.get("method")
    if not isinstance(params, dict) or not isinstance(state, dict) or not isinstance(method,
                                                                                    str):
        raise ModelError("'method', 'params' and 'state' must be a string and two objects")
    if doc.get("sha256") != _digest(method, params, state):
        raise ModelError("checksum mismatch: the file was altered or damaged")
    try:
        cls = get_class(method)
    except UnknownMethodError as exc:
        raise ModelError(str(exc)) from None
    _check_params(method, params, cls)
    check_writer(doc.get("sitesift_version"), path)
    try:
        return cls.from_state(params, state)
    except (ModelError, MemoryError):
        raise
    except Exception as exc:  # a value the method's own checks did not foresee
        raise ModelError(f"invalid {method} model ({type(exc).__name__}: {exc})") from None


def _check_params(method: str, params: dict[str, Any], cls: type[Cleaner]) -> None:
    """Parameters against the method's settings dataclass: known names, values of the
    declared types (JSON lists for tuples), finite numbers. The annotations are read as
    text, never evaluated."""
    params_type = getattr(cls, "params_type", None)
    if params_type is None or not dataclasses.is_dataclass(params_type):
        return
    kinds = {f.name: str(f.type) for f in dataclasses.fields(params_type)}
    if unknown := sorted(set(params) - set(kinds)):
        raise ModelError(f"unknown {method} parameters: {unknown}")
    for name, value in params.items():
        if not _conforms(value, kinds[name]):
            raise ModelError(f"{method} parameter {name!r}: {str(value)[:60]!r} is not of "
                             f"type {kinds[name]}")


_SCALARS: dict[str, Any] = {
    "bool": lambda v: isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: (isinstance(v, int | float) and not isinstance(v, bool)
                        and math.isfinite(v)),
    "str": lambda v: isinstance(v, str),
    "None": lambda v: v is None,
}
_SEQUENCE = re.compile(r"(?:tuple|list|frozenset|set|Sequence)\[(\w+)(?:, \.\.\.)?\]")


def _conforms(value: Any, kind: str) -> bool:
    """Does a JSON value fit an annotation written as `float`, `int | None`,
    `tuple[str, ...]`, ...? Kinds this does not know pass: the method's own checks decide."""
    arms = [arm.strip() for arm in kind.split("|")]
    for arm in arms:
        if arm in _SCALARS:
            if _SCALARS[arm](value):
                return True
        elif (seq := _SEQUENCE.fullmatch(arm)) is not None and seq[1] in _SCALARS:
            if isinstance(value, list) and all(map(_SCALARS[seq[1]], value)):
                return True
        else:
            return True
    return False
