"""The default cleaner (`--method default`): learned block classification, site-aware.

Every block of the page (a block element's own text, `native/src/page/blocks.rs`) is scored by two
stages of gradient-boosted trees trained on the shared corpora (`training.default`): stage
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

Conventions the gold corpora disagree on are switches, each `auto` (the model decides) or
set against it (`comments=stories|drop|separate`, `captions`, `bylines`, `dates`, and the rules
`records`, `listings`, `teasers`, `unseen`, `notices`, ...): each is a rule of the core in
`native/src/rules/`, in a file named for it (the four editorial kinds in `editorial.rs`).
Their one list, with values, defaults, precedence and a line each, is the core's table
(`native/src/rules/table.rs`, here `RULES`; `sitesift methods default` prints it); what
each does, why its default is what it is and what it was measured to gain is
docs/conventions.md.

Each page is read, scored and rendered by the native core (`sitesift.native`, Rust): one
crossing per page, the GIL released while it works. The model is
`sitesift/data/default-v1.json.gz` unless `model=` (or the environment
variable SITESIFT_DEFAULT_MODEL) names another file made by `sitesift train-default`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from sitesift import confidence, page_type
from sitesift.errors import InputError, ModelError
from sitesift.extractor import model as model_file
from sitesift.extractor import selectors as css
from sitesift.extractor.site import SiteEvidence, cv_group
from sitesift.methods.base import NodeScores, ParamsCleaner, register
from sitesift.native import Verdicts, core, read
from sitesift.page import Page
from sitesift.result import CONTENT, NOISE, Block, Result
from sitesift.verdicts import Verdict
from sitesift.weak import SAMPLE_WORDS, SHINGLE_WIDTH, check_page

if TYPE_CHECKING:
    import numpy as np

ENV_MODEL = "SITESIFT_DEFAULT_MODEL"
RULES: tuple[tuple[str, str, tuple[str, ...], str], ...] = tuple(
    (r.name, r.phase, tuple(r.values), r.summary) for r in core().rules())
"""The rules set against the model, from the core's one table of them
(`native/src/rules/table.rs`), in its order of precedence: each one's switch, phase (`bar`,
`bring-in`, `take-out`, `editorial`), values (the default first) and one line on what it does."""
CONVENTIONS = {name: values for name, _, values, _ in RULES}
"""Each switch and its values, the default first (`RULES`)."""
KEPT = "no verdict: kept"


def _switch(name: str) -> Any:
    """A rule's switch as a field: its default (the first of its values), its values and
    its line (`sitesift methods default`), all from the core's table (`RULES`)."""
    _, _, values, summary = next(rule for rule in RULES if rule[0] == name)
    return field(default=values[0], metadata={"values": values, "doc": summary})


def _reason(score: float, section: str | None, content: bool, apart: bool = False) -> str:
    """`default: p=0.91`, or with the convention that decided the block against the model:
    `default: p=0.91, captions=drop`; a comment kept apart (`apart`: comments=separate)
    says `comments=separate`."""
    if section is None:
        return f"default: p={score:.2f}"
    if apart and section == "comments":
        return f"default: p={score:.2f}, comments=separate"
    return f"default: p={score:.2f}, {section}={'keep' if content else 'drop'}"


def read_page(page: Page, *, reveal: bool = True) -> Any:
    """The page as the core reads it (`_native.Page`); a page it cannot read is an
    InputError naming it."""
    try:
        return read(page.markup, page.url, cut_title=page.cut_title, reveal=reveal)
    except ValueError as exc:
        raise InputError(f"{page.name}: {exc}") from None


