//! The default cleaner's per-page path, which ties the stages together (`pipeline`), and how
//! sure it is of its own cleaning (`confidence`).

pub(crate) mod confidence;
pub(crate) mod pipeline;
