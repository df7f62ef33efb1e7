//! The shape of the tree an HTML5 parser would build, measured before parsing: the port of
//! `sitesift.nesting` (its Python scan stays as the fallback where this core is not built,
//! and tests/test_nesting.py holds the two to the same answers).
//!
//! Lexbor's time grows with the square of some shapes, so a page is refused (`too_deep`) when
//!
//! - its elements would nest more than `MAX_NESTING` deep: block elements scan the stack of
//!   open elements for a `<p>` to close (20 s at 100,000 levels, and the methods' tree walks
//!   after it);
//! - more than `MAX_FORMATTING` formatting elements (`<b>`, `<font>`, ...) would be active at
//!   once: each new one is compared with all of them (the "Noah's Ark" clause), so 50,000
//!   `<b id=N>` took 33 s;
//! - the parser would rebuild more than `MAX_REBUILT` formatting elements: an open `<b>` that a
//!   closing block cuts off is cloned again before the next text ("reconstruct the active
//!   formatting elements"), once for every block after it, so distinct unclosed `<b id=N><p>x`
//!   grow the tree with the square of their number.
//!
//! The scan reads the page as the HTML5 tokenizer and tree builder do in the ways that decide
//! these figures, in one linear pass and counters: the text of scripts, styles, textareas,
//! titles, iframes and the like and of comments holds no elements; `<div/>` opens a div (only
//! void and SVG/MathML elements close themselves); `<p>` and the block elements close an open
//! `<p>` and what is open inside it; `<a>` and `<nobr>` close the one open; identical
//! formatting elements are active three at a time at most; table cells, captions, objects and
//! templates start a new list of them. Elements with implied end tags (`<li>`, `<tr>`,
//! `<option>`, ...) are not counted: old pages leave them open by the thousand and the parser
//! closes them itself. A table cell is counted, and the next cell or row of its table closes
//! it with all that is open inside it (an old page's unclosed `<font>` in every cell nests
//! nothing).
//!
//! The answers are Python's to the letter: `\s` is `str.isspace()`, tag names and attributes
//! are lowered as `str.lower()` does (`text::lower`; a letter cased only in a newer Unicode
//! than the Python's may lower differently), the case-blind matches of `re.I` take the four
//! non-ASCII letters Python folds onto ASCII ones (`folds_to`), and counts of `<` are of
//! characters, which in UTF-8 are its bytes. Positions are byte offsets: they order and slice
//! the page as Python's character offsets do.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::collections::VecDeque;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

use memchr::{memchr, memchr_iter};

use crate::text::WordHasher;
use crate::text::{all_space, is_space, lower, strip};

pub(crate) const MAX_NESTING: u64 = 5000;
const MAX_FORMATTING: u64 = 1000;
const MAX_REBUILT: u64 = 250_000;

/// Identical active formatting elements kept (the Noah's Ark clause).
const ARK: usize = 3;

// What the scan tells element names apart by, a bit each.
const RAW_TEXT: u16 = 1 << 0;
const VOID: u16 = 1 << 1;
/// Closed by the parser, not counted (see the module's doc); `html`, `head` and `body` are
/// there once, whatever the page says.
const UNCOUNTED: u16 = 1 << 2;
const FORMATTING: u16 = 1 << 3;
/// A new one closes the one open (adoption agency).
const ONE_OPEN: u16 = 1 << 4;
const CLOSES_P: u16 = 1 << 5;
const MARKER: u16 = 1 << 6;
const CELL: u16 = 1 << 7;
const ENDS_CELLS: u16 = 1 << 8;
const FOREIGN: u16 = 1 << 9;

const KINDS: [(u16, &str); 10] = [
    (
        RAW_TEXT,
        "script style textarea title xmp iframe noembed noframes",
    ),
    (
        VOID,
        "area base basefont bgsound br col embed frame hr img image input keygen link meta \
         param source track wbr",
    ),
    (
        UNCOUNTED,
        "li tr dt dd option optgroup tbody thead tfoot colgroup caption rb rp rt rtc html \
         head body",
    ),
    (
        FORMATTING,
        "b big code em font i s small strike strong tt u",
    ),
    (ONE_OPEN, "a nobr"),
    (
        CLOSES_P,
        "address article aside blockquote center details dialog dir div dl fieldset \
         figcaption figure footer header hgroup main menu nav ol p search section summary ul \
         h1 h2 h3 h4 h5 h6 pre listing form table hr li dd dt",
    ),
    (MARKER, "td th caption applet object marquee template"),
    (CELL, "td th"),
    (ENDS_CELLS, "tr tbody thead tfoot table"),
    (FOREIGN, "svg math"),
];