@dataclass(frozen=True, slots=True)
class DefaultParams:
    """The default cleaner's settings (`--set default.NAME=VALUE`), checked when made."""

    preset: str = field(default="balanced", metadata={"values": model_file.PRESETS})
    """Which of the model's thresholds cuts: best F0.5, best mean F1, or best F2."""
    threshold: float | None = field(default=None, metadata={"values": "a number in (0, 1)"})
    """A cut of its own instead of the preset's."""
    model: str | None = field(default=None, metadata={"values": "a model file's path"})
    """Model file (default: $SITESIFT_DEFAULT_MODEL, else the bundled model)."""
    site: bool = True
    """Learn the site's evidence from the pages `fit` gets (false: every page alone)."""
    relative: float = field(default=model_file.RELATIVE,
                            metadata={"values": "a number in [0, 1]; 0: off"})
    """Unsure pages: the cut scales with the page's best block (`extractor.model.page_cut`)."""
    # The rules set against the model, in the core's order (`RULES`): each field's default,
    # values and line come from the core's table, so a field names a rule and no more (the
    # fields stay declared for typing; a test holds them to the table).
    comments: str = _switch("comments")
    captions: str = _switch("captions")
    bylines: str = _switch("bylines")
    dates: str = _switch("dates")
    consent: str = _switch("consent")
    notices: str = _switch("notices")
    choices: str = _switch("choices")
    hidden: str = _switch("hidden")
    slideshows: str = _switch("slideshows")
    teasers: str = _switch("teasers")
    reviews: str = _switch("reviews")
    dialogs: str = _switch("dialogs")
    records: str = _switch("records")
    listings: str = _switch("listings")
    articles: str = _switch("articles")
    unseen: str = _switch("unseen")
    keep: tuple[str, ...] = field(default=(), metadata={"values": "CSS selectors"})
    """Elements kept whatever the model says, with all under them; fitted on a site, also
    the site's elements of their style path (`extractor.selectors`)."""
    drop: tuple[str, ...] = field(default=(), metadata={"values": "CSS selectors"})
    """Elements dropped whatever the model says, as `keep` keeps them."""

    def __post_init__(self) -> None:
        preset, threshold, relative, model = self.preset, self.threshold, self.relative, self.model
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
        for name in CONVENTIONS:
            value = getattr(self, name)
            if value not in CONVENTIONS[name]:
                raise ValueError(f"default: {name} must be one of "
                                 f"{', '.join(CONVENTIONS[name])}, got {value!r}")
        if model is not None and not isinstance(model, str):
            raise ValueError("default: model must be a path")
        # (stored as the cleaner always stored them: numbers as floats, `site` a bool)
        object.__setattr__(self, "keep", css.checked("keep", self.keep))
        object.__setattr__(self, "drop", css.checked("drop", self.drop))
        object.__setattr__(self, "threshold", None if threshold is None else float(threshold))
        object.__setattr__(self, "site", bool(self.site))
        object.__setattr__(self, "relative", float(relative))


