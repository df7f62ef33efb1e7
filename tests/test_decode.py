"""Tests of sitesift.decode: encoding choice, binary rejection, saved HTTP headers."""

from __future__ import annotations

import codecs
import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitesift.decode import (
    Decoded,
    charset_from_content_type,
    decode_file,
    decode_html,
    split_http_response,
)
from sitesift.errors import InputError

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
SOURCES = {"bom", "http", "meta", "utf-8", "detected", "fallback"}

WESTERN = "“Smart quotes” – café, naïve, 50 €"  # cp1252 bytes 0x93 0x94 0x96 0x80 are not UTF-8
RU = (
    "Москва - столица России, крупнейший по численности населения город страны. "
    "Город расположен на реке Москве в центре Восточно-Европейской равнины. "
    "Здесь находятся органы государственной власти, многие музеи, театры и университеты."
)
JA = (
    "東京は日本の首都であり、世界でも有数の大都市です。多くの企業の本社があり、"
    "交通網もとても発達しています。春には桜が咲き、多くの人々が公園で花見を楽しみます。"
)
ZH = (
    "北京是中华人民共和国的首都，也是全国的政治和文化中心。这座城市有三千多年的历史，"
    "拥有许多著名的名胜古迹，例如故宫、长城和天坛。每年都有大量的游客来到这里参观学习。"
)
ZHT = (
    "北京是中華人民共和國的首都，也是全國的政治和文化中心。這座城市有三千多年的歷史，"
    "擁有許多著名的名勝古蹟，例如故宮、長城和天壇。每年都有大量的遊客來到這裡參觀學習。"
)
EL = (
    "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και μία από τις αρχαιότερες πόλεις του κόσμου. "
    "Η ιστορία της ξεκινά πριν από τρεις χιλιάδες χρόνια."
)


def page(body: str, head: str = "") -> str:
    return (
        f"<!DOCTYPE html><html><head>{head}<title>t</title></head><body><p>{body}</p></body></html>"
    )


# --- step 1: byte-order marks --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codec", "bom"),
    [
        pytest.param("utf-8", codecs.BOM_UTF8, id="utf-8"),
        pytest.param("utf-16-le", codecs.BOM_UTF16_LE, id="utf-16-le"),
        pytest.param("utf-16-be", codecs.BOM_UTF16_BE, id="utf-16-be"),
        pytest.param("utf-32-le", codecs.BOM_UTF32_LE, id="utf-32-le"),
        pytest.param("utf-32-be", codecs.BOM_UTF32_BE, id="utf-32-be"),
    ],
)
def test_bom_wins_over_wrong_header_and_meta(codec: str, bom: bytes) -> None:
    text = page(RU, head='<meta charset="iso-8859-2">')
    got = decode_html(bom + text.encode(codec), "text/html; charset=koi8-r")
    assert got == Decoded(text, codec.replace("-le", "le").replace("-be", "be"), "bom")


# --- step 2: HTTP Content-Type -------------------------------------------------------------------


def test_shift_jis_declared_in_http_header() -> None:
    text = page(JA)
    got = decode_html(text.encode("shift_jis"), "text/html; charset=Shift_JIS")
    assert got == Decoded(text, "shift_jis", "http")


def test_http_header_beats_meta() -> None:
    text = page(RU, head='<meta charset="koi8-r">')
    got = decode_html(text.encode("cp1251"), 'text/html; charset="windows-1251"')
    assert got == Decoded(text, "windows-1251", "http")


# --- step 3: <meta> prescan ----------------------------------------------------------------------

META_FORMS = [
    pytest.param('<meta charset="{}">', id="charset-double-quotes"),
    pytest.param("<meta charset='{}'>", id="charset-single-quotes"),
    pytest.param("<meta charset={}>", id="charset-unquoted"),
    pytest.param("<META CHARSET = ' {} ' />", id="upper-case-spaces-slash"),
    pytest.param(
        '<meta http-equiv="Content-Type" content="text/html; charset={}">', id="http-equiv"
    ),
    pytest.param(
        "<meta content='text/html;charset={}' http-equiv=content-type>", id="reverse-order"
    ),
    pytest.param('<meta name="viewport" content="width=1"><meta\ncharset="{}">', id="after-meta"),
]