/// The start tags the pre-check counts: the formatting elements and `<nobr>`.
const FORMATTING_STARTS: [&str; 13] = [
    "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

// Names the scan asks for by themselves, the first known ones (their ids, in this order).
const REBUILT: u32 = 0; // the frame of the elements one reconstruction cloned
const P: u32 = 1;
const SVG: u32 = 2;
const MATH: u32 = 3;
const TABLE: u32 = 4;
const PLAINTEXT: u32 = 5;
const NAMED: [&str; 6] = ["#rebuilt", "p", "svg", "math", "table", "plaintext"];
/// The commonest names of no kind on modern pages (a quarter of the tags of the wcxb pages
/// the pre-check leaves to the scan, span alone 16 %), known so that they skip the keyed
/// hash of the page's own names.
const COMMON: &str = "span path button use label polygon g picture circle noscript time sup";

/// The element names the scan knows, by id (`NAMED`, then those of `KINDS` and `COMMON`),
/// and their kinds.
struct Known {
    ids: std::collections::HashMap<&'static str, u32, BuildHasherDefault<WordHasher>>,
    kinds: Vec<u16>,
}

fn known() -> &'static Known {
    static KNOWN: OnceLock<Known> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut k = Known {
            ids: std::collections::HashMap::default(),
            kinds: Vec::new(),
        };
        let named = NAMED.map(|name| (0, name));
        for (kind, names) in named.into_iter().chain(KINDS).chain([(0, COMMON)]) {
            for name in names.split_whitespace() {
                let next = k.kinds.len() as u32;
                let id = *k.ids.entry(name).or_insert(next);
                if id == next {
                    k.kinds.push(0);
                }
                k.kinds[id as usize] |= kind;
            }
        }
        k
    })
}

/// Why the parser should not be given `html` (see the module's doc), or None.
pub(crate) fn too_deep(html: &str) -> Option<String> {
    if !may_pass_limits(html) {
        return None;
    }
    let c = counts(html);
    if c.deepest > MAX_NESTING {
        return Some(format!(
            "elements nested {} deep (limit {})",
            grouped(c.deepest),
            grouped(MAX_NESTING)
        ));
    }
    if c.most_active > MAX_FORMATTING {
        return Some(format!(
            "{} formatting elements (<b>, <font>, ...) left open at once (limit {}): the HTML \
             parser's work grows with their square",
            grouped(c.most_active),
            grouped(MAX_FORMATTING)
        ));
    }
    if c.rebuilt > MAX_REBUILT {
        return Some(format!(
            "unclosed formatting elements that the HTML parser would rebuild {} times (limit {})",
            grouped(c.rebuilt),
            grouped(MAX_REBUILT)
        ));
    }
    None
}

/// Whether the scan is needed at all: a page of n tags, f of them formatting start tags,
/// nests at most n deep, has at most f + 1 formatting elements active (one `<a>`) and
/// rebuilds at most that many before each of its n + 1 runs of text. Both counts are a
/// quick pass that leaves most pages unscanned (92 % of those of dragnet, big9, wcxb,
/// l3s-gn1 and chaos).
fn may_pass_limits(html: &str) -> bool {
    let tags = memchr_iter(b'<', html.as_bytes()).count() as u64;
    if tags > MAX_NESTING {
        return true;
    }
    let formatting = 1 + memchr_iter(b'<', html.as_bytes())
        .filter(|&at| formatting_start(&html[at + 1..]))
        .count() as u64;
    formatting > MAX_FORMATTING || formatting * (tags + 1) > MAX_REBUILT
}

