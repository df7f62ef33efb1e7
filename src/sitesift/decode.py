"""Turn page bytes into text: pick the encoding as a browser would, then decode.

Decision order of `decode_html` (first hit wins; `Decoded.source` names it):

1. ``bom``: a UTF-8/16/32 byte-order mark beats everything (HTML standard). UTF-16/32 without a
   BOM (NULs in fixed lanes of ASCII-range markup) is recognised right after, as ``detected``.
2. ``http``: the charset of `content_type` (an HTTP Content-Type value).
3. ``meta``: ``<meta charset>`` or ``<meta http-equiv=content-type content=..charset=..>`` found
   by the standard's prescan (comments, other tags and quoted values skipped) in the first 8 KiB.
4. ``utf-8``: the bytes are UTF-8; also when a minority of sequences is broken (cut or pasted-in
   bytes), which then become U+FFFD.
5. ``detected``: charset-normalizer on at most 64 KiB, limited to the web's legacy encodings, given
   at least 16 non-ASCII bytes; cp1252 wins its ties. 7-bit ISO-2022-JP is recognised before 4.
6. ``fallback``: windows-1252, the standard's default for unlabelled pages.

Labels are mapped as the WHATWG Encoding standard says (iso-8859-1/us-ascii -> cp1252, gb2312 ->
gb18030, shift_jis -> cp932, euc-kr -> cp949, big5 -> big5hkscs, ...). A label Python cannot
decode page text with is ignored. A declared encoding the bytes are invalid in yields to steps 4-5
and is used with U+FFFD replacements only if they find nothing. One deliberate exception to the
order: non-ASCII bytes that are valid UTF-8 are decoded as UTF-8 even under a legacy label (stale
labels are common; legacy text is practically never valid UTF-8). Empty, oversized and binary
input raise `InputError`.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from sitesift.errors import InputError
from sitesift.reading import MAX_PAGE_BYTES, gzipped, read_bounded


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str  # the decoded page, BOM stripped, NUL characters removed
    encoding: str  # canonical Python codec name actually used: "utf-8", "cp1252", "cp932", ...
    source: str  # "bom" | "http" | "meta" | "utf-8" | "detected" | "fallback"


_MAX_BYTES = MAX_PAGE_BYTES
_META_WINDOW = 8 * 1024  # the standard prescans 1 KiB, then still obeys metas the parser meets
_SNIFF_WINDOW = 4 * 1024
_DETECT_SAMPLE = 64 * 1024  # charset-normalizer gets slow on large inputs
_MIN_EVIDENCE = 16  # non-ASCII bytes below which a statistical guess loses to cp1252
_ASCII = bytes(range(128))
# The detector may only answer the web's legacy encodings: unrestricted, it picks DOS and Mac
# code pages (cp775, cp1125, mac_iceland) for plain Western pages.
_DETECTABLE = (
    "cp1252 cp1250 cp1251 cp1253 cp1254 cp1255 cp1256 cp1257 cp1258 cp874 iso8859_2 iso8859_5 "
    "iso8859_7 iso8859_8 iso8859_15 koi8_r koi8_u cp866 gb18030 big5 euc_jp cp932 cp949"
).split()

# WHATWG labels that codecs.lookup does not know; the others it resolves itself.
_ALIASES = {
    label: codec
    for codec, labels in {
        "utf-8": "unicode-1-1-utf-8",
        "iso8859-6": "csiso88596e csiso88596i iso-8859-6-e iso-8859-6-i",
        "iso8859-7": "sun_eu_greek",
        "iso8859-8": "csiso88598e csiso88598i iso-8859-8-e iso-8859-8-i logical visual",
        "iso8859-15": "csisolatin9",
        "koi8-r": "koi koi8",
        "koi8-u": "koi8-ru",
        "mac-roman": "csmacintosh mac x-mac-roman",
        "mac-cyrillic": "x-mac-cyrillic x-mac-ukrainian",
        "cp874": "dos-874",
        "gb18030": "csgb2312 gb_2312 gb_2312-80 x-gbk",
        "big5hkscs": "cn-big5 x-x-big5",
        "euc_jp": "cseucpkdfmtjapanese x-euc-jp",
        "cp932": "windows-31j x-sjis",
        "cp949": "cseuckr csksc56011987 iso-ir-149 ks_c_5601-1989 ksc_5601 windows-949",
        "utf-16-be": "unicodefffe",
        "utf-16-le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff",
        "cp1252": "x-user-defined",  # the standard's decoder differs in 0x80-0xFF only
    }.items()
    for label in labels.split()
}
_ALIASES |= {f"iso8859{n}": f"iso8859-{n}" for n in range(1, 17)}
_ALIASES |= {f"x-cp125{n}": f"cp125{n}" for n in range(9)}
# Python codec -> the superset the standard's decoder for that label really implements.
_REMAP = {
    "ascii": "cp1252", "iso8859-1": "cp1252", "iso8859-9": "cp1254", "iso8859-11": "cp874",
    "tis-620": "cp874", "gb2312": "gb18030", "gbk": "gb18030", "big5": "big5hkscs",
    "shift_jis": "cp932", "euc_kr": "cp949", "utf-16": "utf-16-le", "utf-8-sig": "utf-8",
}
_WIDE = frozenset({"utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"})
_NOT_PAGE_CODECS = frozenset({"idna", "punycode", "unicode-escape", "raw-unicode-escape", "utf-7"})
_PROBE = bytes(range(0x20, 0x7F)) + b"\t\n\r"
_LABEL = re.compile(r"[0-9a-z._:-]+")

_BOMS = (  # UTF-32 LE first: its BOM starts with UTF-16 LE's
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_MAGIC = (
    (b"\x89PNG", "a PNG image"), (b"GIF8", "a GIF image"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x1f\x8b", "gzip data (decompress it first)"), (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"), (b"\x7fELF", "an executable"), (b"\xd0\xcf\x11\xe0", "OLE"),
)
# C0 controls that text does not contain; ESC is spared because ISO-2022-JP is made of it.
_NOT_CONTROL = bytes(b for b in range(256) if b >= 0x20 or b in b"\t\n\x0c\r\x1b")
_CONTROL_CHAR = re.compile("[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")
_MAX_CONTROL_SHARE = 0.10

_WS = rb"\t\n\x0c\r "
_NAME = rb"[^" + _WS + rb"/>][^" + _WS + rb"/=>]*"
_VALUE = rb"\"[^\"]*\"?|'[^']*'?|[^" + _WS + rb">]*"  # an unclosed quote runs to the end


def _attr(name: bytes, value: bytes) -> bytes:
    """One attribute as the standard's prescan ("get an attribute") reads it."""
    return rb"[" + _WS + rb"/]*" + name + rb"[" + _WS + rb"]*(?:=[" + _WS + rb"]*" + value + rb")?"


