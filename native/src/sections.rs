//! Sections a page names for what is never its main text, whatever the model says
//! (`reviews=drop`, `dialogs=drop`): a product's customer reviews, and a modal dialog.
//!
//! A model that learnt from stories reads a shop's customer reviews as it reads a story's
//! paragraphs (prose, full sentences), and a privacy policy or a size guide in a modal
//! dialog as it reads a long text: it keeps them. No gold keeps them. Of the three-word
//! runs in elements named for reviews on the pages declaring a product, 10 % are in wcxb's
//! gold (its product pages keep the description and the specifications); of those in
//! elements named for a modal dialog, 4 % are in wcxb's and 0.5-12 % in the older corpora's
//! golds (docs/loco.md, "Customer reviews and modal dialogs").
//!
//! Names say what a section is, not where the page's text is: an editorial review is a
//! story in an element named `review`, and a page may open its article in a lightbox. So
//! neither section ever holds the page's main block (`records::main_block` of what the
//! rules kept), and reviews are sections only on a page that declares a product and no
//! story (`kind::PageKind::product`).

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;

use crate::blocks::PageBlocks;
use crate::dom::View;
use crate::records::{holding, main_block};

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

/// An element's names as the two patterns read them: class, id and itemprop, lowercased,
/// and `role-` its role.
fn names(view: &View, pb_elem: usize) -> String {
    let el = &view.elems[view.preorder[pb_elem] as usize];
    if !el.has_attrs {
        // (most elements: no name to read, and no string built for them)
        return String::new();
    }
    let mut out = ["class", "id", "itemprop"]
        .iter()
        .filter_map(|a| el.get(a))
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(role) = el.get("role") {
        out.push_str(" role-");
        out.push_str(&role.to_ascii_lowercase());
    }
    out
}

/// Per block, whether it lies in an element whose names `named` matches and that does not
/// hold the page's main block (of `likely`, by `prob`).
fn inside_named(
    pb: &PageBlocks,
    view: &View,
    likely: &[bool],
    prob: &[f64],
    named: &Regex,
) -> Vec<bool> {
    let holds_main: HashSet<usize> =
        main_block(pb, likely, prob).map_or_else(HashSet::new, |m| holding(pb, m));
    let inside = pb.under(|e| !holds_main.contains(&e) && named.is_match(&names(view, e)));
    pb.elem.iter().map(|&e| inside[e]).collect()
}

/// Per block, whether it is one of a product's customer reviews: on a page declaring a
/// product, in an element named for reviews that does not hold the main block.
pub fn product_reviews(pb: &PageBlocks, view: &View, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    if !pb.kind.product {
        return vec![false; likely.len()];
    }
    inside_named(pb, view, likely, prob, review_name())
}

/// Per block, whether it is in a modal dialog (named `modal`, `popup` or `lightbox`, or of
/// role `dialog`) that does not hold the main block.
pub fn modal_dialogs(pb: &PageBlocks, view: &View, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    inside_named(pb, view, likely, prob, dialog_name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::walk;
    use crate::dom::build_view;
    use crate::parse::parse;

    fn read(html: &str) -> (PageBlocks, View) {
        let arena = parse(html);
        let body = arena.html_child("body").expect("a body");
        let view = build_view(&arena, body);
        let mut pb = walk(&view, None, None);
        pb.kind = crate::kind::PageKind::read(&arena, None);
        (pb, view)
    }

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

    fn flagged(pb: &PageBlocks, out: &[bool]) -> Vec<String> {
        pb.text
            .iter()
            .zip(out)
            .filter(|(_, &f)| f)
            .map(|(t, _)| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .collect()
    }

    /// The description the surest block, the reviews half-believed.
    fn probs(pb: &PageBlocks) -> (Vec<bool>, Vec<f64>) {
        let prob: Vec<f64> = pb
            .text
            .iter()
            .map(|t| {
                if t.starts_with("A light pack") {
                    0.95
                } else {
                    0.6
                }
            })
            .collect();
        (vec![true; prob.len()], prob)
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
}
