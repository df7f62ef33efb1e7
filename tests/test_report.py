"""`sitesift report`: marks on the page's own HTML, an inert frame, the files, and the report as
headless Chromium shows it (skipped with a reason where Playwright or Chromium is missing)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from sitesift.cli import SAMPLE_SITE, main
from sitesift.errors import InputError
from sitesift.jobs.grouping import Grouping
from sitesift.methods.base import Cleaner, NodeScores, get_cleaner
from sitesift.page import Page
from sitesift.report import Scope, build_report
from sitesift.report.frame import AlignedPage, neutralise_css
from sitesift.report.shots import Watch, browser
from sitesift.report.sst_tree import explorer_data, label_counts
from sitesift.report.views import mark_page
from sitesift.result import CONTENT, NOISE, Result
from sitesift.verdicts import Verdict, render_blocks
from tests.conftest import needs_browser, page, refused

PAGE = """<!DOCTYPE html><html><head><title>T</title>
<link rel="stylesheet" href="https://cdn.example/site.css"><base href="https://x.example/">
<meta http-equiv="refresh" content="0; url=https://x.example/">
<style>@import url("https://x.example/a.css"); body{background:url(/bg.png) no-repeat}
.ok{background:url(data:image/gif;base64,R0lGOD==)}</style>
<script src="https://x.example/ads.js"></script><script>alert(1)</script></head>
<body onload="alert(2)" background="bg.gif">
<nav id="menu"><a href="/home">Home</a> <a href="#top">Top</a>
<a href="javascript:go()">Go</a></nav>
<article id="story"><h1>Headline here</h1><p>First paragraph of the story.</p>
Loose text beside elements<p>Share this</p></article>
<img src="https://x.example/pic.jpg" srcset="a.jpg 2x"><img src="data:image/gif;base64,R0lGOD==">
<iframe src="https://x.example/frame"></iframe><object data="x.swf"></object>
<form action="https://x.example/post"><input type="image" src="go.png"></form>
<div style="background-image:url('https://x.example/b.png')" onclick="x()">Footer text</div>
<noscript><img src="https://x.example/pixel"></noscript>
<svg><use href="#icon"></use><image href="https://x.example/i.png"></image></svg>
</body></html>"""


class Toy(Cleaner):
    """Noise on the nav and the footer div, content on the article; like the Site Style
    Tree's local noise, "Share this" is relabelled noise after the verdicts."""

    name = "toy"

    def score(self, page: Page) -> NodeScores:
        out: NodeScores = {}
        for node in page.root.iter():
            ident = (node.attrs or {}).get("id")
            if ident == "menu" or node.tag == "div":
                out[node.nid] = Verdict(NOISE, 0.1, f"toy: {node.tag} is noise", True)
            elif ident == "story":
                out[node.nid] = Verdict(CONTENT, 0.9, "toy: the story")
        return out

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        blocks = render_blocks(page.root, self.score(page))
        for block in blocks:
            if block.text == "Share this":
                block.label, block.reason = NOISE, "toy: share line"
        return Result(blocks, self.name, page.id)


def frame_tree(html: str) -> LexborHTMLParser:
    return LexborHTMLParser(html)


def test_marks_land_on_their_elements() -> None:
    marks = mark_page(Toy(), page(PAGE))
    tree = frame_tree(marks.frame)
    nav, story = tree.css_first("nav"), tree.css_first("article")
    assert nav is not None and story is not None
    assert nav.attrs["data-ss-l"] == NOISE and story.attrs["data-ss-l"] == CONTENT
    assert "toy: nav is noise" in (nav.attrs["title"] or "")
    assert marks.marks[int(nav.attrs["data-ss"] or -1)].reason == "toy: nav is noise"
    # the relabelled block is placed on its own paragraph, inside the content article
    share = next(p for p in tree.css("article p") if p.text() == "Share this")
    assert share.attrs["data-ss-l"] == NOISE
    assert marks.marks[int(share.attrs["data-ss"] or -1)].via == "block"
    assert marks.placed == 1 and marks.unplaced == 0 and marks.missing == 0
    assert len(marks.block_marks) == len(marks.result.blocks)
    for block, index in zip(marks.result.blocks, marks.block_marks, strict=True):
        assert index is not None and marks.marks[index].label == block.label


