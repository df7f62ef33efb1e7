//! sitesift's native core: the per-page path, exposed to Python as `sitesift._native` when
//! built with the `python` feature. For every method a page's bytes are decoded and checked;
//! for the default cleaner it is HTML5 parsing, the visible tree, revealed content, blocks,
//! features, both stages of every member's forests, site evidence, verdicts and the
//! rendered blocks. The modules are the crate's own: the Python face (`python.rs`) is its
//! one door.
// Without the Python face only the tests reach the core's items.
#![cfg_attr(not(feature = "python"), allow(dead_code))]

mod blocks;
mod confidence;
mod context;
mod declared;
mod decode;
mod dom;
mod dups;
mod features;
mod forest;
mod intake;
mod kind;
mod language;
mod math;
mod minhash;
mod nesting;
mod novelty;
mod page_type;
mod parse;
mod pipeline;
mod render;
mod reveal;
mod rules;
mod shingles;
mod site;
mod structure;
#[cfg(test)]
mod testing;
mod text;
mod urls;

#[cfg(feature = "python")]
mod python;

/// The extension's allocator (Rust's allocations only; Python keeps its own): reading and
/// cleaning a page makes and frees hundreds of thousands of small nodes, strings and
/// vectors, and glibc's malloc was a fifth of the core's time under `perf` (malloc, free,
/// consolidation). With mimalloc the per-page path takes ~12 % less CPU for the same
/// answers (docs/native.md, "The allocator").
#[cfg(feature = "python")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
