//! Bytes to the visible tree: the page's bytes decoded (`decode`) and checked before
//! parsing (`intake`, `nesting`), parsed into an index arena (`parse`), content a script would
//! show revealed (`reveal`), and the visible tree every later stage reads (`dom`, with its
//! formulas: `math`).

pub(crate) mod decode;
pub(crate) mod dom;
pub(crate) mod intake;
pub(crate) mod math;
pub(crate) mod nesting;
pub(crate) mod parse;
pub(crate) mod reveal;
