//! Gradient-boosted trees as plain arrays, evaluated (`sitesift/extractor/forest.py` exports
//! them from scikit-learn and checks the model file's arrays).
//!
//! A fitted binary `HistGradientBoostingClassifier` is the sum of its trees' leaf values
//! plus a baseline, through the logistic function. The model file stores every tree's
//! nodes one after another: split feature (-1 on leaves), threshold (go left when
//! `x <= threshold`), which side a missing value takes, children (global indices; a leaf
//! points to itself) and leaf values. [`Forest::new`] checks those arrays as the Python
//! `Forest._checked` does (lengths, index ranges, children after their parent inside their
//! tree), so a damaged or hostile model is refused rather than evaluated, and evaluation
//! can neither index out of bounds nor loop.
//!
//! Evaluation is QuickScorer's (Lucchese et al., SIGIR 2015), not a walk down each tree.
//! Number a tree's leaves left to right. A node a row does not pass to the left ("false":
//! `x > threshold`) rules out exactly its left subtree's leaves, and the false nodes on the
//! row's own path rule out every leaf left of its leaf, so the row's leaf is the leftmost
//! one no false node rules out. Each inner node is stored once, as (threshold, tree, mask
//! of the leaves it leaves standing), in one list per feature sorted by threshold; a row
//! scans each list from the lowest threshold while its value is above it and ANDs those
//! masks into its trees' 32-bit leaf sets, and each tree's leaf is then the lowest bit
//! left. Rows go in batches of [`BATCH`], each entry read once for all of them. The work
//! is a tight scan over the false nodes (about 40 % of the nodes on the default model's
//! rows) with no load depending on the one before it, where a walk makes about 11
//! dependent loads a tree: the default model's forests take about half the time they did
//! walked (docs/native.md, "The forests: QuickScorer"). A tree of more leaves than a mask
//! has bits is walked down ([`Walked`]; the training makes 31).
//!
//! Where a missing value goes is folded into the compare: each feature has two lists, one
//! of the nodes whose missing values go left, scanned with `x > threshold` (false for NaN:
//! a NaN passes none of them), and one of those whose missing values go right, scanned
//! with `!(x <= threshold)` (true for NaN: it passes them all). So a batch's rows are laid
//! out once, column by column, where they were once laid out twice, NaN read as -inf in
//! one copy and +inf in the other (docs/native.md, "The forests' layout").

/// A tree's leaf set: one bit a leaf. 32 bits hold the training's trees (31 leaves) and
/// make a batch's sets of a tree one cache line, half what 64 bits took (docs/native.md).
type Mask = u32;
/// Most leaves of a tree evaluated by masks.
const MAX_LEAVES: usize = Mask::BITS as usize;
/// Rows evaluated together: each entry read serves them all.
const BATCH: usize = 16;
/// Python walks this many (tree, row) pairs at once: `2**20 // trees` rows per chunk.
const PAIRS: usize = 1 << 20;

/// Trees in flat arrays, laid out for evaluation.
#[derive(Clone, Debug)]
pub(crate) struct Forest {
    n_features: usize,
    baseline: f64,
    /// per list, where its entries start (`2 * n_features + 1` offsets): list `f` holds
    /// feature f's nodes whose missing values go left, list `n_features + f` those whose
    /// missing values go right; each list's entries are sorted by threshold and end in a
    /// sentinel of threshold +inf, which no value is above, so a scan needs no bounds test
    starts: Vec<u32>,
    /// the features some node splits on, with whether each of its two lists has entries:
    /// a scan reads only these columns (the shipped model's forests split on 151-261 of
    /// their 196 or 293 features)
    used: Vec<(u32, bool, bool)>,
    /// per entry: the node's threshold, its tree and the leaves it leaves standing
    thresholds: Vec<f64>,
    trees: Vec<u32>,
    masks: Vec<Mask>,
    /// per tree, the index of its leftmost leaf in `values`
    first_leaf: Vec<u32>,
    /// leaf values, each tree's left to right, then [`MAX_LEAVES`] zeros, so that every
    /// tree's first leaf has a whole mask's worth of values after it
    values: Vec<f64>,
    /// the trees of more than [`MAX_LEAVES`] leaves, which no mask holds
    walked: Vec<Walked>,
}