def test_text_run_beside_elements_is_wrapped_when_marked() -> None:
    class Loose(Toy):
        def score(self, page: Page) -> NodeScores:
            return {n.nid: Verdict(NOISE, 0.0, "loose text") for n in page.root.iter()
                    if n.tag == "#text" and "Loose" in n.text()}

        def clean(self, page: Page, *, noise: bool = True) -> Result:
            return Cleaner.clean(self, page, noise=noise)

    tree = frame_tree(mark_page(Loose(), page(PAGE)).frame)
    span = tree.css_first("span[data-ss]")
    assert span is not None and span.text().strip() == "Loose text beside elements"
    assert span.attrs["data-ss-l"] == NOISE


def test_frame_is_inert() -> None:
    doc = mark_page(Toy(), page(PAGE)).frame
    tree = frame_tree(doc)
    assert tree.css("script, link, base, noscript, meta[http-equiv=refresh]") == []
    head = tree.head
    assert head is not None and head.child is not None
    first = head.css_first("meta")
    assert first is not None and first.attrs["http-equiv"] == "Content-Security-Policy"
    assert "default-src 'none'" in (first.attrs["content"] or "")
    for node in tree.root.traverse() if tree.root else []:
        for name, value in (node.attributes or {}).items():
            assert not name.startswith("on"), (node.tag, name)
            if name in {"src", "srcset", "href", "xlink:href", "data", "action", "background",
                        "poster", "formaction"}:
                assert value is not None
                assert value.startswith("#") or (value.startswith("data:") and
                                                 node.tag not in ("iframe", "object")), (
                    node.tag, name, value)
    links = {a.text(): a.attrs for a in tree.css("a")}
    assert links["Home"]["href"] == "#" and links["Home"]["data-ss-href"] == "/home"
    assert links["Top"]["href"] == "#top"
    assert links["Go"]["href"] == "#"
    assert "https://" not in "".join(s.text() for s in tree.css("style"))
    assert "url(data:image/gif" in doc  # data: images stay
    assert tree.css_first("img[src^='data:']") is not None


def test_css_neutralised() -> None:
    css = ("@import 'x.css'; a{background:url( \"https://x/y.png\" )} "
           "b{cursor:url(c.cur),auto;background-image:image-set('a.png' 1x)} "
           "c{background:url(data:image/png;base64,AAA=)}")
    out = neutralise_css(css)
    assert "@import" not in out and "https" not in out and "c.cur" not in out
    assert "a.png" not in out and "url(data:image/png;base64,AAA=)" in out


def test_blocks_without_node_verdicts_are_placed_by_text() -> None:
    sample = Page.from_file(SAMPLE_SITE / "pages" / "hg-001.html")
    marks = mark_page(get_cleaner("blockdist"), sample)
    assert not marks.node_verdicts
    assert marks.unplaced == 0 and marks.placed == len(marks.result.blocks)
    tree = frame_tree(marks.frame)
    assert len(tree.css("[data-ss-l=noise]")) > 5 and tree.css("[data-ss-l=content]")


@st.composite
def html_trees(draw: st.DrawFn, depth: int = 0) -> str:
    tags = ["div", "p", "span", "a", "b", "ul", "li", "table", "tr", "td", "section", "h2"]
    parts = []
    for _ in range(draw(st.integers(0, 4 if depth < 3 else 0))):
        kind = draw(st.sampled_from(["el", "el", "text", "hidden", "script", "comment"]))
        if kind == "text":
            parts.append(draw(st.sampled_from(["word", "two words", " ", "x&amp;y"])))
        elif kind == "hidden":
            parts.append('<div style="display:none">gone</div><span hidden>x</span>')
        elif kind == "script":
            parts.append("<script>var a = '<b>';</script><noscript><p>n</p></noscript>")
        elif kind == "comment":
            parts.append("<!-- c -->")
        else:
            tag = draw(st.sampled_from(tags))
            parts.append(f"<{tag}>{draw(html_trees(depth + 1))}</{tag}>")
    return "".join(parts)


@settings(max_examples=60, deadline=None)
@given(html_trees())
def test_alignment_maps_every_node(body: str) -> None:
    p = Page.from_html(f"<html><body>{body}x</body></html>")
    aligned = AlignedPage(p)
    assert aligned.unaligned == 0
    for node in p.root.iter():
        if node.tag == "#root":
            continue
        lnode = aligned.lexbor[node.nid]
        if node.tag == "#text":
            assert lnode.tag == "-text" and lnode.text_content == node.children[0]
        else:
            assert lnode.tag == node.tag


