"""One method on one page, for the report: its blocks, its marks, and the framed page.

A method's verdicts name DOM nodes; each verdict becomes a *mark* on its node (`via="node"`).
Some methods change a block's label after the verdicts (the Site Style Tree drops locally
noisy blocks inside meaningful nodes), and some decide without DOM nodes at all (`blockdist`
reads the source stream): such blocks are placed on the page by their text (`via="block"`):
the node whose visible text is the block's, whitespace aside, or failing that the run of
siblings whose texts together are the block's. A block that fits neither stays in the text
column and is counted as not placed: nothing is marked on a guess.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sitesift.dom import BLOCK_TAGS, DomNode
from sitesift.methods.base import Cleaner
from sitesift.page import Page
from sitesift.report.frame import AlignedPage, Mark
from sitesift.result import Block, Result
from sitesift.verdicts import KEEP, Verdict, _path, render_blocks


@dataclass(slots=True)
class PageMarks:
    """A method's result on a page with what the report draws of it."""

    result: Result
    marks: list[Mark] = field(default_factory=list)
    block_marks: list[int | None] = field(default_factory=list)  # mark index per block
    frame: str = ""                # the annotated, inert page for the frame's srcdoc
    node_verdicts: bool = True     # False: the method gives no verdicts on nodes
    placed: int = 0                # blocks placed on the page by their text
    unplaced: int = 0              # blocks the page could not show (text column only)
    missing: int = 0               # marks whose element the frame lacks


def verdicts_of(cleaner: Cleaner, page: Page) -> dict[int, Verdict] | None:
    """The method's verdicts on the page's nodes, or None for methods that have none."""
    try:
        return cleaner.score(page)
    except NotImplementedError:
        return None


def mark_page(cleaner: Cleaner, page: Page) -> PageMarks:
    """Clean `page` with a prepared cleaner and work out the marks and the framed page."""
    verdicts = verdicts_of(cleaner, page)
    if verdicts is not None and type(cleaner).clean is Cleaner.clean:
        # the base class renders the verdicts: do it here rather than score twice
        blocks = render_blocks(page.root, verdicts, KEEP)
        result = Result(blocks, cleaner.name, page.id, page.url, page.site, page.title,
                        verdicts=verdicts)
    else:
        result = cleaner.clean(page)
    out = PageMarks(result, node_verdicts=verdicts is not None)
    nodes = {n.nid: n for n in page.root.iter()}  # every node, in document order
    paths: dict[int, str] = {}
    targets: list[tuple[int, int]] = []
    mark_of: dict[int, int] = {}
    for nid, node in nodes.items():
        verdict = (verdicts or {}).get(nid)
        if verdict is None:
            continue
        mark_of[nid] = len(out.marks)
        targets.append((len(out.marks), nid))
        out.marks.append(Mark(verdict.label, verdict.score, verdict.reason,
                              _path(node, paths) or "body", nid, "node"))
    index: TextIndex | None = None
    cursor = -1
    by_block: dict[tuple[int, str, str], int] = {}
    for block in result.blocks:
        if verdicts is not None:
            verdict = verdicts.get(block.nid)
            expected = verdict.label if verdict is not None else KEEP.label
            if block.label == expected:
                out.block_marks.append(mark_of.get(block.nid))
                continue
        scope = nodes.get(block.nid) if verdicts is not None else None
        index = index or TextIndex(page.root)
        found, cursor = index.place(block.text, scope or page.root, cursor)
        if not found:
            out.unplaced += 1
            out.block_marks.append(None)
            continue
        out.placed += 1
        key = (found[0].nid, block.label, block.reason)
        if key not in by_block:  # blocks of one node under one rule share a mark
            by_block[key] = len(out.marks)
            out.marks.append(Mark(block.label, block.score, block.reason,
                                  _path(found[0], paths), found[0].nid, "block"))
            targets.extend((by_block[key], n.nid) for n in found)
        out.block_marks.append(by_block[key])
    aligned = AlignedPage(page)
    out.missing = aligned.annotate(out.marks, targets) + aligned.unaligned
    out.frame = aligned.document()
    return out


def removed_share(blocks: list[Block]) -> tuple[int, int]:
    """(characters of text, characters labelled noise) over the blocks."""
    total = sum(len(b.text) for b in blocks)
    return total, sum(len(b.text) for b in blocks if b.label != KEEP.label)


class TextIndex:
    """Nodes of a page by their visible text with all whitespace removed."""

    def __init__(self, root: DomNode) -> None:
        self.order = list(root.iter())
        self.pos = {n.nid: i for i, n in enumerate(self.order)}
        self.compact: dict[int, str] = {}
        for node in reversed(self.order):  # children before parents
            self.compact[node.nid] = "".join(
                self.compact[c.nid] if isinstance(c, DomNode) else "".join(c.split())
                for c in node.children)
        self.by_text: dict[str, list[int]] = {}
        for i, node in enumerate(self.order):
            text = self.compact[node.nid]
            if text:
                self.by_text.setdefault(text, []).append(i)
        self.used: set[int] = set()

    def place(self, text: str, scope: DomNode, cursor: int) -> tuple[list[DomNode], int]:
        """The node(s) showing `text` inside `scope`, preferring the first after `cursor`
        (blocks come in document order); with the new cursor."""
        key = "".join(text.split())
        runs = [run for run in self._runs(self.by_text.get(key, []))
                if run[0] not in self.used and _inside(self.order[run[0]], scope)]
        if runs:
            run = next((r for r in runs if r[0] > cursor), runs[0])
            self.used.add(run[0])
            return [self.order[_pick(run, self.order)]], run[0]
        siblings = self._sibling_run(key, scope)
        if siblings:
            return siblings, self.pos[siblings[0].nid]
        return [], cursor

    def _runs(self, positions: list[int]) -> Iterator[list[int]]:
        """Candidates grouped into chains of nested nodes with the same text."""
        run: list[int] = []
        for p in positions:
            if run and _inside(self.order[p], self.order[run[0]]):
                run.append(p)
                continue
            if run:
                yield run
            run = [p]
        if run:
            yield run

    def _sibling_run(self, key: str, scope: DomNode) -> list[DomNode]:
        """Consecutive children of the deepest node containing `key` whose texts make it."""
        node = scope
        if key not in self.compact.get(node.nid, ""):
            return []
        while True:
            inner = next((c for c in node.elements() if key in self.compact[c.nid]), None)
            if inner is None:
                break
            node = inner
        kids = node.children
        parts = [self.compact[c.nid] if isinstance(c, DomNode) else "".join(c.split())
                 for c in kids]
        for start in range(len(kids)):
            if not parts[start] or not key.startswith(parts[start]):
                continue
            joined = ""
            for end in range(start, len(kids)):
                joined += parts[end]
                if joined == key:
                    found = [k for k in kids[start:end + 1] if isinstance(k, DomNode)]
                    return found if found else []
                if len(joined) >= len(key) or not key.startswith(joined):
                    break
        return []


def _inside(node: DomNode, scope: DomNode) -> bool:
    """Whether `node` is `scope` or below it."""
    up: DomNode | None = node
    while up is not None and up.depth >= scope.depth:
        if up is scope:
            return True
        up = up.parent
    return False


def _pick(run: list[int], order: list[DomNode]) -> int:
    """Of nested nodes with one text, the deepest block-level one (a whole line shades
    better than a link inside it), else the outermost."""
    for p in reversed(run):
        if order[p].tag in BLOCK_TAGS or order[p].tag == "#text":
            return p
    return run[0]
