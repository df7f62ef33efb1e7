"""The clean HTML and markdown are safe to show in a browser (issue 52): over classic XSS
filter-evasion vectors, nothing a browser would run survives, whatever the method, the
page's URL or `<base href>`, through the API and the command line.

The checks read the output as a browser and a markdown renderer would, not by looking for
strings: the HTML is parsed (lexbor, an HTML5 parser) and every element, attribute and
address in it checked; the markdown is rendered by a CommonMark renderer (markdown-it,
raw HTML on and its own link filter off, so it lets through whatever the markdown says)
and the HTML it makes checked the same way, and its link and image destinations too. An
address's scheme is read as the WHATWG URL parser reads it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import markdown_it  # markdown-it-py, in sitesift[test]
import pytest
from selectolax.lexbor import LexborHTMLParser

import sitesift
from sitesift.cli import main

# What a link may point to; an image only http(s). A relative address takes the scheme
# of the page showing it.
LINK_SCHEMES = {"http", "https", "mailto", "ftp", ""}
IMAGE_SCHEMES = {"http", "https", ""}
# The elements and attributes the renderer writes, and the document around it.
ALLOWED_TAGS = {"html", "head", "body", "title", "meta", "h1", "h2", "h3", "h4", "h5", "h6",
                "p", "ul", "ol", "li", "pre", "code", "table", "tbody", "thead", "tr", "th",
                "td", "blockquote", "em", "strong", "a", "img", "br", "hr", "span"}
# A formula's LaTeX in HTML: pandoc's <span class="math inline|display"> (text only inside)
MATH_CLASSES = {"math inline", "math display"}
ALLOWED_ATTRS = {"href", "src", "alt", "start", "colspan", "rowspan", "class", "charset"}
NEVER = {"script", "style", "iframe", "frame", "frameset", "object", "embed", "applet",
         "form", "input", "button", "base", "svg", "math", "link", "template", "noscript",
         "bgsound", "video", "audio", "source"}
ADDRESS_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "srcset",
                 "poster", "background", "dynsrc", "lowsrc", "ping", "codebase", "cite"}

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")


def browser_scheme(address: str) -> str:
    """The scheme the WHATWG URL parser reads in `address` ("" for a relative one): C0
    controls and spaces stripped at the ends, tabs and line breaks anywhere, then a
    letter, letters, digits, `+-.`, and a colon."""
    cleaned = re.sub(r"[\t\n\r]", "", address.strip("".join(map(chr, range(0x21)))))
    m = _SCHEME.match(cleaned)
    return m.group(1).lower() if m else ""


def unsafe_in_html(html: str) -> list[str]:
    """What in `html` a browser could run, or that the renderer never writes."""
    found = []
    tree = LexborHTMLParser(html)
    for node in tree.root.traverse(include_text=False) if tree.root else []:
        tag = (node.tag or "").lower()
        if tag.startswith("-") or tag == "#document":  # comments, doctype
            continue
        if tag in NEVER or tag not in ALLOWED_TAGS:
            found.append(f"element <{tag}>")
        if tag == "span" and (node.attributes.get("class") not in MATH_CLASSES
                              or next(node.iter(include_text=False), None) is not None):
            found.append(f"span {node.attributes} (only a formula's text)")
        if tag == "meta" and set(node.attributes) != {"charset"}:
            found.append(f"meta {node.attributes}")
        for name, value in node.attributes.items():
            name = name.lower()
            if name.startswith("on") or name == "style" or name not in ALLOWED_ATTRS:
                found.append(f"attribute {name}={value!r} on <{tag}>")
            if name in ADDRESS_ATTRS:
                allowed = IMAGE_SCHEMES if tag == "img" else LINK_SCHEMES
                if browser_scheme(value or "") not in allowed:
                    found.append(f"address {name}={value!r} on <{tag}>")
            if name == "class" and not ((tag == "code" and (value or "").startswith("language-"))
                                        or (tag == "span" and value in MATH_CLASSES)):
                found.append(f"class {value!r} on <{tag}>")
    return found


def _markdown_renderer() -> markdown_it.MarkdownIt:
    md = markdown_it.MarkdownIt("commonmark")  # raw HTML passes, as CommonMark says
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # its filter off: test ours
    return md


MD = _markdown_renderer()


def unsafe_in_markdown(text: str) -> list[str]:
    """What a CommonMark renderer would make of `text` that a browser could run."""
    found = []
    for token in MD.parse(text):
        for t in [token, *(token.children or [])]:
            if t.type == "link_open" and browser_scheme(str(t.attrGet("href"))) not in LINK_SCHEMES:
                found.append(f"link {t.attrGet('href')!r}")
            if t.type == "image" and browser_scheme(str(t.attrGet("src"))) not in IMAGE_SCHEMES:
                found.append(f"image {t.attrGet('src')!r}")
            if t.type in ("html_block", "html_inline"):
                found.append(f"raw HTML {t.content!r}")
    return found + [f"rendered: {u}" for u in unsafe_in_html(MD.render(text))]


JS = "alert(1)"
# (name, the vector as it stands in the page's source): links, images, elements and text.
VECTORS = [
    ("plain", f'<a href="javascript:{JS}">v</a>'),
    ("mixed case", f'<a href="JaVaScRiPt:{JS}">v</a><IMG SRC=JaVaScRiPt:{JS}>'),
    ("tab entity", f'<a href="java&#x09;script:{JS}">v</a><img src="jav&#x09;ascript:{JS}">'),
    ("newline entity", f'<a href="java&#x0A;script:{JS}">v</a>'),
    ("cr entity", f'<a href="java&#x0D;script:{JS}">v</a>'),
    ("named tab", f'<a href="java&Tab;script:{JS}">v</a><a href="java&NewLine;script:1">w</a>'),
    ("raw tab and newline", f'<a href="java\tscript:{JS}">v</a><a href="java\nscript:{JS}">w</a>'),
    ("raw cr", f'<a href="java\rscript:{JS}">v</a>'),
    ("leading spaces", f'<a href="   javascript:{JS}">v</a><img src="  &#14;  javascript:{JS}">'),
    ("leading control", f'<a href="&#14;javascript:{JS}">v</a><a href="&#x01;javascript:1">w</a>'),
    ("padded ends", f'<a href=" &#x20;&#x1f;javascript:{JS}&#x7f; ">v</a>'),
    ("nul", f'<a href="java\0script:{JS}">v</a><a href="java&#0;script:{JS}">w</a>'),
    ("decimal", '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;'
                'alert(1)">v</a>'),
    ("decimal padded, no semicolons",
     '<img src="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105'
     '&#0000112&#0000116&#0000058alert(1)"><a href="&#0000106&#0000097&#0000118&#0000097'
     '&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)">v</a>'),
    ("hex, no semicolons", '<a href="&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A'
                           'alert(1)">v</a>'),
    ("named colon", f'<a href="javascript&colon;{JS}">v</a>'),
    ("double encoded", '<a href="javascript&amp;#58;alert(1)">v</a>'
                       '<a href="&amp;#106;avascript:alert(1)">w</a>'
                       '<img src="javascript&amp;#x3A;alert(1)">'),
    ("backslash", '<a href="javascript\\&#58;alert(1)">v</a><a href="\\javascript:1">w</a>'),
    ("vbscript", '<a href="vbscript:msgbox(1)">v</a><IMG SRC=\'vbscript:msgbox("XSS")\'>'),
    ("livescript", f'<a href="livescript:{JS}">v</a>'),
    ("hierarchical", '<a href="javascript://%0Aalert(1)">v</a><a href="javascript://x/%0a1">w</a>'),
    ("data", '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">v</a>'
             '<a href="DATA:text/html,<script>alert(1)</script>">w</a>'
             '<img src="data:image/svg+xml,<svg onload=alert(1)>">'),
    ("lazy image", f'<img data-src="javascript:{JS}" alt="lazy"><img data-lazy-src="vbscript:1">'),
    ("event handlers", f'<img src=x onerror="{JS}"><a href="/ok" onclick="{JS}" '
                       f'onmouseover={JS}>v</a><div onmouseover="{JS}">hover</div>'),
    ("quote breakout", '<img """><script>alert(1)</script>">'
                       '<a href="https://ex.org/&quot; onmouseover=&quot;alert(1)">v</a>'),
    ("script", '<script>alert(1)</script><SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>'
               '<<SCRIPT>alert("XSS");//\\<</SCRIPT>'),
    ("svg", f'<svg><a xlink:href="javascript:{JS}"><text>svg link</text></a>'
            f'<script>{JS}</script></svg><svg/onload={JS}>'),
    ("math", f'<math><a xlink:href="javascript:{JS}">math link</a>'
             f'<mi xlink:href="javascript:{JS}">x</mi></math>'),
    ("nested svg in math", '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>'
                           '</style></mglyph></table></mtext></math>'
                           '<svg><foreignObject><math><a href="javascript:alert(1)">m</a>'
                           '</math></foreignObject></svg>'),
    ("iframe", f'<iframe srcdoc="<script>{JS}</script>"></iframe>'
               f'<iframe src="javascript:{JS}"></iframe>'),
    ("form", f'<form action="javascript:{JS}"><input type="image" src="javascript:{JS}">'
             f'<button formaction="javascript:{JS}">go</button></form>'),
    ("object and embed", f'<object data="javascript:{JS}"></object>'
                         '<EMBED SRC="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">'),
    ("meta and link", f'<meta http-equiv="refresh" content="0;url=javascript:{JS}">'
                      f'<LINK REL="stylesheet" HREF="javascript:{JS}">'),
    ("style", f'<div style="background:url(javascript:{JS})">styled</div>'
              f'<p style="width: expression({JS})">expr</p>'
              f'<style>li {{list-style-image: url("javascript:{JS}");}}</style>'),
    ("table background", f'<table background="javascript:{JS}"><tr><td background='
                         f'"javascript:{JS}">cell one</td><td>cell two</td></tr></table>'),
    ("old image attributes", f'<IMG DYNSRC="javascript:{JS}"><IMG LOWSRC="javascript:{JS}">'),
    ("code language", '<pre class=\'language-"><script>alert(1)</script>\'>code()</pre>'
                      '<ol start=\'2"><script>alert(1)</script>\'><li>item</li></ol>'),
    ("text that reads as markup",
     '&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt; '
     '[x](javascript:alert(1)) ![y](javascript:alert(1)) &lt;javascript:alert(1)&gt; '
     '&amp;lt;b&amp;gt; &lt;a href="javascript:alert(1)"&gt;t&lt;/a&gt;'),
    ("link text that reads as markup", '<a href="https://ex.org/">a](javascript:alert(1)) '
                                       '[b</a><img src="/ok.png" alt="](javascript:alert(1))">'),
    ("tex in text", '<script>window.MathJax = {tex: {inlineMath: [["$", "$"]]}};</script>'
                    '\\(&lt;img src=x onerror=alert(1)&gt; [x](javascript:alert(1))\\) '
                    '$$&lt;script&gt;alert(1)&lt;/script&gt;$$ $a](javascript:alert(1)$'),
    ("parens in address", '<a href="https://ex.org/a)(javascript:alert(1)">v</a>'
                          '<a href="x)[y](javascript:alert(1)">w</a>'),
]
# Vectors in the head: a base that would make every relative link run a script.
HEAD_VECTORS = [
    ("javascript base", f'<base href="javascript:{JS}//">'),
    ("data base", '<base href="data:text/html,<script>alert(1)</script>">'),
    ("mixed case base", f'<BASE HREF="JaVa&#x09;ScRiPt:{JS};//">'),
    ("hierarchical javascript base", '<base href="javascript://%0aalert(1)//">'),
]
SAFE_LINKS = ('<a href="rel/page.html">relative</a> <a href="/abs">absolute</a> '
              '<a href="https://ex.org/x?a=1&amp;b=2">web</a> <a href="mailto:a@ex.org">mail</a> '
              '<img src="pic.png" alt="picture">')

