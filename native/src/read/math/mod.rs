//! Formulas: what a page's math markup says, as LaTeX, for the visible tree (`dom.rs`)
//! to hold as one `math` element that the renderers write between `$` (inline) or `$$`
//! (display) and never escape (`output/structure/`).
//!
//! A browser shows a formula from one of these, and the tree once dropped them all
//! (`<math>` and `<script>` are no visible text, KaTeX's and MathJax's rendered boxes hold
//! glyphs or nothing):
//! - MathML, `<math>`: the TeX of its `<annotation encoding="application/x-tex">` where it
//!   has one (KaTeX, Wikipedia, MathJax with its semantics), else its presentation
//!   elements converted (`Tex`: `mi`, `mn`, `mo`, `mrow`, `msup`, `msub`, `msubsup`,
//!   `mfrac`, `msqrt`, `mroot`, `mover`, `munder`, `munderover`, `mtable`, `mtext`,
//!   `mspace`, `mfenced`, ...), else its `alttext`; `display="block"` is display math;
//! - KaTeX, `<span class="katex">`: the MathML copy it holds (`katex-mathml`); its
//!   `katex-html` boxes are left out;
//! - MathJax 2, `<script type="math/tex">` (`; mode=display`: display math): the TeX; its
//!   rendered boxes (`MathJax_Preview`, `MathJax`, `MathJax_Display`, `MathJax_SVG`,
//!   `MathJax_CHTML`, ...) are left out;
//! - MathJax 3, `<mjx-container>` (`display="true"`: display math): its assistive MathML
//!   copy (`mjx-assistive-mml`); its rendered `mjx-math` or `svg` is left out;
//! - Wikipedia, `<span class="mwe-math-element">`: the MathML it hides for screen readers
//!   (with the TeX annotation), else its fallback image's `alt`; Wikipedia's
//!   `{\displaystyle ...}` wrapper is taken off;
//! - TeX written as text (`\(...\)`, `$$...$$`, `\[...\]`, `$...$` where configured, math
//!   environments) on a page that loads or configures MathJax or KaTeX's auto-render, for
//!   that script to find: `text.rs` (its header says what it reads and what not), each
//!   formula the same `Formula`, in place of its text.
//!
//! The converter's output is TeX as a person would type it, not a proof of equivalence:
//! `x^{2}` for `<msup><mi>x</mi><mn>2</mn></msup>`, `\frac{a}{b}`, `\sqrt[3]{x}`, Greek
//! letters and common operators as their commands. MathML nested deeper than
//! `MAX_NESTING` is read as its text.

use crate::read::parse::{attr, Arena, Data, NodeId};

use self::tables::{plain_letter, symbol, FUNCTIONS, LARGE_OPERATORS, MATHJAX2_BOXES};

mod tables;
pub(crate) mod text;

/// How deep the converter follows MathML elements before it reads the rest as text (a
/// page's markup cannot make it recurse without end).
pub(crate) const MAX_NESTING: usize = 64;

/// A formula: its LaTeX (never empty) and whether it is display math.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Formula {
    pub(crate) tex: String,
    pub(crate) display: bool,
}

impl Formula {
    /// The formula as the text and markdown write it: `$tex$`, or `$$tex$$` for display.
    pub(crate) fn delimited(&self) -> String {
        if self.display {
            format!("$${}$$", self.tex)
        } else {
            format!("${}$", self.tex)
        }
    }
}

/// What an element of the page is as math.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// a formula, in place of the element and everything below it
    Formula(Formula),
    /// a rendering of a formula the page says again elsewhere (MathJax 2's boxes beside
    /// its script): left out with everything below it
    Skip,
}

fn has_class(class: &str, name: &str) -> bool {
    class.split_ascii_whitespace().any(|c| c == name)
}

