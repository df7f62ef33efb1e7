"""Building the report: sites grouped, site models fitted, every page cleaned, files written.

Every page of every site group counts in the summary (text removed, and token F1 where the
dataset has gold); the first `views` pages of each site also get a page view, which holds
the page itself twice per method (frame and text) and is what makes a report large.
A page that cannot be read, a model that cannot be fitted and a method that fails on a page
are each shown where they happened, with the reason.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitesift.datasets import read_gold
from sitesift.errors import InputError, reason_of
from sitesift.inputs import collect_sources
from sitesift.jobs.grouping import SITE, Grouping
from sitesift.jobs.run import LOCAL, RunSettings
from sitesift.jobs.source import Source
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.metrics import token_prf
from sitesift.output import BLOCKS, finish
from sitesift.page import Page
from sitesift.report import chart
from sitesift.report.views import mark_page, removed_share
from sitesift.report.write import MethodOnPage, page_view, summary_view, tree_view
from sitesift.result import Result


@dataclass(slots=True)
class Report:
    """What was written."""

    out: Path
    sites: int = 0
    pages: int = 0
    views: int = 0
    trees: int = 0
    errors: int = 0  # pages not read plus (page, method) pairs that failed
    rows: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def index(self) -> Path:
        return self.out / "index.html"


class _Names:
    """File names from page ids and site names: safe characters, never the same twice."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, name: str) -> str:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "page"
        base = base[:120]
        candidate, n = base, 1
        while candidate.lower() in self.used:
            n += 1
            candidate = f"{base}-{n}"
        self.used.add(candidate.lower())
        return candidate


@dataclass(frozen=True, slots=True)
class Scope:
    """What a report covers and shows: the site groups (`grouping`; only `sites`, when
    given) and a page view for the first `views` pages of each (0: all)."""

    grouping: Grouping = SITE
    sites: tuple[str, ...] = ()
    views: int = 30


def build_report(path: Path, methods: Sequence[str], out: Path, *, scope: Scope = Scope(),
                 params: dict[str, dict[str, Any]] | None = None, run: RunSettings = LOCAL,
                 command: str | None = None) -> Report:
    """Write the report for the pages at `path` (a dataset, a folder, a list file) to `out`,
    as `scope` says; `run.progress` names each site group as it starts."""
    sites, views = scope.sites, scope.views
    if not methods:
        raise InputError("report: name at least one method")
    for m in methods:  # unknown names and bad parameters fail here, before any work
        try:
            get_cleaner(m, **(params or {}).get(m, {}))
        except (TypeError, ValueError) as exc:
            raise InputError(f"report: bad parameters for {m}: {exc}") from None
    groups = collect_sources(Path(path), scope.grouping.by)
    if sites:
        unknown = [s for s in sites if s not in groups]
        if unknown:
            raise InputError(f"report: no site group {', '.join(map(repr, unknown))} in {path}; "
                             f"groups: {', '.join(sorted(groups)) or 'none'}")
        groups = {s: groups[s] for s in sites}
    if not groups:
        raise InputError(f"report: no pages found in {path}")
    out = Path(out)
    (out / "pages").mkdir(parents=True, exist_ok=True)
    report = Report(out)
    names = _Names()
    summaries = []
    for site, sources in groups.items():
        if run.progress:
            print(f"sitesift report: {site}: {len(sources)} pages", file=sys.stderr)
        summaries.append(_site(site, sources, methods, params or {}, views, out, names, report))
    title = (f"{Path(path).resolve().name}: {report.pages} pages, {len(groups)} site "
             f"group{'s' if len(groups) > 1 else ''}")
    (out / "index.html").write_text(
        summary_view(title=title, command=command, methods=methods, sites=summaries), "utf-8")
    with open(out / "pages.jsonl", "w", encoding="utf-8") as fh:
        for row in report.rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    report.sites = len(groups)
    return report


def _site(site: str, sources: list[Source], methods: Sequence[str],
          params: dict[str, dict[str, Any]], views: int, out: Path, names: _Names,
          report: Report) -> dict[str, Any]:
    """Fit, clean and write the views of one site group; its entry for the summary."""
    anchor = "site-" + names(site)
    viewed = {s.id for s in (sources if views <= 0 else sources[:views])}
    view_files = {s.id: names(s.id) + ".html" for s in sources if s.id in viewed}
    gold: dict[str, str] = {}
    for s in sources:
        text = read_gold(Path(s.dataset), s.id) if s.dataset else None
        if text is not None:
            gold[s.id] = text
    info: dict[str, dict[str, Any]] = {s.id: {"id": s.id, "methods": {}} for s in sources}
    on_page: dict[str, list[MethodOnPage]] = {s.id: [] for s in sources if s.id in viewed}
    load_errors: dict[str, str] = {}
    fits: dict[str, dict[str, Any]] = {}
    tree_file = None
    for method in methods:
        pages = _load(sources, load_errors)
        cleaner, fits[method] = _fit(method, params.get(method, {}), [p for _, p in pages])
        if cleaner is not None and method == "sst" and cleaner.fitted:
            tree_file = _write_tree(cleaner, site, anchor, out, names)
            report.trees += 1
        for src, page in pages:
            entry = info[src.id]
            entry.setdefault("title", page.title)
            entry.setdefault("url", page.url)
            view = MethodOnPage(method, None)
            result: Result | None = None
            if cleaner is None:
                view.error = fits[method]["error"]
            else:
                try:
                    if src.id in viewed:
                        view.marks = mark_page(cleaner, page)
                        result = view.marks.result
                    else:
                        result = cleaner.clean(page)
                    result = finish(result, page, BLOCKS)  # the text `clean` writes
                except Exception as exc:  # recorded and shown: the report's edge
                    view.error = f"{method} failed: {reason_of(exc)}"
            row: dict[str, Any] = {"site": site, "id": src.id, "method": method,
                                   "error": view.error}
            if result is not None:
                total, removed = removed_share(result.blocks)
                row.update(chars=total, removed_chars=removed,
                           removed_share=removed / total if total else 0.0)
                if src.id in gold:
                    prf = token_prf(result.text, gold[src.id])
                    view.f1, view.precision, view.recall = prf.f1, prf.precision, prf.recall
                    row.update(f1=prf.f1, precision=prf.precision, recall=prf.recall)
            else:
                report.errors += 1
            if src.id in viewed:
                row["view"] = f"pages/{view_files[src.id]}"
                if view.marks is not None:
                    row.update(marks=len(view.marks.marks), placed=view.marks.placed,
                               unplaced=view.marks.unplaced, missing=view.marks.missing)
                on_page[src.id].append(view)
            entry["methods"][method] = row
            report.rows.append(row)
    report.errors += len(load_errors)
    read = [s for s in sources if s.id not in load_errors]
    report.pages += len(read)
    _write_views(site, anchor, read, on_page, view_files, info, bool(gold), out)
    report.views += sum(1 for s in read if s.id in on_page)
    return _site_summary(site, anchor, read, methods, info, fits, load_errors, gold,
                         tree_file, view_files)


