"""`sitesift articles`: ContentExtractor's detection of the same article across sites.

Each site's pages are fitted by their own IBDF model, and pages of different sites whose
content blocks match (`sitesift.methods.ibdf_articles`) are one article. What is written:
`articles.jsonl` (one group of same-article pages a line) and `errors.jsonl` (a page that
could not be read, a site too small to fit: one record each, never silently dropped).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitesift.cli.common import (
    OK,
    SOME_FAILED,
    add_quiet,
    expand_inputs,
    fail,
    holding,
    numbered,
    out_folder,
)
from sitesift.cli.settings import checked_cleaner, parse_set

if TYPE_CHECKING:
    from sitesift.jobs.source import Source
    from sitesift.methods.ibdf import IBDFCleaner
    from sitesift.page import Page

COMMAND = "articles"
SITE_FROM = ("input", "url")
MIN_SITE_PAGES = 2
"""IBDF tells a site's repeated blocks from its content on two pages or more: on one page
every block is unique (IBDF 1), so the whole page, template included, would be compared."""


def add_parsers(sub: Any, methods: list[str]) -> None:
    p = sub.add_parser(COMMAND, help="the same article on several sites: IBDF fitted per "
                                     "site, pages grouped by their content blocks "
                                     "(ContentExtractor, Debnath et al. 2005)")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="folders of pages, dataset folders or page files")
    p.add_argument("--out", required=True, help="folder for articles.jsonl and errors.jsonl")
    p.add_argument("--sites", default="input", choices=SITE_FROM,
                   help="what a site is: each INPUT (default), or the pages' URL sites")
    p.add_argument("--similarity", type=float, default=None, metavar="COS",
                   help="cosine of two pages' content vectors from which they hold the same "
                        "article, in (0, 1] (default 0.8, ibdf_articles.ARTICLE_SIMILARITY)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="an IBDF setting (`sitesift methods ibdf`), e.g. preset=paper")
    add_quiet(p)
    p.set_defaults(func=cmd_articles)


@dataclass(slots=True)
class Sites:
    """The pages read per site, and the error records of what could not take part."""

    pages: dict[str, list[Page]] = field(default_factory=dict)
    where: dict[str, dict[str, Any]] = field(default_factory=dict)  # page id -> record
    errors: list[dict[str, Any]] = field(default_factory=list)


def cmd_articles(args: argparse.Namespace) -> int:
    from sitesift.methods.ibdf_articles import ARTICLE_SIMILARITY

    # every setting is checked before a page is read
    similarity = ARTICLE_SIMILARITY if args.similarity is None else args.similarity
    if not 0.0 < similarity <= 1.0:
        raise fail(COMMAND, f"--similarity must be in (0, 1], got {similarity}")
    params = parse_set(args.set, command=COMMAND)
    checked_cleaner(COMMAND, "ibdf", params)
    inputs = expand_inputs(COMMAND, args.inputs)
    if args.sites == "input" and len(inputs) < 2:
        raise fail(COMMAND, "give two or more INPUTs (one per site), or --sites url for "
                            "pages of several sites in one input")
    out = out_folder(COMMAND, args.out)
    with holding(out, COMMAND):
        sites = read_sites(inputs, args.sites)
        groups = find_articles(sites, params, similarity)
        write(out, groups, sites)
    pages = sum(len(p) for p in sites.pages.values())
    print(f"sitesift articles: {pages} pages in {len(sites.pages)} sites; articles on two "
          f"or more sites: {len(groups)} ({sum(len(g) for g in groups)} pages); errors: "
          f"{len(sites.errors)} -> {out}", file=sys.stderr)
    return SOME_FAILED if sites.errors else OK


def read_sites(inputs: list[str], site_from: str) -> Sites:
    """Each input's pages, by site: the input itself (`input`) or the URL site (`url`).
    Page ids are made distinct across inputs (`name~2`), so each names one page."""
    from sitesift.errors import InputError
    from sitesift.inputs import collect_sources

    sites = Sites()
    taken: set[str] = set()
    for value in inputs:
        try:
            found = collect_sources(Path(value), "site")
        except (InputError, OSError) as exc:
            sites.errors.append({"input": value, "error": str(exc)})
            continue
        for group, members in found.items():
            site = _site_name(value, inputs) if site_from == "input" else group
            for source in members:
                source = replace(source, id=numbered(source.id, taken))
                taken.add(source.id)
                _load(sites, site, value, source)
    _drop_small(sites)
    return sites


def _site_name(value: str, inputs: list[str]) -> str:
    """An input's site name: its path as given (two inputs are two sites even when their
    folders share a name)."""
    return value if inputs.count(value) == 1 else f"{value}#{inputs.index(value)}"


def _load(sites: Sites, site: str, value: str, source: Source) -> None:
    from sitesift.errors import SitesiftError

    record = {"id": source.id, "site": site, "input": value}
    if source.row.get("url"):
        record["url"] = source.row["url"]
    try:
        page = source.load()
        _ = page.root  # parsed here: a page without a body is its own error, not its site's
    except (SitesiftError, OSError, ValueError) as exc:
        sites.errors.append({**record, "error": str(exc)})
        return
    page.id = source.id  # a dataset row keeps its own id; this one is distinct
    sites.pages.setdefault(site, []).append(page)
    sites.where[source.id] = record


def _drop_small(sites: Sites) -> None:
    for site, pages in list(sites.pages.items()):
        if len(pages) >= MIN_SITE_PAGES:
            continue
        del sites.pages[site]
        for page in pages:
            record = sites.where.pop(str(page.id))
            sites.errors.append({**record, "error": (
                f"site {site} has {len(pages)} readable page(s): IBDF needs "
                f"{MIN_SITE_PAGES} or more to tell its template from its content")})


def find_articles(sites: Sites, params: dict[str, Any], similarity: float
                  ) -> list[list[str]]:
    """Groups of page ids holding the same article (`ibdf_articles.same_articles`), each
    site fitted by its own IBDF model; a site whose fit fails gives error records."""
    from sitesift.methods.ibdf import IBDFCleaner
    from sitesift.methods.ibdf_articles import same_articles

    fitted: dict[str, tuple[IBDFCleaner, list[Page]]] = {}
    for site, pages in sites.pages.items():
        try:
            with warnings.catch_warnings():  # a small site's weak fit is no error here
                warnings.simplefilter("ignore")
                model = IBDFCleaner(**params)
                model.fit(pages)
        except (ValueError, RuntimeError) as exc:
            sites.errors += [{**sites.where.pop(str(p.id)), "error": f"fit: {exc}"}
                             for p in pages]
            continue
        fitted[site] = (model, pages)
    sites.pages = {s: p for s, (_, p) in fitted.items()}
    return same_articles(fitted, similarity)


def write(out: Path, groups: list[list[str]], sites: Sites) -> None:
    import json

    with open(out / "articles.jsonl", "w", encoding="utf-8") as fh:
        for n, ids in enumerate(groups, 1):
            pages = [sites.where[i] for i in ids]
            fh.write(json.dumps({"article": n, "sites": len({p["site"] for p in pages}),
                                 "pages": pages}, ensure_ascii=False) + "\n")
    with open(out / "errors.jsonl", "w", encoding="utf-8") as fh:
        for record in sites.errors:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
