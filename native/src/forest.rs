//! Gradient-boosted trees as plain arrays (a port of `sitesift/extractor/forest.py`).
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
//! For evaluation each tree is laid out breadth first, so a node's right child is its left
//! child + 1, in 16-byte nodes. Where a missing value goes is folded into the column read,
//! as the Python evaluator does: each row is laid out twice, NaN read as -inf (goes left) in
//! the first copy and +inf (goes right) in the second, and each node reads the copy its
//! missing values follow; a step is then `node = left + (x > threshold)`, without a branch.
//! A leaf is its own left child with an infinite threshold, so a walk may step on from a
//! leaf and stay there: a row walks a group of trees of about the same depth side by side
//! for as many steps as the deepest of them needs, and the processor overlaps those
//! independent walks.

/// One node as evaluated.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Node {
    /// go right when `x > threshold` (+inf on leaves: a leaf stays where it is)
    threshold: f64,
    /// the column of the doubled row to read: the feature, + n_features where a NaN goes
    /// right (0 on leaves)
    column: u32,
    /// the left child (the right one follows it); a leaf's is itself
    left: u32,
}

/// Trees walked side by side by one row.
const GROUP: usize = 16;
/// Python walks this many (tree, row) pairs at once: `2**20 // trees` rows per chunk.
const PAIRS: usize = 1 << 20;

/// Trees in flat arrays, laid out for evaluation.
#[derive(Clone, Debug)]
pub struct Forest {
    n_features: usize,
    baseline: f64,
    nodes: Vec<Node>,
    /// leaf values, by evaluation node (0 on inner nodes)
    values: Vec<f64>,
    /// each tree's root (evaluation index), in the model's tree order
    roots: Vec<u32>,
    /// the trees by depth (shallowest first): consecutive [`GROUP`]s are walked together
    by_depth: Vec<u32>,
    /// per group of `by_depth`: the steps that take every walk of it to its leaf
    group_steps: Vec<u32>,
}

impl Forest {
    /// A forest from the arrays of its JSON form (`Forest.to_dict`): `roots[t]` is tree
    /// t's first node; per node `feature` (-1 on leaves), `threshold`, `missing_left`,
    /// `left` and `right` (a leaf points to itself) and `value` (leaf values).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
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
                }
            }
        }
        // Breadth-first layout per tree: children side by side, right = left + 1. A node
        // reached from two parents would be laid out twice; more nodes than the model holds
        // (a shared node's subtree copied over and over) is refused.
        let mut lay = Layout {
            nodes: Vec::with_capacity(n),
            values: Vec::with_capacity(n),
            old_of: Vec::with_capacity(n),
            depth_of: Vec::with_capacity(n),
        };
        let mut new_roots = Vec::with_capacity(roots.len());
        let mut tree_depth = Vec::with_capacity(roots.len());
        let arrays = (
            n_features,
            &feature[..],
            &threshold[..],
            &missing_left[..],
            &value[..],
        );
        for &root in &roots {
            let first = lay.nodes.len();
            new_roots.push(first as u32);
            lay.push(root as usize, 0, arrays)?;
            let mut head = first;
            let mut deepest = 0;
            while head < lay.nodes.len() {
                let (old, depth) = (lay.old_of[head], lay.depth_of[head]);
                deepest = deepest.max(depth);
                if feature[old] >= 0 {
                    lay.nodes[head].left = lay.nodes.len() as u32;
                    lay.push(left[old] as usize, depth + 1, arrays)?;
                    lay.push(right[old] as usize, depth + 1, arrays)?;
                }
                head += 1;
            }
            tree_depth.push(deepest);
        }
        let Layout { nodes, values, .. } = lay;
        let mut by_depth: Vec<u32> = (0..roots.len() as u32).collect();
        by_depth.sort_by_key(|&t| tree_depth[t as usize]);
        let group_steps = by_depth
            .chunks(GROUP)
            .map(|g| g.iter().map(|&t| tree_depth[t as usize]).max().unwrap_or(0))
            .collect();
        Ok(Forest {
            n_features,
            baseline,
            nodes,
            values,
            roots: new_roots,
            by_depth,
            group_steps,
        })
    }

    pub fn n_features(&self) -> usize {
        self.n_features
    }

    pub fn n_trees(&self) -> usize {
        self.roots.len()
    }

    pub fn baseline(&self) -> f64 {
        self.baseline
    }

    /// Sum of leaf values plus baseline per row of `x` (rows x `n_features`, row-major):
    /// the trees' values are added in tree order, then the baseline, as NumPy's
    /// `baseline + reached.reshape(trees, rows).sum(axis=0)` does. NumPy sums a lone row
    /// (a chunk of one row: Python walks `2**20 // trees` rows at a time) pairwise, as a
    /// contiguous reduction, and so does this.
    pub fn raw(&self, x: &[f64], rows: usize) -> Vec<f64> {
        let nf = self.n_features;
        assert_eq!(x.len(), rows * nf, "expected (rows, {nf}) features");
        let chunk = (PAIRS / self.roots.len()).max(1);
        let mut doubled = vec![0.0; 2 * nf];
        let mut leaf = vec![0.0; self.roots.len()];
        let mut out = Vec::with_capacity(rows);
        for (r, xr) in x.chunks_exact(nf).enumerate() {
            let (missing_left, missing_right) = doubled.split_at_mut(nf);
            for ((&v, l), h) in xr.iter().zip(missing_left).zip(missing_right) {
                let nan = v.is_nan();
                *l = if nan { f64::NEG_INFINITY } else { v };
                *h = if nan { f64::INFINITY } else { v };
            }
            self.leaves(&doubled, &mut leaf);
            let sum = if r % chunk == 0 && r + 1 == rows {
                crate::features::pairwise_sum(&leaf)
            } else {
                let mut sum = 0.0;
                for &v in &leaf {
                    sum += v;
                }
                sum
            };
            out.push(self.baseline + sum);
        }
        out
    }

    /// Every tree's leaf value for one doubled row (`2 * n_features` values), by tree.
    fn leaves(&self, doubled: &[f64], leaf: &mut [f64]) {
        assert!(doubled.len() == 2 * self.n_features && leaf.len() == self.roots.len());
        let nodes = &self.nodes[..];
        let step = |at: u32| -> u32 {
            // SAFETY: `new` lays out every inner node's two children (left, left + 1) and
            // points every leaf to itself, all inside `nodes`, and gives every column below
            // 2 * n_features, the length of `doubled` (checked above).
            unsafe {
                let node = nodes.get_unchecked(at as usize);
                let v = *doubled.get_unchecked(node.column as usize);
                node.left + u32::from(v > node.threshold)
            }
        };
        for (trees, &steps) in self.by_depth.chunks(GROUP).zip(&self.group_steps) {
            let k = trees.len();
            let mut at = [0u32; GROUP];
            for (a, &t) in at.iter_mut().zip(trees) {
                *a = self.roots[t as usize];
            }
            for _ in 0..steps {
                for a in at[..k].iter_mut() {
                    *a = step(*a);
                }
            }
            for (&a, &t) in at[..k].iter().zip(trees) {
                leaf[t as usize] = self.values[a as usize];
            }
        }
    }

    /// The logistic function of [`Forest::raw`].
    pub fn proba(&self, x: &[f64], rows: usize) -> Vec<f64> {
        let mut out = self.raw(x, rows);
        for v in &mut out {
            *v = 1.0 / (1.0 + (-*v).exp());
        }
        out
    }
}

