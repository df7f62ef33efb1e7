"""The workload a profile-guided build of the native core learns its branches from.

    python scripts/pgo_workload.py WORK_DIR

Run by scripts/build_native.sh between the instrumented build and the final one: every
bundled sample page (src/sitesift/data/sample_*) through the paths users run, so that each
part of the core (decoding, html5ever's parse, the blocks, the forests, the rules, the site
evidence, every rendering, the language, the copy check, the metadata) is counted:
`sitesift crawl` over a WARC of all of them (with markdown, HTML and metadata), then
`sitesift clean` of each sample folder in each output format. Invented pages, but the
same markup paths as real ones; docs/native.md has what the profile buys on real pages.
Exits non-zero if a command fails, so a build never learns from a broken run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sitesift.datasets import read_index, read_page_bytes
from sitesift.io.warc import HttpResponse, write_warc

DATA = Path(__file__).resolve().parents[1] / "src" / "sitesift" / "data"
SAMPLES = ("sample_site", "sample_labelled", "sample_courier")


def responses() -> list[HttpResponse]:
    out = []
    for name in SAMPLES:
        root = DATA / name
        for row in read_index(root):
            url = row.get("url") or f"http://{row.get('host') or name}.example/{row['id']}"
            out.append(HttpResponse(str(url), read_page_bytes(root, row), "text/html"))
    return out


def sitesift(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "sitesift", *args, "-q"], check=True,
                   stdout=subprocess.DEVNULL)


def main() -> int:
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    warc = work / "samples.warc.gz"
    write_warc(warc, iter(responses()))
    sitesift("crawl", str(warc), "--out", str(work / "crawl"), "--workers", "1",
             "--markdown", "--html", "--metadata", "--min-site-pages", "3")
    for name in SAMPLES:
        for fmt in ("json", "markdown", "html"):
            sitesift("clean", str(DATA / name), "-o", f"{work / name / fmt}/",
                     "--format", fmt, "--metadata", "--workers", "1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
