//! Page bytes to text: the encoding picked as a browser picks it, then decoded.
//!
//! Decision order (first hit wins; `Source` names it):
//!
//! 1. `Bom`: a UTF-8/16/32 byte-order mark beats everything (HTML standard). UTF-16/32
//!    without a BOM (NULs in fixed lanes of ASCII-range markup) is recognised right after,
//!    as `Detected`. Then binary input (images, archives, control bytes) is refused.
//! 2. `Http`: the charset of the HTTP Content-Type value.
//! 3. `Meta`: `<meta charset>` or `<meta http-equiv=content-type content=..charset=..>`,
//!    found by the standard's prescan in the first 8 KiB (the standard's 1 KiB misses the
//!    late metas of pages with long heads; the parser would still obey them).
//! 4. `Utf8`: the bytes are UTF-8; also when a minority of sequences is broken (cut or
//!    pasted-in bytes), which become U+FFFD. 7-bit ISO-2022-JP is recognised just before.
//! 5. `Detected`: chardetng, Firefox's detector for unlabelled legacy pages, given at least
//!    16 non-ASCII bytes and the URL's top-level domain.
//! 6. `Fallback`: windows-1252, the standard's default for unlabelled pages.
//!
//! Labels and decoders are the WHATWG Encoding standard's (encoding_rs, Firefox's
//! implementation of it): iso-8859-1 and us-ascii are windows-1252, gb2312 is GBK, ... A
//! label that names no encoding, or the replacement encoding, is ignored; x-user-defined
//! is read as windows-1252, as the prescan says. A declared encoding the bytes are invalid
//! in yields to steps 4-5 and is used with U+FFFD replacements only if they find nothing.
//! One deliberate exception to the order: non-ASCII bytes that are valid UTF-8 are decoded
//! as UTF-8 even under a legacy label (stale labels are common; legacy text is practically
//! never valid UTF-8: in the shared corpora UTF-8 was right on all 27 pages whose legacy
//! label met valid non-ASCII UTF-8). UTF-32, which the standard dropped, is read where a
//! BOM or the NUL lanes say so.

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{
    DecoderResult, Encoding, ISO_2022_JP, REPLACEMENT, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252,
    X_USER_DEFINED,
};

use crate::text::is_space;

/// Where the encoding came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    Bom,
    Http,
    Meta,
    Utf8,
    Detected,
    Fallback,
}

impl Source {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Source::Bom => "bom",
            Source::Http => "http",
            Source::Meta => "meta",
            Source::Utf8 => "utf-8",
            Source::Detected => "detected",
            Source::Fallback => "fallback",
        }
    }
}

/// An encoding the page was read in: one of the standard's, or UTF-32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Charset {
    Web(&'static Encoding),
    Utf32Le,
    Utf32Be,
}

impl Charset {
    /// The standard's name, lower-cased ("utf-8", "windows-1252", "shift_jis"): a label
    /// every decoder of the standard knows, and Python's codecs mostly too.
    pub(crate) fn name(self) -> String {
        match self {
            Charset::Web(e) => e.name().to_ascii_lowercase(),
            Charset::Utf32Le => "utf-32le".to_string(),
            Charset::Utf32Be => "utf-32be".to_string(),
        }
    }

    /// Strictly: None where the bytes are not valid in it.
    fn strict<'a>(self, data: &'a [u8]) -> Option<Cow<'a, str>> {
        match self {
            Charset::Web(e) => e.decode_without_bom_handling_and_without_replacement(data),
            Charset::Utf32Le | Charset::Utf32Be => {
                let (text, bad) = utf32(data, self == Charset::Utf32Le);
                (!bad).then_some(Cow::Owned(text))
            }
        }
    }

    /// With U+FFFD for what is not valid.
    fn lossy<'a>(self, data: &'a [u8]) -> Cow<'a, str> {
        match self {
            Charset::Web(e) => e.decode_without_bom_handling(data).0,
            Charset::Utf32Le | Charset::Utf32Be => {
                Cow::Owned(utf32(data, self == Charset::Utf32Le).0)
            }
        }
    }
}

/// A page's text and how it was read.
#[derive(Debug)]
pub(crate) struct Decoded {
    /// BOM stripped, NUL characters removed.
    pub(crate) text: String,
    pub(crate) charset: Charset,
    pub(crate) source: Source,
}

