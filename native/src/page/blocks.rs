//! One walk of a page's visible tree into text blocks, with what the features measure.
//!
//! A *block* is the own text of a block-level element (`p`, `div`, `li`, `td`, `h2`, ...):
//! the text of its inline descendants, not of nested block elements, which are blocks of
//! their own. That is the unit a verdict decides in the renderer, so the classifier's unit
//! and the output's unit are the same.

/// Keyword groups over class, id, role and itemprop values (lowercased).
pub(crate) const ATTR_GROUPS: &[(&str, &str)] = &[
    (
        "nav",
        r"nav|menu|breadcrumb|crumb|paginat|pager|paging|toolbar|skip-?link|jump-?to",
    ),
    ("header", r"header|masthead|branding|logo|topbar|top-bar"),
    ("footer", r"footer|copyright|colophon|legal|bottom"),
    (
        "sidebar",
        r"sidebar|side-bar|aside|widget|rail|sidebox|secondary|right-?col|left-?col",
    ),
    (
        "comment",
        r"comment|disqus|respond|discussion|discuss|replies|reply",
    ),
    (
        "share",
        r"share|social|sharing|facebook|twitter|linkedin|pinterest|whatsapp|addthis|print|email|follow",
    ),
    (
        "related",
        r"related|recommend|more-?stor|more-?articl|more-?from|popular|trending|most-?read|recirc|outbrain|taboola|also|you-?may|suggest|teaser|promo",
    ),
    (
        "ad",
        r"(^|[^a-z])ads?([^a-z]|$)|advert|sponsor|adsense|adslot|adunit|dfp|doubleclick|banner",
    ),
    (
        "content",
        r"content|article|post|entry|story|body|text|main|prose|markdown|rich|detail|blog",
    ),
    (
        "meta",
        r"byline|author|date|time|dateline|publish|posted|meta|info|tag|categor|label|keyword",
    ),
    (
        "caption",
        r"caption|credit|figure|photo|image|img|gallery|media|thumb|video",
    ),
    (
        "hidden",
        r"hidden|visually-?hidden|sr-only|screen-?reader|offscreen|invisible|collapse|dropdown|tooltip",
    ),
    (
        "popup",
        r"cookie|consent|gdpr|newsletter|subscri|signup|sign-up|login|log-in|register|modal|popup|overlay|dialog|paywall",
    ),
    ("title", r"title|headline|heading|(^|[^a-z])hed([^a-z]|$)"),
    (
        "product",
        r"product|price|sku|buy|cart|shop|offer|spec|review|rating",
    ),
    (
        "forum",
        r"message|thread|topic|answer|question|forum|bbcode|quote|signature",
    ),
    (
        "card",
        r"card|tile|grid|item|list|feed|stream|result|collection",
    ),
    ("search", r"search|query|filter|sort|facet"),
    ("code", r"code|highlight|syntax|example|snippet"),
    (
        "lead",
        r"lead|intro|summary|abstract|standfirst|dek|subtitle|excerpt|description",
    ),
];

/// Tag groups: the element's own kind.
pub(crate) const TAG_GROUPS: &[(&str, &[&str])] = &[
    ("t_nav", &["nav", "menu"]),
    ("t_header", &["header"]),
    ("t_footer", &["footer"]),
    ("t_aside", &["aside"]),
    ("t_article", &["article"]),
    ("t_main", &["main"]),
    ("t_section", &["section"]),
    (
        "t_form",
        &[
            "form", "fieldset", "select", "textarea", "button", "label", "option", "input",
        ],
    ),
    (
        "t_table",
        &[
            "table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption",
        ],
    ),
    ("t_list", &["ul", "ol", "li", "dir"]),
    ("t_dl", &["dl", "dt", "dd"]),
    ("t_figure", &["figure", "figcaption"]),
    ("t_quote", &["blockquote", "q"]),
    ("t_pre", &["pre", "code", "kbd", "samp"]),
    ("t_heading", &["h1", "h2", "h3", "h4", "h5", "h6", "hgroup"]),
    ("t_p", &["p"]),
    ("t_link", &["a"]),
    ("t_address", &["address", "time"]),
    ("t_details", &["details", "summary", "dialog"]),
    ("t_center", &["center", "font", "marquee"]),
];

pub(crate) const N_ATTR: usize = 20;
const N_TAG: usize = 20;
pub(crate) const N_NEAR: usize = N_ATTR + N_TAG;

