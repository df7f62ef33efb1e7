//! `unseen=keep` (bring-in): on a page unlike every page the model trained on, the blocks it
//! half-believes are kept.
//!
//! **What.** On a page `novelty` finds unlike the training pages, where even the kept
//! text's median probability is under `UNSURE_MEDIAN`, the blocks between the first and last
//! kept block that the model half-believes (`HALF_BELIEF` of the cut) are kept too, except
//! those beside the main text (navigation, header, footer, sidebar, comment, share or
//! related names: `toolkit::beside_main`). On a page that declares no story
//! ([`crate::page::kind::PageKind`]: no `og:type` `article`, no JSON-LD `Article`) the
//! half-believed blocks before the first and after the last kept block are kept too, on the
//! same terms: a service page's tiles and a listing's cards run on past the prose the model
//! believes, where a story's text ends and what follows it (more stories, a newsletter box)
//! is not its text.
//!
//! Where such a page, not a forum thread, kept no more than a listing's intro (one block of
//! prose at most and `listings::INTRO_TOKENS` in all, as `listings::listing` reads an
//! intro), the model found next to nothing it believes: a shop's category page whose product
//! cards, a sports site's schedule whose rows, a service page whose tiles it put at p
//! 0.02-0.15, as it learnt from stories to put a story's related links. There the fill needs
//! no median gate (the model may be sure of the little it keeps) and its floor is
//! `SCANT_FLOOR` of the cut: what the model does not rule out, outside the template, is the
//! page's content. A short post of two paragraphs is more than an intro, and a thread's
//! short posts are the listing rule's, its user cards no content (docs/lab/loco.md, "Pages that
//! kept next to nothing").
//!
//! Where the model found little of such a page (its kept text under `FOUND_LITTLE` of the
//! tokens outside the template, no kept block longer than a listing's intro) and is unsure
//! even of that, the half-believed floor falls to `DOUBT_FLOOR` of the cut: a product page
//! whose kept text is its name four times over and a warranty note, its feature blurbs at
//! p 0.05-0.2. A page whose story the model found (a kept block of more than
//! `listings::INTRO_TOKENS`), or most of whose text it keeps, keeps the higher floor: what
//! it doubts there is the template around a text it knows (docs/lab/loco.md, "Pages the model
//! found little of").
//!
//! **Why.** On a kind of page the model never saw, it recognises the template (navigation,
//! footer) with confidence but is unsure of everything in the main region. There its doubt
//! is not knowing, not knowledge: the region the kept blocks span says more than the blocks'
//! own probabilities. On a page of a kind the model learnt the same rule costs: its doubt
//! there is learnt (docs/lab/loco.md, "Pages unlike the training pages"), hence the novelty
//! gate.
//!
//! **Example.** A service page's prose at p 0.4-0.8 and, between those paragraphs, its
//! feature tiles, figures and calls to action at 0.15-0.35, all of it content.
//!
//! **Switch.** `unseen=keep`, the default; `unseen=auto` leaves them to the model (and no
//! page pays for the novelty search). A model file without a reference finds no page unlike
//! its own.

use foldhash::{HashSet, HashSetExt};

use super::listings::INTRO_TOKENS;
use super::toolkit::{beside_main, brought_in, holding, kept_text, main_block};
use super::{Context, Setting};
use crate::page::blocks::{BlockId, ElemId, PageBlocks};

/// The kept text's token-weighted median probability under this: the model is unsure even
/// of what it keeps (a news story's paragraphs sit at 0.95 and over).
pub(super) const UNSURE_MEDIAN: f64 = 0.9;

/// A block between kept ones is half-believed from this share of the page's cut (0.15 at
/// the two-member model's balanced cut of 0.35, where it was chosen; 0.16 at today's 0.375; the
/// presets' fills nest as their cuts do).
pub(super) const HALF_BELIEF: f64 = 0.15 / 0.35;

