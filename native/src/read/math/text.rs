//! TeX written as text for a script to typeset: a page that loads MathJax or KaTeX's
//! auto-render ships its formulas as `\(a^2+b^2\)`, `$$\int_0^1 f$$` or (where its
//! configuration asks for it) `$a_1$` in its paragraphs, and the browser's script finds
//! them there. `TexText::of` reads whether a page does and which delimiters it uses;
//! `TexText::pieces` splits an element's text at the formulas it finds, each one a
//! `Formula` as the markup kinds give (`mod.rs`), for the visible tree (`dom.rs`).
//!
//! What is read, as the libraries read it by default (MathJax 2's `tex2jax`, MathJax 3's
//! `FindTeX`, KaTeX's `renderMathInElement`):
//! - the page: a `<script>` whose `src` names `mathjax` or (KaTeX's) `auto-render`, an
//!   `onload` that calls `renderMathInElement`, a `text/x-mathjax-config` script, or an
//!   inline script that configures either (`MathJax.Hub.Config`, `window.MathJax`,
//!   `MathJax = {`, `tex2jax`, `renderMathInElement`); no other page is scanned;
//! - the delimiters: `\(...\)` inline, `$$...$$` and `\[...\]` display, and `$...$` inline
//!   only where a script lists it (`inlineMath` with `['$','$']`, or KaTeX's `delimiters`
//!   with `left: "$"`); the environments `\begin{e}...\end{e}` (display, the delimiters
//!   kept in the TeX) of MathJax's math environments (`processEnvironments`), or with
//!   KaTeX alone its default five (`equation`, `align`, `alignat`, `gather`, `CD`);
//! - a closing delimiter counts at brace depth 0 only, and a backslash escapes the
//!   character after it (both libraries' rule); `\$` and `\\` are no delimiters
//!   (MathJax's `processEscapes`), and where `$` is a delimiter `\$` is written `$`;
//! - `$` more strictly than MathJax, which would typeset "$2.50 for the first one, and $"
//!   (its own documentation's example): as pandoc reads `$` math, the opening `$` has no
//!   space after it, the closing one (the first `$` after it) no space before it and no
//!   digit after it, and no blank line between them; so prices stay text;
//! - no formula over `MAX_TEX` bytes (MathJax's own TeX buffer is 5K), and an unclosed
//!   delimiter stays text;
//! - not in `<pre>`, `<code>`, `<textarea>`, `<select>`, `<option>` (and the script,
//!   style and math the tree leaves out), nor below an element of class `tex2jax_ignore`,
//!   `mathjax_ignore` or the configuration's `ignoreClass` / `ignoreHtmlClass` (a regular
//!   expression, as MathJax reads it) unless of class `tex2jax_process`,
//!   `mathjax_process` or the configuration's `processClass` / `processHtmlClass`;
//! - a formula may run over the `<br>`s and comments between text nodes on a MathJax page
//!   (its `includeHtmlTags`), over adjacent text nodes only with KaTeX alone (as its
//!   auto-render joins them), never over another element: both libraries end a string of
//!   text at an element.

use std::sync::OnceLock;

use regex::Regex;

use super::{formula, tidy, Formula};
use crate::read::parse::{attr, Arena, Data, NodeId};

/// The longest formula read from text, in bytes between its delimiters.
pub(crate) const MAX_TEX: usize = 5 * 1024;

/// MathJax's math environments (its base and AMS packages), starred or not.
const MATHJAX_ENVIRONMENTS: &[&str] = &[
    "equation",
    "align",
    "alignat",
    "aligned",
    "alignedat",
    "gather",
    "gathered",
    "multline",
    "flalign",
    "xalignat",
    "xxalignat",
    "split",
    "eqnarray",
    "array",
    "subarray",
    "matrix",
    "pmatrix",
    "bmatrix",
    "Bmatrix",
    "vmatrix",
    "Vmatrix",
    "smallmatrix",
    "cases",
    "CD",
    "math",
    "displaymath",
];
/// KaTeX auto-render's default environments.
const KATEX_ENVIRONMENTS: &[&str] = &["equation", "align", "alignat", "gather", "CD"];

/// Tags whose text the libraries never scan (beside those the tree leaves out).
const SKIP_TAGS: &[&str] = &[
    "pre",
    "code",
    "textarea",
    "select",
    "option",
    "annotation",
    "annotation-xml",
];

