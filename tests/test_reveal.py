"""What the default cleaner shows of a page's hidden markup (`native/src/read/reveal.rs`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sitesift.methods.default import read_page
from sitesift.page import Page

STORY = " ".join(f"Sentence {i} of the story tells what happened next in the town." for i in
                 range(30))


def _texts(html: str) -> tuple[bool, list[str]]:
    npage = read_page(Page.from_html(html, id="p"))
    return npage.revealed, list(npage.texts)


def test_streamed_segment_moves_into_its_placeholder_and_is_shown() -> None:
    html = ("<body><h1>Title</h1><!--$?--><template id='B:0'></template><p>Loading</p><!--/$-->"
            "<footer>Footer links</footer>"
            f"<div hidden id='S:0'><p>{STORY}</p><p>Second paragraph.</p></div>"
            "<script>$RC('B:0','S:0')</script></body>")
    revealed, texts = _texts(html)
    assert revealed
    assert texts.index(STORY) < texts.index("Footer links")  # where the script puts it
    assert texts.count(STORY) == 1
    assert "Second paragraph." in texts


def test_tab_and_accordion_panels_are_shown_menus_and_dialogs_are_not() -> None:
    html = ("<body><main><h1>Install</h1><p>Pick your language below, then follow the steps "
            "for it to set the project up on your machine.</p>"
            "<div role='tabpanel'><p>Python steps are shown.</p></div>"
            "<div role='tabpanel' hidden style='display:none'><p>Java steps hidden.</p></div>"
            "<div class='faq__answer' style='display: none;'><p>The FAQ answer.</p></div>"
            "<div class='faq__answer' style='display: none;'><p>The FAQ answer.</p></div>"
            "<div role='region' aria-labelledby='b1' aria-hidden='true'><p>Accordion.</p></div>"
            "</main>"
            "<div class='dropdown-menu collapse' style='display:none'><p>Menu item</p></div>"
            "<nav><div class='accordion' hidden><p>Nav accordion</p></div></nav>"
            "<div class='modal accordion' hidden><p>Dialog text</p></div>"
            "<div class='faq__answer' hidden><p>Outer <span hidden>inner secret</span></p></div>"
            + "<p>" + "word " * 500 + "</p></body>")
    revealed, texts = _texts(html)
    assert revealed
    for shown in ("Java steps hidden.", "The FAQ answer.", "Accordion."):
        assert shown in texts
    joined = "\n".join(texts)
    for hidden in ("Menu item", "Nav accordion", "Dialog text", "inner secret"):
        assert hidden not in joined
    assert "Outer" in joined
    assert texts.count("The FAQ answer.") == 1  # a hidden copy of a panel stays hidden
    aside = "<aside class='accordion' hidden><p>Aside panel</p></aside>"
    assert "Aside panel" not in _texts(html.replace("</main>", aside + "</main>"))[1]


def test_a_curtain_over_the_whole_page_is_lifted() -> None:
    html = ("<body><div style='visibility:hidden;background-color:#fff'>"
            f"<h1>Guide</h1><p>{STORY}</p></div><div style='display:none'>menu</div></body>")
    revealed, texts = _texts(html)
    assert revealed and STORY in texts and "menu" not in texts


def test_a_curtain_is_lifted_though_the_hidden_footer_and_menus_hold_more() -> None:
    # A shop's product sits in a wrapper shown by a script; its footer and mega menus are
    # hidden too and together hold more text than the product: they are chrome, not
    # part of the page whose half the curtain must hold.
    chrome = " ".join(f"Link {i} to a shelf of the shop" for i in range(60))
    html = ("<body><p>Free shipping over 40 euros</p>"
            f"<div class='mega-menu' style='display:none'><p>{chrome}</p></div>"
            f"<div class='product-wrapper defer-block' style='display: none'><h1>Crisps</h1>"
            f"<p>{STORY}</p></div>"
            f"<div class='hide-footer' style='display:none'><p>{chrome}</p>"
            f"<p>{chrome}</p></div></body>")
    revealed, texts = _texts(html)
    assert revealed and STORY in texts and "Crisps" in texts
    assert not any(t.startswith("Link 0") for t in texts)


def test_a_hidden_part_holding_only_scripts_or_styles_is_no_curtain() -> None:
    # Shops hide JSON-LD and style sheets in a `display:none` div: their characters are not
    # text a reader would see, so they neither make that div the curtain nor swell the
    # page's total (the listing, hidden until its script runs, is the curtain).
    data = '{"@type": "ItemList", "name": "' + " ".join(["item"] * 3000) + '"}'
    html = ("<body><p>Shop by category</p>"
            f"<div class='results' style='display:none'><h2>Results</h2><p>{STORY}</p></div>"
            f"<div style='display:none'><script type='application/ld+json'>{data}</script>"
            "<style>.a{color:red}</style></div></body>")
    revealed, texts = _texts(html)
    assert revealed and STORY in texts and "Results" in texts


def test_script_gated_page_shows_its_noscript_content() -> None:
    html = f"<body><div id='app'>Loading</div><noscript><p>{STORY}</p></noscript></body>"
    revealed, texts = _texts(html)
    assert revealed and STORY in texts


def test_pages_with_nothing_to_reveal_are_read_as_they_are() -> None:
    for html in (
        f"<body><p>{STORY}</p><div hidden><p>a hidden note</p></div></body>",
        f"<body><p>{STORY}</p><p>{STORY}</p><div class='tooltip' hidden>tip</div></body>",
        f"<body><p>{STORY}</p><p>{STORY}</p></body>",
    ):
        revealed, texts = _texts(html)
        assert not revealed
        assert "a hidden note" not in texts and "tip" not in texts


def test_the_native_visible_tree_follows_the_python_dom_rules() -> None:
    """The native core (native/src/read/dom.rs) and sitesift.dom read the same visible tree: the
    same skipped and block tags, style-key attributes, depth and hiding patterns. Either
    changed alone fails here."""
    from sitesift import dom
    from sitesift.native import core

    rules = core().dom_rules()
    assert frozenset(rules["skipped_tags"]) == dom.SKIPPED_TAGS
    assert frozenset(rules["block_tags"]) == dom.BLOCK_TAGS
    assert tuple(rules["style_attrs"]) == dom.STYLE_ATTRS
    assert rules["max_depth"] == dom.MAX_DEPTH
    assert rules["hidden_style"] == dom.HIDDEN_STYLE.pattern
    assert rules["object_shows_itself"] == dom.OBJECT_SHOWS_ITSELF.pattern


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["div", "td", "body", "html", "p"]),
       st.dictionaries(st.sampled_from(["class", "id", "role", "width", "style", "align",
                                        "href", "bgcolor"]),
                       st.text(alphabet=" ab1٣_-\t\u00a0", max_size=90), max_size=5))
def test_the_native_style_key_is_the_python_one(tag: str, attrs: dict[str, str]) -> None:
    """The site evidence's layout keys (native/src/crawl/site.rs) and the Site Style Tree's
    (sitesift.dom.style_key) are one definition in two languages: any difference fails."""
    from sitesift.dom import style_key
    from sitesift.native import core

    assert core().style_key(tag, attrs) == style_key(tag, attrs)