/// Where the model found little of an unsure page, the fill's floor as a share of the cut
/// (0.056 at the balanced cut of 0.375)...
pub(super) const DOUBT_FLOOR: f64 = 0.15;

/// ...found little: its kept text is under this share of the tokens outside the template.
pub(super) const FOUND_LITTLE: f64 = 0.4;

/// On a page that kept no more than a listing's intro, the fill's floor as a share of the
/// cut (0.019 at the balanced cut of 0.375): anything the model does not rule out.
pub(super) const SCANT_FLOOR: f64 = 0.05;

/// The rule: on a page unlike the training pages, the blocks `fill` brings in (after the
/// rules that read the kept text for prose, so what it adds is never a listing's intro or
/// an article's heading; none on a page cut at infinity).
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    let on = cx.novel && cx.cut.is_finite();
    let more = on.then(|| fill(cx.pb, cx.sure, cx.kept, cx.prob, cx.cut, cx.balanced))?;
    Some(brought_in(cx.kept, more))
}

/// `likely` with the half-believed blocks between the first and last `sure` block (those
/// at the page's cut `cut` or over), or anywhere on a page that declares no story, where
/// the sure text's median probability is under `UNSURE_MEDIAN`; on a page declaring no
/// story, no forum, whose `likely` text is no more than a listing's intro
/// (`toolkit::kept_text`), every block from `SCANT_FLOOR` of the cut, whatever the median;
/// where the model found little of the page (`found_little`), from `DOUBT_FLOOR` of it.
/// `balanced` is the page's cut at the balanced preset (`cut` there). The caller asks
/// `novelty` first.
pub(super) fn fill(
    pb: &PageBlocks,
    sure: &[bool],
    likely: &[bool],
    prob: &[f64],
    cut: f64,
    balanced: f64,
) -> Vec<bool> {
    let mut out = likely.to_vec();
    let kept: Vec<BlockId> = BlockId::all(sure.len()).filter(|&b| sure[b]).collect();
    let (Some(&first), Some(&last)) = (kept.first(), kept.last()) else {
        return out;
    };
    // (read at the balanced cut too: a stricter preset's smaller text is no scant page
    // where the balanced one is not, so the presets' fills nest)
    let read: Vec<bool> = BlockId::all(likely.len())
        .map(|b| likely[b] || prob[b] >= balanced)
        .collect();
    let (kept_tokens, prose) = kept_text(pb, &read);
    let scant = !pb.kind.story && !pb.kind.forum && prose <= 1 && kept_tokens <= INTRO_TOKENS;
    let weighted = kept.iter().map(|&b| (prob[b], pb.tokens[b] as f64 + 1.0));
    if !scant && median(weighted) >= UNSURE_MEDIAN {
        return out;
    }
    let holds_main: HashSet<ElemId> =
        main_block(pb, sure, prob).map_or_else(HashSet::new, |m| holding(pb, m));
    let floor = if scant {
        SCANT_FLOOR
    } else if found_little(pb, &read, prob, kept_tokens) {
        DOUBT_FLOOR
    } else {
        HALF_BELIEF
    } * cut;
    let span = if pb.kind.story {
        first.index()..=last.index()
    } else {
        0..=sure.len() - 1
    };
    for b in span.map(BlockId::new) {
        if !out[b] && prob[b] >= floor && !beside_main(pb, &holds_main, pb.elem[b]) {
            out[b] = true;
        }
    }
    out
}