/// The delimiters a page's script scans its text for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rules {
    /// `$...$` is inline math (the page's configuration lists it)
    pub(crate) dollars: bool,
    /// MathJax's environments; else KaTeX's five
    pub(crate) mathjax: bool,
}

/// Whether an element's text is scanned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scan {
    /// scanned
    On,
    /// not scanned, but a descendant of a processing class is
    Ignored,
    /// not scanned, nor anything below it
    Skipped,
}

/// A child of an element, as the tree reads it: a node of the page, a piece of one text
/// node (split at a formula), or a formula found in the text.
pub(crate) enum Piece {
    Node(NodeId),
    Text(String),
    Formula(Formula),
}

/// A page's TeX-in-text reading: its delimiters and its ignoring and processing classes.
pub(crate) struct TexText {
    pub(crate) rules: Rules,
    ignore: Regex,
    process: Regex,
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).unwrap())
}

/// A class list's regular expression as MathJax builds it: `(^| )(names)( |$)`.
fn class_re(defaults: &str, configured: &[String]) -> Regex {
    let build = |extra: &[String]| {
        let names: Vec<&str> = std::iter::once(defaults)
            .chain(extra.iter().map(String::as_str))
            .collect();
        regex::RegexBuilder::new(&format!("(?:^| )(?:{})(?: |$)", names.join("|")))
            .size_limit(1 << 16)
            .build()
    };
    // a configured expression Rust's engine does not take (look-arounds) is left out
    build(configured).unwrap_or_else(|_| build(&[]).unwrap())
}

impl TexText {
    /// The page's reading, where it loads or configures MathJax or KaTeX's auto-render.
    pub(crate) fn of(a: &Arena) -> Option<TexText> {
        static CONFIG: OnceLock<Regex> = OnceLock::new();
        static DOLLAR: OnceLock<Regex> = OnceLock::new();
        static IGNORE: OnceLock<Regex> = OnceLock::new();
        static PROCESS: OnceLock<Regex> = OnceLock::new();
        let config = re(
            &CONFIG,
            r"MathJax\.Hub\.Config|window\.MathJax\b|\bMathJax\s*=\s*\{|tex2jax",
        );
        let (mut mathjax, mut katex, mut scripts) = (false, false, String::new());
        for (n, node) in a.nodes().iter().enumerate() {
            let Data::Element { name, attrs, .. } = &node.data else {
                continue;
            };
            if &*name.local != "script" {
                continue;
            }
            if let Some(src) = attr(attrs, "src").map(str::to_ascii_lowercase) {
                mathjax |= src.contains("mathjax");
                katex |= src.contains("auto-render");
            }
            if let Some(onload) = attr(attrs, "onload") {
                if onload.contains("renderMathInElement") {
                    katex = true;
                    scripts.push_str(onload);
                }
            }
            let typed = attr(attrs, "type").unwrap_or("").to_ascii_lowercase();
            let mathjax_config = typed.contains("x-mathjax-config");
            for c in a.children(NodeId::new(n)) {
                if let Data::Text(t) = &a[c].data {
                    let mj = mathjax_config || config.is_match(t);
                    let kx = t.contains("renderMathInElement");
                    if mj || kx {
                        scripts.push_str(t);
                        scripts.push('\n');
                    }
                    mathjax |= mj;
                    katex |= kx;
                }
            }
        }
        if !(mathjax || katex) {
            return None;
        }
        let dollar = re(
            &DOLLAR,
            r#"inlineMath[\s\S]{0,200}?\[\s*['"]\$['"]\s*,\s*['"]\$['"]\s*\]|left['"]?\s*:\s*['"]\$['"]"#,
        );
        let named = |r: &Regex| -> Vec<String> {
            r.captures_iter(&scripts)
                .filter_map(|c| c.get(1).or_else(|| c.get(2)))
                .map(|m| m.as_str().replace("\\\\", "\\"))
                .filter(|s| !s.is_empty())
                .collect()
        };
        let ignore = re(
            &IGNORE,
            r#"(?:ignoreClass|ignoreHtmlClass)['"]?\s*:\s*(?:'([^']*)'|"([^"]*)")"#,
        );
        let process = re(
            &PROCESS,
            r#"(?:processClass|processHtmlClass)['"]?\s*:\s*(?:'([^']*)'|"([^"]*)")"#,
        );
        Some(TexText {
            rules: Rules {
                dollars: dollar.is_match(&scripts),
                mathjax,
            },
            ignore: class_re("tex2jax_ignore|mathjax_ignore", &named(ignore)),
            process: class_re("tex2jax_process|mathjax_process", &named(process)),
        })
    }

