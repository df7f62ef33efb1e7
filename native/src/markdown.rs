//! Markdown of the kept content of a page's visible tree: headings, paragraphs, nested
//! ordered and unordered lists, fenced code with its language and its line breaks, inline
//! code, pipe tables (degraded to rows of text when irregular), block quotes, emphasis,
//! line breaks, and links and images on request.
//!
//! Verdicts: `kept[e]` is the verdict on view element `e` (`None`: the parent's; the
//! virtual root above `<body>` is content). Only content text is written; the markup of a
//! noise element is left out, but content below it (a deeper verdict) is still written.
//!
//! Escaping, in text only (never inside code spans or code blocks):
//! - everywhere: `\`, `` ` ``, `*`, `[`, `]` and `<` are backslash-escaped; `_` unless
//!   it stands between two letters or digits (`snake_case` stays as it is); `&` when it
//!   starts something that reads as an entity (`&amp;`, `&#38;`);
//! - at the start of a line: `#`, `>`, `~`, `-` / `+` followed by a space or the end of
//!   the line, a line of only `-` or `=` (a setext underline or rule), and the `.` or `)`
//!   after 1-9 digits followed by a space or the end of the line (`1\. `);
//! - in table cells also `|`; in a heading a closing run of `#`.

use std::cell::Cell;

use crate::dom::{is_block_tag, Item, View};
use crate::text::{is_space, split_ws};

#[derive(Clone, Copy, Debug, Default)]
pub struct MdOptions {
    /// `[text](href)` for links (otherwise their text only)
    pub links: bool,
    /// `![alt](src)` for images (otherwise nothing)
    pub images: bool,
}

const LIST_TAGS: &[&str] = &["ul", "ol", "menu", "dir"];
/// Descendants that make a table cell more than a line of text.
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

/// A rendered block; `list` blocks follow the text of a list item on the next line.
struct Block {
    text: String,
    list: bool,
}

/// A run of inline markdown with whitespace folded as a browser folds it.
#[derive(Default)]
struct Inline {
    buf: String,
    /// whitespace seen since the last output
    space: bool,
    /// whitespace seen before any output
    lead: bool,
}

impl Inline {
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

