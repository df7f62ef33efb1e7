"""How a site task gets its model and cleans its pages: one `SitePolicy` for every job.

`clean`, `fit`, `evaluate` and `bench` fit a site-level method on every readable page of a
group (or load a model file; `folds` > 1 holds each fold out of its own model; `save` fits
and writes the model instead of cleaning). The crawl fits on a reproducible sample, reuses
a model store, and lets its fallback clean the sites it cannot fit. Both are this object.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sitesift.methods.base import Cleaner, get_class, get_cleaner
from sitesift.output import BLOCKS, Output

if TYPE_CHECKING:
    from sitesift.jobs.outcome import Outcome

Pack = Callable[["Outcome", str], dict[str, Any]]
"""A cleaned page as its job writes it: from its Outcome (with its Result) and site."""

# Pages larger than this are cleaned but not fitted on (in every job): a template is learnt
# from ordinary pages, and one giant page (a 9 MB page costs ~350 MB of tree) could cost the
# whole site its model through the fit's time or memory limit.
FIT_MAX_BYTES = 4 * 1024 * 1024
FALLBACK = "default"
"""The cleaner of a page that a fitted site model emptied (`sitesift.weak.emptied`: it read
the whole page as template): a method that cleans a page alone. The crawl's is its
`fallback` setting, which also cleans its sites too small to fit."""


@dataclass(frozen=True, slots=True)
class SitePolicy:
    """What a site task computes: the method and its settings, where its model comes from,
    what each result carries, and what cleans the pages a site model cannot."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)
    model: str | None = None  # a model file to clean with instead of fitting
    output: Output = BLOCKS  # what each result carries (sitesift.output)
    folds: int = 1  # > 1: each page cleaned by a model fitted on the other folds
    save: str | None = None  # fit mode: fit on every readable page, write it here, clean none
    fallback: str | None = FALLBACK  # cleans the pages a site model empties (None: nobody)
    # The fallback also cleans, unfitted, the sites that get no model (too few pages, no
    # URL, a failed fit): the crawl. Otherwise their pages are error records.
    fallback_sites: bool = False
    # `--fallback-below X`: a page whose confidence (`Result.confidence`) is under X is
    # cleaned again by the fallback, which the record then names (`jobs.page.clean_source`)
    fallback_below: float | None = None
    min_site_pages: int = 1  # with fallback_sites: fewer readable pages, no fit
    fit_sample: int | None = None  # pages fitted on, drawn reproducibly (None: every page)
    seed: int = 0
    never_fit: str | None = None  # a site name never fitted (the crawl's pages without URL)
    store: str | None = None  # a model store folder (sitesift.io.models), reused across runs
    refit: bool = False  # fit even where the store has a model
    # Each result leaves the site task as `pack(outcome, site)` makes it where the page was
    # cleaned, not as the Result with its blocks (None: the Result): the crawl's record
    # (`io.records.outcome_record`), the body of `clean -o DIR`'s file
    # (`output.file_record`). A module-level function or a partial of one, as a policy
    # crosses to the workers pickled.
    pack: Pack | None = None

    def sample(self, site: str, pages: int) -> list[int]:
        """The pages a site's model is fitted on."""
        if self.fit_sample is None:
            return list(range(pages))
        return sample_pages(site, pages, self.fit_sample, self.seed)

    def fallback_cleaner(self) -> Cleaner:
        return fallback_cleaner(self.fallback or FALLBACK, self.method, self.params)


def check_fallback_below(below: Any, method: str, fallback: str | None) -> float:
    """`--fallback-below X` checked: X a number in [0, 1], and a fallback other than the
    method (whose results must carry a confidence to be routed); a ValueError says what
    is wrong."""
    if isinstance(below, bool) or not isinstance(below, int | float) \
            or not 0.0 <= float(below) <= 1.0:
        raise ValueError(f"--fallback-below must be a number in [0, 1], got {below!r}")
    if fallback is None or fallback == method:
        raise ValueError("--fallback-below needs a --fallback method other than the method "
                         f"({method}) to send the doubtful pages to")
    if not get_class(method).gives_confidence:
        raise ValueError(f"--fallback-below: the method {method} gives no confidence "
                         "(only default does)")
    return float(below)


def sample_pages(site: str, pages: int, k: int, seed: int) -> list[int]:
    """The page numbers a site's model is fitted on: the same for the same site and seed
    on every machine (a string seed is hashed with SHA-512, not Python's salted hash)."""
    if pages <= k:
        return list(range(pages))
    return sorted(random.Random(f"{seed}:{site}").sample(range(pages), k))


def fallback_cleaner(name: str, method: str, params: dict[str, Any]) -> Cleaner:
    """A new, unfitted `name` cleaner: with `params` when it is `method` itself (`default`
    cleaning a page alone keeps the settings it has on the site), with its defaults
    otherwise (another method's settings are not its own)."""
    return get_cleaner(name, **(params if name == method else {}))
