//! The page type (WCXB's seven: article, collection, documentation, forum, listing,
//! product, service) and its probability: a small multiclass forest over page-level
//! evidence that means the same on every site, read while the page is prepared.
//!
//! The evidence ([`NAMES`], one number each): the URL's conventions (path depth, dates,
//! ids, words such as `/products/`, `/docs/`, `/threads/`, hosts such as `docs.` or
//! `forum.`), the title's words, what the page declares of itself (`og:type`, JSON-LD
//! `@type`s, the `<meta name="generator">` software), counts over the whole document
//! (forms, inputs, code, tables, list items, headings, `price` / `cart` / `comment` /
//! `pagination` in class and id names, a shop platform's scripts) and over the cleaner's
//! blocks (their text and link text, long paragraphs, repeated item runs, short blocks that
//! read as prices, cart buttons, forum furniture or dates). All of it is read in one pass
//! over the parsed nodes and one over the blocks: no text is parsed again.
//!
//! The model ([`Typer`]) is one forest of `forest.rs` per type, as scikit-learn's
//! multiclass `HistGradientBoostingClassifier` fits them (one tree per type and
//! iteration): each forest's raw score, then the softmax over the types.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::Regex;

use crate::model::forest::Forest;
use crate::page::blocks::PageBlocks;
use crate::page::declared::Declared;
use crate::read::parse::{attr, Arena, Data};

pub(crate) use self::tables::TYPES;
use self::tables::{
    ATTR_MARKS, GENERATOR_GROUPS, HOST_GROUPS, LD_GROUPS, PARAGRAPH, PHRASES, SEGMENTS, SHORT,
    TAGS, WORD_GROUPS,
};

mod tables;

fn price_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"[$€£¥₹]\s?\d|\d\s?[€£₹]|\b(?:USD|EUR|GBP|CAD|AUD)\b|\d[.,]\d\d\s?(?:kr|zł)")
            .unwrap()
    })
}

fn date_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|\b\d{4}-\d{2}-\d{2}\b|\b\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago\b",
        )
        .unwrap()
    })
}

fn url_date_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?:^|/)(?:19|20)\d\d/(?:[01]?\d)(?:/|$)|(?:19|20)\d\d-[01]\d-[0-3]\d").unwrap()
    })
}

/// The features' names, in their order in [`features`]' vector.
pub(crate) fn names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut n: Vec<String> = [
            "url_known",
            "url_depth",
            "url_path_chars",
            "url_root",
            "url_query",
            "url_file_ext",
            "url_trailing_slash",
            "url_slug_words",
            "url_numeric_segment",
            "url_long_number",
            "url_date",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        n.extend(WORD_GROUPS.iter().map(|(g, _)| format!("url_words_{g}")));
        n.extend(
            ["docs", "forum", "shop", "blog"]
                .iter()
                .map(|g| format!("host_{g}")),
        );
        n.push("host_labels".into());
        n.extend(WORD_GROUPS.iter().map(|(g, _)| format!("title_words_{g}")));
        n.push("title_tokens".into());
        n.extend(
            ["article", "product", "website", "other", "none"]
                .iter()
                .map(|g| format!("og_{g}")),
        );
        n.extend(
            [
                "article",
                "product",
                "list",
                "discussion",
                "technical",
                "service",
                "organization",
                "other_thing",
            ]
            .iter()
            .map(|g| format!("ld_{g}")),
        );
        n.push("ld_types".into());
        n.extend(
            ["forum", "docs", "shop", "blog"]
                .iter()
                .map(|g| format!("generator_{g}")),
        );
        n.push("shop_platform_scripts".into());
        n.push("elements".into());
        n.extend(TAGS.iter().map(|t| format!("tag_{t}")));
        n.extend(ATTR_MARKS.iter().map(|m| format!("attr_{}", m[0])));
        n.extend(
            [
                "blocks",
                "tokens",
                "max_block_tokens",
                "max_block_share",
                "paragraphs",
                "paragraph_share",
                "link_share",
                "link_blocks_share",
                "inputs",
                "heading_blocks",
                "code_blocks",
                "code_share",
                "li_blocks_share",
                "prices",
                "dates",
            ]
            .iter()
            .map(|s| format!("blocks_{s}")),
        );
        n.extend(
            ["shop", "forum", "more", "service"]
                .iter()
                .map(|g| format!("phrases_{g}")),
        );
        n.extend(
            ["top_kind", "second_kind", "kinds_repeated"]
                .iter()
                .map(|s| format!("runs_{s}")),
        );
        n.extend(
            ["forum", "story", "product"]
                .iter()
                .map(|s| format!("kind_{s}")),
        );
        n
    })
}

