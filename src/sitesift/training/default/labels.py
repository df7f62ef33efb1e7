"""Block labels from gold text, for training: which of a page's tokens the gold keeps.

The page's tokens (its blocks' tokens in document order) are aligned to the gold's tokens
in order (difflib's longest-matching-blocks alignment over token sequences), so a menu entry
whose one word also occurs in the article is not counted as gold unless it lines up with
the gold's own sequence. Matches shorter than `min_run` tokens count only where they cover
a whole short block or line up between longer matches.

Gold texts do not always keep the page's order: a byline or dateline the page prints above
the headline comes after it in the gold, a box of notes the markup puts inside the first
paragraph comes last, a product's specifications come before its description. An in-order
alignment keeps only one side of each such crossing and would teach the classifier that
the other side is noise. So what is left after the first pass is aligned again, out of
order: the longest common runs of at least `min_moved` tokens between the page's unmatched
stretches and the gold's unused ones, each gold token used once. A block's label is the
share of its tokens the two passes mark as gold.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from sitesift.text import tokens

if TYPE_CHECKING:
    import numpy as np

MIN_MOVED = 6   # tokens: a shorter run out of the gold's order is taken as chance
MAX_PASSES = 4  # out-of-order passes: each pass is in order again, so runs that cross the
                # ones it takes are left for the next


def _gaps(done: np.ndarray, min_len: int) -> list[tuple[int, int]]:
    """The maximal runs of False in `done` that are at least `min_len` long, as [start, end)."""
    import numpy as np
    edges = np.flatnonzero(np.diff(np.concatenate([[True], done, [True]]).astype(np.int8)))
    return [(int(s), int(e)) for s, e in zip(edges[::2], edges[1::2], strict=True)
            if e - s >= min_len]


def _align_moved(page: list[str], gold: list[str], matched: np.ndarray, used: np.ndarray,
                 min_moved: int) -> None:
    """Mark, in place, the runs that line up out of the gold's order (see the module doc)."""
    for _ in range(MAX_PASSES):
        gold_gaps = _gaps(used, min_moved)
        page_gaps = _gaps(matched, min_moved)
        if not gold_gaps or not page_gaps:
            return
        rest: list[str | None] = []  # the gold's unused runs, None between them
        where: list[int] = []        # ... and each token's index in the gold
        for s, e in gold_gaps:
            rest.extend(gold[s:e])
            where.extend(range(s, e))
            rest.append(None)
            where.append(-1)
        found = False
        for s, e in page_gaps:
            matcher = SequenceMatcher(None, page[s:e], rest, autojunk=False)
            for a, b, size in matcher.get_matching_blocks():
                if size < min_moved:
                    continue
                spot = where[b:b + size]
                if used[spot].any():  # an earlier page run took these gold tokens
                    continue
                matched[s + a:s + a + size] = True
                used[spot] = True
                found = True
        if not found:
            return


def gold_share(block_texts: Sequence[str], gold: str, min_run: int = 3,
               min_moved: int = MIN_MOVED) -> np.ndarray:
    """Per block: the share of its tokens aligned to the gold text (0 for empty blocks).

    A matching run of fewer than `min_run` tokens counts only when it is a whole block (a
    short heading or a one-word gold line), so stray common words do not make noise look
    like content; runs out of the gold's order count from `min_moved` tokens."""
    import numpy as np
    block_tokens = [tokens(t) for t in block_texts]
    page: list[str] = []
    owner: list[int] = []
    for b, toks in enumerate(block_tokens):
        page.extend(toks)
        owner.extend([b] * len(toks))
    share = np.zeros(len(block_texts))
    gold_tokens = tokens(gold)
    if not page or not gold_tokens:
        return share
    matched = np.zeros(len(page), dtype=bool)
    used = np.zeros(len(gold_tokens), dtype=bool)
    matcher = SequenceMatcher(None, page, gold_tokens, autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        if size == 0:
            continue
        if size < min_run:
            first, last = owner[a], owner[a + size - 1]
            whole = first == last and len(block_tokens[first]) == size
            if not whole:
                continue
        matched[a:a + size] = True
        used[b:b + size] = True
    _align_moved(page, gold_tokens, matched, used, min_moved)
    counts = np.bincount(np.asarray(owner), minlength=len(block_texts))
    hits = np.bincount(np.asarray(owner), weights=matched, minlength=len(block_texts))
    np.divide(hits, counts, out=share, where=counts > 0)
    return share