/// The model's arrays a node is laid out from.
type LayoutArrays<'a> = (usize, &'a [i64], &'a [f64], &'a [bool], &'a [f64]);

/// The evaluation layout while it is built.
struct Layout {
    nodes: Vec<Node>,
    values: Vec<f64>,
    /// the model's index of each laid-out node, and its depth
    old_of: Vec<usize>,
    depth_of: Vec<u32>,
}

impl Layout {
    fn push(
        &mut self,
        old: usize,
        depth: u32,
        (n_features, feature, threshold, missing_left, value): LayoutArrays<'_>,
    ) -> Result<(), String> {
        if self.nodes.len() >= feature.len() {
            return Err("a forest node is shared between parents".into());
        }
        let pos = self.nodes.len() as u32;
        let leaf = feature[old] < 0;
        self.nodes.push(if leaf {
            // reads the NaN-as-(-inf) copy: nothing is above +inf, every row stays
            Node {
                threshold: f64::INFINITY,
                column: 0,
                left: pos,
            }
        } else {
            let right = if missing_left[old] { 0 } else { n_features };
            Node {
                threshold: threshold[old],
                column: (feature[old] as usize + right) as u32,
                left: 0,
            }
        });
        self.values.push(if leaf { value[old] } else { 0.0 });
        self.old_of.push(old);
        self.depth_of.push(depth);
        Ok(())
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
        // more trees than one group, a partial group at the end
        let k = 2 * GROUP + 3;
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
        let lone = 0.5 + crate::features::pairwise_sum(&vals);
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
        let mut state = 5u64;
        let x: Vec<f64> = (0..40 * nf)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                let u = (state >> 33) as f64 / (1u64 << 31) as f64;
                if u < 0.15 {
                    f64::NAN
                } else {
                    u * 2.2 - 1.1
                }
            })
            .collect();
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
        assert_eq!(one, -0.3 + crate::features::pairwise_sum(&leaves(&x[..nf])));
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
        // a node shared by two parents whose copies outnumber the nodes
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