_ATTR_RE = re.compile(_attr(b"(" + _NAME + b")", b"(" + _VALUE + b")"))
_ATTR = rb"(?>" + _attr(_NAME, b"(?:" + _VALUE + b")") + rb")*+"
_META = rb"(?i:<meta)[" + _WS + rb"/]"
# All up to the next <meta> in one C-level match: text, comments ("<!-->" closes one), <! </ <?
# constructs, and other tags with their attributes, whose quoted values may hide a "<meta".
# No ">" before the window ends means the prescan ran off the data: no match.
_PRESCAN = re.compile(
    rb"(?:[^<]++|(?!" + _META + rb")(?:<!(?=--).*?-->|<!--.*|</?[A-Za-z][^" + _WS + rb">]*+"
    + _ATTR + rb"|<[!/?][^>]*+|<))*+" + _META + rb"(?P<attrs>" + _ATTR + rb")[" + _WS + rb"/]*>",
    re.DOTALL,
)
_CHARSET_WORD = re.compile(r"charset[\t\n\x0c\r ]*", re.IGNORECASE)
_NON_BLANK = re.compile(rb"[^\t\n\x0b\x0c\r ]")

_HTTP_HEAD = re.compile(
    rb"(?:WWW Alert:[^\r\n]*\r?\n)?"  # WebKB's crawler noted redirects it did not follow here
    rb"(?P<status>HTTP/\d(?:\.\d)? +\d{3}[^\r\n]*\r?\n)?"
    # Lines with a colon before any "<": some WebKB headers have crawler noise spliced in
    # ("Date: Mcp: No match.\n96 00:28:41 GMT"); the first field is checked strictly below.
    rb"(?P<fields>(?:[^\r\n:<]*:[^\r\n]*\r?\n(?:[ \t][^\r\n]*\r?\n)*)+)\r?\n"
)
_FIELD = re.compile(
    rb"^([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:([^\r\n]*(?:\r?\n[ \t]+[^\r\n]*)*)", re.MULTILINE
)
# Without a status line the first field must be a response header, or "Note: x" text would do.
_RESPONSE_FIELDS = frozenset(
    b"mime-version server date content-type content-length last-modified location connection "
    b"expires cache-control pragma set-cookie etag accept-ranges content-encoding".split()
)


