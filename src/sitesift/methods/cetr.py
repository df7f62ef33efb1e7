"""CETR, content extraction via tag ratios (Weninger, Hsu & Han, WWW 2010): `cetr-tm`,
`cetr-km`, `cetr-2d`.

The page source, less comments, scripts and styles, is read line by line; a line's *tag
ratio* is its non-tag characters over its tags (a line without tags counts one tag), and
the histogram of ratios is smoothed with a Gaussian. Content lines are then those whose
smoothed ratio reaches a threshold proportional to the histogram's standard deviation
(TM), those outside the k-means cluster nearest the origin (KM), or, in the 2-D model of
smoothed ratio and smoothed absolute derivative, those outside the cluster whose centroid
is held at the origin (2D).

Minified pages: a page written on a handful of lines would give a handful of ratios.
Every source line longer than `rebreak_over` characters is first split before each
block-level opening tag and after each block-level end tag (the renderer's block tags less
br/hr), which gives a minified page about the lines a pretty-printed one has, and leaves
hand-written lines as their author broke them.

Back to the page: the DOM text runs are aligned, in document order, with the visible
text of the lines (`shared.source.align_runs`), and each block-level element (the unit the shared
renderer turns into a text block) is content when at least `min_share` of its own text lies
on content lines. The text itself is then rendered by `verdicts.render_blocks`, as for every
DOM method, so CETR's output is exactly a subset of the page's visible text.

`preset="paper"` (`--set preset=paper`, PRESETS): the source lines as the page has them (no
re-breaking) and the text of the content lines as the output (`output="lines"`), no DOM.
"""

from __future__ import annotations

import html as htmllib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from sitesift.methods.base import NodeScores, ParamsCleaner, register
from sitesift.methods.shared.presets import Presets, check_preset
from sitesift.methods.shared.source import (
    TAG,
    Line,
    align_runs,
    normalise_text,
    source_lines,
)
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE, Block, Result
from sitesift.verdicts import Verdict
from sitesift.weak import check_page

if TYPE_CHECKING:
    import numpy as np


OUTPUTS = ("blocks", "lines")
# What each preset changes from the field defaults (the fields' docstrings say why).
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "paper": {"rebreak_over": None, "output": "lines"},
}


@dataclass(frozen=True, slots=True)
class CETRParams(Presets):
    """Options of the three CETR variants, with where each default comes from.

    Choices the paper (as seed 001 describes it) leaves open, the same in both presets: a
    line without tags counts one tag (the seed's "Tags=0, TR=37"); the smoothing kernel's
    radius and its edges (SciPy: 4 sigma, reflected); lambda (`threshold`); the k-means
    seeding (k-means++, `seed`); a zero ratio is never content even at lambda 0."""

    METHOD = "cetr"
    PRESETS = PRESETS

    sigma: float = 1.0
    """Standard deviation (in lines) of the Gaussian smoothing: the paper's value."""
    threshold: float = 1.25
    """TM: content when the smoothed ratio >= threshold * its standard deviation. The paper
    sweeps this factor (lambda); on every 10th page of the shared corpora 0.5 / 0.75 / 1.0 /
    1.25 / 1.5 gave mean F1 0.782 / 0.805 / 0.821 / 0.827 / 0.827: 1.25. Paper preset:
    1.25 (the seed gives no value)."""
    k: int = 3
    """KM and 2D: number of clusters (the paper's k = 3; k = 2 measured 0.809 vs 0.815 for
    KM and 0.822 vs 0.812 for 2D, the gain uneven across corpora, so the paper's value)."""
    alpha: int = 3
    """2D: the derivative compares a line with the mean of the next alpha lines (paper)."""
    rebreak_over: int | None = 500
    """Lines longer than this are re-broken at block tags (None: never). Ours: on every 10th
    page of the shared corpora, never / 200 / 500 / 2000 / always gave mean F1 (TM)
    0.812 / 0.820 / 0.821 / 0.820 / 0.816, KM 0.804 vs 0.815 and 2D 0.803 vs 0.812 at 500.
    Paper preset: None, the lines as the source has them."""
    output: str = "blocks"
    """What is returned: "blocks" (ours: each block-level element of the DOM is content
    when `min_share` of its text lies on content lines, so the output is whole elements,
    rendered with their structure) or "lines" (the paper: the text of the content lines,
    tags removed; an element split over lines is split in the output). Paper preset:
    "lines"."""
    min_share: float = 0.5
    """A block is content when this share of its characters lies on content lines (ours:
    a majority vote; not read with `output="lines"`)."""
    seed: int = 0
    """Seed of the k-means initialisation, so a page always cleans the same way."""
    max_iter: int = 100
    preset: str = "default"
    """'default' (the values above) or 'paper': CETR as seed 001 describes it (PRESETS).
    `--set preset=paper` / `get_cleaner("cetr-tm", preset="paper")`: the preset gives the
    starting values, and any field also set explicitly wins."""

    def __post_init__(self) -> None:
        check_preset("cetr", PRESETS, self.preset)
        if self.output not in OUTPUTS:
            raise ValueError(f"cetr: output must be one of {OUTPUTS}")
        # upper bounds too: a model file or --set may hold any number (1e21 lines of
        # smoothing would ask SciPy for an impossible kernel)
        if not (0 <= self.sigma <= 1000 and self.threshold >= 0):
            raise ValueError("cetr: sigma must be in [0, 1000], threshold >= 0")
        if not (2 <= self.k <= 100 and 1 <= self.alpha <= 10_000 and 1 <= self.max_iter
                <= 100_000):
            raise ValueError("cetr: k must be in [2, 100], alpha in [1, 10000], max_iter in "
                             "[1, 100000]")
        if not 0 <= self.seed < 2**32:
            raise ValueError("cetr: seed must be in [0, 2**32)")
        if not 0.0 <= self.min_share <= 1.0:
            raise ValueError("cetr: min_share must be in [0, 1]")