/// Element `i` as math: a formula, a rendering to leave out, or None (not math: the tree
/// reads it as it reads any element). Hiding is the caller's to check.
pub(crate) fn detect(a: &Arena, i: NodeId) -> Option<Found> {
    let tag = a.tag(i)?;
    let attrs = a.attrs(i);
    match tag {
        "math" => return math_element(a, i, false).map(Found::Formula),
        "script" => {
            let t = attr(attrs, "type")?.to_ascii_lowercase();
            if !t.starts_with("math/tex") {
                return None;
            }
            let tex = tidy(&a.text_of(i, ""));
            let display = t.contains("mode=display");
            return Some(formula(tex, display).map_or(Found::Skip, Found::Formula));
        }
        "mjx-container" => {
            let display = attr(attrs, "display") == Some("true");
            let found = first_math(a, i).and_then(|m| math_element(a, m, display));
            return Some(found.map_or(Found::Skip, Found::Formula));
        }
        _ => {}
    }
    let class = attr(attrs, "class")?;
    if !(class.contains("katex") || class.contains("math") || class.contains("MathJax")) {
        return None; // the common case, decided without splitting the names
    }
    if has_class(class, "katex") {
        let found = first_math(a, i).and_then(|m| math_element(a, m, false))?;
        return Some(Found::Formula(found));
    }
    if has_class(class, "mwe-math-element") {
        let display = a.descendants(i).into_iter().any(|d| {
            attr(a.attrs(d), "class").is_some_and(|c| {
                has_class(c, "mwe-math-mathml-display")
                    || has_class(c, "mwe-math-fallback-image-display")
            })
        });
        let from_math = first_math(a, i).and_then(|m| math_element(a, m, display));
        let found = from_math.or_else(|| {
            let img = a
                .descendants(i)
                .into_iter()
                .find(|&d| a.tag(d) == Some("img"))?;
            formula(tidy(attr(a.attrs(img), "alt")?), display)
        });
        return Some(found.map_or(Found::Skip, Found::Formula));
    }
    if MATHJAX2_BOXES.iter().any(|b| has_class(class, b)) {
        return Some(Found::Skip);
    }
    None
}

fn formula(tex: String, display: bool) -> Option<Formula> {
    (!tex.is_empty()).then_some(Formula { tex, display })
}

/// The first `<math>` below element `i`, in document order.
fn first_math(a: &Arena, i: NodeId) -> Option<NodeId> {
    a.descendants(i)
        .into_iter()
        .find(|&d| a.tag(d) == Some("math"))
}

/// A `<math>` element as a formula (display where `display`, or where it says so): its
/// TeX annotation, else its presentation markup converted, else its `alttext`.
fn math_element(a: &Arena, m: NodeId, display: bool) -> Option<Formula> {
    let display = display || attr(a.attrs(m), "display") == Some("block");
    let annotated = a.descendants(m).into_iter().find(|&d| {
        a.tag(d) == Some("annotation")
            && attr(a.attrs(d), "encoding").is_some_and(|e| {
                matches!(
                    e.trim().to_ascii_lowercase().as_str(),
                    "application/x-tex" | "tex" | "application/x-latex" | "latex"
                )
            })
    });
    if let Some(tex) = annotated.map(|d| tidy(&a.text_of(d, ""))) {
        if !tex.is_empty() {
            return formula(tex, display);
        }
    }
    let mut t = Tex::default();
    t.element(a, m, 0);
    let tex = tidy(&t.out);
    if !tex.is_empty() {
        return formula(tex, display);
    }
    formula(tidy(attr(a.attrs(m), "alttext").unwrap_or("")), display)
}

/// TeX as written in a page: whitespace folded, and Wikipedia's `{\displaystyle ...}` (or
/// `\textstyle`) wrapper taken off.
fn tidy(tex: &str) -> String {
    let folded = tex.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s = folded.as_str();
    for style in ["\\displaystyle", "\\textstyle"] {
        if let Some(inner) = s
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix('}'))
            .and_then(|r| r.trim_start().strip_prefix(style))
        {
            if balanced(inner) && !inner.starts_with(|c: char| c.is_ascii_alphabetic()) {
                s = inner.trim();
            }
        }
    }
    s.to_string()
}

