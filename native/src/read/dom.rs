//! The visible tree every part of the cleaner reads: the parsed document below `<body>`,
//! without what a browser shows no text of before its scripts run (scripts, styles,
//! comments, `hidden` / `aria-hidden` / `display:none` elements, embedded media, objects
//! that show themselves), flattened to text below MAX_DEPTH, and with text runs beside
//! elements wrapped as `#text` elements. The same rules as `sitesift.dom`'s DomNode tree,
//! and the same node ids (`nid`: the order in which a preorder walk meets the elements,
//! children numbered when their parent is visited), so the JSON output names the same nodes.

use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

use html5ever::Attribute;
use regex::Regex;

use crate::read::math::text::{Piece, Scan, TexText};
use crate::read::math::{Formula, Found};
use crate::read::parse::{attr, Arena, Data, NodeId};
use crate::text::all_space;
use crate::text::WordHasher;

pub(crate) const SKIPPED_TAGS: &[&str] = &[
    "script", "style", "noscript", "template", "head", "title", "meta", "link", "base", "iframe",
    "embed", "svg", "math", "canvas", "audio", "video", "source", "track", "map", "param",
    "datalist", "dialog",
];

pub(crate) const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "center",
    "dd",
    "details",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "option",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    "br",
    "select",
    "textarea",
    "button",
    "label",
];

/// The display attributes of the style key, in key order, and the other attributes the
/// cleaner reads (keyword groups, addresses).
pub(crate) const STYLE_ATTRS: &[&str] = &[
    "class",
    "id",
    "role",
    "align",
    "valign",
    "width",
    "height",
    "bgcolor",
    "background",
    "border",
    "cellpadding",
    "cellspacing",
    "color",
    "face",
    "size",
    "style",
];
/// The attributes the view keeps beside `STYLE_ATTRS`.
const MORE_ATTRS: &[&str] = &[
    "itemprop",
    // read by the structure renderer only
    "href",
    "alt",
    "src",
    "start",
    "colspan",
    "rowspan",
    "lang",
    "data-src", // lazy-loaded images
    "data-lazy-src",
];

pub(crate) const MAX_DEPTH: u32 = 256;

/// Whether `tag` is one of `BLOCK_TAGS`: asked of every element by the walk, the
/// renderers and the verdicts' rules, so looked up in a fixed set (`WordHasher`: its keys
/// are the list's, which no page can crowd) rather than compared with the 55 names in turn.
pub(crate) fn is_block_tag(tag: &str) -> bool {
    type TagSet = std::collections::HashSet<&'static str, BuildHasherDefault<WordHasher>>;
    static SET: OnceLock<TagSet> = OnceLock::new();
    SET.get_or_init(|| BLOCK_TAGS.iter().copied().collect())
        .contains(tag)
}

/// Styles that hide an element (case-insensitive), and the `type` or `data` of an
/// `<object>` that shows itself (an image, a page, a PDF) rather than its nested content.
pub(crate) const HIDDEN_STYLE: &str = r"display\s*:\s*none|visibility\s*:\s*hidden";
pub(crate) const OBJECT_SHOWS_ITSELF: &str =
    r"^(image/|text/|application/pdf)|\.(png|jpe?g|gif|webp|avif|bmp|svg|html?|pdf)([?#]|$)";

fn hidden_style() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(&format!("(?i){HIDDEN_STYLE}")).unwrap())
}

pub(crate) fn hidden_style_re() -> &'static Regex {
    hidden_style()
}

fn object_shows_itself() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(&format!("(?i){OBJECT_SHOWS_ITSELF}")).unwrap())
}

/// `dom.is_hidden`: the `hidden` attribute, `aria-hidden="true"`, or a style that hides.
pub(crate) fn is_hidden(attrs: &[Attribute]) -> bool {
    let mut hidden = false;
    for a in attrs {
        match &*a.name.local {
            "hidden" => return true,
            "aria-hidden" if &*a.value == "true" => return true,
            "style" => {
                hidden = hidden || (!a.value.is_empty() && hidden_style().is_match(&a.value))
            }
            _ => {}
        }
    }
    hidden
}