@pytest.mark.parametrize("form", META_FORMS)
def test_meta_charset_cp1252_smart_quotes(form: str) -> None:
    text = page(WESTERN, head=form.format("Windows-1252"))
    assert decode_html(text.encode("cp1252")) == Decoded(text, "windows-1252", "meta")


@pytest.mark.parametrize("form", META_FORMS)
def test_meta_charset_cyrillic(form: str) -> None:
    # koi8-r and cp1251 bytes both decode; only the meta can make koi8-r right
    text = page(RU, head=form.format("KOI8-R"))
    assert decode_html(text.encode("koi8-r")) == Decoded(text, "koi8-r", "meta")


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        pytest.param(b'<!-- <meta charset="koi8-r"> -->', "utf-8", id="in-comment"),
        pytest.param(b'<p title="<meta charset=koi8-r>">', "utf-8", id="in-attribute-value"),
        pytest.param(
            b'<meta content="text/html; charset=koi8-r">', "utf-8", id="content-no-pragma"
        ),
        pytest.param(
            b'<meta http-equiv="Content-Type " content="charset=koi8-r">', "utf-8", id="bad-pragma"
        ),
        pytest.param(b'<meta charset="koi8-r', "utf-8", id="unterminated"),
        pytest.param(b"<metacharset=koi8-r>", "utf-8", id="no-space"),
        pytest.param(b'<meta charset="bogus"><meta charset="koi8-r">', "koi8-r", id="first-bogus"),
        pytest.param(b"<meta <meta charset='koi8-r'>", "koi8-r", id="nested-lt"),
        pytest.param(b'<script>x="<meta charset=koi8-r>"</script>', "koi8-r", id="in-script"),
        pytest.param(b"<!-->" + b'<meta charset="koi8-r">', "koi8-r", id="empty-comment"),
        pytest.param(b"<!--" + b"x" * 9000 + b'--><meta charset="koi8-r">', "utf-8", id="past-8k"),
    ],
)
def test_meta_prescan_follows_the_standard(html: bytes, expected: str) -> None:
    got = decode_html(html + b"<p>plain ascii</p>")
    assert (got.encoding, got.source) == (expected, "meta" if expected != "utf-8" else "utf-8")


@pytest.mark.parametrize("label", ["utf-16", "UTF-16LE", "utf-16be"])
def test_meta_utf16_on_ascii_bytes_means_utf8(label: str) -> None:
    text = page(WESTERN, head=f'<meta charset="{label}">')
    assert decode_html(text.encode("utf-8")) == Decoded(text, "utf-8", "meta")


# --- declared labels that are wrong, unknown or stale --------------------------------------------


def test_meta_that_lies_utf8_over_cp1252_bytes() -> None:
    text = page(WESTERN, head='<meta charset="utf-8">')
    got = decode_html(text.encode("cp1252"))
    assert got.text == text
    assert (got.encoding, got.source) in {("windows-1252", "detected"),
                                          ("windows-1252", "fallback")}


def test_meta_that_lies_shift_jis_over_utf8_bytes() -> None:
    text = page(JA, head='<meta charset="shift_jis">')
    assert decode_html(text.encode("utf-8")) == Decoded(text, "utf-8", "utf-8")


def test_stale_legacy_label_on_valid_utf8_gives_utf8() -> None:
    # a deliberate rule: non-ASCII bytes that are valid UTF-8 are UTF-8 whatever the label says
    text = page(
        WESTERN, head='<meta http-equiv="content-type" content="text/html; charset=iso-8859-1">'
    )
    assert decode_html(text.encode("utf-8")) == Decoded(text, "utf-8", "utf-8")


def test_declared_utf8_with_a_few_broken_bytes_stays_utf8() -> None:
    good = page(RU + " \x00X", head='<meta charset="utf-8">').encode("utf-8")
    got = decode_html(good.replace(b"\x00", b"\xff"))  # one stray byte in otherwise valid UTF-8
    assert (got.encoding, got.source) == ("utf-8", "meta")
    assert RU in got.text and "\ufffdX" in got.text


