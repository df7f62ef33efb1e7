"""Page-level template detection with isotonic smoothing (Chakrabarti, Kumar & Punera, WWW
2007): `--method isotonic`, and the classifier alone, `--method isotonic-raw`.

A site-level method finds templates only where it has many pages of a site; this learns
from its output what template looks like and then cleans any single page, of a site never
seen. Per page:

1. the scored tree (`sitesift.methods.isotonic.features`): block-level nodes with text, each
   with the seed's cues (placement, background, sentence size, text outside anchors,
   aspect, link density) and more;
2. templateness x_i of every node from the shipped classifier (logistic regressions by
   node size, `sitesift/data/pagetemplate.json`, trained by `sitesift train-template` on
   the site-grouped shared corpora with site-level labels: no hand labels);
3. `isotonic`: the regularized tree isotonic regression (`regression` beside this module)
   smooths the x_i into monotone y_i (a parent is no more template than its children) with few
   sections; nodes with y_i >= threshold are template. `isotonic-raw`: x_i as they are,
   each node labelled by its own score (a deeper node's label overrides its ancestor's).

Template nodes are NOISE, the rest CONTENT; each verdict's reason names the node's
templateness and, smoothed, its section.

`preset="paper"` (`--set preset=paper`, PRESETS) is the seed's smoothing as written: c
paid per distinct value (`regularizer`), unweighted L1 (`weighting`), raw scores
(`grid`), every element with text scored (`nodes`); the classifier stays the shipped one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar

from sitesift.errors import ModelError
from sitesift.methods.base import Cleaner, NodeScores, register
from sitesift.methods.isotonic.distinct import smooth_tree_values
from sitesift.methods.isotonic.features import FEATURES, RENDER_FEATURES, NodeTable, node_table
from sitesift.methods.isotonic.model import TemplateModel
from sitesift.methods.isotonic.regression import smooth_tree
from sitesift.methods.shared.presets import Presets, check_preset
from sitesift.methods.shared.state import params_from_state
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE
from sitesift.verdicts import Verdict

if TYPE_CHECKING:
    import numpy as np

SHIPPED = "data/pagetemplate.json"
WEIGHTINGS = ("none", "log-tokens", "tokens")
REGULARIZERS = ("sections", "values")
NODE_SETS = ("blocks", "all")
# What each preset changes from the field defaults (the fields' docstrings say why).
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "paper": {"regularizer": "values", "weighting": "none", "grid": None, "nodes": "all"},
}


@dataclass(frozen=True, slots=True)
class IsotonicParams(Presets):
    """Settings of the page-level cleaner; the classifier itself is the model's state."""

    METHOD = "isotonic"
    PRESETS = PRESETS

    c: float = 0.5
    """Cost of one more section, in units of summed weighted |x - y|. Cross-site F and
    token F1 are flat from 0.25 to 1 with `log-tokens` weights (benchmarks/
    template_detection.py); with unweighted nodes a large c lets whole pages flip."""
    threshold: float = 0.4
    """A node is template when its (smoothed) templateness is at least this. Below 0.5
    because the training labels miss template (a block whose text changes from page to
    page is labelled content), which pulls every score down: 0.4 was best of 0.3-0.6
    cross-site; the positive-unlabelled estimate of Elkan & Noto (KDD 2008), half the mean
    held-out score of labelled template nodes, gives 0.36."""
    weighting: str = "log-tokens"
    """Weight of a node's |x - y|: 'none' (the seed's), 'log-tokens' (1 + log of its
    tokens) or 'tokens'. 'log-tokens' lets a long text outvote a few small nodes it
    contains (cross-site F .89 against .87 unweighted)."""
    render: bool = False
    """Add the node boxes of a Chromium rendering to the features (needs a model trained
    with rendering, and `sitesift[render]`); the default reads the DOM only."""
    regularizer: str = "sections"
    """What c is paid for: 'sections' (each connected run of one value: decomposes over
    subtrees, exact in O(n m), `regression.smooth_tree`) or 'values' (each distinct value
    on the page, the seed's "# distinct y_i", exact in O(n m^2), `distinct`). Paper
    preset: 'values'."""
    grid: float | None = 0.001
    """Scores are rounded to this step before smoothing (bounds the DP's m distinct values:
    1,001 columns, at most 0.0005 off per node); None smooths the raw scores, as the seed
    does. Paper preset: None."""
    nodes: str = "blocks"
    """The scored tree: 'blocks' (block-level units with text, `features` docstring) or
    'all' (every element with visible text: the seed classifies "each internal DOM node";
    elements without text carry nothing to clean, so they are left out). The shipped
    classifier was trained on 'blocks'. Paper preset: 'all'."""
    preset: str = "default"
    """'default' (the values above) or 'paper' (PRESETS): the preset gives the starting
    values, and any field also set explicitly wins."""

    def __post_init__(self) -> None:
        check_preset("isotonic", PRESETS, self.preset)
        for name, allowed in (("regularizer", REGULARIZERS), ("nodes", NODE_SETS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"isotonic: {name} must be one of {', '.join(allowed)}, "
                                 f"got {getattr(self, name)!r}")
        if self.grid is not None and not (_number(self.grid) and 0 < self.grid <= 1):
            raise ValueError(f"isotonic: grid must be in (0, 1] or null, got {self.grid!r}")
        if not (_number(self.c) and 0 <= self.c <= 1e9):
            raise ValueError(f"isotonic: c must be a number in [0, 1e9], got {self.c!r}")
        if not (_number(self.threshold) and 0.0 <= self.threshold <= 1.0):
            raise ValueError(f"isotonic: threshold must be in [0, 1], got {self.threshold!r}")
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"isotonic: weighting must be one of {', '.join(WEIGHTINGS)}, "
                             f"got {self.weighting!r}")
        if not isinstance(self.render, bool):
            raise ValueError("isotonic: render must be true or false")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def expected_features(render: bool) -> tuple[str, ...]:
    return FEATURES + (RENDER_FEATURES if render else ())