crate::ids::typed_id!(
    /// An element of a page's blocks: its place in the walk, the visible tree's preorder
    /// (`View::preorder` names its element of the tree). The element arrays (`tags`,
    /// `flags`, the rules' `Vec<bool>`s over elements) are indexed by it directly.
    ElemId
);

crate::ids::index_slices_by!(ElemId);

crate::ids::typed_id!(
    /// A block of a page: its place among `PageBlocks`'s blocks, in the order their text
    /// starts in the document. The block arrays (`elem`, `text`, `tokens`, the feature rows,
    /// the probabilities and the rules' `Vec<bool>`s over blocks) are indexed by it directly.
    BlockId
);

crate::ids::index_slices_by!(BlockId);

/// The blocks of one page and the element arrays behind them.
///
/// Elements are in document (pre)order; `parent[e]` is element e's parent (none for
/// `<body>`). Blocks are in the order their text starts in the document.
#[derive(Debug, Clone, Default)]
pub(crate) struct PageBlocks {
    // elements
    pub(crate) tags: Vec<String>,
    pub(crate) parent: Vec<Option<ElemId>>,
    pub(crate) depth: Vec<i64>,
    /// own keyword-group bits (ATTR_GROUPS)
    pub(crate) flags: Vec<u32>,
    /// own tag-group bits (TAG_GROUPS)
    pub(crate) tag_flags: Vec<u32>,
    /// `tag.class` (or the tag alone without attributes): records of one list look alike
    pub(crate) kinds: Vec<String>,
    /// what the element's class or id says of a cookie-consent dialog
    pub(crate) consent: Vec<ConsentName>,
    // blocks
    /// the block's element
    pub(crate) elem: Vec<ElemId>,
    /// its own text, whitespace folded ("\n" where a line breaks)
    pub(crate) text: Vec<String>,
    /// its tokens (`text::count_tokens`: runs of word characters), counted once for every
    /// rule that weighs blocks by their text
    pub(crate) tokens: Vec<usize>,
    /// non-space characters (code points) of that text inside links
    pub(crate) link_chars: Vec<i64>,
    /// of those, the characters in links to another host than the page's (none where the
    /// page's URL is not known)
    pub(crate) away_chars: Vec<i64>,
    pub(crate) n_links: Vec<i64>,
    pub(crate) n_images: Vec<i64>,
    pub(crate) n_inputs: Vec<i64>,
    /// lines the text is split into
    pub(crate) n_lines: Vec<i64>,
    /// depth of the nearest ancestor-or-self with each flag (attr groups, then tag groups),
    /// -1 where there is none
    pub(crate) nearest: Vec<[i64; N_NEAR]>,
    pub(crate) title: String,
    pub(crate) url: Option<String>,
    /// what kind of page it is (set by `pipeline::prepare`, which reads the whole document)
    pub(crate) kind: crate::page::kind::PageKind,
}

impl PageBlocks {
    /// The lowest element holding every one of `elems` (one of them, if it holds the
    /// others; None for none): the deeper of two walks up until they meet.
    pub(crate) fn lowest_common(&self, elems: impl IntoIterator<Item = ElemId>) -> Option<ElemId> {
        let mut elems = elems.into_iter();
        let mut a = elems.next()?;
        for mut b in elems {
            while a != b {
                if self.depth[a] >= self.depth[b] {
                    a = self.parent[a]?;
                } else {
                    b = self.parent[b]?;
                }
            }
        }
        Some(a)
    }

    /// How many elements the page has.
    pub(crate) fn n_elems(&self) -> usize {
        self.parent.len()
    }

    /// How many blocks the page has.
    pub(crate) fn n_blocks(&self) -> usize {
        self.elem.len()
    }

    /// Every block, in document order.
    pub(crate) fn blocks(&self) -> impl DoubleEndedIterator<Item = BlockId> {
        BlockId::all(self.n_blocks())
    }

