//! `slideshows=drop` (take-out): a numbered slideshow beside the main text is dropped.
//!
//! **What.** A slideshow is the lowest element holding a run of at least `MIN_COUNTERS`
//! counters (blocks `k/N`, or `k of N` with one short word between the numbers, one N and k
//! rising by one) of a slideshow of at least `MIN_SLIDES` slides. It is dropped whole when
//! it lies beside a text of the page's own: the kept blocks outside it of a sentence's
//! length (`SENTENCE_TOKENS`) hold `MIN_OWN_TOKENS` or more. The captions may outweigh the
//! story (40 slides of 25 words beside 300 words), so neither the page's longest block nor
//! its most text tells which is the main text; the story's own length does. A gallery page,
//! whose captions are its main text and whose intro is short, and a product's carousel of
//! 3-6 feature slides (wcxb) keep what the model says.
//!
//! **Why.** Its captions are sentences, so the model, which reads each block's text and
//! surroundings, keeps them at p 0.6-0.96; every gold corpus that has such pages leaves them
//! out. What sets them apart on any site and in any language is the counter
//! (`docs/lab/loco.md` has the figures).
//!
//! **Example.** A news site's "World news in pictures" under a story: 30-50 slides, each a
//! counter `1/44`, a caption and a credit.
//!
//! **Switch.** `slideshows=drop`, the default; `slideshows=auto` leaves it to the model.

use super::{Context, Setting};
use crate::page::blocks::{BlockId, PageBlocks};

/// A slideshow states at least this many slides (product carousels and a story's own few
/// photos state fewer).
pub(super) const MIN_SLIDES: u32 = 10;
/// Counters of one slideshow the page holds at least.
pub(super) const MIN_COUNTERS: usize = 3;
/// Kept blocks of at least this many tokens outside a slideshow are the page's own text...
pub(super) const SENTENCE_TOKENS: usize = 10;
/// ...and a slideshow beside a page's own text of at least this many tokens is dropped.
pub(super) const MIN_OWN_TOKENS: usize = 100;
/// A counter's block is at most this long (a date or a "Photo" label may follow it).
const MAX_COUNTER_CHARS: usize = 40;

/// `(k, n)` of a counter block: its first line is `k/n`, `k / n` or `k of n` (one word of
/// up to four letters between the numbers: of, de, von, di, sur, из), 1 <= k <= n.
pub(super) fn counter(text: &str) -> Option<(u32, u32)> {
    // (every block of every page comes here: stop counting past the bound)
    if text.chars().nth(MAX_COUNTER_CHARS).is_some() {
        return None;
    }
    let line = text.trim().lines().next()?.trim();
    let (k, used) = number(line)?;
    let rest = line[used..].trim_start();
    let rest = if let Some(r) = rest.strip_prefix('/') {
        r
    } else {
        let word_end = rest
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(rest.len());
        let word = &rest[..word_end];
        let letters = word.chars().count();
        if !(1..=4).contains(&letters) || !rest[word_end..].starts_with(' ') {
            return None;
        }
        &rest[word_end..]
    };
    let rest = rest.trim_start();
    let (n, used) = number(rest)?;
    (used == rest.len() && 1 <= k && k <= n).then_some((k, n))
}

/// The number of one to three digits `s` starts with, and its length.
fn number(s: &str) -> Option<(u32, usize)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if !(1..=3).contains(&end) {
        return None;
    }
    Some((s[..end].parse().ok()?, end))
}

/// The runs of counters in block order: one N, k rising by one, `MIN_COUNTERS` or more, of
/// a slideshow of `MIN_SLIDES` or more (the blocks of each run's counters).
fn counter_runs(pb: &PageBlocks) -> Vec<Vec<BlockId>> {
    let mut runs = Vec::new();
    let mut run: Vec<BlockId> = Vec::new();
    let mut last: Option<(u32, u32)> = None;
    for (b, text) in pb.blocks().zip(&pb.text) {
        let Some((k, n)) = counter(text).filter(|&(_, n)| n >= MIN_SLIDES) else {
            continue;
        };
        if last.is_some_and(|(lk, ln)| ln == n && k == lk + 1) {
            run.push(b);
        } else {
            if run.len() >= MIN_COUNTERS {
                runs.push(std::mem::take(&mut run));
            }
            run = vec![b];
        }
        last = Some((k, n));
    }
    if run.len() >= MIN_COUNTERS {
        runs.push(run);
    }
    runs
}

/// The rule: the slideshows beside what the model and the bring-in rules kept.
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    Some(beside_main(cx.pb, cx.kept))
}