    /// Whether element `c` (a child of an element scanned as `parent`) is scanned: as
    /// MathJax's `scanElement` decides.
    pub(crate) fn child(&self, parent: Scan, a: &Arena, c: NodeId) -> Scan {
        if parent == Scan::Skipped {
            return Scan::Skipped;
        }
        let class = attr(a.attrs(c), "class").unwrap_or("");
        let process = self.process.is_match(class);
        if !process && a.tag(c).is_some_and(|t| SKIP_TAGS.contains(&t)) {
            return Scan::Skipped;
        }
        if (parent == Scan::Ignored || self.ignore.is_match(class)) && !process {
            Scan::Ignored
        } else {
            Scan::On
        }
    }

    /// The children of element `parent`, its text split at the formulas in it.
    pub(crate) fn pieces(&self, a: &Arena, parent: NodeId) -> Vec<Piece> {
        let kids: Vec<NodeId> = a.children(parent).collect();
        let mut out = Vec::with_capacity(kids.len());
        let mut k = 0;
        while k < kids.len() {
            let start = k;
            while k < kids.len() && in_run(a, kids[k], self.rules.mathjax) {
                k += 1;
            }
            if k == start {
                out.push(Piece::Node(kids[k]));
                k += 1;
            } else {
                self.run(a, &kids[start..k], &mut out);
            }
        }
        out
    }

    /// A run of text nodes (on a MathJax page with the `<br>`s and comments between them),
    /// its formulas found: each `<br>` is a line break of the string scanned, as MathJax 3
    /// reads it.
    fn run(&self, a: &Arena, run: &[NodeId], out: &mut Vec<Piece>) {
        let mut s = String::new();
        let mut spans = Vec::new(); // (start, end, node) of each text node and <br>
        for &c in run {
            let start = s.len();
            match &a[c].data {
                Data::Text(t) => s.push_str(t),
                Data::Element { .. } => s.push('\n'),
                _ => continue,
            }
            spans.push((start, s.len(), c));
        }
        let found = scan(&s, self.rules);
        let escapes = self.rules.dollars && s.contains("\\$");
        if found.is_empty() && !escapes {
            out.extend(run.iter().map(|&c| Piece::Node(c)));
            return;
        }
        let gap = |from: usize, to: usize, out: &mut Vec<Piece>| {
            for &(start, end, c) in &spans {
                if start >= to || end <= from {
                    continue;
                }
                if matches!(a[c].data, Data::Text(_)) {
                    let piece = &s[start.max(from)..end.min(to)];
                    if !piece.is_empty() {
                        let piece = if escapes {
                            piece.replace("\\$", "$")
                        } else {
                            piece.to_string()
                        };
                        out.push(Piece::Text(piece));
                    }
                } else {
                    out.push(Piece::Node(c));
                }
            }
        };
        let mut from = 0;
        for (range, f) in found {
            gap(from, range.start, out);
            out.push(Piece::Formula(f));
            from = range.end;
        }
        gap(from, s.len(), out);
    }
}

/// Whether child `c` continues a run of text: a text node, or with MathJax a comment or a
/// `<br>`.
fn in_run(a: &Arena, c: NodeId, mathjax: bool) -> bool {
    match &a[c].data {
        Data::Text(_) => true,
        Data::Other => mathjax,
        Data::Element { .. } => mathjax && a.tag(c) == Some("br"),
        Data::Document => false,
    }
}

/// The formulas in text `s` under `rules`, each with its byte range (delimiters
/// included), in order and apart.
pub(crate) fn scan(s: &str, rules: Rules) -> Vec<(std::ops::Range<usize>, Formula)> {
    let b = s.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let here = match b[i] {
            b'\\' => match b.get(i + 1) {
                Some(b'\\' | b'$') => {
                    i += 2; // an escaped backslash or dollar: no delimiter
                    continue;
                }
                Some(b'(') => delimited(b, i, 2, b"\\)", false),
                Some(b'[') => delimited(b, i, 2, b"\\]", true),
                Some(b'b') => environment(b, i, rules),
                _ => None,
            },
            b'$' if b.get(i + 1) == Some(&b'$') => {
                let f = delimited(b, i, 2, b"$$", true);
                if f.is_none() {
                    i += 2; // an unclosed `$$` is text, and no `$` opens in it
                    continue;
                }
                f
            }
            b'$' if rules.dollars => dollar(b, i),
            _ => None,
        };
        match here {
            Some((end, tex_start, tex_end, display)) => {
                if let Some(f) = formula(tidy(&s[tex_start..tex_end]), display) {
                    found.push((i..end, f));
                }
                i = end;
            }
            None => i += 1,
        }
    }
    found
}

