//! The structure group: furniture phrases, dates, distance from the first h1, URL shape,
//! and runs of alike siblings.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

use crate::page::blocks::PageBlocks;
use crate::text::{is_word, lower};

use super::columns::{C_SIB, C_STRUCT, N_FEATURES, SIBLING_LEVELS};
use super::containers::Tree;
use super::tables::DIGIT_RANGES;

/// Phrases and dates are looked for in a block's first characters.
const PHRASE_SPAN: usize = 400;

/// Python's `str.isdigit()` for one character.
fn py_isdigit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    crate::text::in_ranges(c, DIGIT_RANGES)
}

/// Phrases of page furniture (legal lines, calls to action, comment and share bars).
/// Matched on [`python_re_view`] text, where ASCII `\b` and `\d` are Python's.
fn boiler_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"(?-u)©|copyright|all rights reserved|privacy|terms of (use|service)|cookie",
            r"|subscribe|newsletter|sign (up|in)|log ?in\b|register|follow us|share (this|on)",
            r"|advertis|sponsored|related (articles|stories|posts|content)|read more|more from",
            r"|recommended|\bcomments?\b|\breply\b|posted (by|on|in)|filed under|\btags?:",
            r"|skip to|back to top|click here|you may also|trending|most (read|popular)",
            r"|\bmenu\b|\bhome\b"
        ))
        .expect("valid phrase pattern")
    })
}

/// Dates; matched on [`python_re_view`] text.
fn date_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"(?-u)\b(19|20)\d\d\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b",
            r"|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b"
        ))
        .expect("valid date pattern")
    })
}

/// `s` (lowercased) with every non-ASCII character but `©` (the one non-ASCII literal of
/// the patterns) replaced by an ASCII stand-in of its class under Python's `re`: `5` for a
/// decimal digit (`\d`; no pattern spells a 5), `_` for another word character (`\w`,
/// neither a digit nor in `[a-z]` nor in any literal) and `#` for the rest (in no
/// pattern). On the stand-ins the patterns' ASCII `\b` and `\d` are Python's Unicode ones
/// (the `regex` crate's Unicode `\w` would also count combining marks and connector
/// punctuation, and leave out numbers other than digits, where Python's does not), every
/// match starts and ends at the same characters, and the fast DFA search applies.
fn python_re_view(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        out.push(if c.is_ascii() || c == '©' {
            c
        } else if is_nd(c) {
            '5'
        } else if is_word(c) {
            '_'
        } else {
            '#'
        });
    }
    Cow::Owned(out)
}

fn is_nd(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory};
    get_general_category(c) == GeneralCategory::DecimalNumber
}

/// What `structure` reads of the page's blocks besides the `PageBlocks`.
pub(super) struct Page<'a> {
    pub(super) lowered: &'a [String],
    pub(super) n_chars: &'a [usize],
    pub(super) n_tok: &'a [f64],
    pub(super) link: &'a [f64],
    pub(super) tags: &'a [&'a str],
    pub(super) before: &'a [f64],
    pub(super) total_tok: f64,
}

