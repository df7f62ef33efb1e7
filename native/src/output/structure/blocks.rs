//! Block content: headings, paragraphs, lists and their items, code blocks and block
//! quotes, and how blocks are joined in each syntax.
use super::escape::{class_language, fence, html_attr, indent, push_escaped_html};
use super::inline::Inline;
use super::{is_block, Block, Format, Kind, Md, LIST_TAGS};
use crate::read::dom::{Item, ViewId};
use crate::text::is_space;

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

impl<'a> Md<'a> {
    /// Blocks joined: markdown and text apart by a blank line, a list right after text
    /// on the next line; HTML one per line, a paragraph in `<p>`.
    pub(super) fn join(&self, blocks: Vec<Block>) -> String {
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
    pub(super) fn blocks(&self, e: ViewId, content: bool, out: &mut Vec<Block>) {
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
                    if !is_block(self.tag(*c)) && !self.has_block[*c] {
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

    pub(super) fn block(&self, e: ViewId, content: bool, out: &mut Vec<Block>) {
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
    fn list(&self, e: ViewId, content: bool, out: &mut Vec<Block>) {
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
            } else if !is_block(ctag) && !self.has_block[c] {
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

    fn pre(&self, e: ViewId, content: bool, out: &mut Vec<Block>) {
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
}
