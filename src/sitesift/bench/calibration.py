"""How good a confidence is (issue 55): against each page's real token F1, its expected
calibration error (10 equal-width bins), its Spearman correlation, and how well it ranks the
bad pages (AUROC for F1 < `confidence.BAD_F1`); the reliability diagram's bins. Used by
`sitesift bench` (summary.md, calibration.json) and `training/confidence.py`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sitesift.confidence import BAD_F1

BINS = 10


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation (Pearson's on the tie-averaged ranks); None where either
    side is constant or there are fewer than 3 pages."""
    if len(a) < 3:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return None if va == 0 or vb == 0 else cov / (va * vb) ** 0.5


def auroc_bad(confidence: Sequence[float], f1: Sequence[float],
              bad: float = BAD_F1) -> float | None:
    """The probability that a bad page (F1 < `bad`) has a lower confidence than a good one
    (ties count half): the AUROC of 1 - confidence for finding bad pages. None without both."""
    r = ranks(confidence)
    n_bad = sum(1 for y in f1 if y < bad)
    n_good = len(f1) - n_bad
    if n_bad == 0 or n_good == 0:
        return None
    good_ranks = sum(rank for rank, y in zip(r, f1, strict=True) if y >= bad)
    return (good_ranks - n_good * (n_good + 1) / 2) / (n_bad * n_good)


def reliability(confidence: Sequence[float], f1: Sequence[float],
                bins: int = BINS) -> list[dict[str, Any]]:
    """Per equal-width confidence bin with pages: its range, pages, mean confidence, mean F1."""
    held: list[list[tuple[float, float]]] = [[] for _ in range(bins)]
    for c, y in zip(confidence, f1, strict=True):
        held[min(bins - 1, max(0, int(c * bins)))].append((c, y))
    return [{"low": i / bins, "high": (i + 1) / bins, "pages": len(b),
             "confidence": sum(c for c, _ in b) / len(b), "f1": sum(y for _, y in b) / len(b)}
            for i, b in enumerate(held) if b]


def ece(confidence: Sequence[float], f1: Sequence[float], bins: int = BINS) -> float | None:
    """Expected calibration error: the pages' share per bin times |mean confidence - mean
    F1| there, summed (`bins` equal-width bins over [0, 1])."""
    if not confidence:
        return None
    n = len(confidence)
    return sum(b["pages"] / n * abs(b["confidence"] - b["f1"])
               for b in reliability(confidence, f1, bins))


def summary(confidence: Sequence[float], f1: Sequence[float]) -> dict[str, Any]:
    """Every figure of one set of pages: pages, mean confidence and F1, ECE, Spearman,
    AUROC for F1 < BAD_F1, the share of bad pages."""
    n = len(confidence)
    return {"pages": n,
            "mean_confidence": sum(confidence) / n if n else None,
            "mean_f1": sum(f1) / n if n else None,
            "bad_share": sum(1 for y in f1 if y < BAD_F1) / n if n else None,
            "ece": ece(confidence, f1), "spearman": spearman(confidence, f1),
            "auroc_bad": auroc_bad(confidence, f1)}
