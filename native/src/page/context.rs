//! Second-stage features: the first stage's content probabilities around each block.
//!
//! The one home of these numbers (`sitesift/extractor/context.py` only asks the core for
//! them), in the order of operations of the NumPy code they replaced. Content is
//! mostly one region, and the blocks of a container share a fate: a paragraph among
//! paragraphs the first stage is sure of is content even where its own evidence is thin, a
//! lone "article-like" block inside a sidebar is not. For each block: the probabilities of
//! its neighbours, token-weighted means over windows, over the blocks under each of its
//! ancestors (and those ancestors' shares of the page), the page's overall level, the
//! block's rank within the page, how far (in tokens) the nearest likely-content block is,
//! and what kind of page it is (token shares under each kind of part).

use std::sync::OnceLock;

use crate::page::blocks::{ElemId, ATTR_GROUPS};
use crate::page::features::{feature_index, pairwise_sum, CONTEXT_LEVELS, N_FEATURES};

const OFFSETS: [isize; 6] = [-3, -2, -1, 1, 2, 3];
const WINDOWS: [usize; 2] = [3, 10];
/// The tag groups whose `up_t_*` columns tell the page's kind (after every keyword group).
const PAGE_TAG_GROUPS: [&str; 11] = [
    "article", "main", "nav", "aside", "header", "footer", "form", "table", "list", "quote", "pre",
];
const N_PAGE_GROUPS: usize = ATTR_GROUPS.len() + PAGE_TAG_GROUPS.len();

const C_WINDOWS: usize = 2 + OFFSETS.len();
const C_LEVELS: usize = C_WINDOWS + WINDOWS.len();
const C_PAGE: usize = C_LEVELS + 3 * CONTEXT_LEVELS.len();
const C_GROUPS: usize = C_PAGE + 7;

/// Number of context features per block (columns of [`context_features`]).
pub(crate) const N_CONTEXT: usize = C_GROUPS + 2 * N_PAGE_GROUPS;

/// The context feature names, in column order (Python's `CONTEXT`).
pub(crate) const CONTEXT: &[&str] = &[
    "p",
    "logit",
    "p-3",
    "p-2",
    "p-1",
    "p+1",
    "p+2",
    "p+3",
    "win3_mean",
    "win10_mean",
    "up1_mean",
    "up1_max",
    "up1_share",
    "up2_mean",
    "up2_max",
    "up2_share",
    "up3_mean",
    "up3_max",
    "up3_share",
    "up4_mean",
    "up4_max",
    "up4_share",
    "up6_mean",
    "up6_max",
    "up6_share",
    "up8_mean",
    "up8_max",
    "up8_share",
    "page_mean",
    "page_content_share",
    "page_max",
    "rank",
    "gap_before",
    "gap_after",
    "run_tokens",
    "page_up_nav",
    "page_up_header",
    "page_up_footer",
    "page_up_sidebar",
    "page_up_comment",
    "page_up_share",
    "page_up_related",
    "page_up_ad",
    "page_up_content",
    "page_up_meta",
    "page_up_caption",
    "page_up_hidden",
    "page_up_popup",
    "page_up_title",
    "page_up_product",
    "page_up_forum",
    "page_up_card",
    "page_up_search",
    "page_up_code",
    "page_up_lead",
    "page_up_t_article",
    "page_up_t_main",
    "page_up_t_nav",
    "page_up_t_aside",
    "page_up_t_header",
    "page_up_t_footer",
    "page_up_t_form",
    "page_up_t_table",
    "page_up_t_list",
    "page_up_t_quote",
    "page_up_t_pre",
    "likely_up_nav",
    "likely_up_header",
    "likely_up_footer",
    "likely_up_sidebar",
    "likely_up_comment",
    "likely_up_share",
    "likely_up_related",
    "likely_up_ad",
    "likely_up_content",
    "likely_up_meta",
    "likely_up_caption",
    "likely_up_hidden",
    "likely_up_popup",
    "likely_up_title",
    "likely_up_product",
    "likely_up_forum",
    "likely_up_card",
    "likely_up_search",
    "likely_up_code",
    "likely_up_lead",
    "likely_up_t_article",
    "likely_up_t_main",
    "likely_up_t_nav",
    "likely_up_t_aside",
    "likely_up_t_header",
    "likely_up_t_footer",
    "likely_up_t_form",
    "likely_up_t_table",
    "likely_up_t_list",
    "likely_up_t_quote",
    "likely_up_t_pre",
];

