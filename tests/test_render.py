"""The renderer: boxes of small pages, offline loading, alignment to DomNodes, failures."""

from __future__ import annotations

import gc
import os
import signal
import socketserver
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import ClassVar

import pytest

from sitesift.batch import SitePolicy, Source, clean_group
from sitesift.browser.chromium import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Renderer,
    RenderOptions,
    RenderUnavailable,
    close_shared,
    playwright,
)
from sitesift.browser.rendering import signature
from sitesift.dom import MAX_DEPTH
from sitesift.errors import InputError
from sitesift.guards import PageTimeout, time_limit
from sitesift.methods.base import get_cleaner
from tests.conftest import BROWSER_MISSING, loopback_server, needs_browser, page

# Playwright's sync wrapper makes a launch coroutine before it runs it; when the driver is
# gone, or a guard's timer lands in between, it is never awaited: Playwright's warning, not
# ours. The coroutine sits in a reference cycle, so the tests marked with this collect
# garbage before they end, for the warning to fall under their filter.
playwrights_unawaited_launch = pytest.mark.filterwarnings(
    "ignore:coroutine 'BrowserType.launch' was never awaited")


@pytest.fixture(scope="module")
def renderer() -> Iterator[Renderer]:
    with Renderer() as r:
        yield r


LAYOUT = """<!DOCTYPE html><html><head><style>
body { margin: 0; font: 16px serif; }
#head { height: 100px; background: #003366; }
#left { position: absolute; left: 0; top: 100px; width: 200px; height: 600px; }
#main { margin-left: 220px; height: 900px; }
h1, p { margin: 0; }
#foot { height: 50px; }
</style></head><body>
<div id="head">Site name</div><div id="left"><a href="/a">Menu</a></div>
<div id="main"><h1 style="font-size: 32px">Title</h1><p>Story text.</p></div>
<div id="foot">(c) 2024</div>
</body></html>"""


@needs_browser
def test_boxes_and_page_size(renderer: Renderer) -> None:
    p = page(LAYOUT)
    r = renderer.render(p)
    assert r.matched == r.nodes
    boxes = {str(n.attrs["id"]): r.box(n) for n in p.root.iter() if n.attrs and "id" in n.attrs}
    head, left, main, foot = (boxes[k] for k in ("head", "left", "main", "foot"))
    assert head is not None and left is not None and main is not None and foot is not None
    assert (head.x, head.y, head.w, head.h) == (0, 0, 1280, 100)
    assert head.background == "rgb(0, 51, 102)"
    assert (left.x, left.y, left.w, left.h) == (0, 100, 200, 600)
    assert (main.x, main.y, main.w) == (220, 100, 1060)
    assert (foot.y, foot.h) == (1000, 50)
    assert (r.width, r.height) == (1280, 1050)
    h1 = next(n for n in p.root.iter() if n.tag == "h1")
    got = r.box(h1)
    assert got is not None and (got.font_size, got.font_weight) == (32, 700)
    assert got.display == "block" and got.valid


class _Counter(socketserver.BaseRequestHandler):
    seen: ClassVar[list[str]] = []

    def handle(self) -> None:
        _Counter.seen.append(self.request.recv(1024).decode("latin-1").split("\r\n")[0])


@pytest.fixture()
def local_server() -> Iterator[str]:
    """A TCP server on loopback that records every connection: none may come."""
    _Counter.seen = []
    with loopback_server(_Counter) as address:
        yield address


@needs_browser
def test_remote_resources_are_blocked(renderer: Renderer, local_server: str) -> None:
    remote = "http://example.com"
    html = f"""<!DOCTYPE html><html><head>
    <link rel="stylesheet" href="{remote}/style.css">
    <link rel="preconnect" href="{local_server}"><link rel="dns-prefetch" href="{remote}">
    <script src="{remote}/app.js"></script><script src="{local_server}/app.js"></script>
    <meta http-equiv="refresh" content="0; url={local_server}/elsewhere">
    <style>@import url("{local_server}/imported.css");
      #bg {{ background: url("{local_server}/bg.png"); height: 20px; }}</style>
    </head><body>
    <img id="pic" src="{remote}/logo.png" alt="Logo" width="120" height="40">
    <img src="{local_server}/pixel.gif" srcset="{local_server}/big.gif 2x">
    <iframe src="{remote}/frame.html"></iframe><iframe src="{local_server}/frame"></iframe>
    <object data="{local_server}/movie.swf"></object><div id="bg">Text</div>
    <p>Still rendered.</p></body></html>"""
    p = page(html)
    r = renderer.render(p)
    for url in (f"{remote}/style.css", f"{remote}/logo.png", f"{remote}/frame.html",
                f"{local_server}/pixel.gif", f"{local_server}/frame", f"{local_server}/bg.png",
                f"{local_server}/imported.css", f"{local_server}/elsewhere"):
        assert url in r.blocked
    # Scripts are off, so their files are not even asked for.
    assert f"{remote}/app.js" not in r.blocked
    assert r.network == []          # no response came from anywhere but the route
    assert _Counter.seen == []      # and nothing even connected to the local server
    assert r.matched == r.nodes
    img = next(n for n in p.root.iter() if n.tag == "img")
    got = r.box(img)
    assert got is not None and (got.w, got.h) == (120, 40)  # laid out, never fetched


