"""Site evidence: how often a block's text, and its place in the layout, recur on the site.

Template text (menus, footers, share bars, section names) repeats on most pages of a site;
an article's sentences occur on one. Fitted on several pages of a site, `SiteEvidence`
counts in how many pages each normalised block text occurs (as is, and with digits folded,
so "Posted May 5" and "Posted June 9" are alike), and in how many pages each block position
in the layout (the style keys of the block's element and two ancestors) holds text. A page
that was among the fitted pages is recognised by a digest of its HTML and leaves itself out
of its own counts, so its figures are what an unseen page of the site would get.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sitesift.extractor.blocks import PageBlocks

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


def page_digest(html: str) -> str:
    return hashlib.blake2b(html.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _h(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def block_keys(pb: PageBlocks) -> tuple[list[str], list[str], list[str]]:
    """Per block: hashes of its normalised text, of that text with digits folded, and of its
    layout position (style keys of its element, parent and grandparent). Made once per
    `PageBlocks` (kept in it)."""
    if pb.site_keys is not None:
        return pb.site_keys
    texts: list[str] = []
    folded: list[str] = []
    paths: list[str] = []
    for elem, text in zip(pb.elem, pb.text, strict=True):
        norm = _SPACES.sub(" ", text.lower()).strip()
        texts.append(_h(norm))
        folded.append(_h(_DIGITS.sub("0", norm)))
        keys = []
        e = elem
        for _ in range(3):
            if e < 0:
                break
            keys.append(pb.nodes[e].key)
            e = pb.parent[e]
        paths.append(_h("/".join(keys)))
    pb.site_keys = (texts, folded, paths)
    return pb.site_keys


@dataclass
class SiteEvidence:
    """Page counts of block texts and layout positions over a site's pages."""

    n_pages: int = 0
    text: Counter[str] = field(default_factory=Counter)
    folded: Counter[str] = field(default_factory=Counter)
    path: Counter[str] = field(default_factory=Counter)
    digests: set[str] = field(default_factory=set)

    @classmethod
    def fit(cls, pages: Iterable[tuple[str, PageBlocks]]) -> SiteEvidence:
        """From (page HTML digest, blocks) pairs; a page seen twice counts once."""
        ev = cls()
        for digest, pb in pages:
            if digest in ev.digests:
                continue
            ev.digests.add(digest)
            ev.n_pages += 1
            t, f, p = block_keys(pb)
            ev.text.update(set(t))
            ev.folded.update(set(f))
            ev.path.update(set(p))
        return ev

    def shares(self, digest: str, pb: PageBlocks) -> tuple[list[float], list[float],
                                                           list[float], int]:
        """Per block, the share of the site's other pages with the same text, the same
        digit-folded text, and text at the same layout position; and how many other pages
        there are (0: no evidence, the shares are NaN)."""
        own = 1 if digest in self.digests else 0
        others = self.n_pages - own
        n = len(pb.text)
        if others <= 0:
            nan = [float("nan")] * n
            return nan, nan, nan, 0
        t, f, p = block_keys(pb)
        # A page counts each key once, so a key repeated within this page is one "own" count.
        return ([(self.text[k] - own) / others for k in t],
                [(self.folded[k] - own) / others for k in f],
                [(self.path[k] - own) / others for k in p], others)

    def to_state(self) -> dict[str, Any]:
        return {"n_pages": self.n_pages, "text": dict(self.text), "folded": dict(self.folded),
                "path": dict(self.path), "digests": sorted(self.digests)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> SiteEvidence:
        from sitesift.errors import ModelError

        try:
            ev = cls(int(state["n_pages"]), Counter(_counts(state["text"])),
                     Counter(_counts(state["folded"])), Counter(_counts(state["path"])),
                     set(_strings(state["digests"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"default: bad site evidence: {exc}") from None
        if ev.n_pages < 0 or len(ev.digests) > ev.n_pages:
            raise ModelError("default: bad site evidence: page counts do not add up")
        return ev


def _counts(value: Any) -> dict[str, int]:
    if not isinstance(value, dict):
        raise TypeError("counts must be an object")
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"bad count {k!r}: {v!r}")
        out[k] = v
    return out


def _strings(value: Any) -> Sequence[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError("digests must be a list of strings")
    return value
