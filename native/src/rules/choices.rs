//! `choices=drop` (bar): the options of a drop-down list are dropped, and no other rule
//! counts them as the page's text.
//!
//! **What.** A block under a `<select>` (its `<option>`s, in `<optgroup>`s or not) is
//! barred. A `datalist` is no block at all (`dom::SKIPPED_TAGS`).
//!
//! **Why.** The options are a form's choices, which a browser shows only when the list is
//! opened: of the 4,641 option tokens the held-out model kept in the shared corpora, 80 are
//! in their gold (docs/lab/loco.md, "A drop-down's options").
//!
//! **Example.** A form's "Harbour" list of Northport and Southsea: both options dropped,
//! its label and the text around it left to the model.
//!
//! **Switch.** `choices=drop`, the default; `choices=auto` leaves them to the model.

use super::{Context, Setting};
use crate::page::blocks::PageBlocks;

/// The rule: the page's drop-down options.
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    Some(in_choice_list(cx.pb))
}

/// Per block, whether it is an option of a drop-down list (under a `select`): a choice
/// a form offers, which a browser shows only when the list is opened and no gold keeps
/// (docs/lab/loco.md, "A drop-down's options"). A `datalist` is no block at all
/// (`dom::SKIPPED_TAGS`).
pub(super) fn in_choice_list(pb: &PageBlocks) -> Vec<bool> {
    let inside = pb.under(|e| pb.tags[e] == "select");
    pb.elem.iter().map(|&e| inside[e]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::page;

    #[test]
    fn a_drop_down_lists_options_are_choices_and_its_label_is_not() {
        let html = "<p>Pick a harbour for your boat from the list below.</p>\
                    <form><label>Harbour</label><select><optgroup label='North'>\
                    <option>Northport</option></optgroup><option>Southsea</option></select>\
                    </form><p>Northport opens in May.</p>";
        let (pb, _, _) = page(html, &[]);
        let choices: Vec<&str> = pb
            .text
            .iter()
            .zip(in_choice_list(&pb))
            .filter_map(|(t, c)| c.then_some(t.as_str()))
            .collect();
        assert_eq!(choices, ["Northport", "Southsea"], "{:?}", pb.text);
    }
}
