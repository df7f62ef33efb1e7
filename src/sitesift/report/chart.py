"""The summary's small chart: token F1 per page and method, as inline SVG drawn by matplotlib.

matplotlib is optional (`pip install 'sitesift[report]'`); without it the summary says so in
place of the chart, and every figure stays in the tables. SVG rather than PNG: it is a few
kilobytes, sharp at any zoom, and each bar links to its page's view (`Artist.set_url`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

PALETTE = ("#2563eb", "#ea580c", "#16a34a", "#9333ea", "#0891b2", "#be123c")
_PROLOG = re.compile(r"^.*?(?=<svg)", re.S)


def matplotlib_missing() -> str | None:
    """Why the chart cannot be drawn, or None."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return "matplotlib is not installed (pip install 'sitesift[report]')"
    return None


def f1_chart(pages: Sequence[str], methods: Sequence[str],
             f1: dict[str, list[float | None]], links: Sequence[str | None],
             salt: str) -> str:
    """Grouped bars: F1 of each method on each page (None: no score); `pages` are the tick
    labels (the pages' numbers in the summary's table), `links[i]` is page i's
    view, `salt` makes the SVG's internal ids unique among the charts of one document."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    n, k = len(pages), max(len(methods), 1)
    width = 0.8 / k
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": f"sitesift-{salt}",
                     "font.size": 8, "font.family": "sans-serif"}):
        fig = Figure(figsize=(min(max(3.0, 0.16 * n * k + 1.2), 9.5), 1.9))
        ax = fig.add_subplot()
        for j, method in enumerate(methods):
            xs = [i + (j - (k - 1) / 2) * width for i in range(n)]
            values = [v if v is not None else 0.0 for v in f1[method]]
            bars = ax.bar(xs, values, width=width * 0.92, color=PALETTE[j % len(PALETTE)],
                          label=method)
            for bar, link in zip(bars, links, strict=True):
                if link:
                    bar.set_url(link)
        ax.set_ylim(0, 1)
        ax.set_xlim(-0.6, n - 0.4)
        ax.set_ylabel("token F1")
        ax.set_xticks(range(n), list(pages) if n <= 60 else [""] * n)
        ax.tick_params(axis="x", length=0, labelsize=6)
        ax.set_xlabel("page (as numbered in the table)")
        ax.grid(axis="y", linewidth=0.4, alpha=0.5)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.legend(loc="lower right", ncols=k, fontsize=7, frameon=False,
                  bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout(pad=0.3)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return _PROLOG.sub("", buf.getvalue(), count=1)
