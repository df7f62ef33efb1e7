"""sitesift: remove navigation, ads, headers, footers and site templates from web pages.

    import sitesift
    result = sitesift.clean(html)               # str, bytes or a Page: text, markdown, blocks
    model = sitesift.fit_site(pages)            # a Site Style Tree from many pages of a site
    result = model.clean(page)
    sitesift.save_model(model, "site.json.gz")  # and sitesift.load_model(path)

Importing sitesift loads no NumPy, SciPy or scikit-learn: a method's module, and what it
needs, is imported when the method is first used. The names below are imported on first
use too (PEP 562): a process that needs one submodule (a crawl's ingest worker, which reads
WARCs and spills pages, imports `sitesift.io.ingest`, and so this package first) does not
pay for the API, the DOM and the method registry (~0.1 s of CPU a process).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from sitesift.api import clean, fit_site, load_model, save_model
    from sitesift.errors import (
        InputError,
        ModelError,
        NotFittedError,
        SettingsError,
        SitesiftError,
        UnknownMethodError,
        UnknownSettingError,
    )
    from sitesift.methods.base import Cleaner, get_cleaner, method_names
    from sitesift.page import Page
    from sitesift.result import Block, Result

# Each public name and the module that defines it.
_WHERE = {
    **dict.fromkeys(("clean", "fit_site", "load_model", "save_model"), "sitesift.api"),
    **dict.fromkeys(("InputError", "ModelError", "NotFittedError", "SettingsError",
                     "SitesiftError", "UnknownMethodError", "UnknownSettingError"),
                    "sitesift.errors"),
    **dict.fromkeys(("Cleaner", "get_cleaner", "method_names"), "sitesift.methods.base"),
    "Page": "sitesift.page",
    **dict.fromkeys(("Block", "Result"), "sitesift.result"),
}

__all__ = [
    "Block", "Cleaner", "InputError", "ModelError", "NotFittedError", "Page", "Result",
    "SettingsError", "SitesiftError", "UnknownMethodError", "UnknownSettingError",
    "__version__", "clean", "fit_site", "get_cleaner", "load_model", "method_names",
    "save_model",
]


def __getattr__(name: str) -> Any:
    """A public name, its module imported now (and the name kept, so this runs once)."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'sitesift' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