/// Whether an `<object>` displays its nested (fallback) content.
fn object_shows_fallback(attrs: &[Attribute]) -> bool {
    if attr(attrs, "classid").is_some_and(|v| !v.is_empty()) {
        return true;
    }
    let t = attr(attrs, "type").filter(|v| !v.is_empty());
    let embedded = t.or_else(|| attr(attrs, "data")).unwrap_or("");
    !object_shows_itself().is_match(crate::text::strip(embedded))
}

/// Whether an arena node is a visible element (`dom._visible`).
pub(crate) fn visible(a: &Arena, i: NodeId) -> bool {
    let Data::Element { name, attrs, .. } = &a[i].data else {
        return false;
    };
    let tag = &*name.local;
    if tag.is_empty() || SKIPPED_TAGS.contains(&tag) {
        return false;
    }
    if tag == "object" && !object_shows_fallback(attrs) {
        return false;
    }
    !is_hidden(attrs)
}

crate::ids::typed_id!(
    /// An element of the visible tree: its index in `View::elems`, numbered as the Python
    /// tree numbers its nodes (`nid`, the virtual root being 0) less 1.
    ViewId
);

impl ViewId {
    /// `<body>`, the tree's first element.
    pub(crate) const BODY: ViewId = ViewId::FIRST;

    /// The Python tree's node id of the element (`py/` hands it out as an int).
    pub(crate) fn nid(self) -> u32 {
        self.0.get()
    }
}

pub(crate) enum Item {
    Elem(ViewId),
    Text(String),
}

pub(crate) struct Elem {
    pub(crate) tag: String,
    /// the attributes the cleaner reads (style key, keyword groups, addresses)
    pub(crate) attrs: Vec<(String, String)>,
    /// whether the element has any attribute at all
    pub(crate) has_attrs: bool,
    /// the parent; none for `<body>`
    pub(crate) parent: Option<ViewId>,
    /// DomNode depth: `<body>` is 1 (below the virtual root)
    pub(crate) depth: u32,
    pub(crate) children: Vec<Item>,
}

impl Elem {
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The visible tree; element `i` has node id `i + 1` (the virtual root is 0).
pub(crate) struct View {
    pub(crate) elems: Vec<Elem>,
    /// the elements in document preorder
    pub(crate) preorder: Vec<ViewId>,
}

crate::ids::index_by!(ViewId => View, elems, Elem);
// (and the arrays beside it: the verdicts, the renderer's caches and marks)
crate::ids::index_slices_by!(ViewId);

fn make_elem(a: &Arena, i: NodeId, parent: Option<ViewId>, depth: u32) -> Elem {
    let (tag, attrs) = match &a[i].data {
        Data::Element { name, attrs, .. } => (name.local.to_string(), attrs.as_slice()),
        _ => (String::new(), &[][..]),
    };
    let kept = attrs
        .iter()
        .filter(|x| {
            let name = &*x.name.local;
            STYLE_ATTRS.contains(&name) || MORE_ATTRS.contains(&name)
        })
        .map(|x| (x.name.local.to_string(), x.value.to_string()))
        .collect();
    Elem {
        tag,
        attrs: kept,
        has_attrs: !attrs.is_empty(),
        parent,
        depth,
        children: Vec::new(),
    }
}

/// A formula as an element of the visible tree: tag `math`, its TeX in attribute `tex`,
/// `display` `block` or `inline`, and one text child, the formula between `$` as the text
/// shows it, so the blocks and their features read it as the page's words (display math on
/// a line of its own in its block; the renderers write it as a paragraph of its own). It
/// stays in the block around it, as the model read the page before formulas were read: a
/// formula alone is a block of few words, which the model takes for noise more often than
/// the paragraph it stands in. Its markup below is not in the tree.
fn math_elem(f: Formula, parent: ViewId, depth: u32) -> Elem {
    let text = if f.display {
        format!("\n{}\n", f.delimited())
    } else {
        f.delimited()
    };
    let display = if f.display { "block" } else { "inline" };
    Elem {
        tag: "math".to_string(),
        attrs: vec![
            ("display".to_string(), display.to_string()),
            ("tex".to_string(), f.tex),
        ],
        has_attrs: false,
        parent: Some(parent),
        depth,
        children: vec![Item::Text(text)],
    }
}

/// The text below a node at MAX_DEPTH, in order, as `expand` would show it.
fn flat_text(a: &Arena, i: NodeId) -> Vec<Item> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    a.push_children(&mut stack, i);
    while let Some(k) = stack.pop() {
        match &a[k].data {
            Data::Text(t) if !t.is_empty() => out.push(Item::Text(t.to_string())),
            Data::Element { .. } if visible(a, k) => a.push_children(&mut stack, k),
            _ => {}
        }
    }
    out
}

