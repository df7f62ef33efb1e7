"""Tokens and content features, defined once for every method and for the metrics.

A token is a lowercased `\\w+` match (Unicode word characters), the unit of the evaluation
metric. A *feature* is what the Site Style Tree paper counts in a leaf: words, image
sources (`img:`) and link targets (`a:`).
"""

from __future__ import annotations

import functools
import re
from collections import Counter

from sitesift.dom import DomNode

TOKEN = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")


def tokens(text: str) -> list[str]:
    """Lowercased `\\w+` tokens: the unit of token precision/recall/F1."""
    return TOKEN.findall(text.lower())


def normalise_line(text: str) -> str:
    """A text block as a repeatable feature: case and spacing folded. Digits are kept: an
    ISBN or a price is content even where its label repeats on every page."""
    return _SPACES.sub(" ", text.strip().lower())


def node_features(node: DomNode) -> Counter[str]:
    """Words, image sources and link targets in a node's subtree (cached on the node)."""
    cached = node._features
    if cached is not None:
        return cached
    words: list[str] = []
    extra: list[str] = []
    for sub in node.iter():
        if sub.src:
            extra.append("img:" + sub.src)
        if sub.href:
            extra.append("a:" + sub.href)
        for child in sub.children:
            if isinstance(child, str):
                words.append(child)
    feats: Counter[str] = Counter(TOKEN.findall(" ".join(words).lower()))
    feats.update(extra)
    node._features = feats
    return feats


@functools.cache
def stop_words() -> frozenset[str]:
    """English stop words (scikit-learn's list), read once for every method and mining
    step that leaves them out; scikit-learn is imported on the first call only."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)
