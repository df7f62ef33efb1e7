"""sitesift: remove navigation, ads, headers, footers and site templates from web pages.

    import sitesift
    model = sitesift.fit_site(pages)            # a Site Style Tree from many pages of a site
    result = model.clean(page)                  # main text, markdown, HTML, labelled blocks
"""

from __future__ import annotations

__version__ = "0.1.0"

from sitesift.errors import (
    InputError,
    ModelError,
    NotFittedError,
    SitesiftError,
    UnknownMethodError,
)
from sitesift.methods.base import Cleaner, get_cleaner, method_names
from sitesift.page import Page
from sitesift.result import Block, Result


def fit_site(pages: list[Page], method: str = "sst", **params: object) -> Cleaner:
    """Fit a site-level cleaner on pages of one site."""
    return get_cleaner(method, **params).fit(pages)


def load_model(path: str) -> Cleaner:
    from sitesift.model_io import load_model as _load

    return _load(path)


__all__ = [
    "Block", "Cleaner", "InputError", "ModelError", "NotFittedError", "Page", "Result",
    "SitesiftError", "UnknownMethodError", "__version__", "fit_site", "get_cleaner",
    "load_model", "method_names",
]
