"""Build WARC files from the shared corpora: every page as an HTTP 200 response with its URL.

    python benchmarks/make_warc.py [--datasets webkb swde-book ...] [--out DIR] [--plain]

Writes DIR/<dataset>.warc.gz (or .warc with --plain), one gzip member per record, through
`sitesift.io.warc.write_warc`, the same code the tests build their small WARCs with. URLs
are the pages' own; Wayback Machine addresses (big9) are unwrapped to the original URL so
that sites group by their real domain; pages without a URL get http://<host>/<id>.
Content-Type is the page's saved HTTP header where the corpus has one (WebKB), else
`text/html` without a charset, so the decoder sniffs as it would on a real crawl.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from sitesift.datasets import read_index, read_page_bytes
from sitesift.errors import InputError
from sitesift.io.warc import HttpResponse, write_warc

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
DEFAULT = ["webkb", "swde-book", "big9", "dragnet", "cleanportaleval"]
_WAYBACK = re.compile(r"^https?://[^/]*archive\.org/web/\d+[a-z_]*/(.+)$")


def page_url(row: dict[str, object]) -> str:
    url = row.get("url")
    if isinstance(url, str) and url:
        m = _WAYBACK.match(url)
        url = m[1] if m else url
        return url if "://" in url else f"http://{url}"
    host = row.get("host") or row.get("site") or "unknown.invalid"
    return f"http://{host}/{row['id']}"


def responses(root: Path) -> Iterator[HttpResponse]:
    for row in read_index(root):
        try:
            body = read_page_bytes(root, row)
        except InputError as exc:
            print(f"make_warc: skipped {row['id']}: {exc}", file=sys.stderr)
            continue
        ctype = row.get("http_content_type")
        yield HttpResponse(page_url(row), body, ctype if isinstance(ctype, str) else "text/html")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DEFAULT)
    ap.add_argument("--shared", type=Path, default=SHARED)
    ap.add_argument("--out", type=Path, default=Path("/tmp/sitesift-warc"))
    ap.add_argument("--plain", action="store_true", help="uncompressed .warc")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.datasets:
        start = time.perf_counter()
        target = args.out / (f"{name}.warc" if args.plain else f"{name}.warc.gz")
        records = write_warc(target, responses(args.shared / name))
        print(f"{target}: {records} records ({records - 1} pages), "
              f"{target.stat().st_size / 1e6:.1f} MB, {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
