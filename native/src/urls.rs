//! URLs as the features read them: Python 3.11's `urllib.parse.urlsplit` (the network
//! location and path, refused where it raises), the host without user, port or `www.`, and
//! the archived URL of a Wayback Machine copy; and a host's registrable domain, the site a
//! crawl groups a page into.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

use crate::text::in_ranges;

/// Characters whose NFKC form holds one of `/?#@:` (urllib's `_checknetloc`, Unicode 14.0).
const NFKC_NETLOC_BAD: &[(u32, u32)] = &[
    (0x2047, 0x2049),
    (0x2100, 0x2101),
    (0x2105, 0x2106),
    (0x2A74, 0x2A74),
    (0xFE13, 0xFE13),
    (0xFE16, 0xFE16),
    (0xFE55, 0xFE56),
    (0xFE5F, 0xFE5F),
    (0xFE6B, 0xFE6B),
    (0xFF03, 0xFF03),
    (0xFF0F, 0xFF0F),
    (0xFF1A, 0xFF1A),
    (0xFF1F, 0xFF20),
];

fn wayback_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^/web/\d+[a-z_]*/(.*)$").expect("valid wayback pattern"))
}

/// The parts of a URL `urllib.parse.urlsplit` gives that the features use.
struct Split {
    netloc: String,
    path: String,
}

const SCHEME_CHARS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.";

/// Python 3.11's `urllib.parse.urlsplit` (netloc and path; Err where it raises ValueError).
fn urlsplit(url: &str) -> Result<Split, ()> {
    let url = url.trim_start_matches(|c: char| c <= ' ');
    let url: Cow<str> = if url.contains(['\t', '\r', '\n']) {
        Cow::Owned(
            url.chars()
                .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
                .collect(),
        )
    } else {
        Cow::Borrowed(url)
    };
    let mut rest: &str = &url;
    if let Some(i) = rest.find(':') {
        if i > 0
            && rest.starts_with(|c: char| c.is_ascii_alphabetic())
            && rest[..i].chars().all(|c| SCHEME_CHARS.contains(c))
        {
            rest = &rest[i + 1..];
        }
    }
    let mut netloc = "";
    if rest.starts_with("//") {
        let delim = rest[2..]
            .find(['/', '?', '#'])
            .map_or(rest.len(), |k| k + 2);
        netloc = &rest[2..delim];
        rest = &rest[delim..];
        let (open, close) = (netloc.contains('['), netloc.contains(']'));
        if open != close {
            return Err(());
        }
        if open {
            let host = netloc.split_once('[').map_or("", |x| x.1);
            let host = host.split_once(']').map_or(host, |x| x.0);
            check_bracketed_host(host)?;
        }
    }
    if let Some(k) = rest.find('#') {
        rest = &rest[..k];
    }
    if let Some(k) = rest.find('?') {
        rest = &rest[..k];
    }
    // `_checknetloc`: a character that NFKC turns into one of /?#@: is refused
    if !netloc.is_ascii()
        && netloc
            .chars()
            .any(|c| !matches!(c, '@' | ':' | '#' | '?') && in_ranges(c, NFKC_NETLOC_BAD))
    {
        return Err(());
    }
    Ok(Split {
        netloc: netloc.to_string(),
        path: rest.to_string(),
    })
}

/// `urllib.parse._check_bracketed_host`: an IPvFuture literal or an IPv6 address.
fn check_bracketed_host(host: &str) -> Result<(), ()> {
    if let Some(tail) = host.strip_prefix('v') {
        // \Av[a-fA-F0-9]+\..+\Z
        let hex = tail.bytes().take_while(|b| b.is_ascii_hexdigit()).count();
        let after = &tail[hex..];
        let ok = hex > 0 && after.starts_with('.') && after.len() > 1 && !after[1..].contains('\n');
        return if ok { Ok(()) } else { Err(()) };
    }
    // ipaddress.ip_address: an IPv4 address is refused in brackets, as is anything that
    // is not an IPv6 address (with an optional %scope)
    let addr = match host.split_once('%') {
        Some((_, scope)) if scope.is_empty() || scope.contains('%') => return Err(()),
        Some((a, _)) => a,
        None => host,
    };
    if addr.parse::<std::net::Ipv6Addr>().is_ok() {
        Ok(())
    } else {
        Err(())
    }
}

/// The path of a page's URL (of the archived URL for Wayback Machine copies).
pub(crate) fn url_path(url: &str) -> String {
    url_parts(url).map(|(_, path)| path).unwrap_or_default()
}

