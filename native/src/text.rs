//! Python's string semantics, character by character, so that the native features count
//! exactly what `str.split()`, `str.lower()`, `re.findall(r"\w+")` and `str.isupper()` count
//! in the training code and the metrics.

use unicode_general_category::{get_general_category, GeneralCategory as G};

/// Python's `str.isspace()` for one character: Unicode White_Space plus the four
/// information separators (U+001C..U+001F), which Python treats as whitespace.
#[inline]
pub(crate) fn is_space(c: char) -> bool {
    if c.is_ascii() {
        return matches!(
            c,
            ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r' | '\x1c'..='\x1f'
        );
    }
    c.is_whitespace()
}

/// Python's `\w` for `str` patterns: letters (L*), numbers (Nd, Nl, No) and `_`. Unlike
/// Rust's `\w`, combining marks are not word characters in Python.
#[inline]
pub(crate) fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::DecimalNumber
            | G::LetterNumber
            | G::OtherNumber
    )
}

/// Python's `str.isupper()` for one character (the Uppercase property).
#[inline]
pub(crate) fn char_is_upper(c: char) -> bool {
    c.is_uppercase()
}

#[inline]
fn is_title(c: char) -> bool {
    !c.is_ascii() && get_general_category(c) == G::TitlecaseLetter
}

/// Python's `str.isupper()`: at least one cased character and no lowercase or titlecase one.
pub(crate) fn is_upper(s: &str) -> bool {
    let mut cased = false;
    for c in s.chars() {
        if c.is_lowercase() || is_title(c) {
            return false;
        }
        if c.is_uppercase() {
            cased = true;
        }
    }
    cased
}

/// `a`, `sep` and `b` in one string, as `format!("{a}{sep}{b}")` gives it without the
/// formatting machinery: the walk and the record rules make one per element, and
/// `format!` took about 700 instructions each under callgrind (docs/lab/native.md).
pub(crate) fn joined(a: &str, sep: char, b: &str) -> String {
    let mut out = String::with_capacity(a.len() + sep.len_utf8() + b.len());
    out.push_str(a);
    out.push(sep);
    out.push_str(b);
    out
}

/// Python's `str.lower()` (full case mapping, final sigma included).
pub(crate) fn lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.to_lowercase()
}

/// The `\w+` runs of `s` (Python's definition of `\w`), as slices.
pub(crate) fn tokens(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let start = rest.char_indices().find(|&(_, c)| is_word(c))?.0;
        let tail = &rest[start..];
        let end = tail
            .char_indices()
            .find(|&(_, c)| !is_word(c))
            .map_or(tail.len(), |x| x.0);
        let tok = &tail[..end];
        rest = &tail[end..];
        Some(tok)
    })
}

/// Number of `\w+` runs.
pub(crate) fn count_tokens(s: &str) -> usize {
    let mut n = 0;
    let mut inside = false;
    for c in s.chars() {
        let w = is_word(c);
        if w && !inside {
            n += 1;
        }
        inside = w;
    }
    n
}

/// Python's `str.split()` with no argument: runs of non-whitespace.
pub(crate) fn split_ws(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_space).filter(|w| !w.is_empty())
}

/// `" ".join(s.split())`: whitespace runs folded to one space, ends trimmed.
pub(crate) fn fold_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in split_ws(s) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Python's `str.isspace()` on a whole string (False for "").
pub(crate) fn all_space(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_space)
}

/// Python's `str.strip()`.
pub(crate) fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// A multiplicative hash for sets of fixed words that every word of a page is looked up in
/// (the stop words; the element names `nesting` knows). Their keys are fixed, so no input
/// can crowd one of their buckets; the maps keyed by page text keep the standard, keyed
/// hasher.
#[derive(Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            h = (h.rotate_left(5) ^ v).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
        self.0 = h;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Is `c` in one of the sorted, disjoint inclusive `ranges` of code points?
pub(crate) fn in_ranges(c: char, ranges: &[(u32, u32)]) -> bool {
    let c = c as u32;
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_follow_python_word_characters() {
        let t: Vec<&str> = tokens("Hello, wörld_1 ½ x²").collect();
        assert_eq!(t, ["Hello", "wörld_1", "½", "x²"]);
        // a combining mark (U+0301) ends a Python token
        let t: Vec<&str> = tokens("cafe\u{301}s").collect();
        assert_eq!(t, ["cafe", "s"]);
        assert_eq!(count_tokens("a b  c"), 3);
    }

    #[test]
    fn whitespace_is_pythons() {
        assert_eq!(fold_ws(" a\u{a0}b\x1cc \n"), "a b c");
        assert!(all_space(" \u{3000}"));
        assert!(!all_space(""));
    }

    #[test]
    fn isupper_is_pythons() {
        assert!(is_upper("ABC 12"));
        assert!(!is_upper("12"));
        assert!(!is_upper("ABc"));
        assert!(!is_upper("A\u{1c5}"));
    }
}