FILLER = ("The fishing boats of the small harbour sailed at dawn, as they have every morning "
          "for a hundred years, and came back with a full catch before noon.")


def page(body: str, head: str = "") -> str:
    return (f"<html><head><title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>"
            f"{head}</head><body><nav><a href='/'>Home</a></nav><article><h1>Harbour news</h1>"
            f"<p>{FILLER} {body} The harbour master said the season was the best.</p>"
            f"<p>{FILLER} {SAFE_LINKS}</p><div>{body}</div><p>{FILLER}</p></article>"
            f"<footer>Copyright 2024</footer></body></html>")


PAGES = ([(name, page(v)) for name, v in VECTORS]
         + [(name, page(SAFE_LINKS + " " + VECTORS[0][1], head=v)) for name, v in HEAD_VECTORS]
         + [("all at once", page(" ".join(v for _, v in VECTORS),
                                 head="".join(v for _, v in HEAD_VECTORS)))])
URLS = [None, "https://ex.org/news/2024/boats.html", "javascript:alert(1)"]


def assert_safe(result: sitesift.Result, what: str) -> None:
    assert unsafe_in_html(result.html()) == [], what
    assert unsafe_in_markdown(result.markdown()) == [], what


@pytest.mark.parametrize(("name", "html"), PAGES, ids=[n for n, _ in PAGES])
@pytest.mark.parametrize("method", ["default", "alltext", "blockdist"])
def test_api_output_holds_nothing_a_browser_runs(name: str, html: str, method: str) -> None:
    for url in URLS:
        for title in ("model", "keep"):
            result = sitesift.clean(html, url=url, method=method, links=True, images=True,
                                    title=title)
            assert_safe(result, f"{name} {method} url={url} title={title}")
    # the page's text stays: alltext keeps all of it
    if method == "alltext":
        assert "fishing boats" in sitesift.clean(html, method=method, links=True).markdown()