def test_sst_explorer_data_covers_the_fitted_tree() -> None:
    from sitesift.methods.sst.tree import walk

    pages = [Page.from_file(p) for p in sorted((SAMPLE_SITE / "pages").glob("*.html"))[:8]]
    model = get_cleaner("sst").fit(pages)
    data = explorer_data(model)  # type: ignore[arg-type]
    assert data["pages"] == 8 and len(data["nodes"]) == sum(1 for _ in walk(model.tree_))
    assert data["nodes"][0][0] == "#root"
    counts = label_counts(data)
    assert counts["noisy"] > 0 and counts["meaningful"] > 0
    for key, pages_, leaf, node_imp, comp_imp, _, styles, _ in data["nodes"]:
        assert 0 <= node_imp <= 1 and 0 <= comp_imp <= 1 and leaf <= pages_ <= 8
        assert sum(s[0] for s in styles) + leaf == pages_, key  # every visit is one style
        assert all(0 < c < len(data["nodes"]) for s in styles for c in s[2])


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    build_report(SAMPLE_SITE, ["sst", "template"], out, scope=Scope(views=3))
    return out


def test_report_files_and_numbers(report: Path) -> None:
    rows = [json.loads(line) for line in (report / "pages.jsonl").read_text().splitlines()]
    assert len(rows) == 60 and {r["method"] for r in rows} == {"sst", "template"}
    assert all(r["error"] is None and 0 <= r["f1"] <= 1 and 0 < r["removed_share"] < 1
               for r in rows)
    assert sum(1 for r in rows if r.get("view")) == 6
    assert len(list((report / "pages").glob("*.html"))) == 3
    assert len(list((report / "sst").glob("*.html"))) == 1
    index = (report / "index.html").read_text()
    assert "<svg" in index and "token F1" in index and "style tree" in index
    view = (report / "pages" / "hg-001.html").read_text()
    assert re.findall(r'<iframe sandbox="([^"]*)"', view) == ["allow-same-origin"] * 2
    # nothing in any file names a network address outside the pages' own (neutralised) text
    for path in [report / "index.html", *(report / "sst").glob("*.html")]:
        assert not re.search(r"""(src|href)=["']?https?:""", path.read_text())