const META_WINDOW: usize = 8 * 1024;
pub(crate) const SNIFF_WINDOW: usize = 4 * 1024;
const DETECT_SAMPLE: usize = 1024 * 1024; // chardetng reads a MiB in ~2 ms; more adds nothing
const MIN_EVIDENCE: usize = 16; // non-ASCII bytes below which a guess loses to windows-1252
                                // Distinct non-ASCII byte values below which they are a symbol repeated ("§§§§§" as a
                                // separator), not the letters of a language: chardetng reads a lone 0xA7 as Thai.
const MIN_DISTINCT: usize = 3;
const MAX_CONTROL_SHARE: f64 = 0.10;

const MAGIC: &[(&[u8], &str)] = &[
    (b"\x89PNG", "a PNG image"),
    (b"GIF8", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x1f\x8b", "gzip data (decompress it first)"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x7fELF", "an executable"),
    (b"\xd0\xcf\x11\xe0", "OLE"),
];

fn is_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// Decode page bytes; the reason it cannot (empty, too large, binary) as the error.
/// `tld` is the URL's top-level domain, lower-case ASCII (punycode), if known.
pub(crate) fn decode(
    data: &[u8],
    content_type: Option<&str>,
    tld: Option<&str>,
    max_bytes: usize,
) -> Result<Decoded, String> {
    if data.len() > max_bytes {
        return Err(format!(
            "input too large: {} bytes > max_bytes={max_bytes}",
            data.len()
        ));
    }
    if data.iter().all(|&b| is_ws(b) || b == b'\x0b') {
        return Err("empty input: nothing but whitespace".to_string());
    }
    let (text, charset, source) = choose(data, content_type, tld)?;
    let mut text = text.into_owned();
    if memchr::memchr(0, text.as_bytes()).is_some() {
        text.retain(|c| c != '\0');
    }
    if text.chars().all(is_space) {
        return Err("empty input: the page decodes to whitespace only".to_string());
    }
    Ok(Decoded {
        text,
        charset,
        source,
    })
}

type Chosen<'a> = (Cow<'a, str>, Charset, Source);

fn choose<'a>(
    data: &'a [u8],
    content_type: Option<&str>,
    tld: Option<&str>,
) -> Result<Chosen<'a>, String> {
    if let Some((charset, skip)) = bom(data) {
        let body = &data[skip..];
        let text = charset.strict(body).unwrap_or_else(|| charset.lossy(body));
        return Ok((text, charset, Source::Bom));
    }
    let head = &data[..data.len().min(SNIFF_WINDOW)];
    if let Some(wide) = sniff_wide(head) {
        let text = wide.strict(data).unwrap_or_else(|| wide.lossy(data));
        return Ok((text, wide, Source::Detected));
    }
    check_binary(head)?;
    let ascii = data.is_ascii();
    // ISO-2022-JP is 7-bit and would pass as UTF-8.
    let jis = ascii && memchr::memmem::find(data, b"\x1b$").is_some();
    let steps: [(Source, &dyn Fn() -> Option<Charset>); 5] = [
        (Source::Http, &|| {
            content_type.and_then(charset_from_content_type)
        }),
        (Source::Meta, &|| prescan(data)),
        (Source::Detected, &|| {
            jis.then_some(Charset::Web(ISO_2022_JP))
        }),
        (Source::Utf8, &|| Some(Charset::Web(UTF_8))),
        (Source::Detected, &|| {
            (!ascii).then(|| detect(data, tld)).flatten()
        }),
    ];
    let utf8 = Charset::Web(UTF_8);
    let mut loose: Option<(Charset, Source)> = None; // the first declared codec the bytes fail in
    let mut tried: Vec<Charset> = Vec::new();
    for (source, find) in steps {
        let Some(charset) = find() else { continue };
        // UTF-16 labels on 8-bit bytes lie (real UTF-16 was found above)
        if matches!(charset, Charset::Web(e) if e == UTF_16LE || e == UTF_16BE)
            || tried.contains(&charset)
        {
            continue;
        }
        tried.push(charset);
        let stale = matches!(source, Source::Http | Source::Meta) && charset != utf8 && !ascii;
        if stale {
            if let Some(text) = utf8.strict(data) {
                return Ok((text, utf8, Source::Utf8));
            }
        }
        if let Some(text) = mostly(data, charset) {
            return Ok((text, charset, source));
        }
        if loose.is_none() && charset != utf8 {
            loose = Some((charset, source));
        }
    }
    if let Some((charset, source)) = loose {
        return Ok((charset.lossy(data), charset, source));
    }
    let fallback = Charset::Web(WINDOWS_1252);
    Ok((fallback.lossy(data), fallback, Source::Fallback))
}

