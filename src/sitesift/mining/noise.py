"""How much of a site's visible text is repeated across its pages: a template measure.

A line (a text block, case and spacing folded) is *repeated* when it occurs on at least
`min_pages` pages and at least `min_share` of the pages of its site group; the measure is
the share of the visible words that lie in repeated lines. It needs no labels and no
cleaner, so corpora can be compared by how much site template their pages carry:

    python -m sitesift.mining.noise ../shared/datasets/webkb ../shared/datasets/big9 \\
        --group-by site,year --min-site-pages 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from sitesift.text import TOKEN, normalise_line


def repeated_line_share(texts: Sequence[str], min_pages: int = 3, min_share: float = 0.05
                        ) -> tuple[float, int]:
    """(share of words in repeated lines, words) over one site group's page texts."""
    pages = [[line for line in (normalise_line(x) for x in text.splitlines()) if line]
             for text in texts]
    seen: Counter[str] = Counter()
    for lines in pages:
        seen.update(set(lines))
    need = max(min_pages, min_share * len(texts))
    words = repeated = 0
    for lines in pages:
        for line in lines:
            n = len(TOKEN.findall(line))
            words += n
            if seen[line] >= need:
                repeated += n
    return (repeated / words if words else 0.0), words


def site_shares(groups: dict[str, list[str]], min_site_pages: int = 5) -> dict[str, dict[
        str, float]]:
    """Per site group with enough pages: pages, words and the repeated-line share."""
    out = {}
    for name, texts in groups.items():
        if len(texts) < min_site_pages:
            continue
        share, words = repeated_line_share(texts)
        out[name] = {"pages": len(texts), "words": words, "share": share}
    return out


def weighted_share(shares: Iterable[dict[str, float]]) -> float:
    """The share over all words of the groups (big sites weigh by their words)."""
    rows = list(shares)
    words = sum(r["words"] for r in rows)
    return sum(r["share"] * r["words"] for r in rows) / words if words else 0.0


def corpus_shares(root: Path, grouping: str, min_site_pages: int) -> dict[str, dict[str, float]]:
    """All visible text of every page of a corpus, grouped, then measured."""
    from sitesift.batch import SitePolicy, run_groups
    from sitesift.datasets import read_index
    from sitesift.evaluate import dataset_groups
    from sitesift.jobs.grouping import Grouping
    from sitesift.output import Output

    read_index(root)  # a corpus with a bad index line is refused, not measured in part
    groups = dataset_groups(root, Grouping(grouping, min_site_pages), only_gold=False)
    texts: dict[str, list[str]] = {name: [] for name in groups}
    output = Output(noise=False, page_type=False)
    for outcome in run_groups(groups, SitePolicy("alltext", output=output)):
        texts[outcome.group].append(outcome.result.text if outcome.result else "")
    return site_shares(texts, min_site_pages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitesift.mining.noise",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--group-by", default="site", choices=("site", "site,year"))
    parser.add_argument("--min-site-pages", type=int, default=5)
    args = parser.parse_args(argv)
    print("| corpus | site groups | pages | repeated-line share (words) | median over groups |")
    print("|---|---|---|---|---|")
    for path in args.datasets:
        shares = corpus_shares(Path(path), args.group_by, args.min_site_pages)
        if not shares:
            print(f"{path}: no site group of {args.min_site_pages}+ pages", file=sys.stderr)
            continue
        print(f"| {Path(path).name} | {len(shares)} | "
              f"{sum(int(s['pages']) for s in shares.values())} | "
              f"{weighted_share(shares.values()):.3f} | "
              f"{statistics.median(s['share'] for s in shares.values()):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
