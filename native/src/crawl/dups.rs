//! Copies and near-copies across a whole crawl (issue 55): which earlier record, in crawl
//! order, has the same or nearly the same cleaned text as each record (`dup_of`).
//!
//! Each result record leaves its worker with a *row* (`encode_row`): where it is in the crawl
//! (input index and position: the crawl's order), where it came from (input and URL, which
//! `dup_of` names), the SHA-1 of its text (the record's `text_digest`, raw) and a min-hash
//! signature of its text's word shingles (`text_signature`). The crawl's finishing step
//! passes every row to `duplicates`, once; on Spark, the rows that share a band are grouped
//! by a shuffle and each group is passed to the same function, whose answers are the same
//! (see `duplicates`).
//!
//! - **Exact copies** by digest: a text equal, byte for byte, to an earlier record's names the
//!   first record with that text (similarity 1).
//! - **Near copies**: the shingles are the text's lower-cased `\w+` words (Python's `\w`,
//!   `text::tokens`), 5 in a row (a text of fewer words is one shingle), each hashed to 32
//!   bits. The signature is `HASHES` min-hashes (`text_signature`). Two texts' resemblance is estimated as the share of equal min-hashes (Broder 1997:
//!   each is equal with probability their Jaccard resemblance; with 120 of them the standard
//!   error is 0.037 at 0.8); a text is a near copy of an earlier one when the estimate is at
//!   least the threshold (`THRESHOLD`, 0.8 for the crawl). Candidates come from
//!   locality-sensitive hashing: `BANDS` bands of `ROWS` min-hashes, texts that agree on a
//!   whole band are compared: a pair of resemblance 0.8 is a candidate with probability
//!   1 - (1 - 0.8^6)^20 = 0.998, one of 0.5 with 0.27 (then turned away by the estimate).
//! - A record without text (no main content) is no one's copy and has none.
//!
//! An exact copy names the first record with its text even where an earlier record is a near
//! copy of it; a near copy names the first earlier record, exact copies aside, whose estimate
//! reaches the threshold, whether that record is itself a near copy of another or not.

use foldhash::{HashMap, HashMapExt};

use crate::crawl::minhash::{hash_keys, mix};
use crate::text::{lower, tokens};

/// Min-hashes a signature, as `BANDS` bands of `ROWS`.
pub(crate) const BANDS: usize = 20;
pub(crate) const ROWS: usize = 6;
const HASHES: usize = BANDS * ROWS;
/// The crawl's resemblance threshold (the estimated Jaccard resemblance of word 5-shingles).
pub(crate) const THRESHOLD: f64 = 0.8;
/// Words of a text taken for its shingles: a text longer than this is known by its start.
const WORD_LIMIT: usize = 100_000;
const WIDTH: usize = 5;
/// The seed of the signature's keys (another family than the site sample's).
const SEED: u64 = 0xd0b1_7e57_c0de_0055;
const DIGEST: usize = 20;
/// Bytes of a row before its input and URL (each after its length): length, input index,
/// position, has-text flag, digest, shingle count, signature.
const FIXED: usize = 4 + 4 + 8 + 1 + DIGEST + 4 + 4 * HASHES;
const NO_URL: u32 = u32::MAX;

/// A lower-cased token's hash: FNV-1a over its bytes (ASCII lower-cased on the fly, other
/// tokens by `str::to_lowercase`, Python's `str.lower()`), then mixed.
fn token_hash(token: &str) -> u64 {
    const FNV_PRIME: u64 = 0x0100_0000_01b3;
    let step = |h: u64, b: u8| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
    let h = if token.is_ascii() {
        token
            .bytes()
            .fold(FNV_BASIS, |h, b| step(h, b.to_ascii_lowercase()))
    } else {
        lower(token).bytes().fold(FNV_BASIS, step)
    };
    mix(h)
}

