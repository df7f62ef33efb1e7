"""The Site Style Tree cleaner (`--method sst`): fit on a site's pages, clean any page of it."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sitesift.errors import ModelError
from sitesift.methods.base import NodeScores, ParamsCleaner, register, seeded_sample
from sitesift.methods.shared.presets import check_preset
from sitesift.methods.shared.state import params_from_state
from sitesift.methods.sst.importance import (
    compute_importance,
    mark_local_noise,
    mark_noise,
    otsu_threshold,
)
from sitesift.methods.sst.mapping import map_page
from sitesift.methods.sst.serialize import tree_from_state, tree_to_state
from sitesift.methods.sst.tree import (
    CF_INSTANCES,
    MERGE_CANDIDATES,
    STYLE_KEYS,
    ElementNode,
    TreeBuilder,
    walk,
)
from sitesift.page import Page
from sitesift.result import NOISE, Result
from sitesift.text import normalise_line
from sitesift.verdicts import KEEP, Verdict, block_runs, render_blocks
from sitesift.weak import check_page

LOCAL_NOISE = "SST locally noisy block inside a meaningful node"


def _with_local_noise(page: Page, verdicts: NodeScores, local: dict[int, frozenset[str]]
                      ) -> NodeScores:
    """The verdicts with a noise verdict on the nodes of each block of a kept meaningful
    node whose text is one of that node's locally noisy lines (`block_runs`), so the
    blocks and the structure renderer, which both read node verdicts, leave out the same
    text."""
    out = dict(verdicts)
    for node in page.root.iter():
        lines = local.get(node.nid)
        if not lines:
            continue
        for text, nodes in block_runs(node, verdicts):
            if normalise_line(text) in lines:
                for held in nodes:
                    out[held.nid] = Verdict(NOISE, 0.0, LOCAL_NOISE, final=True)
    return out


@contextmanager
def paused_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


AUTO = "auto"
AUTO_FALLBACK = 0.6  # the default threshold, for a site whose importances are all one value
# What `preset="paper"` sets: the paper's rules where ours differ (each field says why).
PAPER_CHOICES: dict[str, Any] = {"align_unmatched": None, "style_key": "paper",
                                 "cf_instances": None, "merge_candidates": None}
PRESETS: dict[str, dict[str, Any]] = {"default": {}, "paper": PAPER_CHOICES}


@dataclass(frozen=True, slots=True)
class SSTParams:
    """Every parameter of the method, with where its default comes from.

    `preset="paper"` (`--set preset=paper`) runs the paper's algorithm: no alignment of
    unseen child sequences at fit or clean time, the paper's style key, and enhancement 1
    over all instances and all same-key element nodes (PAPER_CHOICES; settings given beside
    the preset still win). Not paper-exact even so: the threshold, lambda and the merge
    similarity are lost from the seed's text (ours are measured values; the paper chose
    the threshold per site by looking at cleaned pages, `threshold="auto"` automates
    that); the merge similarity is Jaccard; enhancement 3 removes whole text blocks
    (`local_threshold`), where the paper deletes single locally noisy features."""

    preset: str = "default"
    """"default" (ours) or "paper" (PAPER_CHOICES)."""
    gamma: float = 0.9
    """Attenuating factor of composite importance: the paper's value."""
    threshold: float | str = 0.6
    """Noise threshold t (lost from the seed's text). Measured (benchmarks/sst_params.py,
    docs/sst.md): F1 is flat from 0.05 to 0.6 and rises to 0.85, but above 0.6 page-specific
    values that repeat across pages (publication dates, publishers on swde-book) go. The
    paper sets t per site, by cleaning a few pages at several values and looking at them;
    "auto" chooses it per site as the Otsu threshold of the site's composite importances
    (`importance.otsu_threshold`: repeated against unique content), 0.6 when they take a
    single value. The value chosen is the model's `threshold_`."""
    style_key: str = "ours"
    """What identifies an element node. "ours": tag plus display attributes including
    class, id, role and inline style, digits folded to `#`, and `<body>`/`<html>` as their
    bare tag (`dom.style_key`: modern pages carry their layout in classes, and CMSs put
    page ids in them). "paper": the tag plus its HTML display attributes (bgcolor, width,
    align, border, ...: `tree.PAPER_DISPLAY_ATTRS`), values as written, on every tag, body
    and html included (the paper's figure shows `<body bgcolor=white>`)."""
    cf_instances: int | None = CF_INSTANCES
    """Enhancement 1: how many of an element node's instances (its first ones) give its
    characteristic features. Ours: 16, which bounds fit time on large sites; None (paper):
    all of them, the paper's document frequency over the node's pages."""
    merge_candidates: int | None = MERGE_CANDIDATES
    """Enhancement 1: a new element node is compared with every same-key element node of
    its parent, or where there are more than twice this many, with the this-many most
    established and newest (ours: 8, fit time stays linear). None (paper): with all."""
    sample_size: int = 500
    """Pages sampled to build the tree (seeded). Measured: cleaning of unseen pages stops
    changing at 200-400 pages (agreement F1 0.99 with a tree of all pages)."""
    seed: int = 0
    merge: bool = True
    """Enhancement 1: merge element nodes of different style nodes with similar contents."""
    merge_similarity: float = 0.3
    """Jaccard overlap of characteristic features needed to merge (lost; measured: 0.3 best
    of 0.2-0.8, by a little)."""
    cf_min_share: float = 0.5
    """A characteristic feature occurs in at least this share of the node's pages (lost;
    measured: flat from 0.3 to 0.9)."""
    virtual_leaves: bool = True
    """Enhancement 2: parents of actual leaf tags are the leaves."""
    local_noise: bool = True
    """Enhancement 3: delete locally noisy blocks inside meaningful nodes."""
    local_threshold: float = 0.6
    """A block is locally noisy when 1 - H(block) is below this (lost; measured: 0.7 gains
    0.01 F1 but drops swde-book attribute recall from 0.96 to 0.93)."""
    align_unmatched: float | None = 0.5
    """Our extension: align unseen child sequences to the closest known style node when
    their key sequences agree at least this much (difflib ratio); None keeps the paper's
    rule (an unseen sequence keeps the page node whole)."""

    def __post_init__(self) -> None:
        check_preset("sst", PRESETS, self.preset)
        if self.style_key not in STYLE_KEYS:
            raise ValueError(f"sst: style_key must be one of {', '.join(STYLE_KEYS)}, "
                             f"got {self.style_key!r}")
        if isinstance(self.threshold, str) and self.threshold != AUTO:
            raise ValueError(f"sst: threshold must be a number or 'auto', "
                             f"got {self.threshold!r}")
        for name in ("cf_instances", "merge_candidates"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"sst: {name} must be a positive integer or null")
        numbers: tuple[str, ...] = ("gamma", "merge_similarity", "cf_min_share",
                                    "local_threshold")
        if not isinstance(self.threshold, str):
            numbers += ("threshold",)
        for name in numbers:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not 0.0 <= value <= 1.0:
                raise ValueError(f"sst: {name} must be a number in [0, 1], got {value!r}")
        if self.sample_size < 1:
            raise ValueError("sst: sample_size must be at least 1")