# Pages where a careless walk would disagree with sitesift.dom about what is a node.
TRICKY = {
    "text-beside-elements": "<div>lead <b>bold</b> tail<p>para</p> more</div>",
    "hidden-attributes": ('<div hidden>x</div><p aria-hidden="true">y</p>'
                          '<p aria-hidden="false">z</p><span style="DISPLAY: None">w</span>'
                          '<span style="visibility:hidden">v</span><p>shown</p>'),
    "css-hidden-is-still-a-node": ('<style>.gone{display:none}</style>'
                                   '<div class="gone">hidden by a class</div><p>x</p>'),
    "skipped-kinds": ("<script>document.write('<p>written</p>')</script><style>p{}</style>"
                      "<template><p>t</p></template><svg><text>s</text></svg>"
                      "<noscript><p>ns</p></noscript><iframe></iframe><p>kept</p><!-- c -->"),
    "object-fallback": ('<object data="movie.swf"><param name="a" value="b"><p>fallback</p>'
                        '</object><object data="pic.png?v=2"><p>under an image</p></object>'
                        '<object classid="clsid:1" data="x.png"><object data="m.swf">'
                        '<div>nested fallback</div></object></object>'),
    "noscript-in-head": "<html><head><noscript><img src=x></noscript></head><body><p>a</p>",
    "misnested": "<b><p>one</b>two</p><i><div>three</i></div><table>foster<tr><td>x</table>",
    "unclosed": "<ul><li>a<li>b</ul><p>c<p>d<table><tr><td>e<td>f</table>",
    "custom-and-prefixed": "<my-card><o:p>office</o:p><x-y>z</x-y></my-card>",
    "unicode-space": "<div>\u00a0\u3000<span>a</span>\u00a0<span>b</span>\u2028</div>",
    "long-text": "<div><b>x</b>" + "word " * 30000 + "</div>",
    "deep": "<div>" * (MAX_DEPTH + 40) + "deep text" + "</div>" * (MAX_DEPTH + 40),
}


@needs_browser
@pytest.mark.parametrize("html", TRICKY.values(), ids=TRICKY.keys())
def test_walk_matches_domnodes(renderer: Renderer, html: str) -> None:
    p = page(html)
    nodes = list(p.root.iter())[1:]
    raw = renderer.measure(p.html)
    assert [e[0] for e in raw["nodes"]] == [signature(n) for n in nodes]
    assert renderer.render(p).matched == len(nodes)


@needs_browser
def test_alignment_survives_a_disagreement(renderer: Renderer) -> None:
    """Where the trees differ, the nodes around the difference keep their boxes."""
    p = page("<div id=a>a</div><div id=b>b</div><div id=c>c</div>")
    nodes = list(p.root.iter())[1:]
    raw = renderer.measure(p.html)
    entries = [e for e in raw["nodes"] if not str(e[0]).startswith("div#b.")]
    from sitesift.browser.rendering import align

    boxes = align(nodes, entries)
    ids = {str(n.attrs["id"]) for n in nodes if n.attrs and n.nid in boxes}
    assert ids == {"a", "c"}


@needs_browser
def test_timeout_is_an_error_record_not_a_hang() -> None:
    src = Source("slow", "", {}, data=b"<html><body><p>text</p></body></html>")
    [outcome] = clean_group(SitePolicy("vlps", {"timeout": 0.001}), "g", [src])
    assert outcome.result is None
    assert outcome.error is not None and "rendering took longer than" in outcome.error


@needs_browser
def test_too_many_elements_is_refused() -> None:
    with Renderer(RenderOptions(max_nodes=100)) as r, pytest.raises(InputError, match="limit"):
        r.render(page("<p>x</p>" * 200))


