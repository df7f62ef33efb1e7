//! Records like the main text's: a forum thread's replies, a listing's items.
//!
//! `records=keep` ([`propagate`]). Where the page's main block (the likely block of most
//! tokens x probability) lies in one of a run of alike siblings (three or more elements of
//! one record kind under one parent, each of two or more blocks), the other records of the
//! run are more of the same main text: a thread's replies are more of its first post, a
//! listing's items more of its first item. The model learnt from corpora of stories, where
//! text in repeated records outside the story (comments, "related" lists) is noise, so it
//! keeps the first post and drops the replies. Here a record the model kept nothing of
//! takes the model's verdicts from the records it kept some of: each of its blocks at a
//! path (the record kinds from the record down to the block) where a kept record has a
//! likely block is kept too, when its own layout is alike one kept record's (the Jaccard
//! index of their path sets at least `MIN_ALIKE`). A run the main block is not in (the
//! comments under a story, a list beside it) is left to the model, and so is every block
//! of a record the model kept some of.
//!
//! `listings=keep` ([`listing`]). A page whose kept text holds no prose (no likely block of
//! `PROSE_TOKENS`) and that has a run of alike records holding several times what the model
//! kept is a listing: a shop's category, a job board, a thread whose posts the model
//! dropped, a blog's index. Its records are its main content, and the model, which never
//! saw such pages kept, keeps only their heading and intro. There the largest such run,
//! outside the page's navigation, header, footer, sidebars, comments and related lists
//! ([`beside_main`]), is kept whole: the records alike to the one the main block is in, or
//! else to the record alike to most of the run. A page with prose keeps what the model
//! says of its lists.
//!
//! `docs/loco.md` has the figures; `records=auto` and `listings=auto` turn them off.

use std::collections::{HashMap, HashSet};

use crate::blocks::{attr_flag, tag_bits, PageBlocks};
use crate::text::count_tokens;

/// Records of one kind under one parent before they are a run.
pub const MIN_RECORDS: usize = 3;
/// Blocks a record holds at least (a list of bare links, or of paragraphs, is no run of
/// records).
pub const MIN_RECORD_BLOCKS: usize = 2;
/// How alike a record's layout must be to a kept record's.
pub const MIN_ALIKE: f64 = 0.5;
/// A likely block of this many tokens is prose: its page has a main text, and no listing.
pub const PROSE_TOKENS: usize = 40;
/// A listing's run holds at least this many times the tokens the model kept (a short
/// story's "more stories" grid holds fewer)...
pub const LISTING_RATIO: f64 = 4.0;
/// ...and at least this many tokens.
pub const MIN_LISTING_TOKENS: usize = 30;

/// An element's kind as a record: its tag and first class name without digits (`li`,
/// `div.post`), so `post odd` and `post even` are one kind and `post-123` no kind's own.
fn record_kind(pb: &PageBlocks, e: usize) -> String {
    let k = pb.kinds[e].as_str();
    match k.split_once('.') {
        None => k.to_string(),
        Some((tag, class)) => match class
            .split_ascii_whitespace()
            .find(|c| !c.bytes().any(|b| b.is_ascii_digit()))
        {
            Some(c) => format!("{tag}.{c}"),
            None => tag.to_string(),
        },
    }
}

