"""Turn a page plus per-node verdicts into labelled text blocks.

Every cleaner decides about DOM nodes; this module is the one place that turns those
decisions into text, so all methods render text the same way and are compared fairly.
A verdict on a node holds for its whole subtree until a deeper verdict overrides it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sitesift.dom import BLOCK_TAGS, DomNode
from sitesift.result import CONTENT, NOISE, Block


@dataclass(frozen=True, slots=True)
class Verdict:
    """A method's decision about one DOM node (and, by default, its subtree)."""

    label: str      # CONTENT or NOISE
    score: float    # content score in [0, 1]
    reason: str
    final: bool = False  # no verdict below this node: its text can be read in one go


KEEP = Verdict(CONTENT, 1.0, "no verdict: kept")


class _Leave:
    """Stack marker: the walk leaves `node` and restores the state outside it."""

    __slots__ = ("decider", "node", "tag", "verdict")

    def __init__(self, node: DomNode, verdict: Verdict, decider: DomNode, tag: str) -> None:
        self.node, self.verdict, self.decider, self.tag = node, verdict, decider, tag


def render_blocks(root: DomNode, verdicts: dict[int, Verdict], default: Verdict = KEEP,
                  *, with_paths: bool = True, noise: bool = True) -> list[Block]:
    """Blocks of the page in document order, each labelled by the nearest verdict above it.

    `with_paths=False` skips the readable node addresses, and `noise=False` skips the noise
    blocks (their subtrees are then never read), when only the main text matters.
    """
    blocks: list[Block] = []
    parts: list[str] = []
    paths: dict[int, str] = {}
    verdict, decider, tag = default, root, "body"

    def flush() -> None:
        text = " ".join("".join(parts).split())
        parts.clear()
        if text and (noise or verdict.label != NOISE):
            blocks.append(Block(text, tag, verdict.label, verdict.score, verdict.reason,
                                decider.nid, _path(decider, paths) if with_paths else ""))

    stack: list[DomNode | str | _Leave] = [root]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        item = pop()
        if item.__class__ is str:
            if parts or not item.isspace():
                parts.append(item)
            continue
        if item.__class__ is _Leave:
            assert isinstance(item, _Leave)
            if parts and (item.node.tag in BLOCK_TAGS or item.verdict is not verdict):
                flush()
            verdict, decider, tag = item.verdict, item.decider, item.tag
            continue
        assert isinstance(item, DomNode)
        node = item
        found = verdicts.get(node.nid)
        is_block = node.tag in BLOCK_TAGS
        if parts and (found is not None or is_block):
            flush()
        if not noise and found is not None and found.final and found.label == NOISE:
            continue  # nothing below can be content: never read it
        if found is not None or is_block:  # inline elements change no state: no marker
            push(_Leave(node, verdict, decider, tag))
            if found is not None:
                verdict, decider = found, node
            if is_block:
                tag = node.tag
            if found is not None and found.final and node.unread:
                if not noise and found.label == NOISE:
                    continue
                for block_tag, text in node.text_blocks(tag):  # fast path, same rules
                    blocks.append(Block(text, block_tag, verdict.label, verdict.score,
                                        verdict.reason, node.nid,
                                        _path(node, paths) if with_paths else ""))
                continue
        extend(reversed(node.children))
    if parts:
        flush()
    return blocks


def block_runs(node: DomNode, verdicts: dict[int, Verdict]) -> list[tuple[str, list[DomNode]]]:
    """The blocks `render_blocks` makes of `node`'s text under its own verdict, each with
    the nodes that hold it: a verdict on those nodes relabels that block and nothing else,
    in the blocks and in the structure renderer alike. What a deeper verdict decides is
    left out; an inline element holding a block or a verdict splits the run where it
    stands (its parts are runs of their own)."""
    splits = _splitting(node, verdicts)
    runs: list[tuple[str, list[DomNode]]] = []
    containers = [node]
    while containers:
        box = containers.pop()
        kids = box.children
        if not any(isinstance(k, DomNode) for k in kids):
            text = " ".join("".join(k for k in kids if isinstance(k, str)).split())
            if text:
                runs.append((text, [box]))
            continue
        segments: list[tuple[list[str], list[DomNode]]] = [([], [])]
        for kid in kids:
            parts, held = segments[-1]
            if isinstance(kid, str):
                parts.append(kid)
            elif kid.nid in verdicts:
                segments.append(([], []))  # decided on its own
            elif kid.tag in BLOCK_TAGS or kid.nid in splits:
                segments.append(([], []))
                containers.append(kid)
            else:
                parts.extend(kid.texts())
                held.append(kid)
        for parts, held in segments:
            text = " ".join("".join(parts).split())
            if text and held:
                runs.append((text, held))
    return runs


