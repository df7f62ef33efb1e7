"""Which site a URL belongs to: its registrable domain, or its host.

The registrable domain comes from the Public Suffix List as bundled with `publicsuffixlist`
(no network access, ever). Its private section is used too, so each blog on a platform
(`name.blogspot.com`, `name.github.io`) is a site of its own, as the shared corpora group
them. Hosts without a registrable domain (IP addresses, `localhost`, a bare suffix) are
their own site. Pages without a URL get the site `UNKNOWN`, which is never fitted.
"""

from __future__ import annotations

import ipaddress
from functools import cache, lru_cache
from urllib.parse import urlsplit

from publicsuffixlist import PublicSuffixList

GROUPINGS = ("domain", "host")
UNKNOWN = "(no url)"


@cache
def _suffix_list() -> PublicSuffixList:
    return PublicSuffixList()  # parses the list shipped in the package, once per process


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
    domain = _suffix_list().privatesuffix(host)
    return str(domain) if domain else host


def site_key(url: str | None, grouping: str = "domain") -> str:
    """The site a page of `url` belongs to, by `grouping` ('domain' or 'host')."""
    if grouping not in GROUPINGS:
        raise ValueError(f"unknown grouping {grouping!r}; use one of {', '.join(GROUPINGS)}")
    host = host_of(url)
    if host is None:
        return UNKNOWN
    return host if grouping == "host" else _domain(host)
