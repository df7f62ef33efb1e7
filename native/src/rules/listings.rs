//! `listings=keep` (bring-in): a page without prose keeps its listing's records.
//!
//! **What.** A page whose kept text holds no prose (no likely block of `PROSE_TOKENS`) and
//! that has a run of alike records holding several times what the model kept is a listing.
//! There the largest listing, outside the page's navigation, header, footer, sidebars,
//! comments and related lists (`toolkit::beside_main`), is kept whole: the records alike to
//! the one the main block is in, or else to the record alike to most of the run, and runs
//! of one record kind under several parents (a front page's sections of cards) are one
//! listing. Where nothing is kept, not even at the balanced cut, the page's wrappers
//! (elements holding over half its tokens) stand in for the main block's ancestors; barred
//! blocks (a consent dialog) count for no run's size.
//!
//! The kept text may also be a listing's intro: one paragraph of prose and at most
//! `INTRO_TOKENS` in all. Then one run is the listing, when it holds `INTRO_RATIO` times the
//! kept text, fills `INTRO_COMPACT` of the element holding it and the main block (a
//! listing and its intro are that element's content; a short post's sidebar is a column of
//! a page that holds more) and is 30 % or more link text (`INTRO_LINK_SHARE`: a
//! listing's items are linked titles, the comments under a short post unlinked prose).
//! Other pages with prose keep what the model says of their lists.
//!
//! On a forum ([`crate::page::kind::PageKind`]: its URL, a declared `DiscussionForumPosting` or
//! `QAPage`, forum software as its generator) a container named for comments or replies
//! bars no listing, and the posts need no links: there they are the thread, where on a
//! blog they are the comments under a post, named the same.
//!
//! **Why.** A listing's records are its main content, and the model, which learnt from
//! stories and never saw such pages kept, keeps only their heading and intro
//! (`docs/lab/loco.md` has the figures).
//!
//! **Example.** A shop's category, a job board, a blog's index, a thread whose posts the
//! model dropped: the heading "All kettles" kept, and with it every kettle of the grid.
//!
//! **Switch.** `listings=keep`, the default; `listings=auto` leaves listings to the model.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::toolkit::{
    alike, beside_main, blocks_by_elem, brought_in, holding, kept_text, main_block, placements,
    runs, MIN_RECORDS,
};
use super::{Context, Setting};
use crate::page::blocks::{BlockId, ElemId, PageBlocks};

/// A listing's run holds at least this many times the tokens the model kept (a short
/// story's "more stories" grid holds fewer)...
pub(super) const LISTING_RATIO: f64 = 4.0;
/// ...and at least this many tokens.
pub(super) const MIN_LISTING_TOKENS: usize = 30;
/// Kept text of one prose block and at most this many tokens may be a listing's intro...
pub(super) const INTRO_TOKENS: usize = 120;
/// ...when a listing holds this many times its tokens...
pub(super) const INTRO_RATIO: f64 = 8.0;
/// ...fills this share of the lowest element holding it and the main block...
pub(super) const INTRO_COMPACT: f64 = 0.4;
/// ...and this share of its text is link text (not on a forum).
pub(super) const INTRO_LINK_SHARE: f64 = 0.3;

/// The elements holding over half the page's tokens: its wrappers.
fn wrappers(pb: &PageBlocks) -> HashSet<ElemId> {
    let tokens = pb.subtree_sums(|b| pb.tokens[b]);
    let total: usize = pb.tokens.iter().sum();
    pb.elems().filter(|&e| 2 * tokens[e] > total).collect()
}

/// The records of one run that make a listing: those alike (in layout) to the record the
/// main block is in, or else to the record alike to most of the run.
fn listing_records(
    pb: &PageBlocks,
    records: &[ElemId],
    by_elem: &[Vec<BlockId>],
    main_in: Option<usize>,
) -> Vec<ElemId> {
    let placed = placements(pb, records, by_elem);
    let mut layout: Vec<HashSet<&str>> = vec![HashSet::new(); records.len()];
    for (i, _, key) in &placed {
        layout[*i].insert(key.as_str());
    }
    let n = records.len();
    let reference = main_in.unwrap_or_else(|| {
        // most alike partners; the first such record on a tie
        (0..n)
            .max_by_key(|&i| {
                let partners = (0..n).filter(|&j| alike(&layout[i], &layout[j])).count();
                (partners, std::cmp::Reverse(i))
            })
            .unwrap_or(0)
    });
    (0..n)
        .filter(|&j| alike(&layout[reference], &layout[j]))
        .map(|j| records[j])
        .collect()
}