def _c1_passthrough(exc: UnicodeError) -> tuple[str, int]:
    # The standard's single-byte decoders map holes at 0x80-0x9F (0x81 in windows-1252, ...) to
    # the C1 control of that number, where Python's charmap codecs raise.
    if isinstance(exc, UnicodeDecodeError) and exc.encoding == "charmap":
        bad = exc.object[exc.start : exc.end]
        if all(0x80 <= b <= 0x9F for b in bad):
            return bad.decode("latin-1"), exc.end
    raise exc


codecs.register_error("sitesift.c1", _c1_passthrough)


@lru_cache(maxsize=512)
def _codec_for_label(label: str) -> str | None:
    """The Python codec for an encoding label; None if unknown or unfit for page text."""
    label = label.strip("\t\n\x0c\r ").lower()
    if _LABEL.fullmatch(label) is None:  # codecs.lookup would read 'utf-8"' as utf-8
        return None
    try:
        info = codecs.lookup(_ALIASES.get(label, label))
        name = _REMAP.get(info.name, info.name)
        if name in _WIDE:
            return name
        # Page text is ASCII-compatible: drops EBCDIC, bytes-to-bytes and escape codecs.
        usable = getattr(info, "_is_text_encoding", True) and name not in _NOT_PAGE_CODECS
        return name if usable and _PROBE.decode(name) == _PROBE.decode("ascii") else None
    except (LookupError, ValueError):  # UnicodeError is a ValueError
        return None


def _charset_in(value: str) -> str | None:
    """The label in a Content-Type value, per the standard's meta `content` algorithm."""
    for m in _CHARSET_WORD.finditer(value):
        if value[m.end() : m.end() + 1] != "=":
            continue
        rest = value[m.end() + 1 :].lstrip("\t\n\x0c\r ")
        if rest[:1] in ("'", '"'):
            end = rest.find(rest[0], 1)
            return rest[1:end] if end > 0 else None
        return re.split(r"[\t\n\x0c\r ;]", rest, maxsplit=1)[0] or None
    return None


def charset_from_content_type(value: str | None) -> str | None:
    """'text/html; charset="ISO-8859-1"' -> "cp1252"; None when absent or unknown."""
    label = _charset_in(value) if value else None
    return _codec_for_label(label) if label else None


def _meta_charset(attrs: bytes) -> str | None:
    """The standard's processing of one <meta>'s attributes (first of each name counts)."""
    seen: set[bytes] = set()
    got_pragma, need_pragma, charset, charset_set = False, None, None, False
    for m in _ATTR_RE.finditer(attrs):
        name, value = m[1].lower(), (m[2] or b"").lower()
        if name in seen:
            continue
        seen.add(name)
        value = value[1:-1] if value[:1] in (b'"', b"'") else value
        if name == b"http-equiv":
            got_pragma = got_pragma or value == b"content-type"
        elif name == b"content" and not charset_set:
            if (label := _charset_in(value.decode("latin-1"))) is not None:
                charset, charset_set, need_pragma = _codec_for_label(label), True, True
        elif name == b"charset":
            charset, charset_set = _codec_for_label(value.decode("latin-1")), True
            need_pragma = False
    if need_pragma is None or (need_pragma and not got_pragma) or charset is None:
        return None
    return "utf-8" if charset in _WIDE else charset  # ASCII bytes carrying the meta aren't UTF-16


