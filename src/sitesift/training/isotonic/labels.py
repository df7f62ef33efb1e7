"""Training labels without hand labels: site-level template detection on the scored tree.

The seed's recipe: hash page fragments over the pages of a site, count on how many pages
each occurs, and call the recurring ones template. Here the fragments are the scored
nodes of `features.node_table`, and a fragment's hash is its shingle fingerprint
(`sitesift.shingles`, the template method's: w-token shingles, n min-hashes, digits
folded), so a block that differs only in a date or a counter still recurs.

Per site group (duplicate pages dropped first, as the template method does, since a page
saved twice would make its whole article look like template):

- a node whose fingerprint is on at least `max(min_pages, min_share x pages)` pages is
  TEMPLATE; one found on its own page only is CONTENT; anything between is left out;
- then the seed's monotonicity fixes the internal nodes: a node all of whose scored
  children are TEMPLATE is TEMPLATE (a recurring menu in a new order is still a menu), and
  a node with a CONTENT child is CONTENT (it is not all template).

**Bias.** The labels are one-sided: recurrence is strong evidence of template, but a
template block whose text changes from page to page (most-read lists, related stories, ads,
a teaser of the next article) is unique and becomes a false CONTENT label; template found on
a few pages only is left out rather than called CONTENT. `gold_content` can further keep a
CONTENT label only where the corpus' gold text confirms it (an option, off for the shipped
model: that would use hand-made labels), and the classifier is a logistic regression: few
parameters, so the label noise is averaged rather than learnt (the seed's argument).

`gold_labels` derives node labels from gold main text for *evaluation* only: a node whose
token trigrams are mostly in the gold is content, mostly absent is noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitesift.methods.isotonic.features import NodeTable
from sitesift.shingles import fingerprint, normalise_tokens

TEMPLATE, CONTENT, UNLABELLED = 1, 0, -1


@dataclass(frozen=True, slots=True)
class LabelParams:
    """How site-level recurrence becomes labels."""

    min_pages: int = 3
    """A TEMPLATE fragment is on at least this many pages of the site..."""
    min_share: float = 0.2
    """...and on at least this share of them (a site of 300 product pages needs 60)."""
    shingle_width: int = 4
    """Tokens per shingle (the template method's w)."""
    n_hashes: int = 4
    """Min-hashes per fingerprint (the template method's n)."""
    gold_content: float | None = None
    """When set, a CONTENT label also needs this share of the node's trigrams in the page's
    gold text (pages without gold keep the recurrence label). Off by default."""

    def __post_init__(self) -> None:
        if self.min_pages < 2:
            raise ValueError("min_pages must be at least 2: a template recurs")
        if not 0.0 <= self.min_share <= 1.0:
            raise ValueError("min_share must be in [0, 1]")


def node_fingerprints(table: NodeTable, p: LabelParams) -> list[int | None]:
    """The shingle fingerprint of every scored node's text (digits folded)."""
    words = normalise_tokens(table.page_tokens)
    return [fingerprint(words[s:e], p.shingle_width, p.n_hashes)
            for s, e in zip(table.start.tolist(), table.end.tolist(), strict=True)]


def site_labels(tables: Sequence[NodeTable], p: LabelParams | None = None,
                golds: Sequence[str | None] | None = None) -> list[np.ndarray]:
    """Labels (TEMPLATE / CONTENT / UNLABELLED) of every scored node of the pages of one
    site; a page that duplicates an earlier one gets no labels."""
    p = p or LabelParams()
    prints = [node_fingerprints(t, p) for t in tables]
    whole = [fp[0] if fp else None for fp in prints]
    keep: list[bool] = []
    seen: set[int | None] = set()
    for fp in whole:
        keep.append(fp is not None and fp not in seen)
        seen.add(fp)
    pages_of: dict[int, int] = {}
    for fps, kept in zip(prints, keep, strict=True):
        if kept:
            for fp in {f for f in fps if f is not None}:
                pages_of[fp] = pages_of.get(fp, 0) + 1
    n_pages = sum(keep)
    need = max(p.min_pages, math.ceil(p.min_share * n_pages))
    out = []
    for k, (table, fps, kept) in enumerate(zip(tables, prints, keep, strict=True)):
        labels = np.full(len(table), UNLABELLED, dtype=np.int64)
        if kept and n_pages >= p.min_pages:
            counts = np.asarray([pages_of.get(f, 0) if f is not None else 0 for f in fps])
            labels[counts >= need] = TEMPLATE
            labels[counts == 1] = CONTENT
            labels = monotone_labels(table.parents, labels)
            gold = golds[k] if golds is not None else None
            if p.gold_content is not None and gold is not None:
                share = gold_share(table, gold)
                labels[(labels == CONTENT) & (share < p.gold_content)] = UNLABELLED
        out.append(labels)
    return out


def monotone_labels(parents: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The seed's rule on internal nodes: all children TEMPLATE -> TEMPLATE; a CONTENT child
    -> CONTENT; otherwise the node's own recurrence label stands."""
    out = labels.copy()
    n = out.size
    kids = np.zeros(n, dtype=np.int64)
    templ = np.zeros(n, dtype=np.int64)
    content = np.zeros(n, dtype=bool)
    for i in range(n - 1, -1, -1):  # children before parents
        if kids[i]:
            if content[i]:
                out[i] = CONTENT
            elif templ[i] == kids[i]:
                out[i] = TEMPLATE
        p = parents[i]
        if p >= 0:
            kids[p] += 1
            templ[p] += out[i] == TEMPLATE
            content[p] = content[p] or out[i] == CONTENT
    return out


def _grams(words: Sequence[str], k: int) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + k]) for i in range(max(len(words) - k + 1, 0))}


def gold_share(table: NodeTable, gold: str) -> np.ndarray:
    """Share of each node's token trigrams (bigrams / the word itself for shorter nodes)
    that occur in the gold text."""
    from sitesift.text import tokens as tokenize

    gold_words = tokenize(gold)
    sets = {k: _grams(gold_words, k) for k in (1, 2, 3)}
    words = table.page_tokens
    # Trigram hits as a prefix sum over the page, so each node is O(1).
    tri = np.fromiter((tuple(words[i:i + 3]) in sets[3] for i in range(len(words))),
                      dtype=np.float64, count=len(words))
    prefix = np.concatenate([[0.0], np.cumsum(tri)])
    share = np.zeros(len(table))
    for j, (s, e) in enumerate(zip(table.start.tolist(), table.end.tolist(), strict=True)):
        n = e - s
        if n >= 3:
            share[j] = (prefix[e - 2] - prefix[s]) / (n - 2)
        elif n > 0:
            share[j] = float(tuple(words[s:e]) in sets[n])
    return share


def gold_labels(table: NodeTable, gold: str, low: float = 0.2, high: float = 0.8
                ) -> np.ndarray:
    """Evaluation labels from gold main text: CONTENT where at least `high` of the node's
    trigrams are in the gold, TEMPLATE (noise) where at most `low` are, else UNLABELLED."""
    share = gold_share(table, gold)
    labels = np.full(len(table), UNLABELLED, dtype=np.int64)
    labels[share >= high] = CONTENT
    labels[share <= low] = TEMPLATE
    return labels