/// Per block, whether a slideshow beside the page's own text holds it (see the module's
/// note; `likely`: the blocks kept so far).
pub(super) fn beside_main(pb: &PageBlocks, likely: &[bool]) -> Vec<bool> {
    let mut out = vec![false; likely.len()];
    for run in counter_runs(pb) {
        let Some(show) = pb.lowest_common(run.iter().map(|&b| pb.elem[b])) else {
            continue;
        };
        let in_show = pb.subtree(show);
        let inside: Vec<bool> = pb.elem.iter().map(|&e| in_show[e]).collect();
        let own: usize = BlockId::all(likely.len())
            .filter(|&b| likely[b] && !inside[b])
            .map(|b| pb.tokens[b])
            .filter(|&n| n >= SENTENCE_TOKENS)
            .sum();
        if own < MIN_OWN_TOKENS {
            continue;
        }
        for (o, i) in out.iter_mut().zip(&inside) {
            *o |= *i;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{kept as dropped, page as page_of};

    /// The page's blocks and `likely` (the blocks starting with one of `sure`).
    fn page(html: &str, sure: &[&str]) -> (PageBlocks, Vec<bool>) {
        let (pb, likely, _) = page_of(html, sure);
        (pb, likely)
    }

    /// A story of 4 paragraphs, 110 tokens.
    const STORY: &str = concat!(
        "<article><h1>Phone review</h1><p>The phone is long reviewed here, in words enough ",
        "for a story: its screen, its battery, its camera and its price are each weighed ",
        "against the rivals it meets in the shops this spring.</p><p>Its screen is bright in ",
        "the sun and its battery lasts two days of calls, maps and music, which few phones ",
        "at its price can claim.</p><p>Its camera is the weak part: photos at night are dark ",
        "and soft, and the zoom does little more than crop the picture it takes.</p><p>Buy it ",
        "for the screen and the battery, and keep the camera you have for the evenings out ",
        "and the photos that matter to you.</p></article>"
    );

    fn gallery(n: u32, shown: u32, sep: &str) -> String {
        let slides: String = (1..=shown)
            .map(|k| {
                format!(
                    "<li><div class='count'>{k}{sep}{n}</div><p>A robot waves at a fair in \
                     city {k}, where engineers show it to the crowd</p><span>Reuters</span></li>"
                )
            })
            .collect();
        format!("<section><h2>World news in pictures</h2><ul>{slides}</ul></section>")
    }

    #[test]
    fn counters_are_read_in_their_common_forms() {
        assert_eq!(counter("1/44"), Some((1, 44)));
        assert_eq!(counter(" 12 / 31\n18 October 2017"), Some((12, 31)));
        assert_eq!(counter("3 of 18"), Some((3, 18)));
        assert_eq!(counter("3 de 18"), Some((3, 18)));
        for not in [
            "3/2",
            "0/5",
            "1/",
            "a/5",
            "1 2",
            "1 between 5",
            "12/31/2017",
            "1/44 photos of robots at the fair",
        ] {
            assert_eq!(counter(not), None, "{not}");
        }
    }

    #[test]
    fn a_gallery_beside_a_story_is_dropped_whole() {
        let html = format!("{STORY}{}", gallery(44, 5, "/"));
        let sure = [
            "Phone review",
            "The phone",
            "Its",
            "Buy",
            "1/",
            "2/",
            "A robot",
            "Reuters",
        ];
        let (pb, likely) = page(&html, &sure);
        let got = beside_main(&pb, &likely);
        let gone = dropped(&pb, &got);
        assert_eq!(gone.len(), 15, "{gone:?}"); // 5 slides x (counter, caption, credit)
        assert!(gone
            .iter()
            .all(|t| !t.starts_with("The phone") && !t.starts_with("World")));
    }

    #[test]
    fn a_gallery_page_a_carousel_and_unnumbered_slides_stay_the_models_call() {
        // the captions are the page's main text: no prose beside the gallery
        let (pb, likely) = page(&gallery(44, 5, " of "), &["A robot"]);
        assert!(!beside_main(&pb, &likely).contains(&true));
        // a product's carousel of four slides
        let html = format!("{STORY}{}", gallery(4, 4, "/"));
        let (pb, likely) = page(&html, &["The phone", "Its", "Buy", "A robot"]);
        assert!(!beside_main(&pb, &likely).contains(&true));
        // counters that do not follow one another
        let html = format!("{STORY}{}", gallery(44, 5, "/").replace(">3/44<", ">9/44<"));
        let (pb, likely) = page(&html, &["The phone", "Its", "Buy", "A robot"]);
        let got = beside_main(&pb, &likely);
        assert!(!got.contains(&true), "{:?}", dropped(&pb, &got));
    }

    #[test]
    fn a_slideshow_holding_the_story_is_not_beside_it() {
        // the counters' lowest common element, the <ul>, holds the story too
        let html = gallery(44, 5, "/").replace("<ul>", &format!("<ul><li>{STORY}</li>"));
        let (pb, likely) = page(&html, &["The phone", "Its", "Buy", "A robot"]);
        let got = beside_main(&pb, &likely);
        assert!(!got.contains(&true), "{:?}", dropped(&pb, &got));
    }
}
