//! Whether a page is unlike every page the model trained on: its descriptor (a few
//! page-wide means of its blocks' features) lies farther from its nearest training pages
//! than most training pages lie from the pages of other sites.
//!
//! The model's probabilities mean different things on such a page. Where it learnt a kind of
//! page, a block it half-believes is usually noise it learnt to doubt; on a kind it never
//! saw (a service page's feature tiles for a model of news corpora), the same probability is
//! only its not knowing. Rules that trust the page's layout over the model's doubt
//! (`rules::unseen::fill`) ask this first (docs/lab/loco.md, "Pages unlike the training pages").

use std::sync::OnceLock;

use crate::page::features::{FEATURES, N_FEATURES};

/// Block features whose token-weighted mean over the page describes it: how much of its
/// text is links, prose, list items, table cells, headings, records, and where it lies.
/// None depends on the site's other pages, so a page is described alone.
const MEANS: [&str; 21] = [
    "link_density",
    "stop_share",
    "tag_li",
    "tag_td",
    "tag_p",
    "tag_div",
    "heading_level",
    "in_best",
    "sib0_log_same",
    "sib1_log_same",
    "up_comment",
    "up_product",
    "up_forum",
    "up_card",
    "up_t_article",
    "up_t_main",
    "has_date",
    "log_tokens",
    "up_nav",
    "up_t_list",
    "sentence_end_rate",
];

/// Page-level features (alike on every block of a page), taken as they are.
const PAGE: [&str; 6] = [
    "page_log_tokens",
    "page_log_blocks",
    "page_link_density",
    "page_log_long_paras",
    "url_depth",
    "url_digits",
];

/// The descriptor's length.
pub(crate) const WIDTH: usize = MEANS.len() + PAGE.len();

/// The descriptor's column names, in order.
pub(crate) fn columns() -> Vec<&'static str> {
    MEANS.iter().chain(PAGE.iter()).copied().collect()
}

fn column_indices() -> &'static [usize; WIDTH] {
    static IDX: OnceLock<[usize; WIDTH]> = OnceLock::new();
    IDX.get_or_init(|| {
        let mut out = [0; WIDTH];
        for (slot, name) in out.iter_mut().zip(columns()) {
            *slot = FEATURES
                .iter()
                .position(|&f| f == name)
                .unwrap_or_else(|| panic!("novelty column {name} is no feature"));
        }
        out
    })
}

/// A page's descriptor from its blocks' features (`x`, rows of `N_FEATURES`) and tokens:
/// `MEANS` weighted by tokens + 1 (a page is its text, and an empty block still counts),
/// then the first block's `PAGE` columns. A missing value counts as 0; a page without
/// blocks is all zeros.
pub(crate) fn descriptor(x: &[f64], ntok: &[f64]) -> Vec<f64> {
    let idx = column_indices();
    let n = ntok.len().min(x.len() / N_FEATURES);
    let mut out = vec![0.0; WIDTH];
    if n == 0 {
        return out;
    }
    let value = |row: usize, col: usize| {
        let v = x[row * N_FEATURES + col];
        if v.is_finite() {
            v
        } else {
            0.0
        }
    };
    let total: f64 = ntok[..n].iter().map(|t| t + 1.0).sum();
    for (slot, &col) in out.iter_mut().zip(idx.iter()).take(MEANS.len()) {
        *slot = (0..n).map(|r| value(r, col) * (ntok[r] + 1.0)).sum::<f64>() / total;
    }
    for (slot, &col) in out.iter_mut().zip(idx.iter()).skip(MEANS.len()) {
        *slot = value(0, col);
    }
    out
}

/// What a reference is made of, as a model file holds it; `Reference::new` checks it.
#[derive(Clone)]
pub(crate) struct Parts {
    /// the descriptors' means and scales (`WIDTH` each), that standardize them
    pub(crate) mean: Vec<f64>,
    pub(crate) scale: Vec<f64>,
    /// rows of `WIDTH`, standardized
    pub(crate) points: Vec<f64>,
    /// each point's site, an index into `sites`
    pub(crate) site: Vec<usize>,
    pub(crate) sites: Vec<String>,
    /// how many nearest points a distance is the mean of
    pub(crate) k: usize,
    /// the distance beyond which a page is unlike the points
    pub(crate) cut: f64,
}