/// A listing: its records, their tokens and the parents of its runs.
#[derive(Default)]
struct Listing {
    records: Vec<ElemId>,
    tokens: usize,
    parents: Vec<ElemId>,
}

/// The rule: the records `listing` brings in (none on a page cut at infinity, which is
/// sure to have no main content: it keeps nothing, not even a listing).
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    let more = cx
        .cut
        .is_finite()
        .then(|| listing(cx.pb, cx.kept, cx.prob, cx.barred, cx.balanced))?;
    Some(brought_in(cx.kept, more))
}

/// `likely` with the records of the page's listing, where its kept text holds no prose or
/// a listing's intro at most (see the module's note; `prob` picks the main block). What
/// `barred` holds (a consent dialog, notices, a drop-down's options) counts for no run's
/// size: a consent manager's list of purposes is no listing, whatever it holds.
/// `balanced` is the page's cut at the balanced preset: where not even it keeps a block,
/// the page's wrappers stand in for the main block's ancestors.
pub(super) fn listing(
    pb: &PageBlocks,
    likely: &[bool],
    prob: &[f64],
    barred: &[bool],
    balanced: f64,
) -> Vec<bool> {
    let mut out = likely.to_vec();
    let (kept, prose) = kept_text(pb, likely);
    let intro = prose > 0;
    if prose > 1 || (intro && kept > INTRO_TOKENS) {
        return out;
    }
    let ratio = if intro { INTRO_RATIO } else { LISTING_RATIO };
    let enough = |sum: usize| sum >= MIN_LISTING_TOKENS && sum as f64 >= ratio * kept as f64;
    let tokens = pb.subtree_sums(|b| if barred[b] { 0 } else { pb.tokens[b] });
    let runs = runs(pb);
    // (the alike records hold at most their runs' tokens: a kind whose runs are too small
    // as a whole is passed over before their layouts, which walk the page, are read)
    let mut of_kind: HashMap<&str, usize> = HashMap::new();
    for ((_, kind), records) in &runs {
        *of_kind.entry(kind.as_str()).or_default() +=
            records.iter().map(|&e| tokens[e]).sum::<usize>();
    }
    let big_kinds: HashSet<String> = of_kind
        .into_iter()
        .filter(|&(_, sum)| enough(sum))
        .map(|(kind, _)| kind.to_string())
        .collect();
    // With nothing kept, not even at the balanced cut, the page's wrappers stand in for the
    // main block's ancestors: a grid of stories whose layout leaves a rail for ads
    // (`grid-layout--adrail`) is no sidebar of the page it is most of. (A stricter cut
    // that keeps nothing reads the page as before: its empty text is the balanced one's
    // with less, so the presets nest.)
    let holds_main = match main_block(pb, likely, prob) {
        Some(m) => holding(pb, m),
        None if (0..prob.len()).all(|b| barred[b] || prob[b] < balanced) => wrappers(pb),
        None => HashSet::new(),
    };
    let by_elem = blocks_by_elem(pb);
    // runs of one kind under several parents (a front page's sections of cards) are one
    // listing: (its records, their tokens, the runs' parents). Below an intro a listing is
    // one run: the columns of a page are runs of one kind too, and their records a short
    // post's sidebars.
    let mut listings: HashMap<(String, Option<ElemId>), Listing> = HashMap::new();
    for ((up, kind), records) in runs {
        if !big_kinds.contains(&kind) || beside_main(pb, &holds_main, up) {
            continue;
        }
        let main_in = records.iter().position(|e| holds_main.contains(e));
        let members = listing_records(pb, &records, &by_elem, main_in);
        if members.len() < MIN_RECORDS {
            continue;
        }
        let l = listings.entry((kind, intro.then_some(up))).or_default();
        l.tokens += members.iter().map(|&e| tokens[e]).sum::<usize>();
        l.records.extend(members);
        l.parents.push(up);
    }
    // the largest; on a tie, the one starting earliest in the page
    let Some(Listing {
        records,
        tokens: sum,
        parents,
    }) = listings
        .into_values()
        .filter(|l| enough(l.tokens))
        .min_by_key(|l| (std::cmp::Reverse(l.tokens), l.parents.iter().min().copied()))
    else {
        return out;
    };
    let mut record = vec![false; pb.parent.len()];
    for e in records {
        record[e] = true;
    }
    let in_listing = pb.under(|e| record[e]);
    if intro && !listed_beside_an_intro(pb, &holds_main, &tokens, &in_listing, &parents, sum + kept)
    {
        return out;
    }
    for (b, e) in pb.block_elems() {
        out[b] |= in_listing[e];
    }
    out
}