fn ln(x: usize) -> f64 {
    (x as f64).ln_1p()
}

fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// Per word group, whether one of `words` is in it (lowercased words).
fn word_groups<'a>(words: impl Iterator<Item = &'a str>) -> [bool; 7] {
    let mut out = [false; 7];
    for w in words {
        for (g, (_, list)) in WORD_GROUPS.iter().enumerate() {
            if list.contains(&w) {
                out[g] = true;
            }
        }
    }
    out
}

fn url_features(url: Option<&str>, out: &mut Vec<f64>) {
    let parts = url.and_then(crate::urls::url_parts);
    let query = url.is_some_and(|u| u.split('#').next().unwrap_or("").contains('?'));
    let (host, path) = match &parts {
        Some((netloc, path)) => (
            netloc
                .rsplit('@')
                .next()
                .unwrap_or("")
                .split(':')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase(),
            path.to_lowercase(),
        ),
        None => (String::new(), String::new()),
    };
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let last = segs.last().copied().unwrap_or("");
    out.push(flag(parts.is_some()));
    out.push(segs.len() as f64);
    out.push(ln(path.len()));
    out.push(flag(parts.is_some() && segs.is_empty()));
    out.push(flag(query));
    out.push(flag(
        [".html", ".htm", ".php", ".aspx", ".asp", ".jsp", ".cfm"]
            .iter()
            .any(|e| last.ends_with(e)),
    ));
    out.push(flag(path.len() > 1 && path.ends_with('/')));
    out.push(last.matches(['-', '_']).count() as f64);
    out.push(flag(
        segs.iter()
            .any(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())),
    ));
    let mut run = 0;
    let mut longest = 0;
    for b in path.bytes() {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    out.push(flag(longest >= 5));
    out.push(flag(url_date_re().is_match(&path)));
    let mut groups = word_groups(
        path.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty()),
    );
    for (seg, g) in SEGMENTS {
        if segs.contains(&seg) {
            groups[g] = true;
        }
    }
    out.extend(groups.iter().map(|&b| flag(b)));
    let labels: Vec<&str> = host.split('.').filter(|s| !s.is_empty()).collect();
    let first = labels.first().copied().unwrap_or("");
    let first = if first == "www" && labels.len() > 2 {
        labels[1]
    } else {
        first
    };
    out.extend(HOST_GROUPS.iter().map(|g| flag(g.contains(&first))));
    out.push(labels.len() as f64);
}

fn title_features(title: Option<&str>, out: &mut Vec<f64>) {
    let t = crate::text::lower(title.unwrap_or(""));
    let groups = word_groups(crate::text::tokens(&t));
    out.extend(groups.iter().map(|&b| flag(b)));
    out.push(ln(crate::text::count_tokens(&t)));
}

fn declared_features(d: &Declared, out: &mut Vec<f64>) {
    let og = d.og_type.as_deref();
    let og_article = matches!(og, Some("article" | "blog"));
    let og_product = og.is_some_and(|t| t.contains("product"));
    let og_website = og == Some("website");
    out.push(flag(og_article));
    out.push(flag(og_product));
    out.push(flag(og_website));
    out.push(flag(
        og.is_some() && !og_article && !og_product && !og_website,
    ));
    out.push(flag(og.is_none()));
    for g in LD_GROUPS {
        out.push(flag(d.ld_types.iter().any(|t| g.contains(&t.as_str()))));
    }
    out.push(ln(d.ld_types.len()));
    let generator = crate::text::lower(d.generator.as_deref().unwrap_or(""));
    for g in GENERATOR_GROUPS {
        out.push(flag(g.iter().any(|s| generator.contains(s))));
    }
}

/// Patterns of `groups`, each of its words one pattern, ASCII case ignored, and the group
/// of each pattern.
fn automaton(groups: &[&[&str]]) -> (AhoCorasick, Vec<u32>) {
    let mut words = Vec::new();
    let mut group = Vec::new();
    for (g, list) in groups.iter().enumerate() {
        for w in *list {
            words.push(*w);
            group.push(g as u32);
        }
    }
    let ac = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(words)
        .expect("valid patterns");
    (ac, group)
}