/// The training pages' descriptors, standardized, with each page's site, and the distance
/// beyond which a page is unlike them (`cut`): `Parts` that were checked.
#[derive(Clone)]
pub(crate) struct Reference(Parts);

impl Reference {
    pub(crate) fn new(p: Parts) -> Result<Self, String> {
        if p.mean.len() != WIDTH || p.scale.len() != WIDTH {
            return Err(format!("novelty: {WIDTH} columns expected"));
        }
        if p.points.len() != p.site.len() * WIDTH || p.site.is_empty() {
            return Err("novelty: one site per point, and a point or more".into());
        }
        if p.site.iter().any(|&s| s >= p.sites.len()) {
            return Err("novelty: a point's site is out of range".into());
        }
        if p.k == 0 || p.k > p.site.len() {
            return Err("novelty: k must be 1 to the number of points".into());
        }
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if !finite(&p.mean)
            || !finite(&p.points)
            || p.scale.iter().any(|&s| !(s > 0.0 && s.is_finite()))
        {
            return Err("novelty: means and points must be finite, scales positive".into());
        }
        if p.cut.is_nan() {
            return Err("novelty: the cut is not a number".into());
        }
        Ok(Reference(p))
    }

    /// The training pages' sites (a point's site is an index into them).
    pub(crate) fn sites(&self) -> &[String] {
        &self.0.sites
    }

    /// The distance beyond which a page is unlike the points.
    pub(crate) fn cut(&self) -> f64 {
        self.0.cut
    }

    /// The mean distance from descriptor `d` to its `k` nearest points (standardized
    /// Euclidean), leaving out points whose site `skip` names; infinity where fewer than
    /// `k` remain.
    pub(crate) fn distance(&self, d: &[f64], skip: &dyn Fn(usize) -> bool) -> f64 {
        let q: Vec<f64> = (0..WIDTH)
            .map(|j| (d.get(j).copied().unwrap_or(0.0) - self.0.mean[j]) / self.0.scale[j])
            .collect();
        // the k smallest squared distances, kept sorted (k is small)
        let mut best: Vec<f64> = Vec::with_capacity(self.0.k + 1);
        for (i, row) in self.0.points.chunks_exact(WIDTH).enumerate() {
            if skip(self.0.site[i]) {
                continue;
            }
            let d2: f64 = row.iter().zip(&q).map(|(a, b)| (a - b) * (a - b)).sum();
            if best.len() < self.0.k || d2 < best[best.len() - 1] {
                let at = best.partition_point(|&x| x <= d2);
                best.insert(at, d2);
                best.truncate(self.0.k);
            }
        }
        if best.len() < self.0.k {
            return f64::INFINITY;
        }
        best.iter().map(|x| x.sqrt()).sum::<f64>() / self.0.k as f64
    }

    /// Is the page of descriptor `d` unlike the points `skip` leaves?
    pub(crate) fn novel(&self, d: &[f64], skip: &dyn Fn(usize) -> bool) -> bool {
        self.distance(d, skip) > self.0.cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(points: &[[f64; 2]], sites: &[usize], k: usize, cut: f64) -> Reference {
        let mut flat = Vec::new();
        for p in points {
            let mut row = vec![0.0; WIDTH];
            row[0] = p[0];
            row[1] = p[1];
            flat.extend(row);
        }
        let n_sites = sites.iter().max().map_or(0, |m| m + 1);
        Reference::new(Parts {
            mean: vec![0.0; WIDTH],
            scale: vec![1.0; WIDTH],
            points: flat,
            site: sites.to_vec(),
            sites: (0..n_sites).map(|s| format!("site{s}")).collect(),
            k,
            cut,
        })
        .unwrap()
    }

    fn at(a: f64, b: f64) -> Vec<f64> {
        let mut d = vec![0.0; WIDTH];
        d[0] = a;
        d[1] = b;
        d
    }

    #[test]
    fn the_search_gives_the_k_nearest_of_a_plain_sort_bit_for_bit() {
        let mut state = 7u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
        };
        let n = 400;
        let points: Vec<f64> = (0..n * WIDTH).map(|_| next()).collect();
        let sites: Vec<usize> = (0..n).map(|i| i % 7).collect();
        for k in [1, 5, 12] {
            let r = Reference::new(Parts {
                mean: vec![0.1; WIDTH],
                scale: vec![0.9; WIDTH],
                points: points.clone(),
                site: sites.clone(),
                sites: (0..7).map(|s| format!("site{s}")).collect(),
                k,
                cut: 1.0,
            })
            .unwrap();
            for t in 0..20 {
                let d: Vec<f64> = (0..WIDTH).map(|_| next()).collect();
                let skip = |s: usize| s == t % 7;
                let q: Vec<f64> = (0..WIDTH).map(|j| (d[j] - 0.1) / 0.9).collect();
                let mut all: Vec<f64> = points
                    .chunks_exact(WIDTH)
                    .enumerate()
                    .filter(|&(i, _)| !skip(sites[i]))
                    .map(|(_, row)| row.iter().zip(&q).map(|(a, b)| (a - b) * (a - b)).sum())
                    .collect();
                all.sort_by(f64::total_cmp);
                let plain = all[..k].iter().map(|x: &f64| x.sqrt()).sum::<f64>() / k as f64;
                assert_eq!(
                    r.distance(&d, &skip).to_bits(),
                    plain.to_bits(),
                    "k {k}, page {t}"
                );
            }
        }
    }