/// The names of the page-kind groups (`up_*` feature names), Python's `PAGE_GROUPS`.
fn page_groups() -> Vec<String> {
    ATTR_GROUPS
        .iter()
        .map(|(name, _)| format!("up_{name}"))
        .chain(PAGE_TAG_GROUPS.iter().map(|name| format!("up_t_{name}")))
        .collect()
}

/// The feature columns of the page-kind groups.
fn page_columns() -> &'static [usize] {
    static COLS: OnceLock<Vec<usize>> = OnceLock::new();
    COLS.get_or_init(|| {
        page_groups()
            .iter()
            .map(|name| feature_index(name).expect("a page group is a feature"))
            .collect()
    })
}

/// `[0, v0, v0 + v1, ...]`: NumPy's `cumsum` with a leading zero.
fn running_sum(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut out = Vec::with_capacity(values.size_hint().0 + 1);
    out.push(0.0);
    let mut s = 0.0;
    for v in values {
        s += v;
        out.push(s);
    }
    out
}

/// Per block, the ranks of `p` in a stable ascending sort (NumPy's
/// `argsort(argsort(p, kind="stable"), kind="stable")`): ties keep block order; NaN last.
fn stable_rank(p: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (p[a], p[b]);
        match (x.is_nan(), y.is_nan()) {
            (false, false) => x.partial_cmp(&y).expect("numbers compare"),
            (a_nan, b_nan) => a_nan.cmp(&b_nan),
        }
    });
    let mut rank = vec![0usize; p.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    rank
}

