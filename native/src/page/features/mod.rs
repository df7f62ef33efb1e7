//! The feature matrix of a page's blocks: one row per block, NaN where a value is unknown.
//!
//! The one home of these numbers (`sitesift/extractor/features.py` only asks the core for
//! them). They were first computed in Python with NumPy, and the model was trained on those,
//! so every count, ratio and sum keeps NumPy's order of floating-point operations (pairwise
//! summation for `.sum()`, sequential sums for `cumsum`, `bincount` and `add.at`) and
//! Python's string semantics (`crate::text`): the shipped model reads the same numbers.
//!
//! Groups (names in [`FEATURES`]):
//! - text: length, word shape, stop words, sentence punctuation, digits, link share;
//! - markup: the block's tag, depth, its own keyword groups and how many levels up the
//!   nearest ancestor of each group is;
//! - position: where the block starts in the page's text, and the page's size;
//! - neighbours: length and link share of the blocks around it;
//! - containers: share of the page's text, link share and number of blocks under the
//!   block's ancestors, and whether it lies in the page's densest text container;
//! - title: overlap with the page's `<title>`;
//! - structure: furniture phrases, dates, distance from the first h1, URL shape, and runs of
//!   alike siblings;
//! - site: from the site's evidence when pages of the site were fitted (NaN otherwise).
//!
//! `block_features` here computes the text, markup, position, neighbours, title and site
//! groups; `containers.rs` and `structure.rs` their groups, `columns.rs` where each group's
//! columns start and their names, `tables.rs` the data (tags, digits, stop words), `sums.rs`
//! NumPy's order of floating-point operations.

use foldhash::{HashMap, HashMapExt};
use std::sync::OnceLock;

use crate::page::blocks::{PageBlocks, SiteShares, N_ATTR};
#[cfg(test)]
use crate::page::blocks::{ATTR_GROUPS, N_NEAR, TAG_GROUPS};
use crate::text::{char_is_upper, is_space, is_upper, lower, tokens};

pub(crate) use self::columns::{feature_index, CONTEXT_LEVELS, FEATURES, N_FEATURES};
use self::columns::{
    C_MARKUP, C_NB, C_OWN, C_POS, C_SITE, C_TAG, C_TITLE, C_UP, C_WIN, NEIGHBOUR_OFFSETS, OTHER_TAG,
};
pub(crate) use self::containers::ancestors;
use self::containers::{containers, Tree};
use self::structure::{structure, Page};
pub(crate) use self::sums::pairwise_sum;
use self::sums::{exclusive_cumsum, ratio, window_sum};
use self::tables::{BLOCK_TAG_NAMES, STOP_WORD_LIST};

mod columns;
mod containers;
mod structure;
mod sums;
mod tables;

const SENTENCE_END: &[char] = &['.', '!', '?', '。', '！', '？'];
const SEPARATORS: &[char] = &['|', '»', '·', '•', '›', '/'];

type StopSet =
    std::collections::HashSet<&'static str, std::hash::BuildHasherDefault<crate::text::WordHasher>>;

fn stop_words() -> &'static StopSet {
    static SET: OnceLock<StopSet> = OnceLock::new();
    SET.get_or_init(|| STOP_WORD_LIST.iter().copied().collect())
}

