//! Inline content: the run a paragraph is made of (`Inline`: whitespace folded, text
//! escaped for the syntax) and the walk over inline elements (emphasis, links, images,
//! code, formulas, line breaks).
use super::address::{IMAGE_SCHEMES, LINK_SCHEMES};
use super::escape::{
    code_span, escape_line_start, html_attr, inert_tex, looks_like_entity, push_escaped_html,
};
use super::{is_block, Format, Md};
use crate::read::dom::{Item, ViewId};
use crate::text::{is_space, split_ws};

/// A run of inline content with whitespace folded as a browser folds it.
pub(super) struct Inline {
    fmt: Format,
    pub(super) buf: String,
    /// whitespace seen since the last output
    space: bool,
    /// whitespace seen before any output
    lead: bool,
    /// a line break seen before any output
    lead_break: bool,
}

impl Inline {
    pub(super) fn new(fmt: Format) -> Self {
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
    pub(super) fn text(&mut self, t: &str) {
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
    /// it unless it starts the run, and after it unless the run ends there (`finish`). A
    /// line break just before it goes (`a<br>$$x$$`: markdown's `\` would stand alone).
    fn paragraph(&mut self, s: &str) {
        let mut body = self.buf.as_str();
        while let Some(rest) = body.strip_suffix(self.fmt.br()) {
            body = rest;
        }
        let kept = body.trim_end_matches([' ', '\n']).len();
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
    pub(super) fn finish(self) -> String {
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

impl<'a> Md<'a> {
    /// The text below `e` as it is (content parts only), `<br>` as a line break.
    pub(super) fn raw_text(&self, e: ViewId, content: bool, out: &mut String) {
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
    pub(super) fn line(&self, e: ViewId, content: bool) -> String {
        let mut acc = self.inline_acc();
        self.inline_children(e, content, &mut acc);
        let br = self.fmt.br();
        acc.buf
            .trim_end_matches(br)
            .replace(br, " ")
            .replace('\n', " ")
    }

    fn inline_children(&self, e: ViewId, content: bool, acc: &mut Inline) {
        for item in self.children(e) {
            match item {
                Item::Text(t) if content => acc.text(t),
                Item::Text(_) => {}
                Item::Elem(c) => self.inline(*c, self.content(*c, content), acc),
            }
        }
    }

    fn image(&self, e: ViewId, acc: &mut Inline) {
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

    /// A formula (`read/math/`, a `math` element of the tree): markdown and text write its TeX
    /// between `$` (display math `$$`), never escaped (markdown: made inert, `inert_tex`); HTML writes it as pandoc
    /// does, for MathJax or KaTeX to typeset: `<span class="math inline">\(...\)</span>`,
    /// display math `<span class="math display">\[...\]</span>`, the TeX escaped as text.
    fn formula(&self, e: ViewId, acc: &mut Inline) {
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

    pub(super) fn inline(&self, e: ViewId, content: bool, acc: &mut Inline) {
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
}
