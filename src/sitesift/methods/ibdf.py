"""ContentExtractor (`--method ibdf`): redundant blocks by inverse block document frequency.

Debnath, Mitra, Pal & Giles, "Automatic identification of informative sections of Web
pages", IEEE TKDE 17(9), 2005.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitesift.errors import ModelError
from sitesift.methods.base import NodeScores, ParamsCleaner, register
from sitesift.methods.shared.blocks import Block, Keywords, add_features, parse_levels, partition
from sitesift.methods.shared.presets import Presets, check_preset
from sitesift.methods.shared.state import fingerprint, get_int, get_list, params_from_state
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE, Result
from sitesift.verdicts import KEEP, Verdict, render_blocks
from sitesift.weak import check_page

if TYPE_CHECKING:
    import numpy as np

# The paper's ordered tag set starts TABLE, TR, P, HR, UL: outer partitioning tags first.
# Cells (TD/TH) follow rows (the paper makes each cell a block); the modern block containers,
# which play the part tables played, come after the paper's tags.
DEFAULT_TAGS = (
    "table", "tr", "td th", "p", "hr", "ul ol dl",
    "div section article aside nav header footer main form fieldset", "li",
)
# The survey's ordered set, TABLE, TR, P, HR, UL, with each table cell a block ("in a table
# occurring in a web page, each cell is considered as a block"): cells follow rows.
PAPER_TAGS = ("table", "tr", "td th", "p", "hr", "ul")
# What each preset changes from the field defaults (the fields' docstrings say why).
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "paper": {"tags": PAPER_TAGS, "threshold": 1.0, "stop_words": False, "stemmer": None,
              "images": True, "links": False},
}


@dataclass(frozen=True, slots=True)
class IBDFParams(Presets):
    """Every parameter of the method, with where its default comes from."""

    METHOD = "ibdf"
    PRESETS = PRESETS

    tags: tuple[str, ...] = DEFAULT_TAGS
    """The ordered partitioning tags (space-separated names share a level). The paper's
    TABLE, TR, P, HR, UL alone: 0.01 lower F1 on big9 and cleanportaleval; putting the
    containers before P: no change (measured). Paper preset: PAPER_TAGS, the survey's
    five tags with TD/TH after TR (it makes each cell a block; the set is "tags like"
    these, so where the cells go is ours)."""
    similarity: float = 0.5
    """Two blocks are alike when the cosine of their binary feature vectors reaches this
    (the paper's similarity threshold; value unstated in the seed). Measured on
    cleanportaleval / big9 F1: 0.3 -> 0.80 / 0.74, 0.4 -> 0.89 / 0.87, 0.5 -> 0.89 / 0.89,
    0.6 -> 0.88 / 0.89, 0.8 -> 0.84 / 0.81; dragnet equal at 0.5 and 0.6. Paper preset
    keeps 0.5 (the seed gives no value; "greater than" a threshold, taken as >=)."""
    threshold: float = 0.7
    """A block is content when its IBDF reaches this (`ibdf`). Ours: at 0.7 a block is
    content on at most N^0.3 pages (1 of 10, 2 of 11 to 38, 3 of 39 to 101), so a
    related-links box repeated on two pages of a big site survives. Measured: 0.6 / 0.7 /
    0.8 -> 0.88 / 0.89 / 0.86 on cleanportaleval, 0.88 / 0.89 / 0.89 on big9, 0.818 / 0.816
    on dragnet. Paper preset: 1.0, the seed's rule -- "the blocks that occur in multiple
    pages are redundant blocks and block which appears in one page is a content block" --
    since IBDF is 1 exactly when |S| = 1. Measured with site groups and issue 52's vectors
    (cleanportaleval / big9; the big9 figures above predate its 40-page site groups): 0.6
    -> 0.893 / 0.853, 0.7 -> 0.901 / 0.867, 0.8 -> 0.874 / 0.880, 0.9 and 1.0 -> 0.874 /
    0.896; the paper's rule wins where a site group holds 40 pages (big9) and loses on
    cleanportaleval."""
    stop_words: bool = False
    """Drop stop words from the terms (True) or keep every term (False: the paper's terms;
    dropping them loses 0.005 to 0.008 F1). Paper preset: False."""
    stemmer: str | None = None
    """How a word becomes a term: None (default and paper preset), the word as written
    (lowercased): the seed's vectors are of terms and images, and it names no stemming
    (InfoDiscoverer, not ContentExtractor, stems); or a snowballstemmer algorithm
    ("english", Porter2: the default before issue 52, so "election" and "elections" are
    one term). Measured (cleanportaleval / big9 with site groups / dragnet's sites of >= 5
    pages): None .901 / .867 / .817, "english" .901 / .867 / .816; in the paper preset
    equal (.865 / .884)."""
    images: bool = True
    """Image sources (digits folded) are features besides the terms, as in the paper's
    vectors ("number of images, number of terms"; a block's features are "text, images,
    applets, JavaScript"). Paper preset: True."""
    links: bool = False
    """Link targets (digits folded) are features too (True: the default before issue 52,
    so a menu of one-word links is told apart by where it points). False (default and
    paper preset): the seed names no link targets among the features. Measured
    (cleanportaleval / big9 with site groups / dragnet's sites of >= 5 pages): False .901 /
    .867 / .816, True .899 / .863 / .816. A model file keeps the value it was fitted
    with."""
    preset: str = "default"
    """'default' (the values above) or 'paper': ContentExtractor as the survey describes it
    (PRESETS; each field's docstring gives its paper value). `IBDFCleaner(preset=...)` /
    `--set preset=paper` / `IBDFParams.from_preset`: the preset gives the starting values,
    and any field also set explicitly wins."""

    def __post_init__(self) -> None:
        check_preset("ibdf", PRESETS, self.preset)
        object.__setattr__(self, "tags", tuple(self.tags))
        parse_levels(self.tags)
        for name in ("similarity", "threshold"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"ibdf: {name} must be in [0, 1]")



def ibdf(pages_with_block: int, n_pages: int) -> float:
    """IBDF = log(N / |S|) / log N: 1 for a block of one page, 0 for a block of every page.

    The paper's IBDF is a decreasing function of |S|, the pages holding a similar block;
    the idf-style log, divided by its largest value log N, puts it in [0, 1]."""
    if n_pages <= 1:
        return 1.0
    share = min(max(pages_with_block, 1), n_pages)
    return math.log(n_pages / share) / math.log(n_pages)


def cosine(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    """Cosine of two binary feature vectors: |A & B| / sqrt(|A| |B|)."""
    if not a or not b:
        return 0.0
    return len(a & b) / math.sqrt(len(a) * len(b))


@register
class IBDFCleaner(ParamsCleaner[IBDFParams]):
    """Debnath et al. (TKDE 2005): ContentExtractor with inverse block document frequency.

    - GetBlocks (`shared.blocks.partition`): the page is cut at the first tag of the ordered set
      (TABLE: each table a block, the runs between tables blocks too), each block again at
      the next tags: TR, TD/TH (each cell a block), P, HR (a separator: the runs between
      rules are the blocks), UL/OL/DL, the modern containers, LI (DEFAULT_TAGS). A block of
      tag t is first cut again at nested t. The finest blocks are compared.
    - Block feature vector: binary, over terms (every word as written, lowercased,
      numbers included; stemmed with `stemmer`) and image sources (`images`); link
      targets too with `links=True`.
      Scripts, applets and styles never reach sitesift's DOM (hidden parts are dropped at
      parsing), so they are not features.
    - Block similarity: the cosine of two binary vectors, |A & B| / sqrt(|A| |B|); blocks
      are alike at `similarity` or more.
    - IBDF: S = the pages holding a block alike; IBDF = log(N / |S|) / log N (`ibdf`), a
      decreasing function of |S| as in the paper, scaled to [0, 1]. Blocks below
      `threshold` occur on too many pages: redundant. Blocks without features are kept.
      `preset="paper"` (`--set preset=paper`): threshold 1, so only a block on one page is
      content, as the seed says, the seed's partitioning tags, and vectors of the words
      as written and image sources, no link targets (PRESETS).
    - The model stores every distinct block vector of the fitted pages with the pages it
      was on; a page outside the fit is one more page (N + 1, and |S| counts it).
    - Storage (the paper's benefit: only content blocks need storing):
      `Result.meta["storage"]` gives the page's HTML bytes, its visible text bytes, the
      bytes of the text kept, and kept / HTML and kept / text.
    """

    name = "ibdf"
    params_type = IBDFParams
    presets = PRESETS
    site_level = True
    min_fit_pages = 4  # most of its gain comes from 3 to 4 pages (sitesift.weak)

    def __init__(self, params: IBDFParams | None = None, **overrides: Any) -> None:
        import numpy as np
        super().__init__(params, **overrides)
        self.vocab_: list[str] | None = None
        self.blocks_: list[list[int]] = []
        self.block_pages_: list[list[int]] = []
        self.n_pages_ = 0
        self.pages_: dict[str, int] = {}
        self._index: dict[str, int] = {}
        self._matrix: Any = None
        self._page_matrix: Any = None
        self._sizes = np.zeros(0)
        self._kw: Keywords | None = None

    @property
    def fitted(self) -> bool:
        return self.vocab_ is not None

    def _keywords(self) -> Keywords:
        if self._kw is None:
            self._kw = Keywords(stop_words=self.params.stop_words, numbers=True,
                                stemmer=self.params.stemmer)
        return self._kw

    def _leaves(self, page: Page, keywords: Keywords) -> tuple[Block, list[Block]]:
        tree = partition(page.root, parse_levels(self.params.tags))
        p = self.params
        add_features(tree, keywords, extras=p.images or p.links, images=p.images,
                     links=p.links)
        return tree, list(tree.leaves())

    def _vector(self, block: Block) -> frozenset[str]:
        return frozenset(block.terms) | frozenset(block.extras)

    def fit_site(self, pages: Sequence[Page]) -> IBDFCleaner:
        keywords = self._keywords()
        found: dict[frozenset[str], set[int]] = {}
        for j, page in enumerate(pages):
            for leaf in self._leaves(page, keywords)[1]:
                vector = self._vector(leaf)
                if vector:
                    found.setdefault(vector, set()).add(j)
        vocab: dict[str, int] = {}
        blocks = [sorted(vocab.setdefault(f, len(vocab)) for f in v) for v in found]
        self._set(list(vocab), blocks, [sorted(p) for p in found.values()], len(pages))
        self.pages_ = {fingerprint(p): j for j, p in enumerate(pages)}
        return self

    def _set(self, vocab: list[str], blocks: list[list[int]], block_pages: list[list[int]],
             n: int) -> None:
        import numpy as np
        from scipy.sparse import csr_matrix

        self.vocab_, self.blocks_, self.block_pages_, self.n_pages_ = (
            vocab, blocks, block_pages, n)
        self._index = {f: i for i, f in enumerate(vocab)}
        self._matrix = _binary(blocks, len(vocab))
        self._sizes = np.array([len(b) for b in blocks], dtype=np.float64)
        rows = [i for i, ps in enumerate(block_pages) for _ in ps]
        cols = [p for ps in block_pages for p in ps]
        self._page_matrix = csr_matrix((np.ones(len(rows)), (rows, cols)),
                                       shape=(len(blocks), max(n, 1)))

    def page_counts(self, vectors: list[frozenset[str]]) -> np.ndarray:
        """|S| for each vector: fitted pages holding a block alike (cosine >= similarity)."""
        import numpy as np
        if not vectors or not self.blocks_:
            return np.zeros(len(vectors), dtype=np.int64)
        rows = [[self._index[f] for f in v if f in self._index] for v in vectors]
        shared = _binary(rows, len(self.vocab_ or ())) @ self._matrix.T  # |A & B|
        shared = shared.tocoo()
        sizes = np.array([len(v) for v in vectors], dtype=np.float64)
        cos = shared.data / np.sqrt(sizes[shared.row] * self._sizes[shared.col])
        keep = cos >= self.params.similarity - 1e-12
        from scipy.sparse import csr_matrix

        alike = csr_matrix((np.ones(int(keep.sum())), (shared.row[keep], shared.col[keep])),
                           shape=shared.shape)
        pages = alike @ self._page_matrix
        return np.diff(pages.tocsr().indptr)  # distinct pages per row

    def judge(self, page: Page) -> tuple[Block, list[tuple[Block, int, int, float]]]:
        """The page's block tree and, for each finest block with features, (block, |S|,
        N, IBDF): a page outside the fit is one more page and holds its own block."""
        self.check_fitted()
        tree, leaves = self._leaves(page, self._keywords())
        with_features = [leaf for leaf in leaves if leaf.terms or leaf.extras]
        counts = self.page_counts([self._vector(leaf) for leaf in with_features])
        seen = fingerprint(page) in self.pages_
        n = self.n_pages_ if seen else self.n_pages_ + 1
        judged = []
        for leaf, count in zip(with_features, counts.tolist(), strict=True):
            pages = count if seen else count + 1
            judged.append((leaf, pages, n, ibdf(pages, n)))
        return tree, judged

    def content_vector(self, page: Page) -> frozenset[str]:
        """The features of the page's content blocks: what stays of it once the site's
        redundant blocks are gone (`ibdf_articles` compares these across sites)."""
        theta = self.params.threshold
        return frozenset().union(*(self._vector(leaf) for leaf, _, _, value
                                   in self.judge(page)[1] if value >= theta))

    def _score(self, page: Page) -> tuple[NodeScores, dict[str, Any]]:
        tree, judged = self.judge(page)
        theta = self.params.threshold
        verdicts: NodeScores = {}
        kept = tree.size - sum(leaf.size for leaf, *_ in judged)
        for leaf, pages, n, value in judged:
            if value >= theta:
                kept += leaf.size
                verdict = Verdict(CONTENT, value, f"ContentExtractor: IBDF {value:.3f} "
                                  f"(on {pages} of {n} pages) >= {theta:g}", True)
            else:
                verdict = Verdict(NOISE, value, f"ContentExtractor: IBDF {value:.3f} "
                                  f"(on {pages} of {n} pages) < {theta:g}: redundant", True)
            for node in leaf.nodes:
                verdicts[node.nid] = verdict
        html = len(page.html.encode("utf-8", "surrogatepass"))
        storage = {"html_bytes": html, "text_bytes": tree.size, "kept_bytes": kept,
                   "kept_of_html": kept / html if html else 0.0,
                   "kept_of_text": kept / tree.size if tree.size else 0.0}
        return verdicts, storage

    def score(self, page: Page) -> NodeScores:
        return self._score(page)[0]

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        verdicts, storage = self._score(page)
        blocks = render_blocks(page.root, verdicts, KEEP, noise=noise, with_paths=noise)
        return check_page(page, Result(blocks, self.name, page.id, page.url, page.site,
                                       page.title, {"storage": storage}, verdicts=verdicts))

    def to_state(self) -> dict[str, Any]:
        self.check_fitted()
        return {"n_pages": self.n_pages_, "features": self.vocab_, "blocks": self.blocks_,
                "block_pages": self.block_pages_,
                "pages": sorted(self.pages_, key=self.pages_.__getitem__)}

    @classmethod
    def from_state(cls, params: dict[str, Any], state: dict[str, Any]) -> IBDFCleaner:
        name = cls.name
        # A model saved before issue 52 stemmed its terms, and its `links` switched image
        # sources and link targets together: its vectors were made that way.
        params = {"stemmer": "english", "images": params.get("links", True), **params}
        cleaner = cls(params_from_state(IBDFParams, name, params))
        n = get_int(state, "n_pages", name)
        vocab = get_list(state, "features", name, str)
        if len(set(vocab)) != len(vocab):
            raise ModelError(f"{name} state: 'features' holds duplicates")
        blocks = get_list(state, "blocks", name, list)
        block_pages = get_list(state, "block_pages", name, list, len(blocks))
        for i, (feats, pages) in enumerate(zip(blocks, block_pages, strict=True)):
            if not feats or not _indices(feats, len(vocab)):
                raise ModelError(f"{name} state: block {i} has bad feature indices")
            if not pages or not _indices(pages, n):
                raise ModelError(f"{name} state: block {i} has bad page indices")
        fingerprints = get_list(state, "pages", name, str, n)
        cleaner._set(vocab, blocks, block_pages, n)
        cleaner.pages_ = {f: j for j, f in enumerate(fingerprints)}
        return cleaner


def _indices(values: list[Any], bound: int) -> bool:
    """Strictly increasing integers in [0, bound)."""
    last = -1
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not last < v < bound:
            return False
        last = v
    return True


def _binary(rows: list[list[int]], width: int) -> Any:
    """Rows of column indices as a binary scipy.sparse CSR matrix."""
    import numpy as np
    from scipy.sparse import csr_matrix

    indptr = np.cumsum([0] + [len(r) for r in rows])
    indices = np.array([i for r in rows for i in r], dtype=np.int64)
    return csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(rows), width))
