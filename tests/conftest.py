"""Shared helpers: toy pages and the location of the shared corpora."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesift.page import Page

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def page(html: str, id: str = "p") -> Page:
    return Page.from_html(html, id=id)


def shared_dataset(name: str) -> Path:
    """A corpus of ../shared/datasets, or skip the test with a clear message."""
    path = SHARED / name
    if not (path / "index.jsonl").is_file():
        pytest.skip(f"shared corpus {name!r} not found at {path} (needs ../shared/datasets)")
    return path