/// Whether the braces of `s` close as they open (escaped ones aside).
fn balanced(s: &str) -> bool {
    let mut depth = 0i64;
    let mut escaped = false;
    for c in s.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// The text of a token element (`mi`, `mn`, `mo`, `mtext`): formatting whitespace at its
/// ends taken off and runs of it folded (a no-break space stays a space).
fn token_text(a: &Arena, i: NodeId) -> String {
    let raw = a.text_of(i, "");
    let folded: Vec<&str> = raw.split_ascii_whitespace().collect();
    folded.join(" ").replace('\u{a0}', " ")
}

/// Text as TeX math: each character its command where it has one.
fn math_text(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().map(plain_letter) {
        match symbol(c) {
            Some(cmd) => push_piece(&mut out, cmd),
            None => push_piece(&mut out, c.encode_utf8(&mut [0; 4])),
        }
    }
    out
}

/// Text for `\text{...}`: TeX's special characters escaped.
fn text_mode(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '$' | '&' | '#' | '_' | '%' => {
                out.push('\\');
                out.push(c);
            }
            '^' => out.push_str("\\^{}"),
            '~' => out.push_str("\\~{}"),
            c => out.push(c),
        }
    }
    out
}

/// Append `piece` to TeX `out`, with a space where a command word or a one-character
/// script would otherwise run on into the letters or digits after it (`\alpha x`, not
/// `\alphax`; `\neq 0`; `^n x`).
fn push_piece(out: &mut String, piece: &str) {
    if piece.is_empty() {
        return;
    }
    if piece.starts_with(|c: char| c.is_ascii_alphanumeric())
        && (ends_with_command_word(out) || ends_with_bare_script(out))
    {
        out.push(' ');
    }
    out.push_str(piece);
}

fn ends_with_command_word(s: &str) -> bool {
    let letters = s
        .bytes()
        .rev()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    letters > 0
        && s.len()
            .checked_sub(letters + 1)
            .is_some_and(|k| s.as_bytes()[k] == b'\\')
}

fn ends_with_bare_script(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && matches!(b[b.len() - 2], b'^' | b'_') && b[b.len() - 1].is_ascii_alphanumeric()
}

/// A script or argument: bare where it is one character or one command, else in braces.
fn group(s: &str) -> String {
    let one_char = s.chars().count() == 1;
    let one_command =
        s.len() > 1 && s.starts_with('\\') && s[1..].bytes().all(|b| b.is_ascii_alphabetic());
    if one_char || one_command {
        s.to_string()
    } else {
        format!("{{{s}}}")
    }
}

/// Presentation MathML converted to TeX, element by element.
#[derive(Default)]
struct Tex {
    out: String,
}

impl Tex {
    fn push(&mut self, piece: &str) {
        push_piece(&mut self.out, piece);
    }

    /// The element children of `i`, annotations and comments aside.
    fn kids(a: &Arena, i: NodeId) -> Vec<NodeId> {
        a.children(i)
            .filter(|&c| matches!(a[c].data, Data::Element { .. }))
            .filter(|&c| !matches!(a.tag(c), Some("annotation" | "annotation-xml")))
            .collect()
    }

    /// Element `i` alone, as TeX.
    fn of(a: &Arena, i: NodeId, depth: usize) -> String {
        let mut t = Tex::default();
        t.element(a, i, depth);
        t.out.trim().to_string()
    }

    /// Several elements in a row, as TeX.
    fn row(a: &Arena, kids: &[NodeId], depth: usize) -> String {
        let mut t = Tex::default();
        for &k in kids {
            t.element(a, k, depth);
        }
        t.out.trim().to_string()
    }

    fn children(&mut self, a: &Arena, i: NodeId, depth: usize) {
        for c in a.children(i) {
            match &a[c].data {
                Data::Element { .. } => self.element(a, c, depth + 1),
                Data::Text(t) if !t.trim().is_empty() => self.push(&math_text(t.trim())),
                _ => {}
            }
        }
    }

