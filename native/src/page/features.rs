//! The feature matrix of a page's blocks: one row per block, NaN where a value is unknown.
//!
//! A port of `sitesift/extractor/features.py` that computes the same numbers: every count,
//! ratio and sum in the same order of floating-point operations as the Python (NumPy's
//! pairwise summation where the Python calls `.sum()`, sequential sums where it calls
//! `cumsum`, `bincount` or `add.at`), and Python's string semantics through `crate::text`.
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

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

use crate::page::blocks::{PageBlocks, SiteShares, N_ATTR, N_NEAR};
#[cfg(test)]
use crate::page::blocks::{ATTR_GROUPS, TAG_GROUPS};
use crate::text::{char_is_upper, is_space, is_upper, is_word, lower, tokens};

/// The tags a block's element is told apart by (any other tag is "span-like").
const BLOCK_TAG_NAMES: &[&str] = &[
    "p",
    "div",
    "td",
    "th",
    "li",
    "dd",
    "dt",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "figcaption",
    "caption",
    "section",
    "article",
    "header",
    "footer",
    "nav",
    "aside",
    "form",
    "label",
    "button",
    "option",
    "address",
    "main",
    "center",
    "body",
    "span-like",
];
const N_BLOCK_TAGS: usize = 32;
const OTHER_TAG: usize = N_BLOCK_TAGS - 1;
const ANCESTOR_LEVELS: [usize; 5] = [1, 2, 3, 4, 6];
const SIBLING_LEVELS: [usize; 4] = [0, 1, 2, 3];
const NEIGHBOUR_OFFSETS: [isize; 6] = [-3, -2, -1, 1, 2, 3];
/// Levels of `ancestors` (the context features' containers).
pub(crate) const CONTEXT_LEVELS: [usize; 6] = [1, 2, 3, 4, 6, 8];
/// Phrases and dates are looked for in a block's first characters.
const PHRASE_SPAN: usize = 400;
/// Chains reach at least the highest level any feature asks for.
const MIN_CHAIN: usize = 8;
const SENTENCE_END: &[char] = &['.', '!', '?', '。', '！', '？'];
const SEPARATORS: &[char] = &['|', '»', '·', '•', '›', '/'];

// First column of each group.
const C_TAG: usize = 20;
const C_MARKUP: usize = C_TAG + N_BLOCK_TAGS;
const C_OWN: usize = C_MARKUP + 3;
const C_UP: usize = C_OWN + N_ATTR;
const C_POS: usize = C_UP + N_NEAR;
const C_NB: usize = C_POS + 6;
const C_WIN: usize = C_NB + 3 * NEIGHBOUR_OFFSETS.len();
const C_ANC: usize = C_WIN + 2;
const C_BEST: usize = C_ANC + 4 * ANCESTOR_LEVELS.len();
const C_TITLE: usize = C_BEST + 6;
const C_STRUCT: usize = C_TITLE + 3;
const C_SIB: usize = C_STRUCT + 6;
const C_SITE: usize = C_SIB + 4 * SIBLING_LEVELS.len();

/// Number of features per block (columns of [`block_features`]).
pub(crate) const N_FEATURES: usize = C_SITE + 4;

