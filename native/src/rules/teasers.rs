//! `teasers=drop` (take-out): other stories' teasers beside the page's text are dropped:
//! a stream of headline + teaser records beside a declared story, a run of teasers cut off
//! with an ellipsis, and a run that lists the page itself.
//!
//! **What.** Where the kept text holds prose, a run of alike records (one parent, one
//! record kind) none of which, nor their parent, holds the main block (the run lies beside
//! the page's text, not among its sections) is dropped whole when it is
//! - **a stream beside a declared story** ([`crate::page::kind::PageKind::story`]:
//!   `og:type` `article`, a JSON-LD `Article` type): `MIN_TEASERS` or more records of at
//!   most `MAX_TEASER_BLOCKS` text blocks, three in four of them a headline (the first text
//!   block: 3+ tokens, 80 % or more link text, to the page's own site) over a teaser (a
//!   later block of 8+ tokens, at most 20 % link text);
//! - **teasers cut off**: `MIN_CUT_RECORDS` or more records of at most `MAX_CUT_BLOCKS`
//!   text blocks, three in four of them a linked headline (3+ tokens, 80 % or more link
//!   text, to the page's own site) over a text of `MIN_CUT_TOKENS` or more ending in an
//!   ellipsis ("...", "…", "[...]", then at most a "Read more"), or one block holding such
//!   a link and such a text; on a page
//!   that declares a story, or where the run holds fewer tokens than the kept text beside
//!   it (a listing's excerpts are the page, and outweigh its intro);
//! - **a listing of the page itself**: `MIN_CUT_RECORDS` or more records, half of them a
//!   linked headline over a text (as above, or a later block of `MIN_CUT_TOKENS` or more),
//!   one of which repeats the page's headline (its linked headline shares `SAME_WORDS` of
//!   its words both ways with a part of the page's `<title>` or an `<h1>` that is no link,
//!   outside the run, `HEADLINE_WORDS` words or more) or its lead (a text cut off with an
//!   ellipsis whose words, `LEAD_WORDS` or more, the last aside, open a kept block outside
//!   the run, or are all of it).
//!
//! A stream's headlines lead to the site's other stories; a "best of" story's sections,
//! written the same way, lead to shops (`PageBlocks::away_chars`), and stay. Uncut streams
//! on pages that declare no story are left alone: a product page's tiles of "Learn more"
//! links, a documentation section's self-linked headings and a listing's items are written
//! the same way, and there they are the page. A text cut off with an ellipsis, or a
//! record repeating the page's own headline, is a teaser wherever it stands.
//!
//! **Why.** The model learnt that sentences are content and keeps the teasers; no gold
//! keeps another story's teaser. Of the 152 runs a looser form of these tests found on the
//! shared corpora (whether the model kept them or not), one is mostly gold text
//! (`docs/lab/loco.md` has the figures).
//!
//! **Example.** Below, beside or above a story, "latest", "more from", "recommended", "top
//! stories": each a linked headline over a sentence or two of teaser, often cut off with
//! "..." and often listing the story itself.
//!
//! **Switch.** `teasers=drop`, the default; `teasers=auto` leaves the runs to the model.

use foldhash::{HashMap, HashMapExt, HashSet};

use super::toolkit::{
    blocks_by_elem, holding, keeps_prose, main_block, record_blocks, record_kind, runs,
};
use super::{Context, Setting};
use crate::page::blocks::{BlockId, ElemId, PageBlocks};

/// Records a run holds at least before it is a stream.
pub(super) const MIN_TEASERS: usize = 4;
/// Text blocks a teaser record holds at most (a headline, a teaser, a byline or a date).
pub(super) const MAX_TEASER_BLOCKS: usize = 3;
/// Records a run of cut-off teasers, or a listing of the page, holds at least.
pub(super) const MIN_CUT_RECORDS: usize = 2;
/// Text blocks such a record holds at most (a headline, a teaser, a byline, a date).
pub(super) const MAX_CUT_BLOCKS: usize = 4;
/// Tokens a cut-off teaser holds at least.
pub(super) const MIN_CUT_TOKENS: usize = 5;
/// Words (of 2+ characters) the page's headline and a record's repeating it hold at least.
pub(super) const HEADLINE_WORDS: usize = 4;
/// Share of either's words the other holds when a record's headline repeats the page's.
pub(super) const SAME_WORDS: f64 = 0.8;
/// Words of a cut-off teaser that open the page's lead, at least, when it repeats the lead.
pub(super) const LEAD_WORDS: usize = 6;
/// Words an ellipsis may have after it ("Read more", "Continue reading").
const MAX_TAIL_TOKENS: usize = 3;

