"""The default cleaner (`--method default`): learned block classification, site-aware.

Every block of the page (a block element's own text, `extractor.blocks`) is scored by two
stages of gradient-boosted trees trained on the shared corpora (`extractor.train`): stage
1 from the block's own features (text shape, links, tags, class and id words, position,
neighbours, containers, title overlap), stage 2 from those plus stage 1's probabilities
around it (content is mostly one region; a container's blocks share a fate). When the
cleaner is fitted on several pages of a site, each block also carries the site's evidence
(how many of the site's other pages hold the same text, or text at the same place in the
layout), which is how template text is told apart from page text; fitted on one page or
none, it is the page-level path with the same model (the site features then read as
missing, as they did for lone pages in training).

Presets (`preset=`), each a probability threshold chosen on site-held-out
cross-validation (`sitesift train-default --folds`): `balanced` (best mean F1),
`precision` (best F0.5: keeps less, for training data where noise hurts most), `recall`
(best F2: keeps more, for search indexing where missing text hurts most); `threshold=`
overrides the preset's threshold. On a page of an unusual layout, where the model is
unsure of every block, the cut is scaled down so the page keeps its relatively likely
blocks instead of nothing: at the balanced threshold it is at most `relative` (0.5) times
the page's highest block probability, and every preset's cut scales by the same factor
(`extractor.model.page_cut`; `relative=0` turns this off).

`comments=drop` removes the page's comment section whatever the model says (people who
build training corpora often want no reader comments; the model itself follows the gold
texts, which keep a forum's posts and mostly drop a story's comments). A comment section is
an element whose class, id, role or itemprop names comments (`extractor.blocks`'s comment
group), unless it holds the start of the main text: the first likely block of some length
(a wrapper named for comments around the story is not a comment section). Forum posts in
such containers go too: that is what the option asks for. `comments=auto` (the default)
leaves it to the model.

The model is `sitesift/data/default-v1.json.gz` unless `model=` (or the environment
variable SITESIFT_DEFAULT_MODEL) names another file made by `sitesift train-default`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from sitesift.errors import ModelError
from sitesift.extract import KEEP, Verdict, render_blocks
from sitesift.extractor import model as model_file
from sitesift.extractor.blocks import ATTR_FLAG, PageBlocks, walk
from sitesift.extractor.dataset import cv_group
from sitesift.extractor.features import ancestors, block_features
from sitesift.extractor.reveal import prepared
from sitesift.extractor.site import SiteEvidence, page_digest
from sitesift.methods.base import Cleaner, NodeScores, register
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE, Result
from sitesift.text import TOKEN

ENV_MODEL = "SITESIFT_DEFAULT_MODEL"
COMMENTS = ("auto", "drop")
MAIN_START_TOKENS = 10  # the main text starts at the first likely block of this many tokens
_COMMENT = ATTR_FLAG["comment"]


def comment_blocks(pb: PageBlocks, likely: np.ndarray) -> np.ndarray:
    """Per block: whether it lies in a comment section, i.e. under (or at) an element named
    for comments that does not hold the start of the main text (the first `likely` block
    of MAIN_START_TOKENS tokens or more, else the first likely block)."""
    likely_idx = np.flatnonzero(likely)
    start = next((int(b) for b in likely_idx
                  if len(TOKEN.findall(pb.text[b])) >= MAIN_START_TOKENS),
                 int(likely_idx[0]) if len(likely_idx) else -1)
    holds_start: set[int] = set()
    e = pb.elem[start] if start >= 0 else -1
    while e >= 0:
        holds_start.add(e)
        e = pb.parent[e]
    inside = [False] * len(pb.nodes)
    for e, up in enumerate(pb.parent):  # document order: a parent comes before its children
        inside[e] = (up >= 0 and inside[up]) or (
            bool(pb.flags[e] & _COMMENT) and e not in holds_start)
    return np.fromiter((inside[e] for e in pb.elem), dtype=bool, count=len(pb.elem))


@register
class DefaultCleaner(Cleaner):
    """Learned two-stage block classifier with site evidence when pages of the site are
    at hand."""

    name = "default"
    site_level = True

    def __init__(self, preset: str = "balanced", threshold: float | None = None,
                 model: str | None = None, site: bool = True,
                 relative: float = model_file.RELATIVE, comments: str = "auto") -> None:
        if preset not in model_file.PRESETS:
            raise ValueError(f"default: preset must be one of {', '.join(model_file.PRESETS)},"
                             f" got {preset!r}")
        if threshold is not None and (isinstance(threshold, bool)
                                      or not isinstance(threshold, int | float)
                                      or not 0.0 < threshold < 1.0):
            raise ValueError(f"default: threshold must be a number in (0, 1), got {threshold!r}")
        if isinstance(relative, bool) or not isinstance(relative, int | float) \
                or not 0.0 <= relative <= 1.0:
            raise ValueError(f"default: relative must be a number in [0, 1], got {relative!r}")
        if comments not in COMMENTS:
            raise ValueError(f"default: comments must be one of {', '.join(COMMENTS)}, got "
                             f"{comments!r}")
        if model is not None and not isinstance(model, str):
            raise ValueError("default: model must be a path")
        self.preset = preset
        self.threshold = None if threshold is None else float(threshold)
        self.model_path = model
        self.use_site = bool(site)
        self.relative = float(relative)
        self.comments = comments
        self.evidence: SiteEvidence | None = None
        self._loaded: model_file.ExtractorModel | None = None
        # The fitted pages' readings (page, page as read, blocks) by the page's identity:
        # cleaning a page the fit has read takes the fit's reading instead of reading it
        # again (a site group is fitted on the pages it then cleans). Each entry goes when
        # its page is cleaned, all of them at the next fit.
        self._read: dict[int, tuple[Page, Page, PageBlocks]] = {}

    def _path(self) -> str:
        return self.model_path or os.environ.get(ENV_MODEL) or str(model_file.BUNDLED)

    @property
    def _model(self) -> model_file.ExtractorModel:
        # Read on first use (and once per process per file: `model.load` memoises), so
        # listing or configuring methods never touches the model file.
        if self._loaded is None:
            self._loaded = model_file.load(self._path())
        return self._loaded

    @property
    def cutoff(self) -> float:
        return self.threshold if self.threshold is not None else \
            self._model.thresholds[self.preset]

    def fit(self, pages: Sequence[Page]) -> DefaultCleaner:
        """Count the site's block texts and layout positions (nothing to learn from one
        page: a lone page is cleaned by the page-level path)."""
        self._read = {}
        if self.use_site and len(pages) > 1:
            for p in pages:
                self._read[id(p)] = (p, *prepared(p))
            self.evidence = SiteEvidence.fit((page_digest(p.html), self._read[id(p)][2])
                                             for p in pages)
        else:
            self.evidence = None
        return self

    def _prepared(self, page: Page) -> tuple[Page, PageBlocks]:
        """`reveal.prepared`, taken from the fit where it read this very page."""
        held = self._read.pop(id(page), None)
        if held is not None and held[0] is page:
            return held[1], held[2]
        return prepared(page)

    def probabilities(self, page: Page, pb: PageBlocks | None = None,
                      digest: str | None = None) -> tuple[PageBlocks, np.ndarray]:
        """The page's blocks and each block's content probability; `digest` is that of the
        HTML the site evidence knows the page by (the page as served, where `pb` is of its
        revealed reading), by default the page's own."""
        if pb is None:
            pb = walk(page.root, page.title, page.url)
        site = (self.evidence.shares(digest or page_digest(page.html), pb)
                if self.evidence is not None else None)
        X = block_features(pb, site)
        if len(X) == 0:
            return pb, np.zeros(0)
        # (a held-out bundle names pages without a site `unknown`, as training did)
        cv = cv_group(page.site)
        ntok = np.rint(np.expm1(X[:, 0]))
        anc = ancestors(pb)
        return pb, model_file.block_probability(self._model.members, cv, X, ntok, anc)

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        """As `Cleaner.clean`, except that a page whose content only shows without scripts
        (`extractor.reveal`) is read with that content shown: the blocks then come from
        that reading of the page."""
        shown, pb = self._prepared(page)
        # the site evidence knows the page by the HTML it was served with, as in training
        verdicts = self._verdicts(shown, pb, page_digest(page.html)
                                  if self.evidence is not None else None)
        blocks = render_blocks(shown.root, verdicts, KEEP, noise=noise, with_paths=noise)
        result = Result(blocks, self.name, page.id, page.url, page.site, page.title)
        if shown is not page:
            result.meta["revealed"] = "content shown from <noscript> / hidden elements"
        return result

    def score(self, page: Page) -> NodeScores:
        """Verdicts on the page's own nodes (without `clean`'s reading of script-gated
        content, which is another tree)."""
        return self._verdicts(page, walk(page.root, page.title, page.url))

    def _verdicts(self, page: Page, pb: PageBlocks, digest: str | None = None
                  ) -> NodeScores:
        pb, prob = self.probabilities(page, pb, digest)
        cut = self.cutoff
        if len(prob):
            cut = float(model_file.page_cut(cut, float(prob.max()),
                                            self._model.thresholds["balanced"], self.relative))
        in_comments = (comment_blocks(pb, prob >= cut) if self.comments == "drop"
                       else np.zeros(len(prob), dtype=bool))
        verdicts: NodeScores = {}
        for elem, p, dropped in zip(pb.elem, prob, in_comments, strict=True):
            node = pb.nodes[elem]
            score = float(p)
            if dropped:
                verdicts[node.nid] = Verdict(NOISE, score,
                                             f"default: p={score:.2f}, comment section")
            elif score >= cut:
                verdicts[node.nid] = Verdict(CONTENT, score, f"default: p={score:.2f}")
            else:
                verdicts[node.nid] = Verdict(NOISE, score, f"default: p={score:.2f}")
        return verdicts

    def get_params(self) -> dict[str, Any]:
        return {"preset": self.preset, "threshold": self.threshold, "model": self.model_path,
                "site": self.use_site, "relative": self.relative, "comments": self.comments}

    def to_state(self) -> dict[str, Any]:
        return {"evidence": self.evidence.to_state() if self.evidence is not None else None}

    @classmethod
    def from_state(cls, params: dict[str, Any], state: dict[str, Any]) -> DefaultCleaner:
        known = {"preset", "threshold", "model", "site", "relative", "comments"}
        if unknown := set(params) - known:
            raise ModelError(f"unknown default parameters: {sorted(unknown)}")
        try:
            cleaner = cls(**params)
        except (TypeError, ValueError) as exc:
            raise ModelError(f"bad default parameters: {exc}") from None
        evidence = state.get("evidence")
        if evidence is not None:
            if not isinstance(evidence, dict):
                raise ModelError("default state: 'evidence' must be an object or null")
            cleaner.evidence = SiteEvidence.from_state(evidence)
        return cleaner
