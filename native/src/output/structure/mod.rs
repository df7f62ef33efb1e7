//! The kept content of a page's visible tree with its structure, from one walk, in three
//! syntaxes: markdown, a clean HTML fragment, or plain text. Headings, paragraphs, nested
//! ordered and unordered lists, code blocks with their language and line breaks, inline
//! code, tables (degraded to rows of text when irregular), block quotes, emphasis, line
//! breaks, and links and images on request (their addresses resolved against the page).
//!
//! Verdicts: `kept[e]` is the verdict on view element `e` (`None`: the parent's; the
//! virtual root above `<body>` is content). Only content text is written; the markup of a
//! noise element is left out, but content below it (a deeper verdict) is still written.
//!
//! Plain text is the markdown's layout without its markup: blocks apart by a blank line,
//! list items on their own lines after `- ` or `1. `, a table's cells apart by ` | `, code
//! with its line breaks, `<br>` as a line break; nothing escaped.
//!
//! Markdown escaping, in text only (never inside code spans or code blocks):
//! - everywhere: `\`, `` ` ``, `*`, `[`, `]` and `<` are backslash-escaped; `_` unless
//!   it stands between two letters or digits (`snake_case` stays as it is); `&` when it
//!   starts something that reads as an entity (`&amp;`, `&#38;`);
//! - at the start of a line: `#`, `>`, `~`, `-` / `+` followed by a space or the end of
//!   the line, a line of only `-` or `=` (a setext underline or rule), and the `.` or `)`
//!   after 1-9 digits followed by a space or the end of the line (`1\. `);
//! - in table cells also `|`; in a heading a closing run of `#`.
//!
//! Formulas (`read/math/`: MathML, KaTeX, MathJax, Wikipedia's) are LaTeX between `$`
//! (display math `$$`) in markdown and text, never escaped; in HTML a `<span class="math
//! inline">\(...\)</span>` (display: `math display`, `\[...\]`), as pandoc writes them.
//!
//! HTML: text escapes `&`, `<` and `>`, attribute values also `"`; elements are the
//! page's own kinds (`h1`-`h6`, `p`, `ul`/`ol`/`li`, `pre`/`code`, `table`/`tr`/`th`/`td`
//! with their spans, `blockquote`, `em`, `strong`, `a`, `img`, `br`, `hr`), no attributes
//! but `href`, `src`, `alt`, `start`, `colspan`, `rowspan`, a code block's language and a
//! formula's `math` class.
//! The renderer writes every tag itself, so no element or attribute of the page (a script,
//! an `on*` handler, a style, a frame, a form, svg or math) ever reaches the output.
//!
//! Addresses (`href`, `src`) are safe to show in a browser: each is read as a browser
//! reads it (WHATWG URL parsing, after what browsers strip: C0 controls and spaces at the
//! ends, tabs and line breaks anywhere) and kept only when its scheme is allowed
//! (`LINK_SCHEMES`, `IMAGE_SCHEMES`); a `javascript:`, `vbscript:` or `data:` address in
//! any spelling, and one that does not parse, is dropped with its markup, its text kept.
//! What is written is what was checked: the parsed address as the URL standard writes it,
//! or a relative one as the browser will read it (in markdown led by `./` where its first
//! segment holds more than letters, digits and `-._~`, so that no later decoding of
//! entities or escapes can make a scheme of it). A page's base (its URL, its `<base
//! href>`) counts only when it is http or https: a `javascript:` or `data:` base is
//! ignored, as browsers ignore it.
//!
//! The walk's parts: `blocks.rs` (headings, paragraphs, lists, code blocks, quotes),
//! `inline.rs` (a paragraph's run and inline elements), `tables.rs`; each syntax's escapes
//! in `escape.rs`, the addresses in `address.rs`.

use std::cell::Cell;

use url::Url;

use crate::read::dom::{is_block_tag, Item, View, ViewId};

pub(crate) use self::address::base_url;
use self::address::safe_address;
pub(crate) use self::blocks::title_heading;
use self::inline::Inline;

mod address;
mod blocks;
mod escape;
mod inline;
mod tables;

/// The syntax of a rendering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Format {
    #[default]
    Markdown,
    Html,
    Text,
}

impl Format {
    pub(crate) fn named(name: &str) -> Option<Format> {
        match name {
            "markdown" => Some(Format::Markdown),
            "html" => Some(Format::Html),
            "text" => Some(Format::Text),
            _ => None,
        }
    }

