//! What a page's text must pass before the parser gets it, and how it is fixed on the way:
//! not empty, not too long, no NUL characters, a `<title>` that is closed, and no shape the
//! parser takes quadratic time on (`nesting::too_deep`). One home for pages from bytes
//! (`decode`) and from text given by a caller.

use std::sync::OnceLock;

use regex::Regex;

use crate::read::nesting::{grouped, too_deep};
use crate::text::is_space;

/// The most characters a page may have (a page file holds at most 64 MiB of bytes).
const MAX_CHARS: usize = 32 * 1024 * 1024;

/// A page's text, ready for the parser.
#[derive(Debug)]
pub(crate) struct Checked {
    pub(crate) text: String,
    /// An unclosed `<title>` was closed: the title proper is its first line.
    pub(crate) cut_title: bool,
}

/// The text checked and fixed; the reason it is refused as the error.
pub(crate) fn check(mut text: String) -> Result<Checked, String> {
    if text.chars().all(is_space) {
        return Err("empty page".to_string());
    }
    if text.len() > MAX_CHARS {
        let chars = text.chars().count();
        if chars > MAX_CHARS {
            return Err(format!(
                "page of {} characters exceeds the limit of {}",
                grouped(chars as u64),
                grouped(MAX_CHARS as u64)
            ));
        }
    }
    if memchr::memchr(0, text.as_bytes()).is_some() {
        text.retain(|c| c != '\0');
    }
    let cut_title = close_title(&mut text);
    if let Some(reason) = too_deep(&text) {
        return Err(reason);
    }
    Ok(Checked { text, cut_title })
}

/// A `<title>` never closed swallows the rest of the document as its text (HTML5's RCDATA
/// rule), leaving an empty body; old pages cut or spliced by their crawler have this. It is
/// ended before the next tag (what ran on in it stays title text, not page text). Only
/// `</title` followed by a space, `/` or `>` closes one (`</titlevalue="true" -->`, a cut
/// template comment, does not). Whether it was.
fn close_title(html: &mut String) -> bool {
    static OPEN: OnceLock<Regex> = OnceLock::new();
    static CLOSE: OnceLock<Regex> = OnceLock::new();
    let open = OPEN.get_or_init(|| Regex::new(r"(?i)<title\b[^>]*>").expect("pattern"));
    let close = CLOSE.get_or_init(|| Regex::new(r"(?i)</title[\s/>]").expect("pattern"));
    let Some(start) = open.find(html) else {
        return false;
    };
    if close.is_match_at(html, start.end()) {
        return false;
    }
    let end = html[start.end()..]
        .find('<')
        .map_or(html.len(), |i| start.end() + i);
    html.insert_str(end, "</title>");
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unclosed_title_is_closed_before_the_next_tag() {
        let mut html = "<title>Home\nmore<p>body".to_string();
        assert!(close_title(&mut html));
        assert_eq!(html, "<title>Home\nmore</title><p>body");
        let mut closed = "<TITLE lang=en>x</title ><p>y".to_string();
        assert!(!close_title(&mut closed));
        let mut cut = "<title>x</titlevalue=\"true\" --><p>y".to_string();
        assert!(close_title(&mut cut));
        assert_eq!(cut, "<title>x</title></titlevalue=\"true\" --><p>y");
    }

    #[test]
    fn empty_nul_and_deep_pages() {
        assert_eq!(check(" \u{a0}\n".into()).unwrap_err(), "empty page");
        assert_eq!(check("<p>a\0b".into()).unwrap().text, "<p>ab");
        let deep = "<div>".repeat(6000);
        assert!(check(deep)
            .unwrap_err()
            .starts_with("elements nested 6,000 deep"));
    }
}