/// Does `rest` (after a `<`) go on as `(?i)(?:b|big|...|u)[\s/>]`?
fn formatting_start(rest: &str) -> bool {
    // most tags are ruled out by their first letter
    let Some(first) = rest.chars().next().and_then(folded) else {
        return false;
    };
    FORMATTING_STARTS.iter().any(|name| {
        name.as_bytes()[0] == first
            && starts_folded(rest, name)
                .and_then(|end| rest[end..].chars().next())
                .is_some_and(ends_name)
    })
}

/// What one scan measured: the deepest nesting, the most formatting elements active at
/// once, and the formatting elements rebuilt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) deepest: u64,
    pub(crate) most_active: u64,
    pub(crate) rebuilt: u64,
}

/// The scan's figures for `html`, whatever the pre-check says.
pub(crate) fn counts(html: &str) -> Counts {
    let mut shape = Shape::new();
    shape.scan(html);
    Counts {
        deepest: shape.deepest,
        most_active: shape.most_active,
        rebuilt: shape.rebuilt,
    }
}

/// `n` with commas between groups of three digits (Python's `f"{n:,}"`).
pub(crate) fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() * 4 / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The ASCII lowercase letter `c` matches in a case-blind Python pattern, if any: a letter's
/// two cases, and the letters `re.I` folds onto i, k and s (İ ı, the Kelvin sign, ſ).
fn folded(c: char) -> Option<u8> {
    match c {
        'a'..='z' | 'A'..='Z' => Some(c.to_ascii_lowercase() as u8),
        '\u{130}' | '\u{131}' => Some(b'i'),
        '\u{212a}' => Some(b'k'),
        '\u{17f}' => Some(b's'),
        _ => None,
    }
}

/// Where `s` continues after a case-blind `word` (ASCII lowercase) at its start, if it does.
fn starts_folded(s: &str, word: &str) -> Option<usize> {
    let mut chars = s.char_indices();
    for letter in word.bytes() {
        chars.next().filter(|&(_, c)| folded(c) == Some(letter))?;
    }
    Some(chars.next().map_or(s.len(), |(i, _)| i))
}

/// `[\s/>]`: what ends a tag name.
fn ends_name(c: char) -> bool {
    c == '/' || c == '>' || is_space(c)
}

/// Where the first `</tag[\s/>]` (case-blind) at or after `from` ends.
fn raw_text_end(html: &str, from: usize, tag: &str) -> Option<usize> {
    memchr_iter(b'<', &html.as_bytes()[from..]).find_map(|at| {
        let rest = html[from + at + 1..].strip_prefix('/')?;
        let end = starts_folded(rest, tag)?;
        let c = rest[end..].chars().next().filter(|&c| ends_name(c))?;
        Some(html.len() - rest.len() + end + c.len_utf8())
    })
}

/// Where the first `-->` at or after `from` ends.
fn comment_end(html: &str, from: usize) -> Option<usize> {
    let bytes = html.as_bytes();
    memchr_iter(b'>', &bytes[from..])
        .map(|at| from + at + 1)
        .find(|&end| end >= from + 3 && &bytes[end - 3..end] == b"-->")
}

/// `s.lower()`, borrowed where that is `s`.
fn lowered(s: &str) -> Cow<'_, str> {
    // one pass without a branch a byte (vectorised): attributes can be long
    let lower_ascii = !s.bytes().fold(false, |other, b| {
        other | b.is_ascii_uppercase() | (b >= 0x80)
    });
    if lower_ascii {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(lower(s))
    }
}

/// A token the scan reads: a comment's start, or a tag's `<`, `/` and name.
enum Token<'a> {
    Comment,
    Tag { end_tag: bool, name: &'a str },
}

/// The first token at or after `from`: where it starts, where it ends, and what it is (the
/// pattern `<(?:(!--)|(/?)([a-zA-Z][^\s/>]*))`, as Python's `re` finds it).
fn next_token(html: &str, from: usize) -> Option<(usize, usize, Token<'_>)> {
    memchr_iter(b'<', &html.as_bytes()[from..]).find_map(|at| {
        let start = from + at;
        let rest = &html[start + 1..];
        if rest.starts_with("!--") {
            return Some((start, start + 4, Token::Comment));
        }
        let end_tag = rest.starts_with('/');
        let name = &rest[usize::from(end_tag)..];
        if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        let name = &name[..name.find(ends_name).unwrap_or(name.len())];
        let end = start + 1 + usize::from(end_tag) + name.len();
        Some((start, end, Token::Tag { end_tag, name }))
    })
}

