//! The rules set against the model, one file each, and the toolkit they share.

pub mod articles;
pub mod choices;
pub mod consent;
pub mod dialogs;
pub mod editorial;
pub mod hidden;
pub mod listings;
pub mod notices;
pub mod records;
pub mod reviews;
pub mod slideshows;
pub mod teasers;
pub mod toolkit;
pub mod unseen;
