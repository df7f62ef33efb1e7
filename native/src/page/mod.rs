//! What a page is and what it holds, read off the visible tree: what it declares of itself
//! (`declared`), its kind (`kind`), its text blocks (`blocks`), their feature matrix
//! (`features`) and the second stage's features (`context`).

pub(crate) mod blocks;
pub(crate) mod context;
pub(crate) mod declared;
pub(crate) mod features;
pub(crate) mod kind;
