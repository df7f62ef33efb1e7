"""Site Style Tree speed, side by side with Resiliparse on the same pages in one run.

    python benchmarks/sst_speed.py [--dataset DIR] [--site SITE] [--pages 500]

Reports the time to fit an SST on N pages of one site (parse excluded and included), and
the median time to clean one page with the fitted tree, parse included (bytes -> text),
beside Resiliparse's `extract_plain_text(main_content=True)` on the same bytes (decode
included for both). The two take turns on every page (best of 3 each), so a noisy shared
machine slows both alike. Targets (issue 3): fit on 500 pages within 5 s; cleaning within 2x
Resiliparse. Defaults: the largest site of ../shared/datasets/webkb (1997 university
pages), and big9 for per-page cleaning of modern-ish news pages.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from sitesift.datasets import read_index, read_page_bytes
from sitesift.decode import decode_html
from sitesift.errors import InputError
from sitesift.jobs.grouping import group_rows
from sitesift.methods.base import get_cleaner
from sitesift.page import Page

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def load_site(root: Path, site: str | None, n: int) -> list[bytes]:
    rows = read_index(root)
    groups = group_rows(rows, "site")
    if site is None:
        site = Counter({k: len(v) for k, v in groups.items()}).most_common(1)[0][0]
    return [read_page_bytes(root, r) for r in groups[site][:n]]


def parse_all(raw: list[bytes]) -> list[Page]:
    pages = []
    for data in raw:
        with contextlib.suppress(InputError):  # unreadable pages are not what is timed
            pages.append(Page.from_bytes(data))
    return pages


def paired_median_ms(fns: list[object], items: list[bytes], repeat: int = 3,
                     clock: object = time.perf_counter) -> list[float]:
    """Median over pages of each function's best-of-`repeat` time, the functions taking
    turns on every page so that load from other processes hits them alike. With
    `clock=time.thread_time` the time is CPU time, which waiting for a busy core does not
    inflate."""
    assert callable(clock)
    best: list[list[float]] = [[] for _ in fns]
    for item in items:
        for i, fn in enumerate(fns):
            assert callable(fn)
            times = []
            for _ in range(repeat):
                start = clock()
                fn(item)
                times.append((clock() - start) * 1000)
            best[i].append(min(times))
    return [statistics.median(b) for b in best]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dataset", type=Path, default=SHARED / "webkb")
    ap.add_argument("--site")
    ap.add_argument("--pages", type=int, default=500)
    ap.add_argument("--clean-dataset", type=Path, default=SHARED / "big9")
    args = ap.parse_args()
    if not (args.dataset / "index.jsonl").is_file():
        print(f"skipped: no corpus at {args.dataset} (needs ../shared/datasets)")
        return 0
    try:
        from resiliparse.extract.html2text import extract_plain_text
    except ImportError:
        print("resiliparse is not installed: pip install 'sitesift[bench]'")
        return 1

    raw = load_site(args.dataset, args.site, args.pages)
    start = time.perf_counter()
    pages = parse_all(raw)
    parse_s = time.perf_counter() - start
    start = time.perf_counter()
    get_cleaner("sst", sample_size=max(args.pages, 1)).fit(pages)
    fit_s = time.perf_counter() - start
    print(f"fit: {len(pages)} pages of {args.dataset.name}: {fit_s:.2f} s tree "
          f"+ {parse_s:.2f} s decode/parse = {fit_s + parse_s:.2f} s (target: 5 s)")

    print("\nclean one page, parse included (median ms per page, wall / CPU), fitted per site:")
    print("| corpus/site | pages | sitesift sst | resiliparse | ratio (wall) | ratio (CPU) |")
    print("|---|---|---|---|---|---|")
    ratios, cpu_ratios = [], []
    clean_root = args.clean_dataset
    for site, rows in sorted(group_rows(read_index(clean_root), "site").items()):
        site_raw = [read_page_bytes(clean_root, r) for r in rows]
        model = get_cleaner("sst").fit(parse_all(site_raw))

        def ours(data: bytes, model: object = model) -> None:
            with contextlib.suppress(InputError):
                model.clean(Page.from_bytes(data), noise=False)  # type: ignore[attr-defined]

        def theirs(data: bytes) -> None:
            extract_plain_text(decode_html(data).text, main_content=True)

        ours_ms, theirs_ms = paired_median_ms([ours, theirs], site_raw)
        ours_cpu, theirs_cpu = paired_median_ms([ours, theirs], site_raw, clock=time.thread_time)
        ratios.append(ours_ms / theirs_ms)
        cpu_ratios.append(ours_cpu / theirs_cpu)
        print(f"| {clean_root.name}/{site} | {len(site_raw)} | {ours_ms:.2f} / {ours_cpu:.2f} "
              f"| {theirs_ms:.2f} / {theirs_cpu:.2f} | {ours_ms / theirs_ms:.2f}x "
              f"| {ours_cpu / theirs_cpu:.2f}x |")
    print(f"\nmedian ratio sitesift/resiliparse: {statistics.median(ratios):.2f}x wall, "
          f"{statistics.median(cpu_ratios):.2f}x CPU (target <= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
