"""The template method (`--method template`): Bar-Yossef & Rajagopalan, WWW 2002.

The baseline the Site Style Tree paper compares against (Yi, Liu & Li, KDD 2003, section 5),
cleaning each site separately as that paper did:

- **Pagelets** (`pagelets="paper"`, the default): as the SST paper defines them, an
  element none of whose children holds at least k hyperlinks and none of whose ancestors
  is a pagelet, any tag node being eligible. Every child of a link-rich region is then a
  pagelet, so a recurring link-free block (a copyright notice) can be template.
  `pagelets="lowest"`: the eligible elements holding at least k links with no such
  element below them (US 6,968,331 claim 4); regions with fewer than k links are never
  pagelets and are always kept.
- **Fingerprint**: each pagelet's text (lowercased `\\w+` tokens, digits folded; the link
  targets when it has no text) is cut into w-word shingles, and n min-hashes of the shingle
  set are joined into one number (`sitesift.shingles`): identical and nearly identical
  pagelets share it.
- **Local template detection** (the algorithm the SST paper ran): duplicate pages are
  dropped, pagelets are grouped by fingerprint, and a group of at least `min_pages`
  pagelets is a template (`count="pagelets"`, the paper's: a pagelet repeated within one
  page is one too) or, with `count="pages"`, a group found on at least `min_pages` pages of
  the site; its pagelets are removed.
- **Global template detection** (`algorithm="global"`, `template/components.py`): a template
  group must also be connected in the site's hyperlink graph, built from the pages' hrefs
  resolved against their URLs (`sitesift.links`). When the pages of a site do not link to
  each other (or fewer than two have a URL) the fit says so in a warning and in `fallback_`
  and uses the local algorithm; a page with no link data at all is judged by the local rule.

A fitted model keeps fingerprints, never node ids, so it cleans pages it never saw: a new
page's pagelets are fingerprinted and those matching a template are removed (in global
mode only when the page links to, is linked from, or is one of the component's pages).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sitesift.dom import DomNode
from sitesift.errors import ModelError
from sitesift.links import SiteGraph, page_links
from sitesift.methods.base import NodeScores, ParamsCleaner, register
from sitesift.methods.shared.presets import Presets, check_preset
from sitesift.methods.shared.state import params_from_state
from sitesift.methods.template.components import MAX_FINGERPRINT, Components, is_int
from sitesift.page import Page
from sitesift.result import NOISE
from sitesift.shingles import fingerprint, normalise_tokens
from sitesift.text import TOKEN
from sitesift.verdicts import Verdict

log = logging.getLogger(__name__)

# The patent's eligible kinds (US 6,968,331, claim 5): tables, lists, paragraphs, image maps,
# headers, table rows and cells, list items, selection bars, frames.
PAPER_KINDS = ("table", "tr", "td", "th", "ul", "ol", "dl", "li", "p", "map", "h1", "h2",
               "h3", "h4", "h5", "h6", "select", "frame")
# Their heirs in layouts after 2002, where navigation lives in <div>/<nav> instead of tables.
MODERN_KINDS = ("div", "nav", "header", "footer", "aside", "section", "article", "main",
                "form", "menu", "center", "dd", "dt")
# In `eligible`, every tag node: the SST paper's "HTML elements in the parse tree are tag
# nodes in the DOM tree".
ANY_KIND = "*"
# The kinds that could be pagelets before issue 33 (`--set eligible=[...]`).
KINDS_2002 = PAPER_KINDS + MODERN_KINDS
PAGELET_RULES = ("lowest", "paper")
COUNTS = ("pagelets", "pages")
# What each preset changes from the field defaults (the fields' docstrings say why).
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "paper": {"pagelets": "paper", "eligible": (ANY_KIND,), "k": 3, "min_pages": 2,
              "algorithm": "local", "fold_digits": False, "count": "pagelets"},
}


@dataclass(frozen=True, slots=True)
class TemplateParams(Presets):
    """Every parameter of the method, with where its default comes from."""

    METHOD = "template"
    PRESETS = PRESETS

    k: int = 3
    """Hyperlinks that split a region: the setting the SST paper reports as the template
    method's best on its data (section 5; our seed's copy lost its digits, 3 is taken
    from the published paper). Paper preset: 3. With the paper's pagelets and count,
    k = 2 is slightly better (cleanportaleval .868, big9 .878 against .863, .875; k = 4:
    .861, .873; k = 5: .858, .867)."""
    eligible: tuple[str, ...] = (ANY_KIND,)
    """Element kinds that can be pagelets; `*` is every tag node, the SST paper's "HTML
    elements in the parse tree are tag nodes in the DOM tree" (paper preset: `*`).
    `KINDS_2002` lists Bar-Yossef & Rajagopalan's kinds (tables, lists, paragraphs, ...)
    with their modern heirs (div, nav, ...): with the paper's pagelets .857 / .864 on
    cleanportaleval / big9 against .863 / .875 for `*`."""
    shingle_width: int = 4
    """Words per shingle, w (stated in neither paper's text we have; paper preset keeps
    4: under the lowest pagelets w = 2, 3, 4, 6, 8 measured within .002 of each other)."""
    n_hashes: int = 4
    """Min-hashes joined into a fingerprint (not stated; paper preset keeps 4: under the
    lowest pagelets n = 1: .742, 2: .746, 4: .747, 8: .748, 16: .747)."""
    seed: int = 0
    """Seed of the min-hash functions (fingerprints are comparable only with one seed)."""
    fold_digits: bool = True
    """Fold digit runs to '#' before shingling, so dates and counters do not break a
    template apart (our choice; the paper's shingles are of the text as it is, so the
    paper preset sets False)."""
    min_pages: int = 2
    """How large a template group is at least: its pagelets or its pages (local, as
    `count` says), or the pages of a linked component (global). 2 is the local algorithm's
    'at least two occurrences': a group of two pagelets with one shingle is a template
    (paper preset: 2)."""
    count: str = "pagelets"
    """What the local rule counts in a fingerprint group. 'pagelets' (default and paper
    preset): its pagelets, as Bar-Yossef & Rajagopalan's local algorithm and the SST paper
    ("a group of shingles", two or more, is template) do, so a pagelet repeated within one
    page (a menu at the top and the bottom) is template even if no other page holds it.
    'pages' (the rule before issue 52): the distinct pages holding the group, so such a
    pagelet is kept. Global mode counts pages whatever this says (a component of linked
    pages). Measured with the other defaults (cleanportaleval / big9 with site groups /
    dragnet's sites of >= 5 pages; docs/paper-modes.md): pagelets .863 / .875 / .801,
    pages .864 / .872 / .799."""
    algorithm: str = "local"
    """'local' (the SST paper's choice: "application of the local template detection
    algorithm"; paper preset: local) or 'global' (hyperlink connectivity). Global found
    links among the pages of 11 of 24 big9 groups, 64 of 101 dragnet sites and 2 of 4
    cleanportaleval sites (the rest fell back); there it removes less."""
    pagelets: str = "paper"
    """How a page is cut into pagelets. 'paper' (default and paper preset): the SST
    paper's definition (section 5) -- an element none of whose children holds >= k
    hyperlinks and none of whose ancestors is a pagelet; found top-down, so every child of
    a link-rich region is a pagelet, link-free ones (a copyright notice) included.
    'lowest' (the default before issue 33): the eligible elements holding >= k links with
    no such element below them (Bar-Yossef & Rajagopalan's patent, claim 4); regions with
    fewer than k links are never pagelets and always kept. With the other defaults:
    cleanportaleval .863 against .756, big9 (site groups) .875 against .806. An element of
    a kind not in `eligible` is never a pagelet; under 'paper' the question then passes to
    its children."""
    preset: str = "default"
    """'default' (the values above) or 'paper': every choice as the SST paper ran the
    template method (each field's docstring says its paper value). Read by
    `TemplateCleaner(preset=...)` / `--set preset=paper` and `TemplateParams.from_preset`:
    the preset gives the starting values, and any field also set explicitly wins."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "eligible", tuple(self.eligible))
        check_preset("template", PRESETS, self.preset)
        if self.count not in COUNTS:
            raise ValueError(f"template: count must be one of {', '.join(COUNTS)}, "
                             f"got {self.count!r}")
        if self.pagelets not in PAGELET_RULES:
            raise ValueError(f"template: pagelets must be one of {', '.join(PAGELET_RULES)}, "
                             f"got {self.pagelets!r}")
        for name in ("k", "shingle_width", "n_hashes", "min_pages"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"template: {name} must be a positive integer, got {value!r}")
        if self.min_pages < 2:
            raise ValueError("template: min_pages must be at least 2 (a template recurs)")
        if self.algorithm not in ("local", "global"):
            raise ValueError(f"template: algorithm must be 'local' or 'global', "
                             f"got {self.algorithm!r}")
        if not self.eligible or not all(isinstance(t, str) for t in self.eligible):
            raise ValueError("template: eligible must be a non-empty list of tag names")


def link_counts(root: DomNode) -> dict[int, int]:
    """Hyperlinks in each element's subtree (the element itself included), by node id."""
    links: dict[int, int] = {}
    for node in reversed(list(root.iter())):  # children before parents
        links[node.nid] = (node.href is not None) + sum(links[c.nid] for c in node.elements())
    return links


def _eligible(kinds: frozenset[str]) -> Callable[[DomNode], bool]:
    """Whether a node may be a pagelet: `*` admits every tag node (the SST paper's reading),
    so not the parser's virtual nodes, the root above `<body>` and the `#text` runs beside
    elements (text, not tags: under 'paper' a run in a split region is in no pagelet)."""
    if ANY_KIND in kinds:
        return lambda node: not node.tag.startswith("#")
    return lambda node: node.tag in kinds


def pagelets(root: DomNode, k: int, eligible: frozenset[str] | tuple[str, ...],
             rule: str = "lowest") -> list[DomNode]:
    """The page's pagelets in document order, by `rule` ('lowest' or 'paper', see
    `TemplateParams.pagelets`)."""
    links = link_counts(root)
    ok = _eligible(frozenset(eligible))
    if rule == "paper":
        return _paper_pagelets(root, k, ok, links)
    below: dict[int, bool] = {}  # a pagelet somewhere in the subtree (the node included)
    found: set[int] = set()
    order = list(root.iter())
    for node in reversed(order):  # children before parents
        has = any(below[c.nid] for c in node.elements())
        if not has and links[node.nid] >= k and ok(node):
            found.add(node.nid)
            has = True
        below[node.nid] = has
    return [node for node in order if node.nid in found]


def _paper_pagelets(root: DomNode, k: int, ok: Callable[[DomNode], bool],
                    links: dict[int, int]) -> list[DomNode]:
    """The SST paper's pagelets: an element none of whose children holds >= k links and
    none of whose ancestors is a pagelet. Found top-down: a node that qualifies is a
    pagelet and ends the descent; any other node (a child holds >= k links, or the kind is
    not eligible) passes the question to its children. So every element-child of a
    link-rich region is a pagelet, a link-free one (a copyright line) included."""
    out: list[DomNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kids = list(node.elements())
        if ok(node) and all(links[c.nid] < k for c in kids):
            out.append(node)
        else:
            stack.extend(reversed(kids))
    return out


def pagelet_tokens(node: DomNode, fold_digits: bool) -> list[str]:
    """A pagelet's text tokens; its link targets when it has no text (an image menu)."""
    words = TOKEN.findall(node.text())
    if not words:
        words = [sub.href or "" for sub in node.iter() if sub.href]
    return normalise_tokens(words, fold_digits)


@register
class TemplateCleaner(ParamsCleaner[TemplateParams]):
    """Bar-Yossef & Rajagopalan (WWW 2002): pagelets whose shingles recur are template."""

    name = "template"
    params_type = TemplateParams
    site_level = True
    min_fit_pages = 5  # fitted on 1 page it removes nothing (sitesift.weak)

    presets = PRESETS

    def __init__(self, params: TemplateParams | None = None, **overrides: Any) -> None:
        super().__init__(params, **overrides)
        self.templates_: dict[int, int] | None = None  # fingerprint -> its group's size
        self.components_: Components | None = None     # global mode only
        self.algorithm_: str = self.params.algorithm
        self.fallback_: str | None = None
        self.n_pages_ = 0

    @property
    def fitted(self) -> bool:
        return self.templates_ is not None

    def get_params(self) -> dict[str, Any]:
        out = asdict(self.params)
        out["eligible"] = list(self.params.eligible)
        return out

    def fingerprints(self, page: Page) -> list[tuple[DomNode, int]]:
        """(pagelet, fingerprint) for every pagelet of the page that has any content."""
        p = self.params
        out = []
        for node in pagelets(page.root, p.k, p.eligible, p.pagelets):
            fp = fingerprint(pagelet_tokens(node, p.fold_digits), p.shingle_width,
                             p.n_hashes, p.seed)
            if fp is not None:
                out.append((node, fp))
        return out

    def fit_site(self, pages: Sequence[Page]) -> TemplateCleaner:
        # Step 1 of the paper, dropping duplicate pages that would fake templates, is
        # `Cleaner.fit`'s, for every site-level method: `pages` are distinct.
        p = self.params
        owners: dict[int, list[int]] = {}
        occurrences: dict[int, int] = {}
        kept = list(pages)
        for j, page in enumerate(kept):
            fps = [fp for _, fp in self.fingerprints(page)]
            for fp in fps:
                occurrences[fp] = occurrences.get(fp, 0) + 1
            for fp in dict.fromkeys(fps):
                owners.setdefault(fp, []).append(j)
        recurring = {fp: idx for fp, idx in owners.items() if len(idx) >= 2}
        if p.count == "pages":
            self.templates_ = {fp: len(idx) for fp, idx in recurring.items()}
        else:
            self.templates_ = {fp: n for fp, n in occurrences.items() if n >= 2}
        self.n_pages_ = len(kept)
        self.algorithm_, self.fallback_, self.components_ = "local", None, None
        if p.algorithm == "global":
            graph = SiteGraph.build(kept)
            if graph.edges == 0:
                self.fallback_ = graph.why_empty()
                log.warning("template: the global algorithm needs links among the site's "
                            "pages, but %s: using the local algorithm", self.fallback_)
            else:
                self.components_ = Components.fit(graph, recurring, p.min_pages)
                self.algorithm_ = "global"
        return self

    def is_template(self, fp: int, url: str | None, targets: set[str]) -> str | None:
        """Why a pagelet with this fingerprint is template on a page, or None."""
        assert self.templates_ is not None
        if self.components_ is not None and (url is not None or targets):
            size = self.components_.connected(fp, url, targets)
            return f"template pagelet (global: linked group of {size} pages)" if size else None
        count = self.templates_.get(fp, 0)  # local, or a page with no link data at all
        if count < self.params.min_pages:
            return None
        if self.params.count == "pages":
            return f"template pagelet (shingle on {count} of {self.n_pages_} pages)"
        return f"template pagelet (shingle of {count} pagelets on {self.n_pages_} pages)"

    def score(self, page: Page) -> NodeScores:
        self.check_fitted()
        url: str | None = None
        targets: set[str] = set()
        if self.components_ is not None:
            url, targets = page_links(page)
        verdicts: NodeScores = {}
        for node, fp in self.fingerprints(page):
            reason = self.is_template(fp, url, targets)
            if reason is not None:
                verdicts[node.nid] = Verdict(NOISE, 0.0, reason, True)
        return verdicts

    def to_state(self) -> dict[str, Any]:
        self.check_fitted()
        assert self.templates_ is not None
        state: dict[str, Any] = {
            "n_pages": self.n_pages_, "algorithm": self.algorithm_, "fallback": self.fallback_,
            "templates": sorted([fp, n] for fp, n in self.templates_.items()),
        }
        if self.components_ is not None:
            state.update(self.components_.to_state())
        return state

    @classmethod
    def from_state(cls, params: dict[str, Any], state: dict[str, Any]) -> TemplateCleaner:
        # A model saved before `pagelets` existed was fitted on the lowest pagelets: its
        # fingerprints only match pagelets cut the same way. One saved before `count`
        # existed counted each group's pages: its sizes are pages.
        params = {"pagelets": "lowest", "count": "pages", **params}
        cleaner = cls(params_from_state(TemplateParams, "template", params))
        n_pages, algorithm = state.get("n_pages"), state.get("algorithm")
        if not is_int(n_pages) or n_pages < 0:
            raise ModelError("template state: n_pages must be a non-negative integer")
        if algorithm not in ("local", "global"):
            raise ModelError(f"template state: unknown algorithm {algorithm!r}")
        fallback = state.get("fallback")
        if fallback is not None and not isinstance(fallback, str):
            raise ModelError("template state: fallback must be a string or null")
        templates = state.get("templates")
        if not isinstance(templates, list):
            raise ModelError("template state: 'templates' must be a list")
        found: dict[int, int] = {}
        # A group's size is its pages (at most n_pages) or its pagelets (unbounded).
        pages = cleaner.params.count == "pages"
        most = n_pages if pages else MAX_FINGERPRINT
        unit = "pages" if pages else "pagelets"
        for item in templates:
            if (not isinstance(item, list) or len(item) != 2 or not all(map(is_int, item))
                    or not 0 <= item[0] <= MAX_FINGERPRINT or not 2 <= item[1] <= most):
                bound = " <= n_pages" if pages else ""
                raise ModelError(f"template state: bad template entry {item!r} (want "
                                 f"[fingerprint, {unit}] with 2 <= {unit}{bound})")
            found[item[0]] = item[1]
        cleaner.templates_ = found
        cleaner.n_pages_, cleaner.algorithm_, cleaner.fallback_ = n_pages, algorithm, fallback
        if algorithm == "global":
            cleaner.components_ = Components.from_state(state)
        return cleaner