    fn element(&mut self, a: &Arena, i: NodeId, depth: usize) {
        if depth > MAX_NESTING {
            return self.push(&math_text(&token_text(a, i)));
        }
        let Some(tag) = a.tag(i) else { return };
        let attrs = a.attrs(i);
        let kids = Tex::kids(a, i);
        let d = depth + 1;
        let arg = |k: Option<&NodeId>| k.map_or(String::new(), |&k| Tex::of(a, k, d));
        match tag {
            "mi" => {
                let t = token_text(a, i);
                let variant = attr(attrs, "mathvariant").unwrap_or("");
                let plain: String = t.chars().map(plain_letter).collect();
                let piece = if FUNCTIONS.contains(&plain.as_str()) {
                    format!("\\{plain}")
                } else if plain.chars().count() > 1 && plain.chars().all(char::is_alphanumeric) {
                    format!("\\mathrm{{{plain}}}")
                } else {
                    math_text(&plain)
                };
                let one_letter = plain.chars().count() == 1 && plain == piece;
                let styled = match variant {
                    "bold" | "bold-italic" => format!("\\mathbf{{{piece}}}"),
                    "double-struck" => format!("\\mathbb{{{piece}}}"),
                    "script" | "bold-script" => format!("\\mathcal{{{piece}}}"),
                    "fraktur" | "bold-fraktur" => format!("\\mathfrak{{{piece}}}"),
                    "normal" if one_letter && piece.chars().all(char::is_alphabetic) => {
                        format!("\\mathrm{{{piece}}}")
                    }
                    _ => piece,
                };
                self.push(&styled);
            }
            "mn" => self.push(&math_text(&token_text(a, i))),
            "mo" => {
                let t = token_text(a, i);
                if FUNCTIONS.contains(&t.as_str()) {
                    self.push(&format!("\\{t}"));
                } else {
                    self.push(&math_text(&t));
                }
            }
            "mtext" | "ms" => {
                let t = token_text(a, i);
                if !t.is_empty() {
                    let t = if tag == "ms" { format!("\"{t}\"") } else { t };
                    self.push(&format!("\\text{{{}}}", text_mode(&t)));
                }
            }
            "mspace" => {
                let w = attr(attrs, "width").unwrap_or("").trim();
                let space = match w {
                    "thinmathspace" | "veryverythinmathspace" | "verythinmathspace" => "\\,",
                    "mediummathspace" => "\\:",
                    "thickmathspace" => "\\;",
                    "2em" => "\\qquad",
                    "1em" | "veryverythickmathspace" => "\\quad",
                    _ => "\\ ",
                };
                self.push(space);
            }
            "msup" | "msub" | "msubsup" => {
                let base = group(&arg(kids.first()));
                self.push(&base);
                if tag == "msup" {
                    self.push(&format!("^{}", group(&arg(kids.get(1)))));
                } else {
                    self.push(&format!("_{}", group(&arg(kids.get(1)))));
                    if tag == "msubsup" {
                        self.push(&format!("^{}", group(&arg(kids.get(2)))));
                    }
                }
            }
            "mfrac" => {
                let thin = attr(attrs, "linethickness")
                    .is_some_and(|t| matches!(t.trim(), "0" | "0px" | "0em" | "0pt"));
                let cmd = if thin { "\\binom" } else { "\\frac" };
                let (n, dd) = (arg(kids.first()), arg(kids.get(1)));
                self.push(&format!("{cmd}{{{n}}}{{{dd}}}"));
            }
            "msqrt" => self.push(&format!("\\sqrt{{{}}}", Tex::row(a, &kids, d))),
            "mroot" => {
                let (base, index) = (arg(kids.first()), arg(kids.get(1)));
                self.push(&format!("\\sqrt[{index}]{{{base}}}"));
            }
            "mover" | "munder" | "munderover" => self.under_over(a, tag, &kids, d),
            "mtable" => {
                let rows: Vec<String> = kids
                    .iter()
                    .map(|&r| {
                        let mut cells = Tex::kids(a, r);
                        if a.tag(r) == Some("mlabeledtr") && !cells.is_empty() {
                            cells.remove(0); // the row's label
                        }
                        let cells: Vec<String> = cells.iter().map(|&c| Tex::of(a, c, d)).collect();
                        cells.join(" & ")
                    })
                    .collect();
                self.push(&format!(
                    "\\begin{{matrix}} {} \\end{{matrix}}",
                    rows.join(" \\\\ ")
                ));
            }
            "mfenced" => {
                let open = attr(attrs, "open").unwrap_or("(");
                let close = attr(attrs, "close").unwrap_or(")");
                let seps: Vec<char> = attr(attrs, "separators")
                    .unwrap_or(",")
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                let mut inner = String::new();
                for (n, &k) in kids.iter().enumerate() {
                    if n > 0 {
                        if let Some(&s) = seps.get(n - 1).or(seps.last()) {
                            push_piece(&mut inner, &math_text(&s.to_string()));
                        }
                    }
                    push_piece(&mut inner, &Tex::of(a, k, d));
                }
                self.push(&math_text(open));
                self.push(&inner);
                self.push(&math_text(close));
            }
            "mmultiscripts" => {
                // base, then (sub, sup) pairs, then <mprescripts/> and the pairs before it
                let pre = kids.iter().position(|&k| a.tag(k) == Some("mprescripts"));
                let (post, before) = match pre {
                    Some(p) => (&kids[..p], &kids[p + 1..]),
                    None => (&kids[..], &[][..]),
                };
                let scripts = |pairs: &[NodeId]| {
                    let mut s = String::new();
                    for pair in pairs.chunks(2) {
                        for (mark, k) in ["_", "^"].iter().zip(pair) {
                            if a.tag(*k) != Some("none") {
                                s.push_str(&format!("{mark}{}", group(&Tex::of(a, *k, d))));
                            }
                        }
                    }
                    s
                };
                if !before.is_empty() {
                    self.push(&format!("{{}}{}", scripts(before)));
                }
                self.push(&group(&arg(post.first())));
                if post.len() > 1 {
                    self.push(&scripts(&post[1..]));
                }
            }
            "mphantom" | "none" | "mprescripts" | "annotation" | "annotation-xml" => {}
            "semantics" | "maction" => {
                if let Some(&first) = kids.first() {
                    self.element(a, first, d);
                }
            }
            _ => self.children(a, i, depth),
        }
    }

