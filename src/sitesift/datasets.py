"""Reading corpora in the shared layout: `pages/<id>.html[.gz]`, `gold/<id>.txt`, `index.jsonl`.

Rows of `index.jsonl` carry `id` and usually `url`, `site`, `year`; WebKB rows carry
`body_offset` (the saved HTTP response header comes first) and `http_content_type`.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sitesift.errors import InputError
from sitesift.page import Page

GROUPINGS = ("site", "site,year", "none")


def is_dataset(path: Path) -> bool:
    return (path / "index.jsonl").is_file() and (path / "pages").is_dir()


def read_index(root: Path) -> list[dict[str, Any]]:
    rows = []
    with open(root / "index.jsonl", encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, RecursionError) as exc:  # or nested too deep
                raise InputError(f"{root / 'index.jsonl'}:{n}: bad JSON: {exc}") from None
            if not isinstance(row, dict) or not isinstance(row.get("id"), str):
                raise InputError(f"{root / 'index.jsonl'}:{n}: a row needs a string 'id'")
            rows.append(row)
    return rows


def page_path(root: Path, page_id: str) -> Path:
    for name in (f"{page_id}.html.gz", f"{page_id}.html", f"{page_id}.htm"):
        path = root / "pages" / name
        if path.is_file():
            return path
    raise InputError(f"{page_id}: no page file in {root / 'pages'}")


def read_page_bytes(root: Path, row: dict[str, Any]) -> bytes:
    path = page_path(root, row["id"])
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise InputError(f"{row['id']}: cannot read {path}: {exc}") from None
    offset = row.get("body_offset")
    if isinstance(offset, int) and 0 < offset <= len(data):
        data = data[offset:]
    return data


def load_page(root: Path, row: dict[str, Any]) -> Page:
    data = read_page_bytes(root, row)
    page = Page.from_bytes(data, url=row.get("url"), site=row.get("site"), id=row["id"],
                           content_type=row.get("http_content_type"))
    page.meta.update(row)
    return page


def read_gold(root: Path, page_id: str) -> str | None:
    path = root / "gold" / f"{page_id}.txt"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def group_key(row: dict[str, Any], grouping: str) -> str:
    """The site group a row belongs to (`site`, `site,year` or `none`, one group of all).
    A row with neither site nor host is a group of its own: pages whose site is unknown
    are not taken for one site (unrelated pages would look like each other's template)."""
    if grouping == "none":
        return "all"
    site = str(row.get("site") or row.get("host") or f"unknown/{row['id']}")
    if grouping == "site":
        return site
    if grouping == "site,year":
        year = row.get("year")
        return f"{site}/{year}" if year is not None else site
    raise ValueError(f"unknown grouping {grouping!r}; use one of {', '.join(GROUPINGS)}")


def group_rows(rows: Iterable[dict[str, Any]], grouping: str) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[group_key(row, grouping)].append(row)
    return dict(groups)