/// The feature names, in column order (Python's `FEATURES`).
pub(crate) const FEATURES: &[&str] = &[
    "log_tokens",
    "log_chars",
    "link_density",
    "mean_token_len",
    "stop_share",
    "short_token_share",
    "sentence_ends",
    "sentence_end_rate",
    "comma_rate",
    "digit_share",
    "capital_share",
    "ends_sentence",
    "log_lines",
    "log_links",
    "log_images",
    "log_inputs",
    "separator_rate",
    "all_caps",
    "words_per_line",
    "dup_in_page",
    "tag_p",
    "tag_div",
    "tag_td",
    "tag_th",
    "tag_li",
    "tag_dd",
    "tag_dt",
    "tag_h1",
    "tag_h2",
    "tag_h3",
    "tag_h4",
    "tag_h5",
    "tag_h6",
    "tag_blockquote",
    "tag_pre",
    "tag_figcaption",
    "tag_caption",
    "tag_section",
    "tag_article",
    "tag_header",
    "tag_footer",
    "tag_nav",
    "tag_aside",
    "tag_form",
    "tag_label",
    "tag_button",
    "tag_option",
    "tag_address",
    "tag_main",
    "tag_center",
    "tag_body",
    "tag_span-like",
    "heading_level",
    "depth",
    "rel_depth",
    "own_nav",
    "own_header",
    "own_footer",
    "own_sidebar",
    "own_comment",
    "own_share",
    "own_related",
    "own_ad",
    "own_content",
    "own_meta",
    "own_caption",
    "own_hidden",
    "own_popup",
    "own_title",
    "own_product",
    "own_forum",
    "own_card",
    "own_search",
    "own_code",
    "own_lead",
    "up_nav",
    "up_header",
    "up_footer",
    "up_sidebar",
    "up_comment",
    "up_share",
    "up_related",
    "up_ad",
    "up_content",
    "up_meta",
    "up_caption",
    "up_hidden",
    "up_popup",
    "up_title",
    "up_product",
    "up_forum",
    "up_card",
    "up_search",
    "up_code",
    "up_lead",
    "up_t_nav",
    "up_t_header",
    "up_t_footer",
    "up_t_aside",
    "up_t_article",
    "up_t_main",
    "up_t_section",
    "up_t_form",
    "up_t_table",
    "up_t_list",
    "up_t_dl",
    "up_t_figure",
    "up_t_quote",
    "up_t_pre",
    "up_t_heading",
    "up_t_p",
    "up_t_link",
    "up_t_address",
    "up_t_details",
    "up_t_center",
    "pos_block",
    "pos_chars",
    "page_log_tokens",
    "page_log_blocks",
    "page_link_density",
    "tokens_share",
    "nb-3_log_tokens",
    "nb-3_link_density",
    "nb-3_heading",
    "nb-2_log_tokens",
    "nb-2_link_density",
    "nb-2_heading",
    "nb-1_log_tokens",
    "nb-1_link_density",
    "nb-1_heading",
    "nb+1_log_tokens",
    "nb+1_link_density",
    "nb+1_heading",
    "nb+2_log_tokens",
    "nb+2_link_density",
    "nb+2_heading",
    "nb+3_log_tokens",
    "nb+3_link_density",
    "nb+3_heading",
    "win3_log_tokens",
    "win3_link_density",
    "anc1_share",
    "anc1_link_density",
    "anc1_log_blocks",
    "anc1_text_share",
    "anc2_share",
    "anc2_link_density",
    "anc2_log_blocks",
    "anc2_text_share",
    "anc3_share",
    "anc3_link_density",
    "anc3_log_blocks",
    "anc3_text_share",
    "anc4_share",
    "anc4_link_density",
    "anc4_log_blocks",
    "anc4_text_share",
    "anc6_share",
    "anc6_link_density",
    "anc6_log_blocks",
    "anc6_text_share",
    "in_best",
    "levels_to_best",
    "best_share",
    "best_anc_score",
    "tokens_before",
    "tokens_after",
    "title_in_block",
    "block_in_title",
    "is_first_heading",
    "boiler_phrases",
    "has_date",
    "from_h1",
    "page_log_long_paras",
    "url_depth",
    "url_digits",
    "sib0_log_same",
    "sib0_share",
    "sib0_blocks_per_item",
    "sib0_link_density",
    "sib1_log_same",
    "sib1_share",
    "sib1_blocks_per_item",
    "sib1_link_density",
    "sib2_log_same",
    "sib2_share",
    "sib2_blocks_per_item",
    "sib2_link_density",
    "sib3_log_same",
    "sib3_share",
    "sib3_blocks_per_item",
    "sib3_link_density",
    "site_text",
    "site_folded",
    "site_path",
    "site_log_pages",
];

