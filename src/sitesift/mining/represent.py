"""Page representations: each page cleaned once per method, cached, and made a bag of words.

A representation is `raw` (the HTML source as decoded text, markup and all, without the
saved HTTP header), or a registered method: `alltext` (all visible text), a cleaner's
kept text, or for `cst` the compressed structure tree's weighted term frequencies (the
paper weights words instead of cutting blocks). Site-level methods are fitted per site
group on all of the site's pages; a site with fewer than `min_site_pages` readable pages
cannot show a template, so its pages get all visible text instead (counted as fallback).

Cleaning is the expensive part, so every (representation, site group) is cleaned once
and stored as gzipped JSON under the cache folder, keyed by the method's parameters and
the group's page ids; a rerun with the same settings only reads the cache.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitesift.datasets import read_page_bytes
from sitesift.decode import decode_html
from sitesift.errors import InputError, reason_of
from sitesift.methods.base import Cleaner, get_cleaner, method_names
from sitesift.mining.corpus import SiteGroup
from sitesift.page import Page
from sitesift.text import TOKEN, stop_words

RAW = "raw"
WEIGHTED = frozenset({"cst"})
"""Representations given as weighted term frequencies rather than text."""
PAGE_LEVEL = ("cetr-tm", "cetr-km", "cetr-2d", "kmib", "blockdist")
"""The page-level cleaners; the experiments run them all and name the best."""
DEFAULT = ("raw", "alltext", "template", "sst", "cst", "infodiscoverer", "ibdf", *PAGE_LEVEL)
CACHE_VERSION = 1

DESCRIPTIONS = {
    "raw": "raw HTML source text (markup included, HTTP header cut)",
    "alltext": "all visible text",
    "template": "template method (Bar-Yossef & Rajagopalan), fitted per site",
    "sst": "Site Style Tree cleaning, fitted per site",
    "cst": "CST feature weighting (weighted vectors), fitted per site",
    "infodiscoverer": "InfoDiscoverer cleaning, fitted per site",
    "ibdf": "IBDF / ContentExtractor cleaning, fitted per site",
    "cetr-tm": "CETR threshold (page-level)",
    "cetr-km": "CETR k-means (page-level)",
    "cetr-2d": "CETR 2-D (page-level)",
    "kmib": "WISDOM k-maximum informative blocks (page-level)",
    "blockdist": "block distribution (page-level)",
}

PRESET_MARK = "@"
"""`sst@paper`: the method with one of its presets (`--set preset=paper`), so one run can
hold a method both as we default it and as its paper describes it."""


def split_rep(name: str) -> tuple[str, dict[str, Any]]:
    """A representation's method and settings: `sst` -> (sst, {}), `sst@paper` ->
    (sst, {"preset": "paper"})."""
    method, mark, preset = name.partition(PRESET_MARK)
    return method, ({"preset": preset} if mark else {})


def cleaner_of(name: str) -> Cleaner:
    method, params = split_rep(name)
    return get_cleaner(method, **params)


Entry = str | dict[str, float]
"""A page's cleaned text, or its weighted term frequencies."""


def check_representations(names: Iterable[str]) -> list[str]:
    """Known, distinct, browser-free representation names, in the given order; a
    `method@preset` name must name one of the method's presets."""
    from sitesift.methods.base import get_class

    out: list[str] = []
    known = method_names()
    for name in names:
        if name in out:
            raise InputError(f"representation {name!r} is listed twice")
        method = split_rep(name)[0]
        if name != RAW:
            if method not in known:
                raise InputError(f"unknown representation {name!r}; known: raw, "
                                 + ", ".join(known) + f" (a method{PRESET_MARK}PRESET too)")
            if get_class(method).needs_browser:
                raise InputError(f"{name} renders pages in a browser; `sitesift mine` runs "
                                 "only methods that read the HTML")
            try:
                cleaner_of(name)
            except Exception as exc:  # an unknown preset: the method's own message
                raise InputError(f"representation {name!r}: {exc}") from None
        out.append(name)
    if not out:
        raise InputError("no representations to compare")
    return out