    /// Every block with its element.
    pub(crate) fn block_elems(&self) -> impl Iterator<Item = (BlockId, ElemId)> + '_ {
        self.blocks().zip(self.elem.iter().copied())
    }

    /// Every element, in preorder.
    pub(crate) fn elems(&self) -> impl DoubleEndedIterator<Item = ElemId> {
        ElemId::all(self.parent.len())
    }

    /// `e` and the elements above it, up to `<body>`.
    pub(crate) fn self_and_ancestors(&self, e: ElemId) -> impl Iterator<Item = ElemId> + '_ {
        std::iter::successors(Some(e), |&x| self.parent[x])
    }

    /// Per element, the sum of `per_block` over the blocks in its subtree (elements come in
    /// preorder: children after parents).
    pub(crate) fn subtree_sums(&self, per_block: impl Fn(BlockId) -> usize) -> Vec<usize> {
        let mut own = vec![0usize; self.n_elems()];
        for (b, e) in self.block_elems() {
            own[e] += per_block(b);
        }
        self.added_up(own)
    }

    /// Per element, how many elements of its subtree (itself included) `pick` picks.
    pub(crate) fn element_sums(&self, pick: impl Fn(ElemId) -> bool) -> Vec<usize> {
        self.added_up(self.elems().map(|e| usize::from(pick(e))).collect())
    }

    /// Each element's own figure plus its descendants' (children come after their parent
    /// in preorder, so one backward pass).
    fn added_up(&self, mut sum: Vec<usize>) -> Vec<usize> {
        for e in self.elems().rev() {
            if let Some(up) = self.parent[e] {
                sum[up] += sum[e];
            }
        }
        sum
    }

    /// Where the subtree of element `root` ends: in preorder it is `root..end`.
    pub(crate) fn subtree_end(&self, root: ElemId) -> usize {
        (root.index() + 1..self.n_elems())
            .find(|&e| self.depth[e] <= self.depth[root])
            .unwrap_or(self.n_elems())
    }

    /// Block `b`'s characters that are not space, counted as `link_chars` counts them.
    pub(crate) fn text_chars(&self, b: BlockId) -> i64 {
        crate::text::split_ws(&self.text[b])
            .map(|w| w.chars().count() as i64)
            .sum()
    }

    /// Per element, whether it or an ancestor is one `own` holds (elements come in preorder,
    /// parents first).
    pub(crate) fn under(&self, own: impl Fn(ElemId) -> bool) -> Vec<bool> {
        let mut inside = vec![false; self.n_elems()];
        for e in self.elems() {
            inside[e] = self.parent[e].is_some_and(|up| inside[up]) || own(e);
        }
        inside
    }

    /// Per element, whether it is `root` or lies under it (elements come in preorder,
    /// parents first).
    pub(crate) fn subtree(&self, root: ElemId) -> Vec<bool> {
        let mut inside = vec![false; self.n_elems()];
        for e in self.elems().skip(root.index()) {
            inside[e] = e == root || self.parent[e].is_some_and(|up| inside[up]);
        }
        inside
    }
}

/// The site evidence of one page's blocks (`site::Evidence::shares`): per block, the share
/// of the site's other pages with the same text, the same digit-folded text and text at the
/// same layout position, and how many other pages there are (0: no evidence).
#[derive(Debug, Clone, Default)]
pub(crate) struct SiteShares {
    pub(crate) text: Vec<f64>,
    pub(crate) folded: Vec<f64>,
    pub(crate) path: Vec<f64>,
    pub(crate) others: usize,
}

use foldhash::{HashMap, HashMapExt};
use std::cell::RefCell;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

use regex::{Regex, RegexSet};

use crate::read::dom::{is_block_tag, Item, View, ViewId};
use crate::text::WordHasher;
use crate::text::{all_space, lower, split_ws};

const INPUTS: &[&str] = &["input", "select", "textarea", "button"];

fn role_group(role: &str) -> Option<&'static str> {
    Some(match role {
        "navigation" | "menu" | "menubar" | "tablist" => "nav",
        "banner" => "header",
        "contentinfo" => "footer",
        "complementary" => "sidebar",
        "main" | "article" => "content",
        "search" => "search",
        "dialog" | "alertdialog" => "popup",
        "heading" => "title",
        _ => return None,
    })
}

fn itemprop_group(word: &str) -> Option<&'static str> {
    Some(match word {
        "articlebody" | "text" | "reviewbody" => "content",
        "description" => "lead",
        "headline" | "name" => "title",
        "author" | "datepublished" | "datemodified" => "meta",
        "comment" => "comment",
        "price" | "offers" => "product",
        _ => return None,
    })
}

pub(crate) fn attr_flag(name: &str) -> u32 {
    let i = ATTR_GROUPS
        .iter()
        .position(|(n, _)| *n == name)
        .expect("a keyword group");
    1 << i
}

