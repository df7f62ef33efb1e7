"""How much of the text the visible tree leaves out (hidden elements) the gold keeps: in
collapsed panels right after a toggle (FAQ answers, accordions) and elsewhere.

    python benchmarks/hidden_text.py [corpus ...]

with SITESIFT_DATASETS (default ../shared/datasets) holding the corpora. An outermost
hidden element (`hidden`, `aria-hidden="true"`, a style with `display:none` or
`visibility:hidden`) of five words or more is a collapsed panel when its previous sibling
is a short toggle: 25 words at most, and `aria-expanded`, a `button` or `summary`, or a
class of it, the panel or their parent naming an accordion, toggle, collapse, FAQ,
question or expand. Its three-word runs found in the gold's are counted as kept. The
figures are in docs/lab/loco.md ("Collapsed FAQ answers").
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sitesift.datasets import read_gold, read_index, read_page_bytes
from sitesift.text import tokens

DATA = Path(os.environ.get("SITESIFT_DATASETS", "../shared/datasets"))
HIDING = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
TOGGLE_NAME = re.compile(r"accordion|toggle|collaps|faq|question|expand", re.I)
SKIP = {"script", "style", "template", "noscript", "head"}


def hidden(node: LexborNode) -> bool:
    a = node.attributes
    return ("hidden" in a or a.get("aria-hidden") == "true"
            or bool(HIDING.search(a.get("style") or "")))


def toggle_before(node: LexborNode) -> bool:
    prev = node.prev
    while prev is not None and prev.tag == "-text":
        prev = prev.prev
    if prev is None or len(tokens(prev.text(separator=" "))) > 25:
        return False
    up = node.parent
    names = " ".join(x or "" for x in (prev.attributes.get("class"), node.attributes.get("class"),
                                       up.attributes.get("class") if up is not None else None))
    return ("aria-expanded" in prev.attributes or prev.tag in ("button", "summary")
            or bool(TOGGLE_NAME.search(names)))


def outermost_hidden(node: LexborNode) -> list[LexborNode]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        for child in n.iter():
            if child.tag in SKIP:
                continue
            if hidden(child):
                out.append(child)
            else:
                stack.append(child)
    return out


def trigrams(words: list[str]) -> list[tuple[str, str, str]]:
    return list(zip(words, words[1:], words[2:], strict=False))


def main(corpora: list[str]) -> None:
    if not DATA.is_dir():
        sys.exit(f"hidden_text: no corpora at {DATA} (set SITESIFT_DATASETS)")
    print("corpus          pages  with-panels  panel-runs  in-gold  other-runs  in-gold")
    for corpus in corpora:
        root = DATA / corpus
        pages = with_panels = 0
        count = {"panel": [0, 0], "other": [0, 0]}
        for row in read_index(root):
            gold = read_gold(root, row["id"])
            if gold is None:
                continue
            body = LexborHTMLParser(read_page_bytes(root, row)).body
            if body is None:
                continue
            pages += 1
            in_gold = set(trigrams(tokens(gold.lower())))
            found = False
            for node in outermost_hidden(body):
                words = tokens(node.text(separator=" ").lower())
                if len(words) < 5:
                    continue
                kind = "panel" if toggle_before(node) else "other"
                found |= kind == "panel"
                runs = trigrams(words)
                count[kind][0] += len(runs)
                count[kind][1] += sum(r in in_gold for r in runs)
            with_panels += found
        share = {k: v[1] / v[0] if v[0] else 0.0 for k, v in count.items()}
        print(f"{corpus:15s} {pages:5d}  {with_panels:11d}  {count['panel'][0]:10d}  "
              f"{share['panel']:7.0%}  {count['other'][0]:10d}  {share['other']:7.0%}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["big9", "dragnet", "cleanportaleval", "cleaneval", "l3s-gn1",
                          "readability", "wcxb", "chaos"])
