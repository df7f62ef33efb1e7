"""The interface every method shares, and the registry of method names.

`fit(pages)` learns from pages of one site (page-level methods learn nothing),
`score(page)` returns verdicts on DOM nodes, `clean(page)` renders them into a Result.
The CLI, the evaluation and the batch jobs only ever see this interface.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, is_dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from sitesift.errors import (
    NotFittedError,
    SettingsError,
    SitesiftError,
    UnknownMethodError,
    UnknownSettingError,
)
from sitesift.methods.shared.presets import preset_settings
from sitesift.page import Page
from sitesift.result import Result
from sitesift.verdicts import KEEP, Verdict, render_blocks
from sitesift.weak import check_fit, check_page, distinct_pages, sample_shingles

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

P = TypeVar("P", bound="DataclassInstance")

NodeScores = dict[int, Verdict]
"""Verdicts keyed by DomNode.nid; a verdict covers the node's subtree."""


class Cleaner:
    """Base class: subclasses set `name`, `site_level`, and implement `score`."""

    name: ClassVar[str] = ""
    site_level: ClassVar[bool] = False
    needs_browser: ClassVar[bool] = False  # renders pages in Chromium (sitesift.browser)
    min_fit_pages: ClassVar[int] = 0
    """Pages of one site a site-level method needs to fit a useful model: a fit on fewer
    warns (`WeakFitWarning`; the figures behind each method's value: `sitesift.weak`)."""
    fit_warnings: tuple[str, ...] = ()
    """What the last `fit` warned of (`sitesift.weak.check_fit`): too few pages, pages of
    several sites. The batch and the crawl carry these to their outcomes and site records."""
    gives_confidence: ClassVar[bool] = False
    """Whether its results carry a confidence (`Result.confidence`: the predicted token F1,
    `sitesift.confidence`); only a method with block probabilities to read can give one."""
    reads_tree: ClassVar[bool] = True
    """Whether the method reads a page's tree (`Page.root`, Lexbor's parse); a method that
    reads pages otherwise (the default cleaner's native core) is spared that parse."""
    imports: ClassVar[tuple[str, ...]] = ("numpy",)
    """Modules the method imports inside its functions (NumPy parts, SciPy, scikit-learn,
    Playwright, ...), which `warm` imports: NumPy unless a method says otherwise (a site
    fit's `sitesift.weak.page_shingles`, most methods' scores; not the default cleaner's)."""

    def warm(self) -> None:
        """Import now the modules this cleaner names in `imports`, which it would import on
        its first page. Nothing here fails: a page meets any error itself.

        The batch calls this in each worker before any page's clock starts, because a time
        limit that interrupts an import leaves a half-imported module behind, and a
        library's first import can take seconds on a busy machine; it then cleans a small
        bundled page (`warm_bytes`) through the job's own step, which loads the rest (a
        model file, what a method imports without naming it, a browser)."""
        import importlib

        for name in self.imports:
            with contextlib.suppress(ImportError):
                importlib.import_module(name)

    def fit(self, pages: Sequence[Page]) -> Cleaner:
        """Learn from pages of one site; page-level methods learn nothing.

        Every site-level fit goes through here: the sample's repeated pages (captures of one
        page, an archive read twice) count once (`sitesift.weak.distinct_pages`), what is
        weak about the sample is warned of (`sitesift.weak.check_fit`), and the method's
        `fit_site` learns from the distinct pages. A method that does not learn from the
        site's pages (`learns_from_site` false) gets none."""
        if not self.site_level:
            return self
        sample: list[Page] = []
        repeats = 0
        if self.learns_from_site:
            sample, repeats = distinct_pages(pages, self.sample_shingles)
        reads = self.fit_reads
        check_fit(self, sample, repeats=repeats,
                  used=len(sample) if reads is None else min(len(sample), reads))
        return self.fit_site(sample)

    def sample_shingles(self, pages: Sequence[Page]) -> list[bytes]:
        """What each page of a fit sample says, as `fit` compares pages for repeats
        (`sitesift.weak.page_shingles`: its words' shingle ids as little-endian u64 bytes,
        from a light parse of its own); a method that reads pages otherwise gives them from
        its reading."""
        return sample_shingles(pages)

    def fit_site(self, pages: Sequence[Page]) -> Cleaner:
        """A site-level method's fit on the distinct pages of a site (called by `fit`)."""
        raise NotImplementedError

    @property
    def learns_from_site(self) -> bool:
        """Whether `fit` gives `fit_site` the site's pages (settings may turn that off)."""
        return self.site_level

    @property
    def fit_reads(self) -> int | None:
        """At most how many pages `fit_site` reads (a method that samples); None: all."""
        return None

    @property
    def fitted(self) -> bool:
        return True

    def check_fitted(self) -> None:
        if not self.fitted:
            raise NotFittedError(f"{self.name}: call fit() on pages of the site first")

    def check_settings(self) -> None:
        """Raise what is wrong with the settings that the constructor does not see (a model
        file the method reads on first use), so a command refuses them before any page."""

    def precheck(self) -> None:
        """`check_settings` for a process that will not clean with this cleaner itself
        (a crawl's or a batch's parent: its workers make the cleaner again and read its
        files whole): a method may check a file more cheaply when what it lets through
        is still refused by the workers' reading of it."""
        self.check_settings()

    def score(self, page: Page) -> NodeScores:
        raise NotImplementedError

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        """Labelled blocks of the page; `noise=False` returns only the content blocks and
        skips their node addresses: faster, for callers that want the main text alone."""
        verdicts = self.score(page)
        blocks = render_blocks(page.root, verdicts, KEEP, noise=noise, with_paths=noise)
        result = Result(blocks, self.name, page.id, page.url, page.site, page.title,
                        verdicts=verdicts)
        if self.needs_browser:
            # (imported here: a process whose methods render nothing never loads the browser)
            from sitesift.browser.chromium import styles_meta

            if (styles := styles_meta(page)) is not None:
                result.meta["styles"] = styles  # laid out with the page's own CSS, or without
        return check_page(page, result)

    def to_state(self) -> dict[str, Any]:
        """The fitted state as plain JSON data (site-level methods override)."""
        return {}

    @classmethod
    def from_state(cls, params: dict[str, Any], state: dict[str, Any]) -> Cleaner:
        return cls(**params)

    def get_params(self) -> dict[str, Any]:
        return {}


