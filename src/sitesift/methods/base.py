"""The interface every method shares, and the registry of method names.

`fit(pages)` learns from pages of one site (page-level methods learn nothing),
`score(page)` returns verdicts on DOM nodes, `clean(page)` renders them into a Result.
The CLI, the evaluation and the batch jobs only ever see this interface.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from sitesift.errors import NotFittedError, UnknownMethodError
from sitesift.extract import KEEP, Verdict, render_blocks
from sitesift.page import Page
from sitesift.result import Result

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

P = TypeVar("P", bound="DataclassInstance")

NodeScores = dict[int, Verdict]
"""Verdicts keyed by DomNode.nid; a verdict covers the node's subtree."""


class Cleaner:
    """Base class: subclasses set `name`, `site_level`, and implement `score`."""

    name: ClassVar[str] = ""
    site_level: ClassVar[bool] = False
    needs_browser: ClassVar[bool] = False  # renders pages in Chromium (sitesift.render)

    def fit(self, pages: Sequence[Page]) -> Cleaner:
        """Learn from pages of one site. Page-level methods learn nothing."""
        return self

    @property
    def fitted(self) -> bool:
        return True

    def check_fitted(self) -> None:
        if not self.fitted:
            raise NotFittedError(f"{self.name}: call fit() on pages of the site first")

    def score(self, page: Page) -> NodeScores:
        raise NotImplementedError

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        """Labelled blocks of the page; `noise=False` returns only the content blocks and
        skips their node addresses: faster, for callers that want the main text alone."""
        verdicts = self.score(page)
        blocks = render_blocks(page.root, verdicts, KEEP, noise=noise, with_paths=noise)
        return Result(blocks, self.name, page.id, page.url, page.site, page.title)

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

    def __init__(self, params: P | None = None, **overrides: Any) -> None:
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


C = TypeVar("C", bound=type[Cleaner])
_REGISTRY: dict[str, Callable[..., Cleaner]] = {}


def register(cls: C) -> C:
    """Class decorator: make a cleaner available by its `name`."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    _REGISTRY[cls.name] = cls
    return cls


def get_cleaner(name: str, **params: Any) -> Cleaner:
    """A new cleaner of the named method."""
    _load_builtin_methods()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownMethodError(f"unknown method {name!r}; known: {known}") from None
    return factory(**params)


def get_class(name: str) -> type[Cleaner]:
    cleaner = get_cleaner(name)
    return type(cleaner)


def method_names() -> list[str]:
    _load_builtin_methods()
    return sorted(_REGISTRY)


def _load_builtin_methods() -> None:
    """Import every module of `sitesift.methods` once, so each registers its cleaners.

    Done on first use, not at package import, so `import sitesift` stays cheap; method
    modules import heavy libraries (scikit-learn, SciPy) inside their functions."""
    if _LOADED:
        return
    import importlib
    import pkgutil

    import sitesift.methods as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name != "base":
            importlib.import_module(f"sitesift.methods.{info.name}")
    _LOADED.append(True)


_LOADED: list[bool] = []
