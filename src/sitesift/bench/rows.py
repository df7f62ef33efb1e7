"""A bench run's rows (one per corpus, page and method) and how the report and the plots
take them apart."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

Row = dict[str, Any]
PAGE_TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")


def by_key(rows: list[Row], *keys: str) -> dict[tuple[Any, ...], list[Row]]:
    out: dict[tuple[Any, ...], list[Row]] = defaultdict(list)
    for row in rows:
        out[tuple(row.get(k) for k in keys)].append(row)
    return out
