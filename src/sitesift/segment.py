"""Page segmentation for retrieval (Cai, Yu, Wen & Ma, "Block-based web search", SIGIR 2004).

Four ways to cut a page into blocks of text:
- `FixedPS`: windows of `window` words over the page's visible text (passage retrieval's
  fixed-length windows; 200 words, no overlap, by default: ours, after Callan's 150-300);
- `DomPS`: the DOM's natural paragraphs: the text blocks sitesift's renderer splits at
  block-level elements (p, li, td, h1, div, ...);
- `VIPSPS`: the text of each leaf of the VIPS content structure (`sitesift.methods.vips`,
  needs the renderer);
- `CombPS`: VIPS blocks, each longer than `window` words cut into windows of that length:
  semantic blocks with a bounded length (the paper's combined method).

Retrieval, on Okapi BM25 from `bm25s` (maintained, NumPy-only; k1 = 1.2, b = 0.75, Lucene's
non-negative idf). bm25s computes every (unit, term) weight at indexing; they are kept as
one sparse units x terms matrix, so a weighted query scores every page or block with one
sparse product. Terms: `\\w+` tokens, English stop words out (scikit-learn's list),
Snowball-stemmed (`methods.shared.blocks.Keywords`, which remembers each word's stem).
`BlockSearch` indexes whole pages and all their blocks:
- page retrieval: BM25 of the whole page (the baseline);
- block retrieval: a page's rank by its best block, combined with its page rank as
  `alpha * page rank + (1 - alpha) * block rank` (rank combination, as the paper re-ranks
  documents with block evidence; alpha 0.5 ours);
- query expansion: pseudo-relevance feedback with Okapi's term selection value
  TSV = r * w1 (Robertson 1990; w1 the Robertson / Sparck Jones weight, r the feedback
  units holding the term) over the top `feedback` units, which are blocks (block-level
  expansion, the paper's) or whole pages (the classic baseline); the `terms` best terms join
  the query with weight `term_weight`, and the expanded query ranks whole pages.
Ties in a ranking count at their mean position; a page with no score is not retrieved.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitesift.errors import SitesiftError
from sitesift.methods.shared.blocks import Keywords
from sitesift.page import Page
from sitesift.verdicts import render_blocks

_WORDS = re.compile(r"\S+")


def page_text(page: Page) -> str:
    """All visible text of a page, one block per line (the `alltext` rendering)."""
    return "\n".join(b.text for b in render_blocks(page.root, {}, with_paths=False))


def windows(text: str, window: int, step: int | None = None) -> list[str]:
    """Word windows of `window` words, starting every `step` words (default: no overlap);
    the last window ends at the last word."""
    words = _WORDS.findall(text)
    out: list[str] = []
    for start in range(0, len(words), step or window):
        out.append(" ".join(words[start:start + window]))
        if start + window >= len(words):
            break
    return out


@dataclass(frozen=True, slots=True)
class FixedPS:
    window: int = 200
    step: int | None = None
    name: str = "FixedPS"

    def segments(self, page: Page) -> list[str]:
        return windows(page_text(page), self.window, self.step)


@dataclass(frozen=True, slots=True)
class DomPS:
    name: str = "DomPS"

    def segments(self, page: Page) -> list[str]:
        return [b.text for b in render_blocks(page.root, {}, with_paths=False)]


@dataclass(frozen=True, slots=True)
class VIPSPS:
    """Leaf blocks of VIPS; `params` are `sitesift.methods.vips.VIPSParams` fields."""

    pdoc: int = 8
    name: str = "VIPS"

    def segments(self, page: Page) -> list[str]:
        from sitesift.browser.chromium import render
        from sitesift.methods.vips import VIPSParams, leaf_nodes, segment

        params = VIPSParams(pdoc=self.pdoc)
        tree = segment(page, render(page, params.render_options), params)
        return [text for node in leaf_nodes(tree) if (text := node.text())]


@dataclass(frozen=True, slots=True)
class CombPS:
    pdoc: int = 8
    window: int = 200
    name: str = "CombPS"

    def segments(self, page: Page) -> list[str]:
        return combine(VIPSPS(self.pdoc).segments(page), self.window)


def combine(blocks: Iterable[str], window: int) -> list[str]:
    """CombPS from semantic blocks: long blocks cut into windows, short ones kept."""
    out: list[str] = []
    for block in blocks:
        out.extend(windows(block, window) if len(_WORDS.findall(block)) > window else [block])
    return out


def _bm25s() -> Any:
    try:
        import bm25s
    except ImportError:
        raise SitesiftError("block retrieval needs bm25s: pip install 'sitesift[render]'"
                            ) from None
    return bm25s


@functools.lru_cache(maxsize=1)
def _keywords() -> Keywords:
    return Keywords(numbers=True)  # one stemmer call per distinct word, then remembered


def terms(text: str) -> list[str]:
    """Index terms: `\\w+` tokens without English stop words, Snowball-stemmed."""
    return _keywords()(text)


@dataclass(frozen=True, slots=True)
class RetrievalParams:
    k1: float = 1.2           # Okapi's usual
    b: float = 0.75           # Okapi's usual
    alpha: float = 0.5        # block retrieval: weight of the page rank (ours)
    feedback: int = 10        # expansion: feedback units (blocks or pages)
    terms: int = 10           # expansion: terms added
    term_weight: float = 0.5  # expansion: weight of an added term (original terms: 1)

    def __post_init__(self) -> None:
        if self.k1 < 0 or not 0 <= self.b <= 1 or not 0 <= self.alpha <= 1:
            raise ValueError("retrieval: k1 >= 0, b and alpha in [0, 1]")
        if self.feedback < 1 or self.terms < 0 or self.term_weight < 0:
            raise ValueError("retrieval: feedback >= 1, terms and term_weight >= 0")


class BM25Index:
    """Okapi BM25 weights of a collection (bm25s) as a sparse units x terms matrix."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float, b: float) -> None:
        from scipy.sparse import csc_matrix

        self.size = len(docs)
        self.doc_freq: Counter[str] = Counter()
        for doc in docs:
            self.doc_freq.update(set(doc))
        if not docs:
            self.vocab: dict[str, int] = {}
            self.matrix = csc_matrix((0, 0))
            return
        index = _bm25s().BM25(k1=k1, b=b, method="lucene")
        index.index([list(d) or [""] for d in docs], show_progress=False)
        s = index.scores  # CSC by term: data, indices (units), indptr
        columns = len(s["indptr"]) - 1  # bm25s lists "" in its vocabulary without a column
        self.vocab = {str(t): int(i) for t, i in index.vocab_dict.items()
                      if t and int(i) < columns}
        self.matrix = csc_matrix((s["data"], s["indices"], s["indptr"]),
                                 shape=(self.size, columns))

    def scores(self, query: dict[str, float]) -> np.ndarray:
        """sum over the query's terms of weight * BM25(unit, term), for every unit."""
        out = np.zeros(self.size)
        m = self.matrix
        for term, weight in query.items():
            col = self.vocab.get(term)
            if col is None or not weight:
                continue
            lo, hi = m.indptr[col], m.indptr[col + 1]
            out[m.indices[lo:hi]] += weight * m.data[lo:hi]  # a column's rows are distinct
        return out


