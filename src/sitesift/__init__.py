"""sitesift: remove navigation, ads, headers, footers and site templates from web pages.

    import sitesift
    result = sitesift.clean(html)               # str, bytes or a Page: text, markdown, blocks
    model = sitesift.fit_site(pages)            # a Site Style Tree from many pages of a site
    result = model.clean(page)
    sitesift.save_model(model, "site.json.gz")  # and sitesift.load_model(path)

Importing sitesift loads no NumPy, SciPy or scikit-learn: a method's module, and what it
needs, is imported when the method is first used.
"""

from __future__ import annotations

__version__ = "0.1.0"

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

__all__ = [
    "Block", "Cleaner", "InputError", "ModelError", "NotFittedError", "Page", "Result",
    "SettingsError", "SitesiftError", "UnknownMethodError", "UnknownSettingError",
    "__version__", "clean", "fit_site", "get_cleaner", "load_model", "method_names",
    "save_model",
]
