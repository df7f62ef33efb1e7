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
//! Formulas (`math.rs`: MathML, KaTeX, MathJax, Wikipedia's) are LaTeX between `$`
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

use std::cell::Cell;
use std::sync::LazyLock;

use url::Url;

use crate::read::dom::{is_block_tag, Item, View};
use crate::text::{is_space, split_ws};

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

/// The address relative links of a page resolve against: its `<base href>` resolved
/// against its URL, else its URL; None where neither parses as an http or https address
/// (a `javascript:`, `data:` or `file:` base is no base).
pub(crate) fn base_url(url: Option<&str>, base_href: Option<&str>) -> Option<Url> {
    let web = |u: Url| BASE_SCHEMES.contains(&u.scheme()).then_some(u);
    let page = url
        .and_then(|u| Url::parse(u.trim_matches(is_space)).ok())
        .and_then(web);
    match base_href.map(|h| h.trim_matches(is_space)) {
        Some(h) if !h.is_empty() => match &page {
            Some(p) => p.join(h).ok().and_then(web).or(page),
            None => Url::parse(h).ok().and_then(web),
        },
        _ => page,
    }
}

/// The schemes a kept link may have: the web's, mail, and ftp (no browser runs an ftp
/// address, and an old page's download links keep their place). Any other scheme
/// (`javascript:`, `vbscript:`, `data:`, `file:`, an app's own) drops the link, its text kept.
const LINK_SCHEMES: &[&str] = &["http", "https", "mailto", "ftp"];
/// The schemes a kept image may have: an image is fetched, from the web only (no `data:`
/// image: an inline placeholder is no address to keep, and `data:` carries documents too).
const IMAGE_SCHEMES: &[&str] = &["http", "https"];
/// The schemes a page's base may have.
const BASE_SCHEMES: &[&str] = &["http", "https"];

/// Where a relative address without a base is checked: any relative reference resolves
/// against it to an https address, one that cannot be resolved (a bad host) fails.
static RELATIVE_PROBE: LazyLock<Url> =
    LazyLock::new(|| Url::parse("https://relative.invalid/").expect("a valid probe"));

