"""The model file's reference of its training pages: which pages are unlike all of them.

A page is described by a few page-wide means of its blocks' features (the native core's
`novelty::descriptor`, columns `novelty_columns()`). The reference holds every training
page's descriptor, standardized, with its site, and a distance: a page whose mean distance
to its `K` nearest training pages is beyond it is *unlike* them. The distance is the
`QUANTILE` of the training pages' own distances to the pages of other sites, so one in ten
training pages, seen from the other sites, is unlike them.

In the file the points are one base64 string of little-endian float32 rows and the sites
one of little-endian uint32 indices into `sites`: a model file is read at every start, and
these are most of its numbers.

The cleaner asks this before rules that trust a page's layout over the model's doubt
(`unseen=keep`): on a kind of page the model learnt, its doubt is learnt too; on one it never
saw, it is only not knowing (docs/lab/loco.md, "Pages unlike the training pages"). A model file
without a reference finds no page unlike its own, so older files clean as they did.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import math
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sitesift.errors import ModelError
from sitesift.native import core

if TYPE_CHECKING:
    import numpy as np

K = 5
QUANTILE = 0.9
_KEYS = ("columns", "mean", "scale", "k", "quantile", "cut", "sites", "site", "points")


def descriptors(X: np.ndarray, ntok: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """(pages x columns): each page's descriptor from its blocks' rows of `X` and token
    counts, pages being the row ranges `bounds[i]:bounds[i + 1]`."""
    import numpy as np
    out = []
    for lo, hi in itertools.pairwise(bounds):
        x = np.ascontiguousarray(X[lo:hi], dtype=np.float64)
        out.append(core().page_descriptor(x.tobytes(), ntok[lo:hi].astype(float).tolist()))
    return np.asarray(out, dtype=np.float64).reshape(len(out), len(core().novelty_columns()))


def build(desc: np.ndarray, sites: Sequence[str], k: int = K,
          quantile: float = QUANTILE) -> dict[str, Any]:
    """The reference (the model file's `novelty` object) of training pages with these
    descriptors and sites (k at most the pages outside the largest site, so every page has
    k to be seen from)."""
    import numpy as np
    if len(desc) == 0:
        raise ValueError("a reference needs training pages")
    largest = max(Counter(sites).values())
    k = max(1, min(k, len(desc) - largest)) if largest < len(desc) else min(k, len(desc))
    mean = desc.mean(axis=0)
    scale = desc.std(axis=0)
    scale[~(scale > 1e-9)] = 1.0  # a column alike on every page tells no page apart
    points = ((desc - mean) / scale).astype("<f4")
    names = sorted(set(sites))
    index = {s: i for i, s in enumerate(names)}
    site = [index[s] for s in sites]
    doc = {"columns": list(core().novelty_columns()), "mean": mean.tolist(),
           "scale": scale.tolist(), "k": int(k), "quantile": float(quantile),
           "cut": None, "sites": names,
           "site": base64.b64encode(np.asarray(site, dtype="<u4").tobytes()).decode("ascii"),
           "points": base64.b64encode(points.tobytes()).decode("ascii")}
    # each training page seen from the other sites' pages
    own = native(doc).distances(desc.tolist(), site)
    seen = np.asarray(own)[np.isfinite(own)]
    # (JSON has no infinity: a reference of one site finds no page unlike it, cut None)
    doc["cut"] = float(np.quantile(seen, quantile)) if len(seen) else None
    return doc


def native(doc: Any) -> Any:
    """The core's `Novelty` of a model file's `novelty` object; a ModelError says what is
    wrong with it."""
    if not isinstance(doc, dict) or any(key not in doc for key in _KEYS):
        raise ModelError(f"'novelty' must be an object of {', '.join(_KEYS)}")
    if doc["columns"] != list(core().novelty_columns()):
        raise ModelError("the model's novelty reference describes pages by other columns; "
                         "retrain it with `sitesift train-default`")
    try:
        cut = doc["cut"]
        return core().Novelty([float(v) for v in doc["mean"]], [float(v) for v in doc["scale"]],
                              base64.b64decode(doc["points"], validate=True),
                              base64.b64decode(doc["site"], validate=True),
                              [str(s) for s in doc["sites"]], int(doc["k"]),
                              math.inf if cut is None else float(cut))
    except (TypeError, ValueError, OverflowError, binascii.Error) as exc:
        raise ModelError(f"bad novelty reference: {exc}") from None


def unlike(doc: dict[str, Any], desc: np.ndarray) -> np.ndarray:
    """Whether each page of descriptors `desc` is unlike every page of the reference (the
    core's `Reference::novel`, as the cleaner asks it)."""
    import numpy as np
    return np.asarray(native(doc).novel(desc.tolist()), dtype=bool)
