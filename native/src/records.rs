//! Records like the main text's: a forum thread's replies, a listing's other items.
//!
//! Where the page's main block (the likely block of most tokens x probability) lies in one
//! of a run of alike siblings (three or more elements of one record kind under one parent,
//! each of two or more blocks), the other records of the run are more of the same main
//! text: a thread's replies are more of its first post, a listing's items more of its first
//! item. The model learnt from corpora of stories, where text in repeated records outside
//! the story (comments, "related" lists) is noise, so it keeps the first post and drops the
//! replies. Here a record the model kept nothing of takes the model's verdicts from the
//! records it kept some of: each of its blocks at a path (the record kinds from the record
//! down to the block) where a kept record has a likely block is kept too, when its own
//! layout is alike one kept record's (the Jaccard index of their path sets at least
//! `MIN_ALIKE`).
//!
//! A run the main block is not in (the comments under a story, a list beside it) is left
//! to the model, and so is every block of a record the model kept some of.
//! `docs/loco.md` has the figures; `records=auto` turns it off.

use std::collections::{HashMap, HashSet};

use crate::blocks::PageBlocks;
use crate::text::count_tokens;

/// Records of one kind under one parent before they are a run.
pub const MIN_RECORDS: usize = 3;
/// Blocks a record holds at least (a list of bare links, or of paragraphs, is no run of
/// records).
pub const MIN_RECORD_BLOCKS: usize = 2;
/// How alike a record's layout must be to a kept record's.
pub const MIN_ALIKE: f64 = 0.5;

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

/// `likely` with the blocks that records alike to the main block's add (`prob`: each
/// block's probability, which picks the main block).
pub fn propagate(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Vec<bool> {
    let mut out = likely.to_vec();
    let main = (0..likely.len())
        .filter(|&b| likely[b])
        .map(|b| (b, count_tokens(&pb.text[b]) as f64 * prob[b]))
        .filter(|&(_, weight)| weight > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let Some((main, _)) = main else { return out };
    let n_el = pb.parent.len();
    // blocks in each element's subtree (elements come in preorder: children after parents)
    let mut n_blocks = vec![0usize; n_el];
    for &e in &pb.elem {
        n_blocks[e] += 1;
    }
    for e in (0..n_el).rev() {
        if pb.parent[e] >= 0 {
            n_blocks[pb.parent[e] as usize] += n_blocks[e];
        }
    }
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
    let mut by_elem: Vec<Vec<usize>> = vec![Vec::new(); n_el];
    for (b, &e) in pb.elem.iter().enumerate() {
        by_elem[e].push(b);
    }
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
    let record_of: HashMap<usize, usize> =
        records.iter().enumerate().map(|(i, &r)| (r, i)).collect();
    // (record, block, path) of every block inside the run's records
    let mut placed: Vec<(usize, usize, String)> = Vec::new();
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
    let alike = |i: usize, j: usize| {
        let inter = layout[i].intersection(&layout[j]).count() as f64;
        let union = layout[i].union(&layout[j]).count() as f64;
        union > 0.0 && inter / union >= MIN_ALIKE
    };
    let takes: Vec<bool> = (0..records.len())
        .map(|i| !kept[i] && (0..records.len()).any(|j| kept[j] && alike(i, j)))
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
    use crate::blocks::walk;
    use crate::dom::build_view;
    use crate::parse::parse;

    /// The page's blocks, and `likely` and probabilities with the blocks starting with
    /// each of `sure` likely (probability 0.9; the rest 0.1).
    fn page(html: &str, sure: &[&str]) -> (PageBlocks, Vec<bool>, Vec<f64>) {
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

    fn kept<'a>(pb: &'a PageBlocks, v: &[bool]) -> Vec<&'a str> {
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
