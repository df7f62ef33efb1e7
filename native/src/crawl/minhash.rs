//! A site sample's repeated pages: for each page's shingle-id set (`shingles::page_shingles`,
//! or `sitesift.shingles.bulk_shingle_ids` for the methods that read pages in Python), the
//! first earlier page it equals or nearly equals (`sitesift.weak.distinct_pages`).
//!
//! Identical sets are found by a hash map of their contents; near ones by locality-sensitive
//! hashing (Broder 1997; Leskovec, Rajaraman & Ullman, *Mining of Massive Datasets*, ch. 3):
//! each set's `BANDS` x `ROWS` min-hashes in bands, sets that agree on a whole band are
//! candidates, and each candidate is checked exactly (the Jaccard resemblance of the two
//! sorted id arrays, by a merge). A pair of resemblance 0.9 is a candidate with probability
//! 1 - (1 - 0.9^4)^8 > 0.9998, one of 0.95 with 1 - 1.4e-6; so the work is linear in the
//! pages (a page meets only the earlier pages that share one of its 8 bands), not
//! quadratic, unless many pages of a site resemble each other (then each is checked exactly,
//! stopping as soon as the threshold is out of reach).
//!
//! The min-hash family: h_i(x) = mix(x XOR k_i) for i in 0..32, with `mix` the finaliser of
//! SplitMix64 (Steele, Lea & Flood 2014; Stafford's "Mix13"), a bijection of u64 (so a set
//! has one least value per function, with no ties), and the keys k_i the first 32 outputs
//! of SplitMix64 seeded with `SEED`. Deterministic across runs, processes and machines. It
//! does not reproduce the min-hashes of the Python version it replaced (`minhash` in
//! `sitesift.shingles`: (a x + b) mod 2^31 - 1 with NumPy's PCG64 draws), so on a pair of
//! resemblance near the threshold the two could differ in which candidates LSH finds, with
//! the tiny probabilities above; the exact check is the same.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;

/// Bands of the LSH index, and min-hashes a band: 32 min-hashes a set.
const BANDS: usize = 8;
const ROWS: usize = 4;
/// The seed of the min-hash keys (any fixed number would do).
const SEED: u64 = 0x5175_7e51_f7ed_0053;

/// SplitMix64's finaliser: a bijection of u64 whose output bits each depend on every input
/// bit.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The keys of the hash family: SplitMix64's outputs from `SEED`.
fn keys() -> [u64; BANDS * ROWS] {
    hash_keys(SEED)
}

/// `N` keys of a min-hash family: the first `N` outputs of SplitMix64 seeded with `seed`
/// (also the crawl's text signatures', `dups.rs`).
pub(crate) fn hash_keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut state = seed;
    std::array::from_fn(|_| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(state)
    })
}

/// The least value of each hash function over a non-empty set (function by function: the
/// least value a register, 1.8x faster than id by id with the 32 values in memory), on
/// AVX-512 where the processor has it.
fn signature(ids: &[u64], keys: &[u64; BANDS * ROWS]) -> [u64; BANDS * ROWS] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
    {
        // SAFETY: this processor has AVX-512 F and DQ (asked just now)
        return unsafe { signature_avx512(ids, keys) };
    }
    least_hashes(ids, keys)
}

/// [`signature`] compiled for AVX-512: eight ids' hashes to an instruction (DQ's 64-bit
/// products, F's 64-bit unsigned minimum), where AVX2 has neither and the loop stays scalar.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn signature_avx512(ids: &[u64], keys: &[u64; BANDS * ROWS]) -> [u64; BANDS * ROWS] {
    least_hashes(ids, keys)
}

#[inline(always)]
fn least_hashes(ids: &[u64], keys: &[u64; BANDS * ROWS]) -> [u64; BANDS * ROWS] {
    keys.map(|k| ids.iter().map(|&x| mix(x ^ k)).min().unwrap_or(u64::MAX))
}

/// A band's key: its `ROWS` min-hashes folded into one number (a collision only adds a
/// candidate, which the exact check turns away).
fn band_key(rows: &[u64]) -> u64 {
    rows.iter().fold(0, |acc, &v| mix(acc ^ v))
}

