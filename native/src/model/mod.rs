//! The models that weigh a page's evidence: gradient-boosted trees as arrays (`forest`), the
//! page type (`page_type`, a forest over page-level evidence) and whether the page is unlike
//! every training page (`novelty`).

pub(crate) mod forest;
pub(crate) mod novelty;
pub(crate) mod page_type;