const FNV_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// The hashes of the text's word shingles (`WIDTH` words in a row; a text of fewer words is
/// one shingle), repeats included (a min-hash takes each value once anyway).
fn shingle_hashes(text: &str) -> Vec<u32> {
    let words: Vec<u64> = tokens(text).take(WORD_LIMIT).map(token_hash).collect();
    if words.is_empty() {
        return Vec::new();
    }
    let width = WIDTH.min(words.len());
    words
        .windows(width)
        .map(|w| {
            let poly = w.iter().fold(0u64, |acc, &t| {
                acc.wrapping_mul(FNV_BASIS | 1).wrapping_add(t)
            });
            (mix(poly) >> 32) as u32
        })
        .collect()
}

/// The text's shingle count and its signature (all `u32::MAX` for a text without words):
/// for each i, the least `(a_i x + b_i) >> 32` over its shingle hashes x, with a_i and b_i
/// 64-bit keys (Dietzfelbinger's multiply-shift family, strongly universal from 32 to 32
/// bits: the hashes are 32-bit so that the compiler multiplies four lanes at once; a
/// family of full mixes cost 0.2 ms a 5 KB text, 40 % of this check's time).
fn text_signature(text: &str) -> (u32, [u32; HASHES]) {
    let shingles = shingle_hashes(text);
    let a: [u64; HASHES] = hash_keys(SEED);
    let b: [u64; HASHES] = hash_keys(!SEED);
    let mut sig = [u32::MAX; HASHES];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: this processor has AVX2 (asked just now)
        unsafe { least_avx2(&mut sig, &shingles, &a, &b) };
        return (u32::try_from(shingles.len()).unwrap_or(u32::MAX), sig);
    }
    least(&mut sig, &shingles, &a, &b);
    (u32::try_from(shingles.len()).unwrap_or(u32::MAX), sig)
}

/// [`least`] compiled for AVX2: four 64-bit products to an instruction where the baseline
/// has none (a crawl's copy check took 2.9 % of a worker's instructions, most of it here).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn least_avx2(
    sig: &mut [u32; HASHES],
    shingles: &[u32],
    a: &[u64; HASHES],
    b: &[u64; HASHES],
) {
    least(sig, shingles, a, b)
}

/// Each signature entry lowered to the least hash of the shingles under its function.
#[inline(always)]
fn least(sig: &mut [u32; HASHES], shingles: &[u32], a: &[u64; HASHES], b: &[u64; HASHES]) {
    for &x in shingles {
        let x = u64::from(x);
        for ((least, &ai), &bi) in sig.iter_mut().zip(a).zip(b) {
            let v = (ai.wrapping_mul(x).wrapping_add(bi) >> 32) as u32;
            *least = (*least).min(v);
        }
    }
}

/// One record's row, read from its bytes without copying.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row<'a> {
    pub(crate) input_index: u32,
    pub(crate) position: u64,
    pub(crate) has_text: bool,
    pub(crate) digest: &'a [u8],
    pub(crate) shingles: u32,
    sig: &'a [u8],
    pub(crate) input: &'a str,
    pub(crate) url: Option<&'a str>,
}

impl Row<'_> {
    fn order(&self) -> (u32, u64) {
        (self.input_index, self.position)
    }

    /// The signature's `i`-th min-hash.
    fn hash(&self, i: usize) -> u32 {
        u32::from_le_bytes(self.sig[4 * i..4 * i + 4].try_into().expect("4 bytes"))
    }

    /// The row's band keys: each band's `ROWS` min-hashes folded into one number.
    pub(crate) fn bands(&self) -> [u64; BANDS] {
        std::array::from_fn(|b| {
            (b * ROWS..(b + 1) * ROWS).fold(b as u64, |acc, i| mix(acc ^ u64::from(self.hash(i))))
        })
    }

    /// The estimated resemblance of two rows' texts: the share of equal min-hashes.
    fn similarity(&self, other: &Row<'_>) -> f64 {
        let same = self
            .sig
            .chunks_exact(4)
            .zip(other.sig.chunks_exact(4))
            .filter(|(a, b)| a == b)
            .count();
        same as f64 / HASHES as f64
    }
}