def is_site_level(name: str) -> bool:
    if name == RAW:
        return False
    from sitesift.methods.base import get_class

    return get_class(split_rep(name)[0]).site_level


def describe(name: str) -> str:
    method, params = split_rep(name)
    what = DESCRIPTIONS.get(method) or (
        f"{method} ({'site' if is_site_level(name) else 'page'}-level)")
    return what + (f", preset={params['preset']}" if params else "")


# ---------------------------------------------------------------- bags of words

def keep_word(word: str) -> bool:
    """The one word filter of every representation: alphabetic, 2-30 letters, not an
    English stop word (numbers, dates and hashes are left out everywhere alike)."""
    return 2 <= len(word) <= 30 and word.isalpha() and word not in stop_words()


def bag(entry: Entry | None) -> dict[str, float]:
    """Term frequencies of a cached entry (a missing entry is an empty page)."""
    if entry is None:
        return {}
    if isinstance(entry, str):
        counts = Counter(w for w in TOKEN.findall(entry.lower()) if keep_word(w))
        return {w: float(n) for w, n in counts.items()}
    return {w: float(v) for w, v in entry.items() if v > 0 and keep_word(w)}


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


# ---------------------------------------------------------------- cleaning with a cache

@dataclass(slots=True)
class GroupClean:
    """One representation of one site group: entries by page id, and what went wrong."""

    rep: str
    group: str
    key: str
    entries: dict[str, Entry] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    fallback: bool = False     # too few pages for a site model: all visible text instead
    cpu_s: float = 0.0         # CPU seconds to parse, fit and clean (process time)
    fit_pages: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"version": CACHE_VERSION, "rep": self.rep, "group": self.group,
                "key": self.key, "fallback": self.fallback, "cpu_s": round(self.cpu_s, 4),
                "fit_pages": self.fit_pages, "errors": self.errors, "entries": self.entries}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GroupClean:
        return cls(data["rep"], data["group"], data["key"], data["entries"], data["errors"],
                   bool(data["fallback"]), float(data["cpu_s"]), int(data["fit_pages"]))


def method_params(rep: str) -> dict[str, Any]:
    return {} if rep == RAW else cleaner_of(rep).get_params()


def cache_key(rep: str, group: SiteGroup, min_site_pages: int, dataset: Path) -> str:
    """What a cached group depends on: method, parameters, the pages fitted and cleaned."""
    payload = {
        "version": CACHE_VERSION, "rep": rep, "params": method_params(rep),
        "min_site_pages": min_site_pages if is_site_level(rep) else None,
        "dataset": str(Path(dataset).resolve()),
        "fit": sorted(group.fit_ids) if is_site_level(rep) else None,
        "targets": sorted(group.target_ids),
    }
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:20]


def cache_path(cache_dir: Path, rep: str, group: str) -> Path:
    digest = hashlib.sha1(group.encode()).hexdigest()[:8]  # names that differ by case or
    return Path(cache_dir) / rep / f"{_SAFE.sub('_', group)[:60]}-{digest}.json.gz"  # symbol


def read_cached(cache_dir: Path, rep: str, group: str, key: str) -> GroupClean | None:
    """The cached group if its key matches (else None: it must be cleaned again)."""
    path = cache_path(cache_dir, rep, group)
    if not path.is_file():
        return None
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, EOFError, json.JSONDecodeError):
        return None  # a torn or foreign file: clean again and overwrite it
    if not isinstance(data, dict) or data.get("key") != key or data.get("version") != \
            CACHE_VERSION:
        return None
    return GroupClean.from_json(data)


def write_cached(cache_dir: Path, result: GroupClean) -> None:
    path = cache_path(cache_dir, result.rep, result.group)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=6) as fh:
        json.dump(result.to_json(), fh, ensure_ascii=False)
    os.replace(tmp, path)  # atomic: a killed run leaves no half-written cache entry


@dataclass(frozen=True, slots=True)
class GroupTask:
    """A site group and the representations it still needs (the worker's input)."""

    dataset: str
    group: SiteGroup
    rows: dict[str, dict[str, Any]]  # the group's rows
    reps: tuple[tuple[str, str], ...]  # (representation, cache key)
    min_site_pages: int
    cache_dir: str