def test_command_line_output_holds_nothing_a_browser_runs(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "pages").mkdir(parents=True)
    with (data / "index.jsonl").open("w") as index:
        for i, (_, html) in enumerate(PAGES):
            (data / "pages" / f"v{i}.html").write_text(html)
            (data / "pages" / f"b{i}.html").write_text(html)
            index.write(json.dumps({"id": f"v{i}", "url": URLS[1]}) + "\n")
            index.write(json.dumps({"id": f"b{i}"}) + "\n")  # no URL: addresses as written
    for fmt, check in (("html", unsafe_in_html), ("markdown", unsafe_in_markdown)):
        for method in ("default", "alltext"):
            out = tmp_path / f"{fmt}-{method}"
            assert main(["clean", str(data), "--format", fmt, "--links", "--images", "--method",
                         method, "--set", "title=keep", "--workers", "1", "-o", str(out),
                         "-q"]) == 0
            files = [p for p in out.iterdir() if p.suffix in (".html", ".md")]
            assert len(files) == 2 * len(PAGES)
            for f in files:
                assert check(f.read_text()) == [], f"{fmt} {method} {f.name}"


def test_ordinary_links_and_images_survive_resolved_against_the_page() -> None:
    html = page("", head='<base href="/news/">')
    url = "https://ex.org/news/2024/boats.html"
    result = sitesift.clean(html, url=url, method="alltext", links=True, images=True)
    links = {a.text(): a.attributes["href"]
             for a in LexborHTMLParser(result.html()).css("a")}
    assert links == {"Home": "https://ex.org/", "relative": "https://ex.org/news/rel/page.html",
                     "absolute": "https://ex.org/abs", "web": "https://ex.org/x?a=1&b=2",
                     "mail": "mailto:a@ex.org"}
    images = [i.attributes for i in LexborHTMLParser(result.html()).css("img")]
    assert images == [{"src": "https://ex.org/news/pic.png", "alt": "picture"}]
    md = result.markdown()
    assert "[relative](https://ex.org/news/rel/page.html)" in md
    assert "[mail](mailto:a@ex.org)" in md
    assert "![picture](https://ex.org/news/pic.png)" in md
    # a javascript: base is no base: the page's URL stands
    bad = sitesift.clean(page("", head=f'<base href="javascript:{JS}//">'), url=url,
                         method="alltext", links=True, images=True)
    assert "[relative](https://ex.org/news/2024/rel/page.html)" in bad.markdown()
    # no URL: relative addresses stay as written
    bare = sitesift.clean(page(""), method="alltext", links=True, images=True)
    assert "[relative](rel/page.html)" in bare.markdown()
    assert '<a href="rel/page.html">relative</a>' in bare.html()