/// Is a listing of `listed` tokens (with the kept intro's) one the kept intro introduces,
/// and not the comments or a column of links beside a short post?
/// - It fills `INTRO_COMPACT` of the lowest element holding both it and the main block:
///   a listing and its intro are the page's content, where a short post and a sidebar are
///   columns of a page that holds more.
/// - `INTRO_LINK_SHARE` of its text is link text: a listing's items are linked titles,
///   comments are unlinked prose (on a forum, the posts are the page, linked or not).
fn listed_beside_an_intro(
    pb: &PageBlocks,
    holds_main: &HashSet<ElemId>,
    tokens: &[usize],
    in_listing: &[bool],
    parents: &[ElemId],
    listed: usize,
) -> bool {
    let around = parents
        .iter()
        .filter_map(|&up| {
            pb.self_and_ancestors(up)
                .find(|x| holds_main.contains(x))
                .map(|x| tokens[x])
        })
        .max()
        .unwrap_or(0);
    if (listed as f64) < INTRO_COMPACT * around as f64 {
        return false;
    }
    if pb.kind.forum {
        return true;
    }
    let (mut link, mut all) = (0i64, 0i64);
    for (b, e) in pb.block_elems() {
        if in_listing[e] {
            link += pb.link_chars[b];
            all += pb.text_chars(b);
        }
    }
    link as f64 >= INTRO_LINK_SHARE * all as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{kept, page};

    #[test]
    fn with_nothing_kept_the_pages_wrapper_bars_no_listing_by_its_name() {
        let cards: String = (1..=4)
            .map(|i| {
                format!("<div class='card'><h3><a href='/s{i}'>Story {i} about the sea and its tides</a></h3><p>By a reporter, March {i}</p></div>")
            })
            .collect();
        // the page's river of stories in a grid whose layout leaves a rail for ads
        let html = format!(
            "<nav><a href='/'>Home</a><a href='/science'>Science</a></nav>\
             <div class='grid grid-layout--adrail'>{cards}</div>"
        );
        let (pb, likely, mut prob) = page(&html, &[]);
        let got = kept(&pb, &listed(&pb, &likely, &prob));
        assert!(got.iter().any(|t| t.starts_with("Story 3")), "{got:?}");
        assert!(!got.contains(&"Home"));
        // a stricter cut that keeps nothing where the balanced one keeps a block reads
        // the page as before: no main block, every name bars
        prob[1] = 0.5;
        assert_eq!(listed(&pb, &likely, &prob), likely);
    }

    /// [`listing`] with nothing barred.
    fn listed(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Vec<bool> {
        listing(pb, likely, prob, &vec![false; likely.len()], 0.35)
    }

    #[test]
    fn a_barred_run_is_no_listing_however_large() {
        // a listing of cards, and a consent manager's panel of purposes: the panel's
        // records hold more text, but a dialog is never the page's listing
        let cards: String = (1..=4)
            .map(|i| {
                format!("<div class='card'><h3><a href='/r{i}'>Recipe {i}: tomato sauce with basil</a></h3><p>Ready in thirty minutes, serves four</p></div>")
            })
            .collect();
        let purpose = "<div class='purpose'><h4>Store information on a device</h4>\
                       <p>Cookies, device identifiers or other information can be stored or \
                       accessed on your device for the purposes presented to you.</p></div>";
        let html = format!(
            "<main><h1>Tomato recipes</h1><div class='grid'>{cards}</div></main>\
             <div id='onetrust-pc-sdk'>{}</div>",
            purpose.repeat(4)
        );
        let (pb, likely, prob) = page(&html, &["Tomato recipes"]);
        let barred = super::super::consent::in_consent_dialog(&pb);
        let got = kept(&pb, &listing(&pb, &likely, &prob, &barred, 0.35));
        assert!(
            got.iter().any(|t| t.starts_with("Recipe 3"))
                && !got.iter().any(|t| t.starts_with("Store"))
        );
        // unbarred, the panel's larger run is the listing
        let got = kept(&pb, &listed(&pb, &likely, &prob));
        assert!(
            got.iter().any(|t| t.starts_with("Store"))
                && !got.iter().any(|t| t.starts_with("Recipe 3"))
        );
    }

    fn item(title: &str, teaser: &str) -> String {
        format!("<div class='item card-3'><h2><a href='/x'>{title}</a></h2><p>{teaser}</p></div>")
    }

    fn shop(items_around: (&str, &str)) -> String {
        let items: String = [
            (
                "Red kettle",
                "Boils a litre in two minutes, in enamelled steel.",
            ),
            (
                "Blue kettle",
                "Whistles when it boils; a gift for tea lovers.",
            ),
            (
                "Green kettle",
                "Holds two litres and keeps warm for an hour.",
            ),
            (
                "Copper kettle",
                "Hand made in the old way, polished by hand.",
            ),
        ]
        .iter()
        .map(|(t, p)| item(t, p))
        .collect();
        format!(
            "<nav><ul><li><a href='/'>Home</a></li><li><a href='/k'>Kettles</a></li></ul></nav>\
             <main><h1>All kettles</h1><p>Our kettles for every kitchen.</p>{}{items}{}</main>\
             <footer><p>Copyright the shop</p></footer>",
            items_around.0, items_around.1
        )
    }

    #[test]
    fn a_listings_items_are_kept_where_the_model_kept_only_its_heading() {
        let html = shop(("<div class='grid'>", "</div>"));
        let (pb, likely, prob) = page(&html, &["All kettles", "Our kettles"]);
        let got = listed(&pb, &likely, &prob);
        let kept = kept(&pb, &got);
        assert_eq!(kept.len(), 2 + 8, "{kept:?}");
        assert!(
            kept.contains(&"Copper kettle") && kept.contains(&"Our kettles for every kitchen.")
        );
        assert!(!kept
            .iter()
            .any(|t| t.starts_with("Home") || t.starts_with("Copyright")));
    }

    #[test]
    fn a_page_with_prose_keeps_what_the_model_says_of_its_lists() {
        // a story of one paragraph, and related items of more than four times its tokens:
        // the story outweighs them only by being prose
        let prose = "The kettle is a vessel for boiling water, and its history runs from the \
                     bronze pots of antiquity over the iron kettles hung above open fires to \
                     the electric kettles of today, which switch off by themselves once the \
                     water boils, and so save both time and power.";
        let items: String = (0..25)
            .map(|i| {
                item(
                    &format!("Kettle {i}"),
                    "A kettle of the shop, in steel and copper.",
                )
            })
            .collect();
        let html = format!("<h1>Kettles</h1><p>{prose}</p><div class='grid'>{items}</div>");
        let (pb, likely, prob) = page(&html, &["Kettles", "The kettle is"]);
        assert_eq!(listed(&pb, &likely, &prob), likely);
    }

    #[test]
    fn records_in_a_sidebar_or_a_related_list_are_no_listing() {
        for (open, close) in [
            ("<aside><div>", "</div></aside>"),
            ("<div class='related-products'>", "</div>"),
            ("<div class='comment-list'>", "</div>"),
        ] {
            let html = shop((open, close));
            let (pb, likely, prob) = page(&html, &["All kettles", "Our kettles"]);
            assert_eq!(listed(&pb, &likely, &prob), likely, "{open}");
        }
    }

    #[test]
    fn a_listing_in_a_column_named_for_its_sidebar_is_a_listing() {
        // the page's heading above a main column named for the sidebar it has, the model
        // sure of the heading alone: the grid is the listing, the sidebar's widgets are not
        let html = shop(("<div class='grid'>", "</div>"));
        let html = html.replace(
            "<main>",
            "<div class='page-main page-main--withSidebar'><main>",
        );
        let html = html.replace(
            "</main>",
            "</main><div class='sidebar'><div class='widget'><p>Members online</p><p>Ann, Bob</p>\
             </div><div class='widget'><p>Latest</p><p>Rye bread</p></div>\
             <div class='widget'><p>Staff</p><p>Cyd</p></div></div></div>",
        );
        // (the heading and intro above the column, so its name alone is read)
        let html = html
            .replace("<h1>All kettles</h1><p>Our kettles for every kitchen.</p>", "")
            .replacen(
                "<div class='page-main",
                "<div class='page-header'><h1>All kettles</h1><p>Our kettles for every kitchen.</p></div><div class='page-main",
                1,
            );
        let (pb, likely, prob) = page(&html, &["All kettles", "Our kettles"]);
        let got = kept(&pb, &listed(&pb, &likely, &prob));
        assert!(got.contains(&"Copper kettle"), "{got:?}");
        assert!(
            !got.iter()
                .any(|t| t.starts_with("Members") || t.starts_with("Latest")),
            "{got:?}"
        );
    }

    #[test]
    fn the_names_of_the_main_blocks_wrappers_bar_no_listing() {
        // a wrapper holding the heading the model kept is no sidebar, whatever its class
        let html = shop(("<div class='grid'>", "</div>"));
        let html = format!("<div class='sidebar-nav-layout'>{html}</div>");
        let (pb, likely, prob) = page(&html, &["All kettles", "Our kettles"]);
        assert_eq!(kept(&pb, &listed(&pb, &likely, &prob)).len(), 2 + 8);
    }

    #[test]
    fn a_run_of_unlike_records_or_one_smaller_than_the_kept_text_is_no_listing() {
        // the page's columns: one record each of navigation, story and links, laid out
        // otherwise
        let html = "<div class='col'><h2>Menu</h2><p>Home</p><p>About</p></div>\
                    <div class='col'><h1>Title</h1><p>A short story.</p></div>\
                    <div class='col'><ul><li>Link one</li><li>Link two</li></ul><span>x</span></div>";
        let (pb, likely, prob) = page(html, &["Title", "A short story"]);
        assert_eq!(listed(&pb, &likely, &prob), likely);
        // four items beside a kept intro of more than a quarter of their tokens: the page is
        // its intro
        let intro = "Our kettles for every kitchen, from the shop by the old mill at the end \
                     of the road, where we have sold them since the year the mill stopped.";
        let html = format!(
            "<h1>Kettles</h1><p>{intro}</p><div>{}{}{}{}</div>",
            item("Red kettle", "Boils a litre in two minutes, in steel."),
            item("Blue kettle", "Whistles when it boils; a gift."),
            item("Green kettle", "Holds two litres and keeps warm."),
            item("Gold kettle", "Hand made in the old way.")
        );
        let (pb, likely, prob) = page(&html, &["Kettles", "Our kettles"]);
        assert_eq!(listed(&pb, &likely, &prob), likely);
    }

    /// A paragraph of about 50 tokens: prose, and short enough to be a listing's intro.
    const INTRO: &str = "Our kettles are made for every kitchen, from the small shop by the old \
                         mill at the end of the road, where we have sold kettles since the year \
                         the mill stopped, and where every one of them is still tested by hand \
                         before it leaves the shop for a new home.";

    fn kettles(n: usize) -> String {
        (0..n)
            .map(|i| {
                item(
                    &format!("Kettle number {i} of the shop"),
                    &format!("Model {i}: steel, one litre."),
                )
            })
            .collect()
    }

    #[test]
    fn a_listing_below_a_short_intro_is_kept() {
        let html = format!(
            "<nav><a href='/'>Home</a></nav><main><h1>Kettles</h1><p>{INTRO}</p>\
             <div class='grid'>{}</div></main><footer><p>Copyright</p></footer>",
            kettles(40)
        );
        let (pb, likely, prob) = page(&html, &["Kettles", "Our kettles"]);
        let got = kept(&pb, &listed(&pb, &likely, &prob));
        assert!(got.contains(&"Kettle number 39 of the shop"), "{got:?}");
        assert!(!got
            .iter()
            .any(|t| t.starts_with("Home") || t.starts_with("Copyright")));
    }

    #[test]
    fn comments_below_a_short_post_are_no_listing() {
        // alike records of unlinked text under a post of one paragraph, in its container
        let comments: String = (0..40)
            .map(|i| {
                format!(
                    "<div class='entry'><p>I think the kettle in this post is a fine one, and \
                     mine is the same. Number {i}.</p><p class='posted'>Posted by reader {i}</p></div>"
                )
            })
            .collect();
        let html = format!("<div class='post'><h1>Kettles</h1><p>{INTRO}</p>{comments}</div>");
        let (pb, likely, prob) = page(&html, &["Kettles", "Our kettles"]);
        assert_eq!(listed(&pb, &likely, &prob), likely);
    }

    #[test]
    fn links_in_another_column_than_a_short_post_are_no_listing() {
        // the page's columns: the post, a column of linked records, and a column of text;
        // the records fill little of the page around the post
        let other = "A long letter from the editor that nobody reads. ".repeat(150);
        let html = format!(
            "<div id='page'><div id='alpha'><div class='module'>{}</div></div>\
             <div id='beta'><h1>Kettles</h1><p>{INTRO}</p></div>\
             <div id='gamma'><p>{other}</p></div></div>",
            kettles(40)
        );
        let (pb, likely, prob) = page(&html, &["Kettles", "Our kettles"]);
        assert_eq!(listed(&pb, &likely, &prob), likely);
    }

    #[test]
    fn sections_of_alike_cards_are_one_listing() {
        // a front page: a heading the model kept, then sections of cards under their own
        // headings; each section alone holds too little to be the listing
        let section = |name: &str| {
            format!(
                "<section><h2>{name}</h2><div class='cards'>{}</div></section>",
                kettles(3)
            )
        };
        let html = format!(
            "<main><h1>Kettles today</h1>{}{}{}{}</main>",
            section("Steel"),
            section("Copper"),
            section("Glass"),
            section("Enamel")
        );
        let (pb, likely, prob) = page(&html, &["Kettles today"]);
        let got = kept(&pb, &listed(&pb, &likely, &prob));
        assert_eq!(
            got.iter()
                .filter(|t| t.starts_with("Kettle number"))
                .count(),
            12,
            "{got:?}"
        );
    }

    #[test]
    fn on_a_forum_a_container_named_for_replies_bars_no_listing() {
        // a thread's title, and its posts in a container named for replies, as a forum's
        // software writes them; elsewhere those are a post's comments
        let posts: String = ["ann", "bob", "cyd", "dan"]
            .iter()
            .map(|u| {
                format!(
                    "<article class='message'><div class='user'>{u}</div>\
                     <div class='body'>Feed the starter once, then keep it cold until you are \
                     back home again, says {u}.</div></article>"
                )
            })
            .collect();
        let html = format!(
            "<h1>Keeping a starter alive</h1><div class='block-body js-replyContainer'>{posts}</div>"
        );
        let (mut pb, likely, prob) = page(&html, &["Keeping a starter"]);
        assert_eq!(listed(&pb, &likely, &prob), likely);
        pb.kind.forum = true;
        let got = kept(&pb, &listed(&pb, &likely, &prob));
        assert!(got.iter().any(|t| t.ends_with("says dan.")), "{got:?}");
    }

    #[test]
    fn a_page_the_model_kept_nothing_of_keeps_its_listing() {
        // (the cut, not this rule, keeps nothing of a page sure to have no main content)
        let html = shop(("<div class='grid'>", "</div>"));
        let (pb, likely, prob) = page(&html, &[]);
        assert_eq!(kept(&pb, &listed(&pb, &likely, &prob)).len(), 8);
    }
}
