//! Pages whose main content is not displayed until a script runs (or a reader clicks):
//! React's streamed segments, disclosure panels (tabs, accordions, FAQ answers), curtains
//! (one hidden element holding most of the page's text) and script-gated pages (little
//! visible text, much more in `<noscript>` and `hidden` parts). The parsed document is
//! edited so that those parts show; hidden menus, dialogs and tooltips stay hidden. The
//! rules and thresholds are `sitesift.extractor.reveal`'s, documented there.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::sync::OnceLock;

use regex::Regex;

use crate::read::dom::{hidden_style_re, is_hidden};
use crate::read::parse::{attr, Arena, NodeId};
use crate::text::{count_tokens, fold_ws, lower};

const MAX_VISIBLE_TOKENS: usize = 400;
const MIN_HIDDEN_TOKENS: usize = 100;
const MIN_GAIN: f64 = 2.0;
const CURTAIN_SHARE: f64 = 0.5;

const NOT_CONTENT: &str = r"nav|menu|dropdown|drawer|modal|popup|popover|overlay|dialog|cart|login|sign-?in|search|cookie|consent|tooltip|toast|banner";
const CHROME_TAGS: &[&str] = &["nav", "header", "footer", "aside", "dialog", "menu"];
const CHROME_ROLES: &[&str] = &[
    "navigation",
    "dialog",
    "menu",
    "menubar",
    "banner",
    "contentinfo",
    "complementary",
];
const HINTS: &[&str] = &[
    "tabpanel",
    "aria-labelledby",
    "accordion",
    "collaps",
    "faq",
    "answer",
    "tab-pane",
    "tab-panel",
    "tab-content",
    "tabs-content",
];
const HIDING: &[&str] = &["hidden", "display", "visibility"];

struct Res {
    segment: Regex,
    disclosure: Regex,
    not_content: Regex,
    curtain_chrome: Regex,
}

fn res() -> &'static Res {
    static R: OnceLock<Res> = OnceLock::new();
    R.get_or_init(|| Res {
        segment: Regex::new(r"^S:([0-9a-zA-Z]+)$").unwrap(),
        disclosure: Regex::new(
            r"(?i)accordion|collaps|faq|answer|tab-?pane|tab-?panel|tabs?-?content",
        )
        .unwrap(),
        not_content: Regex::new(&format!("(?i){NOT_CONTENT}")).unwrap(),
        curtain_chrome: Regex::new(&format!("(?i){NOT_CONTENT}|footer|sidebar")).unwrap(),
    })
}

fn words(a: &Arena, i: NodeId) -> String {
    let at = a.attrs(i);
    format!(
        "{} {}",
        attr(at, "class").unwrap_or(""),
        attr(at, "id").unwrap_or("")
    )
}

/// `root` and the elements below it, in document order (selectolax's `css` includes the
/// node it is called on when it matches).
fn self_and_descendants(a: &Arena, root: NodeId) -> Vec<NodeId> {
    let mut out = vec![root];
    out.extend(a.descendants(root));
    out
}

/// Whether a node has an ancestor (below `<body>`/`<html>`) passing `test`, memoised.
struct Ancestry<F: Fn(&Arena, NodeId) -> bool> {
    test: F,
    memo: HashMap<NodeId, bool>,
}

impl<F: Fn(&Arena, NodeId) -> bool> Ancestry<F> {
    fn new(test: F) -> Self {
        Ancestry {
            test,
            memo: HashMap::new(),
        }
    }

    fn above(&mut self, a: &Arena, node: NodeId) -> bool {
        let mut chain = Vec::new();
        let mut result = false;
        let mut up = a[node].parent();
        while let Some(p) = up {
            match a.tag(p) {
                None | Some("body") | Some("html") => break,
                _ => {}
            }
            if let Some(&known) = self.memo.get(&p) {
                result = known;
                break;
            }
            if (self.test)(a, p) {
                self.memo.insert(p, true);
                result = true;
                break;
            }
            chain.push(p);
            up = a[p].parent();
        }
        for c in chain {
            self.memo.insert(c, result);
        }
        result
    }
}

fn hidden_node(a: &Arena, i: NodeId) -> bool {
    is_hidden(a.attrs(i))
}

fn chrome_node(a: &Arena, i: NodeId) -> bool {
    a.tag(i).is_some_and(|t| CHROME_TAGS.contains(&t))
        || CHROME_ROLES.contains(&lower(attr(a.attrs(i), "role").unwrap_or("")).as_str())
}

fn tokens_of(a: &Arena, i: NodeId) -> usize {
    count_tokens(&a.text_of(i, " "))
}

/// Drop the element's own hiding (its hidden descendants stay hidden).
fn show(a: &mut Arena, i: NodeId) {
    if let Some(attrs) = a.attrs_mut(i) {
        attrs.retain(|x| {
            &*x.name.local != "hidden" && !(&*x.name.local == "aria-hidden" && &*x.value == "true")
        });
        for x in attrs.iter_mut() {
            if &*x.name.local == "style" && hidden_style_re().is_match(&x.value) {
                let new = hidden_style_re().replace_all(&x.value, "").into_owned();
                x.value = new.into();
            }
        }
    }
}

fn has_attr(a: &Arena, i: NodeId, name: &str) -> bool {
    attr(a.attrs(i), name).is_some()
}

fn outermost_hidden(a: &Arena, body: NodeId) -> Vec<NodeId> {
    let mut hidden = Ancestry::new(hidden_node);
    self_and_descendants(a, body)
        .into_iter()
        .filter(|&i| {
            (has_attr(a, i, "hidden") || has_attr(a, i, "aria-hidden") || has_attr(a, i, "style"))
                && hidden_node(a, i)
        })
        .filter(|&i| !hidden.above(a, i))
        .collect()
}