/// The (blocks x [`N_FEATURES`]) matrix of one page, row-major; `site` from the site's
/// evidence (its columns stay NaN without it or when the site has no other pages).
pub(crate) fn block_features(pb: &PageBlocks, site: Option<&SiteShares>) -> Vec<f64> {
    let n = pb.text.len();
    let nf = N_FEATURES;
    let mut x = vec![f64::NAN; n * nf];
    if n == 0 {
        return x;
    }
    let stop = stop_words();
    let lowered: Vec<String> = pb.text.iter().map(|t| lower(t)).collect();
    let mut norm_count: HashMap<&str, usize> = HashMap::with_capacity(n);
    for low in &lowered {
        *norm_count.entry(low.as_str()).or_insert(0) += 1;
    }
    // title tokens, numbered: a block's overlap counts its distinct tokens among them
    let title_low = lower(&pb.title);
    let mut title_ids: HashMap<&str, usize> = HashMap::new();
    for tok in tokens(&title_low) {
        let next = title_ids.len();
        title_ids.entry(tok).or_insert(next);
    }
    let mut title_seen = vec![usize::MAX; title_ids.len()];
    let mut common = vec![0.0f64; n];

    let mut n_tok = vec![0.0f64; n];
    let mut chars = vec![0.0f64; n];
    let mut link = vec![0.0f64; n];
    let mut heading = vec![0.0f64; n];
    let mut n_chars = vec![0usize; n];
    for i in 0..n {
        let text = pb.text[i].as_str();
        let low = lowered[i].as_str();
        let (mut nt, mut tok_chars, mut n_stop, mut n_short, mut n_common) = (0usize, 0, 0, 0, 0);
        for tok in tokens(low) {
            nt += 1;
            let len = tok.chars().count();
            tok_chars += len;
            if len <= 3 {
                n_short += 1;
            }
            if stop.contains(tok) {
                n_stop += 1;
            }
            if let Some(&k) = title_ids.get(tok) {
                if title_seen[k] != i {
                    title_seen[k] = i;
                    n_common += 1;
                }
            }
        }
        common[i] = n_common as f64;
        // one pass: characters, spaces and newlines, punctuation, ASCII digits, and the
        // initials of the words `str.split()` gives (capitals below U+3000 among them)
        let (mut len, mut blank, mut ends, mut commas, mut digits, mut seps) =
            (0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
        let (mut initials, mut upper_initials) = (0usize, 0usize);
        let mut last = None;
        let mut after_space = true;
        for c in text.chars() {
            len += 1;
            match c {
                ' ' | '\n' => blank += 1,
                ',' => commas += 1,
                '0'..='9' => digits += 1,
                _ if SENTENCE_END.contains(&c) => ends += 1,
                _ if SEPARATORS.contains(&c) => seps += 1,
                _ => {}
            }
            if is_space(c) {
                after_space = true;
            } else {
                if after_space {
                    initials += 1;
                    if (c as u32) < 0x3000 && char_is_upper(c) {
                        upper_initials += 1;
                    }
                }
                after_space = false;
            }
            last = Some(c);
        }
        let nt_f = nt as f64;
        let nc = (len - blank) as f64;
        let lines = pb.n_lines[i] as f64;
        let per_tok = |k: usize| if nt > 0 { k as f64 / nt_f } else { 0.0 };
        let lk = if nc != 0.0 {
            (pb.link_chars[i] as f64 / nc).min(1.0)
        } else {
            0.0
        };
        let row = &mut x[i * nf..i * nf + 20];
        row[0] = nt_f.ln_1p();
        row[1] = nc.ln_1p();
        row[2] = lk;
        row[3] = per_tok(tok_chars);
        row[4] = per_tok(n_stop);
        row[5] = per_tok(n_short);
        row[6] = (ends as f64).ln_1p();
        row[7] = per_tok(ends);
        row[8] = per_tok(commas);
        row[9] = if nc != 0.0 { digits as f64 / nc } else { 0.0 };
        row[10] = if initials > 0 {
            upper_initials as f64 / initials as f64
        } else {
            0.0
        };
        row[11] = if last.is_some_and(|c| SENTENCE_END.contains(&c)) {
            1.0
        } else {
            0.0
        };
        row[12] = lines.ln_1p();
        row[13] = (pb.n_links[i] as f64).ln_1p();
        row[14] = (pb.n_images[i] as f64).ln_1p();
        row[15] = (pb.n_inputs[i] as f64).ln_1p();
        row[16] = per_tok(seps);
        row[17] = if is_upper(text) { 1.0 } else { 0.0 };
        row[18] = nt_f / lines;
        row[19] = (norm_count[low] as f64).ln();
        n_tok[i] = nt_f;
        n_chars[i] = len;
        chars[i] = nc;
        link[i] = lk;
    }
    // markup
    let tags: Vec<&str> = pb.elem.iter().map(|&e| pb.tags[e].as_str()).collect();
    let depth: Vec<f64> = pb.elem.iter().map(|&e| pb.depth[e] as f64).collect();
    let max_depth = (pb.depth.iter().copied().max().unwrap_or(0) as f64).max(1.0);
    for i in 0..n {
        let row = &mut x[i * nf..(i + 1) * nf];
        let tag = tags[i];
        let t = BLOCK_TAG_NAMES
            .iter()
            .position(|&b| b == tag)
            .unwrap_or(OTHER_TAG);
        row[C_TAG..C_MARKUP].fill(0.0);
        row[C_TAG + t] = 1.0;
        let level = heading_level(tag);
        if level > 0 {
            heading[i] = 1.0;
        }
        row[C_MARKUP] = level as f64;
        row[C_MARKUP + 1] = depth[i];
        row[C_MARKUP + 2] = depth[i] / max_depth;
        let own = pb.flags[pb.elem[i]];
        for k in 0..N_ATTR {
            row[C_OWN + k] = ((own >> k) & 1) as f64;
        }
        for (k, &near) in pb.nearest[i].iter().enumerate() {
            if near >= 0 {
                row[C_UP + k] = depth[i] - near as f64;
            }
        }
    }
    // position and page
    let total_tok: f64 = n_tok.iter().sum(); // whole numbers: exact in any order
    let before: Vec<f64> = exclusive_cumsum(&n_tok);
    let link_chars: Vec<f64> = (0..n).map(|i| link[i] * chars[i]).collect();
    let page_link = ratio(pairwise_sum(&link_chars), chars.iter().sum());
    let log_tok: Vec<f64> = n_tok.iter().map(|v| v.ln_1p()).collect();
    let pos_den = n.saturating_sub(1).max(1) as f64;
    for i in 0..n {
        let row = &mut x[i * nf..(i + 1) * nf];
        row[C_POS] = i as f64 / pos_den;
        row[C_POS + 1] = before[i] / total_tok.max(1.0);
        row[C_POS + 2] = total_tok.ln_1p();
        row[C_POS + 3] = (n as f64).ln_1p();
        row[C_POS + 4] = page_link;
        row[C_POS + 5] = n_tok[i] / total_tok.max(1.0);
        // neighbours
        for (j, &off) in NEIGHBOUR_OFFSETS.iter().enumerate() {
            let k = i as isize + off;
            if k >= 0 && (k as usize) < n {
                let k = k as usize;
                row[C_NB + 3 * j] = log_tok[k];
                row[C_NB + 3 * j + 1] = link[k];
                row[C_NB + 3 * j + 2] = heading[k];
            }
        }
    }
    let link_tok: Vec<f64> = (0..n).map(|i| link[i] * n_tok[i]).collect();
    let win_tok = window_sum(&n_tok, 3);
    let win_link = window_sum(&link_tok, 3);
    for i in 0..n {
        let row = &mut x[i * nf..(i + 1) * nf];
        row[C_WIN] = win_tok[i].ln_1p();
        row[C_WIN + 1] = win_link[i] / win_tok[i].max(1.0);
    }
    // containers
    let tree = Tree::new(pb, &chars, &link, &n_tok);
    containers(pb, &tree, &mut x, &n_tok);
    // title
    let n_title = title_ids.len() as f64;
    let first = (0..n).find(|&i| heading[i] > 0.0 && n_tok[i] > 0.0);
    for i in 0..n {
        let row = &mut x[i * nf..(i + 1) * nf];
        if title_ids.is_empty() {
            row[C_TITLE] = 0.0;
            row[C_TITLE + 1] = 0.0;
        } else {
            row[C_TITLE] = common[i] / n_title;
            row[C_TITLE + 1] = if n_tok[i] > 0.0 {
                common[i] / n_tok[i]
            } else {
                0.0
            };
        }
        row[C_TITLE + 2] = if Some(i) == first { 1.0 } else { 0.0 };
    }
    let page = Page {
        lowered: &lowered,
        n_chars: &n_chars,
        n_tok: &n_tok,
        link: &link,
        tags: &tags,
        before: &before,
        total_tok,
    };
    structure(pb, &tree, &mut x, &page);
    // site
    if let Some(s) = site.filter(|s| s.others > 0) {
        let log_pages = (s.others as f64).ln_1p();
        for i in 0..n {
            let row = &mut x[i * nf..(i + 1) * nf];
            row[C_SITE] = s.text.get(i).copied().unwrap_or(f64::NAN);
            row[C_SITE + 1] = s.folded.get(i).copied().unwrap_or(f64::NAN);
            row[C_SITE + 2] = s.path.get(i).copied().unwrap_or(f64::NAN);
            row[C_SITE + 3] = log_pages;
        }
    }
    x
}

fn heading_level(tag: &str) -> u32 {
    match tag {
        "h1" => 1,
        "h2" => 2,
        "h3" => 3,
        "h4" => 4,
        "h5" => 5,
        "h6" => 6,
        _ => 0,
    }
}

#[cfg(test)]
#[allow(clippy::approx_constant)] // the expected values are the Python's, digit for digit
mod tests {
    use super::columns::{C_ANC, C_BEST, C_SIB, C_STRUCT};
    use super::*;
    use crate::page::blocks::ElemId;

    const NAN: f64 = f64::NAN;

    /// Element ids as the Python writes them, -1 for none.
    fn ids(raw: &[i64]) -> Vec<Option<ElemId>> {
        raw.iter()
            .map(|&i| usize::try_from(i).ok().map(ElemId::new))
            .collect()
    }

    fn same(got: &[f64], want: &[f64]) -> bool {
        got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
    }

    #[test]
    fn names_follow_the_groups() {
        assert_eq!(FEATURES.len(), N_FEATURES);
        assert_eq!(N_FEATURES, 196);
        for (k, (name, _)) in ATTR_GROUPS.iter().enumerate() {
            assert_eq!(FEATURES[C_OWN + k], format!("own_{name}"));
            assert_eq!(FEATURES[C_UP + k], format!("up_{name}"));
        }
        for (k, (name, _)) in TAG_GROUPS.iter().enumerate() {
            assert_eq!(FEATURES[C_UP + N_ATTR + k], format!("up_{name}"));
        }
        for (k, tag) in BLOCK_TAG_NAMES.iter().enumerate() {
            assert_eq!(FEATURES[C_TAG + k], format!("tag_{tag}"));
        }
        assert_eq!(FEATURES[C_NB], "nb-3_log_tokens");
        assert_eq!(FEATURES[C_ANC], "anc1_share");
        assert_eq!(FEATURES[C_BEST], "in_best");
        assert_eq!(FEATURES[C_STRUCT], "boiler_phrases");
        assert_eq!(FEATURES[C_SIB], "sib0_log_same");
        assert_eq!(FEATURES[C_SITE + 3], "site_log_pages");
        assert_eq!(stop_words().len(), 370);
        assert!(stop_words().contains("the") && stop_words().contains("não"));
    }

    #[test]
    fn sums_as_numpy_does() {
        // NumPy's np.sum (pairwise) and np.cumsum (sequential) of the same values
        let v = |n: usize| {
            (0..n)
                .map(|i| 0.1 * (1 + i % 7) as f64)
                .collect::<Vec<f64>>()
        };
        assert_eq!(pairwise_sum(&v(10)), 3.4000000000000004);
        assert_eq!(pairwise_sum(&v(129)), 51.00000000000001);
        assert_eq!(pairwise_sum(&v(1000)), 399.70000000000005);
        assert_ne!(v(1000).iter().fold(0.0, |a, b| a + b), 399.70000000000005);
    }

    #[test]
    fn window_sums_are_differences_of_a_running_sum() {
        let w = window_sum(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], 3);
        assert_eq!(w, vec![10.0, 15.0, 21.0, 28.0, 35.0, 33.0, 30.0, 26.0]);
        let w = window_sum(&[0.1, 0.2, 0.3], 1);
        // cum = [0, 0.1, 0.1 + 0.2, (0.1 + 0.2) + 0.3]: not the direct sums
        assert_eq!(
            w,
            vec![0.1 + 0.2, (0.1 + 0.2) + 0.3, ((0.1 + 0.2) + 0.3) - 0.1]
        );
        assert_ne!(w[2], 0.2 + 0.3);
        assert!(window_sum(&[], 3).is_empty());
    }

    /// body > (div.main > h1, p, p), (ul.nav > li, li); values from the Python (NumPy
    /// without its AVX-512 loops, whose log1p differs from the C library's in the last bit).
    fn small_page() -> PageBlocks {
        let tags = ["body", "div", "h1", "p", "p", "ul", "li", "li"];
        let kinds = ["body", "div.main", "h1", "p", "p", "ul.nav", "li", "li"];
        let text = [
            "Big Title News",
            "The quick brown fox jumps over the lazy dog and runs far away, Home.",
            "Another paragraph of text that says a lot of things about the page in 2019.",
            "Home",
            "Home",
        ];
        PageBlocks {
            tags: tags.iter().map(|s| s.to_string()).collect(),
            parent: ids(&[-1, 0, 1, 1, 1, 0, 5, 5]),
            depth: vec![0, 1, 2, 2, 2, 1, 2, 2],
            flags: vec![0; 8],
            tag_flags: vec![0; 8],
            kinds: kinds.iter().map(|s| s.to_string()).collect(),
            consent: vec![crate::page::blocks::ConsentName::No; 8],
            elem: ids(&[2, 3, 4, 6, 7]).into_iter().flatten().collect(),
            text: text.iter().map(|s| s.to_string()).collect(),
            tokens: text.iter().map(|s| crate::text::count_tokens(s)).collect(),
            link_chars: vec![0, 0, 0, 4, 4],
            away_chars: vec![0; 5],
            n_links: vec![0, 0, 0, 1, 1],
            n_images: vec![0; 5],
            n_inputs: vec![0; 5],
            n_lines: vec![1; 5],
            nearest: vec![[-1; N_NEAR]; 5],
            title: "Big News Title".to_string(),
            url: Some("https://web.archive.org/web/2019/http://ex.com/a/b2/c".to_string()),
            kind: Default::default(),
        }
    }

    #[test]
    fn a_small_page_as_the_python_computes_it() {
        let pb = small_page();
        let x = block_features(&pb, None);
        let col = |name: &str| -> Vec<f64> {
            let c = feature_index(name).unwrap();
            (0..5).map(|i| x[i * N_FEATURES + c]).collect()
        };
        let want: &[(&str, [f64; 5])] = &[
            (
                "log_tokens",
                [
                    1.3862943611198906,
                    2.70805020110221,
                    2.772588722239781,
                    0.6931471805599453,
                    0.6931471805599453,
                ],
            ),
            (
                "dup_in_page",
                [0.0, 0.0, 0.0, 0.6931471805599453, 0.6931471805599453],
            ),
            ("heading_level", [1.0, 0.0, 0.0, 0.0, 0.0]),
            (
                "pos_chars",
                [
                    0.0,
                    0.08823529411764706,
                    0.5,
                    0.9411764705882353,
                    0.9705882352941176,
                ],
            ),
            ("nb-1_link_density", [NAN, 0.0, 0.0, 0.0, 1.0]),
            (
                "win3_link_density",
                [
                    0.030303030303030304,
                    0.058823529411764705,
                    0.058823529411764705,
                    0.058823529411764705,
                    0.06451612903225806,
                ],
            ),
            (
                "anc1_share",
                [
                    0.9411764705882353,
                    0.9411764705882353,
                    0.9411764705882353,
                    0.058823529411764705,
                    0.058823529411764705,
                ],
            ),
            // glibc's log1p(2), as NumPy's portable loop gives it (NumPy's AVX-512 loop: ...098)
            (
                "anc1_log_blocks",
                [
                    1.3862943611198906,
                    1.3862943611198906,
                    1.3862943611198906,
                    1.0986122886681096,
                    1.0986122886681096,
                ],
            ),
            ("anc2_text_share", [1.0; 5]),
            ("in_best", [1.0, 1.0, 1.0, 0.0, 0.0]),
            ("levels_to_best", [1.0, 1.0, 1.0, NAN, NAN]),
            ("best_share", [0.6666666666666666; 5]),
            (
                "best_anc_score",
                [
                    0.6666666666666666,
                    0.6666666666666666,
                    0.6666666666666666,
                    0.3333333333333333,
                    0.3333333333333333,
                ],
            ),
            ("title_in_block", [1.0, 0.0, 0.0, 0.0, 0.0]),
            ("block_in_title", [1.0, 0.0, 0.0, 0.0, 0.0]),
            ("is_first_heading", [1.0, 0.0, 0.0, 0.0, 0.0]),
            ("boiler_phrases", [0.0, 1.0, 0.0, 1.0, 1.0]),
            ("has_date", [0.0, 0.0, 1.0, 0.0, 0.0]),
            (
                "from_h1",
                [
                    0.0,
                    0.08823529411764706,
                    0.5,
                    0.9411764705882353,
                    0.9705882352941176,
                ],
            ),
            ("url_depth", [3.0; 5]),
            ("url_digits", [1.0; 5]),
            (
                "sib0_log_same",
                [
                    0.0,
                    0.6931471805599453,
                    0.6931471805599453,
                    0.6931471805599453,
                    0.6931471805599453,
                ],
            ),
            (
                "sib0_share",
                [
                    0.08823529411764706,
                    0.8529411764705882,
                    0.8529411764705882,
                    0.058823529411764705,
                    0.058823529411764705,
                ],
            ),
            ("sib1_blocks_per_item", [3.0, 3.0, 3.0, 2.0, 2.0]),
            ("sib1_link_density", [0.0, 0.0, 0.0, 1.0, 1.0]),
            (
                "stop_share",
                [0.0, 0.2857142857142857, 0.5333333333333333, 0.0, 0.0],
            ),
            (
                "capital_share",
                [1.0, 0.14285714285714285, 0.06666666666666667, 1.0, 1.0],
            ),
        ];
        for (name, values) in want {
            assert!(
                same(&col(name), values),
                "{name}: {:?} != {values:?}",
                col(name)
            );
        }
        // site columns: NaN without evidence or without other pages
        assert!(col("site_text").iter().all(|v| v.is_nan()));
        let none = SiteShares {
            text: vec![0.5; 5],
            folded: vec![0.5; 5],
            path: vec![0.5; 5],
            others: 0,
        };
        let x0 = block_features(&pb, Some(&none));
        assert!(x0[C_SITE].is_nan());
        let some = SiteShares { others: 3, ..none };
        let x3 = block_features(&pb, Some(&some));
        assert_eq!(&x3[C_SITE..C_SITE + 4], &[0.5, 0.5, 0.5, 4.0f64.ln()]);
        assert_eq!(
            ancestors(&pb),
            [
                [1, 0, -1, -1, -1, -1],
                [1, 0, -1, -1, -1, -1],
                [1, 0, -1, -1, -1, -1],
                [5, 0, -1, -1, -1, -1],
                [5, 0, -1, -1, -1, -1]
            ]
            .map(|row| <[_; 6]>::try_from(ids(&row)).unwrap())
        );
        assert!(block_features(&PageBlocks::default(), None).is_empty());
    }
}