/// A formula found at `i`: (its end, its TeX's start and end, display).
type Hit = (usize, usize, usize, bool);

/// Where the closing delimiter after `from` starts: the first `close` at brace depth 0,
/// a backslash escaping the byte after it, within `MAX_TEX` bytes.
fn closing(
    b: &[u8],
    from: usize,
    close: &dyn Fn(&[u8]) -> Option<usize>,
) -> Option<(usize, usize)> {
    let (mut depth, mut j) = (0usize, from);
    while j < b.len() && j - from <= MAX_TEX {
        if depth == 0 {
            if let Some(n) = close(&b[j..]) {
                return Some((j, n));
            }
        }
        match b[j] {
            b'\\' => j += 1,
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        j += 1;
    }
    None
}

/// A formula between an opening delimiter of `open` bytes at `i` and `close`.
fn delimited(b: &[u8], i: usize, open: usize, close: &[u8], display: bool) -> Option<Hit> {
    let (at, n) = closing(b, i + open, &|rest: &[u8]| {
        rest.starts_with(close).then_some(close.len())
    })?;
    Some((at + n, i + open, at, display))
}

/// `$...$` at `i`, by pandoc's rules for `$` (see the module's header).
fn dollar(b: &[u8], i: usize) -> Option<Hit> {
    let after = *b.get(i + 1)?;
    if after.is_ascii_whitespace() {
        return None;
    }
    let (at, _) = closing(b, i + 1, &|rest: &[u8]| (rest[0] == b'$').then_some(1))?;
    let before = b[at - 1];
    if before.is_ascii_whitespace() || b.get(at + 1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let inner = &b[i + 1..at];
    let lines: Vec<&[u8]> = inner.split(|&c| c == b'\n').collect();
    if lines.len() > 2
        && lines[1..lines.len() - 1]
            .iter()
            .any(|l| l.iter().all(u8::is_ascii_whitespace))
    {
        return None; // a blank line: a paragraph's break, not a formula
    }
    Some((at + 1, i + 1, at, false))
}

/// `\begin{name}...\end{name}` at `i`, where `name` is an environment the library
/// processes; its TeX is the whole, delimiters included.
fn environment(b: &[u8], i: usize, rules: Rules) -> Option<Hit> {
    let rest = b[i..].strip_prefix(b"\\begin")?;
    let spaces = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
    let rest = rest[spaces..].strip_prefix(b"{")?;
    let len = rest.iter().take(32).position(|&c| c == b'}')?;
    let name = std::str::from_utf8(&rest[..len]).ok()?;
    let known = if rules.mathjax {
        MATHJAX_ENVIRONMENTS
    } else {
        KATEX_ENVIRONMENTS
    };
    let bare = if rules.mathjax {
        name.strip_suffix('*').unwrap_or(name)
    } else {
        name
    };
    if !known.contains(&bare) {
        return None;
    }
    let body = i + 6 + spaces + 1 + len + 1;
    let (at, n) = closing(b, body, &|rest: &[u8]| {
        let r = rest.strip_prefix(b"\\end")?;
        let sp = r.iter().take_while(|c| c.is_ascii_whitespace()).count();
        let r = r[sp..].strip_prefix(b"{")?.strip_prefix(name.as_bytes())?;
        r.starts_with(b"}").then_some(4 + sp + 1 + name.len() + 1)
    })?;
    Some((at + n, i, at + n, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::parse::parse;

    const MATHJAX: Rules = Rules {
        dollars: false,
        mathjax: true,
    };
    const DOLLARS: Rules = Rules {
        dollars: true,
        mathjax: true,
    };
    const KATEX: Rules = Rules {
        dollars: false,
        mathjax: false,
    };

    /// The formulas of `s`, as the text writes them (`$tex$`, `$$tex$$`).
    fn found(s: &str, rules: Rules) -> Vec<String> {
        scan(s, rules)
            .into_iter()
            .map(|(_, f)| f.delimited())
            .collect()
    }

    #[test]
    fn the_default_delimiters_are_found() {
        let s = r"Let \(a^2+b^2\) be, so \[ \int_0^1 f \] and $$x = 1$$.";
        assert_eq!(
            found(s, MATHJAX),
            ["$a^2+b^2$", "$$\\int_0^1 f$$", "$$x = 1$$"]
        );
        assert_eq!(found(s, KATEX), found(s, MATHJAX));
        let (range, _) = &scan(s, MATHJAX)[0];
        assert_eq!(&s[range.clone()], r"\(a^2+b^2\)");
    }

    #[test]
    fn a_single_dollar_is_math_only_where_configured() {
        let s = "the sequence $a_1, a_2$ converges";
        assert_eq!(found(s, DOLLARS), ["$a_1, a_2$"]);
        assert!(found(s, MATHJAX).is_empty());
    }

    #[test]
    fn prices_are_no_formulas() {
        for s in [
            "Tickets cost $5 and $10.",
            "the cost is $2.50 for the first one, and $2.00 for each",
            "from $ 5 to$6",
            "pay $5$10",
        ] {
            assert!(found(s, DOLLARS).is_empty(), "{s}");
        }
        // the closing `$` is the first one after the opening: a price does not reach past it
        assert_eq!(found("$5 and $10 or $x$", DOLLARS), ["$x$"]);
    }

    #[test]
    fn an_escaped_dollar_or_backslash_is_no_delimiter() {
        assert!(found(r"it costs \$5, or \$6", DOLLARS).is_empty());
        assert_eq!(found(r"\$5 and $y$", DOLLARS), ["$y$"]);
        assert!(found(r"a path C:\\(x) here", MATHJAX).is_empty());
        // inside a formula an escaped closer does not close it
        assert_eq!(found(r"$a \$ b$", DOLLARS), ["$a \\$ b$"]);
    }

    #[test]
    fn an_unclosed_delimiter_stays_text() {
        assert!(found(r"open \( and never closed", MATHJAX).is_empty());
        assert!(found("only $$ one", DOLLARS).is_empty());
        assert!(found(r"\[ x", MATHJAX).is_empty());
        // the next formula is still found
        assert_eq!(found(r"\( a \[ b \]", MATHJAX), ["$$b$$"]);
    }

    #[test]
    fn a_closer_inside_braces_does_not_close() {
        assert_eq!(found(r"\(\text{a \) b}\)", MATHJAX), [r"$\text{a \) b}$"]);
        assert_eq!(found("${a$b}$", DOLLARS), ["${a$b}$"]);
    }

    #[test]
    fn a_formula_is_bounded() {
        let long = format!("\\({}\\)", "x".repeat(MAX_TEX + 10));
        assert!(found(&long, MATHJAX).is_empty());
        let fits = format!("\\({}\\)", "x".repeat(100));
        assert_eq!(found(&fits, MATHJAX).len(), 1);
        // `$` math holds no blank line
        assert!(found("$a\n\n b$", DOLLARS).is_empty());
        assert_eq!(found("$a\n b$", DOLLARS), ["$a b$"]);
    }

    #[test]
    fn environments_are_display_math_with_their_delimiters() {
        let s = r"so \begin{align*} a &= b \\ c &= d \end{align*} holds";
        assert_eq!(
            found(s, MATHJAX),
            [r"$$\begin{align*} a &= b \\ c &= d \end{align*}$$"]
        );
        // KaTeX's defaults have no starred environments; neither library reads itemize
        assert!(found(s, KATEX).is_empty());
        let e = r"\begin{equation}E=mc^2\end{equation}";
        assert_eq!(found(e, KATEX), [format!("$${e}$$")]);
        assert!(found(r"\begin{itemize} x \end{itemize}", MATHJAX).is_empty());
        assert!(found(r"\begin{equation} x \end{align}", MATHJAX).is_empty());
    }

    fn page(head: &str) -> Option<TexText> {
        TexText::of(&parse(&format!(
            "<html><head>{head}</head><body>x</body></html>"
        )))
    }

    #[test]
    fn a_page_is_read_only_where_it_loads_or_configures_a_library() {
        let cdn = "<script src='https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js'>";
        let t = page(&format!("{cdn}</script>")).unwrap();
        assert_eq!(t.rules, MATHJAX);
        let auto = "<script defer src='/katex/contrib/auto-render.min.js' \
                    onload='renderMathInElement(document.body);'></script>";
        assert_eq!(page(auto).unwrap().rules, KATEX);
        let mj2 = "<script type='text/x-mathjax-config'>MathJax.Hub.Config({tex2jax: \
                   {inlineMath: [ ['$','$'], ['\\\\(','\\\\)'] ], processEscapes: true}});\
                   </script>";
        assert_eq!(page(mj2).unwrap().rules, DOLLARS);
        let mj3 = "<script>window.MathJax = {tex: {inlineMath: [[\"$\", \"$\"]]}};</script>";
        assert!(page(mj3).unwrap().rules.dollars);
        let kx = "<script>renderMathInElement(document.body, {delimiters: \
                  [{left: \"$\", right: \"$\", display: false}]});</script>";
        assert!(page(kx).unwrap().rules.dollars);
        // display `$$` alone is not `$`
        let dd = "<script>MathJax = {tex: {displayMath: [['$$','$$']]}};</script>";
        assert!(!page(dd).unwrap().rules.dollars);
        for none in [
            "<script src='/js/jquery.min.js'></script>",
            "<script>var x = Math.floor(2); var price = '$5';</script>",
            "<link rel='stylesheet' href='katex.min.css'>",
        ] {
            assert!(page(none).is_none(), "{none}");
        }
    }

    #[test]
    fn ignoring_and_processing_classes_follow_mathjax() {
        let t = page(
            "<script>MathJax.Hub.Config({tex2jax: {ignoreClass: 'tex2jax_ignore|dno'}});\
             </script>",
        )
        .unwrap();
        let a = parse(
            "<body><pre>p</pre><div class='dno'>d<span class='tex2jax_process'>s</span>\
             </div><div class='x mathjax_ignore'>m</div><p>ok</p><pre class='mathjax_process'>\
             q</pre></body>",
        );
        let scans: Vec<(String, Scan)> = a
            .descendants(a.html_child("body").unwrap())
            .into_iter()
            .filter(|&i| a.tag(i).is_some_and(|t| t != "body"))
            .map(|i| {
                let parent = a[i].parent().unwrap();
                let up = if a.tag(parent) == Some("div") {
                    t.child(Scan::On, &a, parent)
                } else {
                    Scan::On
                };
                (a.tag(i).unwrap().to_string(), t.child(up, &a, i))
            })
            .collect();
        let want = [
            ("pre", Scan::Skipped),
            ("div", Scan::Ignored),
            ("span", Scan::On),
            ("div", Scan::Ignored),
            ("p", Scan::On),
            ("pre", Scan::On),
        ];
        let want: Vec<(String, Scan)> = want.iter().map(|(t, s)| (t.to_string(), *s)).collect();
        assert_eq!(scans, want);
        // a configured expression MathJax takes and Rust's engine does not: the defaults
        let odd = page("<script>MathJax = {options: {ignoreHtmlClass: '(?!x)y'}};</script>");
        assert!(odd.is_some());
    }

    /// The pieces of the first `<p>` of `body` on a page with `head`, as strings.
    fn pieces_of(head: &str, body: &str) -> Vec<String> {
        let t = page(head).unwrap();
        let a = parse(body);
        let p = a
            .descendants(NodeId::DOCUMENT)
            .into_iter()
            .find(|&i| a.tag(i) == Some("p"))
            .unwrap();
        t.pieces(&a, p)
            .into_iter()
            .map(|piece| match piece {
                Piece::Node(n) => format!("<{}>", a.tag(n).unwrap_or("text")),
                Piece::Text(t) => t,
                Piece::Formula(f) => f.delimited(),
            })
            .collect()
    }

    #[test]
    fn a_formula_runs_over_line_breaks_but_not_elements() {
        let body = "<body><p>a $$x +<br>y$$ b <em>\\(c</em> d\\)</p></body>";
        let mathjax = pieces_of("<script src='MathJax.js'></script>", body);
        assert_eq!(mathjax, ["a ", "$$x + y$$", " b ", "<em>", "<text>"]);
        // KaTeX's auto-render joins adjacent text nodes only
        let katex = pieces_of("<script src='auto-render.min.js'></script>", body);
        assert_eq!(katex, ["<text>", "<br>", "<text>", "<em>", "<text>"]);
    }
}