def _prescan(data: bytes) -> str | None:
    window = data[:_META_WINDOW]
    lowered = window.lower()
    if b"<meta" not in lowered or b"charset" not in lowered:  # most pages end here, in C
        return None
    pos = 0
    while (m := _PRESCAN.match(window, pos)) is not None:
        attrs = m["attrs"]  # pages have many viewport/og: metas; skip those cheaply
        if b"charset" in attrs.lower() and (codec := _meta_charset(attrs)) is not None:
            return codec
        pos = m.end()
    return None


def _sniff_wide(head: bytes) -> str | None:
    """UTF-16/32 without a BOM: ASCII-range markup puts NULs in fixed byte lanes."""
    if head.count(0) * 8 < len(head):
        return None
    z = [head[i::4].count(0) / max(1, len(head[i::4])) for i in range(4)]
    odd, even = (z[1] + z[3]) / 2, (z[0] + z[2]) / 2
    for codec, looks in (
        ("utf-32-le", z[2] > 0.9 and z[3] > 0.9 and z[0] < 0.1),
        ("utf-32-be", z[0] > 0.9 and z[1] > 0.9 and z[3] < 0.1),
        ("utf-16-le", odd > 0.1 and even < odd / 8),
        ("utf-16-be", even > 0.1 and odd < even / 8),
    ):
        if looks:
            try:
                text = codecs.getincrementaldecoder(codec)().decode(head, final=False)
            except UnicodeDecodeError:
                return None
            controls = len(_CONTROL_CHAR.findall(text))
            return codec if text and controls <= _MAX_CONTROL_SHARE * len(text) else None
    return None


def _check_binary(head: bytes) -> None:
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise InputError(f"binary input, not a page: looks like {what}")
    controls = len(head.translate(None, _NOT_CONTROL))  # deletes all but the controls
    if controls > _MAX_CONTROL_SHARE * len(head):
        raise InputError(f"binary input, not a page: {controls} control bytes in {len(head)}")


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec, "sitesift.c1")
    except UnicodeDecodeError:
        return None


def _decode(data: bytes, codec: str) -> str | None:
    if (text := _strict(data, codec)) is not None or codec != "utf-8":
        return text
    # Mostly UTF-8 with a minority of broken sequences (cut, pasted-in bytes): still UTF-8.
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd")
    non_ascii = len(text) - len(data) + len(data.translate(None, _ASCII))  # ASCII maps 1:1
    return text if non_ascii - bad > bad else None


def _detect(data: bytes) -> str | None:
    sample = data[:_DETECT_SAMPLE]
    if len(sample.translate(None, _ASCII)) < _MIN_EVIDENCE:
        return None
    if len(data) > len(sample) and (cut := sample.rfind(b"\n")) > len(sample) // 2:
        sample = sample[:cut]  # don't end the sample inside a multi-byte character
    from charset_normalizer import from_bytes  # slow to import and rarely needed

    matches = from_bytes(sample, cp_isolation=_DETECTABLE)
    if (best := matches.best()) is None:
        return None
    # On Western pages cp1250/cp1257 often tie with cp1252, and charset-normalizer may rank
    # them first; the web's default wins ties.
    if any("cp1252" in m.could_be_from_charset and m.chaos <= best.chaos for m in matches):
        return "cp1252"
    return _codec_for_label(best.encoding)


def decode_html(
    data: bytes, content_type: str | None = None, *, max_bytes: int = _MAX_BYTES
) -> Decoded:
    """Decode page bytes to text; see the module docstring for the decision order."""
    if len(data) > max_bytes:
        raise InputError(f"input too large: {len(data)} bytes > max_bytes={max_bytes}")
    if _NON_BLANK.search(data) is None:
        raise InputError("empty input: nothing but whitespace")
    result = _choose(bytes(data), content_type)
    text = result.text
    # U+0000 comes only from a 0x00 byte in the ASCII-compatible codecs; bytes search faster.
    if (result.encoding in _WIDE or b"\x00" in data) and "\x00" in text:
        text = text.replace("\x00", "")
    if not text or text.isspace():
        raise InputError("empty input: the page decodes to whitespace only")
    return result if text is result.text else Decoded(text, result.encoding, result.source)