/// Does the tag's text end inside a quoted attribute value?
fn open_quote(attrs: &str) -> bool {
    let odd = |q: u8| memchr_iter(q, attrs.as_bytes()).count() % 2 == 1;
    odd(b'"') || odd(b'\'')
}

/// One list of active formatting elements (up to its marker): its elements by number, the
/// identical ones and those of each tag findable at once. Whether a number is still in a
/// list is `Shape::alive` (each number is in one list only).
struct Active<'a> {
    /// The marker's element (None for the document's own list).
    kind: Option<u32>,
    /// The list below's count of elements cut off, back at the end.
    saved: u64,
    len: usize,
    by_key: HashMap<(u32, Cow<'a, str>), VecDeque<usize>>,
    /// By element id (formatting elements are known names: a short list).
    by_tag: Vec<Vec<usize>>,
}

impl<'a> Active<'a> {
    fn new(kind: Option<u32>, saved: u64) -> Self {
        Active {
            kind,
            saved,
            len: 0,
            by_key: HashMap::new(),
            by_tag: Vec::new(),
        }
    }

    fn add(&mut self, alive: &mut [bool], n: usize, tag: u32, attrs: Cow<'a, str>) {
        let same = self.by_key.entry((tag, attrs)).or_default();
        while same.front().is_some_and(|&m| !alive[m]) {
            same.pop_front();
        }
        if same.len() >= ARK {
            // the earliest identical one leaves the list (counted: stale ones behind it too)
            let gone = same.pop_front().expect("ARK > 0");
            alive[gone] = false;
            self.len -= 1;
        }
        same.push_back(n);
        self.len += 1;
        let tag = tag as usize;
        if self.by_tag.len() <= tag {
            self.by_tag.resize_with(tag + 1, Vec::new);
        }
        self.by_tag[tag].push(n);
    }

    /// Take the last active element of `tag` out of the list; whether there was one.
    fn remove_last(&mut self, alive: &mut [bool], tag: u32) -> bool {
        let Some(held) = self.by_tag.get_mut(tag as usize) else {
            return false;
        };
        while let Some(n) = held.pop() {
            if alive[n] {
                alive[n] = false;
                self.len -= 1;
                return true;
            }
        }
        false
    }
}

/// An open element, or the clones of one reconstruction (`REBUILT`): its levels of
/// nesting and the formatting elements among them.
struct Frame {
    tag: u32,
    levels: u64,
    formatting: u64,
}

/// The counters of one scan (see `too_deep`). Element names are ids: the known ones', then
/// the page's others (`others`, numbered on from them); `open` counts the open ones by id.
struct Shape<'a> {
    known: &'static Known,
    others: HashMap<Cow<'a, str>, u32>,
    open: Vec<u64>,
    frames: Vec<Frame>,
    depth: u64,
    deepest: u64,
    rebuilt: u64,
    most_active: u64,
    /// Active formatting elements cut off, to rebuild before the next text.
    detached: u64,
    lists: Vec<Active<'a>>,
    foreign: u64,
    /// By number: whether the formatting element is still in its list of active ones.
    alive: Vec<bool>,
    /// Where in `frames` each open table is.
    tables: Vec<usize>,
    /// Where in `frames` each open cell is.
    cells: Vec<usize>,
}

impl<'a> Shape<'a> {
    fn new() -> Self {
        let known = known();
        Shape {
            known,
            others: HashMap::new(),
            open: vec![0; known.kinds.len()],
            frames: Vec::new(),
            depth: 0,
            deepest: 0,
            rebuilt: 0,
            most_active: 0,
            detached: 0,
            lists: vec![Active::new(None, 0)],
            foreign: 0,
            alive: Vec::new(),
            tables: Vec::new(),
            cells: Vec::new(),
        }
    }

    /// The id of the (lowered) element name.
    #[allow(clippy::ptr_arg)] // a name borrowed from the page is kept so, without a copy
    fn id(&mut self, name: &Cow<'a, str>) -> u32 {
        if let Some(&id) = self.known.ids.get(name.as_ref()) {
            return id;
        }
        if let Some(&id) = self.others.get(name.as_ref()) {
            return id;
        }
        let id = self.open.len() as u32;
        self.others.insert(name.clone(), id);
        self.open.push(0);
        id
    }