/// A record's row: `digest` the SHA-1 of its text (20 bytes), `text` the text.
pub(crate) fn encode_row(
    input_index: u32,
    position: u64,
    digest: &[u8],
    text: &str,
    input: &str,
    url: Option<&str>,
) -> Result<Vec<u8>, String> {
    if digest.len() != DIGEST {
        return Err(format!(
            "a digest is {DIGEST} bytes (SHA-1), not {}",
            digest.len()
        ));
    }
    let (shingles, sig) = text_signature(text);
    let url_len = url.map_or(0, str::len);
    let len = FIXED + 8 + input.len() + url_len;
    let too_long = |what: &str| format!("the {what} is too long for a row");
    let mut row = Vec::with_capacity(len);
    row.extend_from_slice(
        &u32::try_from(len)
            .map_err(|_| too_long("record"))?
            .to_le_bytes(),
    );
    row.extend_from_slice(&input_index.to_le_bytes());
    row.extend_from_slice(&position.to_le_bytes());
    row.push(u8::from(!text.is_empty()));
    row.extend_from_slice(digest);
    row.extend_from_slice(&shingles.to_le_bytes());
    for h in sig {
        row.extend_from_slice(&h.to_le_bytes());
    }
    let input_len = u32::try_from(input.len()).map_err(|_| too_long("input"))?;
    row.extend_from_slice(&input_len.to_le_bytes());
    row.extend_from_slice(input.as_bytes());
    let url_field = match url {
        Some(u) => u32::try_from(u.len())
            .ok()
            .filter(|&n| n != NO_URL)
            .ok_or_else(|| too_long("URL"))?,
        None => NO_URL,
    };
    row.extend_from_slice(&url_field.to_le_bytes());
    row.extend_from_slice(url.unwrap_or("").as_bytes());
    Ok(row)
}

/// Reads little-endian fields off the front of a row.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("a duplicate-check row is cut short".into());
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    fn text(&mut self, n: usize) -> Result<&'a str, String> {
        std::str::from_utf8(self.take(n)?)
            .map_err(|_| "a duplicate-check row's text is not UTF-8".into())
    }
}

/// The rows of `blob`, rows one after another as `encode_row` makes them.
pub(crate) fn decode_rows(blob: &[u8]) -> Result<Vec<Row<'_>>, String> {
    let mut rows = Vec::new();
    let mut rest = blob;
    while !rest.is_empty() {
        let mut r = Reader(rest);
        let len = r.u32()? as usize;
        if len < FIXED + 8 || len > rest.len() {
            return Err("a duplicate-check row is cut short".into());
        }
        let (one, tail) = rest.split_at(len);
        rest = tail;
        let mut r = Reader(&one[4..]);
        let input_index = r.u32()?;
        let position = r.u64()?;
        let has_text = r.take(1)?[0] != 0;
        let digest = r.take(DIGEST)?;
        let shingles = r.u32()?;
        let sig = r.take(4 * HASHES)?;
        let input_len = r.u32()? as usize;
        let input = r.text(input_len)?;
        let url_len = r.u32()?;
        let url = if url_len == NO_URL {
            None
        } else {
            Some(r.text(url_len as usize)?)
        };
        if !r.0.is_empty() {
            return Err("a duplicate-check row is longer than its fields".into());
        }
        rows.push(Row {
            input_index,
            position,
            has_text,
            digest,
            shingles,
            sig,
            input,
            url,
        });
    }
    Ok(rows)
}

/// A record that is a copy of an earlier one: indices into the rows given, and the estimated
/// resemblance of their texts (1 for exact copies).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Dup {
    pub(crate) copy: usize,
    pub(crate) original: usize,
    pub(crate) similarity: f64,
    /// The same text (by digest), not a near copy.
    pub(crate) exact: bool,
}

