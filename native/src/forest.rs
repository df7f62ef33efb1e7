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
//! child + 1, in 16-byte nodes; a leaf is its own left child with an infinite threshold.
//! Every step is then the same branch-free `node = left + goes_right`, and a row walks a
//! group of trees side by side for as many steps as the deepest of them needs: the walks
//! are independent, so the processor overlaps their memory reads.

/// One node as evaluated.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Node {
    /// go left when `x <= threshold` (+inf on leaves: a leaf stays where it is)
    threshold: f64,
    /// feature index, with [`MISSING_LEFT`] set where a NaN goes left (set on leaves)
    feature: u32,
    /// the left child (the right one follows it); a leaf's is itself
    left: u32,
}

const MISSING_LEFT: u32 = 1 << 31;
const FEATURE_MASK: u32 = MISSING_LEFT - 1;
/// Trees walked side by side by one row.
const GROUP: usize = 8;

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
    /// per group of [`GROUP`] trees: the steps that take every walk to its leaf
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
        if [threshold.len(), missing_left.len(), left.len(), right.len(), value.len()]
            .iter()
            .any(|&len| len != n)
        {
            return Err("forest arrays differ in length".into());
        }
        if n >= FEATURE_MASK as usize {
            return Err("a forest of too many nodes".into());
        }
        if !(0 < n_features && n_features < 100_000) || !baseline.is_finite() {
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
        let mut lay = Layout { nodes: Vec::with_capacity(n), values: Vec::with_capacity(n),
                               old_of: Vec::with_capacity(n), depth_of: Vec::with_capacity(n) };
        let mut new_roots = Vec::with_capacity(roots.len());
        let mut tree_depth = Vec::with_capacity(roots.len());
        let arrays = (&feature[..], &threshold[..], &missing_left[..], &value[..]);
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
        let group_steps =
            tree_depth.chunks(GROUP).map(|g| g.iter().copied().max().unwrap_or(0)).collect();
        Ok(Forest { n_features, baseline, nodes, values, roots: new_roots, group_steps })
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
    /// the trees' values are added in tree order, then the baseline (as NumPy does).
    pub fn raw(&self, x: &[f64], rows: usize) -> Vec<f64> {
        let nf = self.n_features;
        assert_eq!(x.len(), rows * nf, "expected (rows, {nf}) features");
        let nodes = &self.nodes[..];
        let mut out = Vec::with_capacity(rows);
        for xr in x.chunks_exact(nf) {
            let mut sum = 0.0;
            for (trees, &steps) in self.roots.chunks(GROUP).zip(&self.group_steps) {
                let mut at = [0u32; GROUP];
                at[..trees.len()].copy_from_slice(trees);
                if trees.len() == GROUP {
                    for _ in 0..steps {
                        for a in at.iter_mut() {
                            *a = step(nodes, xr, *a);
                        }
                    }
                } else {
                    for _ in 0..steps {
                        for a in at[..trees.len()].iter_mut() {
                            *a = step(nodes, xr, *a);
                        }
                    }
                }
                for &a in &at[..trees.len()] {
                    sum += self.values[a as usize];
                }
            }
            out.push(self.baseline + sum);
        }
        out
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

/// The evaluation layout while it is built.
struct Layout {
    nodes: Vec<Node>,
    values: Vec<f64>,
    /// the model's index of each laid-out node, and its depth
    old_of: Vec<usize>,
    depth_of: Vec<u32>,
}

impl Layout {
    fn push(&mut self, old: usize, depth: u32,
            (feature, threshold, missing_left, value): (&[i64], &[f64], &[bool], &[f64]))
            -> Result<(), String> {
        if self.nodes.len() >= feature.len() {
            return Err("a forest node is shared between parents".into());
        }
        let pos = self.nodes.len() as u32;
        let leaf = feature[old] < 0;
        self.nodes.push(if leaf {
            Node { threshold: f64::INFINITY, feature: MISSING_LEFT, left: pos }
        } else {
            let ml = if missing_left[old] { MISSING_LEFT } else { 0 };
            Node { threshold: threshold[old], feature: feature[old] as u32 | ml, left: 0 }
        });
        self.values.push(if leaf { value[old] } else { 0.0 });
        self.old_of.push(old);
        self.depth_of.push(depth);
        Ok(())
    }
}

/// One step down: left when `x <= threshold`, a NaN where the node sends missing values.
#[inline(always)]
fn step(nodes: &[Node], xr: &[f64], at: u32) -> u32 {
    let node = nodes[at as usize];
    let v = xr[(node.feature & FEATURE_MASK) as usize];
    let left = v <= node.threshold || (v.is_nan() && node.feature & MISSING_LEFT != 0);
    node.left + u32::from(!left)
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
        let f = Forest::new(1, 1e-17, vec![0, 1, 2], vec![-1; 3], vec![0.0; 3], vec![false; 3],
                            vec![0, 1, 2], vec![0, 1, 2], vec![0.1, 0.2, 0.3]).unwrap();
        assert_eq!(f.raw(&[0.0], 1)[0], 1e-17 + ((0.1 + 0.2) + 0.3));
        // more trees than one group, a partial group at the end
        let k = 2 * GROUP + 3;
        let vals: Vec<f64> = (0..k).map(|i| 1.0 / (i as f64 + 3.0)).collect();
        let idx: Vec<i64> = (0..k as i64).collect();
        let f = Forest::new(1, 0.5, idx.clone(), vec![-1; k], vec![0.0; k], vec![false; k],
                            idx.clone(), idx, vals.clone()).unwrap();
        let want = 0.5 + vals.iter().fold(0.0, |a, v| a + v);
        assert_eq!(f.raw(&[0.0], 1)[0], want);
    }

    #[test]
    fn refuses_broken_forests() {
        let ok = |roots: Vec<i64>, feature: Vec<i64>, left: Vec<i64>, right: Vec<i64>| {
            let n = feature.len();
            Forest::new(2, 0.0, roots, feature, vec![0.0; n], vec![false; n], left, right,
                        vec![0.0; n])
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
        assert!(Forest::new(1, 0.0, vec![0], vec![-1], vec![0.0], vec![false], vec![0], vec![0],
                            vec![f64::NAN]).is_err());
        assert!(Forest::new(1, f64::INFINITY, vec![0], vec![-1], vec![0.0], vec![false],
                            vec![0], vec![0], vec![0.0]).is_err());
    }
}
