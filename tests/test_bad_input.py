"""Hostile and broken input: a clear error or an empty result, and never a stopped batch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitesift.cli import main
from sitesift.errors import InputError
from sitesift.methods.base import get_cleaner, method_names
from sitesift.page import Page

BAD = {
    "empty.html": b"",
    "spaces.html": b"   \n\t  ",
    "binary.html": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20,
    "gzip-junk.html": b"\x1f\x8b\x08\x00" + bytes(range(256)) * 8,
    "deep.html": b"<div>" * 100_000 + b"x" + b"</div>" * 100_000,
}
ODD = {
    "plain.html": b"just a line of plain text, no markup at all",
    "broken.html": b"<div><p>unclosed <b>bold <table><td>cell<tr>row</div></i></span>tail",
    "only-script.html": b"<html><script>var x = 1;</script><style>p{}</style></html>",
    "nul-bytes.html": b"<p>before\x00after</p>",
    "latin1.html": "<meta charset='iso-8859-1'><p>caf\u00e9 cr\u00e8me</p>".encode("latin-1"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_unreadable_input_raises_input_error(name: str) -> None:
    with pytest.raises(InputError):
        Page.from_bytes(BAD[name], id=name)


@pytest.mark.parametrize("name", sorted(ODD))
@pytest.mark.parametrize("method", ["alltext", "sst"])
def test_odd_input_cleans(name: str, method: str) -> None:
    page = Page.from_bytes(ODD[name], id=name)
    cleaner = get_cleaner(method)
    if cleaner.site_level:
        cleaner.fit([page])
    text = cleaner.clean(page).text
    assert "\x00" not in text
    assert "var x" not in text  # scripts are never text


def test_odd_texts() -> None:
    assert Page.from_bytes(ODD["latin1.html"]).root.text() == "café crème"
    assert "beforeafter" in Page.from_bytes(ODD["nul-bytes.html"]).root.text()
    assert "cell" in Page.from_bytes(ODD["broken.html"]).root.text()


def test_moderately_deep_page_is_flattened_not_lost() -> None:
    html = "<div>" * 1000 + "deep text" + "</div>" * 1000
    page = Page.from_html(html)
    assert page.root.text() == "deep text"
    for method in method_names():
        cleaner = get_cleaner(method)
        if cleaner.needs_browser:  # rendered layout of absurd nesting is the browser's call
            continue
        if cleaner.site_level:
            cleaner.fit([page, page])
        assert "deep text" in cleaner.clean(page).text or cleaner.site_level


def test_flattened_levels_show_what_the_tree_would() -> None:
    # below MAX_DEPTH the structure is dropped, not the visibility rules
    inner = ('<p>shown <b>bold</b></p><div hidden><p>gone <i>too</i></p></div>'
             '<div style="display:none"><span>styled away</span></div>'
             '<object data="a.svg" type="image/svg+xml"><p>image fallback</p></object>'
             '<object classid="clsid:D27CDB6E"><p>plugin fallback</p></object>'
             '<script>var x = 1;</script><p>end</p>')
    html = "<div>" * 1000 + inner + "</div>" * 1000
    assert Page.from_html(html).root.text().split() == ["shown", "bold", "plugin",
                                                        "fallback", "end"]
    assert Page.from_html(inner).root.text().split() == ["shown", "bold", "plugin",
                                                         "fallback", "end"]


def test_batch_accounts_for_every_input(tmp_path: Path) -> None:
    src = tmp_path / "pages"
    src.mkdir()
    for name, data in {**BAD, **ODD}.items():
        (src / name).write_bytes(data)
    good = "<body><nav>menu</nav><article><p>{}</p></article></body>"
    stories = ["boats sail from the harbour", "trains run late tonight", "planes land at dawn"]
    for i, story in enumerate(stories):
        (src / f"good{i}.html").write_text(good.format(story))
    out = tmp_path / "out"
    # exit 1: some inputs gave no result (each has its error record)
    assert main(["clean", str(src), "--method", "sst", "--out", str(out), "--workers", "2",
                 "--quiet"]) == 1
    errors = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    failed = {e["id"] for e in errors}
    written = {p.name.removesuffix(".txt") for p in out.glob("*.txt")}
    inputs = {p.name.removesuffix(".html") for p in src.iterdir()}
    assert failed | written == inputs and not failed & written
    assert failed == {n.removesuffix(".html") for n in BAD}
    assert all(e["reason"] and "internal error" not in e["reason"] for e in errors)
    assert (out / "good1.txt").read_text().split() == ["trains", "run", "late", "tonight"]


def test_unclosed_title_does_not_swallow_the_page() -> None:
    # An old crawl spliced script into the title and lost `</title>`: as parsed by HTML5's
    # rules the whole page would be title text and the body empty.
    html = ('<html><head><title>Golfer Wins Title (The Times)ntById("font");\n'
            'obj.style.fontSize = 2;\n</script></head><body><p>The story text.</p></body>')
    page = Page.from_html(html)
    assert page.title == 'Golfer Wins Title (The Times)ntById("font");'
    assert page.root.text() == "The story text."
    # a cut template comment: `</titlevalue` is no end tag of the title
    cut = Page.from_html('<title>News - CBN</titlevalue="true" -->\n</head><p>Story.</p>')
    assert cut.title == "News - CBN" and cut.root.text() == "Story."
    closed = Page.from_html("<title>A\nB</title><p>x</p>")
    assert closed.title == "A\nB"  # a closed title is left as it is
    assert closed.root.text() == "x"
