"""Second-stage features: the first stage's content probabilities around each block.

Content is mostly one region, and the blocks of a container share a fate: a paragraph among
paragraphs the first stage is sure of is content even where its own evidence is thin, a
lone "article-like" block inside a sidebar is not. For each block: the probabilities of its
neighbours, token-weighted means over windows, over the blocks under each of its ancestors
(and those ancestors' shares of the page), the page's overall level, the block's rank
within the page, how far (in tokens) the nearest likely-content block is, and what kind of
page it is (token shares under each kind of part). Computed by the native core
(`native/src/page/context.rs`), for the cleaner and for training alike.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from sitesift.native import core

if TYPE_CHECKING:
    import numpy as np


@functools.cache
def context_names() -> tuple[str, ...]:
    return tuple(core().context_names())


def context_features(p: np.ndarray, ntok: np.ndarray, anc: np.ndarray,
                     X: np.ndarray) -> np.ndarray:
    """(blocks x context_names()) for one page: `p` the first stage's probabilities, `ntok`
    tokens per block, `anc` the ancestor element ids (`features.page_features`), `X` the
    blocks' features."""
    import numpy as np
    n = len(p)
    out = core().context(np.ascontiguousarray(p, dtype=np.float64).tobytes(),
                         np.ascontiguousarray(ntok, dtype=np.float64).tobytes(),
                         np.ascontiguousarray(anc, dtype=np.int64).tobytes(),
                         np.ascontiguousarray(X, dtype=np.float64).tobytes())
    return np.frombuffer(out, dtype=np.float64).reshape(n, len(context_names())).copy()
