"""Second-stage features: the first stage's content probabilities around each block.

Content is mostly one region, and the blocks of a container share a fate: a paragraph among
paragraphs the first stage is sure of is content even where its own evidence is thin, a
lone "article-like" block inside a sidebar is not. For each block: the probabilities of its
neighbours, token-weighted means over windows, over the blocks under each of its ancestors
(and those ancestors' shares of the page), the page's overall level, the block's rank
within the page, and how far (in tokens) the nearest likely-content block is.
"""

from __future__ import annotations

import numpy as np

from sitesift.extractor.blocks import ATTR_GROUPS
from sitesift.extractor.features import CONTEXT_LEVELS, FEATURES

# What kind of page this is, as the share of its tokens under each kind of part (comments
# are content on a forum page and noise under a news story; the model needs to know which).
PAGE_GROUPS = tuple(f"up_{name}" for name, _ in ATTR_GROUPS) + tuple(
    f"up_t_{name}" for name in ("article", "main", "nav", "aside", "header", "footer", "form",
                                "table", "list", "quote", "pre"))
_PAGE_COLUMNS = np.asarray([FEATURES.index(name) for name in PAGE_GROUPS])

OFFSETS = (-3, -2, -1, 1, 2, 3)
WINDOWS = (3, 10)


def _names() -> list[str]:
    names = ["p", "logit"]
    names += [f"p{off:+d}" for off in OFFSETS]
    names += [f"win{w}_mean" for w in WINDOWS]
    for lvl in CONTEXT_LEVELS:
        names += [f"up{lvl}_mean", f"up{lvl}_max", f"up{lvl}_share"]
    names += ["page_mean", "page_content_share", "page_max", "rank", "gap_before",
              "gap_after", "run_tokens"]
    names += [f"page_{name}" for name in PAGE_GROUPS]
    names += [f"likely_{name}" for name in PAGE_GROUPS]
    return names


CONTEXT: tuple[str, ...] = tuple(_names())
N_CONTEXT = len(CONTEXT)


def _window_mean(p: np.ndarray, w: np.ndarray, half: int) -> np.ndarray:
    cw = np.concatenate(([0.0], np.cumsum(w)))
    cpw = np.concatenate(([0.0], np.cumsum(p * w)))
    idx = np.arange(len(p))
    hi = np.minimum(idx + half + 1, len(p))
    lo = np.maximum(idx - half, 0)
    tot = cw[hi] - cw[lo]
    return np.where(tot > 0, (cpw[hi] - cpw[lo]) / np.maximum(tot, 1e-9), p)


def context_features(p: np.ndarray, ntok: np.ndarray, anc: np.ndarray,
                     X: np.ndarray) -> np.ndarray:
    """(blocks x CONTEXT) for one page: `p` the first stage's probabilities, `ntok` tokens
    per block, `anc` the ancestor element ids (`features.ancestors`), `X` the blocks'
    features."""
    n = len(p)
    out = np.full((n, N_CONTEXT), np.nan)
    if n == 0:
        return out
    p = p.astype(np.float64)
    w = ntok.astype(np.float64) + 1.0  # a token-less block still counts a little
    total = float(w.sum())
    clipped = np.clip(p, 1e-6, 1 - 1e-6)
    out[:, 0] = p
    out[:, 1] = np.log(clipped / (1 - clipped))
    c = 2
    for off in OFFSETS:
        idx = np.arange(n) + off
        ok = (idx >= 0) & (idx < n)
        out[ok, c] = p[idx[ok]]
        c += 1
    for half in WINDOWS:
        out[:, c] = _window_mean(p, w, half)
        c += 1
    for j in range(len(CONTEXT_LEVELS)):
        ids = anc[:, j]
        ok = ids >= 0
        if ok.any():
            _, inv = np.unique(ids[ok], return_inverse=True)
            sw = np.bincount(inv, weights=w[ok])
            spw = np.bincount(inv, weights=(p * w)[ok])
            mx = np.full(len(sw), -np.inf)
            np.maximum.at(mx, inv, p[ok])
            out[ok, c] = spw[inv] / sw[inv]
            out[ok, c + 1] = mx[inv]
            out[ok, c + 2] = sw[inv] / total
        c += 3
    out[:, c] = float((p * w).sum()) / total
    out[:, c + 1] = float(w[p >= 0.5].sum()) / total
    out[:, c + 2] = float(p.max())
    order = np.argsort(np.argsort(p, kind="stable"), kind="stable")
    out[:, c + 3] = order / max(n - 1, 1)
    # Tokens between the block and the nearest likely-content block before / after it.
    likely = p >= 0.5
    cum = np.cumsum(w)
    start = cum - w
    last_end = np.full(n, np.nan)
    seen = np.nan
    for i in range(n):
        last_end[i] = seen
        if likely[i]:
            seen = cum[i]
    next_start = np.full(n, np.nan)
    seen = np.nan
    for i in range(n - 1, -1, -1):
        next_start[i] = seen
        if likely[i]:
            seen = start[i]
    out[:, c + 4] = (start - last_end) / total
    out[:, c + 5] = (next_start - cum) / total
    # Tokens of the run of likely (or unlikely) blocks this block belongs to.
    run = np.zeros(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and likely[j + 1] == likely[i]:
            j += 1
        run[i:j + 1] = float(w[i:j + 1].sum()) / total
        i = j + 1
    out[:, c + 6] = run
    c += 7
    # page kind: token shares under each kind of part, overall and among likely content
    under = ~np.isnan(X[:, _PAGE_COLUMNS])  # (blocks, groups): inside such a part
    k = len(PAGE_GROUPS)
    out[:, c:c + k] = (w @ under) / total
    wl = w * likely
    out[:, c + k:c + 2 * k] = (wl @ under) / max(float(wl.sum()), 1.0)
    return out
