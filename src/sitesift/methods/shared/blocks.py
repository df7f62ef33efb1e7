"""Tag partitions of a page into blocks, and the block features the block methods count.

InfoDiscoverer (Lin & Ho 2002) and IBDFCleaner (Debnath et al. 2005) both cut a page at
the elements of a set of partitioning tags: an element of the set is a block, the runs of
content between such elements are blocks too, and each block is cut again inside. The
ordered tag *levels* say which tags cut first: level k cuts a region at the outermost
elements of its tags; the interior of such an element is cut again from level k (so nested
tables are blocks inside their table), a run between them from level k + 1 (it holds no tag
of level k). A region with no tag of any level left is a leaf. Runs are lists of sibling
subtrees (not always of one parent: a run ends where the next cut element begins, at any
depth), so a verdict on a run is a verdict on each of its nodes.

Features (`Keywords`): InfoDiscoverer's are stemmed keywords without stop words
(snowballstemmer's English or Porter stemmer, the family its paper names, and scikit-learn's
English stop-word list); IBDFCleaner's block feature vectors take its own term settings
(every word as written by default) plus image sources and, when asked, link targets
(`ibdf.IBDFParams`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from sitesift.dom import DomNode
from sitesift.text import TOKEN
from sitesift.text import stop_words as text_stop_words

Levels = tuple[frozenset[str], ...]
_DIGITS = re.compile(r"\d+")
RUN = ""  # the tag of a block that is a run of siblings rather than one element


def parse_levels(spec: Sequence[str]) -> Levels:
    """Levels from strings of space-separated tag names (`("table", "tr", "td th")`)."""
    levels = tuple(frozenset(item.lower().split()) for item in spec)
    if not levels or any(not level for level in levels):
        raise ValueError("tag levels must be non-empty strings of tag names")
    return levels


@dataclass(eq=False, slots=True)
class Block:
    """One block: an element of a partitioning tag (`tag`), or a run of siblings (RUN)."""

    nodes: list[DomNode]
    tag: str
    children: list[Block] = field(default_factory=list)
    terms: Counter[str] = field(default_factory=Counter)  # the whole block's keywords
    extras: set[str] = field(default_factory=set)          # img:/a: features
    size: int = 0                                          # UTF-8 bytes of its text

    def walk(self) -> Iterator[Block]:
        """This block and every block below it, parents before children."""
        stack = [self]
        while stack:
            block = stack.pop()
            yield block
            stack.extend(reversed(block.children))

    def leaves(self) -> Iterator[Block]:
        return (b for b in self.walk() if not b.children)


def partition(root: DomNode, levels: Levels) -> Block:
    """The block tree of a page (or of any subtree), in document order."""
    masks = _level_masks(root, levels)
    top = Block([root], root.tag)
    stack: list[tuple[Block, list[DomNode], int]] = [(top, list(root.elements()), 0)]
    while stack:
        block, region, k = stack.pop()
        present = 0
        for node in region:
            present |= masks[id(node)]
        present >>= k
        if not present:
            continue  # no partitioning tag left: a leaf
        while not present & 1:
            present >>= 1
            k += 1
        for piece in _cut(region, levels[k], 1 << k, masks):
            if isinstance(piece, DomNode):
                child = Block([piece], piece.tag)
                stack.append((child, list(piece.elements()), k))
            else:
                child = Block(piece, RUN)
                stack.append((child, piece, k + 1))
            block.children.append(child)
    return top


def _level_masks(root: DomNode, levels: Levels) -> dict[int, int]:
    """For every element: bit k set when it or an element below it has a tag of level k."""
    bits: dict[str, int] = {}
    for k, level in enumerate(levels):
        for tag in level:
            bits[tag] = bits.get(tag, 0) | 1 << k
    masks: dict[int, int] = {}
    for node in reversed(list(root.iter())):  # children before parents
        mask = bits.get(node.tag, 0)
        for child in node.elements():
            mask |= masks[id(child)]
        masks[id(node)] = mask
    return masks


def _cut(region: list[DomNode], tags: frozenset[str], bit: int,
         masks: dict[int, int]) -> list[DomNode | list[DomNode]]:
    """Cut a run of subtrees at the outermost elements of `tags`: those elements, and the
    runs of whole subtrees between them (ancestors of cut elements are opened up)."""
    pieces: list[DomNode | list[DomNode]] = []
    run: list[DomNode] = []
    stack = list(reversed(region))
    while stack:
        node = stack.pop()
        if node.tag in tags:
            if run:
                pieces.append(run)
                run = []
            pieces.append(node)
        elif masks[id(node)] & bit:
            stack.extend(reversed(list(node.elements())))
        else:
            run.append(node)
    if run:
        pieces.append(run)
    return pieces


# -- features -------------------------------------------------------------------------------

class Keywords:
    """Text -> stemmed keywords without stop words; remembers stems it has seen."""

    def __init__(self, *, stop_words: bool = True, numbers: bool = False,
                 stemmer: str | None = "english") -> None:
        """`stemmer`: a snowballstemmer algorithm: "english" (Porter2, ours) or "porter"
        (Porter's 1980 stemmer, which InfoDiscoverer's paper names); None: no stemming,
        each lowercased word is its own term."""
        import snowballstemmer

        self.stop: frozenset[str] = text_stop_words() if stop_words else frozenset()
        self.numbers = numbers
        self._stems: dict[str, str | None] = {}  # the stemmer is slow: one call per word
        self._stem = (snowballstemmer.stemmer(stemmer).stemWord if stemmer is not None
                      else str)

    def __call__(self, text: str) -> list[str]:
        out: list[str] = []
        stems = self._stems
        for token in TOKEN.findall(text.lower()):
            stem = stems.get(token, "")
            if stem == "":
                stem = stems[token] = self._keyword(token)
            if stem is not None:
                out.append(stem)
        return out

    def _keyword(self, token: str) -> str | None:
        if token in self.stop:
            return None
        if not self.numbers and not any(c.isalpha() for c in token):
            return None  # numbers and dates: not keywords
        return str(self._stem(token))


def add_features(tree: Block, keywords: Keywords, *, extras: bool = False,
                 images: bool = True, links: bool = True) -> None:
    """Fill `terms`, `size` (and `extras`: image sources unless `images` is False, link
    targets unless `links` is False) of every block; inner blocks sum their children,
    which cover them (each DOM node is read once)."""
    blocks = list(tree.walk())
    for block in reversed(blocks):  # children before parents
        if block.children:
            for child in block.children:
                block.terms.update(child.terms)
                block.size += child.size
                if extras:
                    block.extras |= child.extras
            continue
        texts: list[str] = []
        for node in block.nodes:
            texts.extend(node.texts())
            if extras:
                block.extras.update(_extras(node.iter(), images, links))
        text = " ".join(texts)
        block.terms.update(keywords(text))
        block.size = len(" ".join(text.split()).encode("utf-8", "surrogatepass"))


def _extras(nodes: Iterable[DomNode], images: bool, links: bool) -> Iterator[str]:
    # digits folded: archive captures and session ids put different numbers in the same
    # template link on every page
    for node in nodes:
        if images and node.src:
            yield "img:" + _DIGITS.sub("#", node.src.strip())
        if links and node.href:
            yield "a:" + _DIGITS.sub("#", node.href.strip())
