"""The feature matrix of a page's blocks: one row per block, NaN where a value is unknown.

Computed by the native core (`native/src/page/features/`), for the cleaner and for training
alike, so the model learns from exactly what it is given at run time. Groups (names in
`feature_names()`):
- text: length, word shape, stop words, sentence punctuation, digits, link share (the
  shallow text features of Kohlschütter et al.'s boilerpipe, language-light);
- markup: the block's tag, depth, its own keyword groups (class, id, role, itemprop) and tag
  groups, and how many levels up the nearest ancestor of each group is;
- position: where the block starts in the page's text, and the page's size;
- neighbours: length and link share of the blocks around it;
- containers: share of the page's text, link share and number of blocks under the block's
  ancestors, and whether it lies in the page's densest text container (Readability's idea:
  score paragraphs into their parent and grandparent, take the best);
- title: overlap with the page's `<title>`;
- site: from `SiteEvidence` when pages of the site were fitted (NaN otherwise).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from sitesift.native import core

if TYPE_CHECKING:
    import numpy as np

CONTEXT_LEVELS = (1, 2, 3, 4, 6, 8)  # the ancestors `page_features` gives (native: 6 levels)


@functools.cache
def feature_names() -> tuple[str, ...]:
    return tuple(core().feature_names())


def page_features(npage: Any, evidence: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X: blocks x features float64, tokens per block, ancestors: blocks x CONTEXT_LEVELS
    element indices, -1 above `<body>`) of a page read by the core (`native.read`), with
    the site's evidence (a `SiteEvidence`) where given."""
    import numpy as np
    f = core().features(npage, evidence.native if evidence is not None else None)
    X = np.frombuffer(f.x, dtype=np.float64).reshape(f.rows, len(feature_names())).copy()
    A = np.frombuffer(f.anc, dtype=np.int64).reshape(f.rows, len(CONTEXT_LEVELS))
    return X, np.asarray(f.ntok, dtype=np.float64), A.astype(np.int32)