@needs_browser
@playwrights_unawaited_launch
def test_an_interrupted_page_leaves_the_renderer_usable(renderer: Renderer) -> None:
    # A guard's page timer (SIGALRM) can fire inside a Playwright call; the next page must
    # still render, in a fresh browser.
    # 45,000 elements: under the renderer's node limit (a bigger page could be refused by
    # that check before the timer fires, once the browser is already up), slow to measure.
    big = page("<div><p>word</p><span>x</span></div>" * 15000)
    list(big.root.iter())  # parsed before the timer starts
    with pytest.raises(PageTimeout), time_limit(0.05):
        renderer.render(big)
    got = renderer.render(page("<p>hello</p>"))
    assert got.matched == got.nodes == 2
    gc.collect()  # see playwrights_unawaited_launch


def test_a_timer_swallowed_in_a_route_callback_is_still_the_pages_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The timer's signal can also land while Playwright runs our request handler; Playwright
    # logs that as a listener's error and leaves the request unanswered, so the page would
    # end as the renderer's own timeout. It must end as the guard's PageTimeout, and the
    # next page must render.
    fired: list[int] = []

    def route_once(self: Renderer, route: object) -> None:
        if not fired:
            fired.append(1)
            signal.raise_signal(signal.SIGALRM)  # the guard's timer, inside the handler
        original(self, route)

    original = Renderer._route
    monkeypatch.setattr(Renderer, "_route", route_once)
    with Renderer(RenderOptions(timeout=3)) as r:
        with pytest.raises(PageTimeout), time_limit(60):
            r.render(page("<p>first</p>"))
        got = r.render(page("<p>hello</p>"))
        assert got.matched == got.nodes == 2


@needs_browser
@playwrights_unawaited_launch
def test_a_dead_driver_is_replaced_not_reported_as_missing_chromium() -> None:
    # A timer's signal inside a write to the driver's pipe closes the connection, and
    # Playwright reports that as an ordinary error of the page being rendered; the next
    # page must start a fresh driver, not call Chromium unusable for good.
    with Renderer() as r:
        r.render(page("<p>one</p>"))
        r._pw.stop()  # the connection ends under the Renderer
        with pytest.raises(InputError):
            r.render(page("<p>two</p>"))
        got = r.render(page("<p>hello</p>"))
        assert got.matched == got.nodes == 2
    gc.collect()  # see playwrights_unawaited_launch


def test_missing_chromium_says_what_to_install() -> None:
    with Renderer(RenderOptions(executable="/nonexistent/chromium")) as r:
        for _ in range(2):  # the reason is remembered, not retried on every page
            with pytest.raises(RenderUnavailable, match="apt-get install chromium"):
                r.render(page("<p>x</p>"))


def test_sitesift_imports_without_playwright() -> None:
    code = ("import sys; import sitesift, sitesift.browser.chromium, sitesift.methods.vlps, "
            "sitesift.methods.vips, sitesift.segment; "
            "assert 'playwright' not in sys.modules, 'imported eagerly'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_ci_has_a_browser() -> None:
    """scripts/test.sh installs Chromium and sets SITESIFT_REQUIRE_BROWSER: there the
    browser tests must run, not skip."""
    if not os.environ.get("SITESIFT_REQUIRE_BROWSER"):
        pytest.skip("SITESIFT_REQUIRE_BROWSER is not set (scripts/test.sh sets it)")
    assert BROWSER_MISSING is None, BROWSER_MISSING


@needs_browser
def test_other_browser_code_shares_the_thread() -> None:
    # A cleaner's shared browser keeps its thread's Playwright driver; sitesift code that
    # drives a browser of its own takes the same driver, and after close_shared() the
    # thread is free for a plain sync_playwright() again. (In a thread of its own, so no
    # other renderer of this module holds the driver.)
    from playwright.sync_api import sync_playwright

    def body() -> None:
        assert get_cleaner("vlps").clean(page("<p>one</p>")).text == "one"
        with playwright() as pw:
            pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS)).close()
        close_shared()
        with sync_playwright() as pw:
            pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS)).close()

    failures: list[BaseException] = []
    thread = threading.Thread(target=lambda: _catch(body, failures))
    thread.start()
    thread.join(timeout=300)
    assert not thread.is_alive() and failures == []


def _catch(body: Callable[[], None], failures: list[BaseException]) -> None:
    try:
        body()
    except BaseException as exc:
        failures.append(exc)
