"""How much of a page's structure each extractor's markdown keeps (issue 29).

    python benchmarks/structure_readability.py [READABILITY_DATASET]

The structure gold is mozilla/readability's expected article HTML (the readability
corpus's `gold/<id>.expected.html.gz`, Apache-2.0, from mozilla/readability's test pages):
per page, its headings, list items, table rows (of tables with at least two rows and two
cells a row) and code blocks (`<pre>`). Each extractor's markdown of the page is counted
the same way (ATX headings, list item lines, pipe-table body and header rows, fenced
blocks), and per kind the share of the gold's items found is sum(min(found, gold)) /
sum(gold) over the pages. sitesift: the default cleaner's markdown; trafilatura:
`extract(html, output_format="markdown")` with its defaults; rs-trafilatura:
`extract(html, output_markdown=True).content_markdown` (under CPython 3.12,
`sitesift.bench.py312`; left out with a note where it cannot run).
"""

from __future__ import annotations

import gzip
import re
import sys
from collections import Counter
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

KINDS = ("headings", "list items", "table rows", "code blocks")


def gold_counts(html: str) -> Counter[str]:
    tree = LexborHTMLParser(html)
    c: Counter[str] = Counter()
    c["headings"] = len(tree.css("h1, h2, h3, h4, h5, h6"))
    c["list items"] = len(tree.css("li"))
    for table in tree.css("table"):
        rows = [r for r in table.css("tr") if len(r.css("td, th")) >= 2]
        if len(rows) >= 2:
            c["table rows"] += len(rows)
    c["code blocks"] = len(tree.css("pre"))
    return c


_HEADING = re.compile(r"^#{1,6} ", re.M)
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\S", re.M)
_ROW = re.compile(r"^\s*\|.*\|\s*$", re.M)
_SEPARATOR = re.compile(r"^\s*\|(?:\s*:?-+:?\s*\|)+\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)", re.M)


_QUOTED = re.compile(r"^(?:\s*>)+ ?", re.M)


def markdown_counts(md: str) -> Counter[str]:
    c: Counter[str] = Counter()
    md = _QUOTED.sub("", md)  # what stands in block quotes counts as well
    # outside code fences only
    parts = re.split(r"^\s*(?:```|~~~).*$", md, flags=re.M)
    prose = "\n".join(parts[::2])
    c["headings"] = len(_HEADING.findall(prose))
    c["list items"] = len(_ITEM.findall(prose))
    c["table rows"] = sum(1 for row in _ROW.findall(prose) if not _SEPARATOR.match(row))
    c["code blocks"] = len(_FENCE.findall(md)) // 2
    return c


def main() -> None:
    import trafilatura

    import sitesift

    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(
        __file__).resolve().parents[2] / "shared" / "datasets" / "readability"
    from sitesift.bench.peers import PeerUnavailable
    from sitesift.bench.py312 import Worker

    try:
        rs: Worker | None = Worker.start()
    except (PeerUnavailable, RuntimeError, OSError) as exc:
        print(f"rs-trafilatura left out: {exc}", file=sys.stderr)
        rs = None
    names = ["sitesift", "trafilatura"] + (["rs-trafilatura"] if rs is not None else [])
    gold_total: Counter[str] = Counter()
    found: dict[str, Counter[str]] = {name: Counter() for name in names}
    pages = 0
    for gold_file in sorted((root / "gold").glob("*.expected.html.gz")):
        pid = gold_file.name.removesuffix(".expected.html.gz")
        page_file = root / "pages" / f"{pid}.html.gz"
        if not page_file.is_file():
            continue
        html = gzip.decompress(page_file.read_bytes()).decode("utf-8", "replace")
        gold = gold_counts(gzip.decompress(gold_file.read_bytes()).decode("utf-8", "replace"))
        try:
            ours = sitesift.clean(html).markdown()
        except Exception:  # an unreadable page scores nothing
            ours = ""
        markdown = {"sitesift": ours,
                    "trafilatura": trafilatura.extract(html, output_format="markdown") or ""}
        if rs is not None:
            try:
                markdown["rs-trafilatura"] = rs.run(html, None, markdown=True)[0]
            except RuntimeError:  # the page's error: nothing found
                markdown["rs-trafilatura"] = ""
        pages += 1
        for kind in KINDS:
            gold_total[kind] += gold[kind]
            for name, md in markdown.items():
                found[name][kind] += min(markdown_counts(md)[kind], gold[kind])
    if rs is not None:
        rs.close()
    print(f"{pages} pages of {root}; share of the gold's items found (found / gold)\n")
    print("| kind | gold | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for kind in KINDS:
        g = gold_total[kind]
        row = [f"{found[n][kind] / g:.3f} ({found[n][kind]})" if g else "-" for n in names]
        print(f"| {kind} | {g} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
