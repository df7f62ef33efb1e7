//! What each syntax escapes and the small pieces of markup around text: HTML's escapes,
//! markdown's line starts, fences, code spans and link destinations, inert TeX, indents.
use crate::text::split_ws;

pub(super) fn push_escaped_html(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

pub(super) fn html_attr(s: &str) -> String {
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

pub(super) fn looks_like_entity(rest: &[char]) -> bool {
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
pub(super) fn escape_line_start(line: &str, out: &mut String) {
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
pub(super) fn fence(s: &str, min: usize) -> String {
    let (mut longest, mut run) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat(min.max(longest + 1))
}

pub(super) fn code_span(code: &str) -> String {
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
pub(super) fn md_destination(url: &str) -> String {
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
pub(super) fn class_language(class: &str) -> Option<&str> {
    split_ws(class).find_map(|w| {
        w.strip_prefix("language-")
            .or_else(|| w.strip_prefix("lang-"))
            .filter(|l| !l.is_empty())
    })
}

/// A formula's TeX as markdown may hold it: the same formula typeset, but nothing a markdown
/// renderer that does not know `$` math would turn into markup a browser runs. The TeX comes
/// from the page, so `<img onerror=...>` or `[x](javascript:...)` in an annotation would
/// otherwise be raw HTML or a link: `<` and `>` become `\lt` and `\gt` (TeX's own names
/// for them, in MathJax and KaTeX; a space after each unless one follows already), and `](`
/// gets a space between (a space in math mode is nothing, and a link needs the two
/// together).
pub(super) fn inert_tex(tex: &str) -> String {
    let mut out = String::with_capacity(tex.len() + 8);
    let mut chars = tex.chars().peekable();
    while let Some(c) = chars.next() {
        let name = match c {
            '<' => "\\lt",
            '>' => "\\gt",
            _ => {
                out.push(c);
                continue;
            }
        };
        out.push_str(name);
        if !chars.peek().is_some_and(|n| n.is_whitespace()) {
            out.push(' ');
        }
    }
    out.replace("](", "] (")
}

pub(super) fn indent(text: &str, width: usize) -> String {
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
