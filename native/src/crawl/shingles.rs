//! A page's word shingles, for telling repeated pages of a site's sample apart from
//! distinct ones (`sitesift.weak.distinct_pages`).
//!
//! The ids are those of `sitesift.shingles.bulk_shingle_ids`, bit for bit (a test holds the
//! two equal): each distinct token is hashed once (BLAKE2b-64, little-endian), a shingle of
//! `w` tokens is the polynomial `((t0 * M + t1) * M + t2) ...` of its tokens' hashes in
//! wrapping 64-bit arithmetic, taken modulo the Mersenne prime 2^31 - 1, and the distinct
//! values are returned sorted. A text shorter than `w` tokens is one shingle.
//!
//! The page's words are its blocks' `\w+` tokens (Python's `\w`), lower-cased as
//! `str.lower()` does, at most `limit` of them; a page without words is its markup's words,
//! so two such pages are alike only when their HTML is. Computed from the tree the page's
//! reading already built, so a site's repeated-page check parses nothing again.

use foldhash::{HashMap, HashMapExt};

use crate::text::{lower, tokens};

/// The modulus of the ids: 31-bit values, as the Python ids.
const PRIME: u64 = (1 << 31) - 1;
/// The polynomial's multiplier (FNV-1's 64-bit prime).
const MUL: u64 = 0x0100_0000_01B3;

fn token_hash(token: &str) -> u64 {
    let h = crate::crawl::site::blake2b(token.as_bytes(), 8);
    u64::from_le_bytes(h.as_bytes().try_into().expect("8 bytes"))
}

/// The distinct `w`-shingles of `tokens` as sorted 31-bit ids (empty for no tokens).
pub(crate) fn shingle_ids<S: AsRef<str>>(tokens: &[S], w: usize) -> Vec<u64> {
    if tokens.is_empty() || w == 0 {
        return Vec::new();
    }
    let mut vocab: HashMap<&str, u64> = HashMap::new();
    let ids: Vec<u64> = tokens
        .iter()
        .map(|t| {
            *vocab
                .entry(t.as_ref())
                .or_insert_with(|| token_hash(t.as_ref()))
        })
        .collect();
    let count = ids.len().saturating_sub(w - 1).max(1);
    let width = w.min(ids.len());
    let mut out: Vec<u64> = (0..count)
        .map(|i| {
            ids[i + 1..i + width]
                .iter()
                .fold(ids[i], |acc, &t| acc.wrapping_mul(MUL).wrapping_add(t))
                % PRIME
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The lower-cased `\w+` tokens of `texts`, in order, at most `limit` of them.
pub(crate) fn words<S: AsRef<str>>(texts: &[S], limit: usize) -> Vec<String> {
    texts
        .iter()
        .flat_map(|t| tokens(t.as_ref()))
        .take(limit)
        .map(lower)
        .collect()
}

/// The page's shingle ids: its blocks' words (see the module docs), else its markup's.
pub(crate) fn page_shingles<S: AsRef<str>>(
    texts: &[S],
    markup: &str,
    w: usize,
    limit: usize,
) -> Vec<u64> {
    let mut found = words(texts, limit);
    if found.is_empty() {
        found = words(&[markup], limit);
    }
    shingle_ids(&found, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_shorter_than_the_width_is_one_shingle() {
        let ids = shingle_ids(&["a", "b"], 5);
        assert_eq!(ids.len(), 1);
        assert!(ids[0] < PRIME);
        assert!(shingle_ids::<&str>(&[], 5).is_empty());
    }

    #[test]
    fn shingles_are_distinct_sorted_and_order_sensitive() {
        let ab = shingle_ids(&["a", "b", "a", "b", "a", "b"], 2);
        assert_eq!(ab.len(), 2); // "a b" and "b a"
        assert!(ab[0] < ab[1]);
        assert_ne!(shingle_ids(&["x", "y"], 2), shingle_ids(&["y", "x"], 2));
    }

    #[test]
    fn words_are_python_tokens_lowered_and_bounded() {
        assert_eq!(
            words(&["Hello, World_1!", "ÉTÉ"], 10),
            ["hello", "world_1", "été"]
        );
        assert_eq!(words(&["one two three"], 2), ["one", "two"]);
    }

    #[test]
    fn a_page_without_words_is_its_markup() {
        let none: [&str; 0] = [];
        assert_eq!(
            page_shingles(&none, "<div class=x></div>", 5, 100),
            shingle_ids(&["div", "class", "x", "div"], 5)
        );
        assert!(page_shingles(&none, "<>", 5, 100).is_empty());
    }
}
