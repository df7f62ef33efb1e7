"""Compressed structure tree feature weighting (`--method cst`): Yi & Liu, IJCAI 2003.

**The tree.** An element node E = (Tag, Attr, TAGs, STYLEs, CHILDs) stands for tag nodes
of the site's pages merged together. The *presentation style* of a tag node is the sequence
of (tag, display attributes) of its children; two styles are equal when they agree element
by element (`dom.style_key` gives the (tag, attributes) pairs, digits folded). The tree is
built top-down: the pages' root tags form the root element node; the child tag nodes of
E's tag nodes that share a presentation style are merged position by position into the
child element nodes; and so on down. This is the Site Style Tree's builder without its
merging enhancement (`sst.tree.TreeBuilder(merge=False)`): its style nodes are E.STYLEs
with their counts, their element nodes are E.CHILDs, and `instances` are E.TAGs.

**Node importance** is the entropy of E's presentation styles (the paper's measure):

    NodeImp(E) = -sum_i p_i log_m p_i,   m = |E.TAGs|, p_i = share of E.TAGs using style i,

and 1 when m = 1 (a structure found on one page only is not repeated template). A tag node
that is a leaf on some pages counts its leaf instances as one more style.

**Word weights** (the paper states the idea, not a formula; designed here, see below). A
word f in a leaf tag node T whose element node is E_0, with ancestors E_1 (parent), E_2, ...:

    content(f, E_0) = 1 - H_{E_0}(f),  H = -sum_j p_j log_n p_j over the n leaf instances of
                      E_0, p_j = share of f's occurrences falling in instance j (H = 0 when
                      n = 1): a word repeated in every page's copy of the block is template;
    structure(E_0)  = max_{j >= 1} gamma^(j-1) NodeImp(E_j): the style entropy of the nearest
                      ancestor whose pages vary in presentation, attenuated by its distance;
    w(f, T)         = content(f, E_0) * (1 + structure(E_0)) / 2.

Both factors follow the paper's observation (noise shares contents *and* presentation
styles across a site): a navigation link repeated under an unvarying list weighs ~0, an
article paragraph 1. Structure scales a word's weight between 1/2 and 1 rather than
multiplying it in whole, so a site whose pages share one layout down to every leaf (all
NodeImp 0) still gets vectors told apart by their contents instead of all-zero rows.
Parts of a page the tree has not seen (a style no fitted page had, a word never seen in
its block) weigh 1 by the m = 1 rule, so a new layout is never silenced.

Measured (mean token F1 of the thresholded text on big9 by site and year / dragnet sites
of >= 5 pages / cleanportaleval): this form .845/.749/.868 (threshold 0.6). Alternatives
(same tree, each at its best shared threshold): content alone .831/.750/.837 (0.7);
content x NodeImp(E_1) .847/.752/.868 (0.2); content x structure .847/.757/.872 (0.2);
content x the maximum over the 3 nearest ancestors .850/.756/.870 (0.4); attenuated means
instead of maxima as good at 0.1 but collapsing above 0.3. The plain product ties with the
form above (mean .825 against .821); the form above was kept for the all-zero case.
gamma 0, 0.5, 0.7, 0.9: mean .820, .821, .822, .818. The Site Style Tree's virtual leaves
instead of the paper's actual DOM leaves: .839/.732/.849.

**`preset="paper"`** (`--set preset=paper`; PRESETS). The seeds give the tree and NodeImp
(the entropy of presentation styles) and say that a word's weight grows with its element
node's importance; they give no formula joining the two. The paper mode takes the two
entropies as they are and multiplies them, w(f, T) = (1 - H_{E_0}(f)) * NodeImp(E_1)
(`weighting="paper"`), and the paper's element node identity, tag and display attributes
as written (`style_key="paper"`, the Site Style Tree's `paper_key`). Measured
(cleanportaleval / big9 by site, threshold 0.6), against the default before issue 33 (our
style key, .869/.852): preset .886/.867, `style_key=paper` alone .894/.861 (now the
default; dragnet's sites of 5+ pages .798 against .769), `weighting=paper` alone
.861/.858.

**Outputs.** `feature_vectors(pages)` gives the weighted term frequencies (the sum of w over
a word's occurrences in the page) as a SciPy CSR matrix with one row per page, for
scikit-learn; `clean` keeps leaf blocks whose mean word weight reaches `threshold` (the hard
cut the extraction benchmark needs; the paper itself only weights).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitesift.dom import DomNode
from sitesift.errors import ModelError
from sitesift.methods.base import NodeScores, ParamsCleaner, register, seeded_sample
from sitesift.methods.cst.tree import (
    CSTNode,
    build_cst,
    signature_hash,
    tree_from_state,
    tree_to_state,
)
from sitesift.methods.shared.presets import Presets, check_preset
from sitesift.methods.shared.state import params_from_state
from sitesift.methods.sst.tree import STYLE_KEYS, style_children
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE
from sitesift.text import TOKEN
from sitesift.verdicts import Verdict

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix


WEIGHTINGS = ("ours", "paper")
# What each preset changes from the field defaults (the fields' docstrings say why).
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "paper": {"weighting": "paper", "style_key": "paper"},
}


@dataclass(frozen=True, slots=True)
class CSTParams(Presets):
    """Every parameter of the method, with where its default comes from."""

    METHOD = "cst"
    PRESETS = PRESETS

    gamma: float = 0.5
    """Attenuation of an ancestor's style entropy per level above the leaf's parent (not
    in the paper; 0, 0.5, 0.7, 0.9 measured within .004 of each other)."""
    threshold: float = 0.6
    """`clean` keeps a leaf block whose mean word weight is at least this (the paper has no
    cut; measured: mean F1 over the three corpora .818, .821, .814 at 0.5, 0.6, 0.7)."""
    virtual_leaves: bool = False
    """False: the paper's DOM leaves (text, images, links) are the blocks; True: the Site
    Style Tree's virtual leaves (parents of leaf tags): mean F1 .807 against .821."""
    sample_size: int = 500
    """Pages sampled to build the tree (seeded), as for the Site Style Tree."""
    seed: int = 0
    weighting: str = "ours"
    """How a word's content weight and its block's structure join. 'ours':
    content * (1 + structure) / 2, structure the attenuated maximum of the ancestors'
    NodeImp (module docstring). 'paper': content * NodeImp(parent element node), the two
    entropies the paper names multiplied, no attenuation, no floor (the seeds state no
    formula: this product is the choice; `gamma` is unused). Paper preset: 'paper'."""
    style_key: str = "paper"
    """An element node's identity: 'paper' (tag and display attributes as written, on every
    tag; the default since issue 33, better on every corpus measured: cleanportaleval /
    big9 / dragnet by site .894 / .861 / .798 against .869 / .852 / .769) or 'ours'
    (`dom.style_key`: class, id, role and inline style too, digits folded,
    `<body>`/`<html>` bare; the default before). Paper preset: 'paper'."""
    preset: str = "default"
    """'default' (the values above) or 'paper' (PRESETS): the preset gives the starting
    values, and any field also set explicitly wins."""

    def __post_init__(self) -> None:
        check_preset("cst", PRESETS, self.preset)
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"cst: weighting must be one of {', '.join(WEIGHTINGS)}, "
                             f"got {self.weighting!r}")
        if self.style_key not in STYLE_KEYS:
            raise ValueError(f"cst: style_key must be one of {', '.join(STYLE_KEYS)}, "
                             f"got {self.style_key!r}")
        for name in ("gamma", "threshold"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"cst: {name} must be in [0, 1], got {value!r}")
        if not isinstance(self.sample_size, int) or self.sample_size < 1:
            raise ValueError("cst: sample_size must be a positive integer")


