"""The page type of every result: WCXB's seven (article, collection, documentation, forum,
listing, product, service) and the probability of the one given, from a small model over
page-level evidence the native core reads while it prepares a page (`native/src/model/page_type/`:
the URL's conventions, the title's words, `og:type` and JSON-LD types, counts of forms,
prices, code and repeated items, the blocks' text and link text).

The model is one gradient-boosted forest per type in a sealed JSON file (never pickle:
`sitesift.sealed`'s format), evaluated by the core's forest evaluator (`forest.rs`), the one the
default cleaner's forests use. `training/page_type.py` trains it; docs/page-type.md has its
figures. The default cleaner reads the evidence from the page it cleans (nearly free); a
result of any other method gets it from one more read of the page's HTML by the core
(`output.finish`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sitesift.errors import InputError, ModelError
from sitesift.sealed import Kind, check_writer, file_reader, read_document

FORMAT = "sitesift-page-type"
FORMAT_VERSION = 1
MAX_BYTES = 64 * 1024 * 1024
PAGE_TYPE_MODEL = Kind(FORMAT, "a sitesift page-type model", FORMAT_VERSION, {})
DEFAULT_MODEL = Path(__file__).with_name("data") / "page-type-v1.json.gz"
ENV = "SITESIFT_PAGE_TYPE_MODEL"
"""A page-type model file to use instead of the bundled one."""

def names() -> tuple[list[str], list[str]]:
    """(the evidence's feature names, the types in the order of a model's forests)."""
    from sitesift.native import core

    features, types = core().page_type_names()
    return list(features), list(types)


def model_path() -> Path:
    return Path(os.environ.get(ENV) or DEFAULT_MODEL)


_IN_USE: dict[str, Any] = {}


def typer() -> Any:
    """The page-type model in use (`_native.PageTyper`), read once per process and model
    path (`$SITESIFT_PAGE_TYPE_MODEL`, else the bundled file): a page pays a dict lookup,
    not a `stat` of the file (which cost more than the model's own evaluation)."""
    name = os.environ.get(ENV) or ""
    held = _IN_USE.get(name)
    if held is None:
        held = _IN_USE[name] = load(model_path())
    return held


def _load(path: Path) -> Any:
    from sitesift.extractor.forest import raw_forest
    from sitesift.native import core

    doc = read_document(path, MAX_BYTES, PAGE_TYPE_MODEL)
    features, types = names()
    if doc.get("features") != features:
        raise ModelError("its features are not this sitesift's page-type features "
                         "(retrain it: python -m sitesift.training.page_type)")
    if doc.get("types") != types:
        raise ModelError(f"its types {doc.get('types')!r} are not {types!r}")
    meta = doc.get("meta")
    check_writer(meta.get("sitesift_version") if isinstance(meta, dict) else None, path)
    forests = doc.get("forests")
    if not isinstance(forests, list) or len(forests) != len(types):
        raise ModelError(f"'forests' must be a list of {len(types)} forests, one per type")
    try:
        return core().PageTyper([raw_forest(f) for f in forests])
    except (TypeError, ValueError, OverflowError) as exc:
        raise ModelError(f"bad forest: {exc}") from None


load = file_reader("page-type model", _load)
"""A page-type model file, checked (its seal, format, version, features and types, and
every forest's arrays by the core); every problem is a ModelError naming the file."""


def classify(npage: Any) -> tuple[str, float]:
    """(the page's type, its probability rounded to 4 places) of a page the core read
    (`_native.Page`)."""
    kind, score = typer().classify(npage)
    return str(kind), round(float(score), 4)


def classify_page(page: Any) -> tuple[str, float]:
    """The type of a `sitesift.page.Page` no core reading of which is at hand: the core
    reads its HTML once more (parse, visible tree, blocks; no model), the cost a method
    other than the default pays for it."""
    from sitesift.native import read

    try:
        npage = read(page.markup, page.url, cut_title=page.cut_title)
    except ValueError as exc:
        raise InputError(f"{page.name}: {exc}") from None
    return classify(npage)


__all__ = ["DEFAULT_MODEL", "ENV", "FORMAT", "FORMAT_VERSION", "PAGE_TYPE_MODEL", "classify",
           "classify_page", "load", "model_path", "names", "typer"]