fn move_segments(a: &mut Arena) -> usize {
    let mut moved = 0;
    let all = self_and_descendants(a, NodeId::DOCUMENT);
    for seg in all {
        let id = match attr(a.attrs(seg), "id") {
            Some(id) if id.starts_with("S:") && has_attr(a, seg, "hidden") => id.to_string(),
            _ => continue,
        };
        let Some(m) = res().segment.captures(&id) else {
            continue;
        };
        let slot_id = format!("B:{}", &m[1]);
        if let Some(attrs) = a.attrs_mut(seg) {
            attrs.retain(|x| &*x.name.local != "hidden");
        }
        let slot = a.descendants(NodeId::DOCUMENT).into_iter().find(|&i| {
            a.tag(i) == Some("template") && attr(a.attrs(i), "id") == Some(slot_id.as_str())
        });
        if let Some(slot) = slot {
            a.insert_before(slot, seg);
            a.detach(slot);
        }
        moved += 1;
    }
    moved
}

fn is_disclosure<F: Fn(&Arena, NodeId) -> bool>(
    a: &Arena,
    i: NodeId,
    chrome: &mut Ancestry<F>,
) -> bool {
    let at = a.attrs(i);
    let role = lower(attr(at, "role").unwrap_or(""));
    let w = words(a, i);
    if a.tag(i).is_some_and(|t| CHROME_TAGS.contains(&t)) || res().not_content.is_match(&w) {
        return false;
    }
    if !(role == "tabpanel"
        || (role == "region" && attr(at, "aria-labelledby").is_some_and(|v| !v.is_empty()))
        || res().disclosure.is_match(&w))
    {
        return false;
    }
    !chrome.above(a, i)
}

fn shown_tokens(a: &Arena, i: NodeId) -> i64 {
    let mut n = tokens_of(a, i) as i64;
    for k in self_and_descendants(a, i) {
        if matches!(a.tag(k), Some("script" | "style" | "template")) {
            n -= tokens_of(a, k) as i64;
        }
    }
    n
}

fn curtain(a: &mut Arena, body: NodeId) -> usize {
    let mut total = shown_tokens(a, body);
    let mut best: Option<(i64, NodeId)> = None;
    for i in outermost_hidden(a, body) {
        let n = shown_tokens(a, i);
        if res().curtain_chrome.is_match(&words(a, i)) {
            total -= n;
        } else if best.is_none_or(|(m, _)| n > m) {
            best = Some((n, i));
        }
    }
    match best {
        Some((n, i))
            if n >= MIN_HIDDEN_TOKENS as i64 && n as f64 >= CURTAIN_SHARE * total as f64 =>
        {
            show(a, i);
            1
        }
        _ => 0,
    }
}

fn gate(a: &mut Arena, body: NodeId, visible_tokens: usize) -> usize {
    if visible_tokens >= MAX_VISIBLE_TOKENS {
        return 0;
    }
    let all = self_and_descendants(a, body);
    let noscripts: Vec<NodeId> = all
        .iter()
        .copied()
        .filter(|&i| a.tag(i) == Some("noscript"))
        .collect();
    let hidden: Vec<NodeId> = all
        .iter()
        .copied()
        .filter(|&i| has_attr(a, i, "hidden"))
        .collect();
    let hidden_tokens: usize = noscripts
        .iter()
        .chain(hidden.iter())
        .map(|&i| tokens_of(a, i))
        .sum();
    if hidden_tokens < MIN_HIDDEN_TOKENS
        || (hidden_tokens as f64) < MIN_GAIN * visible_tokens.max(1) as f64
    {
        return 0;
    }
    for &i in &hidden {
        if let Some(attrs) = a.attrs_mut(i) {
            attrs.retain(|x| &*x.name.local != "hidden");
        }
    }
    for &i in noscripts.iter().rev() {
        a.unwrap(i);
    }
    hidden.len() + noscripts.len()
}

/// Show the page's script-gated content in the parsed document; the number of parts
/// shown (0: the document is as it was). `visible_tokens`: the tokens of the page as it
/// shows without scripts (its blocks' `PageBlocks::tokens`, summed).
pub(crate) fn reveal(a: &mut Arena, html: &str, visible_tokens: usize) -> usize {
    // ASCII case folding finds what Python's `html.lower()` finds: no hint holds a `k`
    // (the Kelvin sign is the one non-ASCII letter that lowercases to ASCII alone)
    let low = html.to_ascii_lowercase();
    // (memchr's searcher, AVX2 where the processor has it: up to sixteen searches of the
    // whole page, where `str::contains` took half of `reveal`'s instructions under callgrind)
    let has = |needle: &str| memchr::memmem::find(low.as_bytes(), needle.as_bytes()).is_some();
    let segments = has("id=\"s:") || has("id='s:") || has("id=s:");
    let hints = HINTS.iter().any(|h| has(h)) && HIDING.iter().any(|h| has(h));
    let small = visible_tokens < MAX_VISIBLE_TOKENS;
    if !(segments || hints || small) {
        return 0;
    }
    let mut shown = if segments { move_segments(a) } else { 0 };
    let Some(body) = a.html_child("body") else {
        return shown;
    };
    if hints {
        let mut seen: HashSet<String> = HashSet::new();
        let mut chrome = Ancestry::new(chrome_node);
        for i in outermost_hidden(a, body) {
            if is_disclosure(a, i, &mut chrome) {
                let text = fold_ws(&a.text_of(i, " "));
                if !text.is_empty() && seen.insert(text) {
                    show(a, i);
                    shown += 1;
                }
            }
        }
    }
    if small {
        shown += curtain(a, body);
        shown += gate(a, body, visible_tokens);
    }
    shown
}
