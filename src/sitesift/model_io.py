"""Saving and loading fitted cleaners (site models) as versioned, validated JSON (never
pickle), in the sealed document format of every sitesift model file (`sitesift.sealed`,
whose names this module still gives: `seal`, `write_document`, `read_document`, ...).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

from sitesift import __version__
from sitesift.errors import ModelError, UnknownMethodError
from sitesift.methods.base import Cleaner, get_class
from sitesift.sealed import (
    CHECKSUM_MISMATCH,
    Kind,
    check_seal,
    check_writer,
    head_prefix,
    parse_document,
    read_document,
    seal,
    seal_bytes,
    sealed_head,
    write_document,
)

FORMAT = "sitesift-model"
FORMAT_VERSION = 2  # sealed; version 1 (a digest of the canonical JSON) is read too
MAX_BYTES = 512 * 1024 * 1024


def _digest(method: str, params: dict[str, Any], state: dict[str, Any]) -> str:
    """The checksum of a version-1 site model: the canonical JSON of its parts, hashed."""
    canonical = json.dumps({"method": method, "params": params, "state": state}, sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def save_model(cleaner: Cleaner, path: str | Path) -> Path:
    """Write a fitted cleaner; `.gz` in the name compresses it. Written atomically."""
    cleaner.check_fitted()
    path = Path(path)
    doc = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "method": cleaner.name,
        "sitesift_version": __version__, "params": cleaner.get_params(),
        "state": cleaner.to_state(),
    }
    return write_document(doc, path)


def load_model(path: str | Path, *, max_bytes: int = MAX_BYTES) -> Cleaner:
    """Read and validate a model file; every problem is a ModelError naming the file."""
    path = Path(path)
    try:
        return _load(path, max_bytes)
    except ModelError as exc:
        raise ModelError(f"{path}: {exc}") from None


def _parts(doc: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A site model's method, parameters and state, of the right JSON types."""
    params, state, method = doc.get("params"), doc.get("state"), doc.get("method")
    if not isinstance(params, dict) or not isinstance(state, dict) or not isinstance(method,
                                                                                    str):
        raise ModelError("'method', 'params' and 'state' must be a string and two objects")
    return method, params, state


SITE_MODEL = Kind(FORMAT, "a sitesift model", FORMAT_VERSION,
                  {1: lambda doc: _digest(*_parts(doc))})


def _load(path: Path, max_bytes: int) -> Cleaner:
    method, params, state = _parts(doc := read_document(path, max_bytes, SITE_MODEL))
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


__all__ = ["CHECKSUM_MISMATCH", "FORMAT", "FORMAT_VERSION", "MAX_BYTES", "SITE_MODEL", "Kind",
           "check_seal", "check_writer", "head_prefix", "load_model", "parse_document",
           "read_document", "save_model", "seal", "seal_bytes", "sealed_head",
           "write_document"]
