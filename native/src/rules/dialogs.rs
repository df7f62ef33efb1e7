//! `dialogs=drop` (take-out): a modal dialog's text is dropped.
//!
//! **What.** The blocks in an element named `modal`, `popup` or `lightbox` (by class or id),
//! or of ARIA role `dialog`, are dropped, unless the element holds the page's main block
//! (`toolkit::inside_sections`): a page may open its article in a lightbox. A dialog the
//! page keeps in its `<header>` or `<footer>` is the exception: page chrome never holds the
//! page, so there the dialog is dropped whatever it holds, and the main block is looked for
//! outside it.
//!
//! **Why.** A model that learnt from stories reads a privacy policy or a size guide in a
//! modal dialog as it reads a long text, and keeps it. Of the three-word runs in elements
//! named for a modal dialog, 4 % are in wcxb's gold and 0.5-12 % in the older corpora's
//! (docs/lab/loco.md, "Customer reviews and modal dialogs").
//!
//! **Example.** A shop's footer link opens its privacy policy in a modal kept in the footer
//! (`<div id='modal-privacy-policy'>`): the policy, longer than the product's own text, is
//! dropped; so is a sign-up offer of role `dialog`.
//!
//! **Switch.** `dialogs=drop`, the default; `dialogs=auto` leaves it to the model.

use std::sync::OnceLock;

use regex::Regex;

use super::toolkit::{inside_sections, section_names};
use super::{Context, Setting};
use crate::page::blocks::PageBlocks;
use crate::read::dom::View;

/// Names of a modal dialog, by class or id (`modal`, `popup`, `lightbox`; `modal-open` on
/// a `body` is a state, and a body holds the main block), or its ARIA role.
fn dialog_name() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(^|[^a-z])(modal|popup|pop-up|lightbox|role-dialog|role-alertdialog)([^a-z]|$)",
        )
        .unwrap()
    })
}

/// The rule: the dialogs beside the main block of what the model and the bring-in rules
/// kept.
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    Some(modal_dialogs(cx.pb, cx.view, cx.kept, cx.prob))
}

/// Per block, whether it is in a modal dialog (named `modal`, `popup` or `lightbox`, or of
/// role `dialog`) that does not hold the main block.
///
/// A dialog the page keeps in its `<header>` or `<footer>` is never the page, whatever it
/// holds: a shop's footer links open the privacy policy or the size guide in a modal
/// placed there, and a policy of 6,000 words outweighs a product's own text, so the main
/// block is found outside such dialogs (docs/lab/loco.md, "Text a class hides, and dialogs in
/// the page's header or footer").
pub(super) fn modal_dialogs(
    pb: &PageBlocks,
    view: &View,
    likely: &[bool],
    prob: &[f64],
) -> Vec<bool> {
    let named = dialog_name();
    let dialog: Vec<bool> = pb
        .elems()
        .map(|e| named.is_match(&section_names(view, e)))
        .collect();
    let chrome = pb.under(|e| matches!(pb.tags[e].as_str(), "header" | "footer"));
    let chrome_dialogs = pb.under(|e| chrome[e] && dialog[e]);
    inside_sections(pb, likely, prob, |e| dialog[e], Some(&chrome_dialogs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{flagged, read, surest};

    /// The description the surest block, the rest half-believed.
    fn probs(pb: &PageBlocks) -> (Vec<bool>, Vec<f64>) {
        surest(pb, "A light pack")
    }

    #[test]
    fn a_modal_dialog_is_a_section_by_its_name_or_role() {
        let html = "<html><body><main><h1>Trail pack 25</h1>\
            <p>A light pack for day hikes, with a padded back panel, a hip belt and a pocket \
            for a water bladder of three litres.</p></main>\
            <footer><div id='modal-privacy-policy' class='fixed inset-0'><p>We process \
            personal information for the legitimate purposes of running our business.</p></div>\
            <div role='dialog'><p>Join our list for ten percent off your first order.</p></div>\
            <div class='modalities'><p>Shipping by land or sea.</p></div></footer>\
            </body></html>";
        let (pb, view) = read(html);
        let (likely, prob) = probs(&pb);
        let out = modal_dialogs(&pb, &view, &likely, &prob);
        // (`modalities` is no modal: names are read as words)
        assert_eq!(flagged(&pb, &out), ["We process personal", "Join our list"]);
        // a page opened in a lightbox: the dialog holding the main block is the page
        let boxed = "<html><body class='modal-open'><div class='lightbox'><p>A light pack for \
            day hikes, with a padded back panel and a hip belt.</p></div></body></html>";
        let (pb, view) = read(boxed);
        let (likely, prob) = probs(&pb);
        assert!(!modal_dialogs(&pb, &view, &likely, &prob).iter().any(|&f| f));
    }

    #[test]
    fn a_dialog_in_the_footer_is_a_section_even_when_it_outweighs_the_page() {
        // a shop's footer link opens its privacy policy in a modal kept in the footer: the
        // policy is longer than the product's text and the model believes it more
        let policy = "We process personal information for the legitimate purposes of running \
            our business, and we share it with vendors and service providers. "
            .repeat(6);
        let html = format!(
            "<html><body><main><h1>Trail pack 25</h1>\
             <p>A light pack for day hikes, with a padded back panel, a hip belt and a pocket \
             for a water bladder of three litres.</p></main>\
             <footer><a href='#policy'>Privacy</a><div id='modal-privacy-policy' \
             aria-modal='true'><h2>Privacy policy</h2><p>{policy}</p></div></footer>\
             </body></html>"
        );
        let (pb, view) = read(&html);
        let (likely, prob) = surest(&pb, "We process");
        let out = modal_dialogs(&pb, &view, &likely, &prob);
        assert_eq!(
            flagged(&pb, &out),
            ["Privacy policy", "We process personal"]
        );
        // the same dialog outside the page's chrome holds the main block: it is the page
        let html = html
            .replace("<footer>", "<div>")
            .replace("</footer>", "</div>");
        let (pb, view) = read(&html);
        assert!(!modal_dialogs(&pb, &view, &likely, &prob).iter().any(|&f| f));
    }
}