/// A tree of more than [`MAX_LEAVES`] leaves, walked down node by node.
#[derive(Clone, Debug)]
struct Walked {
    tree: usize,
    /// per node of its tree, in the model's order: feature (-1 on leaves), threshold,
    /// where a missing value goes, children (indices into `nodes`, after their parent)
    /// and leaf value
    nodes: Vec<(i64, f64, bool, usize, usize, f64)>,
}

impl Walked {
    /// Tree `tree`, the model's nodes `range` (its root first; children checked to lie
    /// after their parent inside it).
    #[allow(clippy::too_many_arguments)]
    fn new(
        tree: usize,
        range: std::ops::Range<usize>,
        feature: &[i64],
        threshold: &[f64],
        missing_left: &[bool],
        left: &[i64],
        right: &[i64],
        value: &[f64],
    ) -> Walked {
        let start = range.start;
        let nodes = range
            .map(|i| {
                let local = |c: i64| c as usize - start;
                (
                    feature[i],
                    threshold[i],
                    missing_left[i],
                    local(left[i]),
                    local(right[i]),
                    value[i],
                )
            })
            .collect();
        Walked { tree, nodes }
    }

    /// The leaf value row `x` reaches.
    fn leaf(&self, x: &[f64]) -> f64 {
        let mut i = 0;
        loop {
            let (feature, threshold, missing_left, left, right, value) = self.nodes[i];
            if feature < 0 {
                return value;
            }
            let v = x[feature as usize];
            let go_left = if v.is_nan() {
                missing_left
            } else {
                v <= threshold
            };
            i = if go_left { left } else { right };
        }
    }
}

/// Lay `n` rows (`batch`, row-major, `nf` columns) out as the columns the scan reads,
/// `BATCH` values each, the columns some node splits on (`used`) only: the scan reads no
/// other; rows past the last one read -inf everywhere and pass no node. Column by column:
/// each column is gathered from the rows and written whole, where writing row by row
/// stored every value alone, a column apart, with a bounds test on each (see
/// docs/lab/native.md, "The per-page path's copies"). A function of its own: inlined into
/// `Forest::raw`, a profile-guided build made it and the code around it 0.25 G
/// instructions dearer on 300 pages (docs/native.md).
#[inline(never)]
fn lay_out(
    columns: &mut [[f64; BATCH]],
    batch: &[f64],
    n: usize,
    nf: usize,
    used: &[(u32, bool, bool)],
) {
    assert!(n <= BATCH && batch.len() == n * nf && columns.len() == nf);
    for &(c, _, _) in used {
        let c = c as usize;
        let column = &mut columns[c];
        for (k, v) in column[..n].iter_mut().enumerate() {
            // SAFETY: k < n and c < nf (`used` holds columns of the forest, indexed
            // above), so k * nf + c < n * nf == batch.len() (asserted)
            *v = unsafe { *batch.get_unchecked(k * nf + c) };
        }
        column[n..].fill(f64::NEG_INFINITY);
    }
}

/// The highest value of a batch's column that is not NaN (-inf if none), and whether it has
/// a NaN: four lanes at a time, where a fold one value at a time made a chain of 16
/// dependent steps, each with its own NaN test (a fifth of the scan's instructions).
#[inline(always)]
fn top_of(v: &[f64; BATCH]) -> (f64, bool) {
    let mut high = [f64::NEG_INFINITY; 4];
    let mut nan = [false; 4];
    for quad in v.chunks_exact(4) {
        for ((h, n), &x) in high.iter_mut().zip(&mut nan).zip(quad) {
            *n |= x.is_nan();
            *h = if x > *h { x } else { *h }; // false for NaN: passed over
        }
    }
    let pair = |a: f64, b: f64| if b > a { b } else { a };
    (
        pair(pair(high[0], high[1]), pair(high[2], high[3])),
        nan.iter().any(|&n| n),
    )
}

