//! Sections a page names for what is never its main text, whatever the model says
//! (`reviews=drop`, `dialogs=drop`, `hidden=drop`): a product's customer reviews, a modal
//! dialog, and what a hiding utility class hides.
//!
//! A model that learnt from stories reads a shop's customer reviews as it reads a story's
//! paragraphs (prose, full sentences), and a privacy policy or a size guide in a modal
//! dialog as it reads a long text: it keeps them. No gold keeps them. Of the three-word
//! runs in elements named for reviews on the pages declaring a product, 10 % are in wcxb's
//! gold (its product pages keep the description and the specifications); of those in
//! elements named for a modal dialog, 4 % are in wcxb's and 0.5-12 % in the older corpora's
//! golds (docs/lab/loco.md, "Customer reviews and modal dialogs").
//!
//! Names say what a section is, not where the page's text is: an editorial review is a
//! story in an element named `review`, and a page may open its article in a lightbox. So
//! neither section ever holds the page's main block (`records::main_block` of what the
//! rules kept), and reviews are sections only on a page that declares a product and no
//! story (`kind::PageKind::product`). A dialog the page keeps in its header or footer is
//! the exception: page chrome never holds the page, so there the dialog is a section
//! whatever it holds, and the main block is looked for outside it.

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

/// Per block, whether it lies in an element `section` holds true of that does not hold
/// the page's main block (of `likely`, by `prob`). Elements `never_main` marks (with
/// everything under them) are sections whatever they hold, and the main block is the
/// likely block of most weight outside them.
fn inside_sections(
    pb: &PageBlocks,
    likely: &[bool],
    prob: &[f64],
    section: impl Fn(usize) -> bool,
    never_main: Option<&[bool]>,
) -> Vec<bool> {
    let never = |e: usize| never_main.is_some_and(|n| n[e]);
    let candidates: Vec<bool> = (0..likely.len())
        .map(|b| likely[b] && !never(pb.elem[b]))
        .collect();
    let holds_main: HashSet<usize> =
        main_block(pb, &candidates, prob).map_or_else(HashSet::new, |m| holding(pb, m));
    let inside = pb.under(|e| never(e) || (!holds_main.contains(&e) && section(e)));
    pb.elem.iter().map(|&e| inside[e]).collect()
}

/// Per block, whether it is one of a product's customer reviews: on a page declaring a
/// product, in an element named for reviews that does not hold the main block.
pub fn product_reviews(pb: &PageBlocks, view: &View, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    if !pb.kind.product {
        return vec![false; likely.len()];
    }
    let named = review_name();
    inside_sections(pb, likely, prob, |e| named.is_match(&names(view, e)), None)
}

/// Per block, whether it is in a modal dialog (named `modal`, `popup` or `lightbox`, or of
/// role `dialog`) that does not hold the main block.
///
/// A dialog the page keeps in its `<header>` or `<footer>` is never the page, whatever it
/// holds: a shop's footer links open the privacy policy or the size guide in a modal
/// placed there, and a policy of 6,000 words outweighs a product's own text, so the main
/// block is found outside such dialogs (docs/lab/loco.md, "Text a class hides, and dialogs in
/// the page's header or footer").
pub fn modal_dialogs(pb: &PageBlocks, view: &View, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    let named = dialog_name();
    let dialog: Vec<bool> = (0..pb.parent.len())
        .map(|e| named.is_match(&names(view, e)))
        .collect();
    let chrome = pb.under(|e| matches!(pb.tags[e].as_str(), "header" | "footer"));
    let chrome_dialogs = pb.under(|e| chrome[e] && dialog[e]);
    inside_sections(pb, likely, prob, |e| dialog[e], Some(&chrome_dialogs))
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
pub fn hidden_by_class(pb: &PageBlocks, view: &View, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    let hidden = |e: usize| {
        let el = &view.elems[view.preorder[e] as usize];
        el.has_attrs && el.get("class").is_some_and(hides)
    };
    inside_sections(pb, likely, prob, hidden, None)
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

    /// Every block likely: the one starting with `surest` at 0.95, the rest half-believed.
    fn surest(pb: &PageBlocks, surest: &str) -> (Vec<bool>, Vec<f64>) {
        let prob: Vec<f64> = pb
            .text
            .iter()
            .map(|t| if t.starts_with(surest) { 0.95 } else { 0.6 })
            .collect();
        (vec![true; prob.len()], prob)
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
