"""Global template detection (Bar-Yossef & Rajagopalan, section 4.2): templates as linked
groups of pages.

A template is a set of near-identical pagelets whose pages are connected in the site's
hyperlink graph (undirected). For each fingerprint that recurs, the pages owning it are
split into the connected components of the graph induced on them; a component of at least
`min_pages` pages is a template group. A group keeps its pages' URLs and the URLs of the
site they link to, so a page never seen joins a group when it is one of its pages, links
to one of them, or is linked from one of them.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from sitesift.errors import ModelError
from sitesift.links import SiteGraph

MAX_FINGERPRINT = (1 << 63) - 1


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


class Components:
    """Global mode: for each recurring fingerprint, the linked groups of pages owning it.

    A group keeps its pages' URLs and the in-site URLs they link to, so a page never seen
    joins a group when it links to one of the group's pages or one of them links to it."""

    def __init__(self) -> None:
        self.groups: list[tuple[frozenset[str], frozenset[str]]] = []  # (members, targets)
        self.by_fp: dict[int, list[int]] = {}
        self._index: dict[tuple[frozenset[str], frozenset[str]], int] = {}

    def add(self, fp: int, members: frozenset[str], targets: frozenset[str]) -> None:
        key = (members, targets)
        gid = self._index.get(key)
        if gid is None:  # sites share one navigation: most fingerprints share a group
            gid = self._index[key] = len(self.groups)
            self.groups.append(key)
        self.by_fp.setdefault(fp, []).append(gid)

    def connected(self, fp: int, url: str | None, targets: set[str]) -> int:
        """Pages of the largest group of `fp` that the page belongs to or links with."""
        best = 0
        for gid in self.by_fp.get(fp, ()):
            members, reach = self.groups[gid]
            if (url is not None and (url in members or url in reach)) or not targets.isdisjoint(
                    members):
                best = max(best, len(members))
        return best

    @classmethod
    def fit(cls, graph: SiteGraph, owners: dict[int, list[int]], min_pages: int) -> Components:
        comps = cls()
        for fp, pages in owners.items():
            with_url = [i for i in pages if graph.urls[i] is not None]
            for comp in graph.components(with_url):
                if len(comp) < min_pages:
                    continue
                members = frozenset(str(graph.urls[i]) for i in comp)
                hosts = {m.split("/", 1)[0] for m in members}
                reach = frozenset(t for i in comp for t in graph.targets[i]
                                  if t.split("/", 1)[0] in hosts)
                comps.add(fp, members, reach)
        return comps

    def to_state(self) -> dict[str, Any]:
        urls = sorted({u for members, reach in self.groups for u in members | reach})
        index = {u: i for i, u in enumerate(urls)}
        return {
            "urls": urls,
            "groups": [{"members": sorted(index[u] for u in members),
                        "targets": sorted(index[u] for u in reach)}
                       for members, reach in self.groups],
            "components": sorted([fp, gid] for fp, gids in self.by_fp.items() for gid in gids),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Components:
        urls, groups, pairs = state.get("urls"), state.get("groups"), state.get("components")
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            raise ModelError("template state: 'urls' must be a list of strings")
        if not isinstance(groups, list) or not isinstance(pairs, list):
            raise ModelError("template state: 'groups' and 'components' must be lists")
        comps = cls()
        for g in groups:
            if not isinstance(g, dict):
                raise ModelError("template state: a group is not an object")
            sets = []
            for name in ("members", "targets"):
                refs = g.get(name)
                if not isinstance(refs, list) or not all(
                        is_int(r) and 0 <= r < len(urls) for r in refs):
                    raise ModelError(f"template state: group '{name}' must list URL indices")
                sets.append(frozenset(urls[r] for r in refs))
            if not sets[0]:
                raise ModelError("template state: a group has no member pages")
            comps.groups.append((sets[0], sets[1]))
        for pair in pairs:
            if (not isinstance(pair, list) or len(pair) != 2 or not all(map(is_int, pair))
                    or not 0 <= pair[0] <= MAX_FINGERPRINT or not 0 <= pair[1] < len(groups)):
                raise ModelError(f"template state: bad component {pair!r} "
                                 "(want [fingerprint, group index])")
            comps.by_fp.setdefault(pair[0], []).append(pair[1])
        return comps
