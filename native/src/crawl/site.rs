//! Site evidence: how often a block's text, and its place in the layout, recur on the
//! site's other pages (`sitesift.extractor.site` documents the idea). Keys are the same
//! BLAKE2b digests the Python state format stores, so fitted models stay readable.

use foldhash::{HashMap, HashMapExt, HashSet};
use std::sync::OnceLock;

use regex::Regex;

use crate::page::blocks::{ElemId, PageBlocks, SiteShares};
use crate::read::dom::{View, STYLE_ATTRS};
use crate::text::{is_space, lower, split_ws, strip};

fn digits() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\d+").unwrap())
}

/// The page's digest: BLAKE2b-96 of its HTML as UTF-8, in hex.
pub(crate) fn page_digest(html: &str) -> String {
    hex(blake2b(html.as_bytes(), 12).as_bytes())
}

/// BLAKE2b of `data` in `len` bytes, hashlib's `blake2b(data, digest_size=len)`, by the
/// SIMD implementation (AVX2 where the processor has it, chosen at run time): a page's
/// digest reads its whole HTML, and the portable implementation took 4.5 % of a crawl
/// worker's instructions (docs/lab/crawl.md).
pub(crate) fn blake2b(data: &[u8], len: usize) -> blake2b_simd::Hash {
    blake2b_simd::Params::new().hash_length(len).hash(data)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn key64(text: &str) -> u64 {
    let h = blake2b(text.as_bytes(), 8);
    u64::from_be_bytes(h.as_bytes().try_into().expect("8 bytes"))
}

pub(crate) fn key_hex(k: u64) -> String {
    format!("{k:016x}")
}

pub(crate) fn parse_key(s: &str) -> Option<u64> {
    if s.len() != 16 {
        return None;
    }
    u64::from_str_radix(s, 16).ok()
}

/// Tag plus display attributes, digits folded (`dom.style_key`).
pub(crate) fn style_key(tag: &str, get: impl Fn(&str) -> Option<String>) -> String {
    if tag == "body" || tag == "html" {
        return tag.to_string();
    }
    let mut out = tag.to_string();
    for name in STYLE_ATTRS {
        let Some(value) = get(name) else { continue };
        if value.is_empty() {
            continue;
        }
        let value = if *name == "class" {
            let mut words: Vec<&str> = split_ws(&value).collect();
            words.sort_unstable();
            words.dedup();
            words.join(" ")
        } else {
            value
        };
        let folded = digits().replace_all(strip(&value), "#");
        let cut: String = folded.chars().take(80).collect();
        if !cut.is_empty() {
            out.push('|');
            out.push_str(name);
            out.push('=');
            out.push_str(&cut);
        }
    }
    out
}

/// Per block: the keys of its normalised text, of that text with digits folded, and of
/// its layout position (style keys of its element, parent and grandparent).
pub(crate) fn block_keys(pb: &PageBlocks, view: &View) -> [Vec<u64>; 3] {
    let mut keys: HashMap<ElemId, String> = HashMap::new();
    let mut style_of = |e: ElemId| -> String {
        keys.entry(e)
            .or_insert_with(|| {
                let el = &view[view.preorder[e]];
                if el.has_attrs {
                    style_key(&el.tag, |k| el.get(k).map(str::to_string))
                } else {
                    el.tag.clone()
                }
            })
            .clone()
    };
    let (mut t, mut f, mut p) = (Vec::new(), Vec::new(), Vec::new());
    for (b, text) in pb.text.iter().enumerate() {
        let low = lower(text);
        let mut norm = String::with_capacity(low.len());
        let mut space = false;
        for c in low.chars() {
            if is_space(c) {
                space = true;
            } else {
                if space && !norm.is_empty() {
                    norm.push(' ');
                }
                space = false;
                norm.push(c);
            }
        }
        t.push(key64(&norm));
        f.push(key64(&digits().replace_all(&norm, "0")));
        let mut parts = Vec::with_capacity(3);
        for e in pb.self_and_ancestors(pb.elem[b]).take(3) {
            parts.push(style_of(e));
        }
        p.push(key64(&parts.join("/")));
    }
    [t, f, p]
}

/// Page counts of block texts and layout positions over a site's pages.
#[derive(Default, Clone)]
pub(crate) struct Evidence {
    pub(crate) n_pages: usize,
    pub(crate) counts: [HashMap<u64, u32>; 3],
    pub(crate) digests: HashSet<String>,
}

impl Evidence {
    /// Count one page (a page seen before, by digest, counts once).
    pub(crate) fn add(&mut self, digest: &str, keys: &[Vec<u64>; 3]) {
        if !self.digests.insert(digest.to_string()) {
            return;
        }
        self.n_pages += 1;
        for (counts, ks) in self.counts.iter_mut().zip(keys) {
            let unique: HashSet<u64> = ks.iter().copied().collect();
            for k in unique {
                *counts.entry(k).or_insert(0) += 1;
            }
        }
    }

    /// Per block, the share of the site's other pages with the same key (a fitted page
    /// leaves itself out); `others` 0 means no evidence.
    pub(crate) fn shares(&self, digest: &str, keys: &[Vec<u64>; 3]) -> SiteShares {
        let own = usize::from(self.digests.contains(digest));
        let others = self.n_pages.saturating_sub(own);
        let n = keys[0].len();
        if others == 0 {
            return SiteShares {
                text: vec![f64::NAN; n],
                folded: vec![f64::NAN; n],
                path: vec![f64::NAN; n],
                others: 0,
            };
        }
        let share = |i: usize| -> Vec<f64> {
            keys[i]
                .iter()
                .map(|k| (*self.counts[i].get(k).unwrap_or(&0) as f64 - own as f64) / others as f64)
                .collect()
        };
        SiteShares {
            text: share(0),
            folded: share(1),
            path: share(2),
            others,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_keys_fold_digits_and_sort_classes() {
        let attrs = [("class", "b a  b"), ("id", " post-123 "), ("href", "x")];
        let get = |k: &str| {
            attrs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        };
        assert_eq!(style_key("div", get), "div|class=a b|id=post-#");
        assert_eq!(style_key("body", |_| Some("x".into())), "body");
    }

    const HASHLIB_AB_200: &str = "8625291644a73b764fdc5dfd";

    #[test]
    fn digests_are_hashlib_blake2b() {
        // hashlib.blake2b(b"abc", digest_size=12).hexdigest()
        assert_eq!(page_digest("abc"), "48b4f1f9042a2d5033b382b5");
        // more than one 128-byte block: hashlib.blake2b(b"ab" * 200, digest_size=12)
        assert_eq!(page_digest(&"ab".repeat(200)), HASHLIB_AB_200);
    }
}
