//! `articles=keep` (bring-in): where the kept text holds no prose, the prose of the
//! `<article>` holding the main block is kept; on a page declaring no story, so are that
//! article's sentences the model half-believes.
//!
//! **What.** Where the model kept no prose at all (no likely block of `PROSE_TOKENS`) and
//! its main block, a heading say, lies in an `<article>`, that article's prose-length
//! blocks of little link text (`MAX_LINK_SHARE`), outside its share bars and the like
//! (`toolkit::beside_main`), are kept. On a page that declares no story (no `og:type`
//! article, no JSON-LD `Article`), the same article's blocks of a sentence or more
//! (`SENTENCE_TOKENS`) that the model half-believes (from `unseen::HALF_BELIEF` of the cut)
//! are kept too, beside kept prose or not. A story page whose kept text holds prose keeps
//! what the model says; so does a page whose main block is in no `<article>` (a `<main>`
//! holds a shop's fine print and a product's reviews as well).
//!
//! **Why.** A page says where its story is when it puts it in an `<article>` element:
//! HTML's own name for a self-contained composition. Its prose the model missed is text
//! unlike the stories it learnt from (a language or a filler whose words it does not
//! know), not a page without one. Such text sits near the cut, where a retrain with other
//! draws or fewer trees moves it across: a page of three paragraphs in an `<article>` keeps
//! two or three of them by chance (docs/lab/experiments.md, "Fewer stage-2 forests"). A
//! page declaring a story is left its near misses: there they are as often the story's
//! asides the gold leaves out (chaos's `space-9`), and the model learnt from such pages.
//!
//! **Example.** An `<article>` of a heading and paragraphs of lorem ipsum, the model sure of
//! the heading alone: the paragraphs are kept, not the article's share bar nor a paragraph
//! that is one link; the model sure of two paragraphs and doubtful (0.23 at a cut of 0.26)
//! of the third, on a page declaring nothing: the third is kept too.
//!
//! **Switch.** `articles=keep`, the default; `articles=auto` leaves it to the model.

use super::toolkit::{beside_main, brought_in, keeps_prose, main_block, PROSE_TOKENS};
use super::unseen::HALF_BELIEF;
use super::{Context, Setting};
use crate::page::blocks::PageBlocks;

/// A block more than this share of whose characters are link text is no story's prose.
pub(super) const MAX_LINK_SHARE: f64 = 0.3;
/// Beside kept prose, an article's block of this many tokens is a sentence or more of it.
const SENTENCE_TOKENS: usize = 15;

/// The rule: the prose `prose` brings in (none on a page cut at infinity, which is sure to
/// have no main content, and so no article text either), half belief at `HALF_BELIEF` of
/// the page's cut.
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    let half = HALF_BELIEF * cx.cut;
    let more = cx
        .cut
        .is_finite()
        .then(|| prose(cx.pb, cx.kept, cx.prob, half))?;
    Some(brought_in(cx.kept, more))
}

/// `likely` with the prose of the `<article>` holding the main block where the kept text
/// holds no prose, and on a page declaring no story with the article's sentences of
/// probability `half` or more (`prob` also picks the main block).
pub(super) fn prose(pb: &PageBlocks, likely: &[bool], prob: &[f64], half: f64) -> Vec<bool> {
    let mut out = likely.to_vec();
    let no_prose = !keeps_prose(pb, likely);
    let near_misses = !pb.kind.story;
    if !(no_prose || near_misses) {
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
            && ((no_prose && pb.tokens[b] >= PROSE_TOKENS)
                || (near_misses && prob[b] >= half && pb.tokens[b] >= SENTENCE_TOKENS))
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
    use crate::testing::{kept, page, read};

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
        let got = kept(&pb, &prose(&pb, &likely, &prob, 0.5));
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
    fn kept_prose_on_a_story_or_no_article_leaves_the_model_alone() {
        let story = "<meta property='og:type' content='article'>";
        let html = format!(
            "<html><head>{story}</head><body><article><h1>A heading</h1><p>{LOREM}</p>\
             <p>{LOREM}</p></article></body></html>"
        );
        // prose kept on a page declaring a story: what the model says, near misses too
        let (pb, _) = read(&html);
        let mut one: Vec<bool> = pb.text.iter().map(|t| !t.starts_with("Lorem")).collect();
        one[1] = true;
        let prob: Vec<f64> = one.iter().map(|&k| if k { 0.9 } else { 0.2 }).collect();
        assert!(pb.kind.story);
        assert_eq!(prose(&pb, &one, &prob, 0.15), one);
        // a heading in a <main>, not an <article>
        let html = html.replace("article>", "main>");
        let (pb, likely, prob) = page(&html, &["A heading"]);
        assert_eq!(prose(&pb, &likely, &prob, 0.15), likely);
    }

    #[test]
    fn on_a_page_declaring_no_story_the_articles_half_believed_sentences_are_kept() {
        let short = "Duis aute irure dolor in reprehenderit in voluptate velit esse cillum \
                     dolore eu fugiat nulla pariatur.";
        let html = format!(
            "<html><body><article><h1>Lorem</h1><p>{LOREM}</p><p>{short}</p><p>{short} Two.</p>\
             <p>Tiny one.</p></article><p>{short} Outside.</p></body></html>"
        );
        let (pb, _) = read(&html);
        assert!(!pb.kind.story);
        // the heading and the first paragraph kept; the rest doubted alike
        let likely: Vec<bool> = (0..pb.text.len()).map(|b| b < 2).collect();
        let mut prob: Vec<f64> = likely.iter().map(|&k| if k { 0.9 } else { 0.2 }).collect();
        prob[3] = 0.1; // under half belief
        let got = kept(&pb, &prose(&pb, &likely, &prob, 0.15));
        // the second paragraph (a sentence, half-believed): not the one under half belief,
        // nor the tiny one, nor the paragraph outside the article
        assert_eq!(got, ["Lorem", LOREM, short], "{got:?}");
    }
}
