//! What the user receives: the blocks in document order with their verdicts (`render`), the
//! kept content as text, markdown and HTML (`structure`), and the language of the finished
//! text (`language`).

pub(crate) mod language;
pub(crate) mod render;
pub(crate) mod structure;