def test_failures_are_shown_not_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    for name in ("hg-001", "hg-002", "hg-003"):
        (pages / f"{name}.html").write_bytes((SAMPLE_SITE / "pages" / f"{name}.html")
                                             .read_bytes())
    (pages / "empty.html").write_text("   ")
    import sitesift.report.build as build

    real = build.mark_page

    def flaky(cleaner: Cleaner, p: Page) -> Any:
        if p.id == "hg-002":
            raise RuntimeError("boom")
        return real(cleaner, p)

    monkeypatch.setattr(build, "mark_page", flaky)
    result = build_report(pages, ["alltext"], tmp_path / "out", scope=Scope(Grouping("none")))
    assert result.pages == 3 and result.errors == 2
    rows = [json.loads(line) for line in (tmp_path / "out" / "pages.jsonl").read_text()
            .splitlines()]
    assert [r["error"] for r in rows if r["id"] == "hg-002"] == [
        "alltext failed: internal error (RuntimeError): boom"]
    index = (tmp_path / "out" / "index.html").read_text()
    assert "empty: not read" in index and "nothing but whitespace" in index
    assert "boom" in (tmp_path / "out" / "pages" / "hg-002.html").read_text()


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no site group 'nope'"):
        build_report(SAMPLE_SITE, ["sst"], tmp_path, scope=Scope(sites=("nope",)))
    refused(["report", str(SAMPLE_SITE), "--method", "sst", "--set", "cst.threshold=1",
              "--out", str(tmp_path)], "cst is not one of the methods given")


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    assert main(["report", str(SAMPLE_SITE), "--method", "alltext", "--views", "1",
                 "--set", "alltext.x=1", "--out", str(out), "--quiet"]) == 2  # bad parameter
    assert main(["report", str(SAMPLE_SITE), "--method", "cetr-tm", "--views", "1",
                 "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out.strip() == f"open {(out / 'index.html').resolve().as_uri()}"
    assert len(list((out / "pages").glob("*.html"))) == 1


# ------------------------------------------------------------------ in the browser

@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser() as b:
        yield b


def _open(chromium: Any, path: Path) -> tuple[Any, Watch]:
    watch = Watch()
    tab = watch.attach(chromium.new_page(viewport={"width": 1280, "height": 800}))
    tab.goto(path.resolve().as_uri())
    return tab, watch


# Facts about the shown frame, read by the report's own document (same origin): Playwright's
# locators would inject helpers into the script-less frame, which it logs as errors.
FRAME_FACTS = """() => {
  const frame = document.querySelector('.pane:not([hidden]) iframe');
  const doc = frame.contentDocument;
  const seen = sel => [...doc.querySelectorAll(sel)].filter(e => {
    const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  });
  const noise = seen('[data-ss-l="noise"]'), content = seen('[data-ss-l="content"]');
  const first = noise[0], r = first.getBoundingClientRect(), at = frame.getBoundingClientRect();
  return {hooked: frame.dataset.hooked === '1', text: doc.body.innerText,
          frameHeight: at.height, noise: noise.length, content: content.length,
          shadow: getComputedStyle(first).boxShadow,
          outline: getComputedStyle(content[0]).outlineStyle,
          scripts: doc.scripts.length,
          point: [at.left + r.left + 5, at.top + r.top + 5]};
}"""


@needs_browser
def test_page_view_in_chromium(chromium: Any, report: Path, tmp_path: Path) -> None:
    tab, watch = _open(chromium, report / "pages" / "hg-001.html")
    tab.wait_for_function("document.querySelector('.pane iframe').dataset.hooked === '1'")
    facts = tab.evaluate(FRAME_FACTS)
    assert facts["hooked"] and facts["frameHeight"] > 300 and facts["scripts"] == 0
    assert "Council agrees" in facts["text"]  # the page rendered inside its frame
    assert facts["noise"] >= 3 and facts["content"] >= 3  # highlighted and visible
    assert "inset" in facts["shadow"] and facts["outline"] == "solid"
    tab.mouse.move(*facts["point"])  # hover: the tooltip names the score and the rule
    tab.wait_for_selector("#tip:not([hidden])")
    tip = tab.inner_text("#tip")
    assert "noise" in tip and "SST" in tip and "body" in tip
    shot = tmp_path / "page.png"
    tab.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    tab.mouse.move(1, 1)
    tab.click('button[data-tab="compare"]')  # the switch: both methods side by side
    assert tab.locator(".pane:visible iframe").count() == 2
    assert tab.locator("aside.text").is_hidden()
    tab.click('button[data-tab="1"]')
    assert tab.locator(".pane:visible figcaption").inner_text().startswith("template")
    assert tab.locator('.col[data-i="1"]').is_visible()
    assert watch.errors == [] and watch.requests == []


@needs_browser
def test_sst_explorer_in_chromium(chromium: Any, report: Path, tmp_path: Path) -> None:
    tree = next((report / "sst").glob("*.html"))
    tab, watch = _open(chromium, tree)
    tab.locator("#tree li.style:has(> .row > .tog[aria-expanded=false])").first.evaluate(
        "li => { li.id = 'picked'; }")  # a stable name: the locator above changes on click
    item = tab.locator("#picked")
    assert item.locator("li.el").count() == 0  # built only when opened
    item.locator(":scope > .row > .tog").click()
    assert item.locator(":scope > ul > li.el").first.is_visible()
    assert item.locator(":scope > .row > .tog").get_attribute("aria-expanded") == "true"
    assert item.locator(":scope > ul > li.el .imp").first.inner_text().startswith("NodeImp")
    tab.fill("#q", "aside")  # search by tag, then reveal a hit deep in the tree
    tab.locator("#results .hit").first.click()
    flashed = tab.locator("#tree li.flash")
    assert flashed.count() == 1 and flashed.is_visible()
    assert "aside" in flashed.locator(".key").first.inner_text()
    tab.screenshot(path=str(tmp_path / "tree.png"))
    assert watch.errors == [] and watch.requests == []


@needs_browser
def test_summary_in_chromium(chromium: Any, report: Path) -> None:
    tab, watch = _open(chromium, report / "index.html")
    assert tab.locator(".chart svg").is_visible()
    assert tab.locator("table").first.inner_text().count("harbourgazette.example") == 1
    tab.locator('a[href="pages/hg-001.html"]').first.click()
    tab.wait_for_selector(".pane iframe")
    assert watch.errors == [] and watch.requests == []
