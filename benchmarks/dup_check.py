"""Issue 55's check of the crawl's copies: a WARC that holds every page twice, the second copy at
another URL, must flag one of each pair (the copy names its original in `dup_of`) and nothing
else.

    python benchmarks/dup_check.py [--datasets dragnet big9 wcxb l3s-gn1 chaos] \\
        [--per-corpus 200] [--copy query|path|host] [--workers 2] [--out DIR]

The pages are each corpus's first `--per-corpus` pages in index order; the copies follow all
the originals in the WARC (so each original comes first in crawl order), each at its URL
changed by `--copy`: `query` adds `?utm_source=copy`, `path` adds a `copy/` segment, `host`
moves it to `copy.<host>` (another site: cleaned by the fallback or by another site's fit).
The cleaner reads URLs (a page's address is a feature), so a copy's text may differ from its
original's: an exact copy by digest, else a near copy by resemblance. Prints how many copies
name their original, are missed or name another record, and how many originals are named
copies of something (true near copies in the corpus, such as a wire story on two sites, are
listed so they can be read). Skips with a message where ../shared/datasets is absent.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from sitesift.crawl import run_crawl
from sitesift.datasets import read_index, read_page_bytes
from sitesift.io.warc import HttpResponse, write_warc
from sitesift.jobs.run import RunSettings
from sitesift.sitework import CrawlConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_warc import SHARED, page_url

MODERN = ["dragnet", "big9", "wcxb", "l3s-gn1", "chaos"]


def copy_url(url: str, how: str) -> str:
    parts = urlsplit(url)
    if how == "query":
        query = f"{parts.query}&utm_source=copy" if parts.query else "utm_source=copy"
        return urlunsplit(parts._replace(query=query))
    if how == "path":
        path = parts.path if parts.path.endswith("/") else parts.path + "/"
        return urlunsplit(parts._replace(path=path + "copy/"))
    return urlunsplit(parts._replace(netloc="copy." + parts.netloc))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", default=MODERN)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument("--per-corpus", type=int, default=200)
    ap.add_argument("--copy", choices=("query", "path", "host"), default="query")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, help="keep the WARC and the crawl here")
    args = ap.parse_args(argv)
    if not args.shared.is_dir():
        print(f"dup_check: no shared datasets at {args.shared}: skipped", file=sys.stderr)
        return 0
    originals: list[HttpResponse] = []
    for name in args.datasets:
        root = args.shared / name
        for row in read_index(root)[:args.per_corpus]:
            originals.append(HttpResponse(page_url(row), read_page_bytes(root, row), "text/html"))
    seen: set[str] = set()
    originals = [p for p in originals if not (p.url in seen or seen.add(p.url))]  # one a URL
    copies = [HttpResponse(copy_url(p.url, args.copy), p.body, "text/html") for p in originals]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        warc = folder / "twice.warc.gz"
        write_warc(warc, [*originals, *copies])
        out = folder / "crawl"
        summary = run_crawl([str(warc)], out, CrawlConfig(), run=RunSettings(args.workers))
        records = [json.loads(line) for line in (out / "results.jsonl").open(encoding="utf-8")]
    of_copy = {c.url: o.url for o, c in zip(originals, copies, strict=True)}
    found = missed = wrong = 0
    extra = []
    for r in records:
        d = r["dup_of"]
        if r["url"] in of_copy:
            if d is None:
                missed += 1
                print(f"missed: {r['url']}", file=sys.stderr)
            elif d["url"] == of_copy[r["url"]]:
                found += 1
            else:
                wrong += 1
                print(f"names another: {r['url']} -> {d['url']}", file=sys.stderr)
        elif d is not None:
            extra.append((r["url"], d["url"], d["similarity"]))
    for url, of, sim in extra:
        print(f"original named a copy: {url} -> {of} ({sim})", file=sys.stderr)
    print(json.dumps({"pages": len(originals), "copy": args.copy, "found": found,
                      "missed": missed, "names_another": wrong,
                      "originals_named_copies": len(extra),
                      "duplicates": summary["duplicates"]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