def _choose(data: bytes, content_type: str | None) -> Decoded:
    for bom, bom_codec in _BOMS:
        if data.startswith(bom):
            body = data[len(bom) :]
            decoded = _strict(body, bom_codec) or body.decode(bom_codec, "replace")
            return Decoded(decoded, bom_codec, "bom")
    head = data[:_SNIFF_WINDOW]
    if (wide := _sniff_wide(head)) is not None:
        return Decoded(_strict(data, wide) or data.decode(wide, "replace"), wide, "detected")
    _check_binary(head)
    ascii = data.isascii()
    # ISO-2022-JP is 7-bit and would pass as UTF-8; the one-byte search runs as a fast memchr.
    jis = ascii and b"\x1b" in data and b"\x1b$" in data
    steps: tuple[tuple[str, Callable[[], str | None]], ...] = (
        ("http", lambda: charset_from_content_type(content_type)),
        ("meta", lambda: _prescan(data)),
        ("detected", lambda: "iso2022_jp" if jis else None),
        ("utf-8", lambda: "utf-8"),
        ("detected", lambda: None if ascii else _detect(data)),
    )
    loose: tuple[str, str] | None = None  # the first declared/detected codec the bytes fail in
    tried: set[str] = set()
    for source, find in steps:
        codec = find()
        if codec is None or codec in _WIDE or codec in tried:  # UTF-16 labels on 8-bit bytes lie
            continue
        tried.add(codec)
        # Stale legacy labels on UTF-8 pages are common: in the shared corpora UTF-8 was right
        # on all 27 pages whose legacy label met valid non-ASCII UTF-8.
        stale = source in ("http", "meta") and codec != "utf-8" and not ascii
        if stale and (text := _strict(data, "utf-8")) is not None:
            return Decoded(text, "utf-8", "utf-8")
        if (text := _decode(data, codec)) is not None:
            return Decoded(text, codec, source)
        loose = loose or (None if codec == "utf-8" else (codec, source))
    if loose is not None:
        return Decoded(data.decode(loose[0], "replace"), *loose)
    return Decoded(data.decode("cp1252", "sitesift.c1"), "cp1252", "fallback")


def split_http_response(data: bytes) -> tuple[dict[str, str], bytes]:
    """Split a saved HTTP response header (as WebKB has) from the body; ({}, data) if none."""
    m = _HTTP_HEAD.match(data, 0, 64 * 1024)
    if m is None:
        return {}, data
    first = _FIELD.match(m["fields"])
    if m["status"] is None and (first is None or first[1].lower() not in _RESPONSE_FIELDS):
        return {}, data
    return header_fields(m["fields"]), data[m.end() :]


def header_fields(block: bytes) -> dict[str, str]:
    """The fields of an HTTP or WARC header block, as browsers read them: names lowercased,
    the first of repeated names kept, bare-LF or CRLF lines, folded lines unfolded, lines
    that are not fields ignored."""
    headers: dict[str, str] = {}
    for f in _FIELD.finditer(block):
        value = re.sub(rb"\r?\n[ \t]+", b" ", f[2]).strip()  # unfold continuation lines
        headers.setdefault(f[1].lower().decode("ascii"), value.decode("latin-1"))
    return headers


def decode_file(path: str | os.PathLike[str], *, max_bytes: int = _MAX_BYTES) -> Decoded:
    """Read a page file (gunzipping ``*.gz``, dropping a saved HTTP header) and decode it;
    InputError saying why not (the caller names the file)."""
    data = read_bounded(path, max_bytes, gunzip=gzipped(path))
    headers, body = split_http_response(data)
    return decode_html(body, headers.get("content-type"), max_bytes=max_bytes)