    fn under_over(&mut self, a: &Arena, tag: &str, kids: &[NodeId], d: usize) {
        let base = kids.first().map_or(String::new(), |&k| Tex::of(a, k, d));
        let script = |k: Option<&NodeId>| k.map(|&k| Tex::of(a, k, d));
        let (under, over) = match tag {
            "munder" => (script(kids.get(1)), None),
            "mover" => (None, script(kids.get(1))),
            _ => (script(kids.get(1)), script(kids.get(2))),
        };
        if LARGE_OPERATORS.contains(&base.as_str()) {
            self.push(&base);
            if let Some(u) = under {
                self.push(&format!("_{}", group(&u)));
            }
            if let Some(o) = over {
                self.push(&format!("^{}", group(&o)));
            }
            return;
        }
        let accent = |s: &str, over: bool| -> Option<&'static str> {
            Some(match (s, over) {
                ("^" | "ˆ" | "\u{302}", true) => "\\hat",
                ("~" | "˜" | "\u{303}" | "\\sim", true) => "\\tilde",
                ("¯" | "‾" | "\u{305}" | "-" | "_" | "\\_", true) => "\\overline",
                ("\\to" | "⃗", true) => "\\vec",
                ("˙" | ".", true) => "\\dot",
                ("¨" | "..", true) => "\\ddot",
                ("⏞", true) => "\\overbrace",
                ("_" | "\\_" | "\u{332}" | "¯" | "‾" | "-", false) => "\\underline",
                ("⏟", false) => "\\underbrace",
                _ => return None,
            })
        };
        let mut body = base;
        if let Some(u) = under {
            body = match accent(&u, false) {
                Some(cmd) => format!("{cmd}{{{body}}}"),
                None => format!("\\underset{{{u}}}{{{body}}}"),
            };
        }
        if let Some(o) = over {
            body = match accent(&o, true) {
                Some(cmd) => format!("{cmd}{{{body}}}"),
                None => format!("\\overset{{{o}}}{{{body}}}"),
            };
        }
        self.push(&body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::parse::parse;

    /// The first element of `tag` in the page, as math.
    fn found(html: &str, tag: &str) -> Option<Found> {
        let a = parse(html);
        let i = a
            .descendants(NodeId::DOCUMENT)
            .into_iter()
            .find(|&i| a.tag(i) == Some(tag))?;
        detect(&a, i)
    }

    fn tex(mathml: &str) -> String {
        match found(&format!("<body><math>{mathml}</math></body>"), "math") {
            Some(Found::Formula(f)) => f.tex,
            other => panic!("no formula: {other:?}"),
        }
    }

    #[test]
    fn presentation_mathml_becomes_tex() {
        let cases = [
            ("<mi>a</mi><mo>≠</mo><mn>0</mn>", "a\\neq 0"),
            ("<msup><mi>x</mi><mn>2</mn></msup>", "x^2"),
            ("<msup><mi>e</mi><mrow><mi>i</mi><mi>π</mi></mrow></msup>", "e^{i\\pi}"),
            ("<msub><mi>a</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub>", "a_{ij}"),
            ("<msubsup><mo>∫</mo><mn>0</mn><mn>1</mn></msubsup>", "\\int_0^1"),
            ("<mfrac><mrow><mo>−</mo><mi>b</mi></mrow><mrow><mn>2</mn><mi>a</mi></mrow></mfrac>", "\\frac{-b}{2a}"),
            ("<msqrt><mi>x</mi><mo>+</mo><mn>1</mn></msqrt>", "\\sqrt{x+1}"),
            ("<mroot><mi>x</mi><mn>3</mn></mroot>", "\\sqrt[3]{x}"),
            ("<mover><mi>x</mi><mo>^</mo></mover>", "\\hat{x}"),
            ("<mover><mi>AB</mi><mo>¯</mo></mover>", "\\overline{\\mathrm{AB}}"),
            ("<munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></munderover><msub><mi>x</mi><mi>i</mi></msub>", "\\sum_{i=1}^n x_i"),
            ("<munder><mo>lim</mo><mrow><mi>n</mi><mo>→</mo><mi>∞</mi></mrow></munder>", "\\lim_{n\\to\\infty}"),
            ("<munder><mi>x</mi><mi>y</mi></munder>", "\\underset{y}{x}"),
            ("<mi>sin</mi><mo>⁡</mo><mi>θ</mi>", "\\sin\\theta"),
            ("<mi>α</mi><mi>x</mi>", "\\alpha x"),
            ("<mtext>if </mtext><mi>x</mi>", "\\text{if}x"),
            ("<mi>x</mi><mspace width='1em'/><mi>y</mi>", "x\\quad y"),
            ("<mfenced><mi>a</mi><mi>b</mi></mfenced>", "(a,b)"),
            ("<mfenced open='{' close='}'><mi>a</mi></mfenced>", "\\{a\\}"),
            ("<mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>0</mn></mtd></mtr><mtr><mtd><mn>0</mn></mtd><mtd><mn>1</mn></mtd></mtr></mtable>", "\\begin{matrix} 1 & 0 \\\\ 0 & 1 \\end{matrix}"),
            ("<mi mathvariant='double-struck'>R</mi>", "\\mathbb{R}"),
            ("<mi>𝑎</mi><mn>𝟐</mn>", "a2"),
            ("<mfrac linethickness='0'><mi>n</mi><mi>k</mi></mfrac>", "\\binom{n}{k}"),
            ("<mtext>50% & more</mtext>", "\\text{50\\% \\& more}"),
        ];
        for (mathml, want) in cases {
            assert_eq!(tex(mathml), want, "{mathml}");
        }
    }

    #[test]
    fn an_annotation_beats_the_markup_and_wikipedia_s_wrapper_comes_off() {
        let html = "<body><math display='block' alttext='x'><semantics><mrow><mi>y</mi></mrow>\
                    <annotation encoding='application/x-tex'>{\\displaystyle \\frac{1}{2}}\
                    </annotation></semantics></math></body>";
        assert_eq!(
            found(html, "math"),
            Some(Found::Formula(Formula {
                tex: "\\frac{1}{2}".to_string(),
                display: true
            }))
        );
        assert_eq!(tidy("{\\displaystyle x}{y}"), "{\\displaystyle x}{y}");
        assert_eq!(tidy("{\\displaystylex}"), "{\\displaystylex}");
        assert_eq!(tidy("  a \n + b "), "a + b");
    }

    #[test]
    fn each_kind_of_formula_markup_is_found() {
        let katex = "<body><span class='katex'><span class='katex-mathml'><math><semantics>\
                     <mrow><mi>x</mi></mrow><annotation encoding='application/x-tex'>x^2\
                     </annotation></semantics></math></span><span class='katex-html' \
                     aria-hidden='true'>x2</span></span></body>";
        let f = |tex: &str, display| {
            Some(Found::Formula(Formula {
                tex: tex.into(),
                display,
            }))
        };
        assert_eq!(found(katex, "span"), f("x^2", false));
        let v2 = "<body><script type='math/tex; mode=display'>E = mc^2</script></body>";
        assert_eq!(found(v2, "script"), f("E = mc^2", true));
        let v2 = "<body><span class='MathJax_Preview'>E</span></body>";
        assert_eq!(found(v2, "span"), Some(Found::Skip));
        let js = "<body><script type='text/javascript'>var x</script></body>";
        assert_eq!(found(js, "script"), None);
        let v3 =
            "<body><mjx-container class='MathJax' display='true'><mjx-math aria-hidden='true'>\
                  </mjx-math><mjx-assistive-mml><math><mi>a</mi></math></mjx-assistive-mml>\
                  </mjx-container></body>";
        assert_eq!(found(v3, "mjx-container"), f("a", true));
        let wiki = "<body><span class='mwe-math-element'><span class='mwe-math-mathml-inline \
                    mwe-math-mathml-a11y' style='display: none;'><math alttext='{\\displaystyle A}'>\
                    <semantics><mi>A</mi><annotation encoding='application/x-tex'>{\\displaystyle A}\
                    </annotation></semantics></math></span><img alt='{\\displaystyle A}'></span></body>";
        assert_eq!(found(wiki, "span"), f("A", false));
        let img_only =
            "<body><span class='mwe-math-element'><img class='mwe-math-fallback-image-display' \
                        alt='{\\displaystyle a+b}'></span></body>";
        assert_eq!(found(img_only, "span"), f("a+b", true));
        let not_math = "<body><span class='mathematics'>words</span></body>";
        assert_eq!(found(not_math, "span"), None);
        assert_eq!(
            found("<body><span class='katex'>no math</span></body>", "span"),
            None
        );
    }

    #[test]
    fn deep_mathml_is_read_as_text_without_recursing_on() {
        let n = 5_000;
        let html = format!(
            "<body><math>{}<mi>z</mi>{}</math></body>",
            "<mrow>".repeat(n),
            "</mrow>".repeat(n)
        );
        assert_eq!(tex_of(&html), "z");
    }

    fn tex_of(html: &str) -> String {
        match found(html, "math") {
            Some(Found::Formula(f)) => f.tex,
            other => panic!("no formula: {other:?}"),
        }
    }

    #[test]
    fn delimited_writes_dollars() {
        let f = Formula {
            tex: "x".into(),
            display: false,
        };
        assert_eq!(f.delimited(), "$x$");
        let g = Formula {
            tex: "x".into(),
            display: true,
        };
        assert_eq!(g.delimited(), "$$x$$");
    }
}