def clean_task(task: GroupTask) -> list[GroupClean]:
    """Clean one site group in every representation it needs and cache each result.
    Runs in a worker process; page errors become records, never exceptions."""
    root = Path(task.dataset)
    group = task.group
    needs_fit = any(is_site_level(rep) for rep, _ in task.reps)
    read_ids = group.fit_ids if needs_fit else group.target_ids
    data: dict[str, bytes] = {}
    read_errors: dict[str, str] = {}
    for page_id in read_ids:
        try:
            data[page_id] = read_page_bytes(root, task.rows[page_id])
        except Exception as exc:  # recorded per page: the batch edge
            read_errors[page_id] = reason_of(exc)
    done = []
    for rep, key in task.reps:
        start = time.process_time()
        result = GroupClean(rep, group.name, key)
        for page_id in group.target_ids:
            if page_id in read_errors:
                result.errors[page_id] = read_errors[page_id]
        if rep == RAW:
            _clean_raw(task, data, result)
        else:
            _clean_method(task, data, result)
        result.cpu_s = time.process_time() - start
        write_cached(Path(task.cache_dir), result)
        done.append(result)
    return done


def _clean_raw(task: GroupTask, data: dict[str, bytes], result: GroupClean) -> None:
    for page_id in task.group.target_ids:
        if page_id not in data:
            continue
        try:
            ctype = task.rows[page_id].get("http_content_type")
            result.entries[page_id] = decode_html(data[page_id], ctype).text
        except Exception as exc:
            result.errors[page_id] = reason_of(exc)


def _load(task: GroupTask, data: dict[str, bytes], ids: Iterable[str],
          errors: dict[str, str] | None) -> dict[str, Page]:
    """Parse pages afresh (every method gets its own trees); failures go to `errors`."""
    pages = {}
    for page_id in ids:
        if page_id not in data:
            continue
        row = task.rows[page_id]
        try:
            page = Page.from_bytes(data[page_id], url=row.get("url"), site=row.get("site"),
                                   id=page_id, content_type=row.get("http_content_type"))
            page.meta.update(row)
            # parsed here, since a Page parses lazily: a page without a body must be its
            # own error, not fail the fit of its whole site group
            _ = page.root
            pages[page_id] = page
        except Exception as exc:
            if errors is not None:
                errors[page_id] = reason_of(exc)
    return pages


def _clean_method(task: GroupTask, data: dict[str, bytes], result: GroupClean) -> None:
    group = task.group
    cleaner = cleaner_of(result.rep)
    targets = set(group.target_ids)
    if cleaner.site_level:
        fit_pages = _load(task, data, group.fit_ids, None)
        result.fit_pages = len(fit_pages)
        pages = {i: p for i, p in fit_pages.items() if i in targets}
        _note_load_errors(task, data, pages, result)
        if len(fit_pages) < task.min_site_pages:
            result.fallback = True
            cleaner = get_cleaner("alltext")
        else:
            try:
                cleaner.fit(list(fit_pages.values()))
            except Exception as exc:  # the whole group fails, each page says why
                for page_id in pages:
                    result.errors[page_id] = f"fitting {result.rep} failed: {reason_of(exc)}"
                return
    else:
        pages = _load(task, data, group.target_ids, result.errors)
    weighted = split_rep(result.rep)[0] in WEIGHTED and not result.fallback
    for page_id, page in pages.items():
        try:
            if weighted:
                counts = cleaner.page_counts(page)  # type: ignore[attr-defined]
                result.entries[page_id] = {w: round(v, 4) for w, v in counts.items()}
            else:
                result.entries[page_id] = cleaner.clean(page, noise=False).text
        except Exception as exc:
            result.errors[page_id] = reason_of(exc)


def _note_load_errors(task: GroupTask, data: dict[str, bytes], loaded: dict[str, Page],
                      result: GroupClean) -> None:
    """Target pages read but not parsed: parse once more for the reason."""
    for page_id in task.group.target_ids:
        if page_id in data and page_id not in loaded:
            _load(task, data, [page_id], result.errors)