impl Forest {
    /// A forest from the arrays of its JSON form (`Forest.to_dict`): `roots[t]` is tree
    /// t's first node; per node `feature` (-1 on leaves), `threshold`, `missing_left`,
    /// `left` and `right` (a leaf points to itself) and `value` (leaf values).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        n_features: usize,
        baseline: f64,
        roots: Vec<i64>,
        feature: Vec<i64>,
        threshold: Vec<f64>,
        missing_left: Vec<bool>,
        left: Vec<i64>,
        right: Vec<i64>,
        value: Vec<f64>,
    ) -> Result<Forest, String> {
        let n = feature.len();
        if n == 0 || roots.is_empty() {
            return Err("a forest needs trees".into());
        }
        if [
            threshold.len(),
            missing_left.len(),
            left.len(),
            right.len(),
            value.len(),
        ]
        .iter()
        .any(|&len| len != n)
        {
            return Err("forest arrays differ in length".into());
        }
        if n >= u32::MAX as usize / 2 {
            return Err("a forest of too many nodes".into());
        }
        if !(0 < n_features && n_features < 100_000 && baseline.is_finite()) {
            return Err("bad feature count or baseline".into());
        }
        if !threshold.iter().chain(&value).all(|v| v.is_finite()) {
            return Err("non-finite threshold or leaf value".into());
        }
        let mut starts = roots.clone();
        starts.sort_unstable();
        if starts[0] != 0
            || starts.windows(2).any(|w| w[1] <= w[0])
            || starts[starts.len() - 1] >= n as i64
        {
            return Err("tree roots out of order or out of range".into());
        }
        if feature.iter().any(|&f| f < -1 || f >= n_features as i64) {
            return Err("split feature out of range".into());
        }
        // per node: the end of its tree
        let mut tree_end = vec![0i64; n];
        for (k, &s) in starts.iter().enumerate() {
            let end = starts.get(k + 1).copied().unwrap_or(n as i64);
            tree_end[s as usize..end as usize].fill(end);
        }
        let mut parents = vec![0u8; n];
        for i in 0..n {
            let idx = i as i64;
            if feature[i] < 0 {
                if left[i] != idx || right[i] != idx {
                    return Err("a leaf must point to itself".into());
                }
            } else {
                for child in [left[i], right[i]] {
                    if child <= idx || child >= tree_end[i] {
                        return Err("a child index points outside its tree or backwards".into());
                    }
                    let p = &mut parents[child as usize];
                    if *p > 0 || left[i] == right[i] {
                        return Err("a forest node is shared between parents".into());
                    }
                    *p = 1;
                }
            }
        }
        // Every node has one parent at most and comes after it: from a root, a tree. Its
        // leaves are numbered in a depth-first walk, left first; a node's leaves are the
        // run from the number the walk has reached when it comes to the node, and a
        // node's left subtree's leaves run up to where its right subtree's begin.
        let mut first = vec![0u32; n];
        let mut values = Vec::new();
        let mut first_leaf = Vec::with_capacity(roots.len());
        let mut walked = Vec::new();
        let mut entries: Vec<(u32, f64, u32, Mask)> = Vec::new();
        let mut stack = Vec::new();
        for (t, &root) in roots.iter().enumerate() {
            let base = values.len();
            first_leaf.push(base as u32);
            let mut inner = Vec::new();
            stack.push(root as usize);
            while let Some(i) = stack.pop() {
                first[i] = (values.len() - base) as u32;
                if feature[i] < 0 {
                    values.push(value[i]);
                } else {
                    inner.push(i);
                    stack.push(right[i] as usize);
                    stack.push(left[i] as usize);
                }
            }
            if values.len() - base > MAX_LEAVES {
                // walked instead; a placeholder leaf that `raw` overwrites
                values.truncate(base + 1);
                let end = tree_end[root as usize] as usize;
                walked.push(Walked::new(
                    t,
                    root as usize..end,
                    &feature,
                    &threshold,
                    &missing_left,
                    &left,
                    &right,
                    &value,
                ));
                continue;
            }
            for i in inner {
                let (from, to) = (first[left[i] as usize], first[right[i] as usize]);
                // the left subtree's leaves, bits from..to, ruled out
                let span = (Mask::MAX >> (Mask::BITS - (to - from))) << from;
                let list = feature[i] as usize + if missing_left[i] { 0 } else { n_features };
                entries.push((list as u32, threshold[i], t as u32, !span));
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let lists = 2 * n_features;
        let mut offsets = Vec::with_capacity(lists + 1);
        let (mut thresholds, mut trees, mut masks) = (vec![], vec![], vec![]);
        let mut e = entries.iter().peekable();
        for c in 0..lists as u32 {
            offsets.push(thresholds.len() as u32);
            while let Some(&(_, thr, tree, mask)) = e.next_if(|x| x.0 == c) {
                thresholds.push(thr);
                trees.push(tree);
                masks.push(mask);
            }
            thresholds.push(f64::INFINITY);
            trees.push(0);
            masks.push(Mask::MAX);
        }
        offsets.push(thresholds.len() as u32);
        values.extend([0.0; MAX_LEAVES]);
        let listed = |list: usize| offsets[list + 1] - offsets[list] > 1; // more than a sentinel
        let used = (0..n_features)
            .map(|f| (f as u32, listed(f), listed(n_features + f)))
            .filter(|&(_, left, right)| left || right)
            .collect();
        Ok(Forest {
            n_features,
            baseline,
            starts: offsets,
            used,
            thresholds,
            trees,
            masks,
            first_leaf,
            values,
            walked,
        })
    }

    pub(crate) fn n_features(&self) -> usize {
        self.n_features
    }

    fn n_trees(&self) -> usize {
        self.first_leaf.len()
    }

    /// Sum of leaf values plus baseline per row of `x` (rows x `n_features`, row-major):
    /// the trees' values are added in tree order, then the baseline, as NumPy's
    /// `baseline + reached.reshape(trees, rows).sum(axis=0)` does. NumPy sums a lone row
    /// (a chunk of one row: Python walks `2**20 // trees` rows at a time) pairwise, as a
    /// contiguous reduction, and so does this.
    pub(crate) fn raw(&self, x: &[f64], rows: usize) -> Vec<f64> {
        let nf = self.n_features;
        assert_eq!(x.len(), rows * nf, "expected (rows, {nf}) features");
        let n_trees = self.n_trees();
        let chunk = (PAIRS / n_trees).max(1);
        let mut columns = vec![[f64::NEG_INFINITY; BATCH]; nf];
        let mut standing = vec![[0 as Mask; BATCH]; n_trees];
        let mut out = Vec::with_capacity(rows);
        for (b, batch) in x.chunks(BATCH * nf).enumerate() {
            let n = batch.len() / nf;
            lay_out(&mut columns, batch, n, nf, &self.used);
            self.leaf_sets(&columns, &mut standing);
            let row = |k: usize| &batch[k * nf..(k + 1) * nf];
            // Each row's sum in tree order (as NumPy adds a chunk's rows), accumulated tree
            // by tree for the whole batch: a tree's leaf sets lie together, where gathering
            // one row's leaves read every tree's at a stride (as long as the scan itself).
            let mut sums = [0.0; BATCH];
            let mut from = 0;
            for w in &self.walked {
                self.add_leaves(&mut sums, &standing, from..w.tree);
                for (k, sum) in sums[..n].iter_mut().enumerate() {
                    *sum += w.leaf(row(k));
                }
                from = w.tree + 1;
            }
            self.add_leaves(&mut sums, &standing, from..n_trees);
            for (k, &sum) in sums[..n].iter().enumerate() {
                let r = b * BATCH + k;
                let sum = if r % chunk == 0 && r + 1 == rows {
                    // a lone row in its chunk: NumPy's pairwise sum of its leaves
                    crate::page::features::pairwise_sum(&self.leaves(&standing, k, row(k)))
                } else {
                    sum
                };
                out.push(self.baseline + sum);
            }
        }
        out
    }

    /// Adds the leaf each lane reaches in trees `trees` (all held by masks) to its sum, tree
    /// by tree. A function of its own, with no call inside its loop, so that the 16 sums
    /// stay in registers: beside the walked trees' calls (which may clobber every vector
    /// register) a profile-guided build kept them on the stack, a load and a store per
    /// lane and tree (+10 % of the forests' instructions).
    #[inline(never)]
    fn add_leaves(
        &self,
        sums: &mut [f64; BATCH],
        standing: &[[Mask; BATCH]],
        trees: std::ops::Range<usize>,
    ) {
        let mut acc = *sums;
        for (bits, &at) in standing[trees.clone()].iter().zip(&self.first_leaf[trees]) {
            // the leaf a row reaches is never ruled out, so a bit stands; a tree's values
            // read as one mask's worth (the padding of `values` makes room), so each row's
            // read needs no bounds test of its own
            let values: &[f64; MAX_LEAVES] = self.values[at as usize..][..MAX_LEAVES]
                .try_into()
                .expect("a mask's worth of values");
            // every lane, the padding's too (their sums are not read): a loop of fixed
            // length, unrolled, where one of `n` lanes cost three times the instructions
            for (sum, b) in acc.iter_mut().zip(bits) {
                *sum += values[b.trailing_zeros() as usize % MAX_LEAVES];
            }
        }
        *sums = acc;
    }

    /// One row's raw score, `raw(x, 1)`'s bit for bit, without a batch's layout (for a
    /// model asked once a page, as the page type's: a batch's layout and scan cost a
    /// 16-row batch's work for one row).
    pub(crate) fn raw_row(&self, x: &[f64]) -> f64 {
        let nf = self.n_features;
        assert_eq!(x.len(), nf, "expected {nf} features");
        let mut standing = vec![Mask::MAX; self.n_trees()];
        for c in 0..2 * nf {
            let v = x[c % nf];
            let v = match (v.is_nan(), c < nf) {
                (false, _) => v,
                (true, true) => f64::NEG_INFINITY,
                (true, false) => f64::INFINITY,
            };
            // (every list ends in a threshold of +inf, which no value is above)
            let mut i = self.starts[c] as usize;
            while v > self.thresholds[i] {
                standing[self.trees[i] as usize] &= self.masks[i];
                i += 1;
            }
        }
        let mut leaf: Vec<f64> = standing
            .iter()
            .zip(&self.first_leaf)
            .map(|(bits, &at)| self.values[at as usize + bits.trailing_zeros() as usize])
            .collect();
        for w in &self.walked {
            leaf[w.tree] = w.leaf(x);
        }
        self.baseline + crate::page::features::pairwise_sum(&leaf)
    }

    /// Row `k`'s leaf value in each tree, in tree order (`x`: the row).
    fn leaves(&self, standing: &[[Mask; BATCH]], k: usize, x: &[f64]) -> Vec<f64> {
        let mut leaf: Vec<f64> = standing
            .iter()
            .zip(&self.first_leaf)
            .map(|(bits, &at)| self.values[at as usize + bits[k].trailing_zeros() as usize])
            .collect();
        for w in &self.walked {
            leaf[w.tree] = w.leaf(x);
        }
        leaf
    }

    /// Every tree's leaves left standing for a batch of rows (`n_features` columns of
    /// `BATCH` values). Each feature's two lists are scanned while any row's value passes
    /// the threshold, each row ANDing in the masks of the nodes it passes.
    fn leaf_sets(&self, columns: &[[f64; BATCH]], standing: &mut [[Mask; BATCH]]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            // SAFETY: this processor has AVX-512 F and VL (asked just now)
            return unsafe { self.leaf_sets_avx512(columns, standing) };
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: this processor has AVX2 (asked just now)
            return unsafe { self.leaf_sets_avx2(columns, standing) };
        }
        self.scan(columns, standing)
    }

    /// [`Forest::scan`] compiled for AVX-512: a batch's compares eight rows to an
    /// instruction into a mask register, which selects the lanes an AND writes, so the
    /// compares' results are not packed and blended as AVX2's are.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vl")]
    unsafe fn leaf_sets_avx512(&self, columns: &[[f64; BATCH]], standing: &mut [[Mask; BATCH]]) {
        self.scan(columns, standing)
    }

    /// [`Forest::scan`] compiled for AVX2: a batch's compares four rows to an instruction
    /// and its ANDs eight, rather than two and four.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn leaf_sets_avx2(&self, columns: &[[f64; BATCH]], standing: &mut [[Mask; BATCH]]) {
        self.scan(columns, standing)
    }

    #[inline(always)]
    fn scan(&self, columns: &[[f64; BATCH]], standing: &mut [[Mask; BATCH]]) {
        let nf = columns.len();
        assert!(self.starts.len() == 2 * nf + 1 && standing.len() == self.n_trees());
        standing.fill([Mask::MAX; BATCH]);
        for &(c, left, right) in &self.used {
            let c = c as usize;
            let v = &columns[c];
            let (top, nan) = top_of(v);
            if left {
                // missing values go left: a NaN passes no node
                self.scan_list(c, v, top, standing, |x, t| x > t);
            }
            if right {
                // missing values go right: a NaN passes every node, and the list is read whole
                let top = if nan { f64::INFINITY } else { top };
                #[allow(clippy::neg_cmp_op_on_partial_ord)] // true for NaN, as it must be
                self.scan_list(nf + c, v, top, standing, |x, t| !(x <= t));
            }
        }
    }

    /// List `list`'s entries, from the lowest threshold while `top` is above it, ANDed into
    /// the leaf sets of the rows `passes` sends right.
    #[inline(always)]
    fn scan_list(
        &self,
        list: usize,
        v: &[f64; BATCH],
        top: f64,
        standing: &mut [[Mask; BATCH]],
        passes: impl Fn(f64, f64) -> bool,
    ) {
        let mut i = self.starts[list] as usize;
        // SAFETY: `new` ends every list with a threshold of +inf, which no `top` is above,
        // before the next list's start or the end of the arrays, and gives every entry a
        // tree below `n_trees`, the length of `standing` (asserted by `scan`).
        unsafe {
            loop {
                let threshold = *self.thresholds.get_unchecked(i);
                if top <= threshold {
                    break;
                }
                let mask = *self.masks.get_unchecked(i);
                let set = standing.get_unchecked_mut(*self.trees.get_unchecked(i) as usize);
                for (s, &x) in set.iter_mut().zip(v) {
                    *s &= if passes(x, threshold) {
                        mask
                    } else {
                        Mask::MAX
                    };
                }
                i += 1;
            }
        }
    }

    /// The logistic function of [`Forest::raw`].
    pub(crate) fn proba(&self, x: &[f64], rows: usize) -> Vec<f64> {
        let mut out = self.raw(x, rows);
        for v in &mut out {
            *v = 1.0 / (1.0 + (-*v).exp());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// x0 <= 0.5 (NaN right) ? leaf -1 : (x1 <= 2 (NaN left) ? leaf 2 : leaf 3)
    fn small() -> Forest {
        Forest::new(
            2,
            0.25,
            vec![0],
            vec![0, -1, 1, -1, -1],
            vec![0.5, 0.0, 2.0, 0.0, 0.0],
            vec![false, false, true, false, false],
            vec![1, 1, 3, 3, 4],
            vec![2, 1, 4, 3, 4],
            vec![0.0, -1.0, 0.0, 2.0, 3.0],
        )
        .unwrap()
    }

    #[test]
    fn walks_left_on_less_or_equal_and_routes_nan() {
        let f = small();
        let nan = f64::NAN;
        let x = [0.5, 9.0, 0.6, 2.0, 0.6, 2.1, nan, nan, nan, 5.0, -1.0, nan];
        let raw = f.raw(&x, 6);
        assert_eq!(raw, vec![-0.75, 2.25, 3.25, 2.25, 3.25, -0.75]);
        let p = f.proba(&x[..2], 1);
        assert_eq!(p[0], 1.0 / (1.0 + 0.75f64.exp()));
    }

    #[test]
    fn sums_trees_in_order_then_adds_the_baseline() {
        // three one-leaf trees: ((0.1 + 0.2) + 0.3) + baseline
        let f = Forest::new(
            1,
            1e-17,
            vec![0, 1, 2],
            vec![-1; 3],
            vec![0.0; 3],
            vec![false; 3],
            vec![0, 1, 2],
            vec![0, 1, 2],
            vec![0.1, 0.2, 0.3],
        )
        .unwrap();
        assert_eq!(f.raw(&[0.0], 1)[0], 1e-17 + ((0.1 + 0.2) + 0.3));
        // many trees
        let k = 35;
        let vals: Vec<f64> = (0..k).map(|i| 1.0 / (i as f64 + 3.0)).collect();
        let idx: Vec<i64> = (0..k as i64).collect();
        let f = Forest::new(
            1,
            0.5,
            idx.clone(),
            vec![-1; k],
            vec![0.0; k],
            vec![false; k],
            idx.clone(),
            idx,
            vals.clone(),
        )
        .unwrap();
        let want = 0.5 + vals.iter().fold(0.0, |a, v| a + v);
        assert_eq!(f.raw(&[0.0, 0.0], 2), vec![want, want]);
        // a lone row is summed pairwise (NumPy's contiguous reduction)
        let lone = 0.5 + crate::page::features::pairwise_sum(&vals);
        assert_eq!(f.raw(&[0.0], 1)[0], lone);
    }

    /// A deterministic random forest in the model's array form, trees of varying depth.
    #[allow(clippy::type_complexity)]
    fn random_arrays(
        trees: usize,
        nf: usize,
        seed: u64,
    ) -> (
        Vec<i64>,
        Vec<i64>,
        Vec<f64>,
        Vec<bool>,
        Vec<i64>,
        Vec<i64>,
        Vec<f64>,
    ) {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as f64 / (1u64 << 31) as f64
        };
        let (mut roots, mut feature, mut thr, mut ml, mut left, mut right, mut value) =
            (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
        for t in 0..trees {
            let root = feature.len();
            roots.push(root as i64);
            // grow depth-first: a stack of (node, depth) to split or make leaves
            // up to 512 leaves: some trees walked
            let max_depth = 1 + t % 9;
            let mut stack = vec![(root, 0usize)];
            feature.push(0);
            thr.push(0.0);
            ml.push(false);
            left.push(0);
            right.push(0);
            value.push(0.0);
            while let Some((i, d)) = stack.pop() {
                if d < max_depth && (d == 0 || next() < 0.7) {
                    feature[i] = (next() * nf as f64) as i64;
                    thr[i] = next() * 2.0 - 1.0;
                    ml[i] = next() < 0.5;
                    let l = feature.len();
                    for _ in 0..2 {
                        feature.push(0);
                        thr.push(0.0);
                        ml.push(false);
                        left.push(0);
                        right.push(0);
                        value.push(0.0);
                    }
                    left[i] = l as i64;
                    right[i] = l as i64 + 1;
                    stack.push((l + 1, d + 1));
                    stack.push((l, d + 1));
                } else {
                    feature[i] = -1;
                    left[i] = i as i64;
                    right[i] = i as i64;
                    value[i] = next() - 0.5;
                }
            }
        }
        (roots, feature, thr, ml, left, right, value)
    }

    /// `n` feature values in [-1.1, 1.1), about `nan_share` of them NaN (an LCG from `seed`).
    fn random_values(n: usize, seed: u64, nan_share: f64) -> Vec<f64> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                let u = (state >> 33) as f64 / (1u64 << 31) as f64;
                if u < nan_share {
                    f64::NAN
                } else {
                    u * 2.2 - 1.1
                }
            })
            .collect()
    }

    #[test]
    fn matches_a_plain_walk_over_the_arrays() {
        let nf = 5;
        let (roots, feature, thr, ml, left, right, value) = random_arrays(53, nf, 11);
        let f = Forest::new(
            nf,
            -0.3,
            roots.clone(),
            feature.clone(),
            thr.clone(),
            ml.clone(),
            left.clone(),
            right.clone(),
            value.clone(),
        )
        .unwrap();
        // both evaluations: trees of at most MAX_LEAVES leaves by masks, the others walked
        assert!(!f.walked.is_empty() && f.walked.len() < f.n_trees());
        let x = random_values(40 * nf, 5, 0.15);
        let leaves = |xr: &[f64]| -> Vec<f64> {
            roots
                .iter()
                .map(|&r| {
                    let mut i = r as usize;
                    while feature[i] >= 0 {
                        let v = xr[feature[i] as usize];
                        let go_left = if v.is_nan() { ml[i] } else { v <= thr[i] };
                        i = if go_left { left[i] } else { right[i] } as usize;
                    }
                    value[i]
                })
                .collect()
        };
        let raw = f.raw(&x, 40);
        for (r, xr) in x.chunks(nf).enumerate() {
            let want = -0.3 + leaves(xr).iter().fold(0.0, |a, v| a + v);
            assert_eq!(raw[r].to_bits(), want.to_bits(), "row {r}");
        }
        let one = f.raw(&x[..nf], 1)[0];
        assert_eq!(
            one,
            -0.3 + crate::page::features::pairwise_sum(&leaves(&x[..nf]))
        );
        // one row alone, without a batch: the same bits, NaN routed alike
        for xr in x.chunks(nf) {
            assert_eq!(f.raw_row(xr).to_bits(), f.raw(xr, 1)[0].to_bits());
        }
    }

    #[test]
    fn every_compiled_scan_leaves_the_same_leaf_sets() {
        // `raw` takes the widest scan this processor has; each other one it has must agree
        // with the portable one, set for set (NaN and -inf padding included)
        let nf = 6;
        let (roots, feature, thr, ml, left, right, value) = random_arrays(40, nf, 7);
        let f = Forest::new(nf, 0.0, roots, feature, thr, ml, left, right, value).unwrap();
        let x = random_values((BATCH - 3) * nf, 11, 0.1);
        let mut columns = vec![[f64::NEG_INFINITY; BATCH]; nf];
        lay_out(&mut columns, &x, BATCH - 3, nf, &f.used);
        let sets = |scan: &dyn Fn(&mut [[Mask; BATCH]])| {
            let mut standing = vec![[0 as Mask; BATCH]; f.n_trees()];
            scan(&mut standing);
            standing
        };
        let portable = sets(&|s| f.scan(&columns, s));
        assert!(portable.iter().flatten().any(|&m| m != Mask::MAX));
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: this processor has AVX2 (asked just now)
                assert_eq!(
                    sets(&|s| unsafe { f.leaf_sets_avx2(&columns, s) }),
                    portable
                );
            }
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
            {
                // SAFETY: this processor has AVX-512 F and VL (asked just now)
                assert_eq!(
                    sets(&|s| unsafe { f.leaf_sets_avx512(&columns, s) }),
                    portable
                );
            }
        }
    }

    #[test]
    fn a_tree_of_as_many_leaves_as_mask_bits_is_masked_and_one_more_walked_to_the_same_leaves() {
        // a chain: inner node j (at 2j) sends x <= j + 0.5 to leaf j (at 2j + 1), the rest
        // on; the last leaf (at 2(L - 1)) takes x above every threshold
        for leaves in [MAX_LEAVES, MAX_LEAVES + 1] {
            let n = 2 * leaves - 1;
            let (mut feature, mut thr, mut left, mut right, mut value) = (
                vec![-1i64; n],
                vec![0.0; n],
                vec![0i64; n],
                vec![0i64; n],
                vec![0.0; n],
            );
            for i in 0..n {
                (left[i], right[i]) = (i as i64, i as i64);
            }
            for j in 0..leaves - 1 {
                feature[2 * j] = 0;
                thr[2 * j] = j as f64 + 0.5;
                (left[2 * j], right[2 * j]) = (2 * j as i64 + 1, 2 * j as i64 + 2);
                value[2 * j + 1] = j as f64;
            }
            value[n - 1] = (leaves - 1) as f64;
            let f = Forest::new(
                1,
                0.0,
                vec![0],
                feature,
                thr,
                vec![true; n],
                left,
                right,
                value,
            )
            .unwrap();
            assert_eq!(f.walked.len(), usize::from(leaves > MAX_LEAVES));
            let x: Vec<f64> = (0..leaves).map(|j| j as f64).collect();
            assert_eq!(f.raw(&x, leaves), x, "{leaves} leaves");
            // a missing value goes left at the root
            assert_eq!(f.raw(&[f64::NAN], 1), vec![0.0]);
        }
    }

    #[test]
    fn refuses_broken_forests() {
        let ok = |roots: Vec<i64>, feature: Vec<i64>, left: Vec<i64>, right: Vec<i64>| {
            let n = feature.len();
            Forest::new(
                2,
                0.0,
                roots,
                feature,
                vec![0.0; n],
                vec![false; n],
                left,
                right,
                vec![0.0; n],
            )
        };
        assert!(ok(vec![0], vec![0, -1, -1], vec![1, 1, 2], vec![2, 1, 2]).is_ok());
        // a child before its parent (a loop)
        assert!(ok(vec![0], vec![0, 0, -1], vec![1, 0, 2], vec![2, 2, 2]).is_err());
        // a child outside its tree
        assert!(ok(vec![0, 2], vec![0, -1, -1], vec![1, 1, 2], vec![2, 1, 2]).is_err());
        // a leaf that does not point to itself
        assert!(ok(vec![0], vec![0, -1, -1], vec![1, 2, 2], vec![2, 1, 2]).is_err());
        // a feature out of range
        assert!(ok(vec![0], vec![2, -1, -1], vec![1, 1, 2], vec![2, 1, 2]).is_err());
        // roots not starting at 0
        assert!(ok(vec![1], vec![0, -1, -1], vec![1, 1, 2], vec![2, 1, 2]).is_err());
        // a node shared by two parents
        assert!(ok(vec![0], vec![0, 0, -1], vec![1, 2, 2], vec![1, 2, 2]).is_err());
        // non-finite values
        assert!(Forest::new(
            1,
            0.0,
            vec![0],
            vec![-1],
            vec![0.0],
            vec![false],
            vec![0],
            vec![0],
            vec![f64::NAN]
        )
        .is_err());
        assert!(Forest::new(
            1,
            f64::INFINITY,
            vec![0],
            vec![-1],
            vec![0.0],
            vec![false],
            vec![0],
            vec![0],
            vec![0.0]
        )
        .is_err());
    }
}