def line_text(line: Line) -> str:
    """A source line's text as the paper outputs it: tags removed (each a space, so words
    on either side of a tag stay apart), entities decoded, whitespace folded."""
    return normalise_text(htmllib.unescape(TAG.sub(" ", line.source)))


def tag_ratios(lines: list[Line]) -> np.ndarray:
    """The TR histogram: one ratio per non-empty line."""
    import numpy as np
    return np.fromiter((line.ratio for line in lines), dtype=np.float64, count=len(lines))


def smooth(values: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian smoothing of a histogram (SciPy, radius 4 sigma, reflected at the ends)."""
    import numpy as np
    if sigma <= 0 or values.size == 0:
        return values.astype(np.float64)
    from scipy.ndimage import gaussian_filter1d

    return gaussian_filter1d(values.astype(np.float64), sigma, mode="reflect")


def threshold_labels(smoothed: np.ndarray, factor: float) -> np.ndarray:
    """CETR-TM: a line is content when its smoothed ratio reaches factor * std."""
    import numpy as np
    if smoothed.size == 0:
        return np.zeros(0, dtype=bool)
    tau = factor * float(smoothed.std())
    return (smoothed >= tau) & (smoothed > 0)


def kmeans_labels(smoothed: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """CETR-KM: k-means over the smoothed ratios; the cluster whose centroid is nearest the
    origin is non-content, every other cluster content. SciPy's k-means (k-means++ seeding)
    rather than scikit-learn's: the same Lloyd iterations, without a thread pool set up
    per call, which cost scikit-learn ~30x the time on these small histograms."""
    import numpy as np
    distinct = np.unique(smoothed)
    if distinct.size < 2:  # one value: content if there is any text at all
        return smoothed > 0
    import warnings

    from scipy.cluster.vq import kmeans2

    k = min(k, int(distinct.size))
    with warnings.catch_warnings():  # an emptied cluster is harmless here: fewer clusters
        warnings.simplefilter("ignore")
        centres, labels = kmeans2(smoothed.reshape(-1, 1), k, minit="++", seed=seed)
    return np.asarray(labels != int(np.argmin(np.abs(centres[:, 0]))))


def absolute_derivative(smoothed: np.ndarray, alpha: int) -> np.ndarray:
    """|mean of the next alpha lines - this line|: how sharply the ratio is changing. Near
    the end the mean is over the lines there are; the last line's derivative is 0."""
    import numpy as np
    n = smoothed.size
    if n == 0:
        return smoothed.copy()
    sums = np.concatenate(([0.0], np.cumsum(smoothed)))
    idx = np.arange(n)
    hi = np.minimum(idx + alpha, n - 1)
    count = hi - idx
    ahead = np.divide(sums[hi + 1] - sums[idx + 1], count, out=smoothed.copy(),
                      where=count > 0)
    return np.abs(ahead - smoothed)


def origin_kmeans(points: np.ndarray, k: int, seed: int = 0,
                  max_iter: int = 100) -> np.ndarray:
    """Lloyd's k-means with centroid 0 held at the origin; returns each point's cluster.

    scikit-learn's KMeans cannot hold a centroid fixed, hence this small variant. The k-1
    free centroids start by k-means++ seeding with the origin as the first centre.
    """
    import numpy as np
    n = points.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    rng = np.random.default_rng(seed)
    centres = np.zeros((k, points.shape[1]))
    nearest = (points ** 2).sum(axis=1)
    for j in range(1, k):
        total = nearest.sum()
        if total <= 0:  # every point already sits on a centre
            centres = centres[:j]
            break
        centres[j] = points[rng.choice(n, p=nearest / total)]
        nearest = np.minimum(nearest, ((points - centres[j]) ** 2).sum(axis=1))
    labels = np.full(n, -1)
    for _ in range(max_iter):
        dist = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new = dist.argmin(axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        for j in range(1, centres.shape[0]):  # centroid 0 never moves
            members = points[labels == j]
            if len(members):
                centres[j] = members.mean(axis=0)
    return labels


def two_d_labels(smoothed: np.ndarray, sigma: float, alpha: int, k: int, seed: int = 0,
                 max_iter: int = 100) -> np.ndarray:
    """CETR-2D: cluster (smoothed ratio, smoothed |derivative|); the origin cluster is
    non-content, every other cluster content."""
    import numpy as np
    if smoothed.size == 0:
        return np.zeros(0, dtype=bool)
    derivative = smooth(absolute_derivative(smoothed, alpha), sigma)
    points = np.column_stack((smoothed, derivative))
    return np.asarray(origin_kmeans(points, k, seed, max_iter) != 0)


class _CETR(ParamsCleaner[CETRParams]):
    """The shared pipeline: lines, ratios, smoothing, a labelling rule, back to the DOM."""

    params_type = CETRParams
    presets = PRESETS
    rule: ClassVar[tuple[str, str]] = ("", "")  # reasons for (content, noise) lines

    def label_lines(self, smoothed: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def line_labels(self, page: Page) -> tuple[list[Line], np.ndarray]:
        """The page's lines and whether each is content."""
        lines = source_lines(page.html, rebreak_over=self.params.rebreak_over)
        smoothed = smooth(tag_ratios(lines), self.params.sigma)
        return lines, self.label_lines(smoothed)

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        if self.params.output == "blocks":
            return super().clean(page, noise=noise)
        return self.clean_lines(page, noise=noise)

    def clean_lines(self, page: Page, *, noise: bool = True) -> Result:
        """The paper's output: one block per line, the content lines' text kept. No node
        verdicts: the result keeps the renderings built from its blocks."""
        lines, content = self.line_labels(page)
        ok, bad = self.rule
        blocks = []
        for line, keep in zip(lines, content.tolist(), strict=True):
            text = line_text(line)
            if text and (keep or noise):
                blocks.append(Block(text, "line", CONTENT if keep else NOISE,
                                    1.0 if keep else 0.0, ok if keep else bad,
                                    page.root.nid))
        return check_page(page, Result(blocks, self.name, page.id, page.url, page.site,
                                       page.title))

    def score(self, page: Page) -> NodeScores:
        lines, content = self.line_labels(page)
        ok, bad = self.rule
        verdicts: NodeScores = {page.root.nid: Verdict(NOISE, 0.0, f"{bad} (no text)")}
        total: dict[int, int] = {}
        kept: dict[int, int] = {}
        for owner, unit, chars in align_runs(page.root, [line.visible for line in lines]):
            total[owner.nid] = total.get(owner.nid, 0) + chars
            if content[unit]:
                kept[owner.nid] = kept.get(owner.nid, 0) + chars
        for nid, chars in total.items():
            share = kept.get(nid, 0) / chars
            if share >= self.params.min_share and share > 0:
                verdicts[nid] = Verdict(CONTENT, share, ok)
            else:
                verdicts[nid] = Verdict(NOISE, share, bad)
        return verdicts


@register
class CETRThreshold(_CETR):
    """CETR-TM: smoothed tag ratio against a threshold proportional to its std."""

    name = "cetr-tm"
    rule = ("CETR-TM: line's smoothed tag ratio reaches threshold x std",
            "CETR-TM: line's smoothed tag ratio below threshold x std")

    def label_lines(self, smoothed: np.ndarray) -> np.ndarray:
        return threshold_labels(smoothed, self.params.threshold)


@register
class CETRKMeans(_CETR):
    """CETR-KM: k-means over smoothed tag ratios."""

    name = "cetr-km"
    rule = ("CETR-KM: line outside the cluster nearest the origin",
            "CETR-KM: line in the cluster nearest the origin")

    def label_lines(self, smoothed: np.ndarray) -> np.ndarray:
        return kmeans_labels(smoothed, self.params.k, self.params.seed)


@register
class CETR2D(_CETR):
    """CETR-2D: origin-anchored k-means over (smoothed ratio, smoothed |derivative|)."""

    name = "cetr-2d"
    rule = ("CETR-2D: line outside the origin-centred cluster",
            "CETR-2D: line in the origin-centred cluster")

    def label_lines(self, smoothed: np.ndarray) -> np.ndarray:
        p = self.params
        return two_d_labels(smoothed, p.sigma, p.alpha, p.k, p.seed, p.max_iter)