    /// A hard line break inside a paragraph.
    fn br(self) -> &'static str {
        match self {
            Format::Markdown => "\\\n",
            Format::Html => "<br>\n",
            Format::Text => "\n",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    pub(crate) format: Format,
    /// links kept as links (otherwise their text only)
    pub(crate) links: bool,
    /// images kept (markdown and HTML: the image; text: its alt text); otherwise nothing
    pub(crate) images: bool,
    /// what relative addresses are resolved against (`base_url`); None: left as they are
    pub(crate) base: Option<Url>,
}

impl Options {
    /// Options for a page at `url` with `base_href` (its `<base href>`): the base is
    /// resolved only where links or images are kept.
    pub(crate) fn for_page(
        format: Format,
        links: bool,
        images: bool,
        url: Option<&str>,
        base_href: Option<&str>,
    ) -> Options {
        let base = if links || images {
            base_url(url, base_href)
        } else {
            None
        };
        Options {
            format,
            links,
            images,
            base,
        }
    }
}

const LIST_TAGS: &[&str] = &["ul", "ol", "menu", "dir"];
/// Descendants that make a table cell more than a line of text in an irregular table.
const STRUCTURE_TAGS: &[&str] = &[
    "table",
    "pre",
    "ul",
    "ol",
    "menu",
    "dir",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "dl",
];

/// Descendants that make a table a layout table: a cell holding one of these is no cell
/// of a data table. A list alone is (an infobox's "Products: a; b; c"), a list beside
/// paragraphs is not.
const LAYOUT_CELL_TAGS: &[&str] = &[
    "table",
    "pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
];

fn is_block(tag: &str) -> bool {
    tag != "br" && is_block_tag(tag)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// a run of inline content (HTML: wrapped in `<p>` where it is not an item's only block)
    Para,
    /// a list: in markdown and text it follows the text before it on the next line
    List,
    Other,
}

/// A rendered block.
struct Block {
    text: String,
    kind: Kind,
}

struct Md<'a> {
    view: &'a View,
    kept: &'a [Option<bool>],
    opts: &'a Options,
    fmt: Format,
    /// an element has a block element below it
    has_block: Vec<bool>,
    /// an element has a STRUCTURE_TAGS element below it
    has_structure: Vec<bool>,
    /// a table cell like this makes its table a layout table (`LAYOUT_CELL_TAGS`)
    layout_cell: Vec<bool>,
    /// open `*` and `**` wrappers: emphasis inside emphasis of its kind adds no markup
    open_em: Cell<u32>,
    open_strong: Cell<u32>,
}

impl<'a> Md<'a> {
    fn new(view: &'a View, kept: &'a [Option<bool>], opts: &'a Options) -> Self {
        let n = view.elems.len();
        let (mut has_block, mut has_structure) = (vec![false; n], vec![false; n]);
        let (mut layout_cell, mut has_list, mut has_p) =
            (vec![false; n], vec![false; n], vec![false; n]);
        for &e in view.preorder.iter().rev() {
            for item in &view[e].children {
                if let Item::Elem(c) = *item {
                    let tag = view[c].tag.as_str();
                    has_block[e] |= has_block[c] || is_block(tag);
                    has_structure[e] |= has_structure[c] || STRUCTURE_TAGS.contains(&tag);
                    layout_cell[e] |= layout_cell[c] || LAYOUT_CELL_TAGS.contains(&tag);
                    has_list[e] |= has_list[c] || LIST_TAGS.contains(&tag) || tag == "dl";
                    has_p[e] |= has_p[c] || tag == "p";
                }
            }
            layout_cell[e] |= has_list[e] && has_p[e];
        }
        Md {
            view,
            kept,
            opts,
            fmt: opts.format,
            has_block,
            has_structure,
            layout_cell,
            open_em: Cell::new(0),
            open_strong: Cell::new(0),
        }
    }

    fn inline_acc(&self) -> Inline {
        Inline::new(self.fmt)
    }

    fn tag(&self, e: ViewId) -> &'a str {
        self.view[e].tag.as_str()
    }

    fn attr(&self, e: ViewId, name: &str) -> Option<&'a str> {
        self.view[e].get(name)
    }

    fn children(&self, e: ViewId) -> &'a [Item] {
        &self.view[e].children
    }

    fn content(&self, e: ViewId, parent: bool) -> bool {
        self.kept
            .get(e.index())
            .copied()
            .flatten()
            .unwrap_or(parent)
    }

    /// An address of the page resolved against its base and safe to write
    /// (`safe_address`); None where it is not kept.
    fn address(&self, raw: &str, schemes: &[&str]) -> Option<String> {
        safe_address(raw, self.opts.base.as_ref(), schemes, self.fmt)
    }

    fn flush(&self, acc: &mut Inline, out: &mut Vec<Block>) {
        let text = std::mem::replace(acc, self.inline_acc()).finish();
        if !text.is_empty() {
            out.push(Block {
                text,
                kind: Kind::Para,
            });
        }
    }
}

/// The content of `view` under the verdicts `kept` (one per element) in `opts.format`.
pub(crate) fn render(view: &View, kept: &[Option<bool>], opts: &Options) -> String {
    if view.elems.is_empty() {
        return String::new();
    }
    let md = Md::new(view, kept, opts);
    let mut out = Vec::new();
    if !md.content(ViewId::BODY, true) {
        md.blocks(ViewId::BODY, false, &mut out);
    } else {
        md.block(ViewId::BODY, true, &mut out);
    }
    for b in &mut out {
        if b.kind == Kind::List {
            b.kind = Kind::Other; // at the top, a list too stands apart by a blank line
        }
    }
    let mut text = md.join(out);
    text.truncate(text.trim_end().len());
    text
}

#[cfg(test)]
mod tests;
