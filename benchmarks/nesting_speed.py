"""CPU time of the nesting guard (`sitesift.nesting.too_deep`), native core against Python.

    python benchmarks/nesting_speed.py DATASET... [--repeats 5]

Reads every page of the corpora (`decode_file`), checks that the native scan and the
Python one (`too_deep_python`) give the same answer on each, and times both over all
pages and over those the pre-check leaves to the scan, best of `--repeats` in CPU time.
The native call reads the page as UTF-8, which Python makes on a string's first such call
and keeps with it: "cold" times calls on fresh copies of the pages, which make it, the
other native figures calls that find it made.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from sitesift.datasets import page_path, read_index
from sitesift.decode import decode_file
from sitesift.errors import InputError
from sitesift.native import core
from sitesift.nesting import _may_pass_limits, too_deep_python


def pages(root: Path) -> list[str]:
    """The corpus's pages as the guard sees them, but for an unclosed `<title>`, which the
    core closes first (`native/src/read/intake.rs`; those that do not decode are left out)."""
    out = []
    for row in read_index(root):
        try:
            html = decode_file(page_path(root, row["id"])).text
        except InputError:
            continue
        out.append(html)  # decoded: NUL characters already removed
    return out


def cpu(guard: Callable[[str], str | None], htmls: list[str], repeats: int, *,
        fresh: bool = False) -> float:
    """Best CPU seconds of `guard` over all of `htmls` (`fresh`: over new copies of them)."""
    best = float("inf")
    for _ in range(repeats):
        run = [(h + " ")[:-1] for h in htmls] if fresh else htmls
        start = time.process_time()
        for html in run:
            guard(html)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="+", type=Path)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    native, n = core().too_deep, args.repeats
    print("corpus | pages | scanned | refused | ms, all pages: Python | native | native cold "
          "| ms per scanned page: Python | native | native cold")
    print("|".join(["---"] * 10))
    for root in args.datasets:
        htmls = pages(root)
        refused = 0
        for html in htmls:
            answer = native(html)
            if answer != too_deep_python(html):
                raise SystemExit(f"{root.name}: the scans disagree on a page: {answer!r}")
            refused += answer is not None
        scanned = [h for h in htmls if _may_pass_limits(h)]
        every = [cpu(too_deep_python, htmls, n), cpu(native, htmls, n),
                 cpu(native, htmls, n, fresh=True)]
        per = [cpu(too_deep_python, scanned, n), cpu(native, scanned, n),
               cpu(native, scanned, n, fresh=True)]
        per = [t / max(len(scanned), 1) for t in per]
        print(" | ".join([root.name, str(len(htmls)), str(len(scanned)), str(refused),
                          *(f"{t * 1e3:,.1f}" for t in every), *(f"{t * 1e3:.2f}" for t in per)]))


if __name__ == "__main__":
    main()
