//! What is learnt across pages: a site's evidence (`site`), the repeated pages of a site's
//! sample (`shingles`, `minhash`) and the copies across a whole crawl (`dups`).

pub(crate) mod dups;
pub(crate) mod minhash;
pub(crate) mod shingles;
pub(crate) mod site;