/// (blocks x [`N_CONTEXT`], row-major) for one page: `p` the first stage's probabilities,
/// `ntok` tokens per block, `anc` the ancestor element ids (`features::ancestors`), `x` the
/// blocks' features (blocks x `N_FEATURES`, row-major).
pub(crate) fn context_features(
    p: &[f64],
    ntok: &[f64],
    anc: &[[Option<ElemId>; 6]],
    x: &[f64],
) -> Vec<f64> {
    let n = p.len();
    let nc = N_CONTEXT;
    assert!(
        ntok.len() == n && anc.len() == n && x.len() == n * N_FEATURES,
        "context_features: p, ntok, anc and x disagree on the number of blocks"
    );
    let mut out = vec![f64::NAN; n * nc];
    if n == 0 {
        return out;
    }
    // a token-less block still counts a little
    let w: Vec<f64> = ntok.iter().map(|&t| t + 1.0).collect();
    let total = pairwise_sum(&w);
    let pw: Vec<f64> = (0..n).map(|i| p[i] * w[i]).collect();
    for i in 0..n {
        let row = &mut out[i * nc..(i + 1) * nc];
        let clipped = p[i].clamp(1e-6, 1.0 - 1e-6);
        row[0] = p[i];
        row[1] = (clipped / (1.0 - clipped)).ln();
        for (j, &off) in OFFSETS.iter().enumerate() {
            let k = i as isize + off;
            if k >= 0 && (k as usize) < n {
                row[2 + j] = p[k as usize];
            }
        }
    }
    // token-weighted means over windows
    let cw = running_sum(w.iter().copied());
    let cpw = running_sum(pw.iter().copied());
    for (j, &half) in WINDOWS.iter().enumerate() {
        for i in 0..n {
            let hi = (i + half + 1).min(n);
            let lo = i.saturating_sub(half);
            let tot = cw[hi] - cw[lo];
            out[i * nc + C_WINDOWS + j] = if tot > 0.0 {
                (cpw[hi] - cpw[lo]) / tot.max(1e-9)
            } else {
                p[i]
            };
        }
    }
    // the blocks under each ancestor: sums in block order, as `np.bincount` adds them
    let n_slots = anc.iter().fold(0, |n, ids| {
        ids.iter()
            .fold(n, |n, id| id.map_or(n, |id| n.max(id.index() + 1)))
    });
    let mut slot = vec![usize::MAX; n_slots];
    let mut group = vec![usize::MAX; n];
    let (mut sw, mut spw, mut mx) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..CONTEXT_LEVELS.len() {
        sw.clear();
        spw.clear();
        mx.clear();
        for (i, (ids, g)) in anc.iter().zip(group.iter_mut()).enumerate() {
            *g = usize::MAX;
            let Some(id) = ids[j] else {
                continue;
            };
            let s = &mut slot[id];
            if *s == usize::MAX {
                *s = sw.len();
                sw.push(0.0);
                spw.push(0.0);
                mx.push(f64::NEG_INFINITY);
            }
            *g = *s;
            sw[*g] += w[i];
            spw[*g] += pw[i];
            // np.maximum: NaN wins
            mx[*g] = if mx[*g].is_nan() || p[i].is_nan() {
                f64::NAN
            } else {
                mx[*g].max(p[i])
            };
        }
        let c = C_LEVELS + 3 * j;
        for (row, &g) in out.chunks_exact_mut(nc).zip(&group) {
            if g != usize::MAX {
                row[c] = spw[g] / sw[g];
                row[c + 1] = mx[g];
                row[c + 2] = sw[g] / total;
            }
        }
        for id in anc.iter().filter_map(|ids| ids[j]) {
            slot[id] = usize::MAX;
        }
    }
    // the page: its level, each block's rank, gaps to likely content and runs
    let likely: Vec<bool> = p.iter().map(|&v| v >= 0.5).collect();
    let page_mean = pairwise_sum(&pw) / total;
    let likely_w: Vec<f64> = (0..n).filter(|&i| likely[i]).map(|i| w[i]).collect();
    let content_share = pairwise_sum(&likely_w) / total;
    let page_max = p.iter().copied().fold(f64::NEG_INFINITY, |m, v| {
        if m.is_nan() || v.is_nan() {
            f64::NAN
        } else {
            m.max(v)
        }
    });
    let rank = stable_rank(p);
    let rank_den = n.saturating_sub(1).max(1) as f64;
    let cum = &cw[1..];
    let mut last_end = vec![f64::NAN; n];
    let mut seen = f64::NAN;
    for i in 0..n {
        last_end[i] = seen;
        if likely[i] {
            seen = cum[i];
        }
    }
    let mut next_start = vec![f64::NAN; n];
    seen = f64::NAN;
    for i in (0..n).rev() {
        next_start[i] = seen;
        if likely[i] {
            seen = cum[i] - w[i];
        }
    }
    let mut run = vec![0.0f64; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && likely[j + 1] == likely[i] {
            j += 1;
        }
        let share = pairwise_sum(&w[i..=j]) / total;
        run[i..=j].fill(share);
        i = j + 1;
    }
    // page kind: token shares under each kind of part, overall and among likely content
    let cols = page_columns();
    let mut under_all = [0.0f64; N_PAGE_GROUPS];
    let mut under_likely = [0.0f64; N_PAGE_GROUPS];
    for i in 0..n {
        let xr = &x[i * N_FEATURES..(i + 1) * N_FEATURES];
        let wl = if likely[i] { w[i] } else { 0.0 };
        for (g, &col) in cols.iter().enumerate() {
            if !xr[col].is_nan() {
                under_all[g] += w[i];
                under_likely[g] += wl;
            }
        }
    }
    let wl: Vec<f64> = (0..n).map(|i| if likely[i] { w[i] } else { 0.0 }).collect();
    let likely_total = pairwise_sum(&wl).max(1.0);
    for i in 0..n {
        let row = &mut out[i * nc..(i + 1) * nc];
        let start = cum[i] - w[i];
        row[C_PAGE] = page_mean;
        row[C_PAGE + 1] = content_share;
        row[C_PAGE + 2] = page_max;
        row[C_PAGE + 3] = rank[i] as f64 / rank_den;
        row[C_PAGE + 4] = (start - last_end[i]) / total;
        row[C_PAGE + 5] = (next_start[i] - cum[i]) / total;
        row[C_PAGE + 6] = run[i];
        for g in 0..N_PAGE_GROUPS {
            row[C_GROUPS + g] = under_all[g] / total;
            row[C_GROUPS + N_PAGE_GROUPS + g] = under_likely[g] / likely_total;
        }
    }
    out
}