def _splitting(node: DomNode, verdicts: dict[int, Verdict]) -> set[int]:
    """The ids of the nodes below `node` with a block element or a verdict below them
    (which breaks their text into blocks): one pass, children before their parents."""
    found: set[int] = set()
    for inner in reversed(list(node.iter())):
        parent = inner.parent
        if parent is not None and (inner.nid in found or inner.tag in BLOCK_TAGS
                                   or inner.nid in verdicts):
            found.add(parent.nid)
    return found


def _path(node: DomNode, cache: dict[int, str]) -> str:
    """`body/div#main/p`: the node's readable address, memoised along the way up."""
    found = cache.get(node.nid)
    if found is not None:
        return found
    if node.parent is None or node.tag == "#root":
        return ""
    parent = _path(node.parent, cache) if node.parent.tag != "#root" else ""
    label = node.tag
    attrs = node.attrs
    if attrs:
        if attrs.get("id"):
            label += "#" + str(attrs["id"]).strip()
        elif attrs.get("class"):
            label += "." + ".".join(str(attrs["class"]).split())
    path = f"{parent}/{label}" if parent else label
    cache[node.nid] = path
    return path


def render_verdicts(page: Any, verdicts: dict[int, Verdict], output: Any,
                    renderings: list[str]) -> list[str]:
    """The page's content with its structure in each of `renderings` (markdown, HTML, text)
    by the native core's renderer (`native/src/output/structure/`), for the node verdicts of any
    method. The core parses the page again (html5ever; this tree is Lexbor's), so the
    verdicts go over by the nodes' preorder positions (ids depend on the order a method
    read the tree in), beside this tree's tags: a page whose two readings differ is
    refused (ValueError), never rendered with verdicts on the wrong nodes. Raises
    NativeMissing where the core is not built."""
    from sitesift.native import core, rendering

    nodes = list(page.root.iter())  # 0: the virtual root
    position = {node.nid: i for i, node in enumerate(nodes)}
    kept = {position[nid]: v.label != NOISE for nid, v in verdicts.items() if nid in position}
    return list(core().render_html(page.html, kept,
                                   rendering(tuple(renderings), output.links, output.images),
                                   tags=[n.tag for n in nodes], url=page.url))


def add_structure(result: Any, page: Any, output: Any) -> Any:
    """`result.structured`: its content in each rendering `output` makes (`Output.made`: the
    text always), from the verdicts its method left on it: node verdicts
    (`render_verdicts`) or the native core's (`sitesift.native.Verdicts`). A method that
    decides on text rather than nodes leaves none and keeps its block-built renderings;
    so does an installation without the native core, and a page the core reads as another
    tree than the method's (`render_verdicts`): every rendering then comes from the
    blocks, so the text is still the one the method decided on. The default cleaner's
    verdicts with the comments kept apart (`comments=separate`) also give
    `result.comments_structured`: the comments in each of those renderings."""
    from sitesift.native import NativeMissing

    wanted = [r for r in output.made if r not in result.structured]
    verdicts = result.verdicts
    if not wanted or verdicts is None:
        return result
    try:
        if isinstance(verdicts, dict):
            try:
                got = render_verdicts(page, verdicts, output, wanted)
            except ValueError:  # another tree than the method's: the blocks' text stays
                return result
        else:
            got = verdicts.render(wanted, links=output.links, images=output.images)
            if getattr(verdicts, "comments", False):  # comments=separate: them apart too
                made = list(output.made)
                apart = verdicts.render(made, links=output.links, images=output.images,
                                        comments=True)
                result.comments_structured = dict(zip(made, apart, strict=True))
    except NativeMissing:
        return result
    result.structured.update(zip(wanted, got, strict=True))
    return result


def content_text(blocks: list[Block]) -> str:
    return "\n".join(b.text for b in blocks if b.label == CONTENT)


__all__ = ["CONTENT", "KEEP", "NOISE", "Verdict", "add_structure", "block_runs", "content_text",
           "render_blocks", "render_verdicts"]