    /// Text: whitespace folded, markdown escaped.
    fn text(&mut self, t: &str) {
        let chars: Vec<char> = t.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            if is_space(c) {
                self.space();
                continue;
            }
            self.before_output();
            match c {
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
            }
            self.buf.push(c);
        }
    }

    /// `<br>`: a hard line break (a backslash at the end of the line); several in a row
    /// count once.
    fn hard_break(&mut self) {
        if !self.buf.is_empty() && !self.buf.ends_with('\n') {
            self.buf.push_str("\\\n");
        }
        self.space = false;
    }

    /// Wrap `inner` in `open` / `close` when it has any text, carrying its outer spaces.
    fn wrap(&mut self, open: &str, inner: Inline, close: &str) {
        if inner.lead {
            self.space();
        }
        let body = inner.buf.trim_end_matches("\\\n");
        if !body.is_empty() {
            self.before_output();
            self.buf.push_str(open);
            self.buf.push_str(body);
            self.buf.push_str(close);
        }
        if inner.space {
            self.space();
        }
    }

    /// The paragraph: no break at either end, line starts escaped.
    fn finish(self) -> String {
        let body = self.buf.trim_end_matches("\\\n");
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

/// Escape what would start a block at the start of a line of text.
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

/// A link or image address, with what would end it percent-encoded.
fn destination(url: &str) -> String {
    let url = url.trim_matches(is_space);
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

struct Md<'a> {
    view: &'a View,
    kept: &'a [Option<bool>],
    opts: &'a MdOptions,
    /// an element has a block element below it
    has_block: Vec<bool>,
    /// an element has a STRUCTURE_TAGS element below it
    has_structure: Vec<bool>,
    /// open `*` and `**` wrappers: emphasis inside emphasis of its kind adds no markup
    open_em: Cell<u32>,
    open_strong: Cell<u32>,
}

impl<'a> Md<'a> {
    fn new(view: &'a View, kept: &'a [Option<bool>], opts: &'a MdOptions) -> Self {
        let n = view.elems.len();
        let (mut has_block, mut has_structure) = (vec![false; n], vec![false; n]);
        for &e in view.preorder.iter().rev() {
            for item in &view.elems[e as usize].children {
                if let Item::Elem(c) = item {
                    let (c, tag) = (*c as usize, view.elems[*c as usize].tag.as_str());
                    has_block[e as usize] |= has_block[c] || is_block(tag);
                    has_structure[e as usize] |= has_structure[c] || STRUCTURE_TAGS.contains(&tag);
                }
            }
        }
        Md {
            view,
            kept,
            opts,
            has_block,
            has_structure,
            open_em: Cell::new(0),
            open_strong: Cell::new(0),
        }
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

    fn flush(&self, acc: &mut Inline, out: &mut Vec<Block>) {
        let text = std::mem::take(acc).finish();
        if !text.is_empty() {
            out.push(Block { text, list: false });
        }
    }

    /// The children of `e` as blocks: runs of inline content become paragraphs.
    fn blocks(&self, e: u32, content: bool, out: &mut Vec<Block>) {
        let mut acc = Inline::default();
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
            // the markup is noise; content below it is still written
            return self.blocks(e, false, out);
        }
        let tag = self.tag(e);
        if let Some(level) = heading_level(tag) {
            let text = self.line(e, content);
            if !text.is_empty() {
                let mut text = text;
                if text.ends_with('#') {
                    let at = text.trim_end_matches('#').len();
                    text.insert(at, '\\');
                }
                out.push(Block {
                    text: format!("{} {}", "#".repeat(level), text),
                    list: false,
                });
            }
            return;
        }
        match tag {
            "ul" | "ol" | "menu" | "dir" => self.list(e, content, out),
            "li" => {
                let mut inner = Vec::new();
                self.blocks(e, content, &mut inner);
                if let Some(text) = item("- ", inner) {
                    out.push(Block { text, list: true });
                }
            }
            "pre" => self.pre(e, content, out),
            "blockquote" => {
                let mut inner = Vec::new();
                self.blocks(e, content, &mut inner);
                let body = join(inner);
                if !body.is_empty() {
                    let text = body
                        .split('\n')
                        .map(|l| {
                            if l.is_empty() {
                                ">".to_string()
                            } else {
                                format!("> {l}")
                            }
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                    out.push(Block { text, list: false });
                }
            }
            "table" => self.table(e, content, out),
            "hr" => out.push(Block {
                text: "---".to_string(),
                list: false,
            }),
            _ => self.blocks(e, content, out),
        }
    }

    fn list(&self, e: u32, content: bool, out: &mut Vec<Block>) {
        let ordered = self.tag(e) == "ol";
        let mut n: i64 = self
            .attr(e, "start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        let mut items: Vec<String> = Vec::new();
        let mut rest: Vec<Block> = Vec::new();
        for child in self.children(e) {
            let Item::Elem(c) = child else { continue };
            let cc = self.content(*c, content);
            let ctag = self.tag(*c);
            if ctag == "li" {
                let mut inner = Vec::new();
                self.blocks(*c, cc, &mut inner);
                let marker = if ordered {
                    format!("{n}. ")
                } else {
                    "- ".to_string()
                };
                if let Some(text) = item(&marker, inner) {
                    items.push(text);
                    n += 1;
                }
            } else if LIST_TAGS.contains(&ctag) && !items.is_empty() {
                // a list right inside a list belongs to the item before it
                let mut inner = Vec::new();
                self.block(*c, cc, &mut inner);
                let last = items.last_mut().unwrap();
                let width = last.find(' ').map_or(2, |i| i + 1);
                for b in inner {
                    last.push('\n');
                    last.push_str(&indent(&b.text, width));
                }
            } else {
                self.block(*c, cc, &mut rest);
            }
        }
        if !items.is_empty() {
            out.push(Block {
                text: items.join("\n"),
                list: true,
            });
        }
        out.extend(rest);
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
        let f = fence(code, 3);
        let text = format!("{f}{}\n{code}\n{f}", lang.unwrap_or(""));
        out.push(Block { text, list: false });
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
        let mut acc = Inline::default();
        for item in self.children(e) {
            match item {
                Item::Text(t) if content => acc.text(t),
                Item::Text(_) => {}
                Item::Elem(c) => self.inline(*c, self.content(*c, content), &mut acc),
            }
        }
        acc.buf
            .trim_end_matches("\\\n")
            .replace("\\\n", " ")
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
                    if let Some(src) = self
                        .attr(e, "src")
                        .map(destination)
                        .filter(|s| !s.is_empty())
                    {
                        let mut alt = Inline::default();
                        alt.text(self.attr(e, "alt").unwrap_or(""));
                        acc.put(&format!("![{}]({src})", alt.buf));
                    }
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
                    acc.put(&code_span(&code));
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
                let mut inner = Inline::default();
                open.inspect(|o| o.set(o.get() + 1));
                self.inline_children(e, content, &mut inner);
                open.inspect(|o| o.set(o.get() - 1));
                let href = self.attr(e, "href").map(destination);
                match tag {
                    _ if nested => acc.wrap("", inner, ""),
                    "em" | "i" => acc.wrap("*", inner, "*"),
                    "strong" | "b" => acc.wrap("**", inner, "**"),
                    _ => match href {
                        Some(h)
                            if content
                                && self.opts.links
                                && !h.is_empty()
                                && !h.to_ascii_lowercase().starts_with("javascript:") =>
                        {
                            acc.wrap("[", inner, &format!("]({h})"))
                        }
                        _ => acc.wrap("", inner, ""),
                    },
                }
            }
            _ if is_block(tag) => {
                acc.space();
                self.inline_children(e, content, acc);
                acc.space();
            }
            _ => self.inline_children(e, content, acc),
        }
    }

    fn table(&self, t: u32, content: bool, out: &mut Vec<Block>) {
        // rows of (cell, content, colspan, rowspan)
        let mut rows: Vec<Vec<(u32, bool, usize, usize)>> = Vec::new();
        let mut caption = None;
        let mut irregular = false;
        let add_row = |tr: u32,
                       trc: bool,
                       rows: &mut Vec<Vec<(u32, bool, usize, usize)>>,
                       irregular: &mut bool| {
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
                        if cs > MAX_SPAN || rs > MAX_SPAN || self.has_structure[*c as usize] {
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
        // A spanned cell's text stands in its first slot; the slots it covers stay empty,
        // and short rows are padded: a pipe table keeps every row's cells in their columns.
        let texts: Vec<Vec<String>> = grid
            .iter()
            .map(|r| {
                let mut cells: Vec<String> = r
                    .iter()
                    .map(|slot| {
                        slot.map_or_else(String::new, |(c, cc)| {
                            self.line(c, cc).replace('|', "\\|")
                        })
                    })
                    .collect();
                cells.resize(width, String::new());
                cells
            })
            .collect();
        if texts.iter().flatten().all(String::is_empty) {
            return;
        }
        let row = |cells: &[String]| format!("| {} |", cells.join(" | "));
        let mut lines = vec![row(&texts[0]), row(&vec!["---".to_string(); width])];
        lines.extend(
            texts[1..]
                .iter()
                .filter(|r| r.iter().any(|c| !c.is_empty()))
                .map(|r| row(r)),
        );
        out.push(Block {
            text: lines.join("\n"),
            list: false,
        });
    }

    /// An irregular table: a row of cells that are lines of text becomes one line of
    /// text (cells joined by " · "); cells with structure of their own become blocks.
    fn rows_of_text(&self, rows: &[Vec<(u32, bool)>], out: &mut Vec<Block>) {
        for r in rows {
            if r.iter().all(|&(c, _)| !self.has_structure[c as usize]) {
                let cells: Vec<String> = r
                    .iter()
                    .map(|&(c, cc)| self.line(c, cc))
                    .filter(|s| !s.is_empty())
                    .collect();
                if !cells.is_empty() {
                    let mut text = String::new();
                    escape_line_start(&cells.join(" · "), &mut text);
                    out.push(Block { text, list: false });
                }
            } else {
                for &(c, cc) in r {
                    self.blocks(c, cc, out);
                }
            }
        }
    }
}

/// Spans beyond this (and tables wider than this) are no pipe table: a layout table.
const MAX_SPAN: usize = 64;

/// The table's rows as slots, column by column: a cell stands in the first slot it spans
/// (`Some`), the other slots it covers across and down are `None`.
fn span_grid(rows: &[Vec<(u32, bool, usize, usize)>]) -> Vec<Vec<Option<(u32, bool)>>> {
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

/// Blocks joined: a list right after text follows it on the next line.
fn join(blocks: Vec<Block>) -> String {
    let mut out = String::new();
    for (i, b) in blocks.into_iter().enumerate() {
        if i > 0 {
            out.push_str(if b.list { "\n" } else { "\n\n" });
        }
        out.push_str(&b.text);
    }
    out
}

/// A list item: the marker before its first line, the rest indented to the marker's width.
fn item(marker: &str, blocks: Vec<Block>) -> Option<String> {
    let body = join(blocks);
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

/// The markdown of the content of `view` under the verdicts `kept` (one per element).
pub fn markdown(view: &View, kept: &[Option<bool>], opts: &MdOptions) -> String {
    if view.elems.is_empty() {
        return String::new();
    }
    let md = Md::new(view, kept, opts);
    let mut out = Vec::new();
    let root = md.content(0, true);
    if !root {
        md.blocks(0, false, &mut out);
    } else {
        md.block(0, true, &mut out);
    }
    let mut text = String::new();
    for (i, b) in out.into_iter().enumerate() {
        if i > 0 {
            text.push_str("\n\n");
        }
        text.push_str(&b.text);
    }
    text.truncate(text.trim_end().len());
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::build_view;
    use crate::parse::parse;

    fn md_with(html: &str, kept: &[(u32, bool)], opts: MdOptions) -> String {
        let a = parse(html);
        let body = a.html_child("body").unwrap();
        let view = build_view(&a, body);
        let mut k = vec![None; view.elems.len()];
        for &(nid, v) in kept {
            k[nid as usize - 1] = Some(v);
        }
        markdown(&view, &k, &opts)
    }

    fn md(html: &str) -> String {
        md_with(html, &[], MdOptions::default())
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
                MdOptions {
                    links: true,
                    images: false
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
                MdOptions {
                    links: false,
                    images: true
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
            md_with(html, &[(6, false)], MdOptions::default()),
            "## Title\n\nkeep\n\nend"
        );
        // a content verdict below a noise one holds for its subtree
        assert_eq!(
            md_with(html, &[(2, false), (8, true)], MdOptions::default()),
            "- back\n\nend"
        );
        assert_eq!(
            md_with(html, &[(1, false), (5, true)], MdOptions::default()),
            "keep"
        );
    }

    #[test]
    fn no_trailing_blank_lines() {
        assert_eq!(md("<p>a</p><p> </p><div>\n</div>"), "a");
        assert_eq!(md(""), "");
    }
}