/// The groups (a bit each) of the patterns found in `text`.
fn groups_in(ac: &(AhoCorasick, Vec<u32>), text: &str) -> u32 {
    let mut bits = 0u32;
    for m in ac.0.find_overlapping_iter(text) {
        bits |= 1 << ac.1[m.pattern().as_usize()];
    }
    bits
}

fn attr_marks() -> &'static (AhoCorasick, Vec<u32>) {
    static AC: OnceLock<(AhoCorasick, Vec<u32>)> = OnceLock::new();
    AC.get_or_init(|| automaton(&ATTR_MARKS))
}

fn phrases() -> &'static (AhoCorasick, Vec<u32>) {
    static AC: OnceLock<(AhoCorasick, Vec<u32>)> = OnceLock::new();
    AC.get_or_init(|| automaton(&PHRASES))
}

/// The index of `tag` in [`TAGS`].
fn tag_index(tag: &str) -> Option<usize> {
    TAGS.iter().position(|t| *t == tag)
}

/// Counts over every element of the document: tags, marks in class, id and itemprop, and
/// a shop platform's scripts and styles.
fn document_features(a: &Arena, out: &mut Vec<f64>) {
    let mut tags = [0usize; TAGS.len()];
    let mut marks = [0usize; ATTR_MARKS.len()];
    let mut elements = 0;
    let mut platform = false;
    let ac = attr_marks();
    for node in a.nodes() {
        let Data::Element { name, attrs, .. } = &node.data else {
            continue;
        };
        elements += 1;
        let tag: &str = &name.local;
        if let Some(t) = tag_index(tag) {
            if tag != "input"
                || !attr(attrs, "type").is_some_and(|t| t.eq_ignore_ascii_case("hidden"))
            {
                tags[t] += 1;
            }
        }
        if attrs.is_empty() {
            continue;
        }
        if !platform && matches!(tag, "script" | "link") {
            let src = attr(attrs, "src")
                .or_else(|| attr(attrs, "href"))
                .unwrap_or("");
            platform = [
                "cdn.shopify.com",
                "woocommerce",
                "/static/version",
                "bigcommerce.com",
            ]
            .iter()
            .any(|p| src.contains(p));
        }
        let mut bits = 0u32;
        for x in attrs {
            if matches!(&*x.name.local, "class" | "id" | "itemprop") {
                bits |= groups_in(ac, &x.value);
            }
        }
        while bits != 0 {
            let m = bits.trailing_zeros() as usize;
            marks[m] += 1;
            bits &= bits - 1;
        }
    }
    out.push(flag(platform));
    out.push(ln(elements));
    out.extend(tags.iter().map(|&n| ln(n)));
    out.extend(marks.iter().map(|&n| ln(n)));
}

