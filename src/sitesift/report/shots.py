"""Screenshots of a written report in headless Chromium, watching for console errors.

`python -m sitesift.report.shots REPORT_DIR OUT_DIR [--page ID]` opens the summary, a page
view (hovering a noise region, so the tooltip shows), the side-by-side comparison and the
Site Style Tree explorer, saves `report-*.png` (quantised to 256 colours when Pillow is
there: small files for the docs), and exits 1 if the browser logged an error or anything
asked for a network address. The tests use `browser()` and `Watch` the same way.

The browser is Debian's Chromium (`/usr/bin/chromium`) driven by Playwright
(`pip install 'sitesift[render]'`), with host names resolving nowhere, so a report that
tried to fetch something could not succeed even where a network exists.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitesift.browser.chromium import (
    CHROMIUM,
    CHROMIUM_ARGS,
    RenderUnavailable,
    check_available,
    playwright,
)

LOCAL_SCHEMES = ("file:", "data:", "about:")
# The largest noise region of the shown frame whose top is above `limit`: a point inside it.
LARGEST_NOISE = """limit => {
  const frame = document.querySelector('.pane:not([hidden]) iframe');
  const at = frame.getBoundingClientRect();
  let best = null, area = 0;
  for (const el of frame.contentDocument.querySelectorAll('[data-ss-l="noise"]')) {
    const r = el.getBoundingClientRect();
    if (r.top + at.top < limit && r.width * r.height > area) {
      best = [at.left + r.left + 8, at.top + r.top + 8]; area = r.width * r.height;
    }
  }
  return best;
}"""


@contextmanager
def browser(executable: str = CHROMIUM) -> Iterator[Any]:
    """A headless Chromium (a Playwright Browser), closed on exit.

    The Playwright driver is this thread's shared one (`sitesift.browser.chromium.playwright`): a
    thread may run one sync driver only, and the browser cleaners may hold it already."""
    why = check_available(executable)
    if why:
        raise RenderUnavailable(why)
    from playwright.sync_api import Error

    with playwright() as p:
        try:
            chromium = p.chromium.launch(executable_path=executable, args=list(CHROMIUM_ARGS))
        except Error as exc:
            raise RenderUnavailable(f"Chromium did not start: {exc}") from None
        try:
            yield chromium
        finally:
            chromium.close()


@dataclass
class Watch:
    """Console errors, uncaught exceptions and non-local requests of a browser page."""

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> Any:
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        page.on("request", self._request)
        return page

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _request(self, request: Any) -> None:
        if not request.url.startswith(LOCAL_SCHEMES):
            self.requests.append(request.url)


def screenshots(report: Path, out: Path, *, page_id: str | None = None, width: int = 1200,
                height: int = 720, executable: str = CHROMIUM) -> tuple[list[Path], Watch]:
    """Save report-summary/page/compare/tree.png of the report at `report` into `out`."""
    report, out = Path(report), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    views = sorted((report / "pages").glob("*.html"))
    if page_id:
        views = [v for v in views if v.stem == page_id] or views
    trees = sorted((report / "sst").glob("*.html")) if (report / "sst").is_dir() else []
    watch = Watch()
    saved: list[Path] = []
    with browser(executable) as chromium:
        page = watch.attach(chromium.new_page(viewport={"width": width, "height": height}))
        page.goto((report / "index.html").resolve().as_uri())
        saved.append(_shot(page, out / "report-summary.png"))
        if views:
            page.goto(views[0].resolve().as_uri())
            page.wait_for_function("document.querySelector('.pane iframe')?.dataset.hooked")
            # Boxes are read by the report's own document, which can reach into its frames:
            # Playwright's locators inject helpers into the frame, and a frame without
            # scripts logs an error when they fire.
            spot = page.evaluate(LARGEST_NOISE, height * 0.6)
            if spot:
                page.mouse.move(spot[0], spot[1])
            saved.append(_shot(page, out / "report-page.png"))
            if page.locator('button[data-tab="compare"]').count():
                page.mouse.move(0, 0)
                page.click('button[data-tab="compare"]')
                saved.append(_shot(page, out / "report-compare.png"))
        if trees:
            page.goto(trees[0].resolve().as_uri())
            toggles = page.locator("#tree li.style > .row > .tog[aria-expanded=false]")
            if toggles.count():
                toggles.first.click()
            page.fill("#q", "table")
            saved.append(_shot(page, out / "report-tree.png"))
    return saved, watch


def _shot(page: Any, path: Path) -> Path:
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))
    try:
        from PIL import Image
    except ImportError:
        return path
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitesift.report.shots",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="a folder written by `sitesift report`")
    parser.add_argument("out", help="folder for the PNG files")
    parser.add_argument("--page", help="the page id to show (default: the first page view)")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=720)
    args = parser.parse_args(argv)
    try:
        saved, watch = screenshots(Path(args.report), Path(args.out), page_id=args.page,
                                   width=args.width, height=args.height)
    except RenderUnavailable as exc:
        print(f"sitesift.report.shots: {exc}", file=sys.stderr)
        return 2
    for path in saved:
        print(f"{path} ({path.stat().st_size // 1024} KiB)")
    for message in watch.errors:
        print(f"console error: {message}", file=sys.stderr)
    for url in watch.requests:
        print(f"network request: {url}", file=sys.stderr)
    return 1 if watch.errors or watch.requests else 0


if __name__ == "__main__":
    sys.exit(main())