/// The rule: the streams beside the story the model and the bring-in rules kept (read
/// after the rules that add to it).
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    let mut out = beside_story(cx.pb, cx.kept, cx.prob);
    for (o, c) in out
        .iter_mut()
        .zip(cut_off_or_listed(cx.pb, cx.kept, cx.prob))
    {
        *o |= c;
    }
    Some(out)
}

/// A block's characters (at least 1, to divide by).
fn chars(pb: &PageBlocks, b: BlockId) -> f64 {
    pb.text_chars(b).max(1) as f64
}

/// A block's link characters.
fn links(pb: &PageBlocks, b: BlockId) -> f64 {
    pb.link_chars[b] as f64
}

/// A block's characters of links to the page's own site (`PageBlocks::away_chars` off).
fn home_links(pb: &PageBlocks, b: BlockId) -> f64 {
    (pb.link_chars[b] - pb.away_chars[b]) as f64
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
    for ((up, _), records) in runs(pb) {
        if records.len() < MIN_TEASERS
            || holds_main.contains(&up)
            || records.iter().any(|e| holds_main.contains(e))
        {
            continue;
        }
        let blocks_of = record_blocks(pb, &by_elem, &records);
        let teasers = blocks_of
            .iter()
            .filter(|bs| {
                let Some((&h, rest)) = bs.split_first() else {
                    return false;
                };
                bs.len() <= MAX_TEASER_BLOCKS
                    && pb.tokens[h] >= 3
                    && home_links(pb, h) >= 0.8 * chars(pb, h)
                    && rest
                        .iter()
                        .any(|&b| pb.tokens[b] >= 8 && links(pb, b) <= 0.2 * chars(pb, b))
            })
            .count();
        if 4 * teasers >= 3 * records.len() {
            for &b in blocks_of.iter().flatten() {
                out[b] = true;
            }
        }
    }
    out
}

/// Does `text` end cut off: an ellipsis ("...", "…", "[...]") after a word, then at most
/// `MAX_TAIL_TOKENS` words without digits ("Read more »")? (A range "6.4.102...6.4.103"
/// is no cut.)
pub(super) fn cut_off(text: &str) -> bool {
    let t = text.trim_end();
    let Some(at) = [t.rfind("..."), t.rfind('…')].into_iter().flatten().max() else {
        return false;
    };
    if t[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_digit())
    {
        return false;
    }
    let rest = t[at..].trim_start_matches(['.', '…']);
    rest.chars().count() <= 24
        && !rest.chars().any(|c| c.is_ascii_digit())
        && crate::text::count_tokens(rest) <= MAX_TAIL_TOKENS
}

/// A text's words of two or more characters, lowercased.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    crate::text::tokens(text)
        .filter(|w| w.chars().nth(1).is_some())
        .map(crate::text::lower)
}

/// The parts of a page's `<title>` (split at " | ", " - ", " – ", " — ", " :: ", " · "):
/// the story's headline is one, the site's name another.
fn title_parts(title: &str) -> Vec<&str> {
    let mut parts = vec![title];
    for sep in [" | ", " - ", " – ", " — ", " :: ", " · "] {
        parts = parts.iter().flat_map(|p| p.split(sep)).collect();
    }
    parts
}

/// Do two sets of words hold `SAME_WORDS` of each other's?
fn same_words(a: &HashSet<String>, b: &HashSet<String>) -> bool {
    let inter = a.intersection(b).count() as f64;
    inter >= SAME_WORDS * a.len() as f64 && inter >= SAME_WORDS * b.len() as f64
}

