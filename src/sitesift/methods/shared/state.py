"""Validation helpers for the JSON state of the block methods, and page fingerprints."""

from __future__ import annotations

import hashlib
from dataclasses import fields
from typing import Any, TypeVar

from sitesift.errors import ModelError
from sitesift.page import Page

P = TypeVar("P")
MAX_ITEMS = 5_000_000


def fingerprint(page: Page) -> str:
    """Identifies a page the model was fitted on (its HTML), so it is not counted twice."""
    return hashlib.blake2b(page.html.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def params_from_state(cls: type[P], method: str, params: dict[str, Any]) -> P:
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = set(params) - known
    if unknown:
        raise ModelError(f"unknown {method} parameters: {sorted(unknown)}")
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"bad {method} parameters: {exc}") from None


def get_list(state: dict[str, Any], key: str, method: str, kind: type | tuple[type, ...],
             length: int | None = None) -> list[Any]:
    """state[key] as a list whose items are all of `kind` (and `length` long if given)."""
    value = state.get(key)
    if not isinstance(value, list):
        raise ModelError(f"{method} state: {key!r} must be a list")
    if len(value) > MAX_ITEMS:
        raise ModelError(f"{method} state: {key!r} has {len(value):,} items, over the limit")
    if length is not None and len(value) != length:
        raise ModelError(f"{method} state: {key!r} has {len(value)} items, expected {length}")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for item in value:
        if isinstance(item, bool) or not isinstance(item, kinds):
            names = " or ".join(k.__name__ for k in kinds)
            raise ModelError(f"{method} state: {key!r} holds {item!r}, not {names}")
    return value


def get_int(state: dict[str, Any], key: str, method: str, low: int = 0) -> int:
    value = state.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ModelError(f"{method} state: {key!r} must be an integer >= {low}")
    return value


def get_float(state: dict[str, Any], key: str, method: str, low: float = 0.0,
              high: float = 1.0) -> float:
    value = state.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ModelError(f"{method} state: {key!r} must be a number in [{low}, {high}]")
    return float(value)