/// The visible tree below `body` (an arena element). On a page whose script typesets TeX
/// written in its text (`math::text`), that text is split at its formulas, each a `math`
/// element as the markup's formulas are.
pub(crate) fn build_view(a: &Arena, body: NodeId) -> View {
    let tex = TexText::of(a);
    let mut elems = vec![make_elem(a, body, None, 1)];
    // the arena node of each element (none for a #text wrapper or a formula), and whether
    // its text is scanned for TeX
    let mut source = vec![Some(body)];
    let mut scan = vec![match &tex {
        Some(t) => t.child(Scan::On, a, body),
        None => Scan::Skipped,
    }];
    let mut preorder = Vec::new();
    let mut stack = vec![ViewId::BODY];
    while let Some(e) = stack.pop() {
        preorder.push(e);
        let Some(src) = source[e] else {
            continue; // a #text wrapper or a formula: its one text child is already there
        };
        let depth = elems[e].depth;
        let kids: Vec<Item> = if depth >= MAX_DEPTH {
            flat_text(a, src)
        } else {
            let mut kids = Vec::new();
            let (mut has_elems, mut has_texts) = (false, false);
            let here = scan[e];
            let mut take = |piece: Piece| {
                let c = match piece {
                    Piece::Node(c) => c,
                    Piece::Text(t) => {
                        has_texts = has_texts || !all_space(&t);
                        kids.push(Item::Text(t));
                        return;
                    }
                    Piece::Formula(f) => {
                        kids.push(Item::Elem(ViewId::new(elems.len())));
                        elems.push(math_elem(f, e, depth + 1));
                        source.push(None);
                        scan.push(Scan::Skipped);
                        has_elems = true;
                        return;
                    }
                };
                match &a[c].data {
                    Data::Text(t) if !t.is_empty() => {
                        has_texts = has_texts || !all_space(t);
                        kids.push(Item::Text(t.to_string()));
                    }
                    Data::Element { attrs, .. } => {
                        // a formula (or a rendering of one) before visibility: `<math>` and
                        // `<script>` are no visible text otherwise
                        let math = if is_hidden(attrs) {
                            None
                        } else {
                            crate::read::math::detect(a, c)
                        };
                        let id = ViewId::new(elems.len());
                        match math {
                            Some(Found::Formula(f)) => {
                                // (made whole here: nothing of the page below it is read)
                                elems.push(math_elem(f, e, depth + 1));
                                source.push(None);
                                scan.push(Scan::Skipped);
                            }
                            Some(Found::Skip) => {}
                            None if visible(a, c) => {
                                elems.push(make_elem(a, c, Some(e), depth + 1));
                                source.push(Some(c));
                                scan.push(match &tex {
                                    Some(t) => t.child(here, a, c),
                                    None => Scan::Skipped,
                                });
                            }
                            None => {}
                        }
                        if elems.len() > id.index() {
                            kids.push(Item::Elem(id));
                            has_elems = true;
                        }
                    }
                    _ => {}
                }
            };
            match &tex {
                Some(t) if here == Scan::On => t.pieces(a, src).into_iter().for_each(&mut take),
                _ => a.children(src).for_each(|c| take(Piece::Node(c))),
            }
            if has_elems && has_texts {
                // text runs beside elements become `#text` elements
                for item in kids.iter_mut() {
                    if let Item::Text(t) = item {
                        if !all_space(t) {
                            let id = ViewId::new(elems.len());
                            let mut w = Elem {
                                tag: "#text".to_string(),
                                attrs: Vec::new(),
                                has_attrs: false,
                                parent: Some(e),
                                depth: depth + 1,
                                children: Vec::new(),
                            };
                            w.children.push(Item::Text(std::mem::take(t)));
                            elems.push(w);
                            source.push(None);
                            scan.push(Scan::Skipped);
                            *item = Item::Elem(id);
                        }
                    }
                }
            }
            kids
        };
        for item in kids.iter().rev() {
            if let Item::Elem(k) = item {
                stack.push(*k);
            }
        }
        elems[e].children = kids;
    }
    View { elems, preorder }
}

