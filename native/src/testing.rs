//! Fixtures the crate's tests share (built with the tests only): a page read from HTML, with
//! the model's verdicts set by the start of a block's text, and the texts of a set of blocks.

use crate::page::blocks::{walk, PageBlocks};
use crate::read::dom::{build_view, View};
use crate::read::parse::parse;

/// The page's blocks, and `likely` and probabilities with the blocks starting with
/// each of `sure` likely (probability 0.9; the rest 0.1).
pub(crate) fn page(html: &str, sure: &[&str]) -> (PageBlocks, Vec<bool>, Vec<f64>) {
    let a = parse(html);
    let view = build_view(&a, a.html_child("body").unwrap());
    let pb = walk(&view, None, None);
    let likely: Vec<bool> = pb
        .text
        .iter()
        .map(|t| sure.iter().any(|s| t.starts_with(s)))
        .collect();
    let prob = likely.iter().map(|&l| if l { 0.9 } else { 0.1 }).collect();
    (pb, likely, prob)
}

/// A whole document read as the cleaner reads it: its blocks, with the page's kind (what it
/// declares itself), and its visible tree.
pub(crate) fn read(html: &str) -> (PageBlocks, View) {
    let arena = parse(html);
    let body = arena.html_child("body").expect("a body");
    let view = build_view(&arena, body);
    let mut pb = walk(&view, None, None);
    pb.kind = crate::page::kind::PageKind::read(&arena, None);
    (pb, view)
}

/// The texts of the blocks `v` holds.
pub(crate) fn kept<'a>(pb: &'a PageBlocks, v: &[bool]) -> Vec<&'a str> {
    pb.text
        .iter()
        .zip(v)
        .filter(|(_, &k)| k)
        .map(|(t, _)| t.as_str())
        .collect()
}

/// The first three words of each block `out` holds.
pub(crate) fn flagged(pb: &PageBlocks, out: &[bool]) -> Vec<String> {
    pb.text
        .iter()
        .zip(out)
        .filter(|(_, &f)| f)
        .map(|(t, _)| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .collect()
}

/// Every block likely: the one starting with `surest` at 0.95, the rest half-believed.
pub(crate) fn surest(pb: &PageBlocks, surest: &str) -> (Vec<bool>, Vec<f64>) {
    let prob: Vec<f64> = pb
        .text
        .iter()
        .map(|t| if t.starts_with(surest) { 0.95 } else { 0.6 })
        .collect();
    (vec![true; prob.len()], prob)
}