/// The bytes strictly in `charset`; for UTF-8 also when fewer sequences are broken than
/// whole (a cut or a pasted-in byte does not make a UTF-8 page legacy).
fn mostly(data: &[u8], charset: Charset) -> Option<Cow<'_, str>> {
    if let Some(text) = charset.strict(data) {
        return Some(text);
    }
    if charset != Charset::Web(UTF_8) {
        return None;
    }
    let text = charset.lossy(data);
    let bad = text.chars().filter(|&c| c == '\u{fffd}').count();
    let non_ascii = text.chars().filter(|c| !c.is_ascii()).count();
    (non_ascii - bad > bad).then_some(text)
}

fn bom(data: &[u8]) -> Option<(Charset, usize)> {
    // UTF-32 LE first: its BOM starts with UTF-16 LE's.
    if data.starts_with(b"\xff\xfe\x00\x00") {
        return Some((Charset::Utf32Le, 4));
    }
    if data.starts_with(b"\x00\x00\xfe\xff") {
        return Some((Charset::Utf32Be, 4));
    }
    Encoding::for_bom(data).map(|(e, n)| (Charset::Web(e), n))
}

/// UTF-32 by hand (the standard has no UTF-32 decoder); whether any unit was invalid.
fn utf32(data: &[u8], little: bool) -> (String, bool) {
    let mut bad = data.len() % 4 != 0;
    let mut text = String::with_capacity(data.len() / 4);
    for unit in data.chunks_exact(4) {
        let b = [unit[0], unit[1], unit[2], unit[3]];
        let n = if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        };
        text.push(char::from_u32(n).unwrap_or_else(|| {
            bad = true;
            '\u{fffd}'
        }));
    }
    if data.len() % 4 != 0 {
        text.push('\u{fffd}');
    }
    (text, bad)
}

/// UTF-16/32 without a BOM: ASCII-range markup puts NULs in fixed byte lanes.
fn sniff_wide(head: &[u8]) -> Option<Charset> {
    let zeros = head.iter().filter(|&&b| b == 0).count();
    if zeros * 8 < head.len() {
        return None;
    }
    let lane = |i: usize| {
        let lane: Vec<u8> = head.iter().skip(i).step_by(4).copied().collect();
        lane.iter().filter(|&&b| b == 0).count() as f64 / lane.len().max(1) as f64
    };
    let z = [lane(0), lane(1), lane(2), lane(3)];
    let (odd, even) = ((z[1] + z[3]) / 2.0, (z[0] + z[2]) / 2.0);
    let candidates = [
        (Charset::Utf32Le, z[2] > 0.9 && z[3] > 0.9 && z[0] < 0.1),
        (Charset::Utf32Be, z[0] > 0.9 && z[1] > 0.9 && z[3] < 0.1),
        (Charset::Web(UTF_16LE), odd > 0.1 && even < odd / 8.0),
        (Charset::Web(UTF_16BE), even > 0.1 && odd < even / 8.0),
    ];
    let (charset, _) = candidates.into_iter().find(|(_, looks)| *looks)?;
    let text = prefix_text(head, charset)?;
    let controls = text
        .chars()
        .filter(|&c| c < ' ' && !matches!(c, '\t' | '\n' | '\x0c' | '\r' | '\x1b'))
        .count();
    let chars = text.chars().count();
    (chars > 0 && controls as f64 <= MAX_CONTROL_SHARE * chars as f64).then_some(charset)
}

