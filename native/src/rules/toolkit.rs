//! What several rules read of a page: its main block and the elements holding it, its runs
//! of alike records and their layouts, where the page's template is (navigation, header,
//! footer, sidebars, ...), whether its kept text holds prose, and the sections a page names
//! for what is never its main text. No rule of its own: the rules in this folder build on it.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::page::blocks::{attr_flag, tag_bits, BlockId, ElemId, PageBlocks};
use crate::read::dom::View;

/// Records of one kind under one parent before they are a run.
pub(super) const MIN_RECORDS: usize = 3;
/// Blocks a record holds at least (a list of bare links, or of paragraphs, is no run of
/// records).
pub(super) const MIN_RECORD_BLOCKS: usize = 2;
/// How alike a record's layout must be to a kept record's.
pub(super) const MIN_ALIKE: f64 = 0.5;
/// A likely block of this many tokens is prose: its page has a main text, and no listing.
pub(super) const PROSE_TOKENS: usize = 40;

/// An element's kind as a record: its tag and first class name without digits (`li`,
/// `div.post`), so `post odd` and `post even` are one kind and `post-123` no kind's own.
pub(super) fn record_kind(pb: &PageBlocks, e: ElemId) -> String {
    let k = pb.kinds[e].as_str();
    match k.split_once('.') {
        None => k.to_string(),
        Some((tag, class)) => match class
            .split_ascii_whitespace()
            .find(|c| !c.bytes().any(|b| b.is_ascii_digit()))
        {
            Some(c) => crate::text::joined(tag, '.', c),
            None => tag.to_string(),
        },
    }
}

/// The page's main block: the likely block of most tokens x probability.
pub(super) fn main_block(pb: &PageBlocks, likely: &[bool], prob: &[f64]) -> Option<BlockId> {
    BlockId::all(likely.len())
        .filter(|&b| likely[b])
        .map(|b| (b, pb.tokens[b] as f64 * prob[b]))
        .filter(|&(_, weight)| weight > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(b, _)| b)
}

/// The page's runs of records: `MIN_RECORDS` or more elements of one record kind under one
/// parent, each of `MIN_RECORD_BLOCKS` or more blocks, by (parent, kind).
pub(super) fn runs(pb: &PageBlocks) -> HashMap<(ElemId, String), Vec<ElemId>> {
    let n_blocks = pb.subtree_sums(|_| 1);
    let mut runs: HashMap<(ElemId, String), Vec<ElemId>> = HashMap::new();
    for (e, &blocks) in pb.elems().zip(&n_blocks) {
        let Some(up) = pb.parent[e] else {
            continue;
        };
        if blocks >= MIN_RECORD_BLOCKS {
            runs.entry((up, record_kind(pb, e))).or_default().push(e);
        }
    }
    runs.retain(|_, records| records.len() >= MIN_RECORDS);
    runs
}

/// The elements holding block `b`: its element and every ancestor.
pub(super) fn holding(pb: &PageBlocks, b: BlockId) -> HashSet<ElemId> {
    let mut out = HashSet::new();
    out.extend(pb.self_and_ancestors(pb.elem[b]));
    out
}

/// Each element's blocks.
pub(super) fn blocks_by_elem(pb: &PageBlocks) -> Vec<Vec<BlockId>> {
    let mut by_elem: Vec<Vec<BlockId>> = vec![Vec::new(); pb.parent.len()];
    for (b, e) in pb.block_elems() {
        by_elem[e].push(b);
    }
    by_elem
}

/// Each record's blocks that hold words, in page order (the blocks of the record's
/// subtree, from `blocks_by_elem`).
pub(super) fn record_blocks(
    pb: &PageBlocks,
    by_elem: &[Vec<BlockId>],
    records: &[ElemId],
) -> Vec<Vec<BlockId>> {
    records
        .iter()
        .map(|&r| {
            by_elem[r.index()..pb.subtree_end(r)]
                .iter()
                .flatten()
                .copied()
                .filter(|&b| pb.tokens[b] > 0)
                .collect()
        })
        .collect()
}

/// `(record, block, path)` of every block inside the records of a run: the record's index
/// in `records` and the block's path below it (record kinds, the record's child first).
pub(super) fn placements(
    pb: &PageBlocks,
    records: &[ElemId],
    by_elem: &[Vec<BlockId>],
) -> Vec<(usize, BlockId, String)> {
    let record_of: HashMap<ElemId, usize> =
        records.iter().enumerate().map(|(i, &r)| (r, i)).collect();
    // (a block under no record of the run has no place: its walk up would reach the root
    // for nothing, a record kind made at every step)
    let in_record = pb.under(|x| record_of.contains_key(&x));
    let mut placed = Vec::new();
    for (e, blocks) in pb.elems().zip(by_elem) {
        if blocks.is_empty() || !in_record[e] {
            continue;
        }
        let mut path: Vec<String> = Vec::new();
        for x in pb.self_and_ancestors(e) {
            if let Some(&i) = record_of.get(&x) {
                path.reverse();
                let key = path.join(">");
                placed.extend(blocks.iter().map(|&b| (i, b, key.clone())));
                break;
            }
            path.push(record_kind(pb, x));
        }
    }
    placed
}