/// Did the model find little of the page: is the text it keeps at the balanced cut (`read`,
/// `kept_tokens` of it) under `FOUND_LITTLE` of the tokens outside the template
/// (`toolkit::beside_main` of that text's main block), with no block longer than a
/// listing's intro? (Read at the balanced cut, as the scant page is, so the presets' fills
/// nest.)
fn found_little(pb: &PageBlocks, read: &[bool], prob: &[f64], kept_tokens: usize) -> bool {
    if BlockId::all(read.len()).any(|b| read[b] && pb.tokens[b] > INTRO_TOKENS) {
        return false;
    }
    let holds_main: HashSet<ElemId> =
        main_block(pb, read, prob).map_or_else(HashSet::new, |m| holding(pb, m));
    let outside_template: usize = BlockId::all(read.len())
        .filter(|&b| !beside_main(pb, &holds_main, pb.elem[b]))
        .map(|b| pb.tokens[b])
        .sum();
    (kept_tokens as f64) < FOUND_LITTLE * outside_template as f64
}

/// The weighted median of (value, weight) pairs: the least value at which half the weight
/// is reached.
fn median(pairs: impl Iterator<Item = (f64, f64)>) -> f64 {
    let mut v: Vec<(f64, f64)> = pairs.collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = v.iter().map(|p| p.1).sum::<f64>() / 2.0;
    let mut acc = 0.0;
    for (value, weight) in &v {
        acc += weight;
        if acc >= half {
            return *value;
        }
    }
    f64::NAN
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::blocks::walk;
    use crate::read::dom::build_view;
    use crate::read::parse::parse;

    fn blocks(html: &str) -> PageBlocks {
        let arena = parse(html);
        let body = arena.html_child("body").expect("a body");
        walk(&build_view(&arena, body), None, None)
    }

    const SERVICE: &str = "<html><body>\
        <nav><a href='/'>Home</a><a href='/s'>Services</a></nav>\
        <main>\
          <h1>Web app development you can count on</h1>\
          <p>We build applications your customers will love to use, with the feel of a native app.</p>\
          <div class='tile'>300+ projects within ten years</div>\
          <p>Progressive web apps work offline, install from the browser and cost less to build.</p>\
        </main>\
        <footer>Copyright 2024 Example Ltd</footer>\
        </body></html>";

    /// `SERVICE` with a paragraph of 160 tokens more after its second paragraph: kept, the
    /// page keeps more than a listing's intro.
    fn long_service() -> String {
        let more = "Our team plans, designs, builds and supports every app for years. ".repeat(16);
        SERVICE.replace("</main>", &format!("<p>{more}</p></main>"))
    }

    fn index(pb: &PageBlocks, start: &str) -> usize {
        pb.text
            .iter()
            .position(|t| t.starts_with(start))
            .expect(start)
    }

    #[test]
    fn an_unsure_pages_half_believed_blocks_between_kept_ones_are_kept() {
        let pb = blocks(&long_service());
        let n = pb.text.len();
        let (tile, footer, nav) = (
            index(&pb, "300+"),
            index(&pb, "Copyright"),
            index(&pb, "Home"),
        );
        let mut prob = vec![0.0; n];
        prob[index(&pb, "Web app")] = 0.7;
        prob[index(&pb, "We build")] = 0.5;
        prob[index(&pb, "Progressive")] = 0.6;
        prob[index(&pb, "Our team")] = 0.6;
        prob[tile] = 0.2;
        prob[footer] = 0.2; // in the footer, after the last kept block
        prob[nav] = 0.2;
        let sure: Vec<bool> = prob.iter().map(|&p| p >= 0.35).collect();
        let out = fill(&pb, &sure, &sure, &prob, 0.35, 0.35);
        assert!(out[tile]);
        assert!(!out[footer] && !out[nav]);
        // under the floor: not half-believed
        prob[tile] = 0.1;
        assert!(!fill(&pb, &sure, &sure, &prob, 0.35, 0.35)[tile]);
    }

    #[test]
    fn past_the_kept_text_only_a_page_declaring_no_story_keeps_its_half_believed_blocks() {
        let html = "<html><body><main>\
            <p>We build applications your customers will love to use, every day of the year.</p>\
            <p>Progressive web apps work offline, install from the browser and cost less.</p>\
            <div class='tile'>300+ projects within ten years</div>\
            </main><footer>Copyright 2024 Example Ltd</footer></body></html>";
        let mut pb = blocks(html);
        let mut prob = vec![0.0; pb.text.len()];
        prob[index(&pb, "We build")] = 0.6;
        prob[index(&pb, "Progressive")] = 0.6;
        let (tile, footer) = (index(&pb, "300+"), index(&pb, "Copyright"));
        prob[tile] = 0.2;
        prob[footer] = 0.2;
        let sure: Vec<bool> = prob.iter().map(|&p| p >= 0.35).collect();
        let out = fill(&pb, &sure, &sure, &prob, 0.35, 0.35);
        assert!(out[tile] && !out[footer]);
        // a story's text ends where the model's sure text does
        pb.kind.story = true;
        assert!(!fill(&pb, &sure, &sure, &prob, 0.35, 0.35)[tile]);
    }

    /// A product page: its name twice, two notes and `blurbs` feature blurbs of 29 tokens,
    /// with the probabilities a model trained on stories gives them (the name and notes
    /// 0.5, the blurbs 0.08), and its sure blocks at the cut of 0.35.
    fn product(blurbs: usize, note: &str) -> (PageBlocks, Vec<f64>, Vec<bool>) {
        let blurb = "Cleans along every edge and under the sofa, then finds its way home to empty \
                     its bin and charge before the next room gets its turn today. ";
        let features: String = (0..blurbs)
            .map(|i| format!("<div class='feature'><p>Feature {i}. {blurb}</p></div>"))
            .collect();
        let html = format!(
            "<html><body><nav><a href='/'>Home</a><a href='/shop'>Shop</a></nav><main>\
             <h1>Robot vacuum j7</h1><h2>Robot vacuum j7</h2>\
             <p>Specs. {note}</p><p>Warranty. {note}</p>{features}</main>\
             <footer>Copyright 2024 Example Inc</footer></body></html>"
        );
        let pb = blocks(&html);
        let prob: Vec<f64> = pb
            .text
            .iter()
            .map(|t| match t.split(' ').next() {
                Some("Robot" | "Specs." | "Warranty.") => 0.5,
                Some("Feature") => 0.08,
                _ => 0.0,
            })
            .collect();
        let sure = prob.iter().map(|&p| p >= 0.35).collect();
        (pb, prob, sure)
    }

    #[test]
    fn where_the_model_found_little_of_an_unsure_page_its_floor_falls() {
        // (56 tokens: two notes are two blocks of prose, no listing's intro)
        let note = "Weighs seven pounds and measures thirteen inches across, with a bin that \
                    holds a month of dust and a battery that runs two hours on a charge. \
                    Ships with two brushes, a spare filter and a dock that empties the bin \
                    for you after every run. ";
        let fill_of = |blurbs: usize, note: &str| {
            let (pb, prob, sure) = product(blurbs, note);
            let out = fill(&pb, &sure, &sure, &prob, 0.35, 0.35);
            let feature = index(&pb, "Feature 1");
            assert!(!out[index(&pb, "Home")] && !out[index(&pb, "Copyright")]);
            out[feature]
        };
        // eight blurbs: the kept text (name and notes) is under 0.4 of the page's, and the
        // blurbs at 0.08 are over the floor of 0.15 x 0.35
        assert!(fill_of(8, note));
        // two blurbs: the model keeps most of the page's text, what it doubts is not its
        // own, and the floor stays at 3/7 of the cut
        assert!(!fill_of(2, note));
        // a kept note longer than a listing's intro: the model found the page's text
        assert!(!fill_of(8, &note.repeat(5)));
    }

    #[test]
    fn a_page_whose_kept_text_the_model_is_sure_of_is_left_alone() {
        let pb = blocks(&long_service());
        let mut prob = vec![0.0; pb.text.len()];
        for start in ["Web app", "We build", "Progressive", "Our team"] {
            prob[index(&pb, start)] = 0.97;
        }
        let tile = index(&pb, "300+");
        prob[tile] = 0.3;
        let sure: Vec<bool> = prob.iter().map(|&p| p >= 0.35).collect();
        assert!(!fill(&pb, &sure, &sure, &prob, 0.35, 0.35)[tile]);
    }

    #[test]
    fn a_page_that_kept_no_more_than_an_intro_keeps_what_the_model_does_not_rule_out() {
        // a shop's category page: the model is sure of its intro and puts its cards at
        // p 0.02-0.1, as it does a story's related links
        let cards: String = (1..=6)
            .map(|i| format!("<div class='card'><h3><a href='/p{i}'>Desk chair model {i}</a></h3><p>$ {i}99</p></div>"))
            .collect();
        let html = format!(
            "<html><body><nav><a href='/'>Home</a><a href='/c'>Chairs</a></nav><main>\
             <h1>Office chairs</h1><p>Chairs for every desk, from task chairs to stools.</p>\
             <div class='grid'>{cards}</div></main>\
             <footer>Copyright 2024 Example Ltd</footer></body></html>"
        );
        let mut pb = blocks(&html);
        let mut prob = vec![0.03; pb.text.len()];
        prob[index(&pb, "Office chairs")] = 0.9;
        prob[index(&pb, "Chairs for every")] = 0.95;
        let (card, price, nav, footer) = (
            index(&pb, "Desk chair model 3"),
            index(&pb, "$ 399"),
            index(&pb, "Home"),
            index(&pb, "Copyright"),
        );
        prob[price] = 0.01; // under the floor: ruled out
        let sure: Vec<bool> = prob.iter().map(|&p| p >= 0.35).collect();
        let out = fill(&pb, &sure, &sure, &prob, 0.35, 0.35);
        assert!(out[card] && !out[price] && !out[nav] && !out[footer]);
        // a story's related links stay the model's call, and a thread's user cards
        pb.kind.story = true;
        assert!(!fill(&pb, &sure, &sure, &prob, 0.35, 0.35)[card]);
        pb.kind.story = false;
        pb.kind.forum = true;
        assert!(!fill(&pb, &sure, &sure, &prob, 0.35, 0.35)[card]);
    }

    #[test]
    fn a_stricter_preset_reads_the_page_as_the_balanced_one_does() {
        // the balanced cut keeps a long paragraph (p 0.5) that the precision cut does not:
        // the page is no scant page at either, so the presets' fills nest
        let more = "Our chairs are tested for years of sitting in real offices. ".repeat(13);
        let cards: String = (1..=6)
            .map(|i| format!("<div class='card'><h3><a href='/p{i}'>Chair {i}</a></h3></div>"))
            .collect();
        let html = format!(
            "<html><body><main><h1>Office chairs</h1><p>{more}</p>\
             <div class='grid'>{cards}</div></main></body></html>"
        );
        let pb = blocks(&html);
        let mut prob = vec![0.05; pb.text.len()];
        prob[index(&pb, "Office chairs")] = 0.95;
        prob[index(&pb, "Our chairs")] = 0.5;
        let card = index(&pb, "Chair 3");
        let sure: Vec<bool> = prob.iter().map(|&p| p >= 0.575).collect();
        assert!(fill(&pb, &sure, &sure, &prob, 0.575, 0.575)[card]);
        assert!(!fill(&pb, &sure, &sure, &prob, 0.575, 0.35)[card]);
        // the cleaner gives the fill the page's balanced cut
        use crate::clean::pipeline::{prepare, verdicts, Cut};
        use crate::rules::Settings;
        let p = prepare(&html, None, false, true).unwrap();
        let at = p.view.preorder[p.pb.elem[card]].index();
        let cut = |threshold, balanced| Cut {
            threshold,
            balanced,
            relative: 0.0,
            settings: Settings::parse([("unseen", "keep")]).unwrap(),
        };
        let kept = |c| verdicts(&p, &prob, true, c)[at].unwrap().content;
        assert!(kept(cut(0.575, 0.575)) && !kept(cut(0.575, 0.35)));
    }

    #[test]
    fn a_short_post_of_two_paragraphs_is_more_than_an_intro() {
        // an old blog's two-paragraph post (no declaration), its sidebar's modules unnamed
        let para = "The new plasma screens bring the web to the living room, and we have doubts. ";
        let html = format!(
            "<html><body><div id='alpha'><h3>Google TV rumblings</h3>\
             <p>{}</p><p>{}</p></div>\
             <div id='beta'><ul><li><a href='/a'>Archives of July</a></li></ul></div>\
             </body></html>",
            para.repeat(3),
            para.repeat(3)
        );
        let pb = blocks(&html);
        let prob: Vec<f64> = pb
            .text
            .iter()
            .map(|t| {
                if t.starts_with("The new plasma") || t.starts_with("Google") {
                    0.95
                } else {
                    0.05
                }
            })
            .collect();
        let module = index(&pb, "Archives");
        let sure: Vec<bool> = prob.iter().map(|&p| p >= 0.35).collect();
        assert!(!fill(&pb, &sure, &sure, &prob, 0.35, 0.35)[module]);
    }

    #[test]
    fn blocks_beside_the_main_text_between_kept_ones_stay_out() {
        let html = "<html><body><main>\
            <p>We build applications your customers will love to use, every day of the year.</p>\
            <aside class='sidebar'><a href='/x'>Other services we sell</a></aside>\
            <p>Progressive web apps work offline, install from the browser and cost less.</p>\
            </main></body></html>";
        let pb = blocks(html);
        let mut prob = vec![0.0; pb.text.len()];
        prob[index(&pb, "We build")] = 0.6;
        prob[index(&pb, "Progressive")] = 0.6;
        let side = index(&pb, "Other services");
        prob[side] = 0.3;
        let sure: Vec<bool> = prob.iter().map(|&p| p >= 0.35).collect();
        assert!(!fill(&pb, &sure, &sure, &prob, 0.35, 0.35)[side]);
    }

    #[test]
    fn the_cleaner_fills_only_a_page_unlike_the_training_pages() {
        use crate::clean::pipeline::{prepare, verdicts, Cut};
        use crate::rules::{decided_by, Settings};
        let p = prepare(SERVICE, None, false, true).unwrap();
        let tile = index(&p.pb, "300+");
        let prob: Vec<f64> =
            p.pb.text
                .iter()
                .enumerate()
                .map(|(b, t)| match () {
                    _ if b == tile => 0.2,
                    _ if t.starts_with("We build") || t.starts_with("Progressive") => 0.6,
                    _ => 0.0,
                })
                .collect();
        let at = p.view.preorder[p.pb.elem[tile]].index();
        let cut = |unseen| Cut {
            threshold: 0.35,
            balanced: 0.35,
            relative: 0.0,
            settings: Settings::parse([("unseen", if unseen { "keep" } else { "auto" })]).unwrap(),
        };
        let v = verdicts(&p, &prob, true, cut(true))[at].unwrap();
        assert!(v.content && v.section.map(decided_by) == Some("unseen"));
        // a page like the training pages, or the switch at auto: the model decides
        for (novel, on) in [(false, true), (true, false)] {
            let v = verdicts(&p, &prob, novel, cut(on))[at].unwrap();
            assert!(!v.content && v.section.is_none());
        }
    }

    #[test]
    fn the_median_is_weighted() {
        assert_eq!(median([(0.9, 1.0), (0.2, 10.0)].into_iter()), 0.2);
        assert_eq!(median([(0.9, 10.0), (0.2, 1.0)].into_iter()), 0.9);
        assert!(median(std::iter::empty()).is_nan());
    }
}