class BlockSearch:
    """BM25 indexes over whole pages and over their blocks."""

    def __init__(self, pages: Sequence[str], blocks: Sequence[Sequence[str]],
                 params: RetrievalParams | None = None) -> None:
        if len(pages) != len(blocks):
            raise ValueError("one list of blocks per page")
        self.params = params or RetrievalParams()
        self.page_terms = [terms(text) for text in pages]
        self.block_terms: list[list[str]] = []
        owner: list[int] = []
        for i, page_blocks in enumerate(blocks):
            for text in page_blocks:
                got = terms(text)
                if got:
                    self.block_terms.append(got)
                    owner.append(i)
        self.block_page = np.asarray(owner, dtype="int64")  # block -> its page
        self.pages = BM25Index(self.page_terms, self.params.k1, self.params.b)
        self.blocks = BM25Index(self.block_terms, self.params.k1, self.params.b)

    def page_scores(self, query: dict[str, float]) -> np.ndarray:
        return self.pages.scores(query)

    def block_scores(self, query: dict[str, float]) -> np.ndarray:
        """BM25 of every block (in `block_terms` order)."""
        return self.blocks.scores(query)

    def best_blocks(self, query: dict[str, float]) -> np.ndarray:
        """Every page's best block score (0 without a matching block)."""
        best = np.zeros(len(self.page_terms))
        if len(self.block_page):
            np.maximum.at(best, self.block_page, self.block_scores(query))
        return best

    def block_retrieval(self, query: dict[str, float]) -> np.ndarray:
        """Scores (higher is better) of the rank combination of page and best-block ranks,
        `alpha * page rank + (1 - alpha) * block rank`; pages matched by neither get 0."""
        alpha = self.params.alpha
        by_page, by_block = self.page_scores(query), self.best_blocks(query)
        combined = alpha * ranks(by_page) + (1 - alpha) * ranks(by_block)
        out = len(by_page) + 1 - combined
        out[(by_page <= 0) & (by_block <= 0)] = 0.0
        return out

    def expand(self, query: dict[str, float], level: str = "block") -> dict[str, float]:
        """The query plus the best feedback terms of the top blocks (or pages)."""
        p = self.params
        if level == "block":
            index, units = self.blocks, self.block_terms
        elif level == "page":
            index, units = self.pages, self.page_terms
        else:
            raise ValueError("level is 'block' or 'page'")
        scores = index.scores(query)
        k = min(p.feedback, len(scores))
        if k == 0:
            return dict(query)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]  # best first, ties by position
        chosen_units = [set(units[int(i)]) for i in top if scores[i] > 0]
        if not chosen_units:
            return dict(query)
        chosen = select_terms(chosen_units, index.doc_freq, index.size, exclude=set(query),
                              k=p.terms)
        expanded = dict(query)
        for term in chosen:
            expanded[term] = p.term_weight
        return expanded