def shipped_model(render: bool = False) -> TemplateModel:
    """The classifier shipped with sitesift, read and validated from its JSON file."""
    from sitesift.model_io import load_model

    with resources.as_file(resources.files("sitesift").joinpath(SHIPPED)) as path:
        if not path.is_file():
            raise ModelError(f"{path}: the shipped template model is missing; rebuild it with "
                             "`sitesift train-template`")
        cleaner = load_model(path)
    if not isinstance(cleaner, IsotonicCleaner):
        raise ModelError(f"{path}: not an isotonic model")
    model = cleaner.model
    if tuple(model.features) != expected_features(render):
        raise ModelError(f"{path}: the shipped model was trained "
                         f"{'with' if 'box_x' in model.features else 'without'} rendering")
    return model


@register
class IsotonicCleaner(Cleaner):
    """Templateness classifier plus regularized tree isotonic smoothing."""

    name = "isotonic"
    smooth: ClassVar[bool] = True
    params_type: ClassVar[type[IsotonicParams]] = IsotonicParams
    presets = PRESETS
    # The features' stop words are scikit-learn's (`sitesift.text.stop_words`): its first
    # import loads ~1,200 modules, 1.5 s of CPU and 10 s on a loaded machine.
    imports = ("numpy", "sklearn.feature_extraction.text")

    def __init__(self, params: IsotonicParams | None = None, *,
                 model: TemplateModel | None = None, **overrides: Any) -> None:
        if params is None and "preset" in overrides:
            params = IsotonicParams.from_preset(overrides["preset"])
        self.params = replace(params or IsotonicParams(), **overrides)
        self._model = model

    @property
    def model(self) -> TemplateModel:
        """The classifier: given, loaded from a model file, or the shipped one (read on
        first use, so making a cleaner costs nothing)."""
        if self._model is None:
            self._model = shipped_model(self.params.render)
        return self._model

    def get_params(self) -> dict[str, Any]:
        return asdict(self.params)

    def templateness(self, page: Page) -> tuple[NodeTable, np.ndarray, np.ndarray | None]:
        """(scored tree, raw scores x, smoothed scores y or None for the raw method)."""
        import numpy as np
        rendering = None
        if self.params.render:
            from sitesift.browser.chromium import render

            rendering = render(page)
        p = self.params
        table = node_table(page, rendering, every=p.nodes == "all")
        if not len(table):
            return table, np.zeros(0), None
        x = self.model.predict(table.X, table.tokens)
        if not self.smooth:
            return table, x, None
        # The DP keeps an (nodes x distinct scores) table: scores on a 1/1000 grid bound it
        # to 1,001 columns (80 MB for 20,000 nodes) at a cost of at most 0.0005 per node.
        scores = x if p.grid is None else np.round(x / p.grid) * p.grid
        solve = smooth_tree_values if p.regularizer == "values" else smooth_tree
        y = solve(table.parents, scores, p.c, self.weights(table)).values
        return table, x, y

    def weights(self, table: NodeTable) -> np.ndarray | None:
        import numpy as np
        kind = self.params.weighting
        if kind == "log-tokens":
            return 1.0 + np.log(np.maximum(table.tokens, 1))
        if kind == "tokens":
            return table.tokens.astype(np.float64)
        return None

    def score(self, page: Page) -> NodeScores:
        table, x, y = self.templateness(page)
        return verdicts(table, x, y, self.params.threshold, self.name)

    def to_state(self) -> dict[str, Any]:
        return self.model.to_state()

    @classmethod
    def from_state(cls, params: dict[str, Any], state: dict[str, Any]) -> IsotonicCleaner:
        p = params_from_state(IsotonicParams, "isotonic", params)
        model = TemplateModel.from_state(state, expected_features(p.render))
        return cls(p, model=model)


@register
class IsotonicRawCleaner(IsotonicCleaner):
    """The templateness classifier alone: every node labelled by its own score."""

    name = "isotonic-raw"
    smooth = False


def verdicts(table: NodeTable, x: np.ndarray, y: np.ndarray | None, threshold: float,
             method: str) -> NodeScores:
    """Node verdicts: smoothed, one per section top (template tops final: nothing below a
    template node is content); raw, one per node. A page on which every node is template
    is kept whole, with a verdict saying so, rather than emptied."""
    out: NodeScores = {}
    if not len(table):
        return out
    scores = x if y is None else y
    if bool((scores >= threshold).all()):
        return {table.nodes[0].nid: Verdict(
            CONTENT, 1.0 - float(scores.min()),
            f"{method}: every node scored template (at least {float(scores.min()):.2f}): "
            "page kept whole")}
    par = table.parents.tolist()
    if y is None:
        for j, node in enumerate(table.nodes):
            t = float(x[j])
            out[node.nid] = Verdict(NOISE if t >= threshold else CONTENT, 1.0 - t,
                                    f"{method}: templateness {t:.2f}")
        return out
    yl = y.tolist()
    for j, node in enumerate(table.nodes):
        p = par[j]
        if p >= 0 and yl[p] == yl[j]:
            continue  # inside its parent's section
        t = yl[j]
        template = t >= threshold
        out[node.nid] = Verdict(NOISE if template else CONTENT, 1.0 - t,
                                f"{method}: section templateness {t:.2f} "
                                f"(raw {float(x[j]):.2f})", final=template)
    return out
