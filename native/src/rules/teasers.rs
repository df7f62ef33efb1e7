//! `teasers=drop` (take-out): a stream of headline + teaser records beside a declared story
//! is dropped.
//!
//! **What.** On a page that declares itself a story ([`crate::page::kind::PageKind::story`]:
//! `og:type` `article`, a JSON-LD `Article` type), where the kept text holds prose, a run of
//! alike records (`toolkit::runs`: one parent, one record kind) is dropped whole when
//! - none of its records holds the main block, and its parent holds it not either: the
//!   stream lies beside the story's text, not among its sections;
//! - each record holds `MAX_TEASER_BLOCKS` text blocks at most, and `MIN_TEASERS` or more;
//! - three in four of its records are a headline (the first text block: 3+ tokens, 80 % or
//!   more link text, to the page's own site) over a teaser (a later block of 8+ tokens, at
//!   most 20 % link text).
//!
//! A stream's headlines lead to the site's other stories; a "best of" story's sections,
//! written the same way, lead to shops (`PageBlocks::away_chars`), and stay. Pages that
//! declare no story are left alone: a product page's tiles of "Learn more" links, a
//! documentation section's self-linked headings and a listing's items are written the same
//! way, and there they are the page.
//!
//! **Why.** The model learnt that sentences are content and keeps the teasers; no gold
//! keeps another story's teaser (`docs/lab/loco.md` has the figures).
//!
//! **Example.** Below or beside a story, "latest", "more from", "recommended": each a linked
//! headline over a sentence or two of teaser.
//!
//! **Switch.** `teasers=drop`, the default; `teasers=auto` leaves the stream to the model.

use super::toolkit::{blocks_by_elem, holding, keeps_prose, main_block, runs};
use super::{Context, Setting};
use crate::page::blocks::{BlockId, PageBlocks};

/// Records a run holds at least before it is a stream.
pub(super) const MIN_TEASERS: usize = 4;
/// Text blocks a teaser record holds at most (a headline, a teaser, a byline or a date).
pub(super) const MAX_TEASER_BLOCKS: usize = 3;

/// The rule: the streams beside the story the model and the bring-in rules kept (read
/// after the rules that add to it).
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    Some(beside_story(cx.pb, cx.kept, cx.prob))
}

/// The blocks of the runs of headline + teaser records beside the kept story.
pub(super) fn beside_story(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    let mut out = vec![false; likely.len()];
    if !pb.kind.story {
        return out;
    }
    if !keeps_prose(pb, likely) {
        return out;
    }
    let Some(main) = main_block(pb, likely, prob) else {
        return out;
    };
    let holds_main = holding(pb, main);
    let by_elem = blocks_by_elem(pb);
    let chars = |b: BlockId| pb.text_chars(b).max(1) as f64;
    let links = |b: BlockId| pb.link_chars[b] as f64;
    let home_links = |b: BlockId| (pb.link_chars[b] - pb.away_chars[b]) as f64;
    for ((up, _), records) in runs(pb) {
        if records.len() < MIN_TEASERS
            || holds_main.contains(&up)
            || records.iter().any(|e| holds_main.contains(e))
        {
            continue;
        }
        // each record's text blocks and their tokens, in page order (a record's subtree)
        let blocks_of: Vec<Vec<(BlockId, usize)>> = records
            .iter()
            .map(|&r| {
                by_elem[r.index()..pb.subtree_end(r)]
                    .iter()
                    .flatten()
                    .map(|&b| (b, pb.tokens[b]))
                    .filter(|&(_, n)| n > 0)
                    .collect()
            })
            .collect();
        let teasers = blocks_of
            .iter()
            .filter(|bs| {
                let Some((&(h, nh), rest)) = bs.split_first() else {
                    return false;
                };
                bs.len() <= MAX_TEASER_BLOCKS
                    && nh >= 3
                    && home_links(h) >= 0.8 * chars(h)
                    && rest
                        .iter()
                        .any(|&(b, n)| n >= 8 && links(b) <= 0.2 * chars(b))
            })
            .count();
        if 4 * teasers >= 3 * records.len() {
            for &(b, _) in blocks_of.iter().flatten() {
                out[b] = true;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{kept, page};

    const STORY: &str = "The council voted on Monday to keep the old harbour bridge open to \
                         cyclists and walkers through the winter, after a long debate in which \
                         the fishermen who use the quay every morning asked for the ramp to stay \
                         as it is until the spring repairs.";

    fn stream(n: usize) -> String {
        (0..n)
            .map(|i| {
                format!(
                    "<li class='item'><h3><a href='/news/{i}'>Another story number {i} of the day</a></h3>\
                     <p>A teaser of a story elsewhere on the site, told in one sentence {i}.</p></li>"
                )
            })
            .collect()
    }

    fn story_page(n: usize) -> String {
        format!(
            "<div class='body'><h1>Bridge stays open</h1><p>{STORY}</p><p>{STORY}</p></div>\
             <ul class='stream'>{}</ul>",
            stream(n)
        )
    }

    #[test]
    fn a_stream_of_headlines_and_teasers_beside_a_declared_story_goes() {
        let (mut pb, likely, prob) = page(
            &story_page(6),
            &["Bridge", "The council", "Another", "A teaser"],
        );
        pb.kind.story = true;
        let gone = beside_story(&pb, &likely, &prob);
        let left: Vec<bool> = likely.iter().zip(&gone).map(|(&k, &g)| k && !g).collect();
        assert_eq!(kept(&pb, &left), ["Bridge stays open", STORY, STORY]);
        // a page that declares no story keeps them; so does a run of three
        pb.kind.story = false;
        assert!(!beside_story(&pb, &likely, &prob).contains(&true));
        let (mut pb, likely, prob) = page(
            &story_page(3),
            &["Bridge", "The council", "Another", "A teaser"],
        );
        pb.kind.story = true;
        assert!(!beside_story(&pb, &likely, &prob).contains(&true));
    }

    #[test]
    fn headlines_leading_to_shops_are_no_stream() {
        let html = story_page(6).replace("href='/news/", "href='https://shop.example.org/p/");
        let a = crate::read::parse::parse(&html);
        let view = crate::read::dom::build_view(&a, a.html_child("body").unwrap());
        let mut pb = crate::page::blocks::walk(&view, None, Some("https://news.example.com/story"));
        pb.kind.story = true;
        let likely: Vec<bool> = vec![true; pb.text.len()];
        let prob: Vec<f64> = vec![0.9; pb.text.len()];
        assert!(!beside_story(&pb, &likely, &prob).contains(&true));
    }

    #[test]
    fn a_storys_own_sections_with_linked_headings_stay() {
        // the sections of a "best of" story under the story's own container: each a linked
        // heading over its text
        let items = stream(6)
            .replace("<li class='item'>", "<div class='item'>")
            .replace("</li>", "</div>");
        let html = format!(
            "<div class='body'><h1>Bridge stays open</h1><p>{STORY}</p><p>{STORY}</p>{items}</div>"
        );
        let (mut pb, likely, prob) = page(&html, &["Bridge", "The council", "Another", "A teaser"]);
        pb.kind.story = true;
        assert!(!beside_story(&pb, &likely, &prob).contains(&true));
    }
}
