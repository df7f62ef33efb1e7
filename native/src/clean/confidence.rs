//! What the cleaner knows of its own extraction of a page, for the confidence (issue 55):
//! page-level figures from the blocks' probabilities, the page's cut, the verdicts and the
//! rules that gave them, read once from what `pipeline::clean` already computed (no second
//! pass over the page). `sitesift.confidence` adds the page's type and the site's evidence
//! and turns them into the predicted token F1 with a small model.

use crate::output::render::Verdict;
use crate::page::blocks::PageBlocks;

/// The features' names, in the order of `features`' output (a confidence model's file
/// names them, so a file of other features is refused).
pub(crate) const NAMES: [&str; 26] = [
    "log_blocks",
    "log_tokens",
    "log_kept_tokens",
    "kept_token_share",
    "kept_block_share",
    "max_prob",
    "page_cut",
    "sure_empty",
    "kept_margin",
    "dropped_margin",
    "near_cut",
    "kept_near_cut",
    "uncertainty",
    "expected_recall",
    "expected_precision",
    "expected_f1",
    "ruled_in",
    "ruled_out",
    "over_dropped",
    "under_kept",
    "log_kept_runs",
    "first_kept",
    "last_kept",
    "rules_fired",
    "kept_link_share",
    "novel",
];

/// How close to the cut a block is doubtful.
const NEAR: f64 = 0.1;

/// The page's figures (`NAMES`' order) from its blocks' probabilities `prob`, their
/// verdicts `verdict` (one per block, in block order; None where no verdict is above it),
/// the page's own cut `cut` (infinite on a page sure to hold no main content) and whether
/// the page was judged unlike the model's training pages (`novel`). Every value is finite.
pub(crate) fn features(
    pb: &PageBlocks,
    prob: &[f64],
    verdict: &[Option<Verdict>],
    cut: f64,
    novel: bool,
) -> Vec<f64> {
    let n = prob.len();
    let sure_empty = !cut.is_finite();
    let c = if sure_empty { 1.0 } else { cut.clamp(0.0, 1.0) };
    let (mut tok, mut kept_tok, mut kept_blocks) = (0.0, 0.0, 0usize);
    let (mut kept_margin, mut dropped_margin, mut near, mut kept_near) = (0.0, 0.0, 0.0, 0.0);
    let (mut unsure, mut mass, mut kept_mass) = (0.0, 0.0, 0.0);
    let (mut ruled_in, mut ruled_out, mut over_dropped, mut under_kept) = (0.0, 0.0, 0.0, 0.0);
    let (mut runs, mut first, mut last, mut fired) = (0usize, None, 0usize, 0u64);
    let (mut link, mut kept_bytes, mut was_kept) = (0.0, 0.0, false);
    let mut max = 0.0f64;
    for (i, &p) in prob.iter().enumerate() {
        let p = p.clamp(0.0, 1.0);
        max = max.max(p);
        // a block of no words still counts a little: a page of images is not empty
        let w = pb.tokens.get(i).copied().unwrap_or(0).max(1) as f64;
        let v = verdict.get(i).copied().flatten();
        let kept = v.is_none_or(|v| v.content);
        let by = v.and_then(|v| v.section);
        if let Some(id) = by {
            fired |= 1u64 << (id.index() % 64);
        }
        tok += w;
        mass += p * w;
        unsure += 4.0 * p * (1.0 - p) * w;
        if (p - c).abs() < NEAR {
            near += w;
        }
        if kept {
            kept_tok += w;
            kept_blocks += 1;
            kept_mass += p * w;
            kept_margin += (p - c) * w;
            if (p - c).abs() < NEAR {
                kept_near += w;
            }
            if by.is_some() {
                ruled_in += w;
            }
            if p < c {
                under_kept += w;
            }
            if !was_kept {
                runs += 1;
            }
            first.get_or_insert(i);
            last = i;
            link += pb.link_chars.get(i).copied().unwrap_or(0).max(0) as f64;
            kept_bytes += pb.text.get(i).map_or(0, |t| t.len()) as f64;
        } else {
            dropped_margin += (c - p) * w;
            if by.is_some() {
                ruled_out += w;
            }
            if p >= c {
                over_dropped += w;
            }
        }
        was_kept = kept;
    }
    let share = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    let recall = share(kept_mass, mass);
    let precision = share(kept_mass, kept_tok);
    let f1 = share(2.0 * precision * recall, precision + recall);
    let at = |i: usize| {
        if n > 1 {
            i as f64 / (n - 1) as f64
        } else {
            0.0
        }
    };
    let out = vec![
        (n as f64).ln_1p(),
        tok.ln_1p(),
        kept_tok.ln_1p(),
        share(kept_tok, tok),
        share(kept_blocks as f64, n as f64),
        max,
        c,
        f64::from(u8::from(sure_empty)),
        share(kept_margin, kept_tok),
        share(dropped_margin, tok - kept_tok),
        share(near, tok),
        share(kept_near, kept_tok),
        share(unsure, tok),
        recall,
        precision,
        f1,
        share(ruled_in, kept_tok),
        share(ruled_out, tok),
        share(over_dropped, tok),
        share(under_kept, tok),
        (runs as f64).ln_1p(),
        first.map_or(1.0, at),
        if first.is_some() { at(last) } else { 0.0 },
        f64::from(fired.count_ones()),
        share(link, kept_bytes),
        f64::from(u8::from(novel)),
    ];
    debug_assert_eq!(out.len(), NAMES.len());
    out.into_iter()
        .map(|x| if x.is_finite() { x } else { 0.0 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(tokens: &[usize]) -> PageBlocks {
        PageBlocks {
            tokens: tokens.to_vec(),
            text: tokens.iter().map(|&t| "w ".repeat(t)).collect(),
            link_chars: vec![0; tokens.len()],
            ..Default::default()
        }
    }

    fn verdict(content: bool, score: f64) -> Option<Verdict> {
        Some(Verdict {
            content,
            score,
            section: None,
        })
    }

    #[test]
    fn a_clear_page_reads_as_sure_and_a_doubtful_one_as_not() {
        let pb = page(&[10, 200, 5]);
        let prob = [0.02, 0.98, 0.03];
        let v: Vec<_> = prob.iter().map(|&p| verdict(p >= 0.5, p)).collect();
        let sure = features(&pb, &prob, &v, 0.5, false);
        assert_eq!(sure.len(), NAMES.len());
        let at = |name: &str| NAMES.iter().position(|n| *n == name).unwrap();
        assert!(sure[at("expected_f1")] > 0.95);
        assert!(sure[at("near_cut")] < 1e-9);
        let prob = [0.45, 0.55, 0.48];
        let v: Vec<_> = prob.iter().map(|&p| verdict(p >= 0.5, p)).collect();
        let doubt = features(&pb, &prob, &v, 0.5, true);
        assert!(doubt[at("near_cut")] > 0.99);
        assert!(doubt[at("uncertainty")] > sure[at("uncertainty")]);
        assert_eq!(doubt[at("novel")], 1.0);
    }

    #[test]
    fn an_empty_page_and_an_infinite_cut_stay_finite() {
        let pb = page(&[]);
        let out = features(&pb, &[], &[], f64::INFINITY, false);
        assert!(out.iter().all(|x| x.is_finite()));
        assert_eq!(
            out[NAMES.iter().position(|n| *n == "sure_empty").unwrap()],
            1.0
        );
    }
}