@dataclass(slots=True)
class LeafWeights:
    """One leaf block of a page: its tag node, structure factor and word weights."""

    node: DomNode
    structure: float
    words: list[tuple[str, float]]  # (word, w) per occurrence, in document order

    @property
    def weight(self) -> float:
        """The block's weight: the mean weight of its word occurrences (1 without words)."""
        return sum(w for _, w in self.words) / len(self.words) if self.words else 1.0


def _style(element: CSTNode | None, signature: tuple[str, ...]
           ) -> tuple[list[CSTNode] | None, float]:
    """The child element nodes of a page node's style, and the node's importance for it.

    A fitted style gives E's NodeImp (and, unless a single page had it, its children). A
    style no fitted page had makes E a node of its own on this page (m = 1: importance 1),
    as is everything below a node the tree does not know."""
    if element is None:
        return None, 1.0
    found = element.styles.get(signature)
    if found is not None:
        return found, element.node_imp
    if signature_hash(signature) in element.once:
        return None, element.node_imp
    return None, 1.0


def _structure(above: tuple[float, ...], gamma: float, paper: bool) -> tuple[float, float]:
    """(structure factor, the scale a word's content weight is multiplied by) of a leaf
    whose ancestors' NodeImp are `above`, nearest first (none: the root is the leaf, m = 1).

    Paper: NodeImp of the parent element node, the scale itself. Ours: the attenuated
    maximum over the ancestors, scaled into [1/2, 1] (module docstring)."""
    if paper:
        structure = above[0] if above else 1.0
        return structure, structure
    structure = max((gamma ** j * imp for j, imp in enumerate(above)), default=1.0)
    return structure, (1.0 + structure) / 2