/// Phrases, dates, distance from the first h1, URL shape, and runs of alike siblings (the
/// records of a forum thread, a product grid or a menu: same tag and class under one
/// parent).
pub(super) fn structure(pb: &PageBlocks, tree: &Tree, x: &mut [f64], page: &Page<'_>) {
    let nf = N_FEATURES;
    let n = pb.text.len();
    let Page {
        n_tok,
        link,
        tags,
        before,
        ..
    } = *page;
    let total_tok = page.total_tok.max(1.0);
    let boiler = boiler_re();
    let date = date_re();
    let h1 = tags.iter().position(|&t| t == "h1");
    let long_paras = (0..n)
        .filter(|&i| n_tok[i] >= 30.0 && link[i] < 0.2)
        .count();
    let log_long = (long_paras as f64).ln_1p();
    let url_shape = match pb.url.as_deref() {
        Some(url) if !url.is_empty() => {
            let path = crate::urls::url_path(url);
            let segments = path.split('/').filter(|p| !p.is_empty()).count();
            let digits = path.chars().filter(|&c| py_isdigit(c)).count();
            Some((segments as f64, digits as f64))
        }
        _ => None,
    };
    for i in 0..n {
        // `t[:400].lower()`: the lowered text itself when it is no longer (a longer one's
        // first characters lower on their own: a final sigma, a dotted capital I)
        let short;
        let head = if page.n_chars[i] <= PHRASE_SPAN {
            page.lowered[i].as_str()
        } else {
            let text = pb.text[i].as_str();
            let end = text
                .char_indices()
                .nth(PHRASE_SPAN)
                .map_or(text.len(), |(k, _)| k);
            short = lower(&text[..end]);
            short.as_str()
        };
        let head = python_re_view(head);
        let row = &mut x[i * nf..(i + 1) * nf];
        row[C_STRUCT] = boiler.find_iter(&head).count() as f64;
        row[C_STRUCT + 1] = if date.is_match(&head) { 1.0 } else { 0.0 };
        if let Some(h) = h1 {
            row[C_STRUCT + 2] = (before[i] - before[h]) / total_tok;
        }
        row[C_STRUCT + 3] = log_long;
        if let Some((segments, digits)) = url_shape {
            row[C_STRUCT + 4] = segments;
            row[C_STRUCT + 5] = digits;
        }
    }
    // alike siblings: same tag and class under one parent
    let m = pb.parent.len();
    // (keyed by the parent's index, u64::MAX for <body>'s none: one word to hash, where an
    // `Option` hashes its discriminant and its value)
    let mut ids: HashMap<(u64, &str), usize> = HashMap::with_capacity(m);
    let mut kind_id = Vec::with_capacity(m);
    for (&up, kind) in pb.parent.iter().zip(&pb.kinds) {
        let next = ids.len();
        let up = up.map_or(u64::MAX, |up| up.index() as u64);
        kind_id.push(*ids.entry((up, kind.as_str())).or_insert(next));
    }
    let k = ids.len();
    let mut count = vec![0.0f64; k];
    let mut mass = vec![0.0f64; k];
    let mut links = vec![0.0f64; k];
    let mut blocks = vec![0.0f64; k];
    for (&id, s) in kind_id.iter().zip(&tree.sub) {
        count[id] += 1.0;
        mass[id] += s[0];
        links[id] += s[1];
        blocks[id] += s[2];
    }
    let total = if m > 0 { tree.sub[0][0].max(1.0) } else { 1.0 };
    for i in 0..n {
        let row = &mut x[i * nf..(i + 1) * nf];
        for (j, &lvl) in SIBLING_LEVELS.iter().enumerate() {
            let Some(a) = tree.up(i, lvl) else {
                continue;
            };
            let id = kind_id[a];
            let c = C_SIB + 4 * j;
            row[c] = count[id].ln();
            row[c + 1] = mass[id] / total;
            row[c + 2] = blocks[id] / count[id];
            row[c + 3] = if mass[id] > 0.0 {
                links[id] / mass[id]
            } else {
                0.0
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_pythons_re() {
        // (text, _BOILER.findall count, _DATE.search) as Python 3.11's `re` gives them
        let cases = [
            ("comment\u{301} here", 1, 0),
            ("\u{b2}comment", 0, 0),
            ("x_comment", 0, 0),
            ("comment\u{203f}x", 1, 0),
            ("the comments: reply", 2, 0),
            ("\u{662}\u{660}\u{661}\u{669}", 0, 0),
            ("2\u{660}\u{661}\u{669}", 0, 0),
            (
                "\u{661}\u{662}/\u{660}\u{663}/\u{662}\u{660}\u{662}\u{660}",
                0,
                1,
            ),
            ("may 5", 0, 1),
            ("may\u{e9} 5", 0, 0),
            ("mayo 12, 2019", 0, 1),
            ("\u{a9} 2020 acme. all rights reserved", 2, 1),
            ("login\u{e9}", 0, 0),
            ("log in\u{b9}", 0, 0),
            ("menu\u{301}", 1, 0),
            ("\u{24b6}home", 1, 0),
            ("h\u{f6}me home\u{e4} home", 1, 0),
            ("tags:\u{e9}", 1, 0),
            ("1\u{bd}.3.2020", 0, 1),
            ("19\u{663}\u{663}", 0, 1),
        ];
        for (text, boiler, date) in cases {
            let view = python_re_view(text);
            assert_eq!(boiler_re().find_iter(&view).count(), boiler, "{text:?}");
            assert_eq!(usize::from(date_re().is_match(&view)), date, "{text:?}");
        }
    }

    #[test]
    fn python_digits() {
        assert!(py_isdigit('\u{b2}') && py_isdigit('\u{663}') && !py_isdigit('\u{bd}'));
    }
}