def test_the_checks_catch_what_they_look_for() -> None:
    """The checkers themselves: each flags the unsafe output it exists for."""
    assert unsafe_in_html('<a href="java\tscript:alert(1)">x</a>')
    assert unsafe_in_html('<a href=" \x0ejavascript:alert(1)">x</a>')
    assert unsafe_in_html('<img src="data:image/png;base64,AAA">')
    assert unsafe_in_html("<svg><a xlink:href='/x'>x</a></svg>")
    assert unsafe_in_html("<p onclick='x'>x</p>")
    assert unsafe_in_html('<p>x</p><base href="/">')
    assert unsafe_in_html('<a href="/ok">x</a>') == []
    assert unsafe_in_markdown("[one](javascript:alert%281%29)")
    assert unsafe_in_markdown("[one](javascript&#58;alert)")
    assert unsafe_in_markdown("![i](vbscript:x)")
    assert unsafe_in_markdown("a <img src=x onerror=alert(1)> b")
    assert unsafe_in_markdown("a \\<img src=x onerror=alert(1)> b") == []
    assert unsafe_in_markdown("[one](./javascript&#58;alert) [two](/x) [m](mailto:a@b)") == []
    assert browser_scheme("\x01 java\tscript:x") == "javascript"
    assert browser_scheme("java\ufffdscript:x") == ""


@pytest.mark.parametrize("canonical", ["java\tscript:alert(1)", " javascript:alert(1)",
                                       "JaVaScRiPt:alert(1)", "data:text/html,<b>x</b>",
                                       "vbscript:msgbox(1)", "\x01javascript:alert(1)"])
def test_the_head_links_only_a_web_canonical_address(canonical: str) -> None:
    """`--metadata` puts the page's declared canonical address in the head: only an http(s)
    one, as a browser reads it."""
    from sitesift.result import Result

    def head(url: str) -> str:
        result = Result([], "m", meta={"metadata": {"canonical_url": url}})
        return result.html(metadata=True).split("</head>")[0]

    assert "canonical" not in head(canonical)
    assert '<link rel="canonical" href="https://example.org/a?b=1&amp;c=2">' in head(
        "https://example.org/a?b=1&c=2")