/// The text of a page's first bytes in a wide charset, a unit cut at the end forgiven;
/// None if they are not valid in it.
fn prefix_text(head: &[u8], charset: Charset) -> Option<String> {
    match charset {
        Charset::Web(e) => {
            let mut decoder = e.new_decoder_without_bom_handling();
            let room = decoder.max_utf8_buffer_length_without_replacement(head.len());
            let mut text = String::with_capacity(room.unwrap_or(head.len() * 3));
            let (result, _) = decoder.decode_to_string_without_replacement(head, &mut text, false);
            (result == DecoderResult::InputEmpty).then_some(text)
        }
        Charset::Utf32Le | Charset::Utf32Be => {
            let whole = &head[..head.len() - head.len() % 4];
            let (text, bad) = utf32(whole, charset == Charset::Utf32Le);
            (!bad).then_some(text)
        }
    }
}

/// Binary input refused by its first bytes (an image's or archive's signature, C0 control
/// bytes text does not hold), with the reason.
pub(crate) fn check_binary(head: &[u8]) -> Result<(), String> {
    for (magic, what) in MAGIC {
        if head.starts_with(magic) {
            return Err(format!("binary input, not a page: looks like {what}"));
        }
    }
    // C0 controls that text does not contain; ESC is spared: ISO-2022-JP is made of it.
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b'\x1b'))
        .count();
    if controls as f64 > MAX_CONTROL_SHARE * head.len() as f64 {
        return Err(format!(
            "binary input, not a page: {controls} control bytes in {}",
            head.len()
        ));
    }
    Ok(())
}

/// The encoding a label names, as page text may be decoded in: None for unknown labels
/// and for the replacement encoding (labels such as iso-2022-kr, which a browser would
/// show as one U+FFFD; a page is better read on by the next evidence).
fn charset_for_label(label: &[u8]) -> Option<Charset> {
    match Encoding::for_label(label)? {
        e if e == REPLACEMENT => None,
        e if e == X_USER_DEFINED => Some(Charset::Web(WINDOWS_1252)),
        e => Some(Charset::Web(e)),
    }
}

/// The charset a Content-Type value names ('text/html; charset="ISO-8859-1"' ->
/// windows-1252); None when absent or unknown.
pub(crate) fn charset_from_content_type(value: &str) -> Option<Charset> {
    charset_in(value.as_bytes()).and_then(charset_for_label)
}

/// The label in a Content-Type value, by the standard's "algorithm for extracting a
/// character encoding from a meta element".
fn charset_in(value: &[u8]) -> Option<&[u8]> {
    let lower = value.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&lower[from..], b"charset") {
        let mut i = from + at + b"charset".len();
        while i < value.len() && is_ws(value[i]) {
            i += 1;
        }
        if value.get(i) != Some(&b'=') {
            from = i;
            continue;
        }
        i += 1;
        while i < value.len() && is_ws(value[i]) {
            i += 1;
        }
        let rest = &value[i..];
        return match rest.first() {
            Some(&q @ (b'"' | b'\'')) => {
                let end = memchr::memchr(q, &rest[1..])?;
                Some(&rest[1..1 + end])
            }
            Some(_) => {
                let end = rest
                    .iter()
                    .position(|&b| is_ws(b) || b == b';')
                    .unwrap_or(rest.len());
                (end > 0).then(|| &rest[..end])
            }
            None => None,
        };
    }
    None
}

