"""The pages `clean`, `fit`, `evaluate` and `bench` were given, as `Source`s grouped into
sites: a dataset folder, a folder of pages, a page file or a list file, listed by the one
listing of inputs (`sitesift.io.listing`: which pages, their ids and URLs, what is not a
page), which the crawl reads too.

A dataset's rows bring their ids, URLs and sites from its index; a page file's site is
taken from the URL the page declares (canonical link or og:url) where it has one.
"""

from __future__ import annotations

from pathlib import Path

from sitesift.datasets import is_dataset
from sitesift.errors import InputError
from sitesift.io.listing import CLEAN_KINDS, Listed, input_kind, list_pages
from sitesift.jobs.grouping import group_key, host_of
from sitesift.jobs.source import Source, error_source


def collect_sources(path: Path, grouping: str) -> dict[str, list[Source]]:
    """Sources grouped into sites as `--group-by` asks. Files that declare no URL are taken
    for one site (`unknown`): the user put them together; index rows without a site are
    each alone (`datasets.group_key`), as a corpus names the sites it knows. What cannot be
    read as a page (a bad index line, an unlisted file) is a source that fails with its
    reason. A WARC or JSONL input is refused (InputError): it is the crawl's."""
    if not path.is_dir() and path.is_file() and input_kind(path) not in CLEAN_KINDS:
        raise InputError(f"{path}: a WARC or JSONL input is read by `sitesift crawl`; "
                         "give a page, a folder, a dataset folder or a list of page paths")
    dataset = str(path) if is_dataset(path) else None
    groups: dict[str, list[Source]] = {}
    for entry in list_pages(path):
        source = _source(entry, dataset)
        # an unlisted file of a folder joins the folder's site; a bad index line is alone
        keyed = {"id": entry.id, "site": "unknown"} if entry.error and not dataset else source.row
        groups.setdefault(group_key(keyed, grouping), []).append(source)
    return groups


def _source(entry: Listed, dataset: str | None) -> Source:
    if entry.error is not None:
        return error_source(entry.id, entry.error, dataset)
    if dataset is not None:
        return Source(entry.id, "", entry.row, dataset)
    row = {"id": entry.id, "url": entry.url, "site": host_of(entry.url) or "unknown",
           "path": str(entry.file)}
    return Source(entry.id, str(entry.file), row)