@pytest.mark.parametrize(
    ("content_type", "meta"),
    [
        pytest.param("text/html; charset=bogus", "", id="http-bogus"),
        pytest.param("text/html; charset=utf-7", "", id="http-utf-7"),
        pytest.param("text/html; charset=cp037", "", id="http-ebcdic"),
        pytest.param(None, '<meta charset="no-such-codec">', id="meta-bogus"),
        pytest.param(None, '<meta charset="base64">', id="meta-bytes-codec"),
        pytest.param(None, '<meta charset=utf-8">', id="meta-quote-in-label"),
    ],
)
def test_unknown_or_unusable_label_is_ignored(content_type: str | None, meta: str) -> None:
    text = page(RU, head=meta)
    assert decode_html(text.encode("utf-8"), content_type) == Decoded(text, "utf-8", "utf-8")


@pytest.mark.parametrize(
    ("value", "codec"),
    [
        pytest.param('text/html; charset="ISO-8859-1"', "windows-1252", id="latin-1-is-cp1252"),
        pytest.param("text/html; charset=us-ascii", "windows-1252", id="ascii-is-cp1252"),
        pytest.param("text/html;charset=UTF8", "utf-8", id="utf8"),
        pytest.param("text/html; Charset = 'Shift_JIS'", "shift_jis", id="shift-jis"),
        pytest.param("text/html; charset=x-sjis", "shift_jis", id="x-sjis"),
        pytest.param("text/html; charset=windows-31j", "shift_jis", id="windows-31j"),
        pytest.param("text/html; charset=gb2312", "gbk", id="gb2312"),
        pytest.param("text/html; charset=ks_c_5601-1987", "euc-kr", id="ks_c_5601"),
        pytest.param("text/html; charset=big5", "big5", id="big5"),
        pytest.param("text/html; charset=iso-8859-9", "windows-1254", id="latin-5"),
        pytest.param("text/html; charset=unicode", "utf-16le", id="unicode"),
        pytest.param("text/html; charset=x-user-defined", "windows-1252", id="x-user-defined"),
        pytest.param("text/html; charset=iso-2022-kr", None, id="replacement-is-ignored"),
        pytest.param("text/html; charset=x-mac-cyrillic", "x-mac-cyrillic", id="x-mac-cyrillic"),
        pytest.param("text/html", None, id="no-charset"),
        pytest.param('text/html; charset="utf-8', None, id="unmatched-quote"),
        pytest.param("text/html; charset=nonsense", None, id="unknown"),
        pytest.param("", None, id="empty"),
        pytest.param(None, None, id="none"),
    ],
)
def test_charset_from_content_type(value: str | None, codec: str | None) -> None:
    assert charset_from_content_type(value) == codec
    if codec is not None:  # the standard's names are labels of the same encoding
        assert charset_from_content_type(f"charset={codec}") == codec


# --- steps 4-6: UTF-8, detection, fallback -------------------------------------------------------


def test_undeclared_utf8() -> None:
    text = page(RU + JA + WESTERN)
    assert decode_html(text.encode("utf-8")) == Decoded(text, "utf-8", "utf-8")


@pytest.mark.parametrize(
    ("text", "codec", "expected"),
    [
        pytest.param(RU, "cp1251", "windows-1251", id="russian-cp1251"),
        # chardetng answers KOI8-U, whose decoder differs from KOI8-R's only in letters of
        # Ukrainian in place of box-drawing signs: the same Russian text
        pytest.param(RU, "koi8-r", "koi8-u", id="russian-koi8-r"),
        pytest.param(JA, "euc_jp", "euc-jp", id="japanese-euc-jp"),
        pytest.param(JA, "shift_jis", "shift_jis", id="japanese-shift-jis"),
        pytest.param(JA, "iso2022_jp", "iso-2022-jp", id="japanese-iso-2022-jp"),
        pytest.param(ZH, "gb2312", "gbk", id="chinese-gb2312"),
        pytest.param(ZHT, "big5", "big5", id="chinese-big5"),
        pytest.param(EL, "cp1253", "windows-1253", id="greek-cp1253"),
    ],
)
def test_undeclared_legacy_page_is_detected(text: str, codec: str, expected: str) -> None:
    html = page(text)
    assert decode_html(html.encode(codec)) == Decoded(html, expected, "detected")