/// The blocks of the runs of cut-off teasers, and of the runs listing the page itself,
/// beside the kept text.
pub(super) fn cut_off_or_listed(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    let mut out = vec![false; likely.len()];
    let n_tokens = |b: BlockId| pb.tokens[b];
    let headline = |b: BlockId| n_tokens(b) >= 3 && links(pb, b) >= 0.8 * chars(pb, b);
    // the page's headlines: its title's parts, its h1s that are no link (a strip of other
    // stories' linked h1s is no headline of the page's), each with its block
    let mut heads: Vec<(Option<BlockId>, HashSet<String>)> = title_parts(&pb.title)
        .into_iter()
        .map(|p| (None, words(p).collect::<HashSet<String>>()))
        .collect();
    heads.extend(
        pb.blocks()
            .filter(|&b| pb.tags[pb.elem[b]] == "h1" && links(pb, b) <= 0.5 * chars(pb, b))
            .map(|b| (Some(b), words(&pb.text[b]).collect())),
    );
    heads.retain(|(_, w)| w.len() >= HEADLINE_WORDS);
    // (a headline of more than twice the longest's tokens repeats none)
    let longest = heads.iter().map(|(_, w)| w.len()).max().unwrap_or(0);
    // the seeds of the runs: texts cut off, and linked headlines repeating the page's
    let mut cut = vec![false; likely.len()];
    let mut repeats_head: HashMap<BlockId, HashSet<String>> = HashMap::new();
    for b in pb.blocks() {
        let n = n_tokens(b);
        if n >= MIN_CUT_TOKENS && cut_off(&pb.text[b]) {
            cut[b] = true;
        }
        if (HEADLINE_WORDS..=2 * longest).contains(&n) && headline(b) {
            let w: HashSet<String> = words(&pb.text[b]).collect();
            if w.len() >= HEADLINE_WORDS && heads.iter().any(|(_, h)| same_words(&w, h)) {
                repeats_head.insert(b, w);
            }
        }
    }
    // (most pages hold no cut-off text and no linked headline repeating the page's: done)
    let seeds: Vec<BlockId> = pb
        .blocks()
        .filter(|b| cut[*b] || repeats_head.contains_key(b))
        .collect();
    if seeds.is_empty() || !keeps_prose(pb, likely) {
        return out;
    }
    let Some(main) = main_block(pb, likely, prob) else {
        return out;
    };
    let holds_main = holding(pb, main);
    let by_elem = blocks_by_elem(pb);
    let kept_tokens: usize = pb.blocks().filter(|&b| likely[b]).map(n_tokens).sum();
    let home = |b: BlockId| home_links(pb, b) >= 0.8 * chars(pb, b);
    // the runs a seed is in: each element of 1 to MAX_CUT_BLOCKS text blocks holding it
    // is a record, and its parent's children of its record kind the run
    let n_blocks = pb.subtree_sums(|b| usize::from(n_tokens(b) > 0));
    let record = |e: ElemId| (1..=MAX_CUT_BLOCKS).contains(&n_blocks[e]);
    let mut kinds: HashMap<ElemId, HashSet<String>> = HashMap::new();
    for &b in &seeds {
        for e in pb.self_and_ancestors(pb.elem[b]) {
            let Some(up) = pb.parent[e] else {
                break;
            };
            if !record(e) {
                break;
            }
            kinds.entry(up).or_default().insert(record_kind(pb, e));
        }
    }
    let mut groups: Vec<(ElemId, Vec<ElemId>)> = Vec::new();
    for (up, wanted) in kinds {
        let mut by_kind: HashMap<String, Vec<ElemId>> = HashMap::new();
        let children = (up.index() + 1..pb.subtree_end(up))
            .map(ElemId::new)
            .filter(|&e| pb.parent[e] == Some(up) && record(e));
        for e in children {
            let kind = record_kind(pb, e);
            if wanted.contains(&kind) {
                by_kind.entry(kind).or_default().push(e);
            }
        }
        groups.extend(by_kind.into_values().map(|records| (up, records)));
    }
    for (up, records) in groups {
        if records.len() < MIN_CUT_RECORDS
            || holds_main.contains(&up)
            || records.iter().any(|e| holds_main.contains(e))
        {
            continue;
        }
        let blocks_of = record_blocks(pb, &by_elem, &records);
        if !blocks_of.iter().flatten().any(|&b| likely[b]) {
            continue;
        }
        let in_run: HashSet<BlockId> = blocks_of.iter().flatten().copied().collect();
        let (mut n_cut, mut n_teasers, mut listed) = (0, 0, false);
        for bs in &blocks_of {
            let head = bs.iter().position(|&b| headline(b));
            let cut_at = bs.iter().position(|&b| cut[b]);
            // a linked headline over a cut-off text, or one block holding a link and it
            let is_cut = match (head, cut_at) {
                (Some(h), Some(c)) => h < c && home(bs[h]),
                (None, Some(c)) => bs.len() == 1 && home_links(pb, bs[c]) >= 12.0,
                _ => false,
            };
            let teaser = is_cut
                || head.is_some_and(|h| {
                    bs[h + 1..].iter().any(|&b| {
                        n_tokens(b) >= MIN_CUT_TOKENS && links(pb, b) <= 0.2 * chars(pb, b)
                    })
                });
            n_cut += usize::from(is_cut);
            n_teasers += usize::from(teaser);
            if !teaser || listed {
                continue;
            }
            // the page's headline, from an h1 outside the run or the title
            let repeats_headline = head.is_some_and(|h| {
                repeats_head.get(&bs[h]).is_some_and(|w| {
                    heads.iter().any(|(hb, hw)| {
                        !hb.is_some_and(|x| in_run.contains(&x)) && same_words(w, hw)
                    })
                })
            });
            // the page's lead: a cut-off text whose words (the last, maybe cut, aside) open
            // a kept block outside the run, or are all of it
            let repeats_lead = || {
                bs.iter().any(|&b| {
                    if !cut[b] {
                        return false;
                    }
                    let mut w: Vec<String> = words(&pb.text[b]).collect();
                    w.pop(); // (the last word may be cut)
                    w.len() >= LEAD_WORDS
                        && pb.blocks().any(|o| {
                            likely[o]
                                && n_tokens(o) >= w.len()
                                && !in_run.contains(&o)
                                && words(&pb.text[o]).take(w.len()).eq(w.iter().cloned())
                        })
                })
            };
            listed = repeats_headline || repeats_lead();
        }
        let run_tokens: usize = in_run.iter().map(|&b| n_tokens(b)).sum();
        // the kept text beside the run: the page's kept tokens, the run's kept ones off
        let kept_in_run: usize = in_run
            .iter()
            .filter(|&&b| likely[b])
            .map(|&b| n_tokens(b))
            .sum();
        let beside = kept_tokens - kept_in_run;
        let cut_run = 4 * n_cut >= 3 * records.len() && (pb.kind.story || run_tokens < beside);
        let listing = listed && 2 * n_teasers >= records.len();
        if cut_run || listing {
            for &b in &in_run {
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

    fn cut_items(n: usize, tag: &str) -> String {
        (0..n)
            .map(|i| {
                format!(
                    "<li class='{tag}'><a href='/news/{i}'>Another story number {i} of the day</a> \
                     A teaser of a story elsewhere on the site, cut off in its first sentence {i} ...</li>"
                )
            })
            .collect()
    }

    fn left(pb: &PageBlocks, likely: &[bool], gone: &[bool]) -> Vec<String> {
        let v: Vec<bool> = likely.iter().zip(gone).map(|(&k, &g)| k && !g).collect();
        kept(pb, &v).into_iter().map(str::to_string).collect()
    }

    #[test]
    fn the_cut_is_an_ellipsis_at_the_end_after_a_word() {
        for t in [
            "the council voted on Monday to keep the ...",
            "the council voted on Monday to keep the…",
            "the council voted on Monday […]",
            "the council voted on Monday to keep... Read more »",
        ] {
            assert!(cut_off(t), "{t}");
        }
        for t in [
            "Pull requests 6.4.102...6.4.103",
            "there was … so much fighting and dying every day in the war.",
            "the council voted on Monday.",
            "the council voted ... on the seventeenth of the month, and then went home",
        ] {
            assert!(!cut_off(t), "{t}");
        }
    }

    #[test]
    fn teasers_cut_off_beside_the_text_go_on_any_page() {
        // one block each, a linked headline and its teaser cut off; the page declares no
        // story, and the run is shorter than the text beside it
        let html = format!(
            "<div class='body'><h1>Bridge stays open</h1><p>{STORY}</p><p>{STORY}</p></div>\
             <ul class='more'>{}</ul>",
            cut_items(3, "item")
        );
        let (pb, likely, prob) = page(&html, &["Bridge", "The council", "Another"]);
        assert!(!pb.kind.story);
        let gone = cut_off_or_listed(&pb, &likely, &prob);
        assert_eq!(
            left(&pb, &likely, &gone),
            ["Bridge stays open", STORY, STORY]
        );
        // a listing's excerpts that outweigh its intro are the page: they stay
        let html = format!(
            "<div class='intro'><h1>Our news</h1><p>{STORY}</p></div><ul class='list'>{}</ul>",
            cut_items(8, "item")
        );
        let (pb, likely, prob) = page(&html, &["Our news", "The council", "Another"]);
        assert!(!cut_off_or_listed(&pb, &likely, &prob).contains(&true));
        // so do uncut items on a page that declares no story
        let html = format!(
            "<div class='body'><h1>Bridge stays open</h1><p>{STORY}</p><p>{STORY}</p></div>\
             <ul class='more'>{}</ul>",
            cut_items(3, "item").replace(" ...", ".")
        );
        let (pb, likely, prob) = page(&html, &["Bridge", "The council", "Another"]);
        assert!(!cut_off_or_listed(&pb, &likely, &prob).contains(&true));
    }

    #[test]
    fn two_cut_off_teasers_beside_a_declared_story_go() {
        let items: String = (0..2)
            .map(|i| {
                format!(
                    "<div class='card'><h3><a href='/news/{i}'>Another story number {i} of the day</a></h3>\
                     <p>A teaser of a story elsewhere on the site, cut off in its first…</p></div>"
                )
            })
            .collect();
        let html = format!(
            "<div class='body'><h1>Bridge stays open</h1><p>{STORY}</p><p>{STORY}</p></div>\
             <div class='more'>{items}</div>"
        );
        let (mut pb, likely, prob) = page(&html, &["Bridge", "The council", "Another", "A teaser"]);
        pb.kind.story = true;
        let gone = cut_off_or_listed(&pb, &likely, &prob);
        assert_eq!(
            left(&pb, &likely, &gone),
            ["Bridge stays open", STORY, STORY]
        );
    }

    #[test]
    fn a_run_listing_the_page_itself_goes() {
        // "top stories" above the story, its first item this very story's headline over its
        // lead; no ellipsis, no declared story
        let lead = STORY.split(" winter,").next().unwrap();
        let own = format!(
            "<div class='top'><h3><a href='/news/bridge'>The old harbour bridge stays open all winter</a></h3>\
             <p>{lead}.</p></div>"
        );
        let others: String = (0..2)
            .map(|i| {
                format!(
                    "<div class='top'><h3><a href='/news/{i}'>Another story number {i} of the day</a></h3>\
                     <p>A teaser of a story elsewhere on the site, told in one sentence {i}.</p></div>"
                )
            })
            .collect();
        let html = format!(
            "<div class='tops'>{own}{others}</div><div class='body'>\
             <h1>The old harbour bridge stays open all winter</h1><p>{STORY}</p><p>{STORY}</p></div>"
        );
        let sure = ["The old", "The council", "Another", "A teaser"];
        let (pb, likely, prob) = page(&html, &sure);
        let gone = cut_off_or_listed(&pb, &likely, &prob);
        assert_eq!(
            left(&pb, &likely, &gone),
            ["The old harbour bridge stays open all winter", STORY, STORY]
        );
        // or its first item this very story's lead, cut off, under another headline
        let opening: Vec<&str> = STORY.split(' ').take(12).collect();
        let own_lead = format!(
            "<div class='top'><h3><a href='/news/bridge'>Cyclists keep their way over the water</a></h3>\
             <p>{}…</p></div>",
            opening.join(" ")
        );
        let (pb, likely, prob) = page(&html.replace(&own, &own_lead), &sure);
        let gone = cut_off_or_listed(&pb, &likely, &prob);
        assert_eq!(
            left(&pb, &likely, &gone),
            ["The old harbour bridge stays open all winter", STORY, STORY]
        );
        // a strip of other stories' linked h1s is no headline of the page's
        let strip = "<div class='strip'><h1><a href='/news/0'>Another story number 0 of the day</a></h1></div>";
        let (pb, likely, prob) = page(&format!("{strip}{}", html.replace(&own, "")), &sure);
        assert!(!cut_off_or_listed(&pb, &likely, &prob).contains(&true));
        // or its whole first paragraph, and the next one's first word cut off ("[...]")
        let own_para = format!(
            "<div class='top'><h3><a href='/news/bridge'>Bridge stays open</a></h3>\
             <p>{STORY} Engineers [...]</p></div>"
        );
        let (pb, mut likely, mut prob) = page(&html.replace(&own, &own_para), &sure);
        // (the model left the copy out, and kept the other teasers)
        let copy = pb.text.iter().position(|t| t.ends_with("[...]")).unwrap();
        (likely[copy], prob[copy]) = (false, 0.1);
        let gone = cut_off_or_listed(&pb, &likely, &prob);
        assert_eq!(
            left(&pb, &likely, &gone),
            ["The old harbour bridge stays open all winter", STORY, STORY]
        );
        // the same run without the page in it stays
        let html = html.replace(&own, "");
        let (pb, likely, prob) = page(&html, &sure);
        assert!(!cut_off_or_listed(&pb, &likely, &prob).contains(&true));
    }
}
