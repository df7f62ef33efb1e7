//! sitesift's native core: the default cleaner's whole per-page path (HTML5 parsing, the
//! visible tree, revealed content, blocks, features, both stages of every member's
//! forests, site evidence, verdicts and the rendered blocks), exposed to Python as
//! `sitesift._native` when built with the `python` feature.

pub mod article;
pub mod blocks;
pub mod context;
pub mod conventions;
pub mod declared;
pub mod decode;
pub mod dom;
pub mod features;
pub mod forest;
pub mod intake;
pub mod kind;
pub mod nesting;
pub mod novelty;
pub mod parse;
pub mod pipeline;
pub mod records;
pub mod render;
pub mod reveal;
pub mod sections;
pub mod shingles;
pub mod site;
pub mod slideshow;
pub mod structure;
pub mod teasers;
pub mod text;
pub mod unseen;
pub mod urls;

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
