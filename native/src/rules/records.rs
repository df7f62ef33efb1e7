//! `records=keep` (bring-in): records like the main text's, a forum thread's replies or a
//! listing's items, are kept as it is.
//!
//! **What.** Where the page's main block (the likely block of most tokens x probability)
//! lies in one of a run of alike siblings (three or more elements of one record kind under
//! one parent, each of two or more blocks), the other records of the run are more of the
//! same main text: a thread's replies are more of its first post, a listing's items more of
//! its first item. A record the model kept nothing of takes the model's verdicts from the
//! records it kept some of: each of its blocks at a path (the record kinds from the record
//! down to the block) where a kept record has a likely block is kept too, when its own
//! layout is alike one kept record's (the Jaccard index of their path sets at least
//! `MIN_ALIKE`). A run the main block is not in (the comments under a story, a list beside
//! it) is left to the model, and so is every block of a record the model kept some of.
//!
//! **Why.** The model learnt from corpora of stories, where text in repeated records
//! outside the story (comments, "related" lists) is noise, so it keeps a thread's first post
//! and drops the replies (`docs/lab/loco.md` has the figures).
//!
//! **Example.** A forum thread of three posts, the model sure of the first: the bodies of
//! the other two are kept at the path the first one's body has, not their user boxes, which
//! the model left out of the first.
//!
//! **Switch.** `records=keep`, the default; `records=auto` leaves the records to the model.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::toolkit::{
    alike, blocks_by_elem, brought_in, main_block, placements, record_kind, MIN_RECORDS,
    MIN_RECORD_BLOCKS,
};
use super::{Context, Setting};
use crate::page::blocks::{BlockId, ElemId, PageBlocks};

/// The rule: the blocks `propagate` brings in to what the model's cut kept.
pub(super) fn run(cx: &Context, _: Setting) -> Option<Vec<bool>> {
    Some(brought_in(cx.kept, propagate(cx.pb, cx.kept, cx.prob)))
}

/// `likely` with the blocks that records alike to the main block's add (`prob`: each
/// block's probability, which picks the main block).
pub(super) fn propagate(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    let mut out = likely.to_vec();
    let Some(main) = main_block(pb, likely, prob) else {
        return out;
    };
    let n_blocks = pb.subtree_sums(|_| 1);
    // A run the main block is in has one of its ancestors as record: each ancestor with
    // blocks enough gives the record kind of a possible run among its parent's children.
    let mut kind_under: HashMap<ElemId, String> = HashMap::new();
    let mut x = pb.elem[main];
    while let Some(up) = pb.parent[x] {
        if n_blocks[x] >= MIN_RECORD_BLOCKS {
            kind_under.insert(up, record_kind(pb, x));
        }
        x = up;
    }
    let mut runs: HashMap<ElemId, Vec<ElemId>> = HashMap::new();
    for (e, &blocks) in pb.elems().zip(&n_blocks) {
        let Some(up) = pb.parent[e] else {
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
    records: &[ElemId],
    by_elem: &[Vec<BlockId>],
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{kept, page};

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
}
