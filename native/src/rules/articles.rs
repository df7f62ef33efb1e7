//! `articles=keep` (bring-in): where the kept text holds no prose, the prose of the
//! `<article>` holding the main block is kept.
//!
//! **What.** Where the model kept no prose at all (no likely block of `PROSE_TOKENS`) and
//! its main block, a heading say, lies in an `<article>`, that article's prose-length
//! blocks of little link text (`MAX_LINK_SHARE`), outside its share bars and the like
//! (`toolkit::beside_main`), are kept. A page whose kept text holds prose keeps what the
//! model says; so does a page whose main block is in no `<article>` (a `<main>` holds a
//! shop's fine print and a product's reviews as well).
//!
//! **Why.** A page says where its story is when it puts it in an `<article>` element:
//! HTML's own name for a self-contained composition. Its prose the model missed is text
//! unlike the stories it learnt from (a language or a filler whose words it does not
//! know), not a page without one.
//!
//! **Example.** An `<article>` of a heading and paragraphs of lorem ipsum, the model sure of
//! the heading alone: the paragraphs are kept, not the article's share bar nor a paragraph
//! that is one link.
//!
//! **Switch.** `articles=keep`, the default; `articles=auto` leaves it to the model.

use super::toolkit::{beside_main, brought_in, keeps_prose, main_block, PROSE_TOKENS};
use super::{Context, Setting};
use crate::page::blocks::PageBlocks;

/// A block more than this share of whose characters are link text is no story's prose.
pub(super) const MAX_LINK_SHARE: f64 = 0.3;

/// The rule: the prose `prose` brings in (none on a page cut at infinity, which is sure to
/// have no main content, and so no article text either).
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    let more = cx.cut.is_finite().then(|| prose(cx.pb, cx.kept, cx.prob))?;
    Some(brought_in(cx.kept, more))
}

/// `likely` with the prose of the `<article>` holding the main block, where the kept text
/// holds no prose (`prob` picks the main block).
pub(super) fn prose(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    let mut out = likely.to_vec();
    if keeps_prose(pb, likely) {
        return out;
    }
    let Some(main) = main_block(pb, likely, prob) else {
        return out;
    };
    let Some(article) = pb
        .self_and_ancestors(pb.elem[main])
        .find(|&e| pb.tags[e] == "article")
    else {
        return out;
    };
    let inside = pb.subtree(article);
    for (b, e) in pb.block_elems() {
        if inside[e]
            && pb.tokens[b] >= PROSE_TOKENS
            && pb.link_chars[b] as f64 <= MAX_LINK_SHARE * pb.text_chars(b) as f64
            && !beside_main(pb, &Default::default(), e)
        {
            out[b] = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{kept, page};

    const LOREM: &str = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do \
                         eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad \
                         minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip \
                         ex ea commodo consequat. Duis aute irure dolor in reprehenderit in \
                         voluptate velit esse cillum dolore eu fugiat nulla pariatur.";

    #[test]
    fn an_articles_prose_is_kept_where_the_model_kept_only_its_heading() {
        let html = format!(
            "<nav><p>Home</p></nav><article><h1>A heading</h1><div>{LOREM}</div>\
             <div class='share'><p>{LOREM}</p></div><p><a href='/a'>{LOREM}</a></p>\
             <div>{LOREM}</div></article><footer><p>{LOREM}</p></footer>"
        );
        let (pb, likely, prob) = page(&html, &["A heading"]);
        let got = kept(&pb, &prose(&pb, &likely, &prob));
        // the heading and the two plain divs: not the share bar, the link, the footer
        assert_eq!(got.len(), 3, "{got:?}");
    }

    #[test]
    fn the_cleaner_says_an_article_brought_its_prose_in() {
        use crate::clean::pipeline::{prepare, verdicts, Cut};
        use crate::rules::{decided_by, Settings};
        let html = format!(
            "<html><body><article><h1>A heading</h1><div>{LOREM}</div></article></body></html>"
        );
        let p = prepare(&html, None, false, true).unwrap();
        let prob: Vec<f64> =
            p.pb.text
                .iter()
                .map(|t| if t == "A heading" { 0.9 } else { 0.05 })
                .collect();
        let lorem = p.view.preorder[p.pb.elem[1]].index();
        let cut = |articles| Cut {
            threshold: 0.5,
            balanced: 0.5,
            relative: 0.0,
            settings: Settings::parse([("articles", if articles { "keep" } else { "auto" })])
                .unwrap(),
        };
        let v = verdicts(&p, &prob, false, cut(true))[lorem].unwrap();
        assert!(v.content && v.section.map(decided_by) == Some("articles"));
        let v = verdicts(&p, &prob, false, cut(false))[lorem].unwrap();
        assert!(!v.content && v.section.is_none());
    }

    #[test]
    fn kept_prose_or_no_article_leaves_the_model_alone() {
        let html = format!("<article><h1>A heading</h1><p>{LOREM}</p><p>{LOREM}</p></article>");
        // prose kept: what the model says
        let (pb, likely, prob) = page(&html, &["A heading", "Lorem"]);
        let mut one = likely.clone();
        one[2] = false;
        assert_eq!(prose(&pb, &one, &prob), one);
        // a heading in a <main>, not an <article>
        let html = html.replace("article>", "main>");
        let (pb, likely, prob) = page(&html, &["A heading"]);
        assert_eq!(prose(&pb, &likely, &prob), likely);
    }
}