/// The standard's prescan of a byte stream for its encoding, over the first
/// `META_WINDOW` bytes; running off the window ends it with nothing.
fn prescan(data: &[u8]) -> Option<Charset> {
    let window = &data[..data.len().min(META_WINDOW)];
    // Most pages end here, in one pass: no "<meta" or no "charset" at all.
    let lower = window.to_ascii_lowercase();
    if memchr::memmem::find(&lower, b"<meta").is_none()
        || memchr::memmem::find(&lower, b"charset").is_none()
    {
        return None;
    }
    let w = window;
    let mut pos = 0;
    while pos < w.len() {
        let rest = &w[pos..];
        if rest.starts_with(b"<!--") {
            // at the ">" of the first "-->" after "<!" ("<!-->" closes the comment)
            pos += 2 + memchr::memmem::find(&rest[2..], b"-->")? + 2;
        } else if lower[pos..].starts_with(b"<meta")
            && rest.get(5).is_some_and(|&b| is_ws(b) || b == b'/')
        {
            pos += 5;
            if let Some(found) = meta_charset(w, &mut pos)? {
                return Some(found);
            }
        } else if rest.len() >= 2
            && rest[0] == b'<'
            && (rest[1].is_ascii_alphabetic()
                || (rest[1] == b'/' && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            pos += rest.iter().position(|&b| is_ws(b) || b == b'>')?;
            while attribute(w, &mut pos)?.is_some() {}
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            pos += memchr::memchr(b'>', rest)?;
        }
        pos += 1;
    }
    None
}

/// A `<meta>`'s attributes, read from `pos`, as the prescan processes them: its charset if
/// it declares one (Some(Some)), Some(None) if it does not, None if the window ran out.
fn meta_charset(w: &[u8], pos: &mut usize) -> Option<Option<Charset>> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let (mut got_pragma, mut need_pragma, mut charset) = (false, None, None);
    while let Some((name, value)) = attribute(w, pos)? {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value == b"content-type",
            b"content" if charset.is_none() => {
                if let Some(found) = charset_in(&value).and_then(charset_for_label) {
                    charset = Some(found);
                    need_pragma = Some(true);
                }
            }
            b"charset" if charset.is_none() => {
                charset = charset_for_label(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    let declared = match need_pragma {
        None => None,
        Some(true) if !got_pragma => None,
        Some(_) => charset,
    };
    // ASCII bytes carrying the meta are not UTF-16, whatever it says.
    Some(declared.map(|c| match c {
        Charset::Web(e) if e == UTF_16LE || e == UTF_16BE => Charset::Web(UTF_8),
        c => c,
    }))
}

/// The standard's "get an attribute": Some(Some((name, value))) lower-cased, Some(None) at
/// the tag's ">", None if the window ran out. `pos` is left after what was read.
#[allow(clippy::type_complexity)]
fn attribute(w: &[u8], pos: &mut usize) -> Option<Option<(Vec<u8>, Vec<u8>)>> {
    let at = |p: usize| w.get(p).copied();
    while is_ws(at(*pos)?) || at(*pos)? == b'/' {
        *pos += 1;
    }
    if at(*pos)? == b'>' {
        return Some(None);
    }
    let (mut name, mut value) = (Vec::new(), Vec::new());
    loop {
        let b = at(*pos)?;
        if b == b'=' && !name.is_empty() {
            *pos += 1;
            break;
        }
        if is_ws(b) {
            while is_ws(at(*pos)?) {
                *pos += 1;
            }
            if at(*pos)? != b'=' {
                return Some(Some((name, value)));
            }
            *pos += 1;
            break;
        }
        if b == b'/' || b == b'>' {
            return Some(Some((name, value)));
        }
        name.push(b.to_ascii_lowercase());
        *pos += 1;
    }
    while is_ws(at(*pos)?) {
        *pos += 1;
    }
    let b = at(*pos)?;
    if b == b'"' || b == b'\'' {
        loop {
            *pos += 1;
            let c = at(*pos)?;
            if c == b {
                *pos += 1;
                return Some(Some((name, value)));
            }
            value.push(c.to_ascii_lowercase());
        }
    }
    if b == b'>' {
        return Some(Some((name, value)));
    }
    loop {
        let c = at(*pos)?;
        if is_ws(c) || c == b'>' {
            return Some(Some((name, value)));
        }
        value.push(c.to_ascii_lowercase());
        *pos += 1;
    }
}

/// chardetng's guess for bytes that are neither labelled nor UTF-8, given enough evidence.
fn detect(data: &[u8], tld: Option<&str>) -> Option<Charset> {
    let sample = &data[..data.len().min(DETECT_SAMPLE)];
    let mut seen = [0usize; 128];
    for &b in sample.iter().filter(|&&b| b >= 0x80) {
        seen[usize::from(b - 0x80)] += 1;
    }
    let distinct = seen.iter().filter(|&&n| n > 0).count();
    if seen.iter().sum::<usize>() < MIN_EVIDENCE || distinct < MIN_DISTINCT {
        return None;
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(sample, sample.len() == data.len());
    // chardetng panics on a TLD with dots, upper case or non-ASCII: give only clean ones.
    let tld = tld.filter(|t| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    });
    Some(Charset::Web(
        detector.guess(tld.map(str::as_bytes), Utf8Detection::Deny),
    ))
}

/// The top-level domain of a page's URL as chardetng takes it (lower-case, punycode).
pub(crate) fn tld_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    match parsed.host()? {
        url::Host::Domain(host) => host
            .trim_end_matches('.')
            .rsplit('.')
            .next()
            .map(str::to_ascii_lowercase),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn got(data: &[u8], ct: Option<&str>) -> (String, String, &'static str) {
        let d = decode(data, ct, None, 1 << 26).unwrap();
        (d.text, d.charset.name(), d.source.name())
    }

    #[test]
    fn meta_after_a_comment_and_other_tags_is_found() {
        let page = b"<!-- <meta charset=koi8-r> --><link rel=x href='<meta charset=x'>\
                     <meta name=viewport content=x><meta http-equiv=Content-Type \
                     content='text/html; charset=windows-1251'><p>\xcf\xf0\xe8\xe2\xe5\xf2";
        assert_eq!(got(page, None).1, "windows-1251");
        assert_eq!(got(page, None).2, "meta");
    }

    #[test]
    fn content_charset_needs_the_pragma() {
        let page = b"<meta content='text/html; charset=windows-1251'><p>\xcf\xf0\xe8";
        assert_ne!(got(page, None).2, "meta");
    }

    #[test]
    fn a_legacy_label_on_utf8_bytes_is_stale() {
        let page = "<meta charset=iso-8859-1><p>café".as_bytes();
        assert_eq!(
            got(page, None),
            (
                "<meta charset=iso-8859-1><p>café".into(),
                "utf-8".into(),
                "utf-8"
            )
        );
    }

    #[test]
    fn http_label_wins_over_meta_and_iso_8859_1_is_windows_1252() {
        let page = b"<meta charset=koi8-r><p>caf\xe9 \x93q\x94";
        let (text, cs, src) = got(page, Some("text/html; charset=\"ISO-8859-1\""));
        assert_eq!((cs.as_str(), src), ("windows-1252", "http"));
        assert!(text.ends_with("café “q”"));
    }

    #[test]
    fn utf16_without_bom_and_utf32_with_one() {
        let le: Vec<u8> = "<html><p>hello wide world</p>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(got(&le, None).1, "utf-16le");
        let mut be32 = vec![0, 0, 0xfe, 0xff];
        be32.extend("<p>ü</p>".chars().flat_map(|c| (c as u32).to_be_bytes()));
        assert_eq!(
            got(&be32, None),
            ("<p>ü</p>".into(), "utf-32be".into(), "bom")
        );
    }

    #[test]
    fn binary_and_empty_input_are_refused() {
        assert!(decode(b"\x89PNG\r\n", None, None, 100)
            .unwrap_err()
            .contains("PNG"));
        assert!(decode(b" \n\t", None, None, 100)
            .unwrap_err()
            .starts_with("empty input"));
        assert!(decode(b"<p>x</p>", None, None, 3)
            .unwrap_err()
            .starts_with("input too large"));
    }

    #[test]
    fn mostly_utf8_with_a_broken_byte_stays_utf8() {
        let page = "<p>naïve café résumé \u{2014} ok</p>\u{a0}"
            .as_bytes()
            .iter()
            .copied()
            .chain(*b"\xff")
            .collect::<Vec<u8>>();
        let (text, cs, _) = got(&page, None);
        assert_eq!(cs, "utf-8");
        assert!(text.ends_with('\u{fffd}'));
    }

    #[test]
    fn unlabelled_cyrillic_is_detected() {
        let (text, _, _) = encoding_rs::WINDOWS_1251.encode(
            "<p>Привет, мир! Это страница на русском языке, без объявленной кодировки.</p>",
        );
        let (_, cs, src) = got(&text, None);
        assert_eq!((cs.as_str(), src), ("windows-1251", "detected"));
    }

    #[test]
    fn a_repeated_symbol_is_not_a_language() {
        let page = [&b"<p>Peace</p><p>"[..], &[0xa7; 20], b"</p><p>Pilgrim</p>"].concat();
        let (text, cs, src) = got(&page, None);
        assert_eq!((cs.as_str(), src), ("windows-1252", "fallback"));
        assert!(text.contains("§§§§"));
    }

    #[test]
    fn tld_from_url() {
        assert_eq!(
            tld_of("https://www.Example.CO.JP./a").as_deref(),
            Some("jp")
        );
        assert_eq!(tld_of("http://127.0.0.1/"), None);
        assert_eq!(tld_of("http://bücher.de/").as_deref(), Some("de"));
    }
}