/// The page's main block: the likely block of most tokens x probability.
pub(crate) fn main_block(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Option<usize> {
    (0..likely.len())
        .filter(|&b| likely[b])
        .map(|b| (b, count_tokens(&pb.text[b]) as f64 * prob[b]))
        .filter(|&(_, weight)| weight > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(b, _)| b)
}

/// Each element's blocks.
fn blocks_by_elem(pb: &PageBlocks) -> Vec<Vec<usize>> {
    let mut by_elem: Vec<Vec<usize>> = vec![Vec::new(); pb.parent.len()];
    for (b, &e) in pb.elem.iter().enumerate() {
        by_elem[e].push(b);
    }
    by_elem
}

/// `(record, block, path)` of every block inside the records of a run: the record's index
/// in `records` and the block's path below it (record kinds, the record's child first).
fn placements(
    pb: &PageBlocks,
    records: &[usize],
    by_elem: &[Vec<usize>],
) -> Vec<(usize, usize, String)> {
    let record_of: HashMap<usize, usize> =
        records.iter().enumerate().map(|(i, &r)| (r, i)).collect();
    let mut placed = Vec::new();
    for (e, blocks) in by_elem.iter().enumerate() {
        if blocks.is_empty() {
            continue;
        }
        let mut path: Vec<String> = Vec::new();
        let mut x = e as i64;
        while x >= 0 {
            if let Some(&i) = record_of.get(&(x as usize)) {
                path.reverse();
                let key = path.join(">");
                placed.extend(blocks.iter().map(|&b| (i, b, key.clone())));
                break;
            }
            path.push(record_kind(pb, x as usize));
            x = pb.parent[x as usize];
        }
    }
    placed
}

/// Are two layouts (sets of block paths) alike: Jaccard index at least `MIN_ALIKE`?
fn alike(a: &HashSet<&str>, b: &HashSet<&str>) -> bool {
    let inter = a.intersection(b).count() as f64;
    let union = a.union(b).count() as f64;
    union > 0.0 && inter / union >= MIN_ALIKE
}

/// `likely` with the blocks that records alike to the main block's add (`prob`: each
/// block's probability, which picks the main block).
pub fn propagate(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    let mut out = likely.to_vec();
    let Some(main) = main_block(pb, likely, prob) else {
        return out;
    };
    let n_blocks = pb.subtree_sums(|_| 1);
    // A run the main block is in has one of its ancestors as record: each ancestor with
    // blocks enough gives the record kind of a possible run among its parent's children.
    let mut kind_under: HashMap<usize, String> = HashMap::new();
    let mut x = pb.elem[main];
    while pb.parent[x] >= 0 {
        let up = pb.parent[x] as usize;
        if n_blocks[x] >= MIN_RECORD_BLOCKS {
            kind_under.insert(up, record_kind(pb, x));
        }
        x = up;
    }
    let mut runs: HashMap<usize, Vec<usize>> = HashMap::new();
    for (e, &blocks) in n_blocks.iter().enumerate() {
        let Ok(up) = usize::try_from(pb.parent[e]) else {
            continue;
        };
        if blocks >= MIN_RECORD_BLOCKS
            && kind_under
                .get(&up)
                .is_some_and(|k| record_kind(pb, e) == *k)
        {
            runs.entry(up).or_default().push(e);
        }
    }
    let by_elem = blocks_by_elem(pb);
    // (runs only add blocks, from `likely` alone: their order does not matter)
    for records in runs.values().filter(|r| r.len() >= MIN_RECORDS) {
        spread(pb, likely, records, &by_elem, &mut out);
    }
    out
}

/// Within one run: each block's path below its record; the paths of likely blocks; and
/// the blocks at those paths in records the model kept nothing of, alike a kept one.
fn spread(
    pb: &PageBlocks,
    likely: &[bool],
    records: &[usize],
    by_elem: &[Vec<usize>],
    out: &mut [bool],
) {
    let placed = placements(pb, records, by_elem);
    let mut layout: Vec<HashSet<&str>> = vec![HashSet::new(); records.len()];
    let mut kept_paths: HashSet<&str> = HashSet::new();
    let mut kept = vec![false; records.len()];
    for (i, b, key) in &placed {
        layout[*i].insert(key.as_str());
        if likely[*b] {
            kept_paths.insert(key.as_str());
            kept[*i] = true;
        }
    }
    let takes: Vec<bool> = (0..records.len())
        .map(|i| !kept[i] && (0..records.len()).any(|j| kept[j] && alike(&layout[i], &layout[j])))
        .collect();
    for (i, b, key) in &placed {
        if takes[*i] && kept_paths.contains(key.as_str()) {
            out[*b] = true;
        }
    }
}

/// Where a listing is not: in or under the page's navigation, header, footer, sidebars,
/// comments, share bars and related lists (by name, or by tag for `nav`, `menu`, `header`,
/// `footer` and `aside`). Two kinds of names (not tags) say nothing of where the run is:
/// - those of the elements holding the main block (`holds_main`), which wrap the main text
///   whatever they are called (a body class `sidebar-nav`);
/// - class words naming the layout an element has (`p-body-main--withSidebar`,
///   `has-sidebar`) rather than what it is (`PageBlocks::sidebar_layout`).
fn beside_main(pb: &PageBlocks, holds_main: &HashSet<usize>, e: usize) -> bool {
    let names = [
        "nav", "header", "footer", "sidebar", "comment", "share", "related",
    ]
    .iter()
    .fold(0u32, |bits, n| bits | attr_flag(n));
    let tags = ["nav", "header", "footer", "aside"]
        .iter()
        .fold(0u32, |bits, t| bits | tag_bits(t));
    let mut x = e as i64;
    while x >= 0 {
        let u = x as usize;
        let mut flags = pb.flags[u];
        if pb.sidebar_layout[u] {
            flags &= !attr_flag("sidebar");
        }
        if pb.tag_flags[u] & tags != 0 || (!holds_main.contains(&u) && flags & names != 0) {
            return true;
        }
        x = pb.parent[u];
    }
    false
}

/// The records of one run that make a listing: those alike (in layout) to the record the
/// main block is in, or else to the record alike to most of the run.
fn listing_records(
    pb: &PageBlocks,
    records: &[usize],
    by_elem: &[Vec<usize>],
    main_in: Option<usize>,
) -> Vec<usize> {
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

/// `likely` with the records of the page's listing, where its kept text holds no prose
/// (see the module's note; `prob` picks the main block).
pub fn listing(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    let mut out = likely.to_vec();
    let ntok: Vec<usize> = pb.text.iter().map(|t| count_tokens(t)).collect();
    let kept_blocks = || (0..likely.len()).filter(|&b| likely[b]);
    if kept_blocks().any(|b| ntok[b] >= PROSE_TOKENS) {
        return out;
    }
    let kept: usize = kept_blocks().map(|b| ntok[b]).sum();
    let n_blocks = pb.subtree_sums(|_| 1);
    let tokens = pb.subtree_sums(|b| ntok[b]);
    let mut runs: HashMap<(usize, String), Vec<usize>> = HashMap::new();
    for (e, &blocks) in n_blocks.iter().enumerate() {
        let Ok(up) = usize::try_from(pb.parent[e]) else {
            continue;
        };
        if blocks >= MIN_RECORD_BLOCKS {
            runs.entry((up, record_kind(pb, e))).or_default().push(e);
        }
    }
    let mut holds_main: HashSet<usize> = HashSet::new();
    if let Some(m) = main_block(pb, likely, prob) {
        let mut x = pb.elem[m] as i64;
        while x >= 0 {
            holds_main.insert(x as usize);
            x = pb.parent[x as usize];
        }
    }
    let by_elem = blocks_by_elem(pb);
    let enough =
        |sum: usize| sum >= MIN_LISTING_TOKENS && sum as f64 >= LISTING_RATIO * kept as f64;
    let mut listings: Vec<(usize, Vec<usize>, usize)> = runs
        .into_iter()
        // (the alike records hold at most the whole run's tokens: a run too small as a whole
        // is passed over before its layouts, which walk the page, are read)
        .filter(|(_, records)| {
            records.len() >= MIN_RECORDS && enough(records.iter().map(|&e| tokens[e]).sum())
        })
        .filter_map(|((up, _), records)| {
            let main_in = records.iter().position(|e| holds_main.contains(e));
            let members = listing_records(pb, &records, &by_elem, main_in);
            let sum: usize = members.iter().map(|&e| tokens[e]).sum();
            (members.len() >= MIN_RECORDS && enough(sum)).then_some((up, members, sum))
        })
        .collect();
    // the largest first; on a tie, the earliest in the page
    listings.sort_by_key(|(up, _, sum)| (std::cmp::Reverse(*sum), *up));
    let Some((_, members, _)) = listings
        .into_iter()
        .find(|(up, _, _)| !beside_main(pb, &holds_main, *up))
    else {
        return out;
    };
    let mut in_listing = vec![false; pb.parent.len()];
    for e in members {
        in_listing[e] = true;
    }
    // (preorder: an element is in the listing where its parent is)
    for e in 0..pb.parent.len() {
        if let Ok(up) = usize::try_from(pb.parent[e]) {
            in_listing[e] |= in_listing[up];
        }
    }
    for (b, &e) in pb.elem.iter().enumerate() {
        out[b] |= in_listing[e];
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::blocks::walk;
    use crate::dom::build_view;
    use crate::parse::parse;

    /// The page's blocks, and `likely` and probabilities with the blocks starting with
    /// each of `sure` likely (probability 0.9; the rest 0.1).
    pub(crate) fn page(html: &str, sure: &[&str]) -> (PageBlocks, Vec<bool>, Vec<f64>) {
        let a = parse(html);
        let view = build_view(&a, a.html_child("body").unwrap());
        let pb = walk(&view, None, None);
        let likely: Vec<bool> = pb
            .text
            .iter()
            .map(|t| sure.iter().any(|s| t.starts_with(s)))
            .collect();
        let prob = likely.iter().map(|&l| if l { 0.9 } else { 0.1 }).collect();
        (pb, likely, prob)
    }

    /// The texts of the blocks `v` holds.
    pub(crate) fn kept<'a>(pb: &'a PageBlocks, v: &[bool]) -> Vec<&'a str> {
        pb.text
            .iter()
            .zip(v)
            .filter(|(_, &k)| k)
            .map(|(t, _)| t.as_str())
            .collect()
    }

    fn post(user: &str, text: &str) -> String {
        format!(
            "<div class='post odd'><div class='user'><b>{user}</b><p>Joined 2009</p></div>\
             <div class='body'><p>{text}</p></div></div>"
        )
    }

    #[test]
    fn a_threads_replies_are_kept_as_its_first_post_is() {
        let html = format!(
            "<nav><ul><li>Home</li><li>Forums</li></ul></nav><div class='thread'>{}{}{}</div>",
            post(
                "ann",
                "My question is a long one about the tides of the bay."
            ),
            post("bob", "An answer to it."),
            post("cyd", "Another answer.")
        );
        let (pb, likely, prob) = page(&html, &["My question"]);
        let got = propagate(&pb, &likely, &prob);
        // the bodies, at the kept path; not the user boxes, which the model left out
        assert_eq!(
            kept(&pb, &got),
            [
                "My question is a long one about the tides of the bay.",
                "An answer to it.",
                "Another answer."
            ]
        );
    }

    #[test]
    fn comments_under_a_story_stay_the_models_call() {
        let html = format!(
            "<article><p>The story is long and told in words enough for its main text.</p>\
             <p>It goes on.</p></article><div class='comments'>{}{}{}</div>",
            post("ann", "A comment the model kept."),
            post("bob", "A reply."),
            post("cyd", "Another reply.")
        );
        let (pb, likely, prob) = page(&html, &["The story", "It goes", "A comment"]);
        assert_eq!(propagate(&pb, &likely, &prob), likely);
    }

    #[test]
    fn a_record_the_model_kept_some_of_and_unlike_records_stay_its_call() {
        let html = "<div class='col'><h2>Menu</h2><p>Home</p><p>About</p></div>\
                    <div class='col'><h1>Title</h1><p>The story is long and told in words \
                    enough for its main text.</p><p>Share this</p><form><p>Subscribe</p></form></div>\
                    <div class='col'><ul><li>Link</li></ul><span>x</span><p>Copyright</p></div>";
        let (pb, likely, prob) = page(html, &["Title", "The story"]);
        // the main column is a record of a run of three; "Share this" sits at a kept path
        // in the kept record, and the other columns are laid out otherwise
        assert_eq!(propagate(&pb, &likely, &prob), likely);
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
        let got = listing(&pb, &likely, &prob);
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
        assert_eq!(listing(&pb, &likely, &prob), likely);
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
            assert_eq!(listing(&pb, &likely, &prob), likely, "{open}");
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
        let got = kept(&pb, &listing(&pb, &likely, &prob));
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
        assert_eq!(kept(&pb, &listing(&pb, &likely, &prob)).len(), 2 + 8);
    }

    #[test]
    fn a_run_of_unlike_records_or_one_smaller_than_the_kept_text_is_no_listing() {
        // the page's columns: one record each of navigation, story and links, laid out
        // otherwise
        let html = "<div class='col'><h2>Menu</h2><p>Home</p><p>About</p></div>\
                    <div class='col'><h1>Title</h1><p>A short story.</p></div>\
                    <div class='col'><ul><li>Link one</li><li>Link two</li></ul><span>x</span></div>";
        let (pb, likely, prob) = page(html, &["Title", "A short story"]);
        assert_eq!(listing(&pb, &likely, &prob), likely);
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
        assert_eq!(listing(&pb, &likely, &prob), likely);
    }

    #[test]
    fn a_page_the_model_kept_nothing_of_keeps_its_listing() {
        // (the cut, not this rule, keeps nothing of a page sure to have no main content)
        let html = shop(("<div class='grid'>", "</div>"));
        let (pb, likely, prob) = page(&html, &[]);
        assert_eq!(kept(&pb, &listing(&pb, &likely, &prob)).len(), 8);
    }

    #[test]
    fn record_kinds_fold_numbered_and_state_classes() {
        let html = "<div class='post-17 post'><p>a</p></div><li>b</li><div class='x1'>c</div>";
        let (pb, _, _) = page(html, &[]);
        let kinds: Vec<String> = (0..pb.parent.len()).map(|e| record_kind(&pb, e)).collect();
        assert!(kinds.iter().any(|k| k == "div.post"));
        assert!(kinds.iter().any(|k| k == "li"));
        assert!(kinds.iter().any(|k| k == "div"));
    }
}
