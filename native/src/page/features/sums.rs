//! NumPy's arithmetic, in its order of floating-point operations: pairwise sums, window
//! sums, exclusive cumulative sums, ratios.

/// NumPy's `np.add.reduce` over a contiguous float64 array (what `arr.sum()` computes):
/// pairwise summation with eight accumulators over blocks of at most 128 values.
pub(crate) fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &v in a {
            res += v;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for k in 0..8 {
                r[k] += a[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// Sum over the `half` values before and after each value and the value itself, as
/// differences of one running sum (as NumPy computes it).
pub(super) fn window_sum(values: &[f64], half: usize) -> Vec<f64> {
    let n = values.len();
    let mut cum = Vec::with_capacity(n + 1);
    cum.push(0.0);
    let mut s = 0.0;
    for &v in values {
        s += v;
        cum.push(s);
    }
    (0..n)
        .map(|i| {
            let hi = (i + half + 1).min(n);
            let lo = i.saturating_sub(half);
            cum[hi] - cum[lo]
        })
        .collect()
}

#[inline]
pub(super) fn ratio(a: f64, b: f64) -> f64 {
    if b != 0.0 {
        a / b
    } else {
        0.0
    }
}

/// `[0, v0, v0 + v1, ...]` without the last total (NumPy's `cumsum` shifted by one).
pub(super) fn exclusive_cumsum(values: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(values.len());
    let mut s = 0.0;
    for &v in values {
        out.push(s);
        s += v;
    }
    out
}