    #[test]
    fn distance_is_the_mean_of_the_k_nearest() {
        let r = reference(
            &[[0.0, 0.0], [3.0, 4.0], [6.0, 8.0], [0.0, 1.0]],
            &[0, 1, 2, 3],
            2,
            2.0,
        );
        let none = |_: usize| false;
        assert!((r.distance(&at(0.0, 0.0), &none) - 0.5).abs() < 1e-12);
        assert!(!r.novel(&at(0.0, 0.0), &none));
        // far from all: the two nearest are 5 and 5.83 away
        assert!(r.novel(&at(3.0, 9.0), &none));
    }

    #[test]
    fn a_sites_own_points_can_be_left_out() {
        let r = reference(&[[0.0, 0.0], [0.0, 0.1], [9.0, 9.0]], &[0, 0, 1], 1, 1.0);
        assert!(!r.novel(&at(0.0, 0.0), &|_| false));
        // without its own site the page's nearest point is far: it is unlike the others
        assert!(r.novel(&at(0.0, 0.0), &|s| s == 0));
        // fewer points left than k: infinitely far
        assert_eq!(r.distance(&at(0.0, 0.0), &|_| true), f64::INFINITY);
    }

    #[test]
    fn descriptors_weigh_blocks_by_tokens() {
        let idx = column_indices();
        let mut x = vec![0.0; 2 * N_FEATURES];
        x[idx[0]] = 1.0; // first block all links
        x[N_FEATURES + idx[0]] = 0.0;
        x[idx[MEANS.len()]] = 7.0; // a page column, read from the first block
        x[N_FEATURES + idx[1]] = f64::NAN; // missing counts as 0
        let d = descriptor(&x, &[1.0, 2.0]);
        assert!((d[0] - 2.0 / 5.0).abs() < 1e-12);
        assert_eq!(d[1], 0.0);
        assert_eq!(d[MEANS.len()], 7.0);
        assert_eq!(descriptor(&[], &[]), vec![0.0; WIDTH]);
    }

    #[test]
    fn bad_references_are_refused() {
        let ok = |k, cut| {
            Reference::new(Parts {
                mean: vec![0.0; WIDTH],
                scale: vec![1.0; WIDTH],
                points: vec![0.0; WIDTH],
                site: vec![0],
                sites: vec!["a".into()],
                k,
                cut,
            })
        };
        assert!(ok(1, 1.0).is_ok());
        assert!(ok(2, 1.0).is_err());
        assert!(ok(0, 1.0).is_err());
        assert!(ok(1, f64::NAN).is_err());
        let zero_scale = Reference::new(Parts {
            mean: vec![0.0; WIDTH],
            scale: vec![0.0; WIDTH],
            points: vec![0.0; WIDTH],
            site: vec![0],
            sites: vec!["a".into()],
            k: 1,
            cut: 1.0,
        });
        assert!(zero_scale.is_err());
    }
}