/// The tag-group bits of `tag` (`TAG_GROUPS`), from a fixed map of the groups' names
/// (`WordHasher`, as the stop words: no page can crowd its buckets); 0 for any other tag.
/// The walk asks it of every element, where testing the twenty groups' lists in turn made
/// about sixty comparisons.
pub(crate) fn tag_bits(tag: &str) -> u32 {
    type TagMap = std::collections::HashMap<&'static str, u32, BuildHasherDefault<WordHasher>>;
    static MAP: OnceLock<TagMap> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let mut map = TagMap::default();
        for (i, (_, tags)) in TAG_GROUPS.iter().enumerate() {
            for &t in *tags {
                *map.entry(t).or_insert(0) |= 1 << i;
            }
        }
        map
    });
    map.get(tag).copied().unwrap_or(0)
}

/// The keyword groups as one set: a set reports every pattern that matches anywhere, as
/// each one's `is_match` would, in one pass over the value where twenty searches made
/// twenty (each with its own prefilter's start-up on a value of a few dozen bytes).
fn attr_set() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| RegexSet::new(ATTR_GROUPS.iter().map(|(_, rx)| rx)).unwrap())
}

thread_local! {
    /// Keyword-group bits by "class id" value (as written; lowercased before matching):
    /// sites repeat the same values on every page. Bounded: cleared when it grows large.
    static MEMO: RefCell<HashMap<String, u32>> = RefCell::new(HashMap::new());
}

/// Keyword-group bits of a "class id" value, matched lowercased, memoised.
fn words_flags(value: &str) -> u32 {
    if let Some(bits) = MEMO.with(|m| m.borrow().get(value).copied()) {
        return bits;
    }
    let low = lower(value);
    let bits = attr_set()
        .matches(&low)
        .into_iter()
        .fold(0, |bits, i| bits | 1 << i);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() > 1 << 15 {
            m.clear();
        }
        m.insert(value.to_string(), bits);
    });
    bits
}

/// Keyword-group bits of an element's class, id, role and itemprop.
fn attr_flags<'a>(get: impl Fn(&str) -> Option<&'a str>) -> u32 {
    let mut bits = 0;
    let cls = get("class").filter(|v| !v.is_empty());
    let ident = get("id").filter(|v| !v.is_empty());
    if cls.is_some() || ident.is_some() {
        let joined = crate::text::joined(cls.unwrap_or(""), ' ', ident.unwrap_or(""));
        bits = words_flags(&joined);
    }
    if let Some(role) = get("role").filter(|v| !v.is_empty()) {
        if let Some(name) = role_group(&lower(crate::text::strip(role))) {
            bits |= attr_flag(name);
        }
    }
    if let Some(prop) = get("itemprop").filter(|v| !v.is_empty()) {
        for word in split_ws(&lower(prop)) {
            if let Some(name) = itemprop_group(word) {
                bits |= attr_flag(name);
            }
        }
    }
    bits
}

/// What an element's class or id says of a cookie-consent dialog.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ConsentName {
    #[default]
    No,
    /// a consent word of the site's own (`cookie-banner`, `gdpr-notice`, `cookie-policy`)
    Named,
    /// a consent manager's own container, which its script adds to the page: OneTrust,
    /// Cookiebot, Didomi, Usercentrics, TrustArc, Quantcast, Sourcepoint, Ethyca's Fides
    Manager,
}

/// Does an element's class or id name a cookie-consent dialog (a consent manager's
/// banner or settings panel, or a site's own), and is it a consent manager's? Read word
/// by word, passing over a blog's taxonomy classes (`tag-cookies`, `category-consent`:
/// the post's topics, not a dialog).
pub(crate) fn names_consent(class: Option<&str>, id: Option<&str>) -> ConsentName {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?i)consent|gdpr|cookie-?law|cookies?[-_]?(banner|notice|bar|popup|modal|dialog|message|wall|settings|preferences|policy|info|alert|box|container|overlay|warning|accept)|^cc[-_](window|banner)",
        )
        .unwrap()
    });
    static MANAGER: OnceLock<Regex> = OnceLock::new();
    let manager = MANAGER.get_or_init(|| {
        Regex::new(
            r"(?i)onetrust|cookiebot|didomi|usercentrics|truste([-_]|$)|trustarc|qc-cmp|sp_message|^fides[-_]",
        )
        .unwrap()
    });
    let taxonomy = |w: &str| {
        let w = w.to_ascii_lowercase();
        ["tag-", "category-", "topic-", "post_tag-", "tags-"]
            .iter()
            .any(|p| w.starts_with(p))
    };
    // (one match over the whole value first: most values name no dialog, and the word-by-word
    // reading, which `^cc-` needs, is only for those that may)
    static ANY: OnceLock<Regex> = OnceLock::new();
    let any = ANY.get_or_init(|| {
        Regex::new(
            r"(?i)consent|gdpr|onetrust|cookie|didomi|usercentrics|truste|qc-cmp|sp_message|cc[-_]|fides",
        )
        .unwrap()
    });
    let mut name = ConsentName::No;
    for v in [class, id]
        .into_iter()
        .flatten()
        .filter(|v| any.is_match(v))
    {
        for w in v.split_ascii_whitespace().filter(|w| !taxonomy(w)) {
            if manager.is_match(w) {
                return ConsentName::Manager;
            }
            if re.is_match(w) {
                name = ConsentName::Named;
            }
        }
    }
    name
}

