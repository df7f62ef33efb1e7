"""Which site group a page belongs to: the one set of grouping keys of every job.

Two families of keys, both here so that a folder, a corpus and a crawl are grouped by one
rule set:
- by the page's row (`GROUPINGS`: `clean`, `fit`, `evaluate`, `bench`, `report`): its
  `site` (or `host`), its `site` and `year`, or one group of everything (`none`);
- by the page's URL (`URL_GROUPINGS`: `crawl` and Spark): its registrable domain (the
  Public Suffix List compiled into the native core, `native/src/urls.rs`, its private
  section included, so each blog on a platform, `name.blogspot.com`, is a site of its own)
  or its host.
Hosts without a registrable domain (IP addresses, `localhost`, a bare suffix) are their own
site; pages without a URL get the site `UNKNOWN`, which is never fitted.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

GROUPINGS = ("site", "site,year", "none")
URL_GROUPINGS = ("domain", "host")
UNKNOWN = "(no url)"


@dataclass(frozen=True, slots=True)
class Grouping:
    """How a run groups a corpus' pages into sites: the key (`GROUPINGS`) and the smallest
    group kept (smaller groups are left out of the run, for every method)."""

    by: str = "site"
    min_pages: int = 1


SITE = Grouping()


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


def host_of(url: str | None) -> str | None:
    """Lower-cased host without a trailing dot or a leading 'www.'; None if there is none."""
    if not url:
        return None
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:  # e.g. a malformed IPv6 literal
        return None
    if not host:
        return None
    host = host.rstrip(".")
    return host.removeprefix("www.") or None


@lru_cache(maxsize=1 << 16)
def _domain(host: str) -> str:
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    from sitesift.native import core

    return core().registrable_domain(host) or host


def site_key(url: str | None, grouping: str = "domain") -> str:
    """The site a page of `url` belongs to, by `grouping` ('domain' or 'host')."""
    if grouping not in URL_GROUPINGS:
        raise ValueError(f"unknown grouping {grouping!r}; use one of {', '.join(URL_GROUPINGS)}")
    host = host_of(url)
    if host is None:
        return UNKNOWN
    return host if grouping == "host" else _domain(host)
