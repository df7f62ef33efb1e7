//! The addresses a rendering keeps (`href`, `src`): read as a browser reads them, resolved
//! against the page's base, kept only when their scheme is allowed (`mod.rs` says how).
use std::sync::LazyLock;

use url::Url;

use super::escape::md_destination;
use super::Format;
use crate::text::is_space;

/// The address relative links of a page resolve against: its `<base href>` resolved
/// against its URL, else its URL; None where neither parses as an http or https address
/// (a `javascript:`, `data:` or `file:` base is no base).
pub(crate) fn base_url(url: Option<&str>, base_href: Option<&str>) -> Option<Url> {
    let web = |u: Url| BASE_SCHEMES.contains(&u.scheme()).then_some(u);
    let page = url
        .and_then(|u| Url::parse(u.trim_matches(is_space)).ok())
        .and_then(web);
    match base_href.map(|h| h.trim_matches(is_space)) {
        Some(h) if !h.is_empty() => match &page {
            Some(p) => p.join(h).ok().and_then(web).or(page),
            None => Url::parse(h).ok().and_then(web),
        },
        _ => page,
    }
}

/// The schemes a kept link may have: the web's, mail, and ftp (no browser runs an ftp
/// address, and an old page's download links keep their place). Any other scheme
/// (`javascript:`, `vbscript:`, `data:`, `file:`, an app's own) drops the link, its text kept.
pub(super) const LINK_SCHEMES: &[&str] = &["http", "https", "mailto", "ftp"];
/// The schemes a kept image may have: an image is fetched, from the web only (no `data:`
/// image: an inline placeholder is no address to keep, and `data:` carries documents too).
pub(super) const IMAGE_SCHEMES: &[&str] = &["http", "https"];
/// The schemes a page's base may have.
const BASE_SCHEMES: &[&str] = &["http", "https"];

/// Where a relative address without a base is checked: any relative reference resolves
/// against it to an https address, one that cannot be resolved (a bad host) fails.
static RELATIVE_PROBE: LazyLock<Url> =
    LazyLock::new(|| Url::parse("https://relative.invalid/").expect("a valid probe"));

/// `raw` as a browser reads it before parsing: C0 controls and spaces stripped at either
/// end, tabs and line breaks anywhere (the WHATWG URL parser's first steps), and, as
/// before, other white space at the ends.
fn browser_stripped(raw: &str) -> String {
    raw.trim_matches(|c: char| c <= ' ' || is_space(c))
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// Whether the first segment of a relative address (up to its first `/`, `?` or `#`) is
/// only unreserved characters (letters, digits, `-._~`): then no decoding of entities,
/// backslash escapes or percent escapes can make a scheme of it.
fn plain_segment(relative: &str) -> bool {
    let first = relative.split(['/', '?', '#']).next().unwrap_or("");
    first
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
}

/// The address `raw` (an `href` or `src` of the page) as it is safe to write: resolved
/// against `base` where there is one, kept only when its scheme is one of `schemes`. None:
/// empty, unparsable, or of another scheme. Without a base a relative address stays
/// relative (as the browser will read it: `browser_stripped`); in markdown it is led by
/// `./` unless its first segment is plain (`plain_segment`), so that no markdown
/// renderer's decoding of entities or escapes in it can make a scheme of it.
pub(super) fn safe_address(
    raw: &str,
    base: Option<&Url>,
    schemes: &[&str],
    fmt: Format,
) -> Option<String> {
    let raw = browser_stripped(raw);
    if raw.is_empty() {
        return None;
    }
    let parsed = match base {
        Some(base) => base.join(&raw),
        None => Url::parse(&raw),
    };
    let written = match parsed {
        Ok(url) => {
            if !schemes.contains(&url.scheme()) {
                return None;
            }
            String::from(url)
        }
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            if RELATIVE_PROBE.join(&raw).is_err() {
                return None;
            }
            if fmt == Format::Markdown && !plain_segment(&raw) {
                format!("./{raw}")
            } else {
                raw
            }
        }
        Err(_) => return None,
    };
    Some(match fmt {
        Format::Markdown => md_destination(&written),
        _ => written,
    })
}