@register
class SiteStyleTree(ParamsCleaner[SSTParams]):
    """Yi, Liu & Li (KDD 2003): noise elimination with a Site Style Tree."""

    name = "sst"
    params_type = SSTParams
    presets = PRESETS
    site_level = True
    min_fit_pages = 5  # fitted on 1 page it removes nothing (sitesift.weak)

    def __init__(self, params: SSTParams | None = None, **overrides: Any) -> None:
        super().__init__(params, **overrides)
        self.tree_: ElementNode | None = None
        self.n_pages_ = 0
        self.threshold_: float | None = None  # the threshold the fit used

    @property
    def fitted(self) -> bool:
        return self.tree_ is not None

    @property
    def fit_reads(self) -> int:
        return self.params.sample_size

    def fit_site(self, pages: Sequence[Page]) -> SiteStyleTree:
        with paused_gc():  # the tree is many small long-lived objects: GC passes only cost
            return self._fit(pages)

    def _fit(self, pages: Sequence[Page]) -> SiteStyleTree:
        p = self.params
        sample = seeded_sample(pages, p.sample_size, p.seed)
        builder = TreeBuilder(merge=p.merge, merge_similarity=p.merge_similarity,
                              cf_min_share=p.cf_min_share, virtual_leaves=p.virtual_leaves,
                              align_min=p.align_unmatched, key=STYLE_KEYS[p.style_key],
                              cf_instances=p.cf_instances,
                              merge_candidates=p.merge_candidates)
        for page in sample:
            builder.add_page(page.root)
        order = compute_importance(builder.root, p.gamma)
        threshold = self._threshold(order)
        mark_noise(builder.root, order, threshold)
        self.threshold_ = threshold
        if p.local_noise:
            mark_local_noise(builder.root, p.local_threshold)
        for node in walk(builder.root):  # page nodes are not part of the model
            node.instances = []
            node.leaf_counts = []
        self.tree_ = builder.root
        self.n_pages_ = builder.n_pages
        return self

    def _threshold(self, order: list[ElementNode]) -> float:
        """The fixed threshold, or for "auto" the site's own separation (0.6 when none)."""
        fixed = self.params.threshold
        if not isinstance(fixed, str):
            return fixed
        found = otsu_threshold(order)
        return AUTO_FALLBACK if found is None else found

    def score(self, page: Page) -> NodeScores:
        return self._map(page)[0]

    def _map(self, page: Page) -> tuple[NodeScores, dict[int, frozenset[str]]]:
        self.check_fitted()
        assert self.tree_ is not None
        p = self.params
        return map_page(self.tree_, page.root, virtual_leaves=p.virtual_leaves,
                        align_min=p.align_unmatched, key=STYLE_KEYS[p.style_key])

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        verdicts, local = self._map(page)
        if local:
            verdicts = _with_local_noise(page, verdicts, local)
        # the blocks from the same verdicts the structure renderer reads
        blocks = render_blocks(page.root, verdicts, KEEP, noise=noise, with_paths=noise)
        return check_page(page, Result(blocks, self.name, page.id, page.url, page.site,
                                       page.title, verdicts=verdicts))

    def to_state(self) -> dict[str, Any]:
        self.check_fitted()
        assert self.tree_ is not None
        state: dict[str, Any] = {"n_pages": self.n_pages_, **tree_to_state(self.tree_)}
        if self.threshold_ is not None:
            state["threshold"] = self.threshold_
        return state

    @classmethod
    def from_state(cls, params: dict[str, Any], state: dict[str, Any]) -> SiteStyleTree:
        cleaner = cls(params_from_state(SSTParams, "sst", params))
        n_pages = state.get("n_pages")
        if not isinstance(n_pages, int) or n_pages < 0:
            raise ModelError("sst state: n_pages must be a non-negative integer")
        cleaner.tree_ = tree_from_state(state)
        cleaner.n_pages_ = n_pages
        threshold = state.get("threshold")
        if threshold is not None:
            if not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
                raise ModelError("sst state: threshold must be a number in [0, 1]")
            cleaner.threshold_ = float(threshold)
        return cleaner
