"""ContentExtractor's detection of the same article across sites (Debnath et al., TKDE
2005, as seed 001 describes it): "news articles written by global news agencies appear in
many newspapers ... these copies differ only in their non-content blocks, so by separating
non-content blocks from content blocks these same copies can be identified. As only unique
articles are returned this will improve search results."

Each site is cleaned by its own fitted IBDF model (`IBDFCleaner.content_vector`: the
features of a page's content blocks); two pages of different sites hold the same article
when the cosine of those vectors reaches `similarity`. Copies are grouped transitively
(a copy of a copy is the same article).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sitesift.methods.ibdf import IBDFCleaner, cosine
from sitesift.page import Page

ARTICLE_SIMILARITY = 0.8
"""Cosine of two pages' content vectors from which they hold the same article. The seed
gives no value (nor whether pages of one site can be copies: here only across sites,
its newspapers-and-agencies case); 0.8 is ours, above IBDF's block similarity 0.5 since
whole articles are compared. Not measured: no shared corpus labels cross-site copies."""


def same_articles(sites: Mapping[str, tuple[IBDFCleaner, Sequence[Page]]],
                  similarity: float = ARTICLE_SIMILARITY) -> list[list[str]]:
    """Groups of page ids (`site#index` for a page without one) holding the same article,
    each group from at least two sites, in the order of their first page; `sites` maps a
    site to its fitted model and pages."""
    pages = [(site, _name(site, i, page), model.content_vector(page))
             for site, (model, site_pages) in sites.items()
             for i, page in enumerate(site_pages)]
    parent = list(range(len(pages)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (site_i, _, vec_i) in enumerate(pages):
        for j in range(i + 1, len(pages)):
            site_j, _, vec_j = pages[j]
            if site_i != site_j and cosine(vec_i, vec_j) >= similarity - 1e-12:
                parent[root(j)] = root(i)
    groups: dict[int, list[str]] = {}
    for i, (_, page_id, _) in enumerate(pages):
        groups.setdefault(root(i), []).append(page_id)
    return [ids for ids in groups.values() if len(ids) > 1]


def unique_articles(sites: Mapping[str, tuple[IBDFCleaner, Sequence[Page]]],
                    similarity: float = ARTICLE_SIMILARITY) -> list[str]:
    """Every page id but the later copies of an article: the seed's "only unique articles
    are returned" (the first copy met, in the order of `sites` and their pages, stays)."""
    later = {page_id for group in same_articles(sites, similarity) for page_id in group[1:]}
    names = [_name(site, i, page) for site, (_, site_pages) in sites.items()
             for i, page in enumerate(site_pages)]
    return [name for name in names if name not in later]


def _name(site: str, index: int, page: Page) -> str:
    """A page's id, or `site#index` for a page without one."""
    return page.id if page.id is not None else f"{site}#{index}"