def _load(sources: list[Source], errors: dict[str, str]) -> list[tuple[Source, Page]]:
    """Pages parsed afresh for each method, so no method sees another's lazily read tree."""
    pages = []
    for src in sources:
        if src.id in errors:
            continue
        try:
            pages.append((src, src.load()))
        except Exception as exc:  # recorded and shown
            errors[src.id] = reason_of(exc)
    return pages


def _fit(method: str, params: dict[str, Any], pages: list[Page]
         ) -> tuple[Cleaner | None, dict[str, Any]]:
    cleaner = get_cleaner(method, **params)
    if not cleaner.site_level:
        return cleaner, {}
    if not pages:
        return None, {"error": "no readable pages to fit on"}
    start, cpu = time.perf_counter(), time.process_time()
    try:
        cleaner.fit(pages)
    except Exception as exc:
        return None, {"error": f"fitting {method} failed: {reason_of(exc)}"}
    return cleaner, {"seconds": time.perf_counter() - start,
                     "cpu_seconds": time.process_time() - cpu}


def _write_tree(cleaner: Cleaner, site: str, anchor: str, out: Path, names: _Names) -> str:
    from sitesift.methods.sst import SiteStyleTree
    from sitesift.report.sst_tree import explorer_data, label_counts

    assert isinstance(cleaner, SiteStyleTree)
    data = explorer_data(cleaner)
    (out / "sst").mkdir(exist_ok=True)
    name = f"sst/{names('tree-' + site)}.html"
    (out / name).write_text(tree_view(site=site, site_anchor=anchor, method=cleaner.name,
                                      data=data, counts=label_counts(data)), "utf-8")
    return name


def _write_views(site: str, anchor: str, sources: list[Source],
                 on_page: dict[str, list[MethodOnPage]], files: dict[str, str],
                 info: dict[str, dict[str, Any]], has_gold: bool, out: Path) -> None:
    ids = [s.id for s in sources if s.id in on_page]
    for i, page_id in enumerate(ids):
        prev = files[ids[i - 1]] if i > 0 else None
        next_ = files[ids[i + 1]] if i + 1 < len(ids) else None
        entry = info[page_id]
        text = page_view(page_id=page_id, title=entry.get("title"), url=entry.get("url"),
                         site=site, site_anchor=anchor, methods=on_page[page_id], prev=prev,
                         next_=next_, has_gold=has_gold)
        (out / "pages" / files[page_id]).write_text(text, "utf-8")
        on_page[page_id] = []  # written: let the frames go


def _site_summary(site: str, anchor: str, sources: list[Source], methods: Sequence[str],
                  info: dict[str, dict[str, Any]], fits: dict[str, dict[str, Any]],
                  load_errors: dict[str, str], gold: dict[str, str], tree: str | None,
                  view_files: dict[str, str]) -> dict[str, Any]:
    rows = [info[s.id] for s in sources]
    removed: dict[str, float] = {}
    mean_f1: dict[str, float] = {}
    for m in methods:
        ok = [r["methods"][m] for r in rows if not r["methods"].get(m, {}).get("error")]
        chars = sum(r.get("chars", 0) for r in ok)
        if chars:
            removed[m] = sum(r.get("removed_chars", 0) for r in ok) / chars
        scored = [r["f1"] for r in ok if r.get("f1") is not None]
        if scored:
            mean_f1[m] = statistics.fmean(scored)
    for r in rows:
        if r["id"] in view_files:
            r["view"] = f"pages/{view_files[r['id']]}"
    entry: dict[str, Any] = {
        "name": site, "anchor": anchor, "pages": len(sources), "errors": len(load_errors)
        + sum(1 for r in rows for v in r["methods"].values() if v.get("error")),
        "removed": removed, "mean_f1": mean_f1, "fit": fits, "tree": tree, "rows": rows,
        "gold": bool(gold), "load_errors": sorted(load_errors.items()),
    }
    scored_rows = [r for r in rows if r["id"] in gold]
    if scored_rows:
        why = chart.matplotlib_missing()
        if why:
            entry["chart_note"] = f"No chart: {why}."
        else:
            numbers = {r["id"]: n for n, r in enumerate(rows, 1)}
            entry["chart"] = chart.f1_chart(
                [str(numbers[r["id"]]) for r in scored_rows], methods,
                {m: [r["methods"].get(m, {}).get("f1") for r in scored_rows] for m in methods},
                [r.get("view") for r in scored_rows], salt=anchor)
    return entry
