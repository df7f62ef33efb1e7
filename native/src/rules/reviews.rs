//! `reviews=drop` (take-out): on a product page, the customer reviews are dropped.
//!
//! **What.** On a page that declares a product and no story (`kind::PageKind::product`:
//! `og:type` product, a JSON-LD Product), the blocks in an element named for reviews or
//! testimonials, or a review widget's name (Yotpo, Bazaarvoice, Trustpilot, ...), are
//! dropped, unless the element holds the page's main block (`toolkit::inside_sections`): a
//! shop's page whose main text the model finds in a review keeps it.
//!
//! **Why.** A model that learnt from stories reads a shop's customer reviews as it reads a
//! story's paragraphs (prose, full sentences) and keeps them. Of the three-word runs in
//! elements named for reviews on the pages declaring a product, 10 % are in wcxb's gold
//! (its product pages keep the description and the specifications; docs/lab/loco.md, "Customer
//! reviews and modal dialogs"). An editorial review is a story in an element named
//! `review`, hence the product gate.
//!
//! **Example.** A trail pack's page: its description kept, "The straps are a game changer,
//! so comfortable on a long climb" under `<section id='reviews'>` dropped.
//!
//! **Switch.** `reviews=drop`, the default; `reviews=auto` leaves them to the model.

use std::sync::OnceLock;

use regex::Regex;

use super::toolkit::{inside_sections, section_names};
use super::{Context, Setting};
use crate::page::blocks::PageBlocks;
use crate::read::dom::View;

/// Names of a product's customer reviews: the words, and the review widgets shops embed.
fn review_name() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(^|[^a-z])(reviews?|testimonials?|yotpo|bazaarvoice|okendo|judgeme|stamped|trustpilot)([^a-z]|$)",
        )
        .unwrap()
    })
}

/// The rule: the reviews beside the main block of what the model and the bring-in rules
/// kept.
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    Some(product_reviews(cx.pb, cx.view, cx.kept, cx.prob))
}

/// Per block, whether it is one of a product's customer reviews: on a page declaring a
/// product, in an element named for reviews that does not hold the main block.
pub(super) fn product_reviews(
    pb: &PageBlocks,
    view: &View,
    likely: &[bool],
    prob: &[f64],
) -> Vec<bool> {
    if !pb.kind.product {
        return vec![false; likely.len()];
    }
    let named = review_name();
    inside_sections(
        pb,
        likely,
        prob,
        |e| named.is_match(&section_names(view, e)),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{flagged, read, surest};

    const PRODUCT_LD: &str = "<script type='application/ld+json'>\
        {\"@context\":\"https://schema.org\",\"@type\":\"Product\",\"name\":\"Trail pack\"}</script>";

    fn shop_page(head: &str) -> String {
        format!(
            "<html><head>{head}</head><body><main>\
             <h1>Trail pack 25</h1>\
             <div class='product-description'><p>A light pack for day hikes, with a padded \
             back panel, a hip belt and a pocket for a water bladder of three litres.</p></div>\
             <section id='reviews' class='product-reviews'>\
               <div class='review'><p>The straps are a game changer, so comfortable on a long \
               climb, and the pockets hold everything I need for the day.</p></div>\
               <div class='review'><p>Not what I expected: the zip broke on the second trip \
               and the fabric frays at the seams after a month.</p></div>\
             </section></main></body></html>"
        )
    }

    /// The description the surest block, the reviews half-believed.
    fn probs(pb: &PageBlocks) -> (Vec<bool>, Vec<f64>) {
        surest(pb, "A light pack")
    }

    #[test]
    fn a_declared_products_customer_reviews_are_a_section() {
        let (pb, view) = read(&shop_page(PRODUCT_LD));
        assert!(pb.kind.product && !pb.kind.story);
        let (likely, prob) = probs(&pb);
        let out = product_reviews(&pb, &view, &likely, &prob);
        assert_eq!(flagged(&pb, &out), ["The straps are", "Not what I"]);
        // a page declaring no product: the model decides (an editorial review's page, a
        // service's testimonials the gold keeps)
        let (pb, view) = read(&shop_page(""));
        assert!(!pb.kind.product);
        assert!(!product_reviews(&pb, &view, &likely, &prob)
            .iter()
            .any(|&f| f));
    }

    #[test]
    fn a_review_holding_the_main_block_is_the_page_not_a_section() {
        // a shop's page whose main text the model finds in a review: it stays the model's
        let (pb, view) = read(&shop_page(PRODUCT_LD));
        let prob: Vec<f64> = pb
            .text
            .iter()
            .map(|t| {
                if t.starts_with("The straps") {
                    0.95
                } else {
                    0.5
                }
            })
            .collect();
        let out = product_reviews(&pb, &view, &vec![true; prob.len()], &prob);
        assert_eq!(flagged(&pb, &out), ["Not what I"]);
    }
}