class ParamsCleaner(Cleaner, Generic[P]):
    """A cleaner whose settings are one dataclass instance, `params`: what `get_params`
    returns and the model file stores. `cls(params, **overrides)` takes the defaults of
    `params_type`, or `params`, with the named fields replaced."""

    params_type: ClassVar[type[Any]]
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    """A method with a `preset` setting names here what each preset sets
    (`--set preset=paper`): the preset gives the starting values, and any setting given
    beside it wins (`methods.shared.presets`)."""

    def __init__(self, params: P | None = None, **overrides: Any) -> None:
        if params is None and self.presets and "preset" in overrides:
            params = cast("P", self.params_type(
                **preset_settings(self.name, self.presets, overrides["preset"], {})))
        self.params: P = replace(params if params is not None else self.default_params(),
                                 **overrides)

    def default_params(self) -> P:
        return cast("P", self.params_type())

    def get_params(self) -> dict[str, Any]:
        return asdict(self.params)


T = TypeVar("T")


def seeded_sample(items: Sequence[T], size: int, seed: int) -> list[T]:
    """At most `size` of `items`, the same ones for the same seed: a site-level method's
    reproducible fit sample."""
    if len(items) <= size:
        return list(items)
    return random.Random(seed).sample(list(items), size)


WARM_PAGE = "data/sample_site/pages/hg-001.html"


@functools.cache
def warm_bytes() -> bytes:
    """A small page of the bundled sample site (what a worker cleans before its first
    page: `jobs.site.warm`)."""
    from importlib import resources

    return resources.files("sitesift").joinpath(WARM_PAGE).read_bytes()


C = TypeVar("C", bound=type[Cleaner])
_REGISTRY: dict[str, Callable[..., Cleaner]] = {}

_BUILTIN: dict[str, str] = {
    "alltext": "alltext",
    "blockdist": "blockdist",
    "cetr-2d": "cetr",
    "cetr-km": "cetr",
    "cetr-tm": "cetr",
    "cst": "cst",
    "default": "default",
    "ibdf": "ibdf",
    "infodiscoverer": "infodiscoverer",
    "isotonic": "isotonic",
    "isotonic-raw": "isotonic",
    "kmib": "kmib",
    "sst": "sst",
    "template": "template",
    "vips": "vips",
    "vlps": "vlps",
    "vlps-fixed": "vlps",
}
"""The built-in methods: name -> the module of `sitesift.methods` that registers it.

Listing names reads this table and imports nothing; a method's module is imported when the
method is first asked for, so `import sitesift` and `method_names()` stay cheap (no NumPy,
SciPy or scikit-learn: the method modules import those inside their functions).
`tests/test_api.py` checks the table against what the modules register."""