/// The copies among `rows` (in any order; the crawl's order is their input index, then
/// position), each naming the first earlier record it copies (the module's docs).
///
/// Given the rows that share one band (as Spark groups them) it finds, for each of them, the
/// first earlier row of the group it near-copies; the least of those over a row's bands is
/// what it finds given all rows at once, so the two engines agree.
pub(crate) fn duplicates(rows: &[Row<'_>], threshold: f64) -> Vec<Dup> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| (rows[i].order(), i));
    let mut first: HashMap<&[u8], usize> = HashMap::new();
    // per band: band key -> ranks (places in `order`) of the texts with it, ascending
    let mut buckets: Vec<HashMap<u64, Vec<usize>>> = vec![HashMap::new(); BANDS];
    let mut found = Vec::new();
    for (rank, &i) in order.iter().enumerate() {
        let row = &rows[i];
        if !row.has_text {
            continue;
        }
        if let Some(&orig) = first.get(row.digest) {
            found.push(Dup {
                copy: i,
                original: orig,
                similarity: 1.0,
                exact: true,
            });
            continue;
        }
        first.insert(row.digest, i);
        if row.shingles == 0 {
            continue; // a text without words: only its exact copies
        }
        let bands = row.bands();
        let mut best: Option<(usize, f64)> = None;
        for (bucket, key) in buckets.iter().zip(&bands) {
            for &earlier in bucket.get(key).into_iter().flatten() {
                if best.is_some_and(|(b, _)| earlier >= b) {
                    break;
                }
                let sim = row.similarity(&rows[order[earlier]]);
                if sim >= threshold {
                    best = Some((earlier, sim));
                    break;
                }
            }
        }
        for (bucket, key) in buckets.iter_mut().zip(bands) {
            bucket.entry(key).or_default().push(rank);
        }
        if let Some((earlier, similarity)) = best {
            found.push(Dup {
                copy: i,
                original: order[earlier],
                similarity,
                exact: false,
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest_of(text: &str) -> Vec<u8> {
        // any 20 bytes that differ with the text do for the tests: its BLAKE2b-160
        crate::crawl::site::blake2b(text.as_bytes(), 20)
            .as_bytes()
            .to_vec()
    }

    #[test]
    fn the_signature_is_the_same_with_or_without_avx2() {
        let text = article(7, 400).join(" ");
        let (n, sig) = text_signature(&text);
        let shingles = shingle_hashes(&text);
        let mut plain = [u32::MAX; HASHES];
        least(&mut plain, &shingles, &hash_keys(SEED), &hash_keys(!SEED));
        assert_eq!(n as usize, shingles.len());
        assert_eq!(sig, plain);
        assert!(sig.iter().all(|&h| h < u32::MAX));
    }

    fn row(input: u32, pos: u64, text: &str) -> Vec<u8> {
        let url = format!("https://example.org/{input}/{pos}");
        encode_row(input, pos, &digest_of(text), text, "in.warc", Some(&url)).unwrap()
    }

    fn article(seed: u64, words: usize) -> Vec<String> {
        let mut state = seed;
        (0..words)
            .map(|_| {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                format!("w{}", mix(state) % 5000)
            })
            .collect()
    }

    fn run(blobs: &[Vec<u8>]) -> Vec<(usize, usize)> {
        let blob = blobs.concat();
        let rows = decode_rows(&blob).unwrap();
        let mut found: Vec<(usize, usize)> = duplicates(&rows, THRESHOLD)
            .iter()
            .map(|d| (d.copy, d.original))
            .collect();
        found.sort_unstable();
        found
    }

    #[test]
    fn a_row_reads_back_as_written() {
        let blob = [
            row(3, 7, "a short text"),
            encode_row(1, 2, &[9; 20], "", "x/é", None).unwrap(),
        ]
        .concat();
        let rows = decode_rows(&blob).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].input_index, rows[0].position), (3, 7));
        assert_eq!(rows[0].url, Some("https://example.org/3/7"));
        assert_eq!(
            (rows[0].input, rows[0].shingles, rows[0].has_text),
            ("in.warc", 1, true)
        );
        assert_eq!(
            (rows[1].input, rows[1].url, rows[1].has_text),
            ("x/é", None, false)
        );
        assert_eq!(rows[1].digest, &[9; 20]);
        assert!(decode_rows(&blob[..blob.len() - 1]).is_err());
        assert!(decode_rows(&[1, 0, 0]).is_err());
        assert!(encode_row(0, 0, &[0; 19], "t", "i", None).is_err());
    }

    #[test]
    fn exact_copies_name_the_first_in_crawl_order_not_in_row_order() {
        let text = article(1, 300).join(" ");
        // rows in site order; crawl order is (input, position)
        let rows = [
            row(1, 5, &text),
            row(0, 9, &text),
            row(1, 2, &text),
            row(0, 1, "other words"),
        ];
        assert_eq!(run(&rows), [(0, 1), (2, 1)]);
    }

    #[test]
    fn a_text_with_a_few_words_changed_is_a_near_copy_and_an_unrelated_one_is_not() {
        let words = article(2, 400);
        let mut changed = words.clone();
        changed[200] = "changed".into();
        let rows = [
            row(0, 0, &words.join(" ")),
            row(0, 1, &article(3, 400).join(" ")),
            row(0, 2, &changed.join(" ")),
        ];
        assert_eq!(run(&rows), [(2, 0)]);
        let blob = rows.concat();
        let decoded = decode_rows(&blob).unwrap();
        let sim = duplicates(&decoded, THRESHOLD)[0].similarity;
        assert!(sim > 0.9 && sim < 1.0, "{sim}");
    }

    #[test]
    fn texts_of_half_the_same_words_are_not_near_copies() {
        let a = article(4, 400);
        let b: Vec<String> = a[..200].iter().cloned().chain(article(5, 200)).collect();
        assert!(run(&[row(0, 0, &a.join(" ")), row(0, 1, &b.join(" "))]).is_empty());
    }

    #[test]
    fn empty_texts_are_no_ones_copies() {
        assert!(run(&[row(0, 0, ""), row(0, 1, ""), row(0, 2, "")]).is_empty());
        // a text without words is found by its exact copies only
        assert_eq!(run(&[row(0, 0, "—"), row(0, 1, "—")]), [(1, 0)]);
    }

    #[test]
    fn groups_by_band_agree_with_the_whole() {
        // the first earlier near copy over all rows equals the least of each band group's
        let base = article(6, 500);
        let variant = |at: &[usize]| {
            let mut t = base.clone();
            for &k in at {
                t[k] = format!("v{k}");
            }
            t.join(" ")
        };
        let blobs: Vec<Vec<u8>> = (0..12)
            .map(|i| match i % 4 {
                0 => row(0, i, &article(100 + i, 300).join(" ")),
                1 => row(0, i, &variant(&[i as usize * 7, 300])),
                2 => row(0, i, &variant(&[i as usize * 11])),
                _ => row(0, i, &variant(&[i as usize * 13, 40, 80, 120])),
            })
            .collect();
        let blob = blobs.concat();
        let rows = decode_rows(&blob).unwrap();
        let whole = duplicates(&rows, THRESHOLD);
        let mut best: HashMap<usize, usize> = HashMap::new();
        for b in 0..BANDS {
            let mut groups: HashMap<u64, Vec<usize>> = HashMap::new();
            for (i, r) in rows.iter().enumerate() {
                groups.entry(r.bands()[b]).or_default().push(i);
            }
            for members in groups.values().filter(|m| m.len() > 1) {
                let group: Vec<Row<'_>> = members.iter().map(|&i| rows[i]).collect();
                for d in duplicates(&group, THRESHOLD) {
                    let (copy, orig) = (members[d.copy], members[d.original]);
                    let e = best.entry(copy).or_insert(orig);
                    *e = (*e).min(orig);
                }
            }
        }
        let mut pairs: Vec<(usize, usize)> = whole.iter().map(|d| (d.copy, d.original)).collect();
        pairs.sort_unstable();
        let mut grouped: Vec<(usize, usize)> = best.into_iter().collect();
        grouped.sort_unstable();
        assert_eq!(pairs, grouped);
        assert!(pairs.len() >= 6, "{pairs:?}");
    }
}