/// Are two layouts (sets of block paths) alike: Jaccard index at least `MIN_ALIKE`?
pub(super) fn alike(a: &HashSet<&str>, b: &HashSet<&str>) -> bool {
    let inter = a.intersection(b).count() as f64;
    let union = a.union(b).count() as f64;
    union > 0.0 && inter / union >= MIN_ALIKE
}

/// Where a listing is not: in or under the page's navigation, header, footer, sidebars,
/// comments, share bars and related lists (by name, or by tag for `nav`, `menu`, `header`,
/// `footer` and `aside`). The names of the elements holding the main block (`holds_main`)
/// say nothing of where the run is: they wrap the main text whatever they are called (a body
/// class `sidebar-nav`). (Class words naming a layout, a look or a page builder's block,
/// `has-sidebar`, `text-secondary`, `elementor-widget`, give no `sidebar` keyword: `walk`.)
pub(super) fn beside_main(pb: &PageBlocks, holds_main: &HashSet<ElemId>, e: ElemId) -> bool {
    let mut names = [
        "nav", "header", "footer", "sidebar", "comment", "share", "related",
    ]
    .iter()
    .fold(0u32, |bits, n| bits | attr_flag(n));
    if pb.kind.forum {
        names &= !attr_flag("comment");
    }
    let tags = ["nav", "header", "footer", "aside"]
        .iter()
        .fold(0u32, |bits, t| bits | tag_bits(t));
    pb.self_and_ancestors(e).any(|u| {
        pb.tag_flags[u] & tags != 0 || (!holds_main.contains(&u) && pb.flags[u] & names != 0)
    })
}

/// Does the kept text hold prose (a likely block of `PROSE_TOKENS` or more)?
pub(super) fn keeps_prose(pb: &PageBlocks, likely: &[bool]) -> bool {
    BlockId::all(likely.len()).any(|b| likely[b] && pb.tokens[b] >= PROSE_TOKENS)
}

/// The kept text's tokens, and how many of its blocks are prose (`PROSE_TOKENS` or more).
pub(super) fn kept_text(pb: &PageBlocks, likely: &[bool]) -> (usize, usize) {
    let kept: Vec<usize> = BlockId::all(likely.len())
        .filter(|&b| likely[b])
        .map(|b| pb.tokens[b])
        .collect();
    (
        kept.iter().sum(),
        kept.iter().filter(|&&n| n >= PROSE_TOKENS).count(),
    )
}

/// The blocks a bring-in rule adds: those `more` (the kept text with what the rule brings
/// in) holds that `kept` (the kept text before it) does not.
pub(super) fn brought_in(kept: &[bool], more: Vec<bool>) -> Vec<bool> {
    let mut out = more;
    for (o, &k) in out.iter_mut().zip(kept) {
        *o &= !k;
    }
    out
}

/// An element's names as the named sections read them (`reviews`, `dialogs`): class, id and
/// itemprop, lowercased, and `role-` its role.
pub(super) fn section_names(view: &View, pb_elem: ElemId) -> String {
    let el = &view[view.preorder[pb_elem]];
    if !el.has_attrs {
        // (most elements: no name to read, and no string built for them)
        return String::new();
    }
    let mut out = ["class", "id", "itemprop"]
        .iter()
        .filter_map(|a| el.get(a))
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(role) = el.get("role") {
        out.push_str(" role-");
        out.push_str(&role.to_ascii_lowercase());
    }
    out
}

/// Per block, whether it lies in an element `section` holds true of that does not hold
/// the page's main block (of `likely`, by `prob`). Elements `never_main` marks (with
/// everything under them) are sections whatever they hold, and the main block is the
/// likely block of most weight outside them.
///
/// Names say what a section is, not where the page's text is (an editorial review is a
/// story in an element named `review`, and a page may open its article in a lightbox), so
/// no named section ever holds the page's main block.
pub(super) fn inside_sections(
    pb: &PageBlocks,
    likely: &[bool],
    prob: &[f64],
    section: impl Fn(ElemId) -> bool,
    never_main: Option<&[bool]>,
) -> Vec<bool> {
    let never = |e: ElemId| never_main.is_some_and(|n| n[e]);
    let candidates: Vec<bool> = BlockId::all(likely.len())
        .map(|b| likely[b] && !never(pb.elem[b]))
        .collect();
    let holds_main: HashSet<ElemId> =
        main_block(pb, &candidates, prob).map_or_else(HashSet::new, |m| holding(pb, m));
    let inside = pb.under(|e| never(e) || (!holds_main.contains(&e) && section(e)));
    pb.elem.iter().map(|&e| inside[e]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::page;

    #[test]
    fn record_kinds_fold_numbered_and_state_classes() {
        let html = "<div class='post-17 post'><p>a</p></div><li>b</li><div class='x1'>c</div>";
        let (pb, _, _) = page(html, &[]);
        let kinds: Vec<String> = pb.elems().map(|e| record_kind(&pb, e)).collect();
        assert!(kinds.iter().any(|k| k == "div.post"));
        assert!(kinds.iter().any(|k| k == "li"));
        assert!(kinds.iter().any(|k| k == "div"));
    }

    #[test]
    fn brought_in_is_what_the_rule_adds() {
        let more = brought_in(&[true, false, false], vec![true, true, false]);
        assert_eq!(more, [false, true, false]);
    }
}
