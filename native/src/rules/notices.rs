//! `notices=drop` (bar): a notice a site stamps on its template is dropped, and no other
//! rule counts it as the page's text.
//!
//! **What.** A block whose whole text is an ad slot's label (`ad_label`: "Advertisement",
//! "Sponsored content", "Anzeige", "Publicité", with or without "Scroll to continue")
//! anywhere, and a copyright notice (`copyright_notice`: "© 2024 ...", "All rights
//! reserved") of at most `NOTICE_TOKENS` tokens in the page's footer, are barred; a photo's
//! "© Reuters" credit, outside the footer, is left alone.
//!
//! **Why.** Such a label marks an ad slot and such a notice the template: of 1,313 ad
//! labels in the shared corpora, 14 are in their gold.
//!
//! **Example.** "ADVERTISEMENT - CONTINUE READING BELOW" between a story's paragraphs;
//! "Copyright 2024 The Gazette. All rights reserved." in its `<footer>`.
//!
//! **Switch.** `notices=drop`, the default; `notices=auto` leaves them to the model.

use std::sync::OnceLock;

use regex::Regex;

use super::{Context, Setting};
use crate::page::blocks::{attr_flag, tag_bits, PageBlocks};

/// The rule: the page's notices.
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    Some(notices(cx.pb))
}

/// Per block, whether it is a notice a site stamps on its template, never main text: an
/// ad slot's label (`ad_label`) anywhere, or a copyright notice (`copyright_notice`)
/// in the page's footer (a `footer` element, a `contentinfo` role or a footer name), where
/// a photo's "© Reuters" credit never is.
pub(super) fn notices(pb: &PageBlocks) -> Vec<bool> {
    let (footer, footer_tag) = (attr_flag("footer"), tag_bits("footer"));
    let in_footer = pb.under(|e| pb.flags[e] & footer != 0 || pb.tag_flags[e] & footer_tag != 0);
    pb.text
        .iter()
        .zip(&pb.elem)
        .map(|(t, &e)| ad_label(t) || (in_footer[e] && copyright_notice(t)))
        .collect()
}

/// Is a block's whole text an advertising label: "Advertisement", "Sponsored content",
/// "Anzeige", "Publicité", "Реклама", "广告", or a label with its reading hint
/// ("Advertisement - Scroll to continue")? Such a label marks an ad slot; no gold text
/// keeps it (of 1,313 such blocks in the eight shared corpora, 14 are in their gold).
pub(super) fn ad_label(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)^\W*(advertisements?|advertising|advertorial|advert|ads?|sponsored( (content|links?|posts?|stories))?|paid (content|post)|anzeigen?|werbung|publicit[ée]|publicidad|pubblicit[àa]|reklama|реклама|广告|廣告|広告)(\W+(continue reading below|scroll to continue( with content)?|story continues below|article continues below))?\W*$",
        )
        .unwrap()
    })
    .is_match(text.trim())
}

/// Is a block's text a copyright notice: "© 2024 The Gazette", "Copyright 2024 ... All
/// rights reserved." (of at most `NOTICE_TOKENS` tokens)?
pub(super) fn copyright_notice(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^\W*(©|\(c\)|copyright\b)|all rights reserved|alle rechte vorbehalten|tous droits réservés|todos los derechos reservados").unwrap()
    });
    crate::text::count_tokens(text) <= NOTICE_TOKENS && re.is_match(text.trim())
}

/// A copyright notice is a line or two: a longer block starting with one is a page's terms.
pub(super) const NOTICE_TOKENS: usize = 40;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::page;

    #[test]
    fn an_advertising_label_is_told_from_text_about_ads() {
        for t in [
            "Advertisement",
            "ADVERTISEMENT",
            " Ad ",
            "Ads",
            "Sponsored content",
            "Anzeige",
            "Publicité",
            "Реклама",
            "广告",
            "Advertisement - Scroll to continue",
            "ADVERTISEMENT - CONTINUE READING BELOW",
        ] {
            assert!(ad_label(t), "{t}");
        }
        for t in [
            "Advertisement revenue fell by a third in 2023.",
            "Sponsored by the city council, the fair runs all week.",
            "Ad hoc",
            "Read more",
            "",
        ] {
            assert!(!ad_label(t), "{t}");
        }
    }

    #[test]
    fn a_copyright_notice_is_a_notice_in_the_footer_only() {
        let html = "<article><p>The quay reopens in May after six weeks of repairs.</p>\
                    <figure><figcaption>© Reuters</figcaption></figure>\
                    <p>Advertisement</p></article>\
                    <footer><p>Copyright 2024 The Gazette. All rights reserved.</p>\
                    <p>Contact us</p></footer>\
                    <div class='site-footer'><p>© 2024 Gazette Media Ltd</p></div>";
        let (pb, _, _) = page(html, &[]);
        assert_eq!(
            notices(&pb),
            [false, false, true, true, false, true],
            "{:?}",
            pb.text
        );
    }
}
