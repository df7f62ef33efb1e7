"""Write the adversarial input set of issue 12 into a folder, in every input form sitesift reads.

    python benchmarks/adversarial.py OUT [--small] [--shared ../shared/datasets]

Categories of hostile pages (`PAGE_CATEGORIES`): nesting 100,000 deep (and a nesting that
slips past the depth check), 50 MB pages, a million attributes, NUL bytes, invalid UTF-8
and lone surrogates, UTF-16/32 without a BOM, malformed charset declarations, pages that are
only script, deeply nested tables, wide trees (a million siblings), entity and comment
bombs; with the shared corpora also every html5lib tokenizer input and `#data` page of the
encoding tests. Crawl-only categories (`CRAWL_CATEGORIES`): gzip bombs inside a WARC,
truncated and corrupt WARC(.gz) files, non-HTML content types and broken JSONL.

Every page category gets five ordinary pages of the bundled sample site beside its hostile
ones (`control-*`), so site-level methods fit a real site with the hostile pages in it.
Layout of OUT:

    pages/<category>/<category>--<name>.html
                                     page files (`sitesift clean OUT/pages`); a page whose
                                     Content-Type matters starts with its saved HTTP header;
                                     pages declare a canonical URL on host <category>.test
                                     (raw-byte cases cannot and group as "unknown")
    dataset/                          the same pages as a corpus (index.jsonl with site =
                                     category, pages/<id>.html.gz, gold/<id>.txt): `evaluate`
    warc/<category>.warc.gz           the page categories as WARC responses, and the WARC-only
                                     categories, one or more files each
    jsonl/<category>.jsonl.gz         the page categories as {url, html} lines, and bad JSONL
    manifest.json                     categories, their inputs and what each input is

`--small` shrinks the sizes (50 MB -> 2 MB, a million -> 20,000, bombs 1 GiB -> 64 MiB) for
a quick run; the depths stay (a 100,000-deep page is only 500 kB).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitesift.cli import SAMPLE_SITE
from sitesift.datasets import read_gold, read_index, read_page_bytes
from sitesift.decode import decode_html
from sitesift.errors import InputError
from sitesift.io.warc import HttpResponse, warc_record, write_warc

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
# Each category is a site of its own: <category>.test is its own registrable domain.
TLD = "test"
# Every hostile page carries one paragraph of main content, its gold text. It differs from
# page to page (a site-level method would rightly take a paragraph on every page for
# boilerplate): makers write MARK, `personal` puts the page's own sentence in its place.
MARK = "@@SURVIVOR@@"
_WORDS = ("harbour lantern orchard meadow granite willow ferry copper beacon thistle quarry "
          "saffron glacier pewter bramble falcon cobalt juniper marble osprey heather "
          "timber lagoon ember walnut plover basalt cedar linen heron").split()
PAGE_CATEGORIES = (
    "deep-nesting", "huge-page", "many-attributes", "nul-bytes", "invalid-utf8",
    "utf16-no-bom", "bad-charset", "script-only", "nested-tables", "wide-tree",
    "markup-bombs",
)
CRAWL_CATEGORIES = ("gzip-bomb", "truncated-warc", "non-html", "bad-jsonl")
CORPUS_CATEGORIES = ("html5lib-tokenizer", "html5lib-encoding")
CONTROL_PAGES = 5


@dataclass(frozen=True, slots=True)
class Scale:
    """Sizes of the big cases: full (the issue's figures) or small (a quick run)."""

    mb: int = 1 << 20  # "one MB" in the size names
    million: int = 1_000_000
    bomb: int = 1 << 30  # bytes a decompression bomb inflates to
    depth: int = 100_000


FULL = Scale()
SMALL = Scale(mb=40_000, million=20_000, bomb=64 << 20)


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    body: bytes
    content_type: str = "text/html"
    gold: str = MARK
    raw: bool = False  # the bytes must stay as they are: no canonical link is put before them
    note: str = ""


def _html(*parts: str | bytes, head: str = "") -> bytes:
    body = b"".join(p.encode("utf-8") if isinstance(p, str) else p for p in parts)
    return (f"<!DOCTYPE html><html><head><title>adversarial</title>{head}</head><body>"
            ).encode() + body + b"</body></html>"


def _survivor() -> bytes:
    return f"<p>{MARK}</p>".encode()


def survivor_text(name: str) -> str:
    rng = random.Random(name)
    return f"The survivor paragraph of {name} speaks of " + " ".join(rng.sample(_WORDS, 8)) + "."


def personal(body: bytes, name: str) -> bytes:
    """MARK replaced by the page's own sentence, in whichever encoding the page is in."""
    text = survivor_text(name)
    for codec in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
        body = body.replace(MARK.encode(codec), text.encode(codec))
    return body


def _personal(case: Case) -> Case:
    return Case(case.name, personal(case.body, case.name), case.content_type,
                case.gold.replace(MARK, survivor_text(case.name)), case.raw, case.note)


def deep_nesting(s: Scale) -> list[Case]:
    d = s.depth
    deep = [
        ("div", b"<div>" * d + _survivor() + b"</div>" * d),
        ("div-unclosed", b"<div>" * d + _survivor()),
        ("span", b"<span>" * d + _survivor()),
        ("b-formatting", b"<b>" * d + _survivor()),
        ("font-formatting", b"<font>" * d + _survivor()),
        ("nobr", b"<nobr>" * d + _survivor()),
        ("table", b"<table><tr><td>" * d + _survivor()),
        ("ul-li", b"<ul><li>" * d + _survivor()),
        ("svg-g", b"<svg>" + b"<g>" * d + b"</svg>" + _survivor()),
        ("custom-element", b"<x-a>" * d + _survivor()),
        ("mixed", b"<div><span><b><i><em>" * (d // 5) + _survivor()),
        ("close-only", _survivor() + b"</div>" * d),
        # '/>' inside a quoted value reads as a self-closed tag to a regex depth check
        ("slash-in-attribute", b'<div title="/>">' * d + _survivor()),
        ("under-the-limit", b"<div>" * 4990 + _survivor() + b"</div>" * 4990),
    ]
    return [Case(n, _html(b)) for n, b in deep]


def _markup(size: int) -> bytes:
    unit = b"<div class=c><p>word here</p><span>x</span></div>"
    return unit * (size // len(unit))


def huge_page(s: Scale) -> list[Case]:
    text = b"lorem ipsum dolor sit amet " * (50 * s.mb // 27)
    return [
        Case("markup-50mb", _html(_survivor(), _markup(50 * s.mb))),
        Case("one-text-node-50mb", _html(b"<p>", text, b"</p>"), gold=""),
        Case("markup-30mb", _html(_survivor(), _markup(30 * s.mb)),
             note="under the 32 M character limit: the time and memory guards decide"),
        Case("markup-12mb", _html(_survivor(), _markup(12 * s.mb)),
             note="under the crawl's 16 MB record limit too"),
        Case("no-spaces-12mb", _html(_survivor(), b"<p>", b"x" * (12 * s.mb), b"</p>")),
    ]


def many_attributes(s: Scale) -> list[Case]:
    m = s.million
    distinct = b" ".join(b"a%d=x" % i for i in range(m))
    return [
        Case("million-attributes", _html(b"<div ", distinct, b">", _survivor(), b"</div>")),
        Case("million-duplicate-attributes",
             _html(b"<div ", b"a=1 " * m, b">", _survivor(), b"</div>")),
        Case("hundred-each-on-10k-elements", _html(_survivor(), (
            b"<span " + b" ".join(b"k%d=v" % i for i in range(100)) + b">x</span>")
            * (m // 100))),
        Case("attribute-value-10mb",
             _html(b'<div title="', b"v" * (10 * s.mb), b'">', _survivor(), b"</div>")),
        Case("tag-name-1mb", _html(b"<", b"t" * s.mb, b">", _survivor())),
        Case("unclosed-quote", _html(_survivor(), b'<div title="', b"never closed " * 10_000)),
    ]


def nul_bytes(s: Scale) -> list[Case]:
    page = _html(_survivor())
    return [
        Case("sprinkled", page.replace(b" ", b" \x00")),
        Case("every-other-byte", b"\x00".join(bytes([c]) for c in page), raw=True,
             note="NUL lanes of UTF-16, but 8-bit text"),
        Case("in-tag-names", _html(b"<di\x00v>", _survivor(), b"</di\x00v>")),
        Case("in-attributes", _html(b'<div class="a\x00b" \x00=1>', _survivor(), b"</div>")),
        Case("leading", b"\x00" + page, raw=True),
        Case("megabyte-tail", page + b"\x00" * s.mb, raw=True),
        Case("only-nuls", b"\x00" * 4096, raw=True, gold=""),
        Case("nul-references", _html(b"<p>a&#0;b&#x0;c</p>", _survivor())),
    ]


def invalid_utf8(s: Scale) -> list[Case]:
    rng = random.Random(12)
    words = survivor_text("sprinkled-high-bytes").encode().split(b" ")
    sprinkled = b" ".join(w + bytes([rng.randrange(0x80, 0x100)]) for w in words)
    meta = '<meta charset="utf-8">'
    return [
        Case("sprinkled-high-bytes", _html(b"<p>", sprinkled, b"</p>"), gold=""),
        Case("cesu8-lone-surrogates", _html(b"<p>\xed\xa0\x80 \xed\xbf\xbf</p>", _survivor())),
        Case("surrogatepass", _html("<p>\ud800 \udfff \udbff\udc00</p>".encode(
            "utf-8", "surrogatepass"), _survivor())),
        Case("overlong", _html(b"<p>\xc0\xaf \xe0\x80\xaf \xc1\xbf</p>", _survivor())),
        Case("not-utf8-bytes", _html(b"<p>\xf5\xf8\xfc\xfe\xff</p>", _survivor())),
        Case("cut-at-the-end", _html(_survivor()) + "\u4e2d".encode()[:2], raw=True),
        Case("declared-utf8", _html(b"<p>\xff\xfe\x80 caf\xe9</p>", _survivor(), head=meta)),
        Case("half-invalid", _html(_survivor(), bytes(rng.randrange(0x80, 0x100)
                                                      for _ in range(4096)))),
    ]


def utf16_no_bom(s: Scale) -> list[Case]:
    text = _html(_survivor()).decode()
    cjk = "<html><body><p>" + "\u4e2d\u6587\u6d4b\u8bd5" * 200 + "</p></body></html>"
    return [
        Case("utf-16-le", text.encode("utf-16-le"), raw=True),
        Case("utf-16-be", text.encode("utf-16-be"), raw=True),
        Case("utf-32-le", text.encode("utf-32-le"), raw=True),
        Case("utf-32-be", text.encode("utf-32-be"), raw=True),
        Case("utf-16-le-odd-length", text.encode("utf-16-le")[:-1], raw=True),
        Case("utf-16-le-lone-surrogates",
             (text + "\ud800x\udc00").encode("utf-16-le", "surrogatepass"), raw=True),
        Case("utf-16-le-cjk-only", cjk.encode("utf-16-le"), raw=True, gold="",
             note="no NUL lanes to sniff"),
        Case("labelled-utf-16-but-8-bit", _html(_survivor()),
             content_type="text/html; charset=utf-16"),
        Case("meta-utf-16-on-ascii", _html(_survivor(), head='<meta charset="utf-16">')),
    ]


def bad_charset(s: Scale) -> list[Case]:
    def meta(label: str | bytes, extra: bytes = b"") -> bytes:
        lab = label.encode("latin-1") if isinstance(label, str) else label
        return _html(extra, _survivor(), head=f'<meta charset="{lab.decode("latin-1")}">')

    metas = b'<meta name="x" content="y">' * 2000
    return [
        Case("utf-7", meta("utf-7", b"<p>+ADw-script+AD4-alert(1)+ADw-/script+AD4-</p>")),
        Case("unknown-label", meta("x-nonexistent-charset")),
        Case("ebcdic-cp500", meta("cp500")),
        Case("label-with-nul", meta("utf-\x008")),
        Case("label-10k-chars", meta("u" * 10_000)),
        Case("meta-after-2000-metas", _html(metas, _survivor(), head='<meta charset="koi8-r">')),
        Case("unclosed-quote", _html(_survivor(), head='<meta charset="utf-8>')),
        Case("http-latin1-meta-utf8-bytes-sjis",
             _html("<p>\u65e5\u672c\u8a9e</p>".encode("shift_jis"), _survivor(),
                   head='<meta charset="utf-8">'),
             content_type="text/html; charset=iso-8859-1"),
        Case("iso-2022-jp-broken-escapes", meta("iso-2022-jp", b"<p>\x1b$B\x1b(J\x1b$@x</p>")),
        Case("iso-2022-kr", meta("iso-2022-kr", b"<p>\x1b$)C\x0e!!\x0f</p>")),
        Case("hz-gb-2312", meta("hz-gb-2312", b"<p>~{<:Ky~}</p>")),
        Case("http-header-garbage", _html(_survivor()),
             content_type="text/html; charset=\"; charset=utf-8; charset"),
        Case("many-charsets", meta("utf-8", b"<meta charset=cp1251>" * 5000)),
    ]


def script_only(s: Scale) -> list[Case]:
    big = b"<script>var a = [" + b"1," * (5 * s.mb // 2) + b"];</script>"
    return [Case(n, _html(b), gold="") for n, b in (
        ("script", b"<script>document.write('<p>hello</p>')</script>"),
        ("style", b"<style>p { color: red }</style>"),
        ("noscript", b"<noscript><style>x{}</style></noscript>"),
        ("script-with-end-tag-in-string", b"<script>var s = '</scr' + 'ipt>'; var t='<!--';"
                                          b"</script>"),
        ("script-5mb", big),
        ("ten-thousand-scripts", b"<script>x=1</script>" * 10_000),
        ("json-ld", b'<script type="application/ld+json">{"@type": "Article"}</script>'),
        ("template", b"<template><p>inert</p></template>"),
        ("hidden", b'<div hidden><p>hidden</p></div><div style="display:none">x</div>'),
        ("iframe-srcdoc", b'<iframe srcdoc="<p>framed</p>"></iframe>'),
        ("unterminated-script", b"<script>var a = 1;" + b"a++;" * 100_000),
    )]


def nested_tables(s: Scale) -> list[Case]:
    return [Case(n, _html(b)) for n, b in (
        ("table-tr-td-4990", b"<table><tr><td>" * 4990 + _survivor()),
        ("ul-li-4990", b"<ul><li>" * 4990 + _survivor()),
        ("table-1000-with-cells", b"<table><tr><td>a</td><td>b</td><td>" * 1000
         + _survivor() + b"</td></tr></table>" * 1000),
        ("rows-100k", b"<table>" + b"<tr><td>r</td></tr>" * (s.million // 10) + b"</table>"
         + _survivor()),
        ("cells-100k-one-row", b"<table><tr>" + b"<td>c</td>" * (s.million // 10)
         + b"</tr></table>" + _survivor()),
    )]


def wide_tree(s: Scale) -> list[Case]:
    m = s.million
    return [Case(n, _html(_survivor(), b)) for n, b in (
        ("million-p-siblings", b"<p>x</p>" * m),
        ("million-br", b"<br>" * m),
        ("million-img", b"<img src=a.png>" * m),
        ("li-100k", b"<ul>" + b"<li>item</li>" * (m // 10) + b"</ul>"),
        ("option-100k", b"<select>" + b"<option>o" * (m // 10) + b"</select>"),
        ("comments-100k", b"<!-- c -->" * (m // 10)),
    )]


def markup_bombs(s: Scale) -> list[Case]:
    m = s.million
    return [
        Case("million-amp", _html(_survivor(), b"<p>", b"&amp;" * m, b"</p>")),
        Case("out-of-range-refs", _html(_survivor(), b"<p>", b"&#x110000;" * (m // 10), b"</p>")),
        Case("surrogate-refs", _html(_survivor(), b"<p>", b"&#xD800;" * (m // 10), b"</p>")),
        Case("entities-without-semicolon", _html(_survivor(), b"<p>", b"&notit" * m, b"</p>")),
        Case("unterminated-comment", _html(_survivor(), b"<!--", b"c " * (5 * s.mb // 2))),
        Case("plaintext", _html(_survivor(), b"<plaintext>", b"<p>x</p>" * (s.mb // 8))),
        Case("unterminated-textarea", _html(_survivor(), b"<textarea>", b"t " * (s.mb // 2))),
        Case("million-lt", _html(_survivor(), b"<" * m)),
        Case("cdata-100k", _html(_survivor(), b"<![CDATA[x]]>" * (m // 10))),
        Case("processing-instructions", _html(_survivor(), b"<?xml x?>" * (m // 10))),
        Case("combining-flood", _html(_survivor(), ("<p>a" + "\u0301" * m + "</p>").encode())),
        Case("bidi-zero-width-flood",
             _html(_survivor(), ("<p>" + "\u202e\u200b\u2066" * (m // 3) + "</p>").encode())),
        Case("million-newlines", _html(_survivor(), b"<pre>", b"\n" * m, b"</pre>")),
        Case("frameset", b"<html><frameset><frame src=a><frame src=b></frameset></html>",
             gold=""),
    ]


PAGE_MAKERS: dict[str, Callable[[Scale], list[Case]]] = {
    "deep-nesting": deep_nesting, "huge-page": huge_page, "many-attributes": many_attributes,
    "nul-bytes": nul_bytes, "invalid-utf8": invalid_utf8, "utf16-no-bom": utf16_no_bom,
    "bad-charset": bad_charset, "script-only": script_only, "nested-tables": nested_tables,
    "wide-tree": wide_tree, "markup-bombs": markup_bombs,
}


# -- the html5lib corpora as pages ------------------------------------------------------------

def html5lib_tokenizer(shared: Path) -> list[Case]:
    """Every tokenizer `input`, lone surrogates kept (written as surrogate-passing UTF-8)."""
    import re

    escape = re.compile(r"\\u([0-9a-fA-F]{4})")
    cases = []
    for path in sorted((shared / "html5lib-tests" / "tokenizer").glob("*.test")):
        for k, test in enumerate(json.loads(path.read_text("utf-8")).get("tests", [])):
            text = test["input"]
            if test.get("doubleEscaped"):
                text = escape.sub(lambda m: chr(int(m.group(1), 16)), text)
            cases.append(Case(f"{path.stem}-{k}", text.encode("utf-8", "surrogatepass"),
                              gold="", raw=True))
    return cases


def html5lib_encoding(shared: Path) -> list[Case]:
    """Every `#data` page of the encoding tests, its bytes as they are."""
    cases = []
    root = shared / "html5lib-tests" / "encoding"
    for path in sorted(root.rglob("*.dat")):
        name = path.relative_to(root).as_posix().replace("/", "-").removesuffix(".dat")
        for k, chunk in enumerate(path.read_bytes().split(b"#data\n")[1:]):
            data = chunk.partition(b"\n#encoding\n")[0]
            cases.append(Case(f"{name}-{k}", data, gold="", raw=True))
    return cases


# -- crawl-only categories --------------------------------------------------------------------

def _bomb(size: int, wbits: int = 31) -> bytes:
    """`size` zero bytes, compressed (gzip by default) without holding them in memory."""
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    chunk = bytes(1 << 20)
    out = [packer.compress(chunk) for _ in range(size // len(chunk))]
    return b"".join(out) + packer.flush()


def _url(category: str, name: str) -> str:
    return f"http://{category}.{TLD}/{name}"


def _controls() -> list[Case]:
    rows = read_index(SAMPLE_SITE)[:CONTROL_PAGES]
    return [Case(f"control-{k}", read_page_bytes(SAMPLE_SITE, row),
                 gold=(read_gold(SAMPLE_SITE, row["id"]) or "").strip())
            for k, row in enumerate(rows)]


def gzip_bomb_records(s: Scale) -> list[HttpResponse]:
    bomb = _bomb(s.bomb)
    enc = "Content-Encoding"
    out = [
        HttpResponse(_url("gzip-bomb", "gzip"), bomb, headers=((enc, "gzip"),)),
        HttpResponse(_url("gzip-bomb", "gzip-in-gzip"), gzip.compress(bomb),
                     headers=((enc, "gzip, gzip"),)),
        HttpResponse(_url("gzip-bomb", "deflate"), _bomb(s.bomb, 15), headers=((enc, "deflate"),)),
        HttpResponse(_url("gzip-bomb", "raw-deflate"), _bomb(s.bomb, -15),
                     headers=((enc, "deflate"),)),
        HttpResponse(_url("gzip-bomb", "not-gzip"), b"\x1f\x8bgarbage" * 100,
                     headers=((enc, "gzip"),)),
        HttpResponse(_url("gzip-bomb", "unknown-coding"), b"abc", headers=((enc, "compress"),)),
        HttpResponse(_url("gzip-bomb", "bad-chunking"), b"zz\r\nnot chunks",
                     headers=(("Transfer-Encoding", "chunked"),)),
    ]
    try:
        import brotli

        out.append(HttpResponse(_url("gzip-bomb", "brotli"),
                                brotli.compress(bytes(s.bomb // 4), quality=1),
                                headers=((enc, "br"),)))
    except ImportError:
        pass
    return out


def write_gzip_bomb_warc(path: Path, s: Scale) -> None:
    """Bombs in HTTP content codings, and a WARC record whose own payload is huge."""
    write_warc(path, [*(HttpResponse(_url("gzip-bomb", c.name), c.body) for c in _controls()),
                      *gzip_bomb_records(s)])
    # A record of `s.bomb` zero bytes in one gzip member: the reader must refuse it by its
    # declared length and skip past it without holding it.
    length = s.bomb
    http = (f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {length}\r\n\r\n"
            ).encode()
    warc = (f"WARC/1.1\r\nWARC-Type: response\r\n"
            f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n"
            f"WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Length: {len(http) + length}\r\n"
            f"WARC-Target-URI: {_url('gzip-bomb', 'huge-record')}\r\n"
            f"Content-Type: application/http; msgtype=response\r\n\r\n").encode()
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    chunks = [packer.compress(warc + http)]
    zero = bytes(1 << 20)
    chunks += [packer.compress(zero) for _ in range(length // len(zero))]
    chunks.append(packer.compress(b"\r\n\r\n") + packer.flush())
    with open(path, "ab") as fh:
        fh.writelines(chunks)
        after = personal(_html(_survivor()), "after-the-huge")
        fh.write(gzip.compress(warc_record(HttpResponse(_url("gzip-bomb", "after-the-huge"),
                                                        after))))


def write_truncated_warcs(folder: Path) -> list[str]:
    """Cut, corrupt and lying WARC files: each is one input."""
    pages = [HttpResponse(_url("truncated-warc", c.name), c.body) for c in _controls()]
    whole = folder / "whole.warc.gz"
    write_warc(whole, pages)
    data = whole.read_bytes()
    plain = folder / "whole.warc"
    write_warc(plain, pages)
    pdata = plain.read_bytes()
    whole.unlink()
    plain.unlink()
    last = gzip.compress(warc_record(pages[-1]))
    rng = random.Random(7)
    files = {
        "cut-mid-member.warc.gz": data[: len(data) - len(last) // 2],
        "cut-mid-gzip-header.warc.gz": data[: len(data) - len(last) + 5],
        "cut-in-first-record.warc.gz": data[: len(data) * 1 // 5],
        "garbage-tail.warc.gz": data + rng.randbytes(5000),
        "random-bytes.warc.gz": rng.randbytes(65536),
        "empty.warc.gz": b"",
        "plain-named-gz.warc.gz": pdata,
        "gzip-of-text.warc.gz": gzip.compress(b"this is not a WARC file\n" * 1000),
        "cut-plain-payload.warc": pdata[: len(pdata) - 300],
        "lying-length.warc": pdata.replace(b"Content-Length: ", b"Content-Length: 9", 3),
        "non-numeric-length.warc": pdata.replace(b"Content-Length: ", b"Content-Length: x", 2),
        "only-warcinfo-cut.warc.gz": data[:40],
    }
    for name, blob in files.items():
        (folder / name).write_bytes(blob)
    return sorted(files)


def non_html_records() -> list[HttpResponse]:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    pdf = b"%PDF-1.4\n" + b"1 0 obj << >> endobj\n" * 50
    page = personal(_html(_survivor()), "non-html")
    cat = "non-html"
    return [HttpResponse(_url(cat, n), b, ct, status) for n, b, ct, status in (
        ("png", png, "image/png", 200), ("pdf", pdf, "application/pdf", 200),
        ("json", b'{"a": [1, 2, 3]}', "application/json", 200),
        ("plain-text", b"just text", "text/plain", 200), ("css", b"p{}", "text/css", 200),
        ("javascript", b"var x;", "application/javascript", 200),
        ("mp4", b"\x00\x00\x00\x18ftypmp42" + bytes(500), "video/mp4", 200),
        ("octet-stream-with-html", page, "application/octet-stream", 200),
        ("no-type-binary", png, None, 200), ("no-type-html", page, None, 200),
        ("html-label-png-body", png, "text/html", 200),
        ("html-label-pdf-body", pdf, "text/html", 200),
        ("bogus-charset", page, "TEXT/HTML; charset=bogus", 200),
        ("long-type", page, "text/html; " + "x=y; " * 1600, 200),
        ("xhtml", page, "application/xhtml+xml", 200),
        ("svg", b"<svg xmlns='http://www.w3.org/2000/svg'><text>t</text></svg>",
         "image/svg+xml", 200),
        ("status-404", page, "text/html", 404), ("status-301", page, "text/html", 301),
        ("status-500", page, "text/html", 500),
    )]


def bad_jsonl_lines(s: Scale) -> list[bytes]:
    page = personal(_html(_survivor()), "bad-jsonl").decode()
    ok = {"url": _url("bad-jsonl", "ok"), "html": page}
    return [
        json.dumps(ok).encode(),
        json.dumps({"url": _url("bad-jsonl", "surrogates"),
                    "html": "<p>\ud800 lone \udfff</p>" + page}).encode(),
        json.dumps({"url": 5, "html": page}).encode(),
        json.dumps({"url": _url("bad-jsonl", "number"), "html": 5}).encode(),
        json.dumps({"url": _url("bad-jsonl", "null"), "html": None}).encode(),
        json.dumps({"url": _url("bad-jsonl", "list"), "html": [page]}).encode(),
        json.dumps([ok]).encode(), b"42", b"null", b"{}", b'"a string"',
        b'{"url": "http://bad-jsonl.test/cut", "html": "<p>cut',
        b'{"url": "http://bad-jsonl.test/bytes", "html": "<p>\xff\xfe bytes</p>"}',
        json.dumps({"url": _url("bad-jsonl", "nul"), "html": "<p>a\u0000b</p>" + page}).encode(),
        b"[" * 100_000 + b"]" * 100_000,
        b'{"html": ' + b"[" * 100_000,
        json.dumps({"url": _url("bad-jsonl", "huge"), "html": "x" * (20 * s.mb)}).encode(),
        json.dumps({"url": _url("bad-jsonl", "empty-html"), "html": ""}).encode(),
        json.dumps({"url": _url("bad-jsonl", "dup-keys"), "html": 1}).encode()[:-1]
        + b', "html": "<p>dup</p>"}',
    ]


# -- writing ----------------------------------------------------------------------------------

@dataclass(slots=True)
class Manifest:
    categories: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, category: str, kind: str, inputs: list[str]) -> None:
        entry = self.categories.setdefault(category, {"inputs": {}})
        entry["inputs"].setdefault(kind, []).extend(inputs)


def _as_file(case: Case, category: str) -> bytes:
    body = case.body
    if not case.raw:  # group the page with its category, as `sitesift clean` groups by URL
        body = f'<link rel="canonical" href="{_url(category, case.name)}">'.encode() + body
    if case.content_type != "text/html":
        body = f"HTTP/1.1 200 OK\r\nContent-Type: {case.content_type}\r\n\r\n".encode() + body
    return body


def _as_text(case: Case) -> str:
    """What a JSONL crawl would hold for the page: its decoded text."""
    try:
        return decode_html(case.body, case.content_type).text
    except InputError:
        return case.body.decode("latin-1")


def write_pages(out: Path, category: str, cases: list[Case], manifest: Manifest) -> None:
    folder = out / "pages" / category
    folder.mkdir(parents=True, exist_ok=True)
    ds = out / "dataset"
    for case in cases:
        pid = f"{category}--{case.name}"  # unique across categories: the page's id everywhere
        (folder / f"{pid}.html").write_bytes(_as_file(case, category))
        (ds / "pages" / f"{pid}.html.gz").write_bytes(gzip.compress(case.body, 1, mtime=0))
        (ds / "gold" / f"{pid}.txt").write_text(case.gold + "\n", "utf-8")
        row = {"id": pid, "url": _url(category, case.name), "site": category,
               "category": category}
        if case.content_type != "text/html":
            row["http_content_type"] = case.content_type
        with open(ds / "index.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
    warc = out / "warc" / f"{category}.warc.gz"
    write_warc(warc, (HttpResponse(_url(category, c.name), c.body, c.content_type)
                      for c in cases))
    jsonl = out / "jsonl" / f"{category}.jsonl.gz"
    with gzip.open(jsonl, "wt", encoding="utf-8", compresslevel=1) as fh:
        for case in cases:
            fh.write(json.dumps({"url": _url(category, case.name), "html": _as_text(case)})
                     + "\n")
    manifest.add(category, "folder", [str(folder)])
    manifest.add(category, "dataset", [f"{category}--*"])  # page ids in OUT/dataset
    manifest.add(category, "warc", [str(warc)])
    manifest.add(category, "jsonl", [str(jsonl)])
    manifest.categories[category]["cases"] = {c.name: c.note for c in cases}


def generate(out: Path, scale: Scale = FULL, shared: Path | None = SHARED,
             only: list[str] | None = None, log: Callable[[str], None] = print) -> Manifest:
    """Write the set into `out` (which must not hold an earlier set)."""
    for sub in ("pages", "dataset/pages", "dataset/gold", "warc", "jsonl"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    if (out / "dataset" / "index.jsonl").exists():
        raise SystemExit(f"{out} holds an adversarial set already: use an empty folder")
    manifest = Manifest()
    wanted = set(only or [*PAGE_CATEGORIES, *CRAWL_CATEGORIES, *CORPUS_CATEGORIES])
    for category in PAGE_CATEGORIES:
        if category in wanted:
            start = time.perf_counter()
            cases = [*_controls(), *map(_personal, PAGE_MAKERS[category](scale))]
            write_pages(out, category, cases, manifest)
            log(f"{category}: {len(cases)} pages in {time.perf_counter() - start:.1f} s")
    for category, maker in (("html5lib-tokenizer", html5lib_tokenizer),
                            ("html5lib-encoding", html5lib_encoding)):
        if category in wanted and shared is not None and (shared / "html5lib-tests").is_dir():
            cases = maker(shared)
            write_pages(out, category, cases, manifest)
            log(f"{category}: {len(cases)} pages")
    warcs = out / "warc"
    if "gzip-bomb" in wanted:
        write_gzip_bomb_warc(warcs / "gzip-bomb.warc.gz", scale)
        manifest.add("gzip-bomb", "warc", [str(warcs / "gzip-bomb.warc.gz")])
        log("gzip-bomb: written")
    if "truncated-warc" in wanted:
        folder = warcs / "truncated"
        folder.mkdir(exist_ok=True)
        names = write_truncated_warcs(folder)
        manifest.add("truncated-warc", "warc", [str(folder / n) for n in names])
        log(f"truncated-warc: {len(names)} files")
    if "non-html" in wanted:
        path = warcs / "non-html.warc.gz"
        write_warc(path, non_html_records())
        manifest.add("non-html", "warc", [str(path)])
    if "bad-jsonl" in wanted:
        path = out / "jsonl" / "bad-jsonl.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(bad_jsonl_lines(scale)) + b"\n\n")
        cut = out / "jsonl" / "bad-jsonl-cut.jsonl.gz"
        whole = gzip.compress(path.read_bytes())
        cut.write_bytes(whole[: len(whole) // 2])
        manifest.add("bad-jsonl", "jsonl", [str(path), str(cut)])
    (out / "manifest.json").write_text(json.dumps(
        {"scale": scale.__class__.__name__ if scale is FULL else "small",
         "sizes": {"mb": scale.mb, "million": scale.million, "bomb": scale.bomb,
                   "depth": scale.depth},
         "categories": manifest.categories}, indent=1) + "\n", "utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--small", action="store_true", help="small sizes, for a quick run")
    ap.add_argument("--shared", type=Path, default=SHARED,
                    help="the shared corpora, for the html5lib categories")
    ap.add_argument("--only", action="append", help="only this category (repeatable)")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    generate(args.out, SMALL if args.small else FULL, args.shared, args.only)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"adversarial set in {args.out}: {size / 1e6:.0f} MB on disk, "
          f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