/// The index of a feature by name.
pub(crate) fn feature_index(name: &str) -> Option<usize> {
    FEATURES.iter().position(|&f| f == name)
}

/// Python 3.11's `str.isdigit()` (Unicode 14.0): Numeric_Type Digit or Decimal.
const DIGIT_RANGES: &[(u32, u32)] = &[
    (0x0030, 0x0039),
    (0x00B2, 0x00B3),
    (0x00B9, 0x00B9),
    (0x0660, 0x0669),
    (0x06F0, 0x06F9),
    (0x07C0, 0x07C9),
    (0x0966, 0x096F),
    (0x09E6, 0x09EF),
    (0x0A66, 0x0A6F),
    (0x0AE6, 0x0AEF),
    (0x0B66, 0x0B6F),
    (0x0BE6, 0x0BEF),
    (0x0C66, 0x0C6F),
    (0x0CE6, 0x0CEF),
    (0x0D66, 0x0D6F),
    (0x0DE6, 0x0DEF),
    (0x0E50, 0x0E59),
    (0x0ED0, 0x0ED9),
    (0x0F20, 0x0F29),
    (0x1040, 0x1049),
    (0x1090, 0x1099),
    (0x1369, 0x1371),
    (0x17E0, 0x17E9),
    (0x1810, 0x1819),
    (0x1946, 0x194F),
    (0x19D0, 0x19DA),
    (0x1A80, 0x1A89),
    (0x1A90, 0x1A99),
    (0x1B50, 0x1B59),
    (0x1BB0, 0x1BB9),
    (0x1C40, 0x1C49),
    (0x1C50, 0x1C59),
    (0x2070, 0x2070),
    (0x2074, 0x2079),
    (0x2080, 0x2089),
    (0x2460, 0x2468),
    (0x2474, 0x247C),
    (0x2488, 0x2490),
    (0x24EA, 0x24EA),
    (0x24F5, 0x24FD),
    (0x24FF, 0x24FF),
    (0x2776, 0x277E),
    (0x2780, 0x2788),
    (0x278A, 0x2792),
    (0xA620, 0xA629),
    (0xA8D0, 0xA8D9),
    (0xA900, 0xA909),
    (0xA9D0, 0xA9D9),
    (0xA9F0, 0xA9F9),
    (0xAA50, 0xAA59),
    (0xABF0, 0xABF9),
    (0xFF10, 0xFF19),
    (0x104A0, 0x104A9),
    (0x10A40, 0x10A43),
    (0x10D30, 0x10D39),
    (0x10E60, 0x10E68),
    (0x11052, 0x1105A),
    (0x11066, 0x1106F),
    (0x110F0, 0x110F9),
    (0x11136, 0x1113F),
    (0x111D0, 0x111D9),
    (0x112F0, 0x112F9),
    (0x11450, 0x11459),
    (0x114D0, 0x114D9),
    (0x11650, 0x11659),
    (0x116C0, 0x116C9),
    (0x11730, 0x11739),
    (0x118E0, 0x118E9),
    (0x11950, 0x11959),
    (0x11C50, 0x11C59),
    (0x11D50, 0x11D59),
    (0x11DA0, 0x11DA9),
    (0x16A60, 0x16A69),
    (0x16AC0, 0x16AC9),
    (0x16B50, 0x16B59),
    (0x1D7CE, 0x1D7FF),
    (0x1E140, 0x1E149),
    (0x1E2F0, 0x1E2F9),
    (0x1E950, 0x1E959),
    (0x1F100, 0x1F10A),
    (0x1FBF0, 0x1FBF9),
];