    fn is(&self, tag: u32, kind: u16) -> bool {
        self.known
            .kinds
            .get(tag as usize)
            .is_some_and(|k| k & kind != 0)
    }

    fn scan(&mut self, html: &'a str) {
        // Where the last token ended. No token starts before it and ends after it, so the
        // search for the next goes on from there (as Python's skips what starts before it).
        let mut after = 0;
        while let Some((start, token_end, token)) = next_token(html, after) {
            if self.detached > 0 && start > after && !all_space(&html[after..start]) {
                self.rebuild(); // text: what was cut off is cloned around it
            }
            let (end_tag, name) = match token {
                Token::Comment => match comment_end(html, token_end) {
                    // a comment: nothing in it until "-->", or to the end
                    Some(end) => {
                        after = end;
                        continue;
                    }
                    None => return,
                },
                Token::Tag { end_tag, name } => (end_tag, name),
            };
            let Some(end) = memchr(b'>', &html.as_bytes()[token_end..]).map(|e| token_end + e)
            else {
                break; // no tag ends after here: the rest is text
            };
            after = end + 1;
            let name = lowered(name);
            let tag = self.id(&name);
            if end_tag {
                self.end_tag(tag);
                continue;
            }
            let attrs = &html[token_end..end];
            let closed = attrs.ends_with('/') && !open_quote(attrs);
            if self.is(tag, RAW_TEXT) && self.foreign == 0 {
                // text up to its end tag
                match raw_text_end(html, after, &name) {
                    Some(close) => {
                        after = close;
                        continue;
                    }
                    None => return,
                }
            }
            if tag == PLAINTEXT && self.foreign == 0 {
                return;
            }
            self.start_tag(tag, attrs, closed);
        }
        if self.detached > 0 && after < html.len() && !all_space(&html[after..]) {
            self.rebuild(); // the text at the end
        }
    }

    fn start_tag(&mut self, tag: u32, attrs: &'a str, closed: bool) {
        if self.foreign > 0 {
            // SVG and MathML: `/>` closes, nothing is reformatted
            if !closed {
                self.push(tag, 1, 0);
                self.foreign += u64::from(self.is(tag, FOREIGN));
            }
            return;
        }
        if self.is(tag, CLOSES_P) && self.open[P as usize] > 0 {
            self.pop_until(P);
        }
        if self.is(tag, CELL | ENDS_CELLS) {
            self.close_cell();
        }
        if self.is(tag, MARKER) {
            self.marker(tag);
        }
        if self.is(tag, CELL) {
            self.cells.push(self.frames.len());
            self.push(tag, 1, 0);
            return;
        }
        if tag == TABLE {
            self.tables.push(self.frames.len());
        }
        if self.is(tag, UNCOUNTED) {
            return;
        }
        if !self.is(tag, CLOSES_P) {
            self.rebuild();
        }
        if self.is(tag, VOID) {
            return;
        }
        if self.is(tag, ONE_OPEN) && self.remove_last(tag) {
            if self.open[tag as usize] > 0 {
                self.pop_until(tag);
            }
            self.detached = self.detached.saturating_sub(1); // gone, not cut off
        }
        if self.is(tag, FORMATTING | ONE_OPEN) {
            let n = self.alive.len();
            self.alive.push(true);
            let active = self.lists.last_mut().expect("the document's list stays");
            active.add(&mut self.alive, n, tag, lowered(strip(attrs)));
            self.most_active = self.most_active.max(active.len as u64);
            self.push(tag, 1, 1);
            return;
        }
        self.push(tag, 1, 0);
        if self.is(tag, FOREIGN) {
            if closed {
                self.pop_until(tag);
            } else {
                self.foreign = 1;
            }
        }
    }