/// `raw` as a browser reads it before parsing: C0 controls and spaces stripped at either
/// end, tabs and line breaks anywhere (the WHATWG URL parser's first steps), and, as
/// before, other white space at the ends.
fn browser_stripped(raw: &str) -> String {
    raw.trim_matches(|c: char| c <= ' ' || is_space(c))
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// Whether the first segment of a relative address (up to its first `/`, `?` or `#`) is
/// only unreserved characters (letters, digits, `-._~`): then no decoding of entities,
/// backslash escapes or percent escapes can make a scheme of it.
fn plain_segment(relative: &str) -> bool {
    let first = relative.split(['/', '?', '#']).next().unwrap_or("");
    first
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
}

/// The address `raw` (an `href` or `src` of the page) as it is safe to write: resolved
/// against `base` where there is one, kept only when its scheme is one of `schemes`. None:
/// empty, unparsable, or of another scheme. Without a base a relative address stays
/// relative (as the browser will read it: `browser_stripped`); in markdown it is led by
/// `./` unless its first segment is plain (`plain_segment`), so that no markdown
/// renderer's decoding of entities or escapes in it can make a scheme of it.
fn safe_address(raw: &str, base: Option<&Url>, schemes: &[&str], fmt: Format) -> Option<String> {
    let raw = browser_stripped(raw);
    if raw.is_empty() {
        return None;
    }
    let parsed = match base {
        Some(base) => base.join(&raw),
        None => Url::parse(&raw),
    };
    let written = match parsed {
        Ok(url) => {
            if !schemes.contains(&url.scheme()) {
                return None;
            }
            String::from(url)
        }
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            if RELATIVE_PROBE.join(&raw).is_err() {
                return None;
            }
            if fmt == Format::Markdown && !plain_segment(&raw) {
                format!("./{raw}")
            } else {
                raw
            }
        }
        Err(_) => return None,
    };
    Some(match fmt {
        Format::Markdown => md_destination(&written),
        _ => written,
    })
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

fn heading_level(tag: &str) -> Option<usize> {
    match tag {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
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

fn push_escaped_html(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

fn html_attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&quot;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// A run of inline content with whitespace folded as a browser folds it.
struct Inline {
    fmt: Format,
    buf: String,
    /// whitespace seen since the last output
    space: bool,
    /// whitespace seen before any output
    lead: bool,
    /// a line break seen before any output
    lead_break: bool,
}

impl Inline {
    fn new(fmt: Format) -> Self {
        Inline {
            fmt,
            buf: String::new(),
            space: false,
            lead: false,
            lead_break: false,
        }
    }

    fn space(&mut self) {
        if self.buf.is_empty() {
            self.lead = true;
        } else {
            self.space = true;
        }
    }

    fn before_output(&mut self) {
        if self.space && !self.buf.is_empty() && !self.buf.ends_with('\n') {
            self.buf.push(' ');
        }
        self.space = false;
    }

    /// Markup, as it is.
    fn put(&mut self, s: &str) {
        if !s.is_empty() {
            self.before_output();
            self.buf.push_str(s);
        }
    }

    /// Text: whitespace folded, escaped for the syntax.
    fn text(&mut self, t: &str) {
        let chars: Vec<char> = t.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            if is_space(c) {
                self.space();
                continue;
            }
            self.before_output();
            match self.fmt {
                Format::Text => {}
                Format::Html => match c {
                    '&' => {
                        self.buf.push_str("&amp;");
                        continue;
                    }
                    '<' => {
                        self.buf.push_str("&lt;");
                        continue;
                    }
                    '>' => {
                        self.buf.push_str("&gt;");
                        continue;
                    }
                    _ => {}
                },
                Format::Markdown => match c {
                    '\\' | '`' | '*' | '[' | ']' | '<' => {
                        self.buf.push('\\');
                    }
                    '_' => {
                        let prev = self
                            .buf
                            .chars()
                            .next_back()
                            .is_some_and(char::is_alphanumeric);
                        let next = chars.get(i + 1).is_some_and(|c| c.is_alphanumeric());
                        if !(prev && next) {
                            self.buf.push('\\');
                        }
                    }
                    '&' if looks_like_entity(&chars[i + 1..]) => self.buf.push('\\'),
                    _ => {}
                },
            }
            self.buf.push(c);
        }
    }

    /// `s` as a paragraph of its own inside this run (display math): a blank line before
    /// it unless it starts the run, and after it unless the run ends there (`finish`).
    fn paragraph(&mut self, s: &str) {
        let kept = self.buf.trim_end_matches([' ', '\n']).len();
        self.buf.truncate(kept);
        if !self.buf.is_empty() {
            self.buf.push_str("\n\n");
        }
        self.buf.push_str(s);
        self.buf.push_str("\n\n");
        self.space = false;
    }

    /// `<br>`: a hard line break; several in a row count once.
    fn hard_break(&mut self) {
        if self.buf.is_empty() {
            self.lead_break = true;
        } else if !self.buf.ends_with('\n') {
            self.buf.push_str(self.fmt.br());
        }
        self.space = false;
    }

    /// Wrap `inner` in `open` / `close` when it has any text, carrying its outer spaces;
    /// a line break at its end goes after `close` (`<b>a<br></b>b`: `**a**` and a break).
    fn wrap(&mut self, open: &str, inner: Inline, close: &str) {
        if inner.lead_break {
            self.hard_break();
        } else if inner.lead {
            self.space();
        }
        let body = inner.buf.trim_end_matches(self.fmt.br());
        let broken = body.len() < inner.buf.len();
        if !body.is_empty() {
            self.before_output();
            self.buf.push_str(open);
            self.buf.push_str(body);
            self.buf.push_str(close);
        }
        if broken {
            self.hard_break();
        } else if inner.space {
            self.space();
        }
    }

    /// The paragraph: no break at either end; in markdown, line starts escaped.
    fn finish(self) -> String {
        let body = self.buf.trim_end_matches(self.fmt.br());
        // (after display math, the blank line that would part it from what follows)
        let body = body.strip_suffix("\n\n").unwrap_or(body);
        if self.fmt != Format::Markdown {
            return body.to_string();
        }
        let mut out = String::with_capacity(body.len() + 8);
        for (i, line) in body.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            escape_line_start(line, &mut out);
        }
        out
    }
}

fn looks_like_entity(rest: &[char]) -> bool {
    let rest = if rest.first() == Some(&'#') {
        &rest[1..]
    } else {
        rest
    };
    let n = rest
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    n > 0 && rest.get(n) == Some(&';')
}

/// Escape what would start a markdown block at the start of a line of text.
fn escape_line_start(line: &str, out: &mut String) {
    let b = line.as_bytes();
    let end_or_space = |i: usize| i >= b.len() || b[i] == b' ';
    match b.first() {
        Some(b'#' | b'>' | b'~') => out.push('\\'),
        Some(b'-' | b'+') if end_or_space(1) => out.push('\\'),
        Some(b'-' | b'=') if line.bytes().all(|c| c == b[0] || c == b' ') => out.push('\\'),
        Some(b'0'..=b'9') => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if n <= 9 && matches!(b.get(n), Some(b'.' | b')')) && end_or_space(n + 1) {
                out.push_str(&line[..n]);
                out.push('\\');
                out.push_str(&line[n..]);
                return;
            }
        }
        _ => {}
    }
    out.push_str(line);
}

/// The shortest run of backticks longer than any in `s` (at least `min`).
fn fence(s: &str, min: usize) -> String {
    let (mut longest, mut run) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat(min.max(longest + 1))
}

fn code_span(code: &str) -> String {
    let f = fence(code, 1);
    let pad = code.starts_with('`')
        || code.ends_with('`')
        || (code.starts_with(' ') && code.ends_with(' '));
    if pad {
        format!("{f} {code} {f}")
    } else {
        format!("{f}{code}{f}")
    }
}

/// A markdown link or image destination, with what would end it percent-encoded.
fn md_destination(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// The language a `language-xxx` or `lang-xxx` class names.
fn class_language(class: &str) -> Option<&str> {
    split_ws(class).find_map(|w| {
        w.strip_prefix("language-")
            .or_else(|| w.strip_prefix("lang-"))
            .filter(|l| !l.is_empty())
    })
}

/// A heading of `level` whose inline content is `text`, in `fmt`.
fn heading(level: usize, mut text: String, fmt: Format) -> String {
    match fmt {
        Format::Markdown => {
            if text.ends_with('#') {
                let at = text.trim_end_matches('#').len();
                text.insert(at, '\\');
            }
            format!("{} {text}", "#".repeat(level))
        }
        Format::Html => format!("<h{level}>{text}</h{level}>"),
        Format::Text => text,
    }
}

/// `title` as a level-1 heading in `fmt` (its whitespace folded, escaped for the syntax):
/// the heading `title=keep` puts above the content.
pub(crate) fn title_heading(title: &str, fmt: Format) -> String {
    let mut acc = Inline::new(fmt);
    acc.text(title);
    heading(1, acc.buf, fmt)
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
            let e = e as usize;
            for item in &view.elems[e].children {
                if let Item::Elem(c) = item {
                    let (c, tag) = (*c as usize, view.elems[*c as usize].tag.as_str());
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

    fn tag(&self, e: u32) -> &'a str {
        self.view.elems[e as usize].tag.as_str()
    }

    fn attr(&self, e: u32, name: &str) -> Option<&'a str> {
        self.view.elems[e as usize].get(name)
    }

    fn children(&self, e: u32) -> &'a [Item] {
        &self.view.elems[e as usize].children
    }

    fn content(&self, e: u32, parent: bool) -> bool {
        self.kept
            .get(e as usize)
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

    /// Blocks joined: markdown and text apart by a blank line, a list right after text
    /// on the next line; HTML one per line, a paragraph in `<p>`.
    fn join(&self, blocks: Vec<Block>) -> String {
        let mut out = String::new();
        for (i, b) in blocks.into_iter().enumerate() {
            if self.fmt == Format::Html {
                if i > 0 {
                    out.push('\n');
                }
                if b.kind == Kind::Para {
                    out.push_str("<p>");
                    out.push_str(&b.text);
                    out.push_str("</p>");
                } else {
                    out.push_str(&b.text);
                }
                continue;
            }
            if i > 0 {
                out.push_str(if b.kind == Kind::List { "\n" } else { "\n\n" });
            }
            out.push_str(&b.text);
        }
        out
    }

    /// A list item: in markdown and text the marker before its first line, the rest
    /// indented to the marker's width; in HTML an `<li>` (a lone paragraph without `<p>`).
    fn item(&self, marker: &str, mut blocks: Vec<Block>) -> Option<String> {
        if blocks.is_empty() {
            return None;
        }
        if self.fmt == Format::Html {
            let paras = blocks.iter().filter(|b| b.kind == Kind::Para).count();
            if paras == 1 && blocks[0].kind == Kind::Para {
                blocks[0].kind = Kind::Other;
            }
            return Some(format!("<li>{}</li>", self.join(blocks)));
        }
        let body = self.join(blocks);
        if body.is_empty() {
            return None;
        }
        let mut out = String::from(marker);
        let (first, rest) = body.split_once('\n').unwrap_or((&body, ""));
        out.push_str(first);
        if body.contains('\n') {
            out.push('\n');
            out.push_str(&indent(rest, marker.len()));
        }
        Some(out)
    }

    /// The children of `e` as blocks: runs of inline content become paragraphs.
    fn blocks(&self, e: u32, content: bool, out: &mut Vec<Block>) {
        let mut acc = self.inline_acc();
        for item in self.children(e) {
            match item {
                Item::Text(t) => {
                    if content {
                        acc.text(t);
                    }
                }
                Item::Elem(c) => {
                    let cc = self.content(*c, content);
                    if !is_block(self.tag(*c)) && !self.has_block[*c as usize] {
                        self.inline(*c, cc, &mut acc);
                    } else {
                        self.flush(&mut acc, out);
                        self.block(*c, cc, out);
                    }
                }
            }
        }
        self.flush(&mut acc, out);
    }

    fn block(&self, e: u32, content: bool, out: &mut Vec<Block>) {
        if !content {
            if self.tag(e) == "table" && self.has_content_cell(e) {
                // a table of content cells under a noise verdict is still a table
                return self.table(e, false, out);
            }
            // the markup is noise; content below it is still written
            return self.blocks(e, false, out);
        }
        let tag = self.tag(e);
        if let Some(level) = heading_level(tag) {
            let text = self.line(e, content);
            if !text.is_empty() {
                out.push(Block {
                    text: heading(level, text, self.fmt),
                    kind: Kind::Other,
                });
            }
            return;
        }
        match tag {
            "ul" | "ol" | "menu" | "dir" => self.list(e, content, out),
            "li" => {
                // an item outside a list
                let mut inner = Vec::new();
                self.blocks(e, content, &mut inner);
                if let Some(text) = self.item("- ", inner) {
                    let text = if self.fmt == Format::Html {
                        format!("<ul>\n{text}\n</ul>")
                    } else {
                        text
                    };
                    out.push(Block {
                        text,
                        kind: Kind::List,
                    });
                }
            }
            "pre" => self.pre(e, content, out),
            "blockquote" => {
                let mut inner = Vec::new();
                self.blocks(e, content, &mut inner);
                let body = self.join(inner);
                if !body.is_empty() {
                    let text = match self.fmt {
                        Format::Markdown => body
                            .split('\n')
                            .map(|l| {
                                if l.is_empty() {
                                    ">".to_string()
                                } else {
                                    format!("> {l}")
                                }
                            })
                            .collect::<Vec<_>>()
                            .join("\n"),
                        Format::Html => format!("<blockquote>\n{body}\n</blockquote>"),
                        Format::Text => body,
                    };
                    out.push(Block {
                        text,
                        kind: Kind::Other,
                    });
                }
            }
            "table" => self.table(e, content, out),
            "hr" => match self.fmt {
                Format::Markdown => out.push(Block {
                    text: "---".to_string(),
                    kind: Kind::Other,
                }),
                Format::Html => out.push(Block {
                    text: "<hr>".to_string(),
                    kind: Kind::Other,
                }),
                Format::Text => {}
            },
            _ => self.blocks(e, content, out),
        }
    }

    /// A list. What stands in it outside any item (a lead-in text, a heading, a quote)
    /// stays where it is: the items before it are one list, those after it another, whose
    /// numbering goes on.
    fn list(&self, e: u32, content: bool, out: &mut Vec<Block>) {
        let ordered = self.tag(e) == "ol";
        let mut next: i64 = self
            .attr(e, "start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        // each item's blocks; a list right inside a list belongs to the item before it
        let mut items: Vec<Vec<Block>> = Vec::new();
        let mut stray = self.inline_acc();
        for child in self.children(e) {
            let c = match child {
                Item::Text(t) => {
                    if content {
                        stray.text(t);
                    }
                    continue;
                }
                Item::Elem(c) => *c,
            };
            let cc = self.content(c, content);
            let ctag = self.tag(c);
            if ctag == "li" {
                if !stray.buf.is_empty() {
                    next = self.emit_list(ordered, next, std::mem::take(&mut items), out);
                }
                self.flush(&mut stray, out);
                let mut inner = Vec::new();
                self.blocks(c, cc, &mut inner);
                if !inner.is_empty() {
                    items.push(inner);
                }
            } else if LIST_TAGS.contains(&ctag) && !items.is_empty() && stray.buf.is_empty() {
                let mut inner = Vec::new();
                self.block(c, cc, &mut inner);
                for b in &mut inner {
                    b.kind = Kind::List; // on the line after the item's text
                }
                items.last_mut().unwrap().extend(inner);
            } else if !is_block(ctag) && !self.has_block[c as usize] {
                self.inline(c, cc, &mut stray);
            } else {
                next = self.emit_list(ordered, next, std::mem::take(&mut items), out);
                self.flush(&mut stray, out);
                self.block(c, cc, out);
            }
        }
        if !stray.buf.is_empty() {
            next = self.emit_list(ordered, next, std::mem::take(&mut items), out);
        }
        self.flush(&mut stray, out);
        self.emit_list(ordered, next, items, out);
    }

    /// `items` as one list block numbered from `start`; the number after its last item.
    fn emit_list(
        &self,
        ordered: bool,
        start: i64,
        items: Vec<Vec<Block>>,
        out: &mut Vec<Block>,
    ) -> i64 {
        let mut lines: Vec<String> = Vec::new();
        let mut n = start;
        for blocks in items {
            let marker = if ordered {
                format!("{n}. ")
            } else {
                "- ".to_string()
            };
            if let Some(line) = self.item(&marker, blocks) {
                lines.push(line);
                n = n.saturating_add(1);
            }
        }
        if !lines.is_empty() {
            let text = if self.fmt == Format::Html {
                let open = match (ordered, start) {
                    (false, _) => "<ul>".to_string(),
                    (true, 1) => "<ol>".to_string(),
                    (true, n) => format!("<ol start=\"{n}\">"),
                };
                let close = if ordered { "</ol>" } else { "</ul>" };
                format!("{open}\n{}\n{close}", lines.join("\n"))
            } else {
                lines.join("\n")
            };
            out.push(Block {
                text,
                kind: Kind::List,
            });
        }
        n
    }

    fn pre(&self, e: u32, content: bool, out: &mut Vec<Block>) {
        let mut code = String::new();
        self.raw_text(e, content, &mut code);
        let code = code.trim_end_matches(['\n', '\r']);
        if code.trim_matches(is_space).is_empty() {
            return;
        }
        let mut lang = self.attr(e, "class").and_then(class_language);
        if lang.is_none() {
            lang = self.children(e).iter().find_map(|c| match c {
                Item::Elem(k) if self.tag(*k) == "code" => {
                    self.attr(*k, "class").and_then(class_language)
                }
                _ => None,
            });
        }
        let text = match self.fmt {
            Format::Markdown => {
                let f = fence(code, 3);
                format!("{f}{}\n{code}\n{f}", lang.unwrap_or(""))
            }
            Format::Html => {
                let mut t = match lang {
                    Some(l) => format!("<pre><code class=\"language-{}\">", html_attr(l)),
                    None => "<pre><code>".to_string(),
                };
                push_escaped_html(code, &mut t);
                t.push_str("</code></pre>");
                t
            }
            Format::Text => code.to_string(),
        };
        out.push(Block {
            text,
            kind: Kind::Other,
        });
    }

    /// The text below `e` as it is (content parts only), `<br>` as a line break.
    fn raw_text(&self, e: u32, content: bool, out: &mut String) {
        for item in self.children(e) {
            match item {
                Item::Text(t) if content => out.push_str(t),
                Item::Text(_) => {}
                Item::Elem(c) => {
                    let cc = self.content(*c, content);
                    if self.tag(*c) == "br" {
                        if cc {
                            out.push('\n');
                        }
                    } else {
                        self.raw_text(*c, cc, out);
                    }
                }
            }
        }
    }

    /// The inline content of `e` on one line (headings, table cells).
    fn line(&self, e: u32, content: bool) -> String {
        let mut acc = self.inline_acc();
        self.inline_children(e, content, &mut acc);
        let br = self.fmt.br();
        acc.buf
            .trim_end_matches(br)
            .replace(br, " ")
            .replace('\n', " ")
    }

    fn inline_children(&self, e: u32, content: bool, acc: &mut Inline) {
        for item in self.children(e) {
            match item {
                Item::Text(t) if content => acc.text(t),
                Item::Text(_) => {}
                Item::Elem(c) => self.inline(*c, self.content(*c, content), acc),
            }
        }
    }

    fn image(&self, e: u32, acc: &mut Inline) {
        let alt = self.attr(e, "alt").unwrap_or("");
        if self.fmt == Format::Text {
            return acc.text(alt);
        }
        let src = ["src", "data-src", "data-lazy-src"]
            .iter()
            .find_map(|a| self.attr(e, a).and_then(|s| self.address(s, IMAGE_SCHEMES)));
        let Some(src) = src else { return };
        if self.fmt == Format::Html {
            return acc.put(&format!(
                "<img src=\"{}\" alt=\"{}\">",
                html_attr(&src),
                html_attr(alt)
            ));
        }
        let mut text = self.inline_acc();
        text.text(alt);
        acc.put(&format!("![{}]({src})", text.buf));
    }

    /// A formula (`math.rs`, a `math` element of the tree): markdown and text write its TeX
    /// between `$` (display math `$$`), never escaped (markdown: made inert, `inert_tex`); HTML writes it as pandoc
    /// does, for MathJax or KaTeX to typeset: `<span class="math inline">\(...\)</span>`,
    /// display math `<span class="math display">\[...\]</span>`, the TeX escaped as text.
    fn formula(&self, e: u32, acc: &mut Inline) {
        let tex = self.attr(e, "tex").unwrap_or("");
        if tex.is_empty() {
            return;
        }
        let display = self.attr(e, "display") == Some("block");
        match self.fmt {
            Format::Markdown if display => acc.paragraph(&format!("$${}$$", inert_tex(tex))),
            Format::Markdown => acc.put(&format!("${}$", inert_tex(tex))),
            Format::Text if display => acc.paragraph(&format!("$${tex}$$")),
            Format::Text => acc.put(&format!("${tex}$")),
            Format::Html => {
                let (kind, open, close) = if display {
                    ("display", "\\[", "\\]")
                } else {
                    ("inline", "\\(", "\\)")
                };
                let mut t = format!("<span class=\"math {kind}\">{open}");
                push_escaped_html(tex, &mut t);
                t.push_str(close);
                t.push_str("</span>");
                acc.put(&t);
            }
        }
    }

    fn inline(&self, e: u32, content: bool, acc: &mut Inline) {
        let tag = self.tag(e);
        match tag {
            "br" => {
                if content {
                    acc.hard_break();
                }
            }
            "img" => {
                if content && self.opts.images {
                    self.image(e, acc);
                }
            }
            "math" => {
                if content {
                    self.formula(e, acc);
                }
            }
            "code" | "kbd" | "samp" | "tt" => {
                let mut raw = String::new();
                self.raw_text(e, content, &mut raw);
                if raw.starts_with(is_space) {
                    acc.space();
                }
                let code = split_ws(&raw).collect::<Vec<_>>().join(" ");
                if !code.is_empty() {
                    match self.fmt {
                        Format::Markdown => acc.put(&code_span(&code)),
                        Format::Html => {
                            let mut t = String::from("<code>");
                            push_escaped_html(&code, &mut t);
                            t.push_str("</code>");
                            acc.put(&t);
                        }
                        Format::Text => acc.put(&code),
                    }
                    if raw.ends_with(is_space) {
                        acc.space();
                    }
                }
            }
            "em" | "i" | "strong" | "b" | "a" => {
                let open = match tag {
                    "em" | "i" => Some(&self.open_em),
                    "strong" | "b" => Some(&self.open_strong),
                    _ => None,
                };
                let nested = open.is_some_and(|o| o.get() > 0);
                let mut inner = self.inline_acc();
                open.inspect(|o| o.set(o.get() + 1));
                self.inline_children(e, content, &mut inner);
                open.inspect(|o| o.set(o.get() - 1));
                let fmt = self.fmt;
                if nested || fmt == Format::Text {
                    return acc.wrap("", inner, "");
                }
                match (tag, fmt) {
                    ("em" | "i", Format::Markdown) => acc.wrap("*", inner, "*"),
                    ("em" | "i", _) => acc.wrap("<em>", inner, "</em>"),
                    ("strong" | "b", Format::Markdown) => acc.wrap("**", inner, "**"),
                    ("strong" | "b", _) => acc.wrap("<strong>", inner, "</strong>"),
                    _ => {
                        let href = (content && self.opts.links)
                            .then(|| {
                                self.attr(e, "href")
                                    .and_then(|h| self.address(h, LINK_SCHEMES))
                            })
                            .flatten();
                        match (href, fmt) {
                            (Some(h), Format::Markdown) => acc.wrap("[", inner, &format!("]({h})")),
                            (Some(h), _) => {
                                acc.wrap(&format!("<a href=\"{}\">", html_attr(&h)), inner, "</a>")
                            }
                            (None, _) => acc.wrap("", inner, ""),
                        }
                    }
                }
            }
            "li" => {
                // a list in a line (a table cell): its items apart by "; "
                let mut inner = self.inline_acc();
                self.inline_children(e, content, &mut inner);
                if !inner.buf.is_empty() && !acc.buf.is_empty() {
                    acc.buf.push(';');
                }
                acc.space();
                acc.wrap("", inner, "");
                acc.space();
            }
            _ if is_block(tag) => {
                acc.space();
                self.inline_children(e, content, acc);
                acc.space();
            }
            _ => self.inline_children(e, content, acc),
        }
    }

    /// Whether a cell of table `t`'s own rows is content, by its own verdict or its row's.
    fn has_content_cell(&self, t: u32) -> bool {
        let row = |tr: u32, trc: bool| {
            self.children(tr).iter().any(|k| {
                matches!(k, Item::Elem(c) if matches!(self.tag(*c), "td" | "th")
                    && self.content(*c, trc))
            })
        };
        self.children(t).iter().any(|k| match k {
            Item::Elem(r) if self.tag(*r) == "tr" => row(*r, self.content(*r, false)),
            Item::Elem(g) if matches!(self.tag(*g), "thead" | "tbody" | "tfoot") => {
                let gc = self.content(*g, false);
                self.children(*g).iter().any(|k| {
                    matches!(k, Item::Elem(r) if self.tag(*r) == "tr"
                        && row(*r, self.content(*r, gc)))
                })
            }
            _ => false,
        })
    }

    fn table(&self, t: u32, content: bool, out: &mut Vec<Block>) {
        // rows of (cell, content, colspan, rowspan)
        let mut rows: Vec<Vec<Cell4>> = Vec::new();
        let mut caption = None;
        let mut irregular = false;
        let add_row = |tr: u32, trc: bool, rows: &mut Vec<Vec<Cell4>>, irregular: &mut bool| {
            let mut cells = Vec::new();
            for item in self.children(tr) {
                match item {
                    Item::Elem(c) if matches!(self.tag(*c), "td" | "th") => {
                        let span = |a| {
                            self.attr(*c, a)
                                .and_then(|v| v.trim().parse::<usize>().ok())
                                .unwrap_or(1)
                        };
                        let (cs, rs) = (span("colspan"), span("rowspan"));
                        if cs > MAX_SPAN || rs > MAX_SPAN || self.layout_cell[*c as usize] {
                            *irregular = true;
                        }
                        cells.push((
                            *c,
                            self.content(*c, trc),
                            cs.clamp(1, MAX_SPAN),
                            rs.clamp(1, MAX_SPAN),
                        ));
                    }
                    Item::Elem(_) => *irregular = true,
                    Item::Text(s) if !s.trim_matches(is_space).is_empty() => *irregular = true,
                    Item::Text(_) => {}
                }
            }
            rows.push(cells);
        };
        for item in self.children(t) {
            let Item::Elem(c) = item else { continue };
            let cc = self.content(*c, content);
            match self.tag(*c) {
                "tr" => add_row(*c, cc, &mut rows, &mut irregular),
                "thead" | "tbody" | "tfoot" => {
                    for k in self.children(*c) {
                        match k {
                            Item::Elem(r) if self.tag(*r) == "tr" => {
                                add_row(*r, self.content(*r, cc), &mut rows, &mut irregular)
                            }
                            Item::Elem(_) => irregular = true,
                            _ => {}
                        }
                    }
                }
                "caption" => caption = Some((*c, cc)),
                "colgroup" | "col" => {} // column widths: no content
                _ => irregular = true,
            }
        }
        if let Some((c, cc)) = caption {
            self.blocks(c, cc, out);
        }
        let grid = span_grid(&rows);
        let width = grid.iter().map(Vec::len).max().unwrap_or(0);
        if !(2..=MAX_SPAN).contains(&width) {
            irregular = true;
        }
        if irregular {
            let plain: Vec<Vec<(u32, bool)>> = rows
                .iter()
                .map(|r| r.iter().map(|&(c, cc, _, _)| (c, cc)).collect())
                .collect();
            return self.rows_of_text(&plain, out);
        }
        let text = match self.fmt {
            Format::Html => self.html_table(&rows),
            _ => self.grid_table(&grid, width),
        };
        if let Some(text) = text {
            out.push(Block {
                text,
                kind: Kind::Other,
            });
        }
    }

    /// A regular table as a pipe table (markdown; its first row with text the header) or
    /// as rows of cells apart by ` | ` (text). A spanned cell's text stands in its first
    /// slot, the slots it covers stay empty, and short rows are padded: every row's cells
    /// keep their columns. Rows without text are left out. None: no text at all.
    fn grid_table(&self, grid: &[Vec<Option<(u32, bool)>>], width: usize) -> Option<String> {
        let md = self.fmt == Format::Markdown;
        let texts: Vec<Vec<String>> = grid
            .iter()
            .map(|r| {
                let mut cells: Vec<String> = r
                    .iter()
                    .map(|slot| {
                        slot.map_or_else(String::new, |(c, cc)| {
                            let line = self.line(c, cc);
                            if md {
                                line.replace('|', "\\|")
                            } else {
                                line
                            }
                        })
                    })
                    .collect();
                cells.resize(width, String::new());
                cells
            })
            .filter(|r: &Vec<String>| r.iter().any(|c| !c.is_empty()))
            .collect();
        if texts.is_empty() {
            return None;
        }
        if !md {
            let lines: Vec<String> = texts
                .iter()
                .map(|r| r.join(" | ").trim_end_matches([' ', '|']).to_string())
                .collect();
            return Some(lines.join("\n"));
        }
        let row = |cells: &[String]| format!("| {} |", cells.join(" | "));
        let mut lines = vec![row(&texts[0]), row(&vec!["---".to_string(); width])];
        lines.extend(texts[1..].iter().map(|r| row(r)));
        Some(lines.join("\n"))
    }

    /// A regular table as HTML: the page's cells (`th` or `td`) with their spans, rows
    /// without text left out. None: no text at all.
    fn html_table(&self, rows: &[Vec<Cell4>]) -> Option<String> {
        let mut lines = vec!["<table>".to_string(), "<tbody>".to_string()];
        for r in rows {
            let cells: Vec<String> = r
                .iter()
                .map(|&(c, cc, cs, rs)| {
                    let tag = self.tag(c);
                    let mut open = format!("<{tag}");
                    if cs > 1 {
                        open.push_str(&format!(" colspan=\"{cs}\""));
                    }
                    if rs > 1 {
                        open.push_str(&format!(" rowspan=\"{rs}\""));
                    }
                    format!("{open}>{}</{tag}>", self.line(c, cc))
                })
                .collect();
            let has_text = r.iter().any(|&(c, cc, _, _)| !self.line(c, cc).is_empty());
            if has_text {
                lines.push(format!("<tr>{}</tr>", cells.join("")));
            }
        }
        if lines.len() == 2 {
            return None;
        }
        lines.push("</tbody>".to_string());
        lines.push("</table>".to_string());
        Some(lines.join("\n"))
    }

    /// An irregular table: a row of cells that are lines of text becomes one paragraph
    /// (cells joined by " · "); cells with structure of their own become blocks.
    fn rows_of_text(&self, rows: &[Vec<(u32, bool)>], out: &mut Vec<Block>) {
        for r in rows {
            if r.iter().all(|&(c, _)| !self.has_structure[c as usize]) {
                let cells: Vec<String> = r
                    .iter()
                    .map(|&(c, cc)| self.line(c, cc))
                    .filter(|s| !s.is_empty())
                    .collect();
                if !cells.is_empty() {
                    let line = cells.join(" · ");
                    let text = if self.fmt == Format::Markdown {
                        let mut text = String::new();
                        escape_line_start(&line, &mut text);
                        text
                    } else {
                        line
                    };
                    out.push(Block {
                        text,
                        kind: Kind::Para,
                    });
                }
            } else {
                for &(c, cc) in r {
                    self.blocks(c, cc, out);
                }
            }
        }
    }
}

/// A table cell: (element, content, colspan, rowspan).
type Cell4 = (u32, bool, usize, usize);

/// Spans beyond this (and tables wider than this) are no pipe table: a layout table.
const MAX_SPAN: usize = 64;

/// The table's rows as slots, column by column: a cell stands in the first slot it spans
/// (`Some`), the other slots it covers across and down are `None`.
fn span_grid(rows: &[Vec<Cell4>]) -> Vec<Vec<Option<(u32, bool)>>> {
    let mut grid = Vec::with_capacity(rows.len());
    let mut below: Vec<usize> = Vec::new(); // per column: rows still covered from above
    for row in rows {
        let mut slots = Vec::new();
        let mut cells = row.iter();
        let mut col = 0;
        loop {
            while col < below.len() && below[col] > 0 {
                below[col] -= 1;
                slots.push(None);
                col += 1;
            }
            let Some(&(c, cc, colspan, rowspan)) = cells.next() else {
                break;
            };
            for k in 0..colspan {
                if below.len() <= col {
                    below.resize(col + 1, 0);
                }
                below[col] = rowspan - 1;
                slots.push(if k == 0 { Some((c, cc)) } else { None });
                col += 1;
            }
        }
        for rest in below.iter_mut().skip(col) {
            if *rest > 0 {
                *rest -= 1;
                slots.push(None);
            }
        }
        grid.push(slots);
    }
    grid
}

fn indent(text: &str, width: usize) -> String {
    let pad = " ".repeat(width);
    text.split('\n')
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The content of `view` under the verdicts `kept` (one per element) in `opts.format`.
pub(crate) fn render(view: &View, kept: &[Option<bool>], opts: &Options) -> String {
    if view.elems.is_empty() {
        return String::new();
    }
    let md = Md::new(view, kept, opts);
    let mut out = Vec::new();
    if !md.content(0, true) {
        md.blocks(0, false, &mut out);
    } else {
        md.block(0, true, &mut out);
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

/// A formula's TeX as markdown may hold it: the same formula typeset, but nothing a markdown
/// renderer that does not know `$` math would turn into markup a browser runs. The TeX comes
/// from the page, so `<img onerror=...>` or `[x](javascript:...)` in an annotation would
/// otherwise be raw HTML or a link: `<` and `>` become `\lt ` and `\gt ` (TeX's own names
/// for them, in MathJax and KaTeX), and `](` gets a space between (a space in math mode is
/// nothing, and a link needs the two together).
fn inert_tex(tex: &str) -> String {
    tex.replace('<', "\\lt ")
        .replace('>', "\\gt ")
        .replace("](", "] (")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::dom::build_view;
    use crate::read::parse::parse;

    fn md_with(html: &str, kept: &[(u32, bool)], opts: Options) -> String {
        let a = parse(html);
        let body = a.html_child("body").unwrap();
        let view = build_view(&a, body);
        let mut k = vec![None; view.elems.len()];
        for &(nid, v) in kept {
            k[nid as usize - 1] = Some(v);
        }
        render(&view, &k, &opts)
    }

    fn md(html: &str) -> String {
        md_with(html, &[], Options::default())
    }

    fn as_format(html: &str, format: Format) -> String {
        md_with(
            html,
            &[],
            Options {
                format,
                ..Options::default()
            },
        )
    }

    fn html(html: &str) -> String {
        as_format(html, Format::Html)
    }

    fn text(html: &str) -> String {
        as_format(html, Format::Text)
    }

    #[test]
    fn formulas_are_latex_between_dollars_never_escaped() {
        let page = "<p>When <math><mi>a</mi><mo>≠</mo><mn>0</mn></math>, the roots of \
                    <span class='katex'><span class='katex-mathml'><math><semantics><mi>x</mi>\
                    <annotation encoding='application/x-tex'>a x^2 + b_1 x + c = 0</annotation>\
                    </semantics></math></span><span class='katex-html' aria-hidden='true'>\
                    ax2+b1x+c=0</span></span> are</p>\
                    <div class='MathJax_Display'><span class='MathJax'>x = ...</span></div>\
                    <script type='math/tex; mode=display'>x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}</script>\
                    <p>and <em>*stars*</em> stay escaped.</p>";
        assert_eq!(
            md(page),
            "When $a\\neq 0$, the roots of $a x^2 + b_1 x + c = 0$ are\n\n\
             $$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$$\n\nand *\\*stars\\** stay escaped."
        );
        assert_eq!(
            text(page),
            "When $a\\neq 0$, the roots of $a x^2 + b_1 x + c = 0$ are\n\n\
             $$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$$\n\nand *stars* stay escaped."
        );
        assert_eq!(
            html(
                "<p>If <math><mi>a</mi><mo>&lt;</mo><mi>b</mi></math></p>\
                  <math display='block'><mi>x</mi></math>"
            ),
            "<p>If <span class=\"math inline\">\\(a&lt;b\\)</span></p>\n\
             <p><span class=\"math display\">\\[x\\]</span></p>"
        );
    }

    #[test]
    fn display_math_is_a_block_of_its_own_inline_math_stays_in_its_line() {
        let page = "<p>before <script type='math/tex; mode=display'>x^2</script>after \
                    <script type='math/tex'>y</script> and</p>";
        assert_eq!(md(page), "before\n\n$$x^2$$\n\nafter $y$ and");
    }

    #[test]
    fn a_formula_under_a_noise_verdict_is_left_out_with_it() {
        // nids: body 1, its two p 2 and 3, then their formulas 4 and 5
        let page = "<p>Keep <math><mi>x</mi></math></p><p>drop <math><mi>y</mi></math></p>";
        let out = md_with(page, &[(2, true), (3, false)], Options::default());
        assert_eq!(out, "Keep $x$");
    }

    #[test]
    fn paragraphs_are_separated_by_blank_lines_and_whitespace_folded() {
        assert_eq!(
            md("<p>  one\n  two </p><div>three <span> four</span></div>"),
            "one two\n\nthree four"
        );
    }

    #[test]
    fn heading_levels() {
        let html = "<h1>One</h1><h2>Two</h2><h3>Three</h3><h4>Four</h4><h5>Five</h5><h6>Six <em>x</em></h6>";
        assert_eq!(
            md(html),
            "# One\n\n## Two\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six *x*"
        );
    }

    #[test]
    fn nested_list() {
        let html =
            "<ul><li>a<ul><li>a1</li><li>a2<ul><li>deep</li></ul></li></ul></li><li>b</li></ul>";
        assert_eq!(md(html), "- a\n  - a1\n  - a2\n    - deep\n- b");
    }

    #[test]
    fn list_inside_list_joins_the_item_before() {
        assert_eq!(
            md("<ul><li>a</li><ul><li>a1</li></ul><li>b</li></ul>"),
            "- a\n  - a1\n- b"
        );
    }

    #[test]
    fn ordered_list_with_start() {
        let html = "<ol start=7><li>seven</li><li>eight<ol><li>sub</li></ol></li></ol>";
        assert_eq!(md(html), "7. seven\n8. eight\n   1. sub");
    }

    #[test]
    fn table_with_header() {
        let html = "<table><thead><tr><th>Name</th><th>Pipe</th></tr></thead>\
                    <tbody><tr><td>a</td><td>x | y</td></tr><tr><td>b<br>c</td><td><code>p|q</code></td></tr></tbody></table>";
        assert_eq!(
            md(html),
            "| Name | Pipe |\n| --- | --- |\n| a | x \\| y |\n| b c | `p\\|q` |"
        );
    }

    #[test]
    fn table_without_th_takes_its_first_row_as_header() {
        let html = "<table><tr><td>k</td><td>v</td></tr><tr><td>1</td><td>2</td></tr></table>";
        assert_eq!(md(html), "| k | v |\n| --- | --- |\n| 1 | 2 |");
    }

    #[test]
    fn table_with_colspan_keeps_its_columns() {
        let html = "<table><tr><th colspan=2>Both</th></tr><tr><td>a</td><td>b</td></tr>\
                    <tr><td>c</td><td>d</td></tr></table>";
        assert_eq!(md(html), "| Both |  |\n| --- | --- |\n| a | b |\n| c | d |");
    }

    #[test]
    fn table_with_rowspan_and_ragged_rows_keeps_its_columns() {
        let html = "<table><tr><th>k</th><th>v</th><th>w</th></tr>\
                    <tr><td rowspan=2>x</td><td>1</td><td>2</td></tr><tr><td>3</td></tr></table>";
        assert_eq!(
            md(html),
            "| k | v | w |\n| --- | --- | --- |\n| x | 1 | 2 |\n|  | 3 |  |"
        );
    }

    #[test]
    fn layout_table_keeps_its_cells_blocks() {
        let html =
            "<table><tr><td><h2>Title</h2><p>Body text.</p><ul><li>x</li></ul></td></tr></table>";
        assert_eq!(md(html), "## Title\n\nBody text.\n\n- x");
    }

    #[test]
    fn code_with_comments_and_blank_lines_keeps_lines() {
        let html =
            "<pre><code class=\"language-js\">// add two numbers\nfunction add(a, b) {\n\n  \
                    return a + b; // *sum*\n}\n</code></pre>";
        assert_eq!(
            md(html),
            "```js\n// add two numbers\nfunction add(a, b) {\n\n  return a + b; // *sum*\n}\n```"
        );
    }

    #[test]
    fn code_block_language_on_pre_and_longer_fence() {
        let html = "<pre class='lang-md'>\n<span>a</span>\n```\nb</pre>";
        assert_eq!(md(html), "````md\na\n```\nb\n````");
    }

    #[test]
    fn inline_code_in_paragraph() {
        let html =
            "<p>Call <code>f(x)</code> or <code>a`b</code> and <code>&lt;div&gt;</code> *now*.</p>";
        assert_eq!(md(html), "Call `f(x)` or ``a`b`` and `<div>` \\*now\\*.");
    }

    #[test]
    fn link_with_markup_inside() {
        let html = "<p>See <a href='/docs/a b'>the <b>new</b> docs</a>.</p>";
        assert_eq!(
            md_with(
                html,
                &[],
                Options {
                    links: true,
                    ..Options::default()
                }
            ),
            "See [the **new** docs](/docs/a%20b)."
        );
        assert_eq!(md(html), "See the **new** docs.");
    }

    #[test]
    fn emphasis_keeps_its_spaces_outside() {
        assert_eq!(
            md("<p>a<em> b </em>c <strong>d</strong><i></i></p>"),
            "a *b* c **d**"
        );
    }

    #[test]
    fn emphasis_inside_emphasis_of_its_kind_adds_no_markup() {
        assert_eq!(
            md("<p><b>a <strong>b</strong> <i>c <em>d</em></i></b></p>"),
            "**a b *c d***"
        );
    }

    #[test]
    fn images_only_when_asked() {
        let html = "<p>x <img src='p.png' alt='A [cat]'> y</p>";
        assert_eq!(md(html), "x y");
        assert_eq!(
            md_with(
                html,
                &[],
                Options {
                    images: true,
                    ..Options::default()
                }
            ),
            "x ![A \\[cat\\]](p.png) y"
        );
    }

    #[test]
    fn line_breaks() {
        assert_eq!(
            md("<p>one<br>two<br><br>three<br></p>"),
            "one\\\ntwo\\\nthree"
        );
    }

    #[test]
    fn block_quote() {
        assert_eq!(
            md("<blockquote><p>a</p><p>b</p></blockquote>"),
            "> a\n>\n> b"
        );
    }

    #[test]
    fn escaped_characters() {
        let html = "<p># not a heading</p><p>- not a list</p><p>1. not a list</p><p>&gt; not a quote</p>\
                    <p>a *b* [c] &lt;div&gt; snake_case _x_ &amp;amp; AT&amp;T \\ `t`</p><p>---</p>";
        assert_eq!(
            md(html),
            "\\# not a heading\n\n\\- not a list\n\n1\\. not a list\n\n\\> not a quote\n\n\
             a \\*b\\* \\[c\\] \\<div> snake_case \\_x\\_ \\&amp; AT&T \\\\ \\`t\\`\n\n\\---"
        );
    }

    #[test]
    fn noise_subtree_left_out() {
        // nids: body 1, div 2, p 3; below div: h2 4, p 5, ul 6; below ul: li 7, li 8
        let html =
            "<div><h2>Title</h2><p>keep</p><ul><li>menu</li><li>back</li></ul></div><p>end</p>";
        assert_eq!(
            md_with(html, &[(6, false)], Options::default()),
            "## Title\n\nkeep\n\nend"
        );
        // a content verdict below a noise one holds for its subtree
        assert_eq!(
            md_with(html, &[(2, false), (8, true)], Options::default()),
            "- back\n\nend"
        );
        assert_eq!(
            md_with(html, &[(1, false), (5, true)], Options::default()),
            "keep"
        );
    }

    #[test]
    fn no_trailing_blank_lines() {
        assert_eq!(md("<p>a</p><p> </p><div>\n</div>"), "a");
        assert_eq!(md(""), "");
    }

    #[test]
    fn links_and_images_resolve_against_the_base_href_and_the_url() {
        let page = "<p><a href='../b (1).html'>b</a> <img src='i.png' alt='I'> \
                    <a href='javascript:go()'>js</a> <img src='data:image/png;base64,AAA' alt='D'></p>";
        let base = base_url(Some("https://ex.org/a/c/page"), Some("/docs/x/"));
        let opts = Options {
            links: true,
            images: true,
            base,
            ..Options::default()
        };
        assert_eq!(
            md_with(page, &[], opts.clone()),
            "[b](https://ex.org/docs/b%20%281%29.html) ![I](https://ex.org/docs/x/i.png) js"
        );
        assert_eq!(
            md_with(
                page,
                &[],
                Options {
                    format: Format::Html,
                    ..opts
                }
            ),
            "<p><a href=\"https://ex.org/docs/b%20(1).html\">b</a> \
             <img src=\"https://ex.org/docs/x/i.png\" alt=\"I\"> js</p>"
        );
        // no URL: addresses stay as written; an unparsable base falls back to the URL
        assert_eq!(base_url(None, Some("rel/")), None);
        assert_eq!(
            base_url(Some("https://ex.org/p"), Some("http://[bad")).map(String::from),
            Some("https://ex.org/p".to_string())
        );
    }

    /// Classic filter-evasion spellings of a scripting address (as they stand in a page's
    /// source), each inside an `href` and a `src`.
    const EVASIONS: &[&str] = &[
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "java&#x09;script:alert(1)",
        "java&#x0A;script:alert(1)",
        "java&#x0D;script:alert(1)",
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
        " \t javascript:alert(1)",
        "&#14;javascript:alert(1)",
        "&#x01;&#x1f; javascript:alert(1)",
        "&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)",
        "&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)",
        "&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1)",
        "javascript&colon;alert(1)",
        "javascript&amp;#58;alert(1)",
        "java\0script:alert(1)",
        "vbscript:msgbox(1)",
        "livescript:alert(1)",
        "javascript://%0aalert(1)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "DATA:text/html,<script>alert(1)</script>",
        "data:image/svg+xml,<svg onload=alert(1)>",
        "file:///etc/passwd",
    ];

    /// Every `href="..."` and `src="..."` value in rendered HTML, unescaped.
    fn html_addresses(out: &str) -> Vec<String> {
        let mut found = Vec::new();
        for key in ["href=\"", "src=\""] {
            for (at, _) in out.match_indices(key) {
                let rest = &out[at + key.len()..];
                let value = &rest[..rest.find('"').unwrap()];
                found.push(
                    value
                        .replace("&quot;", "\"")
                        .replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&amp;", "&"),
                );
            }
        }
        found
    }

    /// Every `](...)` destination in rendered markdown.
    fn md_addresses(out: &str) -> Vec<String> {
        out.match_indices("](")
            .map(|(at, _)| {
                let rest = &out[at + 2..];
                rest[..rest.find(')').unwrap()].to_string()
            })
            .collect()
    }

    /// The scheme a browser reads in `address` on a page at an https address.
    fn browser_scheme(address: &str) -> String {
        let page = Url::parse("https://reader.example/view").unwrap();
        page.join(address)
            .map_or("-".to_string(), |u| u.scheme().to_string())
    }

    #[test]
    fn scripting_addresses_in_any_spelling_are_dropped_with_their_markup() {
        let page_urls = [None, Some("https://ex.org/a/"), Some("javascript:alert(1)")];
        let bases = [
            None,
            Some("javascript:alert(1)//"),
            Some("data:text/html,x"),
        ];
        for raw in EVASIONS {
            let page = format!(
                "<p>see <a href=\"{raw}\">one</a> <img src=\"{raw}\" alt=\"two\"> \
                 <a href=\"{raw}\"><img src=\"{raw}\" alt=\"three\"></a></p>"
            );
            for url in page_urls {
                for base_href in bases {
                    for format in [Format::Html, Format::Markdown] {
                        let opts = Options::for_page(format, true, true, url, base_href);
                        let out = md_with(&page, &[], opts);
                        let found = match format {
                            Format::Html => html_addresses(&out),
                            _ => md_addresses(&out),
                        };
                        for a in found {
                            let scheme = browser_scheme(&a);
                            assert!(
                                scheme == "https",
                                "{raw:?} (url {url:?}, base {base_href:?}) wrote {a:?}: {out}"
                            );
                        }
                        assert!(out.contains("one"), "{out}");
                    }
                }
            }
        }
    }

    #[test]
    fn only_allowed_schemes_pass_and_what_is_written_is_what_was_checked() {
        let base = base_url(Some("https://ex.org/a/p.html"), None);
        let (html, md) = (Format::Html, Format::Markdown);
        // (address, against the base, in format, written or None)
        let cases: &[(&str, bool, Format, Option<&str>)] = &[
            ("b.html", true, html, Some("https://ex.org/a/b.html")),
            ("//cdn.org/x", true, html, Some("https://cdn.org/x")),
            (" mailto:a@b.org ", true, html, Some("mailto:a@b.org")),
            ("ftp://f.org/x", true, html, Some("ftp://f.org/x")),
            ("HTTP://EX.ORG", true, html, Some("http://ex.org/")),
            ("java\tscript:x", true, html, None),
            ("\u{1}javascript:x", true, html, None),
            ("tel:123", true, html, None),
            ("http://exa mple.org/", true, html, None), // no valid host
            // without a base: relative addresses stay relative, absolute ones are checked
            ("b.html", false, html, Some("b.html")),
            ("/b c.html", false, md, Some("/b%20c.html")),
            ("#top", false, md, Some("#top")),
            ("vbscript:x", false, html, None),
            // a relative address a markdown renderer could decode into a scheme: led by ./
            (
                "javascript&#58;alert(1)",
                false,
                md,
                Some("./javascript&#58;alert%281%29"),
            ),
            (
                "javascript&#58;alert(1)",
                false,
                html,
                Some("javascript&#58;alert(1)"),
            ),
        ];
        for &(raw, based, fmt, want) in cases {
            let b = if based { base.as_ref() } else { None };
            let got = safe_address(raw, b, LINK_SCHEMES, fmt);
            assert_eq!(got.as_deref(), want, "{raw:?}");
        }
        let mail = safe_address("mailto:a@b.org", base.as_ref(), IMAGE_SCHEMES, html);
        assert_eq!(mail, None);
        // a scripting or data base is no base; the page's URL stands
        let based = |url: Option<&str>, href: &str| base_url(url, Some(href)).map(String::from);
        let page = Some("https://ex.org/p");
        assert_eq!(based(page, "javascript:alert(1)//").as_deref(), page);
        assert_eq!(based(page, "javascript://%0aalert(1)//").as_deref(), page);
        assert_eq!(based(None, "data:text/html,x"), None);
        assert_eq!(base_url(Some("javascript:x"), None), None);
        assert_eq!(
            based(page, "http://cdn.ex.org/").as_deref(),
            Some("http://cdn.ex.org/")
        );
    }

    #[test]
    fn lazy_images_take_their_data_src() {
        let page = "<p><img src='data:image/gif;base64,R0l' data-src='/big.jpg' alt='B'></p>";
        let opts = Options {
            images: true,
            base: base_url(Some("https://ex.org/a"), None),
            ..Options::default()
        };
        assert_eq!(md_with(page, &[], opts), "![B](https://ex.org/big.jpg)");
    }

    #[test]
    fn html_fragment_keeps_the_structure() {
        let page = "<h2>T &amp; U</h2><p>a <b>b</b><br>c <code>&lt;x&gt;</code></p>\
                    <ol start=3><li>x</li><li><p>y</p><p>z</p></li></ol>\
                    <ul><li>p<ul><li>q</li></ul></li></ul>\
                    <pre class='language-rs'>fn a() {\n  1 < 2\n}</pre><blockquote>q</blockquote><hr>";
        assert_eq!(
            html(page),
            "<h2>T &amp; U</h2>\n<p>a <strong>b</strong><br>\nc <code>&lt;x&gt;</code></p>\n\
             <ol start=\"3\">\n<li>x</li>\n<li><p>y</p>\n<p>z</p></li>\n</ol>\n\
             <ul>\n<li>p\n<ul>\n<li>q</li>\n</ul></li>\n</ul>\n\
             <pre><code class=\"language-rs\">fn a() {\n  1 &lt; 2\n}</code></pre>\n\
             <blockquote>\n<p>q</p>\n</blockquote>\n<hr>"
        );
    }

    #[test]
    fn html_table_keeps_its_cells_and_spans() {
        let page = "<table><tr><th colspan=2>Both</th></tr><tr><td>a</td><td>b &lt; c</td></tr>\
                    <tr><td></td><td></td></tr></table>";
        assert_eq!(
            html(page),
            "<table>\n<tbody>\n<tr><th colspan=\"2\">Both</th></tr>\n\
             <tr><td>a</td><td>b &lt; c</td></tr>\n</tbody>\n</table>"
        );
    }

    #[test]
    fn text_keeps_paragraphs_line_breaks_and_code_lines_without_markup() {
        let page = "<h1>Title *x*</h1><p>one<br>two <em>three</em> [4]</p>\
                    <ul><li>a</li><li>b</li></ul><pre>x = 1\n\ny = 2</pre>\
                    <table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>";
        assert_eq!(
            text(page),
            "Title *x*\n\none\ntwo three [4]\n\n- a\n- b\n\nx = 1\n\ny = 2\n\nk | v\n1 | 2"
        );
    }

    #[test]
    fn title_heading_is_escaped_for_its_format() {
        assert_eq!(
            title_heading(" A  *B* #", Format::Markdown),
            "# A \\*B\\* \\#"
        );
        assert_eq!(title_heading("A < B", Format::Html), "<h1>A &lt; B</h1>");
        assert_eq!(title_heading("A\n B", Format::Text), "A B");
    }

    #[test]
    fn list_in_a_cell_stays_in_its_cell() {
        let page = "<table><tr><th>Products</th><td><ul><li>Firefox</li><li>Thunderbird</li></ul></td></tr>\
                    <tr><th>Founded</th><td>2003</td></tr></table>";
        assert_eq!(
            md(page),
            "| Products | Firefox; Thunderbird |\n| --- | --- |\n| Founded | 2003 |"
        );
        // a list beside paragraphs: a layout cell
        let layout = "<table><tr><td><p>Intro</p><ul><li>a</li></ul></td><td>x</td></tr>\
                      <tr><td>1</td><td>2</td></tr></table>";
        assert_eq!(md(layout), "Intro\n\n- a\n\nx\n\n1 · 2");
    }

    #[test]
    fn content_cells_of_a_noise_table_stay_a_table() {
        // nids: body 1, table 2, tbody 3, tr 4-6; cells 7-8, 9-10, 11-12
        let page = "<table><tr><td>menu</td><td>x</td></tr><tr><td>k</td><td>v</td></tr>\
                    <tr><td>1</td><td>2</td></tr></table>";
        let kept = [(1, false), (9, true), (10, true), (11, true), (12, true)];
        assert_eq!(
            md_with(page, &kept, Options::default()),
            "| k | v |\n| --- | --- |\n| 1 | 2 |"
        );
        // no content cell: the table's content below it is written as blocks
        assert_eq!(
            md_with(page, &[(1, false), (2, false)], Options::default()),
            ""
        );
    }

    #[test]
    fn a_line_break_at_an_inline_element_s_edge_still_parts_the_words() {
        assert_eq!(
            md("<p><strong>Huge expectations<br></strong>Ride on</p>"),
            "**Huge expectations**\\\nRide on"
        );
        assert_eq!(
            md("<p><b>Apps</b><b><br></b><span>Facilitate</span></p>"),
            "**Apps**\\\nFacilitate"
        );
        assert_eq!(text("<p>x<i><br>a</i>b</p>"), "x\nab");
    }

    #[test]
    fn what_stands_in_a_list_outside_its_items_keeps_its_place() {
        assert_eq!(
            md("<ol>Benefits: <li>one</li><li>two</li><h3>More</h3><li>three</li></ol>"),
            "Benefits:\n\n1. one\n2. two\n\n### More\n\n3. three"
        );
        // a nested list without items: its text is written, not dropped
        assert_eq!(md("<ul><ul>A quoted line.</ul></ul>"), "A quoted line.");
        assert_eq!(md("<ul><li>a</li><ul><li>a1</li></ul></ul>"), "- a\n  - a1");
    }

    #[test]
    fn a_formula_in_markdown_holds_no_markup_a_browser_runs() {
        assert_eq!(
            inert_tex("a<b>c [x](javascript:alert(1))"),
            "a\\lt b\\gt c [x] (javascript:alert(1))"
        );
        assert_eq!(inert_tex("\\frac{a}{b}"), "\\frac{a}{b}");
    }
}