def test_undeclared_western_page_with_few_accents_falls_back_to_cp1252() -> None:
    text = page(WESTERN)
    assert decode_html(text.encode("cp1252")) == Decoded(text, "windows-1252", "fallback")


def test_cp1252_holes_decode_like_browsers() -> None:
    # 0x81 0x8D 0x8F 0x90 0x9D are undefined in Python's cp1252; WHATWG maps them to C1 controls
    got = decode_html(b'<meta charset="windows-1252"><p>a\x81b\x9dc</p>')
    assert (got.text, got.encoding) == ('<meta charset="windows-1252"><p>a\x81b\x9dc</p>',
                                        "windows-1252")


# --- UTF-16 without a BOM, NUL bytes -------------------------------------------------------------


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("body", [pytest.param(WESTERN, id="latin"), pytest.param(JA, id="cjk")])
def test_utf16_without_bom_is_detected_not_rejected(codec: str, body: str) -> None:
    text = page(body)
    name = codec.replace("-le", "le").replace("-be", "be")  # the standard's: utf-16le
    assert decode_html(text.encode(codec)) == Decoded(text, name, "detected")


@pytest.mark.parametrize("codec", ["utf-8", "cp1252", "utf-16-le", "utf-16-be"])
def test_nul_characters_are_removed(codec: str) -> None:
    text = page(WESTERN, head='<meta charset="windows-1252">')
    got = decode_html(text.replace("café", "caf\x00é").encode(codec))
    assert got.text == text