def register(cls: C) -> C:
    """Class decorator: make a cleaner available by its `name`."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    _REGISTRY[cls.name] = cls
    return cls


def _factory(name: str) -> Callable[..., Cleaner]:
    """What makes cleaners of the named method, its module imported on first use."""
    if name not in _REGISTRY and name in _BUILTIN:
        import importlib

        importlib.import_module(f"sitesift.methods.{_BUILTIN[name]}")
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(method_names())
        raise UnknownMethodError(f"unknown method {name!r}; known: {known}") from None


def get_cleaner(name: str, **params: Any) -> Cleaner:
    """A new cleaner of the named method, with `params` as its settings.

    Raises UnknownMethodError for a name no method has, UnknownSettingError (also a
    TypeError) for a setting the method does not have, and SettingsError (also a ValueError)
    for a setting of a bad value; all three are SitesiftErrors."""
    factory = _factory(name)
    try:
        return factory(**params)
    except SitesiftError:
        raise
    except (TypeError, ValueError) as exc:
        raise _settings_error(name, factory, params, exc) from exc


def _settings_error(name: str, factory: Callable[..., Cleaner], params: dict[str, Any],
                    exc: Exception) -> SettingsError:
    known = _setting_names(factory)
    if isinstance(exc, TypeError) and known is not None:
        accepted = {*known, *_keywords(factory)[0]}  # a ParamsCleaner's `params=` too
        unknown = [key for key in params if key not in accepted]
        if unknown:
            return UnknownSettingError(
                f"{name} has no setting {', '.join(map(repr, unknown))}; its settings: "
                f"{', '.join(known) or 'none'}")
    message = str(exc)
    if not message.startswith((f"{name}:", f"{name.split('-')[0]}:")):
        message = f"{name}: {message}"
    return SettingsError(message)


def _setting_names(factory: Callable[..., Any]) -> list[str] | None:
    """The settings a method's cleaners take (its params dataclass's fields, or its
    constructor's keyword arguments), without making one; None where they cannot be told."""
    params_type = getattr(factory, "params_type", None)
    if params_type is not None and is_dataclass(params_type):
        return [f.name for f in fields(params_type)]
    named, any_more = _keywords(factory)
    return None if any_more else named


_DOC_LINE = 160  # the longest line `sitesift methods` shows for a setting


@dataclass(frozen=True, slots=True)
class SettingHelp:
    """One `--set` key of a method, as `sitesift methods NAME` shows it."""

    name: str
    default: Any
    values: str  # what it takes: `precision|balanced|recall`, `a number in (0, 1)`, ...
    doc: str     # one line: the first sentence of its docstring


def settings_help(name: str) -> list[SettingHelp]:
    """Each setting of the named method with its default, its values and one line on what
    it does, all from where the setting is declared: the field of its params dataclass
    (values: the field's `metadata["values"]`, else what its type allows; the line: the
    docstring under the field, else its `metadata["doc"]`, as the default cleaner's rules
    have theirs from the core). A method without such a dataclass shows its defaults."""
    defaults = get_cleaner(name).get_params()
    params_type = getattr(get_class(name), "params_type", None)
    declared = {f.name: f for f in fields(params_type)} if is_dataclass(params_type) else {}
    docs = _field_docs(params_type) if declared else {}
    out = []
    for key, default in defaults.items():
        spec = declared.get(key)
        values = spec.metadata.get("values") if spec is not None else None
        if isinstance(values, tuple | list):
            values = "|".join(map(str, values))
        typed = str(spec.type) if spec is not None else ""
        if values is None:
            values = "true|false" if typed.startswith("bool") else ""
        if "None" in typed.split(" | ")[1:]:
            values = f"{values}, or null" if values else "or null"
        doc = docs.get(key) or (_doc_line(spec.metadata.get("doc", "")) if spec else "")
        out.append(SettingHelp(key, default, str(values), doc))
    return out


def _field_docs(params_type: Any) -> dict[str, str]:
    """Each field's docstring (the string under it in the class body), its first sentence
    on one line; {} where the source cannot be read."""
    import ast
    import inspect
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(params_type)))
    except (OSError, TypeError, SyntaxError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs = {}
    for stmt, after in itertools.pairwise(body):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) \
                and isinstance(after.value.value, str):
            docs[stmt.target.id] = _doc_line(after.value.value)
    return docs


def _doc_line(doc: str) -> str:
    """A setting's doc as one line: its first sentence, cut to `_DOC_LINE`."""
    line = " ".join(doc.split())
    line = re.split(r"(?<=[.!?:])\s(?=[A-Z(`\"])", line, maxsplit=1)[0]
    return line if len(line) <= _DOC_LINE else line[:_DOC_LINE - 4].rsplit(" ", 1)[0] + " ..."


def _keywords(factory: Callable[..., Any]) -> tuple[list[str], bool]:
    """The keyword arguments `factory` names, and whether it may take others (`**kwargs`,
    or a signature that cannot be read)."""
    import inspect

    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return [], True
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return ([n for n, p in signature.parameters.items() if p.kind in kinds],
            any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()))


def get_class(name: str) -> type[Cleaner]:
    """The class of the named method's cleaners (making none: nothing is loaded)."""
    factory = _factory(name)
    if isinstance(factory, type):
        return factory
    return type(factory())


def method_names() -> list[str]:
    """Every method's name, sorted: the built-in ones and any registered since."""
    return sorted(set(_BUILTIN) | set(_REGISTRY))


def _load_builtin_methods() -> None:
    """Import every built-in method's module (each registers its cleaners): for a worker
    that should hold them before it starts, and for the check of `_BUILTIN`."""
    import importlib

    for module in sorted(set(_BUILTIN.values())):
        importlib.import_module(f"sitesift.methods.{module}")