/// The least size of the intersection of two sets of sizes `a` and `b` whose Jaccard
/// resemblance, computed as `inter as f64 / (a + b - inter) as f64`, is at least
/// `threshold`; None when no intersection (at most the smaller size) reaches it. The
/// resemblance grows with the intersection, so `inter >= need` is the same test as the
/// float comparison, bit for bit.
fn least_overlap(a: usize, b: usize, threshold: f64) -> Option<usize> {
    let small = a.min(b);
    let total = a + b;
    let reaches = |m: usize| m as f64 / (total - m) as f64 >= threshold;
    if threshold.is_nan() {
        return None;
    }
    // Solve m / (total - m) = t for m, then step to the exact boundary of the float test.
    let t = threshold.clamp(0.0, 1.0);
    let mut m = ((t * total as f64 / (1.0 + t)).ceil() as usize).min(small);
    while m > 0 && reaches(m - 1) {
        m -= 1;
    }
    while m <= small && !reaches(m) {
        m += 1;
    }
    (m <= small).then_some(m)
}

/// Whether two sorted sets of distinct ids resemble each other at least `threshold`
/// (Jaccard); a merge that stops as soon as the overlap cannot reach the threshold.
fn resembles(a: &[u64], b: &[u64], threshold: f64) -> bool {
    let Some(need) = least_overlap(a.len(), b.len(), threshold) else {
        return false;
    };
    // Ids of each side found missing from the other: the overlap is at most what is left.
    let (mut lost_a, mut lost_b) = (a.len() - need, b.len() - need);
    let (mut i, mut j, mut inter) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                if lost_a == 0 {
                    return false;
                }
                lost_a -= 1;
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                if lost_b == 0 {
                    return false;
                }
                lost_b -= 1;
                j += 1;
            }
        }
    }
    inter >= need
}

/// The set as sorted distinct ids: as given when it is (the shingles always are), else a
/// sorted copy.
fn normalised(ids: &[u64]) -> Cow<'_, [u64]> {
    if ids.windows(2).all(|w| w[0] < w[1]) {
        Cow::Borrowed(ids)
    } else {
        let mut own = ids.to_vec();
        own.sort_unstable();
        own.dedup();
        Cow::Owned(own)
    }
}

/// For each set, the index of the first earlier set it equals (the same ids) or nearly
/// equals (Jaccard resemblance at least `threshold`), else its own index.
///
/// - A set equal to an earlier one, empty ones included, is that one's twin: the first
///   set with its contents, whether that one was kept or not.
/// - Otherwise an empty set is its own (empty sets resemble nothing else).
/// - Otherwise its twin is the lowest-index candidate (a kept earlier set that shares an
///   LSH band with it) whose exact resemblance is at least `threshold`; with none, it is
///   kept: its own twin, and the only kind of set later ones are compared with.
///
/// The order of a set's ids does not matter (each is taken as the set of its ids).
pub(crate) fn near_duplicates(sets: &[&[u64]], threshold: f64) -> Vec<usize> {
    let sets: Vec<Cow<'_, [u64]>> = sets.iter().map(|s| normalised(s)).collect();
    let keys = keys();
    let mut twins: Vec<usize> = (0..sets.len()).collect();
    let mut exact: HashMap<&[u64], usize> = HashMap::with_capacity(sets.len());
    let mut buckets: Vec<HashMap<u64, Vec<usize>>> = vec![HashMap::new(); BANDS];
    let mut candidates: Vec<usize> = Vec::new();
    for (i, own) in sets.iter().enumerate() {
        let first = *exact.entry(own.as_ref()).or_insert(i);
        if first != i || own.is_empty() {
            twins[i] = first;
            continue;
        }
        let sig = signature(own, &keys);
        let bands: Vec<u64> = sig.chunks_exact(ROWS).map(band_key).collect();
        candidates.clear();
        for (bucket, key) in buckets.iter().zip(&bands) {
            candidates.extend(bucket.get(key).into_iter().flatten());
        }
        candidates.sort_unstable();
        candidates.dedup();
        let twin = candidates
            .iter()
            .copied()
            .find(|&j| resembles(&sets[j], own, threshold))
            .unwrap_or(i);
        twins[i] = twin;
        if twin == i {
            for (bucket, key) in buckets.iter_mut().zip(bands) {
                bucket.entry(key).or_default().push(i);
            }
        }
    }
    twins
}