@register
class CompressedStructureTree(ParamsCleaner[CSTParams]):
    """Yi & Liu (IJCAI 2003): a weight for every word of every page from the style
    entropy of the compressed structure tree."""

    name = "cst"
    params_type = CSTParams
    presets = PRESETS
    site_level = True
    min_fit_pages = 5  # fitted on 1 page it removes nothing (sitesift.weak)

    def __init__(self, params: CSTParams | None = None, **overrides: Any) -> None:
        super().__init__(params, **overrides)
        self.tree_: CSTNode | None = None
        self.n_pages_ = 0

    @property
    def fitted(self) -> bool:
        return self.tree_ is not None

    @property
    def fit_reads(self) -> int:
        return self.params.sample_size

    def fit_site(self, pages: Sequence[Page]) -> CompressedStructureTree:
        p = self.params
        sample = seeded_sample(pages, p.sample_size, p.seed)
        self.tree_ = build_cst([page.root for page in sample], p.virtual_leaves,
                               STYLE_KEYS[p.style_key])
        self.n_pages_ = len(sample)
        return self

    def leaf_weights(self, page: Page) -> Iterator[LeafWeights]:
        """Every leaf block of the page with its word weights, in document order."""
        self.check_fitted()
        assert self.tree_ is not None
        gamma, virtual = self.params.gamma, self.params.virtual_leaves
        paper = self.params.weighting == "paper"
        key = STYLE_KEYS[self.params.style_key]
        # (tree node or None where the page leaves the tree, page node, ancestors' NodeImp
        # nearest first)
        stack: list[tuple[CSTNode | None, DomNode, tuple[float, ...]]] = [
            (self.tree_, page.root, ())]
        while stack:
            element, node, above = stack.pop()
            kids = style_children(node, virtual)
            if kids is None:
                table = element.words if element is not None else {}
                structure, scale = _structure(above, gamma, paper)
                words = [(f, table.get(f, 1.0) * scale)
                         for f in TOKEN.findall(node.text().lower())]
                yield LeafWeights(node, structure, words)
                continue
            found, imp = _style(element, tuple(key(k) for k in kids))
            here = (imp, *above)
            targets: Sequence[CSTNode | None] = found or [None] * len(kids)
            stack.extend(reversed(list(zip(targets, kids, [here] * len(kids), strict=True))))

    def score(self, page: Page) -> NodeScores:
        threshold = self.params.threshold
        verdicts: NodeScores = {}
        for leaf in self.leaf_weights(page):
            if not leaf.words:
                continue
            weight = leaf.weight
            label = CONTENT if weight >= threshold else NOISE
            verdicts[leaf.node.nid] = Verdict(
                label, weight, f"CST block weight {weight:.2f} (structure {leaf.structure:.2f})",
                True)
        return verdicts

    def page_counts(self, page: Page) -> dict[str, float]:
        """Weighted term frequencies of one page: the sum of w over each word's occurrences."""
        counts: dict[str, float] = {}
        for leaf in self.leaf_weights(page):
            for word, weight in leaf.words:
                counts[word] = counts.get(word, 0.0) + weight
        return counts

    def feature_vectors(self, pages: Sequence[Page], vocabulary: Sequence[str] | None = None
                        ) -> tuple[csr_matrix, list[str]]:
        """Weighted feature vectors, one row per page, for scikit-learn.

        Columns are `vocabulary` when given (words outside it are dropped, so the matrices
        of a training and a test set line up), else every word seen, sorted. Returns the
        CSR matrix (float64, pages x words) and the column words."""
        from scipy.sparse import csr_matrix

        rows = [self.page_counts(page) for page in pages]
        words = list(vocabulary) if vocabulary is not None else sorted(
            {w for row in rows for w in row})
        column = {w: i for i, w in enumerate(words)}
        if len(column) != len(words):
            raise ValueError("cst: the vocabulary lists a word twice")
        indptr: list[int] = [0]
        indices: list[int] = []
        data: list[float] = []
        for row in rows:
            cells = sorted((column[w], v) for w, v in row.items() if w in column and v > 0)
            indices.extend(i for i, _ in cells)
            data.extend(v for _, v in cells)
            indptr.append(len(indices))
        matrix = csr_matrix((data, indices, indptr), shape=(len(rows), len(words)),
                            dtype=float)
        return matrix, words

    def to_state(self) -> dict[str, Any]:
        self.check_fitted()
        assert self.tree_ is not None
        return {"n_pages": self.n_pages_, **tree_to_state(self.tree_)}

    @classmethod
    def from_state(cls, params: dict[str, Any], state: dict[str, Any]
                   ) -> CompressedStructureTree:
        # A model saved before `style_key` existed built its tree on our style key: its
        # element nodes only match pages keyed the same way.
        params = {"style_key": "ours", **params}
        cleaner = cls(params_from_state(CSTParams, "cst", params))
        n_pages = state.get("n_pages")
        if not isinstance(n_pages, int) or isinstance(n_pages, bool) or n_pages < 0:
            raise ModelError("cst state: n_pages must be a non-negative integer")
        cleaner.tree_ = tree_from_state(state)
        cleaner.n_pages_ = n_pages
        return cleaner
