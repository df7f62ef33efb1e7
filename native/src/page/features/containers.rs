//! The containers group: the page's element tree as arrays (`Tree`), ancestor aggregates,
//! the densest text container, and each block's ancestors at the context levels.

use crate::page::blocks::{ElemId, PageBlocks};

use super::columns::{ANCESTOR_LEVELS, CONTEXT_LEVELS, C_ANC, C_BEST, N_FEATURES};
use super::sums::pairwise_sum;

/// Chains reach at least the highest level any feature asks for.
const MIN_CHAIN: usize = 8;

/// The page's element tree as arrays: subtree sums and every block's ancestor chain.
pub(super) struct Tree {
    /// per element: block chars, link chars, blocks, chars of text-like blocks (subtree)
    pub(super) sub: Vec<[f64; 4]>,
    /// Readability's container score per element
    score: Vec<f64>,
    /// chain[i * width + k]: the element k levels above block i's element (none above)
    chain: Vec<Option<ElemId>>,
    width: usize,
}

impl Tree {
    pub(super) fn new(pb: &PageBlocks, chars: &[f64], link: &[f64], n_tok: &[f64]) -> Tree {
        let m = pb.parent.len();
        let nb = pb.elem.len();
        let parent = &pb.parent;
        let mut sub = vec![[0.0f64; 4]; m];
        let plain: Vec<f64> = (0..nb)
            .map(|i| {
                let textlike = n_tok[i] >= 10.0 && link[i] < 0.34;
                chars[i] * (1.0 - link[i]) * if textlike { 1.0 } else { 0.0 }
            })
            .collect();
        for (i, &e) in pb.elem.iter().enumerate() {
            let s = &mut sub[e];
            s[0] += chars[i];
            s[1] += chars[i] * link[i];
            s[2] += 1.0;
            s[3] += plain[i];
        }
        // Readability's container score: text-like paragraphs count for their parent and,
        // half, for their grandparent (all parents first, then all grandparents).
        let mut score = vec![0.0f64; m];
        for (i, &e) in pb.elem.iter().enumerate() {
            if let Some(up) = parent[e] {
                score[up] += plain[i];
            }
        }
        for (i, &e) in pb.elem.iter().enumerate() {
            if let Some(up2) = parent[e].and_then(|up| parent[up]) {
                score[up2] += plain[i] / 2.0;
            }
        }
        // bottom-up sums, one depth level at a time (deepest first, index order within)
        let max_depth = pb.depth.iter().copied().max().unwrap_or(0).max(0) as usize;
        let mut start = vec![0usize; max_depth + 2];
        for &d in &pb.depth {
            start[d as usize + 1] += 1;
        }
        for d in 0..=max_depth {
            start[d + 1] += start[d];
        }
        let mut fill = start.clone();
        let mut by_depth = vec![0usize; m];
        for (e, &d) in pb.depth.iter().enumerate() {
            by_depth[fill[d as usize]] = e;
            fill[d as usize] += 1;
        }
        for d in (0..=max_depth).rev() {
            for &e in &by_depth[start[d]..start[d + 1]] {
                if let Some(p) = parent[e] {
                    let s = sub[e];
                    let t = &mut sub[p];
                    for k in 0..4 {
                        t[k] += s[k];
                    }
                }
            }
        }
        // ancestor chains
        let top = if m > 0 { max_depth + 1 } else { 1 }.max(MIN_CHAIN);
        let width = top + 1;
        let mut chain = vec![None; nb * width];
        for (i, &e) in pb.elem.iter().enumerate() {
            let row = &mut chain[i * width..(i + 1) * width];
            for (slot, a) in row.iter_mut().zip(pb.self_and_ancestors(e)) {
                *slot = Some(a);
            }
        }
        Tree {
            sub,
            score,
            chain,
            width,
        }
    }

    #[inline]
    pub(super) fn up(&self, block: usize, level: usize) -> Option<ElemId> {
        self.chain[block * self.width + level]
    }
}

/// Ancestor aggregates and the densest-container features.
pub(super) fn containers(pb: &PageBlocks, tree: &Tree, x: &mut [f64], n_tok: &[f64]) {
    let nf = N_FEATURES;
    let n = pb.elem.len();
    let sub = &tree.sub;
    let m = sub.len();
    let total = if m > 0 { sub[0][0].max(1.0) } else { 1.0 };
    let total_text = if m > 0 { sub[0][3].max(1.0) } else { 1.0 };
    let score = &tree.score;
    let total_score = pairwise_sum(score).max(1.0);
    // np.argmax: the first of the largest
    let mut best = 0usize;
    for (e, &s) in score.iter().enumerate() {
        if s > score[best] {
            best = e;
        }
    }
    let best_score = if m > 0 { score[best] } else { 0.0 };
    let mut cum = 0.0;
    let mut cums = Vec::with_capacity(n);
    for &v in n_tok {
        cum += v;
        cums.push(cum);
    }
    let total_tok = cum.max(1.0);
    for i in 0..n {
        let row = &mut x[i * nf..(i + 1) * nf];
        let mut c = C_ANC;
        for &lvl in &ANCESTOR_LEVELS {
            if let Some(a) = tree.up(i, lvl) {
                let s = &sub[a];
                row[c] = s[0] / total;
                row[c + 1] = if s[0] > 0.0 { s[1] / s[0] } else { 0.0 };
                row[c + 2] = s[2].ln_1p();
                row[c + 3] = s[3] / total_text;
            }
            c += 4;
        }
        let chain = &tree.chain[i * tree.width..(i + 1) * tree.width];
        let mut inside = false;
        let mut scored = 0.0f64; // the chain's empty entries score 0
        for a in chain.iter().map_while(|&a| a) {
            inside |= a.index() == best;
            let s = score[a];
            if s > scored {
                scored = s;
            }
        }
        let inside = inside && best_score > 0.0;
        row[C_BEST] = if inside { 1.0 } else { 0.0 };
        row[C_BEST + 1] = if inside {
            (pb.depth[pb.elem[i]] - pb.depth[best]) as f64
        } else {
            f64::NAN
        };
        row[C_BEST + 2] = if m > 0 { best_score / total_score } else { 0.0 };
        row[C_BEST + 3] = scored / total_score;
        row[C_BEST + 4] = (cums[i] - n_tok[i]) / total_tok;
        row[C_BEST + 5] = (total_tok - cums[i]) / total_tok;
    }
}

/// (blocks x [`CONTEXT_LEVELS`]) element index of each block's ancestor at that many levels
/// up (level 0 would be the block's element), none above `<body>`.
pub(crate) fn ancestors(pb: &PageBlocks) -> Vec<[Option<ElemId>; 6]> {
    let top = CONTEXT_LEVELS[CONTEXT_LEVELS.len() - 1];
    pb.elem
        .iter()
        .map(|&e| {
            let mut out = [None; 6];
            let (mut a, mut lvl, mut j) = (Some(e), 0usize, 0usize);
            while lvl < top {
                let Some(x) = a else { break };
                a = pb.parent[x];
                lvl += 1;
                if lvl == CONTEXT_LEVELS[j] {
                    out[j] = a;
                    j += 1;
                }
            }
            out
        })
        .collect()
}
