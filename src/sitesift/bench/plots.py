"""PNG plots of a bench run (matplotlib, Agg backend: no display needed).

Per corpus: the distribution of per-page token F1 per method (box plot), and per-page F1
against per-page time (log scale) with each method's median time and mean F1 marked; where
rows carry a page type (wcxb), mean F1 per page type and method. Per method whose rows carry
a confidence (the default cleaner's), its reliability diagram over every corpus.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from sitesift.bench.rows import PAGE_TYPES, Row, by_key


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def f1_distribution(rows: list[Row], methods: list[str], corpus: str, path: Path) -> Path:
    plt = _pyplot()
    cells = by_key(rows, "method")
    present = [m for m in methods if (m,) in cells]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(present) + 1.5))
    ax.boxplot([[r["f1"] for r in cells[(m,)]] for m in present], orientation="horizontal",
               tick_labels=present, showmeans=True)
    ax.invert_yaxis()  # first method on top, as in the tables
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("token F1 per page")
    ax.set_title(f"{corpus}: token F1 per page ({len(cells[(present[0],)])} pages)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def f1_vs_ms(rows: list[Row], methods: list[str], corpus: str, path: Path) -> Path:
    plt = _pyplot()
    cells = by_key(rows, "method")
    fig, ax = plt.subplots(figsize=(10, 5.5))
    colours = plt.get_cmap("tab20").colors
    for i, m in enumerate(m for m in methods if (m,) in cells):
        sel = cells[(m,)]
        colour = colours[i % len(colours)]
        marker = "s" if sel[0].get("kind") == "sitesift" else "o"  # sitesift's own: squares
        ax.scatter([max(r["ms"], 0.01) for r in sel], [r["f1"] for r in sel], s=6, alpha=0.25,
                   color=colour, marker=marker, linewidths=0)
        ax.scatter([max(statistics.median(r["ms"] for r in sel), 0.01)],
                   [statistics.fmean(r["f1"] for r in sel)], s=90, color=colour, marker=marker,
                   edgecolors="black", label=m, zorder=3)
    ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("ms per page (log scale); large marker: median ms, mean F1")
    ax.set_ylabel("token F1 per page")
    ax.set_title(f"{corpus}: accuracy against time per page")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def f1_per_page_type(rows: list[Row], methods: list[str], corpus: str, path: Path) -> Path:
    plt = _pyplot()
    cells = by_key(rows, "page_type", "method")
    present = {r["page_type"] for r in rows if r.get("page_type")}
    types = [t for t in PAGE_TYPES if t in present] + sorted(present - set(PAGE_TYPES))
    present_methods = [m for m in methods if any((t, m) in cells for t in types)]
    fig, ax = plt.subplots(figsize=(12, 5))
    width = 0.8 / max(len(present_methods), 1)
    colours = plt.get_cmap("tab20").colors
    for i, m in enumerate(present_methods):
        means = [statistics.fmean(r["f1"] for r in cells[(t, m)]) if (t, m) in cells else 0.0
                 for t in types]
        ax.bar([x + i * width for x in range(len(types))], means, width, label=m,
               color=colours[i % len(colours)])
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(types))], types)
    ax.set_ylim(0, 1)
    ax.set_ylabel("mean token F1")
    ax.set_title(f"{corpus}: mean token F1 per page type")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def reliability_diagram(confidence: list[float], f1: list[float], title: str,
                        path: Path) -> Path:
    """Mean real F1 against mean confidence per bin of 10 (`bench.calibration`), the
    diagonal a calibrated confidence lies on, the pages per bin as bars beneath; the title
    names the ECE."""
    from sitesift.bench.calibration import ece, reliability

    plt = _pyplot()
    bins = reliability(confidence, f1)
    fig, (ax, hist) = plt.subplots(2, 1, figsize=(5.5, 6.5), sharex=True,
                                   gridspec_kw={"height_ratios": [3, 1]})
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="calibrated")
    ax.plot([b["confidence"] for b in bins], [b["f1"] for b in bins], marker="o",
            label="mean real F1 per bin")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("mean real token F1")
    ax.legend(loc="upper left")
    error = ece(confidence, f1)
    ax.set_title(f"{title}: ECE {error:.3f} ({len(f1)} pages)" if error is not None else title)
    hist.bar([(b["low"] + b["high"]) / 2 for b in bins], [b["pages"] for b in bins],
             width=0.09)
    hist.set_xlabel("confidence (predicted token F1)")
    hist.set_ylabel("pages")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_plots(rows: list[Row], methods: list[str], out: Path) -> list[Path]:
    """All plots of a run into `out`; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for method in methods:
        rated = [r for r in rows if r.get("method") == method
                 and isinstance(r.get("confidence"), int | float)]
        if rated:
            paths.append(reliability_diagram([r["confidence"] for r in rated],
                                             [r["f1"] for r in rated], method,
                                             out / f"reliability-{_safe(method)}.png"))
    for (corpus,), sel in by_key(rows, "corpus").items():
        name = _safe(corpus)
        paths.append(f1_distribution(sel, methods, corpus, out / f"f1-{name}.png"))
        paths.append(f1_vs_ms(sel, methods, corpus, out / f"f1-vs-ms-{name}.png"))
        if len({r.get("page_type") for r in sel} - {None}) > 1:
            paths.append(f1_per_page_type(sel, methods, corpus,
                                          out / f"f1-page-type-{name}.png"))
    return paths