/// Ids from their little-endian bytes (as `sitesift._native` gives shingles); None when the
/// length is not a whole number of ids.
fn ids_from_le_bytes(raw: &[u8]) -> Option<Vec<u64>> {
    let chunks = raw.chunks_exact(8);
    chunks.remainder().is_empty().then(|| {
        chunks
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    })
}

/// `near_duplicates` of sets given as their ids' little-endian bytes (the Python face's
/// call); an error for bytes that are not whole ids or a threshold outside 0..=1.
pub(crate) fn near_duplicates_of_bytes<B: AsRef<[u8]>>(
    sets: &[B],
    threshold: f64,
) -> Result<Vec<usize>, String> {
    if !(0.0..=1.0).contains(&threshold) {
        return Err(format!("threshold must be from 0 to 1, not {threshold}"));
    }
    let ids = sets
        .iter()
        .map(|raw| ids_from_le_bytes(raw.as_ref()))
        .collect::<Option<Vec<Vec<u64>>>>()
        .ok_or("shingle ids are 8 bytes each (little-endian u64): a length is not")?;
    let refs: Vec<&[u64]> = ids.iter().map(Vec::as_slice).collect();
    Ok(near_duplicates(&refs, threshold))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::shingles::shingle_ids;

    /// SplitMix64 as a small deterministic generator for the tests.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            mix(self.0)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn exact_jaccard(a: &[u64], b: &[u64]) -> f64 {
        let inter = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
        let union = a.len() + b.len() - inter;
        if union == 0 {
            1.0
        } else {
            inter as f64 / union as f64
        }
    }

    /// The contract by all pairs: what `near_duplicates` finds when LSH misses no pair.
    fn reference(sets: &[Vec<u64>], threshold: f64) -> Vec<usize> {
        let mut twins: Vec<usize> = (0..sets.len()).collect();
        for i in 0..sets.len() {
            if let Some(j) = (0..i).find(|&j| sets[j] == sets[i]) {
                twins[i] = j;
            } else if !sets[i].is_empty() {
                twins[i] = (0..i)
                    .find(|&j| {
                        twins[j] == j
                            && !sets[j].is_empty()
                            && exact_jaccard(&sets[j], &sets[i]) >= threshold
                    })
                    .unwrap_or(i);
            }
        }
        twins
    }

    fn run(sets: &[Vec<u64>], threshold: f64) -> Vec<usize> {
        let refs: Vec<&[u64]> = sets.iter().map(|s| s.as_slice()).collect();
        near_duplicates(&refs, threshold)
    }

    fn text(rng: &mut Rng, words: usize) -> Vec<String> {
        (0..words)
            .map(|_| format!("w{}", rng.below(5000)))
            .collect()
    }

    /// The shingles of `words` and of `words` with the word at `at` changed.
    fn one_word_changed(words: &[String], at: usize) -> (Vec<u64>, Vec<u64>) {
        let mut changed = words.to_vec();
        changed[at] = "changed".to_string();
        (shingle_ids(words, 5), shingle_ids(&changed, 5))
    }

    #[test]
    fn every_compiled_signature_is_the_portable_one() {
        let mut rng = Rng(7);
        let keys = keys();
        for n in [1, 3, 8, 9, 100, 1001] {
            let ids: Vec<u64> = (0..n).map(|_| rng.next()).collect();
            let portable = least_hashes(&ids, &keys);
            assert_eq!(signature(&ids, &keys), portable, "{n} ids");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512dq")
            {
                // SAFETY: this processor has AVX-512 F and DQ (asked just now)
                assert_eq!(
                    unsafe { signature_avx512(&ids, &keys) },
                    portable,
                    "{n} ids"
                );
            }
        }
    }

    #[test]
    fn the_hash_family_is_fixed() {
        // A change of the family changes which near pairs LSH finds: on purpose only.
        assert_eq!(keys()[0], mix(SEED.wrapping_add(0x9e37_79b9_7f4a_7c15)));
        let sig = signature(&[1, 2, 3], &keys());
        assert_eq!(sig, signature(&[3, 2, 1], &keys()));
        assert!(sig.iter().all(|&v| v < u64::MAX));
        // SplitMix64's first output from seed 0, as published
        assert_eq!(mix(0x9e37_79b9_7f4a_7c15), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn identical_sets_are_twins_of_the_first() {
        let a = shingle_ids(&["the", "harbour", "wall", "is", "closed", "today"], 5);
        let b = shingle_ids(&["another", "page", "of", "the", "same", "site"], 5);
        assert_eq!(
            run(&[a.clone(), b.clone(), a.clone(), b, a], 0.9),
            [0, 1, 0, 1, 0]
        );
    }

    #[test]
    fn a_long_text_with_one_word_changed_is_a_near_twin() {
        let (a, b) = one_word_changed(&text(&mut Rng(1), 2000), 1000);
        assert!(exact_jaccard(&a, &b) > 0.99 && a != b);
        assert_eq!(run(&[a.clone(), b.clone()], 0.9), [0, 0]);
        assert_eq!(run(&[b, a], 0.9), [0, 0]);
    }

    #[test]
    fn unrelated_sets_are_their_own() {
        let mut rng = Rng(2);
        let sets: Vec<Vec<u64>> = (0..50)
            .map(|_| shingle_ids(&text(&mut rng, 300), 5))
            .collect();
        assert_eq!(run(&sets, 0.9), (0..50).collect::<Vec<_>>());
        assert_eq!(run(&sets, 0.0), (0..50).collect::<Vec<_>>()); // never candidates
    }

    #[test]
    fn empty_sets_are_twins_of_the_first_empty_one_and_of_nothing_else() {
        let a = vec![1, 2, 3];
        assert_eq!(
            run(&[vec![], a.clone(), vec![], a, vec![]], 0.0),
            [0, 1, 0, 1, 0]
        );
        assert!(run(&[], 0.9).is_empty());
    }

    #[test]
    fn the_first_earlier_kept_page_wins() {
        let mut rng = Rng(3);
        let base = text(&mut rng, 400);
        let changed = |at: &[usize]| {
            let mut t = base.clone();
            for &k in at {
                t[k] = format!("changed{k}");
            }
            shingle_ids(&t, 5)
        };
        // a and c differ from the base in three words each (15 shingles): 0.93 alike to
        // it, 0.86 to each other, so both are kept and the base resembles both
        let (a, c, b) = (changed(&[10, 20, 30]), changed(&[50, 60, 70]), changed(&[]));
        assert!(exact_jaccard(&a, &c) < 0.9 && exact_jaccard(&a, &b) >= 0.9);
        assert!(exact_jaccard(&c, &b) >= 0.9);
        let other = shingle_ids(&text(&mut rng, 400), 5);
        let sets = [other.clone(), a.clone(), c.clone(), b.clone()];
        assert_eq!(run(&sets, 0.9), [0, 1, 2, 1]);
        let sets = [c.clone(), other.clone(), a.clone(), b.clone(), a.clone()];
        assert_eq!(run(&sets, 0.9), [0, 1, 2, 0, 2]);
        // a threshold they do not reach: each is kept, the copy is still a twin
        assert_eq!(run(&sets, 0.95), [0, 1, 2, 3, 2]);
    }

    #[test]
    fn a_near_twin_of_a_repeat_points_to_a_kept_page_and_copies_to_their_first() {
        let (a, b) = one_word_changed(&text(&mut Rng(4), 400), 200);
        // b is a near twin of a; a copy of b is a copy of b (the first with its ids)
        assert_eq!(run(&[a.clone(), b.clone(), b.clone()], 0.9), [0, 0, 1]);
    }

    #[test]
    fn the_order_of_a_sets_ids_does_not_matter() {
        let a: Vec<u64> = (0..100).collect();
        let mut b: Vec<u64> = (0..100).rev().collect();
        b.push(5); // a repeated id counts once
        assert_eq!(run(&[a, b], 0.99), [0, 0]);
    }

    #[test]
    fn the_exact_check_is_the_float_test_of_the_resemblance() {
        // sizes and overlaps around every threshold: `resembles` agrees with inter/union >= t
        let mut rng = Rng(5);
        for _ in 0..3000 {
            let inter = rng.below(60);
            let (only_a, only_b) = (rng.below(8), rng.below(8));
            let a: Vec<u64> = (0..(inter + only_a) as u64).collect();
            let b: Vec<u64> = (0..inter as u64)
                .chain(1000..1000 + only_b as u64)
                .collect();
            if a.is_empty() && b.is_empty() {
                continue; // never compared: empty sets are not kept for comparing
            }
            for t in [
                0.0,
                0.5,
                0.8,
                0.9,
                0.9 + 1e-12,
                0.95,
                1.0,
                1.5,
                -1.0,
                f64::NAN,
            ] {
                let expected = exact_jaccard(&a, &b) >= t;
                assert_eq!(
                    resembles(&a, &b, t),
                    expected,
                    "{inter} {only_a} {only_b} {t}"
                );
                assert_eq!(
                    resembles(&b, &a, t),
                    expected,
                    "{inter} {only_a} {only_b} {t}"
                );
            }
        }
    }

    #[test]
    fn lsh_finds_what_all_pairs_find_on_random_samples() {
        // Sites of random pages: unrelated ones, and copies, near copies (1 % of ids
        // changed: 0.98 alike to their original, 0.94 or more to each other, which LSH
        // misses with probability < 1e-5 a pair) and distant variants (10-19 % changed: 0.82
        // alike or less) of these; compared with the all-pairs reference at 0.9, which no
        // pair comes close to. (Seeded: the same sets every run.)
        let mut rng = Rng(6);
        let mut near_pairs = 0;
        for round in 0..80 {
            let n = 2 + rng.below(40);
            let mut originals: Vec<usize> = Vec::new();
            let mut sets: Vec<Vec<u64>> = Vec::new();
            for i in 0..n {
                let mut set: Vec<u64> = if originals.is_empty() || rng.below(3) == 0 {
                    originals.push(i);
                    (0..80 + rng.below(200)).map(|_| rng.next() >> 33).collect()
                } else {
                    let mut s = sets[originals[rng.below(originals.len())]].clone();
                    let share = match rng.below(4) {
                        0 => 0.0,
                        1 => 0.01,
                        _ => 0.01 * (10 + rng.below(10)) as f64,
                    };
                    let change = (s.len() as f64 * share).round() as usize;
                    let len = s.len();
                    for at in (0..len).step_by((len / change.max(1)).max(1)).take(change) {
                        s[at] = rng.next() >> 33;
                    }
                    s
                };
                if rng.below(20) == 0 {
                    set.clear();
                }
                set.sort_unstable();
                set.dedup();
                sets.push(set);
            }
            for i in 0..n {
                for j in 0..i {
                    if !sets[i].is_empty() && sets[i] != sets[j] {
                        let r = exact_jaccard(&sets[i], &sets[j]);
                        assert!(!(0.85..0.94).contains(&r), "round {round}: {r}");
                        near_pairs += usize::from(r >= 0.9);
                    }
                }
            }
            assert_eq!(run(&sets, 0.9), reference(&sets, 0.9), "round {round}");
        }
        assert!(near_pairs > 100, "{near_pairs}");
    }

    #[test]
    fn thousands_of_pages_take_linear_time() {
        // 5,000 distinct pages: each meets few candidates (a quadratic check would be 12.5 M
        // merges)
        let mut rng = Rng(7);
        let sets: Vec<Vec<u64>> = (0..5000)
            .map(|_| {
                let mut s: Vec<u64> = (0..200).map(|_| rng.next() >> 33).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        let start = std::time::Instant::now();
        assert_eq!(run(&sets, 0.9), (0..5000).collect::<Vec<_>>());
        assert!(start.elapsed().as_secs_f64() < 5.0);
    }

    #[test]
    fn ids_come_from_little_endian_bytes() {
        let raw: Vec<u8> = [1u64, 1 << 40]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(ids_from_le_bytes(&raw), Some(vec![1, 1 << 40]));
        assert_eq!(ids_from_le_bytes(&[]), Some(vec![]));
        assert_eq!(ids_from_le_bytes(&raw[..9]), None);
        let copy = [raw.clone(), raw.clone(), Vec::new()];
        assert_eq!(near_duplicates_of_bytes(&copy, 0.9), Ok(vec![0, 0, 2]));
        assert!(near_duplicates_of_bytes(&[&raw[..9]], 0.9).is_err());
        assert!(near_duplicates_of_bytes(&copy, f64::NAN).is_err());
        assert!(near_duplicates_of_bytes(&copy, 1.5).is_err());
    }
}