/// scikit-learn's ENGLISH_STOP_WORDS and the `extra` words of `_stop_words`, sorted.
const STOP_WORD_LIST: &[&str] = &[
    "a",
    "about",
    "above",
    "across",
    "after",
    "afterwards",
    "again",
    "against",
    "all",
    "almost",
    "alone",
    "along",
    "already",
    "also",
    "although",
    "always",
    "am",
    "among",
    "amongst",
    "amoungst",
    "amount",
    "an",
    "and",
    "another",
    "any",
    "anyhow",
    "anyone",
    "anything",
    "anyway",
    "anywhere",
    "are",
    "around",
    "as",
    "at",
    "back",
    "be",
    "became",
    "because",
    "become",
    "becomes",
    "becoming",
    "been",
    "before",
    "beforehand",
    "behind",
    "being",
    "below",
    "beside",
    "besides",
    "between",
    "beyond",
    "bill",
    "both",
    "bottom",
    "but",
    "by",
    "call",
    "can",
    "cannot",
    "cant",
    "che",
    "co",
    "com",
    "como",
    "con",
    "could",
    "couldnt",
    "cry",
    "dans",
    "das",
    "dat",
    "de",
    "del",
    "della",
    "den",
    "der",
    "des",
    "describe",
    "detail",
    "di",
    "die",
    "do",
    "done",
    "down",
    "due",
    "during",
    "each",
    "een",
    "eg",
    "eight",
    "ein",
    "eine",
    "either",
    "el",
    "eleven",
    "else",
    "elsewhere",
    "empty",
    "en",
    "enough",
    "es",
    "est",
    "et",
    "etc",
    "even",
    "ever",
    "every",
    "everyone",
    "everything",
    "everywhere",
    "except",
    "few",
    "fifteen",
    "fifty",
    "fill",
    "find",
    "fire",
    "first",
    "five",
    "for",
    "former",
    "formerly",
    "forty",
    "found",
    "four",
    "from",
    "front",
    "full",
    "further",
    "get",
    "give",
    "go",
    "had",
    "has",
    "hasnt",
    "have",
    "he",
    "hence",
    "her",
    "here",
    "hereafter",
    "hereby",
    "herein",
    "hereupon",
    "hers",
    "herself",
    "het",
    "him",
    "himself",
    "his",
    "how",
    "however",
    "hundred",
    "i",
    "ie",
    "if",
    "il",
    "in",
    "inc",
    "indeed",
    "interest",
    "into",
    "is",
    "ist",
    "it",
    "its",
    "itself",
    "keep",
    "la",
    "las",
    "last",
    "latter",
    "latterly",
    "le",
    "least",
    "les",
    "less",
    "los",
    "ltd",
    "made",
    "many",
    "may",
    "me",
    "meanwhile",
    "might",
    "mill",
    "mine",
    "mit",
    "more",
    "moreover",
    "most",
    "mostly",
    "move",
    "much",
    "must",
    "my",
    "myself",
    "name",
    "namely",
    "neither",
    "never",
    "nevertheless",
    "next",
    "nicht",
    "niet",
    "nine",
    "no",
    "nobody",
    "non",
    "none",
    "noone",
    "nor",
    "not",
    "nothing",
    "now",
    "nowhere",
    "não",
    "o",
    "of",
    "off",
    "often",
    "on",
    "once",
    "one",
    "only",
    "onto",
    "op",
    "or",
    "os",
    "other",
    "others",
    "otherwise",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "para",
    "part",
    "per",
    "perhaps",
    "please",
    "por",
    "pour",
    "put",
    "que",
    "qui",
    "rather",
    "re",
    "same",
    "see",
    "seem",
    "seemed",
    "seeming",
    "seems",
    "serious",
    "several",
    "she",
    "should",
    "show",
    "side",
    "since",
    "sincere",
    "six",
    "sixty",
    "so",
    "some",
    "somehow",
    "someone",
    "something",
    "sometime",
    "sometimes",
    "somewhere",
    "sono",
    "still",
    "such",
    "system",
    "take",
    "ten",
    "than",
    "that",
    "the",
    "their",
    "them",
    "themselves",
    "then",
    "thence",
    "there",
    "thereafter",
    "thereby",
    "therefore",
    "therein",
    "thereupon",
    "these",
    "they",
    "thick",
    "thin",
    "third",
    "this",
    "those",
    "though",
    "three",
    "through",
    "throughout",
    "thru",
    "thus",
    "to",
    "together",
    "too",
    "top",
    "toward",
    "towards",
    "twelve",
    "twenty",
    "two",
    "um",
    "uma",
    "un",
    "una",
    "und",
    "under",
    "une",
    "until",
    "up",
    "upon",
    "us",
    "van",
    "very",
    "via",
    "von",
    "voor",
    "was",
    "we",
    "well",
    "were",
    "what",
    "whatever",
    "when",
    "whence",
    "whenever",
    "where",
    "whereafter",
    "whereas",
    "whereby",
    "wherein",
    "whereupon",
    "wherever",
    "whether",
    "which",
    "while",
    "whither",
    "who",
    "whoever",
    "whole",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "zu",
];