/// The page's title: the text of its first `<title>`, stripped (`None` when empty).
pub(crate) fn title(a: &Arena) -> Option<String> {
    let mut stack = vec![NodeId::DOCUMENT];
    while let Some(i) = stack.pop() {
        if a.tag(i) == Some("title") {
            let t = a.text_of(i, "");
            let t = crate::text::strip(&t);
            return if t.is_empty() {
                None
            } else {
                Some(t.to_string())
            };
        }
        if matches!(a[i].data, Data::Element { .. } | Data::Document) {
            a.push_children(&mut stack, i);
        }
    }
    None
}

/// The `href` of the first `<base>` in the page's head that has one, as written.
pub(crate) fn base_href(a: &Arena) -> Option<String> {
    let head = a.html_child("head")?;
    a.descendants(head).into_iter().find_map(|i| {
        if a.tag(i) == Some("base") {
            crate::read::parse::attr(a.attrs(i), "href").map(str::to_string)
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::parse::parse;

    fn view(html: &str) -> View {
        let a = parse(html);
        let body = a.html_child("body").unwrap();
        build_view(&a, body)
    }

    fn tags(v: &View) -> Vec<&str> {
        v.preorder.iter().map(|&e| v[e].tag.as_str()).collect()
    }

    #[test]
    fn invisible_parts_never_enter_the_tree() {
        let v = view(
            "<body><script>x</script><div hidden>h</div><p style='display: none'>s</p>\
                      <span aria-hidden=true>a</span><object data=a.png>fallback</object>\
                      <object classid=x><b>shown</b></object><p>ok</p></body>",
        );
        assert_eq!(tags(&v), ["body", "object", "b", "p"]);
    }

    #[test]
    fn text_beside_elements_is_wrapped_and_ids_follow_the_lazy_reading() {
        let v = view("<body><div>one <b>two</b> three</div><p>four</p></body>");
        // body=0 (nid 1); its children div, p get 1, 2; div's b then its #text wrappers
        assert_eq!(tags(&v), ["body", "div", "#text", "b", "#text", "p"]);
        let div = &v.elems[1];
        assert_eq!(div.tag, "div");
        let kids: Vec<&str> = div
            .children
            .iter()
            .map(|c| match c {
                Item::Elem(e) => v[*e].tag.as_str(),
                Item::Text(_) => "str",
            })
            .collect();
        assert_eq!(kids, ["#text", "b", "#text"]);
        assert_eq!(v.elems[2].tag, "p");
        assert_eq!(v.elems[3].tag, "b");
    }

    #[test]
    fn deep_nesting_is_flattened_to_text() {
        let html = format!(
            "<body>{}deep{}</body>",
            "<div>".repeat(400),
            "</div>".repeat(400)
        );
        let v = view(&html);
        assert!(v.elems.iter().all(|e| e.depth <= MAX_DEPTH));
        let last = v.elems.iter().find(|e| e.depth == MAX_DEPTH).unwrap();
        assert!(matches!(&last.children[..], [Item::Text(t)] if t == "deep"));
    }

    #[test]
    fn the_title_is_the_first_title_stripped() {
        let a = parse("<title> Hello \n</title><body><svg><title>no</title></svg></body>");
        assert_eq!(title(&a).as_deref(), Some("Hello"));
        assert_eq!(title(&parse("<title> </title>")), None);
    }
}