/// Does a class word name the layout its element has (`p-body-main--withSidebar`,
/// `has-sidebar`, `no_sidebar`) rather than a sidebar (`sidebar`, `casino-widget`)?
fn layout_word(word: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(^|[._-])(with|has|no|without)[-_]?(sidebar|side-bar|aside|widget|rail)")
            .unwrap()
    })
    .is_match(word)
}

/// Does a class word name how its element looks, a theme's second colour or style
/// (Bootstrap's `text-secondary`, `btn-secondary`; Tailwind's `lg:text-dark-secondary`,
/// `bg-secondary-500`), rather than a secondary column? Utility-class pages put such words
/// on their main text's paragraphs.
fn look_word(word: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)^([a-z0-9-]+:)*(text|bg|border|btn|badge|alert|link|outline|ring|fill|stroke|from|via|to|decoration|shadow|divide|placeholder|accent|caret|table|list-group-item|color|font)-([a-z0-9]+-)*secondary([-/][a-z0-9]+)*$",
        )
        .unwrap()
    })
    .is_match(word)
}

/// Does a class word name a page builder's content block (Elementor's `elementor-widget`,
/// `elementor-widget-text-editor`, `elementor-widget-heading`) rather than a sidebar's
/// widget? Such a builder wraps every heading and paragraph of the page in one.
fn builder_word(word: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?i)^elementor-widget(-[a-z0-9-]+)?$").unwrap())
        .is_match(word)
}

/// Is an element's `sidebar` keyword only in class words naming a layout, a look or a page
/// builder's block (`layout_word`, `look_word`, `builder_word`): does it go once those
/// words are left out of its class (id, role and the other words read as before)?
fn sidebar_only_as_layout<'a>(get: impl Fn(&str) -> Option<&'a str>) -> bool {
    let Some(class) = get("class") else {
        return false;
    };
    let no_part = |w: &str| layout_word(w) || look_word(w) || builder_word(w);
    if !class.split_ascii_whitespace().any(no_part) {
        return false;
    }
    let rest: Vec<&str> = class
        .split_ascii_whitespace()
        .filter(|w| !no_part(w))
        .collect();
    let rest = rest.join(" ");
    let bits = attr_flags(|k| {
        if k == "class" {
            Some(rest.as_str())
        } else {
            get(k)
        }
    });
    bits & attr_flag("sidebar") == 0
}

