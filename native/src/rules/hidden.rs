//! `hidden=drop` (bar): text a hiding utility class hides is dropped, and no other rule
//! counts it as the page's text.
//!
//! **What.** A block in an element whose class hides it at every width (`HIDING_CLASSES`:
//! `hide`, `hidden`, `d-none`, `is-hidden`, `js-hidden`, without a `md:block` or
//! `d-lg-block` that shows it again) is barred, unless that element holds the page's main
//! block (of what the model's cut keeps): a page its scripts show whole (a preloader's
//! `root hide`) stays the model's.
//!
//! **Why.** A browser shows no such text until a script or a click does; the model, which
//! reads the markup, cannot tell (docs/lab/loco.md, "Text a class hides, and dialogs in the
//! page's header or footer").
//!
//! **Example.** A promotion bar's variant for every country (`<div class='promo-bar
//! hide'>`), a tab not chosen, a template the page fills in.
//!
//! **Switch.** `hidden=drop`, the default; `hidden=auto` leaves it to the model.

use super::toolkit::inside_sections;
use super::{Context, Setting};
use crate::page::blocks::{ElemId, PageBlocks};
use crate::read::dom::View;

/// The rule: what a class hides, but for what holds the main block of the model's cut.
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    Some(hidden_by_class(cx.pb, cx.view, cx.kept, cx.prob))
}

/// Class words of the CSS frameworks' utilities that hide an element (`display: none`):
/// Bootstrap's `d-none`, `hide` and `hidden`, Tailwind's `hidden`, Foundation's `hide`,
/// Bulma's `is-hidden`, and the `js-hidden` of pages that show it from a script.
const HIDING_CLASSES: &[&str] = &["hide", "hidden", "d-none", "is-hidden", "js-hidden"];

/// Does a class attribute hide its element at every width: one of `HIDING_CLASSES` among
/// its words, and none that shows the element again at some width (Tailwind's `md:block`,
/// `show@medium`, Bootstrap's `d-lg-block`)?
fn hides(class: &str) -> bool {
    // (read on every classed element of every page: the words are walked, never collected)
    let words = || class.split_ascii_whitespace();
    let reshown = |w: &str| {
        w.contains(':')
            || w.contains('@')
            || w.starts_with("show")
            || ["d-sm-", "d-md-", "d-lg-", "d-xl-", "d-xxl-"]
                .iter()
                .any(|p| w.starts_with(p))
    };
    !words().any(reshown)
        && words().any(|w| HIDING_CLASSES.iter().any(|h| w.eq_ignore_ascii_case(h)))
}

/// Per block, whether a hiding utility class hides it (`hides`, on it or an ancestor) and
/// it does not hold the page's main block (of `likely`, by `prob`). A browser shows no such
/// text until a script or a click does: a promotion bar's variant for every country, a
/// tab not chosen, a template the page fills in. An element holding the main block is a
/// page its scripts show whole (a preloader's `root hide`), and stays the model's.
pub(super) fn hidden_by_class(
    pb: &PageBlocks,
    view: &View,
    likely: &[bool],
    prob: &[f64],
) -> Vec<bool> {
    let hidden = |e: ElemId| {
        let el = &view[view.preorder[e]];
        el.has_attrs && el.get("class").is_some_and(hides)
    };
    inside_sections(pb, likely, prob, hidden, None)
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
    fn a_hiding_utility_class_hides_at_every_width_unless_another_shows_it() {
        for class in [
            "hide",
            "promo-bar hide",
            "d-none",
            "hidden",
            "is-hidden",
            "js-hidden",
            "HIDE",
        ] {
            assert!(hides(class), "{class}");
        }
        for class in [
            "d-none d-lg-block",
            "hidden md:flex",
            "hide show@medium",
            "hidden-xs",
            "overflow-hidden",
            "hideaway",
            "",
        ] {
            assert!(!hides(class), "{class}");
        }
    }

    #[test]
    fn text_a_class_hides_is_out_unless_it_holds_the_main_block() {
        let html = "<html><body><div id='promoBar' class='promo-bar hide'>\
            <p>Free standard shipping on orders over 65 euros to every country of the union.</p>\
            <p>Free express shipping on orders over 900 kronor, see our international page.</p>\
            </div><main><h1>Trail pack 25</h1><p>A light pack for day hikes, with a padded back \
            panel, a hip belt and a pocket for a water bladder of three litres.</p></main>\
            <div class='d-none d-lg-block'><p>Shown on wide screens.</p></div></body></html>";
        let (pb, view) = read(html);
        let (likely, prob) = probs(&pb);
        let out = hidden_by_class(&pb, &view, &likely, &prob);
        assert_eq!(
            flagged(&pb, &out),
            ["Free standard shipping", "Free express shipping"]
        );
        // a page whose scripts show it whole: the hidden root holds the main block
        let html = "<html><body><div class='root hide'><main><p>A light pack for day hikes, \
            with a padded back panel and a hip belt.</p></main><p>Sign up.</p></div></body></html>";
        let (pb, view) = read(html);
        let (likely, prob) = probs(&pb);
        assert!(!hidden_by_class(&pb, &view, &likely, &prob)
            .iter()
            .any(|&f| f));
    }
}
