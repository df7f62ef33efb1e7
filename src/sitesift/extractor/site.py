"""Site evidence: how often a block's text, and its place in the layout, recur on the site.

Template text (menus, footers, share bars, section names) repeats on most pages of a site;
an article's sentences occur on one. Fitted on several pages of a site, `SiteEvidence`
counts in how many pages each normalised block text occurs (as is, and with digits folded,
so "Posted May 5" and "Posted June 9" are alike), and in how many pages each block position
in the layout (the style keys of the block's element and two ancestors) holds text. A page
that was among the fitted pages is recognised by a digest of its HTML and leaves itself out
of its own counts, so its figures are what an unseen page of the site would get.

The counting and the shares are the native core's (`native/src/crawl/site.rs`); this is its
Python face and its state format (hex BLAKE2b keys, as the model files store them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from sitesift.errors import ModelError
from sitesift.native import core


def cv_group(site: str | None) -> str:
    """The unit kept out of training together: a site's name without `www.` and suffix
    (`cnn.com` and big9's `cnn` are one site; so are `bbc.co.uk` and `bbc.com`)."""
    name = (site or "unknown").lower().strip()
    name = re.sub(r"^www\d*\.", "", name)
    return name.split(".")[0] or name


class SiteEvidence:
    """Page counts of block texts and layout positions over a site's pages."""

    def __init__(self, native: Any = None) -> None:
        self.native = native if native is not None else core().Evidence()

    @classmethod
    def fit(cls, pages: Iterable[Any]) -> SiteEvidence:
        """From pages read by the core (`native.read`); a page seen twice counts once."""
        ev = cls()
        for page in pages:
            ev.native.add(page)
        return ev

    @property
    def n_pages(self) -> int:
        return int(self.native.n_pages)

    def to_state(self) -> dict[str, Any]:
        return dict(self.native.to_state())

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> SiteEvidence:
        try:
            n_pages = state["n_pages"]
            if not isinstance(n_pages, int) or isinstance(n_pages, bool) or n_pages < 0:
                raise ValueError(f"bad page count {n_pages!r}")
            counts = [_counts(state[k]) for k in ("text", "folded", "path")]
            digests = _strings(state["digests"])
            native = core().Evidence.from_state(n_pages, *counts, list(digests))
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise ModelError(f"default: bad site evidence: {exc}") from None
        return cls(native)


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
