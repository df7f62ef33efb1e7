"""The hyperlink graph among pages of one site, from their hrefs resolved against their URLs.

URLs are compared in a normal form that ignores what does not change the page: the scheme,
a leading `www.`, the port 80/443, the fragment and a trailing `/`; Wayback Machine
addresses (`web.archive.org/web/<timestamp>/<url>`) are unwrapped to the archived URL, so
archived copies of one site link to each other as the live pages did.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import urljoin, urlsplit

from sitesift.page import Page

_WAYBACK = re.compile(r"^/web/\d+[a-z_]*/+(.+)$", re.I)
_HAS_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:/+", re.I)


def normalise_url(url: str) -> str | None:
    """`host/path?query` of an http(s) URL in normal form; None for anything else."""
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    if host.endswith("archive.org"):
        inner = _WAYBACK.match(parts.path)
        if inner:
            target = inner.group(1) + (f"?{parts.query}" if parts.query else "")
            if not _HAS_SCHEME.match(target):
                target = "http://" + target
            return normalise_url(re.sub(r"^([a-z]+):/+", r"\1://", target, flags=re.I))
    if host.startswith("www."):
        host = host[4:]
    if port not in (None, 80, 443):
        host = f"{host}:{port}"
    path = parts.path.rstrip("/")
    return host + path + (f"?{parts.query}" if parts.query else "")


def page_links(page: Page) -> tuple[str | None, set[str]]:
    """The page's own normalised URL and the normalised targets of its hrefs.

    Relative hrefs need the page's URL; without one only absolute hrefs count."""
    base = page.url
    own = normalise_url(base) if base else None
    targets: set[str] = set()
    for node in page.root.iter():
        href = node.href
        if not href or href.startswith(("#", "javascript:", "mailto:")):
            continue
        try:
            absolute = urljoin(base, href) if base else href
        except ValueError:
            continue
        target = normalise_url(absolute)
        if target is not None and target != own:
            targets.add(target)
    return own, targets


class SiteGraph:
    """Pages as nodes; an undirected edge where one page links to another's URL."""

    def __init__(self, urls: list[str | None], targets: list[set[str]]) -> None:
        self.urls = urls
        self.targets = targets
        index = {u: i for i, u in enumerate(urls) if u is not None}
        self.adjacent: list[set[int]] = [set() for _ in urls]
        for i, outs in enumerate(targets):
            for target in outs:
                j = index.get(target)
                if j is not None and j != i:
                    self.adjacent[i].add(j)
                    self.adjacent[j].add(i)
        self.edges = sum(len(a) for a in self.adjacent) // 2

    @classmethod
    def build(cls, pages: Sequence[Page]) -> SiteGraph:
        urls: list[str | None] = []
        targets: list[set[str]] = []
        for page in pages:
            own, outs = page_links(page)
            urls.append(own)
            targets.append(outs)
        return cls(urls, targets)

    def why_empty(self) -> str:
        """Why the graph has no edges, in words."""
        with_url = sum(u is not None for u in self.urls)
        if with_url < 2:
            return f"only {with_url} of {len(self.urls)} pages have a URL"
        return f"no page of the {len(self.urls)} links to another ({with_url} with URLs)"

    def components(self, nodes: Iterable[int]) -> list[list[int]]:
        """Connected components of the subgraph induced on `nodes` (each sorted)."""
        inside = set(nodes)
        out: list[list[int]] = []
        while inside:
            start = inside.pop()
            comp, stack = [start], [start]
            while stack:
                for j in self.adjacent[stack.pop()]:
                    if j in inside:
                        inside.remove(j)
                        comp.append(j)
                        stack.append(j)
            out.append(sorted(comp))
        return sorted(out)