/// What the cleaner's blocks hold: text, links, paragraphs, code, short blocks that read as
/// prices, buttons or dates, and runs of elements alike (`tag.class`).
fn block_features(pb: &PageBlocks, out: &mut Vec<f64>) {
    let n = pb.text.len();
    let total: usize = pb.tokens.iter().sum();
    let max = pb.tokens.iter().copied().max().unwrap_or(0);
    let mut chars = 0i64;
    let mut links = 0i64;
    let mut link_blocks = 0;
    let (mut paragraphs, mut para_tokens) = (0, 0);
    let (mut headings, mut code, mut code_tokens, mut lis) = (0, 0, 0, 0);
    let (mut prices, mut dates) = (0, 0);
    let mut phrase_counts = [0usize; PHRASES.len()];
    let ac = phrases();
    for i in 0..n {
        let text = &pb.text[i];
        let c = text.chars().count() as i64;
        chars += c;
        links += pb.link_chars[i];
        if c > 0 && pb.link_chars[i] * 2 > c {
            link_blocks += 1;
        }
        let tok = pb.tokens[i];
        if tok >= PARAGRAPH {
            paragraphs += 1;
            para_tokens += tok;
        }
        let tag = pb.tags[pb.elem[i]].as_str();
        match tag {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => headings += 1,
            "pre" | "code" => {
                code += 1;
                code_tokens += tok;
            }
            "li" => lis += 1,
            _ => {}
        }
        if tok <= SHORT && !text.is_empty() {
            // (a price and a date hold a digit)
            if text.bytes().any(|b| b.is_ascii_digit()) {
                if price_re().is_match(text) {
                    prices += 1;
                }
                if date_re().is_match(text) {
                    dates += 1;
                }
            }
            let mut bits = groups_in(ac, text);
            while bits != 0 {
                phrase_counts[bits.trailing_zeros() as usize] += 1;
                bits &= bits - 1;
            }
        }
    }
    let share = |a: usize| {
        if total > 0 {
            a as f64 / total as f64
        } else {
            0.0
        }
    };
    let of_blocks = |a: usize| if n > 0 { a as f64 / n as f64 } else { 0.0 };
    out.push(ln(n));
    out.push(ln(total));
    out.push(ln(max));
    out.push(share(max));
    out.push(ln(paragraphs));
    out.push(share(para_tokens));
    out.push(if chars > 0 {
        links as f64 / chars as f64
    } else {
        0.0
    });
    out.push(of_blocks(link_blocks));
    out.push(ln(pb.n_inputs.iter().sum::<i64>().max(0) as usize));
    out.push(ln(headings));
    out.push(ln(code));
    out.push(share(code_tokens));
    out.push(of_blocks(lis));
    out.push(ln(prices));
    out.push(ln(dates));
    out.extend(phrase_counts.iter().map(|&x| ln(x)));
    // runs: elements alike by tag and class, the classed ones (a site's records)
    // (sorted and counted in runs: no hash a page could crowd)
    let mut kinds: Vec<&str> = pb
        .kinds
        .iter()
        .filter(|k| k.contains('.'))
        .map(String::as_str)
        .collect();
    kinds.sort_unstable();
    let mut top: Vec<usize> = kinds.chunk_by(|a, b| a == b).map(<[&str]>::len).collect();
    top.sort_unstable_by(|a, b| b.cmp(a));
    out.push(ln(top.first().copied().unwrap_or(0)));
    out.push(ln(top.get(1).copied().unwrap_or(0)));
    out.push(ln(top.iter().filter(|&&c| c >= 5).count()));
    out.push(flag(pb.kind.forum));
    out.push(flag(pb.kind.story));
    out.push(flag(pb.kind.product));
}

/// The page's evidence for its type, in the order of [`names`]. `a` is the page as parsed
/// (before content is revealed), `pb` its blocks with `pb.kind` set.
pub(crate) fn features(
    a: &Arena,
    declared: &Declared,
    pb: &PageBlocks,
    title: Option<&str>,
    url: Option<&str>,
) -> Vec<f64> {
    let mut out = Vec::with_capacity(names().len());
    url_features(url, &mut out);
    title_features(title, &mut out);
    declared_features(declared, &mut out);
    document_features(a, &mut out);
    block_features(pb, &mut out);
    debug_assert_eq!(out.len(), names().len());
    out
}

/// The page-type model: one forest per type of [`TYPES`], each taking [`names`]' features.
pub(crate) struct Typer {
    forests: Vec<Forest>,
}

impl Typer {
    pub(crate) fn new(forests: Vec<Forest>) -> Result<Typer, String> {
        if forests.len() != TYPES.len() {
            return Err(format!(
                "a page-type model needs {} forests (one per type), not {}",
                TYPES.len(),
                forests.len()
            ));
        }
        if let Some(f) = forests.iter().find(|f| f.n_features() != names().len()) {
            return Err(format!(
                "a page-type forest takes {} features; this sitesift reads {}",
                f.n_features(),
                names().len()
            ));
        }
        Ok(Typer { forests })
    }

    /// Each type's probability for the page of these features (softmax of the forests'
    /// raw scores).
    pub(crate) fn proba(&self, x: &[f64]) -> Vec<f64> {
        let raw: Vec<f64> = self.forests.iter().map(|f| f.raw_row(x)).collect();
        softmax(&raw)
    }

    /// The most likely type and its probability (the first type on a tie).
    pub(crate) fn classify(&self, x: &[f64]) -> (&'static str, f64) {
        let p = self.proba(x);
        let mut best = 0;
        for (i, v) in p.iter().enumerate() {
            if *v > p[best] {
                best = i;
            }
        }
        (TYPES[best], p[best])
    }
}

