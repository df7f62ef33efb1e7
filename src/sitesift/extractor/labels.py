"""Block labels from gold text, for training: which of a page's tokens the gold keeps.

The page's tokens (its blocks' tokens in document order) are aligned to the gold's tokens
in order (difflib's longest-matching-blocks alignment over token sequences), so a menu entry
whose one word also occurs in the article is not counted as gold unless it lines up with
the gold's own sequence. Matches shorter than `min_run` tokens count only where they cover
a whole short block or line up between longer matches; a block's label is the share of its
tokens the alignment marks as gold.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

import numpy as np

from sitesift.text import tokens


def gold_share(block_texts: Sequence[str], gold: str, min_run: int = 3) -> np.ndarray:
    """Per block: the share of its tokens aligned to the gold text (0 for empty blocks).

    A matching run of fewer than `min_run` tokens counts only when it is a whole block (a
    short heading or a one-word gold line), so stray common words do not make noise look
    like content."""
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
    matcher = SequenceMatcher(None, page, gold_tokens, autojunk=False)
    for a, _, size in matcher.get_matching_blocks():
        if size == 0:
            continue
        if size < min_run:
            first, last = owner[a], owner[a + size - 1]
            whole = first == last and len(block_tokens[first]) == size
            if not whole:
                continue
        matched[a:a + size] = True
    counts = np.bincount(np.asarray(owner), minlength=len(block_texts))
    hits = np.bincount(np.asarray(owner), weights=matched, minlength=len(block_texts))
    np.divide(hits, counts, out=share, where=counts > 0)
    return share