@register
class DefaultCleaner(ParamsCleaner[DefaultParams]):
    """Learned two-stage block classifier with site evidence when pages of the site are
    at hand. Each rule's switch (comments ... unseen) is `auto` (the model decides)
    or set against the model: `drop` takes what it names out, `keep` keeps it (the
    defaults are the core's table: `comments=stories`, `records=keep`, ...)."""

    name = "default"
    site_level = True
    gives_confidence = True  # sitesift.confidence reads the core's cleaning of the page
    min_fit_pages = 0  # fitted on fewer than 2 pages it cleans each page alone, by design
    reads_tree = False  # the native core reads each page
    imports = ()  # the core fits and cleans: no NumPy (a crawl's worker never imports it)
    params_type = DefaultParams

    def __init__(self, params: DefaultParams | None = None, **overrides: Any) -> None:
        super().__init__(params, **overrides)
        self.evidence: SiteEvidence | None = None
        self._loaded: model_file.Scorer | None = None
        # The fitted pages as the core read them, by the page's identity: cleaning a page
        # the fit has read takes the fit's reading instead of reading it again (a site group
        # is fitted on the pages it then cleans). Each entry goes when its page is cleaned,
        # all of them at the next fit.
        self._read: dict[int, tuple[Page, Any]] = {}
        self._cut: Any = None  # `native_cut`, made on first use
        self._cleaner: Any = None  # `native_cleaner`, made on first use
        self.selectors = css.Selectors(self.params.keep, self.params.drop)

    def _path(self) -> str:
        return self.params.model or os.environ.get(ENV_MODEL) or str(model_file.BUNDLED)

    @property
    def _model(self) -> model_file.Scorer:
        # Read on first use (and once per process per file: `load_scorer` memoises), so
        # listing or configuring methods never touches the model file.
        if self._loaded is None:
            self._loaded = model_file.load_scorer(self._path())
        return self._loaded

    def check_settings(self) -> None:
        """Read the model file now: a missing, damaged or foreign one is a ModelError before
        any page is read (the command line calls this first); the same for the confidence
        model (`sitesift.confidence`)."""
        _ = self.cutoff
        confidence.scorer()

    def precheck(self) -> None:
        """The model file's seal and head (`model_file.check_head`: 0.03 s instead of a
        whole load's 0.12 s, which each worker makes anyway): its thresholds give every
        preset, as `check_settings` finds too; and the confidence model, whole (a few
        kilobytes)."""
        model_file.check_head(self._path())
        confidence.scorer()

    @property
    def cutoff(self) -> float:
        p = self.params
        return p.threshold if p.threshold is not None else self._model.thresholds[p.preset]

    @property
    def learns_from_site(self) -> bool:
        return self.params.site

    def sample_shingles(self, pages: Sequence[Page]) -> list[bytes]:
        """Each sample page's word shingles as the fit compares pages for repeats, from the
        core's reading of it (its blocks' words, `native/src/crawl/shingles.rs`), which the fit
        and the page's cleaning then use again (the last fit's readings go); as the core
        gives them (little-endian u64 bytes) to its repeated-page check, with no NumPy."""
        self._read = {}
        return [self._native_page(p, keep=True).shingles(SHINGLE_WIDTH, SAMPLE_WORDS, p.markup)
                for p in pages]

    def fit_site(self, pages: Sequence[Page]) -> DefaultCleaner:
        """Count the site's block texts and layout positions (nothing to learn from one
        page: a lone page is cleaned by the page-level path, so no number of pages is too
        few; pages of several sites warn, `sitesift.weak`)."""
        if len(pages) > 1:
            self.evidence = SiteEvidence.fit(self._native_page(p, keep=True) for p in pages)
        else:
            self._read, self.evidence = {}, None
        if self.selectors.active:
            self.selectors.learn(pages)
        return self

    def _native_page(self, page: Page, *, keep: bool = False) -> Any:
        """The core's reading of the page: the fit's where it read this very page (taken
        out, unless `keep`: the fit reads each sample page once for its repeats check and its
        evidence, and cleaning it takes that reading)."""
        held = self._read.get(id(page)) if keep else self._read.pop(id(page), None)
        if held is not None and held[0] is page:
            return held[1]
        npage = read_page(page)
        if keep:
            self._read[id(page)] = (page, npage)
        return npage

    def native_cut(self) -> Any:
        """How the core cuts a page for this cleaner (`_native.Cut`: the preset's threshold
        or its own, the model's balanced one, the relative cut and the convention switches),
        made once: its params and model do not change."""
        if self._cut is None:
            self._cut = core().Cut(self.cutoff, self._model.thresholds["balanced"],
                                   self.params.relative, self.conventions())
        return self._cut

    def native_cleaner(self) -> Any:
        """What the core cleans this cleaner's pages by (`_native.Cleaner`: the model and
        `native_cut`), made once; `clean`, `probabilities` and `score` pass it."""
        if self._cleaner is None:
            self._cleaner = core().Cleaner(self._model.native, self.native_cut())
        return self._cleaner

    def _evidence(self) -> Any:
        return self.evidence.native if self.evidence is not None else None

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        """The page's blocks, labelled; a page whose content only shows without scripts
        (`native/src/read/reveal.rs`) is read with that content shown. `noise=False` returns
        only the content blocks, without their node addresses."""
        npage = self._native_page(page)
        decided = self._decided(page, npage) if self.selectors.active else None
        # (a held-out bundle names pages without a site `unknown`, as training did)
        cleaned = core().clean(npage, self.native_cleaner(),
                               cv=cv_group(page.site), evidence=self._evidence(),
                               noise=noise or decided is not None, paths=noise)
        # (score None: no verdict above the block, which the core reports as content)
        apart = self.params.comments == "separate"
        blocks = [Block(b.text, b.tag, CONTENT if b.content else NOISE,
                        1.0 if b.score is None else b.score,
                        KEPT if b.score is None else _reason(b.score, b.section, b.content,
                                                             apart),
                        b.nid, b.path)
                  for b in cleaned.blocks]
        kept, applied = cleaned.kept, None
        if decided is not None:  # (None if the trees differ: no element is then decided)
            blocks, kept, applied = css.select(blocks, decided[0], kept, noise, decided[1])
        page.know_title(npage.title)
        result = Result(blocks, self.name, page.id, page.url, page.site, page.title,
                        verdicts=Verdicts(npage, kept, comments=apart),
                        blocks_read=cleaned.found)
        result.page_type, result.page_type_score = page_type.classify(npage)
        result.confidence = confidence.estimate(
            npage, self.evidence.n_pages if self.evidence is not None else 0,
            result.page_type, result.page_type_score)
        if npage.revealed:
            result.meta["revealed"] = "content shown from <noscript> / hidden elements"
        result.meta["evidence"] = self.evidence_used()
        if self.selectors.active:
            result.meta["selectors"] = (
                css.NOT_APPLIED if decided is None else
                css.NOT_THE_SAME_TREE if applied is None else
                f"{sum(d is not None for d in applied)} elements decided; "
                f"{len(self.selectors.learnt)} style paths learnt on the site")
        return check_page(page, result)

    def _decided(self, page: Page, npage: Any
                 ) -> tuple[list[css.Decision | None], css.Tree] | None:
        """The selectors' decision on each element of the page (`extractor.selectors`), by
        the core's element index, and the tree they were made on; None on a page whose
        script-gated content the core shows (its tree is not the page's own)."""
        if npage.revealed:
            return None
        tree = css.Tree(page)
        return self.selectors.decisions(tree), tree

    def evidence_used(self) -> str:
        """Which evidence the cut read, for a result's meta: `page` (the page alone: no fit,
        a fit on one page, or `site=false`), or `site (N pages)` (the site's evidence from N
        fitted pages; a fitted page leaves itself out of its counts). One page may come out
        differently alone and among its site's pages (`sitesift clean --help`)."""
        if self.evidence is None:
            return "page"
        return f"site ({self.evidence.n_pages} pages)"

    def probabilities(self, page: Page) -> tuple[list[str], np.ndarray]:
        """The page's block texts (as `clean` reads the page) and each block's content
        probability."""
        import numpy as np

        npage = self._native_page(page)
        decided = core().decide(npage, self.native_cleaner(),
                                cv=cv_group(page.site), evidence=self._evidence())
        return npage.texts, np.asarray([d.score for d in decided], dtype=np.float64)

    def score(self, page: Page) -> NodeScores:
        """Verdicts on the page's own nodes (without `clean`'s reading of script-gated
        content, which is another tree). The core reads the same visible tree as
        `sitesift.dom`, so its elements in preorder are the DomNodes in preorder."""
        npage = read_page(page, reveal=False)
        decided = core().decide(npage, self.native_cleaner(),
                                cv=cv_group(page.site), evidence=self._evidence())
        nodes = list(page.root.iter())[1:]  # below the virtual root: <body> first
        chosen = self.selectors.decisions(css.Tree(page)) if self.selectors.active else None
        verdicts: NodeScores = {}
        for d in decided:
            nid = nodes[d.element].nid
            if chosen is not None and (x := chosen[nid - 1]) is not None:
                verdicts[nid] = Verdict(CONTENT if x.content else NOISE, d.score,
                                        x.reason(d.score))
            else:
                verdicts[nid] = Verdict(CONTENT if d.content else NOISE, d.score,
                                        _reason(d.score, d.section, d.content))
        return verdicts

    def conventions(self) -> dict[str, str]:
        """The switches set against the model (`CONVENTIONS`), for the core."""
        return {name: value for name in CONVENTIONS
                if (value := getattr(self.params, name)) != "auto"}

    def to_state(self) -> dict[str, Any]:
        evidence = self.evidence.to_state() if self.evidence is not None else None
        state: dict[str, Any] = {"evidence": evidence}
        if self.selectors.learnt:  # (the style paths the selectors taught: `css.Selectors`)
            state["selectors"] = self.selectors.to_state()
        return state

    @classmethod
    def from_state(cls, params: dict[str, Any], state: dict[str, Any]) -> DefaultCleaner:
        known = {f.name for f in fields(DefaultParams)}
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
        cleaner.selectors.load_state(state.get("selectors", []))
        return cleaner