def query_terms(text: str) -> dict[str, float]:
    """A query as weighted terms (each distinct term once, weight 1)."""
    return dict.fromkeys(terms(text), 1.0)


def select_terms(feedback: list[set[str]], df: Counter[str], n: int, exclude: set[str],
                 k: int) -> list[str]:
    """Okapi's term selection: the k terms of largest r * w1 over the feedback units."""
    big_r = len(feedback)
    r: Counter[str] = Counter()
    for unit in feedback:
        r.update(unit)
    scored = []
    for term, rt in r.items():
        if term in exclude or (rt < 2 and big_r > 1):  # one unit's word is no evidence
            continue
        nt = df.get(term, rt)
        w1 = math.log(((rt + 0.5) * (n - nt - big_r + rt + 0.5))
                      / ((nt - rt + 0.5) * (big_r - rt + 0.5)))
        scored.append((rt * w1, term))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [term for tsv, term in scored[:k] if tsv > 0]


def ranks(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Rank of each score (1 = best; ties share their mean position)."""
    from scipy.stats import rankdata

    return np.asarray(rankdata(-np.asarray(scores, dtype="float64"), method="average"))


def reciprocal_rank(scores: Sequence[float] | np.ndarray, target: int) -> float:
    """1 / rank of the known item; 0 when it was not retrieved (score <= 0)."""
    values = np.asarray(scores, dtype="float64")
    if values[target] <= 0:
        return 0.0
    # Its rank among ties is their mean position: 1 + those above + (ties - 1) / 2.
    above = int(np.count_nonzero(values > values[target]))
    ties = int(np.count_nonzero(values == values[target]))
    return 1.0 / (1 + above + (ties - 1) / 2)
