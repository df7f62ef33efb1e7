//! sitesift's native core: the per-page path, exposed to Python as `sitesift._native` when
//! built with the `python` feature. For every method a page's bytes are decoded and checked;
//! for the default cleaner it is HTML5 parsing, the visible tree, revealed content, blocks,
//! features, both stages of every member's forests, site evidence, verdicts and the
//! rendered blocks. The modules are the crate's own, in folders by the path of a page: the
//! Python face (`py/`) is its one door.
// Without the Python face only the tests reach the core's items.
#![cfg_attr(not(feature = "python"), allow(dead_code))]
#![warn(unreachable_pub)]

// The stages, in folders, in the order a page takes them: `read` (bytes to the visible
// tree), `page` (what a page is: its declarations, kind, blocks and features), `model` (the
// forests, the page type, novelty), `crawl` (across pages: a site's evidence, repeated pages,
// a crawl's copies), `rules` (set against the model, one file a rule), `output` (what the
// user receives), and `clean` (the per-page path that ties them, and the confidence in it).
mod clean;
mod crawl;
mod model;
mod output;
mod page;
mod read;
mod rules;

// What every stage reads: Python's string semantics (`text`) and its URLs (`urls`), and the
// typed ids of nodes, elements and blocks (`ids`).
mod ids;
mod text;
mod urls;

#[cfg(test)]
mod testing;

#[cfg(feature = "python")]
mod py;

/// The extension's allocator (Rust's allocations only; Python keeps its own): reading and
/// cleaning a page makes and frees hundreds of thousands of small nodes, strings and
/// vectors, and glibc's malloc was a fifth of the core's time under `perf` (malloc, free,
/// consolidation). With mimalloc the per-page path takes ~12 % less CPU for the same
/// answers (docs/native.md, "The allocator").
#[cfg(feature = "python")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