    fn end_tag(&mut self, tag: u32) {
        let open = self.open[tag as usize] > 0;
        if self.foreign > 0 {
            if open {
                self.pop_until(tag);
                self.foreign = self.open[SVG as usize] + self.open[MATH as usize];
            }
            return;
        }
        if self.is(tag, FORMATTING | ONE_OPEN) {
            let listed = self.remove_last(tag);
            if open {
                self.pop_until(tag);
            }
            if listed {
                // it left the list: not cut off, gone
                self.detached = self.detached.saturating_sub(1);
            }
            return;
        }
        if self.is(tag, CELL | ENDS_CELLS) {
            self.close_cell();
            self.end_cells();
        } else if self.is(tag, MARKER) && self.active().kind == Some(tag) {
            self.end_list();
        }
        if self.open[tag as usize] > 0 {
            self.pop_until(tag);
        }
    }

    fn active(&self) -> &Active<'a> {
        self.lists.last().expect("the document's list stays")
    }

    fn remove_last(&mut self, tag: u32) -> bool {
        let active = self.lists.last_mut().expect("the document's list stays");
        active.remove_last(&mut self.alive, tag)
    }

    /// Close the open cell of the innermost table, and all that is open inside it.
    fn close_cell(&mut self) {
        if let Some(&cell) = self.cells.last() {
            if self.tables.last().is_none_or(|&table| cell > table) {
                self.pop_to(cell);
            }
        }
    }

    fn marker(&mut self, tag: u32) {
        if self.is(tag, CELL) {
            self.end_cells();
        }
        self.lists.push(Active::new(Some(tag), self.detached));
        self.detached = 0;
    }

    fn end_cells(&mut self) {
        while self.active().kind.is_some_and(|k| self.is(k, CELL)) {
            self.end_list();
        }
    }

    fn end_list(&mut self) {
        if self.lists.len() > 1 {
            self.detached = self.lists.pop().expect("more than one").saved;
        }
    }

    fn push(&mut self, tag: u32, levels: u64, formatting: u64) {
        self.frames.push(Frame {
            tag,
            levels,
            formatting,
        });
        self.open[tag as usize] += 1;
        self.depth += levels;
        self.deepest = self.deepest.max(self.depth);
    }

    /// Close the open elements down to the last `tag`; the formatting elements among them
    /// are cut off (still active, to be rebuilt).
    fn pop_until(&mut self, tag: u32) {
        while let Some(frame) = self.frames.pop() {
            let found = frame.tag == tag;
            self.popped(frame);
            if found {
                break;
            }
        }
        self.after_pops();
    }

    /// Close the open elements down to `size` of them (as `pop_until`).
    fn pop_to(&mut self, size: usize) {
        while self.frames.len() > size {
            let frame = self.frames.pop().expect("longer than size");
            self.popped(frame);
        }
        self.after_pops();
    }

    fn popped(&mut self, frame: Frame) {
        self.open[frame.tag as usize] -= 1;
        self.depth -= frame.levels;
        self.detached += frame.formatting;
    }

    fn after_pops(&mut self) {
        self.detached = self.detached.min(self.active().len as u64);
        let open = self.frames.len();
        for held in [&mut self.cells, &mut self.tables] {
            while held.last().is_some_and(|&at| at >= open) {
                held.pop();
            }
        }
    }

    /// Clone the cut-off active formatting elements where the next content goes.
    fn rebuild(&mut self) {
        if self.detached > 0 {
            self.rebuilt += self.detached;
            self.push(REBUILT, self.detached, self.detached);
            self.detached = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `unit(i)` for i in 0..n, joined.
    fn numbered(n: usize, unit: impl Fn(usize) -> String) -> String {
        (0..n).map(unit).collect()
    }

    /// n distinct unclosed `<b id=N><p>t`, then m more paragraphs: n (n - 1) / 2 + m (n - 1)
    /// formatting elements rebuilt.
    fn rebuilds(n: usize, m: usize) -> String {
        numbered(n, |i| format!("<b id={i}><p>t")) + &"<p>t".repeat(m)
    }

    #[test]
    fn nesting_at_the_limit_passes_and_one_more_level_is_refused() {
        let under = "<div>".repeat(5000) + "<br>"; // 5,001 tags: scanned
        assert!(may_pass_limits(&under));
        assert_eq!(counts(&under).deepest, MAX_NESTING);
        assert_eq!(too_deep(&under), None);
        let over = "<div/>".repeat(5001);
        assert_eq!(
            too_deep(&over).as_deref(),
            Some("elements nested 5,001 deep (limit 5,000)")
        );
        // as many tags as the limit cannot nest deeper: not scanned
        assert!(!may_pass_limits(&"<div>".repeat(5000)));
    }

    #[test]
    fn formatting_elements_at_the_limit_pass_and_one_more_is_refused() {
        let page = |n| numbered(n, |i| format!("<b id={i}>")) + "<p>x";
        assert_eq!(counts(&page(1000)).most_active, MAX_FORMATTING);
        assert_eq!(too_deep(&page(1000)), None);
        assert_eq!(
            too_deep(&page(1001)).as_deref(),
            Some(
                "1,001 formatting elements (<b>, <font>, ...) left open at once (limit 1,000): \
                 the HTML parser's work grows with their square"
            )
        );
        // identical ones: three stay active
        assert_eq!(counts(&"<b>".repeat(2000)).most_active, 3);
        // <striKe> with the Kelvin sign is a <strike>, and the pre-check counts it so
        let kelvin = numbered(1001, |i| format!("<stri\u{212a}e id={i}>")) + "<p>x";
        assert_eq!(too_deep(&kelvin), too_deep(&page(1001)));
    }

    #[test]
    fn rebuilds_at_the_limit_pass_and_one_more_is_refused() {
        let at = rebuilds(626, 87); // 195,625 + 54,375
        assert_eq!(counts(&at).rebuilt, MAX_REBUILT);
        assert_eq!(too_deep(&at), None);
        let over = at + "<table><td><div><i>x</div>t"; // the cell's one <i>, once more
        assert_eq!(
            too_deep(&over).as_deref(),
            Some(
                "unclosed formatting elements that the HTML parser would rebuild 250,001 times \
                 (limit 250,000)"
            )
        );
        assert_eq!(counts(&rebuilds(800, 0)).rebuilt, 319_600);
    }

    #[test]
    fn text_that_holds_no_elements_nests_nothing() {
        let divs = "<div>".repeat(6000);
        // each ends where Python's pattern ends it: the <i> after it is the one element
        for page in [
            format!("<script>{divs}</script><i>"),
            format!("<STYLE>{divs}</style ><i>"),
            format!("<textarea>{divs}</textarea/<i>"),
            format!("<!-- {divs} --><i>"),
            // ſ, İ and the Kelvin sign match s, i and k in a case-blind Python pattern
            format!("<script>{divs}</\u{17f}cript><i>"),
            format!("<title>{divs}</T\u{130}TLE><i>"),
        ] {
            assert_eq!(counts(&page).deepest, 1, "{}", &page[..10]);
        }
        // no end: the rest is text
        assert_eq!(counts(&format!("<title>{divs}</titlex><i>")).deepest, 0);
        assert_eq!(counts(&format!("<p>x<plaintext>{divs}")).deepest, 1);
        assert_eq!(
            counts(&format!("<svg>{}</svg>", "<g/>".repeat(6000))).deepest,
            1
        );
    }

    #[test]
    fn tokens_read_as_python_reads_them() {
        // a name runs to whitespace, `/` or `>`: `<a<b>` is one tag, "a<b"
        assert_eq!(counts("<a<b><a<b>").deepest, 2);
        assert_eq!(counts("</ <div>").deepest, 1);
        // Unicode whitespace ends a name; an unfinished tag is text
        assert_eq!(counts("<div\u{3000}class=x><div").deepest, 1);
        // `/>` in a quoted value closes nothing
        assert_eq!(counts(&"<div title=\"/>\">".repeat(3)).deepest, 3);
        assert_eq!(counts(&"<svg/>".repeat(3)).deepest, 1);
        // names lower as Python lowers them: the Kelvin sign's lowercase is k
        assert_eq!(counts("<p><STRI\u{212a}E>t<p>t").rebuilt, 1);
        assert_eq!(counts("<p><STRIKX>t<p>t").rebuilt, 0);
    }

    #[test]
    fn numbers_are_grouped_as_python_formats_them() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1_234_567, "1,234,567"),
        ];
        for (n, s) in cases {
            assert_eq!(grouped(n), s);
        }
    }
}