/// Every element and every block of the page's visible tree.
pub(crate) fn walk(view: &View, title: Option<&str>, url: Option<&str>) -> PageBlocks {
    let n_el = view.elems.len();
    let mut pb = PageBlocks {
        title: title.unwrap_or("").to_string(),
        url: url.map(str::to_string),
        ..Default::default()
    };
    let mut owner_of: Vec<ElemId> = Vec::with_capacity(n_el);
    let mut in_link: Vec<bool> = Vec::with_capacity(n_el);
    let mut away: Vec<bool> = Vec::with_capacity(n_el);
    let mut b_away: Vec<i64> = Vec::new();
    let page_host = url.and_then(crate::urls::url_host);
    let mut nearest_of: Vec<[i64; N_NEAR]> = Vec::with_capacity(n_el);
    // owner element (walk index) -> its block; usize::MAX: none yet
    let mut block_of: Vec<usize> = vec![usize::MAX; n_el];
    let mut b_elem: Vec<ElemId> = Vec::new();
    let mut b_parts: Vec<String> = Vec::new();
    let mut b_link: Vec<i64> = Vec::new();
    let mut b_links: Vec<i64> = Vec::new();
    let mut b_images: Vec<i64> = Vec::new();
    let mut b_inputs: Vec<i64> = Vec::new();

    macro_rules! block {
        ($owner:expr) => {{
            let owner: ElemId = $owner;
            match block_of[owner] {
                b if b != usize::MAX => b,
                _ => {
                    let b = b_elem.len();
                    block_of[owner] = b;
                    b_elem.push(owner);
                    b_parts.push(String::new());
                    b_link.push(0);
                    b_away.push(0);
                    b_links.push(0);
                    b_images.push(0);
                    b_inputs.push(0);
                    b
                }
            }
        }};
    }

    enum Work<'a> {
        Node(ViewId, Option<ElemId>),
        Text(&'a str, ElemId),
    }
    let mut stack: Vec<Work> = vec![Work::Node(ViewId::BODY, None)];
    while let Some(item) = stack.pop() {
        match item {
            Work::Text(text, up) => {
                let owner = owner_of[up];
                let b = match block_of[owner] {
                    b if b != usize::MAX => b,
                    _ => {
                        if all_space(text) {
                            continue;
                        }
                        block!(owner)
                    }
                };
                b_parts[b].push_str(text);
                if in_link[up] {
                    let n = split_ws(text)
                        .map(|w| w.chars().count() as i64)
                        .sum::<i64>();
                    b_link[b] += n;
                    if away[up] {
                        b_away[b] += n;
                    }
                }
            }
            Work::Node(v, up) => {
                let el = &view[v];
                let tag = el.tag.as_str();
                let i = ElemId::new(pb.tags.len());
                pb.tags.push(el.tag.clone());
                pb.parent.push(up);
                let d = up.map_or(0, |up| pb.depth[up] + 1);
                pb.depth.push(d);
                let mut own = if el.has_attrs {
                    attr_flags(|k| el.get(k))
                } else {
                    0
                };
                // A `sidebar` keyword only the layout's, look's or page builder's words gave
                // (`main--withSidebar`, `text-secondary`, `elementor-widget-text-editor`)
                // says nothing of what the element is: neither the features nor the rules
                // read it.
                if own & attr_flag("sidebar") != 0 && sidebar_only_as_layout(|k| el.get(k)) {
                    own &= !attr_flag("sidebar");
                }
                let tbits = tag_bits(tag);
                pb.flags.push(own);
                pb.tag_flags.push(tbits);
                pb.consent.push(if el.has_attrs {
                    names_consent(el.get("class"), el.get("id"))
                } else {
                    ConsentName::No
                });
                pb.kinds.push(if el.has_attrs {
                    crate::text::joined(tag, '.', el.get("class").unwrap_or(""))
                } else {
                    el.tag.clone()
                });
                let link = tag == "a" || up.is_some_and(|up| in_link[up]);
                in_link.push(link);
                away.push(if tag == "a" {
                    // (a relative link stays on the page's host)
                    page_host.as_ref().is_some_and(|page| {
                        el.get("href")
                            .and_then(|h| crate::urls::url_host(h.trim()))
                            .is_some_and(|h| h != *page)
                    })
                } else {
                    up.is_some_and(|up| away[up])
                });
                let mut near = up.map_or([-1; N_NEAR], |up| nearest_of[up]);
                let bits = (own as u64) | ((tbits as u64) << N_ATTR);
                for (k, slot) in near.iter_mut().enumerate() {
                    if bits >> k & 1 == 1 {
                        *slot = d;
                    }
                }
                nearest_of.push(near);
                if is_block_tag(tag) && tag != "br" && tag != "hr" {
                    owner_of.push(i);
                    if let Some(up) = up {
                        let b = block_of[owner_of[up]];
                        if b != usize::MAX {
                            b_parts[b].push('\n');
                        }
                    }
                } else {
                    let owner = up.map_or(i, |up| owner_of[up]);
                    owner_of.push(owner);
                    if tag == "br"
                        || tag == "hr"
                        || tag == "img"
                        || tag == "a"
                        || INPUTS.contains(&tag)
                    {
                        let b = block!(owner);
                        match tag {
                            "br" | "hr" => b_parts[b].push('\n'),
                            "img" => b_images[b] += 1,
                            "a" => b_links[b] += 1,
                            _ => b_inputs[b] += 1,
                        }
                    }
                }
                for child in el.children.iter().rev() {
                    match child {
                        Item::Elem(k) => stack.push(Work::Node(*k, Some(i))),
                        Item::Text(t) => stack.push(Work::Text(t.as_str(), i)),
                    }
                }
            }
        }
    }
    for (b, parts) in b_parts.iter().enumerate() {
        let lines: Vec<String> = parts
            .split('\n')
            .map(crate::text::fold_ws)
            .filter(|x| !x.is_empty())
            .collect();
        if !lines.is_empty() {
            pb.elem.push(b_elem[b]);
            pb.n_lines.push(lines.len() as i64);
            let text = lines.join("\n");
            pb.tokens.push(crate::text::count_tokens(&text));
            pb.text.push(text);
            pb.link_chars.push(b_link[b]);
            pb.away_chars.push(b_away[b]);
            pb.n_links.push(b_links[b]);
            pb.n_images.push(b_images[b]);
            pb.n_inputs.push(b_inputs[b]);
            pb.nearest.push(nearest_of[b_elem[b]]);
        }
    }
    pb
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::page;

    #[test]
    fn the_keyword_set_finds_what_each_group_finds() {
        // the set (one pass) against each group's own pattern (`is_match`), bit for bit
        let each: Vec<Regex> = ATTR_GROUPS
            .iter()
            .map(|(_, rx)| Regex::new(rx).unwrap())
            .collect();
        for value in [
            "",
            " ",
            "main-nav menu",
            "ads",
            "ad-slot banner",
            "header-ad",
            "loads of text",
            "hed",
            "dek hed-2",
            "shed",
            "post-body entry-content",
            "sidebar widget_recent_entries",
            "ÄDS caf\u{e9}-ad",
            "cookie-consent modal",
            "skiplink jump-to",
            "more-stories morestor you-may",
        ] {
            let low = lower(value);
            let one_by_one = each
                .iter()
                .enumerate()
                .filter(|(_, rx)| rx.is_match(&low))
                .fold(0u32, |bits, (i, _)| bits | 1 << i);
            assert_eq!(words_flags(value), one_by_one, "{value:?}");
        }
    }

    #[test]
    fn tag_lookups_agree_with_the_lists() {
        let mut names: Vec<&str> = TAG_GROUPS
            .iter()
            .flat_map(|(_, t)| t.iter().copied())
            .collect();
        names.extend(crate::read::dom::BLOCK_TAGS);
        names.extend(["span", "#text", "", "DIV", "divx", "custom-element", "h7"]);
        for tag in names {
            let bits = TAG_GROUPS
                .iter()
                .enumerate()
                .filter(|(_, (_, tags))| tags.contains(&tag))
                .fold(0u32, |bits, (i, _)| bits | 1 << i);
            assert_eq!(tag_bits(tag), bits, "{tag:?}");
            assert_eq!(
                is_block_tag(tag),
                crate::read::dom::BLOCK_TAGS.contains(&tag),
                "{tag:?}"
            );
        }
    }

    #[test]
    fn consent_dialogs_are_told_by_name_not_by_a_posts_topics() {
        use ConsentName::{Manager, Named, No};
        for (class, id, name) in [
            (
                Some("ot-sdk-container"),
                Some("onetrust-consent-sdk"),
                Manager,
            ),
            (Some("cookie-banner is-open"), None, Named),
            (None, Some("CybotCookiebotDialog"), Manager),
            (Some("qc-cmp2-container"), None, Manager),
            (
                Some("truste_box_overlay"),
                Some("truste-consent-track"),
                Manager,
            ),
            (
                Some("fides-overlay"),
                Some("fides-banner-container"),
                Manager,
            ),
            (Some("cookie-policy"), None, Named),
            (Some("gdpr-notice"), None, Named),
        ] {
            assert_eq!(names_consent(class, id), name, "{class:?} {id:?}");
        }
        for (class, id) in [
            (
                Some("post tag-cookies category-consent"),
                Some("post-22723"),
            ),
            (Some("cmp-container"), None), // Adobe's core components, not a consent manager
            (Some("cookie-recipe"), None),
            (Some("fidesz-news"), None),
            (Some("board-of-trustees"), Some("trusted-brands")),
            (None, None),
        ] {
            assert_eq!(names_consent(class, id), No, "{class:?} {id:?}");
        }
    }

    /// Whether the element around each block of text `texts` keeps its `sidebar` keyword.
    fn sidebar_of(html: &str, texts: &[&str]) -> Vec<bool> {
        let (pb, _, _) = page(html, &[]);
        texts
            .iter()
            .map(|t| {
                let b = pb.text.iter().position(|x| x == t).unwrap();
                pb.flags[pb.parent[pb.elem[b]].unwrap()] & attr_flag("sidebar") != 0
            })
            .collect()
    }

    #[test]
    fn a_sidebar_named_only_by_its_layout_is_told_from_a_sidebar() {
        for w in [
            "p-body-main--withSidebar",
            "has-sidebar",
            "no_sidebar",
            "without-widgets",
        ] {
            assert!(layout_word(w), "{w}");
        }
        for w in [
            "sidebar",
            "widget-area",
            "right-rail",
            "casino-widget",
            "piano-sidebar",
        ] {
            assert!(!layout_word(w), "{w}");
        }
        let html = "<div class='main main--withSidebar'><p>a</p></div>\
                    <div id='sidebar' class='has-widgets'><p>b</p></div>\
                    <div class='sidebar has-widgets'><p>c</p></div>\
                    <div role='complementary' class='with-widgets'><p>d</p></div>";
        assert_eq!(
            sidebar_of(html, &["a", "b", "c", "d"]),
            [false, true, true, true]
        );
    }

    #[test]
    fn a_page_builders_block_is_no_sidebar() {
        for w in [
            "elementor-widget",
            "elementor-widget-container",
            "elementor-widget-text-editor",
        ] {
            assert!(builder_word(w), "{w}");
        }
        for w in [
            "widget",
            "widget_text",
            "textwidget",
            "widget-area",
            "my-elementor-widget",
        ] {
            assert!(!builder_word(w), "{w}");
        }
        let html = "<div class='elementor-element elementor-widget elementor-widget-text-editor'>\
                    <p>a</p></div><aside class='widget widget_text'><p>b</p></aside>";
        assert_eq!(sidebar_of(html, &["a", "b"]), [false, true]);
    }

    #[test]
    fn a_theme_colour_is_no_sidebar() {
        for w in [
            "text-secondary",
            "btn-secondary",
            "lg:text-dark-secondary",
            "bg-secondary-500",
            "hover:text-secondary/80",
        ] {
            assert!(look_word(w), "{w}");
        }
        for w in [
            "secondary",
            "secondary-column",
            "sidebar-secondary",
            "col-secondary",
        ] {
            assert!(!look_word(w), "{w}");
        }
        let html = "<div class='font-normal text-text-dark-secondary'><p>a</p></div>\
                    <div class='secondary text-secondary'><p>b</p></div>";
        assert_eq!(sidebar_of(html, &["a", "b"]), [false, true]);
    }

    #[test]
    fn the_lowest_common_element_and_its_subtree() {
        let html = "<div><ul><li><p>a</p></li><li><p>b</p></li></ul><p>c</p></div>";
        let (pb, _, _) = page(html, &[]);
        let elem_of = |t: &str| pb.elem[pb.text.iter().position(|x| x == t).unwrap()];
        let (a, b, c) = (elem_of("a"), elem_of("b"), elem_of("c"));
        let ul = pb.lowest_common([a, b]).unwrap();
        assert_eq!(pb.tags[ul], "ul");
        assert_eq!(pb.tags[pb.lowest_common([a, c]).unwrap()], "div");
        assert_eq!(pb.lowest_common([a]), Some(a));
        assert_eq!(pb.lowest_common([]), None);
        let inside = pb.subtree(ul);
        assert!(inside[ul] && inside[a] && inside[b] && !inside[c]);
    }

    #[test]
    fn links_to_another_host_are_counted_apart() {
        let html = "<p><a href='https://shop.example.org/k'>Kettle</a> and \
                    <a href='/news/1'>news</a> and <a href='//www.Example.com:8080/x'>here</a> \
                    and <a href='https://www.example.com/y'>there</a></p>";
        let a = crate::read::parse::parse(html);
        let view = crate::read::dom::build_view(&a, a.html_child("body").unwrap());
        let pb = walk(&view, None, Some("https://example.com/story"));
        assert_eq!((pb.link_chars[0], pb.away_chars[0]), (19, 6));
        // with no URL no link is known to leave the page's host
        let pb = walk(&view, None, None);
        assert_eq!(pb.away_chars[0], 0);
    }

    #[test]
    fn a_subtree_ends_where_preorder_leaves_it_and_text_chars_skip_space() {
        let html = "<div><p>a b</p><ul><li>c</li></ul></div><p>d\u{a0}e</p>";
        let a = crate::read::parse::parse(html);
        let view = crate::read::dom::build_view(&a, a.html_child("body").unwrap());
        let pb = walk(&view, None, None);
        let div = pb.parent[pb.elem[0]].unwrap();
        assert_eq!(pb.tags[div], "div");
        let end = pb.subtree_end(div);
        assert!((div.index()..end).all(|e| pb.subtree(div)[e]));
        assert!(!pb.subtree(div)[end]);
        assert_eq!(
            (
                pb.text_chars(BlockId::new(0)),
                pb.text_chars(BlockId::new(2))
            ),
            (2, 2)
        );
    }
}
