"""Headless Chromium through Playwright: where every DomNode of a page lands on the screen.

The browser is Debian's `chromium` (`/usr/bin/chromium`, `scripts/ensure_chromium.sh`),
driven by Playwright for Python with `executable_path`, since Playwright's own browser
download cannot run here. Playwright is imported lazily: only methods that render need it,
and without it (or without Chromium) they raise `RenderUnavailable` saying what to install.

- **Offline and private.** A saved page is served to the browser under a fixed, invalid
  address (`http://sitesift.invalid/page.html`) by a route that answers that one document
  request and aborts every other request (images, scripts, stylesheets, frames, fonts) before
  it leaves the browser; host names resolve to nothing (`--host-resolver-rules`) in case
  anything bypassed the route; scripts are off. Every rendering lists what it blocked and any
  response that did not come from the route (always none).
- **With the page's own styles where it carries them.** A page with resources
  (`sitesift.browser.resources`: its saved folder, the WARC it came in) is served under their
  address, and the route answers its stylesheet, image and font requests from them, still
  never from the network; `Rendering.styles` counts the stylesheets served and missing
  (`RenderOptions.page_styles=False`: every stylesheet blocked, the unstyled layout).
- **Deterministic.** Fixed viewport, no scripts, no network: a page renders the same way
  every time. With scripts off, the browser parses as Lexbor does (scripting flag off:
  `<noscript>` holds elements), and a style rule hides `<noscript>` as a scripting browser
  would; sitesift's DOM skips it anyway.
- **Aligned to DomNodes.** `collect.js` walks the rendered DOM with the rules of
  `sitesift.dom` (skipped tags, comments, `hidden` / `aria-hidden` / inline-hidden elements,
  `#text` wrappers beside elements, the depth limit) and returns one entry per DomNode in
  document order, each with a signature (tag, id, class). Equal signature lists are zipped;
  where the two parsers disagree, the lists are aligned by longest matching runs
  (difflib), so one odd element costs its own box, not every box after it.
- **Bounded.** Loading and measuring each have the page's time limit; a page that times
  out, crashes the renderer or has too many elements becomes an `InputError` naming the
  reason, and the browser is restarted for the next page.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

from sitesift.browser.rendering import Rendering, Styles, align
from sitesift.browser.resources import Resources, resources_of
from sitesift.dom import MAX_DEPTH, OBJECT_SHOWS_ITSELF, SKIPPED_TAGS
from sitesift.errors import InputError, SitesiftError
from sitesift.memory import outside_limit
from sitesift.page import Page

# Debian's path; SITESIFT_CHROMIUM names another build (another distribution's path).
CHROMIUM = os.environ.get("SITESIFT_CHROMIUM") or "/usr/bin/chromium"
INSTALL_HINT = ("install Debian's Chromium (`bash scripts/ensure_chromium.sh`, i.e. "
                "`apt-get install chromium`) and Playwright (`pip install 'sitesift[render]'`; "
                "never `playwright install`)")
# The flags a root process in a closed network needs (see the machine notes): no sandbox,
# no GPU, and none of Chromium's own background connections.
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)
DOC_URL = "http://sitesift.invalid/page.html"
_PIXEL = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000"
                       "010001000002024401003b")  # a 1 x 1 transparent GIF
_META_KEY = "sitesift.renderings"


class RenderUnavailable(SitesiftError):
    """No browser to render with: Playwright or Chromium is missing or will not start."""


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """How pages are rendered."""

    width: int = 1280
    """Viewport width in CSS px: a common desktop (SXGA); layouts wider than it scroll."""
    height: int = 1024
    """Viewport height: the first screen; the full page height is measured."""
    timeout: float = 30.0
    """Seconds for loading, and again for measuring, one page (a loaded machine is slow)."""
    max_nodes: int = 60_000
    """Pages with more DomNodes are refused rather than measured for minutes."""
    recycle_after: int = 500
    """Restart the browser after this many pages, so its memory stays bounded."""
    executable: str = CHROMIUM
    page_styles: bool = True
    """Serve the page's own stylesheets, images and fonts where it carries them (its saved
    folder, its WARC: `sitesift.browser.resources`); False: every stylesheet is blocked and
    every image a transparent pixel, the unstyled layout sitesift drew before."""

    def __post_init__(self) -> None:
        if self.width < 100 or self.height < 100:
            raise ValueError("render: the viewport must be at least 100 x 100 px")
        if self.timeout <= 0 or self.max_nodes < 1 or self.recycle_after < 1:
            raise ValueError("render: timeout, max_nodes and recycle_after must be positive")


def _collect_script() -> str:
    return resources.files("sitesift.browser").joinpath("collect.js").read_text("utf-8")


def children_cpu() -> float:
    """CPU seconds (user + system) used so far by the live descendants of this process:
    the Playwright driver and the browser, whose work `time.process_time()` does not see.
    0.0 where /proc lacks the `children` lists (not Linux). A process that ended since the
    last call drops out, so a difference of two calls is exact only while the browser lives
    (one page's rendering)."""
    total, todo, seen = 0, [os.getpid()], set()
    clock = os.sysconf("SC_CLK_TCK")
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # ended meanwhile
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                    kids = [int(k) for k in fh.read().split()]
            except OSError:
                continue
            for kid in kids:
                if kid in seen:
                    continue
                seen.add(kid)
                todo.append(kid)
                try:
                    with open(f"/proc/{kid}/stat", "rb") as fh:
                        stat = fh.read()
                except OSError:
                    continue
                fields = stat[stat.rfind(b")") + 2:].split()  # after "pid (comm) "
                total += int(fields[11]) + int(fields[12])  # utime + stime, in ticks
    return total / clock


def check_available(executable: str = CHROMIUM) -> str | None:
    """Why rendering cannot work here, or None when Playwright and Chromium are present."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return f"Playwright for Python is not installed: {INSTALL_HINT}"
    if not os.access(executable, os.X_OK):
        return f"no Chromium at {executable}: {INSTALL_HINT}"
    return None


class Renderer:
    """A headless Chromium for a batch of pages: `with Renderer() as r: r.render(page)`.

    The browser starts on the first page and is reused; use it from one thread.
    """

    def __init__(self, options: RenderOptions | None = None) -> None:
        self.options = options or RenderOptions()
        self._pw: Any = None
        self._browser: Any = None
        self._page: Any = None
        self._html = ""
        self._blocked: list[str] = []
        self._network: list[str] = []
        self._served = 0
        self._doc_served = False
        self._answered: set[str] = set()  # URLs the route answered itself (pixel, 204)
        self._resources: Resources | None = None  # the page's own, while it renders
        self._doc_url = DOC_URL
        self._sheets = [0, 0]  # stylesheets served from the resources, missing
        self._failure: str | None = None
        self._script = _collect_script()

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def render(self, page: Page) -> Rendering:
        """Render `page.html` and measure every DomNode of `page` (InputError on failure)."""
        nodes = list(page.root.iter())[1:]  # the virtual #root has no element to measure
        if len(nodes) > self.options.max_nodes:
            raise InputError(f"{page.name}: {len(nodes):,} elements, more than the renderer's "
                             f"limit of {self.options.max_nodes:,}")
        start, cpu = time.perf_counter(), children_cpu()
        resources = resources_of(page) if self.options.page_styles else None
        raw = self.measure(page.html, name=page.name, resources=resources)
        cpu = children_cpu() - cpu
        boxes = align(nodes, raw["nodes"])
        o = self.options
        styles = Styles(raw["stylesheets"][0], raw["stylesheets"][1], int(raw["inlineStyles"]))
        return Rendering(float(raw["width"]), float(raw["height"]), (o.width, o.height), boxes,
                         len(nodes), len(boxes), raw["blocked"], raw["network"],
                         (time.perf_counter() - start) * 1000, max(cpu, 0.0) * 1000, styles)

    def measure(self, html: str, name: str = "page",
                resources: Resources | None = None) -> dict[str, Any]:
        """The page script's raw answer for `html`: width, height, nodes, plus the requests
        blocked, any network responses seen, and the stylesheets served from `resources`
        and missing."""
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        tab = self._tab()
        ms = self.options.timeout * 1000
        self._html, self._blocked, self._network = html, [], []
        self._doc_served, self._answered = False, set()
        self._resources, self._sheets = resources, [0, 0]
        self._doc_url = resources.document_url if resources is not None else DOC_URL
        try:
            tab.goto(self._doc_url, wait_until="load", timeout=ms)
            handle = tab.wait_for_function(
                self._script, arg={"skipped": sorted(SKIPPED_TAGS), "maxDepth": MAX_DEPTH,
                                   "objectShowsItself": OBJECT_SHOWS_ITSELF.pattern,
                                   "maxNodes": self.options.max_nodes}, timeout=ms)
            raw = handle.json_value()
        except PlaywrightTimeout:
            self._restart()  # a renderer stuck in layout is not reused
            raise InputError(f"{name}: rendering took longer than "
                             f"{self.options.timeout:g} s") from None
        except PlaywrightError as exc:
            self._restart()
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InputError(f"{name}: rendering failed: {first}") from None
        except BaseException:
            # Interrupted mid-call (a guard's page timer, Ctrl-C): the tab may still be
            # loading or measuring this page, and a signal that lands inside a write to the
            # driver's pipe leaves half a message there, which kills the connection; so the
            # next page gets a fresh browser from a fresh driver.
            self._reset(broken=True)
            raise
        finally:
            self._html, self._resources = "", None
        if raw.get("error"):
            raise InputError(f"{name}: rendering failed: {raw['error']}")
        self._served += 1
        if self._served >= self.options.recycle_after:
            self._restart()
        raw["blocked"], raw["network"] = list(self._blocked), list(self._network)
        raw["stylesheets"] = list(self._sheets)
        return raw

    def close(self) -> None:
        self._reset()

    def _reset(self, broken: bool = False) -> None:
        """Drop the browser and this Renderer's hold on the thread's driver (`broken`: stop
        the driver too); the next page starts both again."""
        # After an interrupt (`broken`) no request goes over the connection: a graceful
        # browser.close() can wait for an answer that never comes (the likely place of one
        # CI hang). Stopping the driver closes its pipe; its browsers end with it.
        self._restart(close=not broken)
        driver, self._pw = self._pw, None
        if driver is not None:
            _release_driver(driver, broken)

    # -- the browser ---------------------------------------------------------------------

    def _tab(self, retried: bool = False) -> Any:
        if self._page is not None:
            return self._page
        if self._failure is not None:  # do not retry a failed start on every page
            raise RenderUnavailable(self._failure)
        reason = check_available(self.options.executable)
        if reason is not None:
            self._failure = reason
            raise RenderUnavailable(reason)
        try:
            if self._pw is not None and not _current_driver(self._pw):
                self._reset()  # another Renderer of the thread found it broken
            if self._pw is None:
                self._pw = _acquire_driver()
            with outside_limit():
                self._browser = self._pw.chromium.launch(
                    executable_path=self.options.executable, args=list(CHROMIUM_ARGS),
                    headless=True, timeout=max(self.options.timeout, 60) * 1000)
            context = self._browser.new_context(
                viewport={"width": self.options.width, "height": self.options.height},
                java_script_enabled=False, service_workers="block", offline=False,
                device_scale_factor=1)
            context.route("**/*", self._route)
            self._page = context.new_page()
            self._page.on("response", self._response)
        except SitesiftError:  # a guard's page timer fired during the start: not a fault
            self._reset(broken=True)  # of this machine's browser; the next page tries again
            raise
        except Exception as exc:  # Playwright's errors, a missing driver, an asyncio loop
            if not retried:
                # The thread's driver may have died under an earlier page (a timer's signal
                # inside a write to its pipe closes the connection): one more try with a
                # fresh driver before Chromium is called unusable.
                self._reset(broken=True)
                return self._tab(retried=True)
            self._restart()
            self._failure = (f"headless Chromium would not start ({type(exc).__name__}: "
                             f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}); "
                             f"{INSTALL_HINT}")
            raise RenderUnavailable(self._failure) from None
        return self._page

    def _route(self, route: Any) -> None:
        request = route.request
        if request.is_navigation_request() and request.frame.parent_frame is None:
            # The first navigation is ours (goto); comparing its URL would trip on how the
            # browser normalises a page's own address.
            if not self._doc_served:
                self._doc_served = True
                route.fulfill(status=200, content_type="text/html; charset=utf-8",
                              body=self._html)
                return
            # A later navigation (a meta refresh, even to the page itself) would replace
            # the document being measured: 204 No Content keeps the browser where it is.
            self._blocked.append(request.url)
            self._answered.add(request.url)
            route.fulfill(status=204, body="")
            return
        if self._from_resources(route, request):
            return
        self._blocked.append(request.url)
        if request.resource_type == "image":
            # Answered here, never fetched: a transparent pixel lets width and height
            # attributes lay out as in the original (the spacer GIFs of table layouts),
            # where a failed image would shrink to its alt text.
            self._answered.add(request.url)
            route.fulfill(status=200, content_type="image/gif", body=_PIXEL)
            return
        route.abort("blockedbyclient")

    def _from_resources(self, route: Any, request: Any) -> bool:
        """Answer a layout request (stylesheet, image, font) from the page's own resources;
        whether it was. A stylesheet is counted served or missing either way."""
        kind = request.resource_type
        if kind not in ("stylesheet", "image", "font"):
            return False
        found = self._resources.get(request.url) if self._resources is not None else None
        if kind == "stylesheet":
            self._sheets[0 if found is not None else 1] += 1
        if found is None:
            return False
        self._answered.add(request.url)
        route.fulfill(status=200, content_type=found.content_type, body=found.body)
        return True

    def _response(self, response: Any) -> None:
        if response.url != self._doc_url and response.url not in self._answered:
            self._network.append(response.url)

    def _restart(self, close: bool = True) -> None:
        """Drop the browser (a fresh one starts on the next page); `close`: ask it to close
        (otherwise it ends with its driver)."""
        browser, self._browser, self._page, self._served = self._browser, None, None, 0
        if browser is not None and close:
            with contextlib.suppress(Exception):
                browser.close()


# Playwright's sync API runs one driver per thread (a second `sync_playwright()` in the
# same thread fails, even after the first has gone idle), so Renderers of a thread share it
# and each launches its own browser; other sitesift code that drives a browser takes the
# thread's driver from `playwright()` rather than calling `sync_playwright()` itself.
_DRIVERS: dict[tuple[int, int], list[Any]] = {}  # (pid, thread) -> [driver, users]


@contextlib.contextmanager
def playwright() -> Iterator[Any]:
    """This thread's Playwright (sync API), shared with the thread's Renderers."""
    reason = check_available()
    if reason is not None and "Playwright" in reason:
        raise RenderUnavailable(reason)
    driver = _acquire_driver()
    try:
        yield driver
    finally:
        _release_driver(driver)


def _acquire_driver() -> Any:
    key = (os.getpid(), threading.get_ident())
    entry = _DRIVERS.get(key)
    if entry is None:
        from playwright.sync_api import sync_playwright

        with outside_limit():
            entry = _DRIVERS[key] = [sync_playwright().start(), 0]
    entry[1] += 1
    return entry[0]


def _current_driver(driver: Any) -> bool:
    entry = _DRIVERS.get((os.getpid(), threading.get_ident()))
    return entry is not None and entry[0] is driver


def _release_driver(driver: Any, broken: bool = False) -> None:
    """One user less of `driver`; it stops with its last user, or at once when `broken`
    (the thread's next user starts a new one). A driver already replaced is left alone."""
    key = (os.getpid(), threading.get_ident())
    entry = _DRIVERS.get(key)
    if entry is None or entry[0] is not driver:
        return
    entry[1] -= 1
    if entry[1] <= 0 or broken:
        del _DRIVERS[key]
        with contextlib.suppress(Exception):
            driver.stop()


# One browser per process and thread for the cleaners: starting Chromium costs a second or
# more, so `score()` of every page reuses it. Keyed by process id, because a forked worker
# cannot use its parent's connection to the driver.
_SHARED: dict[tuple[int, int, RenderOptions], Renderer] = {}


def shared_renderer(options: RenderOptions | None = None) -> Renderer:
    options = options or RenderOptions()
    key = (os.getpid(), threading.get_ident(), options)
    renderer = _SHARED.get(key)
    if renderer is None:
        if not _SHARED:
            atexit.register(close_shared)
        renderer = _SHARED[key] = Renderer(options)
    return renderer


def close_shared() -> None:
    """Close this thread's shared browsers (and so free its Playwright driver); the next
    rendering starts a new one. Playwright objects belong to the thread that made them, so
    other threads' browsers are theirs to close (at exit, the process ends them all)."""
    here = (os.getpid(), threading.get_ident())
    for key in [k for k in _SHARED if k[:2] == here]:
        _SHARED.pop(key).close()


def render(page: Page, options: RenderOptions | None = None) -> Rendering:
    """The page's rendering with the shared browser, made once per page and options (kept
    with the page, so several methods on one Page render it once)."""
    options = options or RenderOptions()
    cache = page.meta.get(_META_KEY)
    if not isinstance(cache, dict):
        cache = page.meta[_META_KEY] = {}
    found = cache.get(options)
    if found is None:
        found = cache[options] = shared_renderer(options).render(page)
    assert isinstance(found, Rendering)
    return found


def styles_meta(page: Page) -> dict[str, object] | None:
    """What the page's last rendering had of its own styles (`Styles.meta`), or None when
    it was not rendered: the browser cleaners' `meta["styles"]`."""
    cache = page.meta.get(_META_KEY)
    if not isinstance(cache, dict) or not cache:
        return None
    last = list(cache.values())[-1]
    return last.styles.meta() if isinstance(last, Rendering) else None
