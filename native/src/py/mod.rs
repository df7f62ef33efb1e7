//! The Python face of the core (`sitesift._native`): the crate's one door.

pub(crate) mod python;