# --- rejected input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"", "empty", id="empty"),
        pytest.param(b" \t\r\n\x0c ", "empty", id="whitespace"),
        pytest.param(
            codecs.BOM_UTF16_LE + "  \n".encode("utf-16-le"), "empty", id="bom-whitespace"
        ),
        pytest.param(b"\x00" * 3, "binary", id="nuls"),
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(100), "PNG", id="png"),
        pytest.param(gzip.compress(b"<html><p>hello</p></html>"), "gzip", id="gzip"),
        pytest.param(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF", id="pdf"),
        pytest.param(bytes(range(32)) * 20 + b"<html>", "control bytes", id="control-bytes"),
    ],
)
def test_input_errors(data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        decode_html(data)


def test_too_large_input_raises() -> None:
    with pytest.raises(InputError, match="too large"):
        decode_html(b"<p>" + b"x" * 100 + b"</p>", max_bytes=50)
    assert decode_html(b"<p>x</p>", max_bytes=8).text == "<p>x</p>"


# --- saved HTTP responses ------------------------------------------------------------------------

WEBKB_PAGE = (
    b"MIME-Version: 1.0\r\nServer: CERN/3.0\r\nDate: Sunday, 01-Dec-96 20:19:49 GMT\r\n"
    b"Content-Type: text/html\r\nContent-Length: 1234\r\n"
    b"Last-Modified: Friday, 15-Nov-96 20:56:11 GMT\r\n\r\n<html><title>CS 414</title>\r\n"
)


@pytest.mark.parametrize(
    ("data", "headers", "body"),
    [
        pytest.param(
            WEBKB_PAGE,
            {
                "mime-version": "1.0",
                "server": "CERN/3.0",
                "date": "Sunday, 01-Dec-96 20:19:49 GMT",
                "content-type": "text/html",
                "content-length": "1234",
                "last-modified": "Friday, 15-Nov-96 20:56:11 GMT",
            },
            b"<html><title>CS 414</title>\r\n",
            id="webkb",
        ),
        pytest.param(
            b"WWW Alert:  Redirection response from server is not handled by this client\n"
            b"Date: Sun, 31 Aug 1997 00:14:25 GMT\r\nServer: NCSA/1.5.2\r\n"
            b"Location: http://HARLIE.ee.cornell.edu/mems/\r\nContent-type: text/html\r\n\r\n"
            b"<HEAD><TITLE>Document moved</TITLE></HEAD>",
            {
                "date": "Sun, 31 Aug 1997 00:14:25 GMT",
                "server": "NCSA/1.5.2",
                "location": "http://HARLIE.ee.cornell.edu/mems/",
                "content-type": "text/html",
            },
            b"<HEAD><TITLE>Document moved</TITLE></HEAD>",
            id="www-alert",
        ),
        pytest.param(
            b"HTTP/1.1 200 OK\nX-Custom: a\n  b\nContent-Type: text/html; charset=koi8-r\n\n<p>x",
            {"x-custom": "a b", "content-type": "text/html; charset=koi8-r"},
            b"<p>x",
            id="status-line-lf-folded",
        ),
        pytest.param(
            b"Date: Mcp: No match.\n96 00:28:41 GMT\r\nContent-Type: text/html\r\n\r\n<p>x",
            {"date": "Mcp: No match.", "content-type": "text/html"},
            b"<p>x",
            id="webkb-noise-line",
        ),
        pytest.param(b"<html><p>Date: today</p>", {}, b"<html><p>Date: today</p>", id="html"),
        pytest.param(b"Note: hi\n\n<p>x", {}, b"Note: hi\n\n<p>x", id="not-a-response-field"),
        pytest.param(b"Server: x\r\n<p>x", {}, b"Server: x\r\n<p>x", id="no-blank-line"),
    ],
)
def test_split_http_response(data: bytes, headers: dict[str, str], body: bytes) -> None:
    assert split_http_response(data) == (headers, body)


def test_decode_file_gunzips_and_strips_saved_header(tmp_path: Path) -> None:
    raw = b"Content-Type: text/html; charset=koi8-r\r\n\r\n" + page(RU).encode("koi8-r")
    (tmp_path / "a.html.gz").write_bytes(gzip.compress(raw))
    (tmp_path / "b.html").write_bytes(raw)
    for name in ("a.html.gz", "b.html"):
        assert decode_file(tmp_path / name) == Decoded(page(RU), "koi8-r", "http")


def test_decode_file_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.html.gz").write_bytes(gzip.compress(b"<p>hello</p>" * 50)[:-12])
    (tmp_path / "bomb.html.gz").write_bytes(gzip.compress(b"<p>" + b" " * 100_000))
    with pytest.raises(InputError, match="cannot read"):
        decode_file(tmp_path / "bad.html.gz")
    with pytest.raises(InputError, match="cannot read"):
        decode_file(tmp_path / "missing.html")
    with pytest.raises(InputError, match="too large"):
        decode_file(tmp_path / "bomb.html.gz", max_bytes=1000)


# --- properties ----------------------------------------------------------------------------------

FRAGMENTS = [
    b"<meta charset=",
    b"<meta http-equiv=content-type content='text/html;charset=",
    b"utf-16",
    b"utf-8",
    b"shift_jis",
    b"gb2312",
    b"x-user-defined",
    b"bogus",
    b'"',
    b"'",
    b">",
    b"<!--",
    b"-->",
    b"\xff\xfe",
    b"\xfe\xff",
    b"\xef\xbb\xbf",
    b"\x00",
    b"\x1b$B",
    b"\xe9",
    b"\x93",
    b"\xc3\xa9",
    b"\x82\xa0",
    b"\xed\xa0\x80",
    b"<p>text</p>",
    b"HTTP/1.0 200 OK\r\n",
    b"Content-Type: text/html\r\n\r\n",
]
page_bytes = st.one_of(
    st.binary(max_size=3000),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.binary(max_size=8)), max_size=60).map(
        b"".join
    ),
)
content_types = st.one_of(
    st.none(),
    st.text(max_size=40),
    st.sampled_from(["utf-16", "shift_jis", "utf-8", "latin1", "x-user-defined"]).map(
        lambda label: f"text/html; charset={label}"
    ),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=page_bytes, content_type=content_types)
def test_any_bytes_decode_to_clean_text_or_input_error(
    data: bytes, content_type: str | None
) -> None:
    try:
        got = decode_html(data, content_type)
    except InputError:
        return
    assert isinstance(got.text, str) and got.text and not got.text.isspace()
    assert "\x00" not in got.text
    got.text.encode("utf-8")  # no lone surrogates
    assert got.source in SOURCES
    assert got.encoding == got.encoding.lower()  # the standard's names (and UTF-32)
    assert got.encoding.startswith("utf-32") or charset_from_content_type(
        f"charset={got.encoding}") == got.encoding


