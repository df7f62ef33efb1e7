"""Rendering with the page's own styles: a saved folder or a WARC serves the stylesheets
(`sitesift.browser.resources`), the layout changes as the CSS says, and the result says
which styles the page had (`meta["styles"]`)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sitesift.browser.chromium import Renderer, RenderOptions
from sitesift.browser.rendering import Box, Styles
from sitesift.browser.resources import FolderResources, Resource, WarcStore, attach, warc_store
from sitesift.datasets import load_page
from sitesift.io.warc import HttpResponse, warc_record, write_warc
from sitesift.jobs.source import Source
from sitesift.methods.base import get_cleaner
from sitesift.page import Page
from tests.conftest import needs_browser

STYLED = Path(__file__).resolve().parent / "fixtures" / "styled"
AD = "Buy a boat today"
MENU_LINK = "Weather"


def _boxes(page: Page, options: RenderOptions) -> dict[str, Box]:
    with Renderer(options) as r:
        rendering = r.render(page)
    out: dict[str, Box] = {}
    for node in page.root.iter():
        box = rendering.box(node)
        if node.attrs and "id" in node.attrs and box is not None:
            out[str(node.attrs["id"])] = box
    return out


def test_styles_kind() -> None:
    assert Styles().kind == "none"                    # nothing of the page's: unstyled
    assert Styles(missing=2).kind == "none"
    assert Styles(inline=1).kind == "page"            # all its styles are inline
    assert Styles(served=2).kind == "page"
    assert Styles(served=1, missing=1).kind == "partial"
    assert Styles(inline=1, missing=1).meta() == {
        "styles": "partial", "stylesheets": 0, "stylesheets_missing": 1, "inline_styles": 1}


def test_folder_serves_only_files_inside_it(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "p.html").write_text("<p>x</p>")
    (tmp_path / "site" / "p_files").mkdir()
    (tmp_path / "site" / "p_files" / "a.css").write_text("p { color: red }")
    (tmp_path / "secret.css").write_text("p { color: blue }")
    store = FolderResources(tmp_path / "site" / "p.html")
    assert store.document_url == "http://sitesift.invalid/p.html"
    got = store.get("http://sitesift.invalid/p_files/a.css")
    assert got is not None and got.content_type == "text/css" and b"red" in got.body
    assert store.get("http://sitesift.invalid/p_files/%2E%2E/%2E%2E/secret.css") is None
    assert store.get("http://sitesift.invalid/../secret.css") is None
    assert store.get("https://elsewhere.example/p_files/a.css") is None  # never a host
    assert store.get("http://sitesift.invalid/p_files/none.css") is None


def test_a_file_source_and_a_dataset_row_carry_their_folder() -> None:
    path = STYLED / "pages" / "sidebar.html"
    for page in (Source("sidebar", str(path)).load(), load_page(STYLED, {"id": "sidebar"})):
        store = page.meta["sitesift.resources"]
        assert isinstance(store, FolderResources) and store.root == path.parent


@needs_browser
def test_saved_folder_lays_out_with_its_css() -> None:
    page = load_page(STYLED, {"id": "sidebar"})
    styled = _boxes(page, RenderOptions())
    # The stylesheet: menu floated left 220 px wide, related links at the right edge,
    # the advert hidden, the story between margins of 240 and 320 px.
    assert (styled["menu"].x, styled["menu"].w) == (0, 220)
    assert (styled["related"].x, styled["related"].w) == (1000, 280)
    assert not styled["ad"].valid
    assert (styled["story"].x, styled["story"].w) == (240, 720)
    plain = _boxes(load_page(STYLED, {"id": "sidebar"}), RenderOptions(page_styles=False))
    assert plain["menu"].w > 1000 and plain["related"].w > 1000  # stacked, full width
    assert plain["ad"].valid


def _text(method: str, page: Page, **params: object) -> tuple[str, dict[str, object]]:
    result = get_cleaner(method, **params).clean(page)
    return result.text, result.meta["styles"]


@needs_browser
def test_vlps_follows_the_css() -> None:
    text, styles = _text("vlps", load_page(STYLED, {"id": "sidebar"}))
    # Menu in LM, related links in RM, the advert hidden: none of them is content.
    assert styles == {"styles": "page", "stylesheets": 1, "stylesheets_missing": 0,
                      "inline_styles": 0}
    assert AD not in text and MENU_LINK not in text and "Lighthouse keeper" not in text
    assert "timber piles" in text
    text, styles = _text("vlps", load_page(STYLED, {"id": "sidebar"}), page_styles=False)
    assert styles["styles"] == "none" and styles["stylesheets_missing"] == 1
    assert AD in text  # unstyled, the advert is drawn in the middle of the page


def _leaves(page: Page, **params: object) -> dict[str, tuple[float, float]]:
    """The leaf blocks of VIPS's content structure: (x0, x1) by their node's id or tag."""
    tree = get_cleaner("vips", **params).tree(page)  # type: ignore[attr-defined]
    return {str((leaf.node.attrs or {}).get("id") or leaf.node.tag): (leaf.x0, leaf.x1)
            for leaf in tree.leaves() if leaf.node is not None}


@needs_browser
def test_vips_follows_the_css() -> None:
    styled = _leaves(load_page(STYLED, {"id": "sidebar"}))
    assert "ad" not in styled                # hidden: no block
    assert styled["h1"] == (240, 960)        # the story between its margins
    plain = _leaves(load_page(STYLED, {"id": "sidebar"}), page_styles=False)
    assert plain["ad"] == (8, 1272)          # unstyled, the advert is a page-wide block
    text, styles = _text("vips", load_page(STYLED, {"id": "navbar"}))
    assert styles["styles"] == "page" and "cookies" not in text and "timber piles" in text


@needs_browser
def test_page_without_its_files_says_none(tmp_path: Path) -> None:
    src = (STYLED / "pages" / "sidebar.html").read_text(encoding="utf-8")
    (tmp_path / "sidebar.html").write_text(src, encoding="utf-8")  # saved without its folder
    page = Source("sidebar", str(tmp_path / "sidebar.html")).load()
    text, styles = _text("vlps", page)
    assert styles == {"styles": "none", "stylesheets": 0, "stylesheets_missing": 1,
                      "inline_styles": 0}
    assert AD in text


@needs_browser
def test_warc_serves_the_stylesheet_by_its_url(tmp_path: Path) -> None:
    html = (STYLED / "pages" / "sidebar.html").read_bytes()
    css = (STYLED / "pages" / "sidebar_files" / "style.css").read_bytes()
    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [HttpResponse("https://gazette.example/news/pier", html),
                      HttpResponse("https://gazette.example/news/sidebar_files/style.css", css,
                                   content_type="text/css")])
    page = attach(Page.from_bytes(html, url="https://gazette.example/news/pier", id="pier"),
                  warc_store(warc).for_page("https://gazette.example/news/pier"))
    boxes = _boxes(page, RenderOptions())
    assert (boxes["menu"].x, boxes["menu"].w) == (0, 220) and not boxes["ad"].valid
    # The crawl's record of that WARC carries the same store.
    record = Source("0:1", str(warc), {"url": "https://gazette.example/news/pier"},
                    data=html, content_type="text/html").load()
    text, styles = _text("vlps", record)
    assert styles["styles"] == "page" and AD not in text


def _member(response: HttpResponse) -> bytes:
    return gzip.compress(warc_record(response), 6, mtime=0)  # one gzip member, as crawlers write


@pytest.mark.parametrize("damage", ["corrupt-gzip-member", "junk-between-members"])
def test_warc_store_reads_on_past_a_damaged_record(tmp_path: Path, damage: str) -> None:
    """A damaged record costs that resource only: the stylesheets after it are served (where
    FastWARC gave up on the rest of the file), and only 2xx layout types are kept."""
    base = "https://gazette.example/news/"
    css, png = b"#menu { float: left }", b"\x89PNG\r\n\x1a\n"
    lost = _member(HttpResponse(base + "lost.css", b"p { color: red }" * 20,
                                content_type="text/css"))
    mid = len(lost) // 2
    bad = {"corrupt-gzip-member": lost[:mid] + bytes(b ^ 0x5A for b in lost[mid : mid + 8])
                                  + lost[mid + 8 :],
           "junk-between-members": lost + b"\0not a WARC record" * 40}[damage]
    warc = tmp_path / "crawl.warc.gz"
    warc.write_bytes(b"".join([
        _member(HttpResponse(base + "pier", b"<html><body><p>Pier</p></body></html>")),
        bad,
        # an untyped record whose URL does not parse costs itself only
        _member(HttpResponse("https://[broken/x.css", b"p {}", content_type=None)),
        _member(HttpResponse(base + "site.css", css, content_type="text/css; charset=utf-8")),
        _member(HttpResponse(base + "gone.css", b"p {}", content_type="text/css", status=404)),
        _member(HttpResponse(base + "logo.png", png, content_type=None)),  # typed by its name
    ]))
    store = WarcStore(warc)
    assert store.get(base + "site.css#top") == Resource("text/css", css)
    assert store.get(base + "logo.png") == Resource("image/png", png)
    assert store.get(base + "pier") is None  # the page itself: not a layout resource
    assert store.get(base + "gone.css") is None  # a 404's body is no stylesheet
    lost_kept = store.get(base + "lost.css")  # whole before the junk; never half-read
    assert (lost_kept is None) == (damage == "corrupt-gzip-member")


@pytest.mark.parametrize("method", ["vlps", "vips"])
def test_page_styles_is_a_setting(method: str) -> None:
    assert get_cleaner(method).params.page_styles  # type: ignore[attr-defined]
    cleaner = get_cleaner(method, page_styles=False)
    assert not cleaner.params.render_options.page_styles  # type: ignore[attr-defined]


def test_report_frame_inlines_the_page_stylesheets() -> None:
    from sitesift.report.frame import AlignedPage

    framed = AlignedPage(load_page(STYLED, {"id": "sidebar"})).document()
    assert "#menu { float: left;" in framed and "<link" not in framed
    html = (STYLED / "pages" / "sidebar.html").read_text(encoding="utf-8")
    bare = AlignedPage(Page.from_html(html, id="sidebar")).document()  # no resources
    assert "float: left" not in bare and "<link" not in bare


@needs_browser
def test_imports_and_images_come_from_the_folder(tmp_path: Path) -> None:
    (tmp_path / "p_files").mkdir()
    (tmp_path / "p_files" / "a.css").write_text('@import url("b.css"); body { margin: 0 }')
    (tmp_path / "p_files" / "b.css").write_text("#x { width: 300px; }")
    (tmp_path / "p.html").write_text(
        '<html><head><link rel="stylesheet" href="p_files/a.css">'
        '<link rel="stylesheet" href="gone.css"></head>'
        '<body><div id="x">styled</div><img id="i" src="p_files/dot.gif"></body></html>')
    (tmp_path / "p_files" / "dot.gif").write_bytes(bytes.fromhex(  # a 3 x 2 GIF
        "474946383961030002008000000000ffffff2c00000000030002000002028451003b"))
    page = Source("p", str(tmp_path / "p.html")).load()
    with Renderer() as r:
        rendering = r.render(page)
    boxes = {str(n.attrs["id"]): rendering.box(n) for n in page.root.iter()
             if n.attrs and "id" in n.attrs}
    x, img = boxes["x"], boxes["i"]
    assert x is not None and (x.x, x.w) == (0, 300)  # b.css, imported by a.css
    assert img is not None and (img.w, img.h) == (3, 2)  # the saved image, not a pixel
    assert rendering.styles == Styles(served=2, missing=1)
    assert rendering.network == []