/// The host of an absolute URL (or a scheme-relative `//host/...` one), lowercased, without
/// user, port or a leading `www.`; `None` for a relative URL or one `urlsplit` refuses.
pub(crate) fn url_host(url: &str) -> Option<String> {
    let (netloc, _) = url_parts(url)?;
    let host = netloc.rsplit('@').next().unwrap_or("");
    let host = host.rsplit_once(':').map_or(host, |(h, port)| {
        if port.bytes().all(|b| b.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    let host = host.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    (!host.is_empty()).then(|| host.to_string())
}

/// The network location (host, maybe with user and port) and path of a page's URL, of the
/// archived URL for Wayback Machine copies; `None` where `urlsplit` raises.
pub(crate) fn url_parts(url: &str) -> Option<(String, String)> {
    let parts = urlsplit(url).ok()?;
    if parts.netloc.contains("archive.org") {
        if let Some(cap) = wayback_re().captures(&parts.path) {
            let inner = cap.get(1).map_or("", |g| g.as_str());
            let target: Cow<str> = if inner.contains("//") {
                Cow::Borrowed(inner)
            } else {
                Cow::Owned(format!("http://{inner}"))
            };
            return Some(
                urlsplit(&target)
                    .map_or_else(|()| (String::new(), String::new()), |p| (p.netloc, p.path)),
            );
        }
    }
    Some((parts.netloc, parts.path))
}

/// The registrable domain of `host` (a lower-case host name, as `urlsplit` gives it): its
/// public suffix and one label more, the Public Suffix List's private section included, so
/// that each blog of a platform (`name.blogspot.com`) is a site of its own; an unlisted
/// top-level domain is a suffix (the list's `*` rule). None where the host has none: a bare
/// suffix (`co.uk`, `localhost`), or a name with an empty label (`a..b.com`). The list is the `psl` crate's, compiled in: nothing to
/// parse when a process starts (`sitesift.jobs.grouping` once parsed the whole list in
/// Python in every process that grouped pages, 0.23 s each).
pub(crate) fn registrable_domain(host: &str) -> Option<&str> {
    // (a name with an empty label is no domain name: the list has no say in it)
    if host.split('.').any(str::is_empty) {
        return None;
    }
    psl::domain_str(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_paths_follow_urlsplit_and_wayback() {
        // (url, url_path) as the Python gives them
        let cases = [
            ("https://web.archive.org/web/20051230052639/http://arstechnica.com/a/b1/c2.html?x=1#f",
             "/a/b1/c2.html"),
            ("http://web.archive.org/web/2005id_/example.com/x/9/", "/x/9/"),
            ("https://web.archive.org/web/2005/https://www.x.org/", "/"),
            ("http://[::1]/a/b", "/a/b"),
            ("http://[1.2.3.4]/a", ""),
            ("http://[v1.x]/p/q", "/p/q"),
            ("http://ex\u{ff0f}ample.com/p", ""),
            ("http://a.com]/p", ""),
            (" \thttp://a.com/p\n/q", "/p/q"),
            ("mailto:x@y", "x@y"),
            ("//host/only/path", "/only/path"),
            ("a.com/b/c", "a.com/b/c"),
            ("http://archive.org/web/123/", ""),
            ("http://archive.org/web/123/x//y/3", "x//y/3"),
            ("http://web.archive.org/web/20010203/[::1]/z", "/z"),
        ];
        for (url, path) in cases {
            assert_eq!(url_path(url), path, "{url:?}");
        }
    }

    #[test]
    fn a_host_registrable_domain_follows_the_public_suffix_list() {
        let cases = [
            ("news.bbc.co.uk", Some("bbc.co.uk")),
            ("example.com", Some("example.com")),
            ("a.b.example.com", Some("example.com")),
            // the private section: each blog of a platform is its own site
            ("alice.blogspot.com", Some("alice.blogspot.com")),
            ("x.alice.github.io", Some("alice.github.io")),
            // a wildcard rule and its exception
            ("a.b.kawasaki.jp", Some("a.b.kawasaki.jp")),
            ("city.kawasaki.jp", Some("city.kawasaki.jp")),
            // an unlisted top-level domain is a suffix
            ("shop.example.unlistedtld", Some("example.unlistedtld")),
            // a bare suffix has none
            ("co.uk", None),
            ("com", None),
            ("localhost", None),
            ("a..b.com", None),
            ("", None),
        ];
        for (host, want) in cases {
            assert_eq!(registrable_domain(host), want, "{host}");
        }
    }
}