@settings(max_examples=200, deadline=None)
@given(data=page_bytes)
def test_split_http_response_returns_a_suffix(data: bytes) -> None:
    headers, body = split_http_response(data)
    assert data.endswith(body)
    assert all(name == name.lower() for name in headers)
    if body == data:
        assert headers == {}


# --- real corpora (skipped when shared/datasets is absent) ---------------------------------------

ENCODING_TESTS = DATASETS / "html5lib-tests" / "encoding"


def _encoding_cases(folder: Path) -> Iterator[tuple[str, bytes, str]]:
    """(file, bytes, expected label) from html5lib's `#data` / `#encoding` .dat files."""
    for path in sorted(folder.rglob("*.dat")):
        for chunk in path.read_bytes().split(b"#data\n")[1:]:
            data, sep, rest = chunk.partition(b"\n#encoding\n")
            if sep:
                yield path.relative_to(folder).as_posix(), data, rest.split(b"\n", 1)[0].decode()


@pytest.mark.skipif(
    not ENCODING_TESTS.is_dir(), reason=f"html5lib encoding tests not at {ENCODING_TESTS}"
)
def test_html5lib_encoding_agreement() -> None:
    cases = list(_encoding_cases(ENCODING_TESTS))
    misses = []
    for name, data, label in cases:
        expected = charset_from_content_type(f"charset={label}")  # WHATWG label -> its name
        got = decode_html(data).encoding
        # The standard defaults to windows-1252 where we try UTF-8 first; on ASCII-only bytes
        # both decode identically, so that answer agrees.
        if got != expected and not (expected == "windows-1252" and got == "utf-8"
                                    and data.isascii()):
            misses.append((name, data[:60], label, got))
    rate = 1 - len(misses) / len(cases)
    print(f"html5lib encoding agreement: {len(cases) - len(misses)}/{len(cases)} = {rate:.3f}")
    # Measured 80/83. The 3 misses: a meta written by document.write (needs a script engine),
    # a meta after 8 KiB (past our prescan window), and an euc-jp label on bytes that are UTF-8
    # (the .dat file is stored as UTF-8; we take valid UTF-8 over a failing legacy label).
    assert len(cases) >= 80 and rate >= 0.96, misses


WEBKB = DATASETS / "webkb"


@pytest.mark.skipif(not (WEBKB / "index.jsonl").is_file(), reason=f"WebKB corpus not at {WEBKB}")
def test_webkb_saved_headers_match_index() -> None:
    rows = [
        json.loads(line)
        for line in (WEBKB / "index.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    wrong = []
    for row in rows:
        data = gzip.decompress((WEBKB / "pages" / f"{row['id']}.html.gz").read_bytes())
        headers, body = split_http_response(data)
        if len(data) - len(body) != (row.get("body_offset") or 0) or headers.get(
            "content-type"
        ) != row.get("http_content_type"):
            wrong.append(row["id"])
    assert len(rows) > 8000 and wrong == []


# --- the page the core decoded -------------------------------------------------------------------


def test_default_cleaner_reads_the_cores_text_without_a_python_copy() -> None:
    from sitesift import get_cleaner
    from sitesift.page import Page

    html = page("Москва " * 40 + "and a sentence of an article that is long enough to keep.")
    p = Page.from_bytes(html.encode("koi8-r"), content_type="text/html; charset=koi8-r")
    result = get_cleaner("default").clean(p)
    assert "Москва" in result.text and p.encoding == "koi8-r"
    assert p._html is None  # the text stayed the core's: no str was made of the page
    assert p.html == html and p.chars == len(html)  # made when asked for


def test_a_decoded_page_pickles_as_its_text() -> None:
    import pickle

    from sitesift.page import Page

    p = Page.from_bytes(b"<title>cut<p>caf\xe9", url="http://a.example/x")
    back = pickle.loads(pickle.dumps(p))
    assert (back.html, back.url, back.encoding, back.cut_title) == (
        "<title>cut</title><p>café", "http://a.example/x", "windows-1252", True)
