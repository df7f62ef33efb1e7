"""A folder of fitted site models, reused by later crawls: one validated JSON file per
(site, method), written and read by `sitesift.model_io` (never pickle)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.model_io import load_model, save_model

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def site_file(site: str) -> str:
    """A file name for a site: readable, and unique through a hash of the full key."""
    readable = _UNSAFE.sub("_", site)[:60].strip("._") or "site"
    return f"{readable}-{hashlib.sha1(site.encode('utf-8')).hexdigest()[:12]}"


class ModelStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, site: str, method: str) -> Path:
        return self.root / f"{site_file(site)}.{method}.json.gz"

    def load(self, site: str, method: str, params: dict[str, Any]) -> Cleaner | None:
        """The stored model of the site, if there is one fitted with these parameters.
        A damaged file raises ModelError (naming it); the caller refits."""
        path = self.path(site, method)
        if not path.is_file():
            return None
        cleaner = load_model(path)
        wanted = get_cleaner(method, **params)
        if cleaner.name != method or cleaner.get_params() != wanted.get_params():
            return None
        return cleaner

    def save(self, site: str, cleaner: Cleaner) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        return save_model(cleaner, self.path(site, cleaner.name))