fn softmax(raw: &[f64]) -> Vec<f64> {
    let top = raw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = raw.iter().map(|v| (v - top).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|v| v / sum).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(html: &str, url: Option<&str>) -> Vec<f64> {
        let p = crate::clean::pipeline::prepare(html, url, false, true).unwrap();
        p.page_features.clone()
    }

    fn get(x: &[f64], name: &str) -> f64 {
        x[names().iter().position(|n| n == name).unwrap()]
    }

    #[test]
    fn every_feature_is_named_once_and_computed() {
        let names = names();
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        let x = read("<html><body><p>x</p></body></html>", None);
        assert_eq!(x.len(), names.len());
        assert!(x.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn the_url_tells_its_conventions() {
        let html = "<html><body><p>x</p></body></html>";
        let x = read(
            html,
            Some("https://docs.example.com/en/latest/api/reference.html"),
        );
        assert_eq!(get(&x, "host_docs"), 1.0);
        assert_eq!(get(&x, "url_words_documentation"), 1.0);
        assert_eq!(get(&x, "url_file_ext"), 1.0);
        assert_eq!(get(&x, "url_depth"), 4.0);
        let x = read(
            html,
            Some("https://shop.example.com/products/wool-runner-2"),
        );
        assert_eq!(get(&x, "url_words_product"), 1.0);
        assert_eq!(get(&x, "host_shop"), 1.0);
        assert_eq!(get(&x, "url_slug_words"), 2.0);
        let x = read(html, Some("https://example.org/t/help-me/12345"));
        assert_eq!(get(&x, "url_words_forum"), 1.0);
        assert_eq!(get(&x, "url_numeric_segment"), 1.0);
        assert_eq!(get(&x, "url_long_number"), 1.0);
        let x = read(html, Some("https://example.org/2024/05/a-story/"));
        assert_eq!(get(&x, "url_date"), 1.0);
        assert_eq!(get(&x, "url_trailing_slash"), 1.0);
        let x = read(html, Some("https://www.example.com/"));
        assert_eq!(get(&x, "url_root"), 1.0);
        let x = read(html, None);
        assert_eq!(get(&x, "url_known"), 0.0);
    }

    #[test]
    fn declarations_and_the_document_are_counted() {
        let html = "<html><head><title>Wool Runner | Shop</title>\
            <meta property='og:type' content='product'>\
            <script type='application/ld+json'>{\"@type\": \"Product\"}</script>\
            <script src='https://cdn.shopify.com/s/x.js'></script></head><body>\
            <h1>Wool Runner</h1><span class='price'>$98.00</span>\
            <form><input type='hidden' name='a'><input name='q'><button class='add-to-cart'>Add to cart</button></form>\
            <ul><li class='card'>a</li><li class='card'>b</li><li class='card'>c</li><li class='card'>d</li><li class='card'>e</li></ul>\
            </body></html>";
        let x = read(html, None);
        assert_eq!(get(&x, "og_product"), 1.0);
        assert_eq!(get(&x, "ld_product"), 1.0);
        assert_eq!(get(&x, "shop_platform_scripts"), 1.0);
        assert_eq!(get(&x, "title_words_collection"), 1.0);
        assert_eq!(get(&x, "tag_input"), 1f64.ln_1p());
        assert_eq!(get(&x, "attr_price"), 1f64.ln_1p());
        assert_eq!(get(&x, "attr_cart"), 1f64.ln_1p());
        assert_eq!(get(&x, "blocks_prices"), 1f64.ln_1p());
        assert_eq!(get(&x, "phrases_shop"), 1f64.ln_1p());
        assert_eq!(get(&x, "runs_top_kind"), 5f64.ln_1p());
        assert_eq!(get(&x, "kind_product"), 1.0);
    }

    #[test]
    fn softmax_sums_to_one_and_keeps_the_order() {
        let p = softmax(&[1.0, 3.0, -2.0, 0.0, 0.0, 0.0, 9.0]);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(p[6] > 0.99 && p[1] > p[0] && p[0] > p[2]);
        let big = softmax(&[1000.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!(big[0] == 1.0 && big.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn a_model_of_the_wrong_shape_is_refused() {
        assert!(Typer::new(Vec::new()).is_err());
    }
}
