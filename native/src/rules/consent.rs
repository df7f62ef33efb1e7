//! `consent=drop` (bar): a cookie-consent dialog's text is dropped, and no other rule counts
//! it as the page's text.
//!
//! **What.** A block under an element whose class or id names a consent dialog
//! (`blocks::names_consent`: `onetrust-consent-sdk`, `cookie-banner`, Cookiebot's, Didomi's,
//! ...) is barred when that element holds under half the page's tokens, or is a consent
//! manager's own container beside the page's `main`, `article` or `h1` whatever its size.
//! Barred text is out before the rules that read what is kept (a listing's "no prose"
//! test), and out of what they bring in.
//!
//! **Why.** Its text is prose the model may keep, and no gold keeps it.
//!
//! **Example.** `<div id='onetrust-consent-sdk'><p>We use cookies to improve your
//! experience.</p><button>Accept</button></div>` after a story: both blocks dropped.
//!
//! **Switch.** `consent=drop`, the default; `consent=auto` leaves it to the model.

use super::{Context, Setting};
use crate::page::blocks::{ConsentName, ElemId, PageBlocks};

/// The rule: the page's consent dialogs.
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    Some(in_consent_dialog(cx.pb))
}

/// Per block, whether it lies in a cookie-consent dialog: under an element named for
/// one (`consent`) that holds under half of the page's tokens (a `body` class
/// `cookies-accepted` names the page's state, not a dialog), or under a consent
/// manager's own container ([`ConsentName::Manager`]) that holds none of the page's
/// `main`, `article` and `h1` elements while the page has one. A manager's settings
/// panel, its purposes and vendors spelt out, may hold more text than a listing page
/// of linked titles; a site's own element (`cookie-policy`) may be its page's text.
pub(super) fn in_consent_dialog(pb: &PageBlocks) -> Vec<bool> {
    if pb.consent.iter().all(|&c| c == ConsentName::No) {
        return vec![false; pb.elem.len()];
    }
    let tokens = pb.subtree_sums(|b| pb.tokens[b]);
    let total: usize = pb.tokens.iter().sum();
    let landmark = |e: ElemId| matches!(pb.tags[e].as_str(), "main" | "article" | "h1");
    let landmarks = pb.element_sums(landmark);
    let all_landmarks = pb.elems().filter(|&e| landmark(e)).count();
    let inside = pb.under(|e| match pb.consent[e] {
        ConsentName::No => false,
        ConsentName::Named => 2 * tokens[e] < total,
        ConsentName::Manager => 2 * tokens[e] < total || (all_landmarks > 0 && landmarks[e] == 0),
    });
    pb.elem.iter().map(|&e| inside[e]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{kept, page};

    #[test]
    fn a_consent_dialog_holds_its_blocks_unless_it_holds_most_of_the_page() {
        let story = "<article><h1>Tides</h1><p>The tide comes in twice a day, and the bay \
                     fills in an hour with water from the open sea beyond the cape.</p></article>";
        let dialog = "<div id='onetrust-consent-sdk'><p>We use cookies to improve your \
                      experience.</p><button>Accept</button></div>";
        let (pb, _, _) = page(&format!("{story}{dialog}"), &[]);
        let inside = in_consent_dialog(&pb);
        assert_eq!(
            kept(&pb, &inside),
            ["We use cookies to improve your experience.", "Accept"]
        );
        // a page wrapped whole in an element so named (a state class on the wrapper)
        let (pb, _, _) = page(
            &format!("<div class='cookie-consent-accepted'>{story}{dialog}</div>"),
            &[],
        );
        let inside = in_consent_dialog(&pb);
        assert_eq!(
            kept(&pb, &inside),
            ["We use cookies to improve your experience.", "Accept"]
        );
    }

    #[test]
    fn a_consent_managers_panel_beside_the_pages_heading_is_a_dialog_whatever_its_size() {
        // a listing of short linked titles under its heading, and a settings panel that
        // spells out every purpose: the panel holds most of the page's text
        let cards: String = (1..=4)
            .map(|i| format!("<a href='/r{i}'>Tomato sauce recipe number {i}</a>"))
            .collect();
        let purposes = "<p>We and our partners store and access information on a device, \
                        such as cookies, and process personal data such as unique \
                        identifiers for personalised advertising and content.</p>"
            .repeat(4);
        let listing = format!("<main><h1>Tomato sauce recipes</h1>{cards}</main>");
        let panel = |class: &str| format!("<div class='{class}'>{purposes}</div>");
        let (pb, _, _) = page(&format!("{listing}{}", panel("onetrust-pc-sdk")), &[]);
        let inside = in_consent_dialog(&pb);
        assert_eq!(kept(&pb, &inside).len(), 4);
        assert!(!kept(&pb, &inside).iter().any(|t| t.starts_with("Tomato")));
        // a site's own element so named may be its page's text (a cookie policy)
        let (pb, _, _) = page(&format!("{listing}{}", panel("cookie-policy")), &[]);
        assert!(!in_consent_dialog(&pb).contains(&true));
        // a manager's name around the page's heading is no dialog beside it
        let (pb, _, _) = page(
            &format!("<div class='onetrust-pc-sdk'>{listing}{purposes}</div>"),
            &[],
        );
        assert!(!in_consent_dialog(&pb).contains(&true));
    }
}