/// Python's `str.isdigit()` for one character.
fn py_isdigit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    crate::text::in_ranges(c, DIGIT_RANGES)
}

type StopSet =
    std::collections::HashSet<&'static str, std::hash::BuildHasherDefault<crate::text::WordHasher>>;

fn stop_words() -> &'static StopSet {
    static SET: OnceLock<StopSet> = OnceLock::new();
    SET.get_or_init(|| STOP_WORD_LIST.iter().copied().collect())
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

/// NumPy's `np.add.reduce` over a contiguous float64 array (what `arr.sum()` computes):
/// pairwise summation with eight accumulators over blocks of at most 128 values.
pub(crate) fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &v in a {
            res += v;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for k in 0..8 {
                r[k] += a[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// Sum over the `half` values before and after each value and the value itself, as
/// differences of one running sum (as NumPy computes it).
fn window_sum(values: &[f64], half: usize) -> Vec<f64> {
    let n = values.len();
    let mut cum = Vec::with_capacity(n + 1);
    cum.push(0.0);
    let mut s = 0.0;
    for &v in values {
        s += v;
        cum.push(s);
    }
    (0..n)
        .map(|i| {
            let hi = (i + half + 1).min(n);
            let lo = i.saturating_sub(half);
            cum[hi] - cum[lo]
        })
        .collect()
}

#[inline]
fn ratio(a: f64, b: f64) -> f64 {
    if b != 0.0 {
        a / b
    } else {
        0.0
    }
}

/// The page's element tree as arrays: subtree sums and every block's ancestor chain.
struct Tree {
    /// per element: block chars, link chars, blocks, chars of text-like blocks (subtree)
    sub: Vec<[f64; 4]>,
    /// Readability's container score per element
    score: Vec<f64>,
    /// chain[i * width + k]: the element k levels above block i's element (-1 above)
    chain: Vec<i64>,
    width: usize,
}

impl Tree {
    fn new(pb: &PageBlocks, chars: &[f64], link: &[f64], n_tok: &[f64]) -> Tree {
        let m = pb.parent.len();
        let nb = pb.elem.len();
        let parent = &pb.parent;
        let mut sub = vec![[0.0f64; 4]; m];
        let plain: Vec<f64> = (0..nb)
            .map(|i| {
                let textlike = n_tok[i] >= 10.0 && link[i] < 0.34;
                chars[i] * (1.0 - link[i]) * if textlike { 1.0 } else { 0.0 }
            })
            .collect();
        for (i, &e) in pb.elem.iter().enumerate() {
            let s = &mut sub[e];
            s[0] += chars[i];
            s[1] += chars[i] * link[i];
            s[2] += 1.0;
            s[3] += plain[i];
        }
        // Readability's container score: text-like paragraphs count for their parent and,
        // half, for their grandparent (all parents first, then all grandparents).
        let mut score = vec![0.0f64; m];
        for (i, &e) in pb.elem.iter().enumerate() {
            let up = parent[e];
            if up >= 0 {
                score[up as usize] += plain[i];
            }
        }
        for (i, &e) in pb.elem.iter().enumerate() {
            let up = parent[e];
            if up >= 0 {
                let up2 = parent[up as usize];
                if up2 >= 0 {
                    score[up2 as usize] += plain[i] / 2.0;
                }
            }
        }
        // bottom-up sums, one depth level at a time (deepest first, index order within)
        let max_depth = pb.depth.iter().copied().max().unwrap_or(0).max(0) as usize;
        let mut start = vec![0usize; max_depth + 2];
        for &d in &pb.depth {
            start[d as usize + 1] += 1;
        }
        for d in 0..=max_depth {
            start[d + 1] += start[d];
        }
        let mut fill = start.clone();
        let mut by_depth = vec![0usize; m];
        for (e, &d) in pb.depth.iter().enumerate() {
            by_depth[fill[d as usize]] = e;
            fill[d as usize] += 1;
        }
        for d in (0..=max_depth).rev() {
            for &e in &by_depth[start[d]..start[d + 1]] {
                let p = parent[e];
                if p >= 0 {
                    let s = sub[e];
                    let t = &mut sub[p as usize];
                    for k in 0..4 {
                        t[k] += s[k];
                    }
                }
            }
        }
        // ancestor chains
        let top = if m > 0 { max_depth + 1 } else { 1 }.max(MIN_CHAIN);
        let width = top + 1;
        let mut chain = vec![-1i64; nb * width];
        for (i, &e) in pb.elem.iter().enumerate() {
            let row = &mut chain[i * width..(i + 1) * width];
            let mut a = e as i64;
            for slot in row.iter_mut() {
                *slot = a;
                if a < 0 {
                    break;
                }
                a = parent[a as usize];
            }
        }
        Tree {
            sub,
            score,
            chain,
            width,
        }
    }

    #[inline]
    fn up(&self, block: usize, level: usize) -> i64 {
        self.chain[block * self.width + level]
    }
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

/// `[0, v0, v0 + v1, ...]` without the last total (NumPy's `cumsum` shifted by one).
fn exclusive_cumsum(values: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(values.len());
    let mut s = 0.0;
    for &v in values {
        out.push(s);
        s += v;
    }
    out
}

/// Ancestor aggregates and the densest-container features.
fn containers(pb: &PageBlocks, tree: &Tree, x: &mut [f64], n_tok: &[f64]) {
    let nf = N_FEATURES;
    let n = pb.elem.len();
    let sub = &tree.sub;
    let m = sub.len();
    let total = if m > 0 { sub[0][0].max(1.0) } else { 1.0 };
    let total_text = if m > 0 { sub[0][3].max(1.0) } else { 1.0 };
    let score = &tree.score;
    let total_score = pairwise_sum(score).max(1.0);
    // np.argmax: the first of the largest
    let mut best = 0usize;
    for (e, &s) in score.iter().enumerate() {
        if s > score[best] {
            best = e;
        }
    }
    let best_score = if m > 0 { score[best] } else { 0.0 };
    let mut cum = 0.0;
    let mut cums = Vec::with_capacity(n);
    for &v in n_tok {
        cum += v;
        cums.push(cum);
    }
    let total_tok = cum.max(1.0);
    for i in 0..n {
        let row = &mut x[i * nf..(i + 1) * nf];
        let mut c = C_ANC;
        for &lvl in &ANCESTOR_LEVELS {
            let a = tree.up(i, lvl);
            if a >= 0 {
                let s = &sub[a as usize];
                row[c] = s[0] / total;
                row[c + 1] = if s[0] > 0.0 { s[1] / s[0] } else { 0.0 };
                row[c + 2] = s[2].ln_1p();
                row[c + 3] = s[3] / total_text;
            }
            c += 4;
        }
        let chain = &tree.chain[i * tree.width..(i + 1) * tree.width];
        let mut inside = false;
        let mut scored = 0.0f64; // the chain's -1 entries score 0
        for &a in chain {
            if a < 0 {
                break;
            }
            inside |= a as usize == best;
            let s = score[a as usize];
            if s > scored {
                scored = s;
            }
        }
        let inside = inside && best_score > 0.0;
        row[C_BEST] = if inside { 1.0 } else { 0.0 };
        row[C_BEST + 1] = if inside {
            (pb.depth[chain[0] as usize] - pb.depth[best]) as f64
        } else {
            f64::NAN
        };
        row[C_BEST + 2] = if m > 0 { best_score / total_score } else { 0.0 };
        row[C_BEST + 3] = scored / total_score;
        row[C_BEST + 4] = (cums[i] - n_tok[i]) / total_tok;
        row[C_BEST + 5] = (total_tok - cums[i]) / total_tok;
    }
}

/// What `structure` reads of the page's blocks besides the `PageBlocks`.
struct Page<'a> {
    lowered: &'a [String],
    n_chars: &'a [usize],
    n_tok: &'a [f64],
    link: &'a [f64],
    tags: &'a [&'a str],
    before: &'a [f64],
    total_tok: f64,
}

/// Phrases, dates, distance from the first h1, URL shape, and runs of alike siblings (the
/// records of a forum thread, a product grid or a menu: same tag and class under one
/// parent).
fn structure(pb: &PageBlocks, tree: &Tree, x: &mut [f64], page: &Page<'_>) {
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
    let mut ids: HashMap<(i64, &str), usize> = HashMap::with_capacity(m);
    let mut kind_id = Vec::with_capacity(m);
    for (&up, kind) in pb.parent.iter().zip(&pb.kinds) {
        let next = ids.len();
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
            let a = tree.up(i, lvl);
            if a < 0 {
                continue;
            }
            let id = kind_id[a as usize];
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

/// (blocks x [`CONTEXT_LEVELS`]) element index of each block's ancestor at that many levels
/// up (level 0 would be the block's element), -1 above `<body>`.
pub(crate) fn ancestors(pb: &PageBlocks) -> Vec<[i64; 6]> {
    let top = CONTEXT_LEVELS[CONTEXT_LEVELS.len() - 1];
    pb.elem
        .iter()
        .map(|&e| {
            let mut out = [-1i64; 6];
            let (mut a, mut lvl, mut j) = (e as i64, 0usize, 0usize);
            while lvl < top && a >= 0 {
                a = pb.parent[a as usize];
                lvl += 1;
                if lvl == CONTEXT_LEVELS[j] {
                    out[j] = a;
                    j += 1;
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::approx_constant)] // the expected values are the Python's, digit for digit
mod tests {
    use super::*;

    const NAN: f64 = f64::NAN;

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
            parent: vec![-1, 0, 1, 1, 1, 0, 5, 5],
            depth: vec![0, 1, 2, 2, 2, 1, 2, 2],
            flags: vec![0; 8],
            tag_flags: vec![0; 8],
            kinds: kinds.iter().map(|s| s.to_string()).collect(),
            consent: vec![crate::page::blocks::ConsentName::No; 8],
            elem: vec![2, 3, 4, 6, 7],
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
            vec![
                [1, 0, -1, -1, -1, -1],
                [1, 0, -1, -1, -1, -1],
                [1, 0, -1, -1, -1, -1],
                [5, 0, -1, -1, -1, -1],
                [5, 0, -1, -1, -1, -1]
            ]
        );
        assert!(block_features(&PageBlocks::default(), None).is_empty());
    }
}
