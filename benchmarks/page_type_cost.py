"""What the page type costs a page, in CPU, beside cleaning it.

    python benchmarks/page_type_cost.py DATASET... [--limit N]

On the first `--limit` pages of each corpus, one page at a time, CPU time (process time)
of: the default cleaner's `clean` (its reading of the page included, whose page_type stage
`benchmarks/native_stages.py` times), the page-type model on the evidence that reading
gave (`page_type.classify`), and, for a method other than the default, the page type from
the HTML (`page_type.classify_page`: the core reads the page once more) beside that
method's own `clean` (alltext). Prints the mean microseconds of each and their ratios.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from sitesift import page_type
from sitesift.datasets import load_page, read_index
from sitesift.methods.base import get_cleaner
from sitesift.methods.default import read_page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--limit", type=int, default=150)
    args = parser.parse_args()
    default, alltext = get_cleaner("default"), get_cleaner("alltext")
    page_type.typer()  # loaded once per process, as a worker does
    totals = {"default clean": 0.0, "classify (default)": 0.0, "alltext clean": 0.0,
              "classify_page (other methods)": 0.0}
    n = 0
    for root in args.datasets:
        for row in read_index(root)[: args.limit]:
            page = load_page(root, row)
            _ = page.markup
            t0 = time.process_time()
            default.clean(page)
            t1 = time.process_time()
            npage = read_page(page)
            t2 = time.process_time()
            page_type.classify(npage)
            t3 = time.process_time()
            alltext.clean(page)
            t4 = time.process_time()
            page_type.classify_page(page)
            t5 = time.process_time()
            totals["default clean"] += t1 - t0
            totals["classify (default)"] += t3 - t2
            totals["alltext clean"] += t4 - t3
            totals["classify_page (other methods)"] += t5 - t4
            n += 1
    print(f"{n} pages of {', '.join(r.name for r in args.datasets)}: mean CPU µs a page\n")
    print("| what | µs | of default clean |\n|---|---|---|")
    for what, total in totals.items():
        print(f"| {what} | {total / n * 1e6:.0f} | "
              f"{total / totals['default clean']:.1%} |")


if __name__ == "__main__":
    main()
