"""`sitesift evaluate`: token precision, recall and F1 of methods against gold text.

Site-level methods are fitted per site group (by `site`, by (`site`, `year`), or one group
for everything); page-level methods see one page at a time. A page that fails to load or
clean scores as empty output, and the error is kept in its row.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Container, Iterable
from pathlib import Path
from typing import Any

from sitesift.batch import Outcome, Source, run_groups
from sitesift.datasets import BadRow, read_gold, scan_index
from sitesift.jobs.grouping import SITE, Grouping, group_rows
from sitesift.jobs.policy import SitePolicy
from sitesift.jobs.run import LOCAL, RunSettings
from sitesift.metrics import token_prf
from sitesift.output import SCORED

Scorer = Callable[[Path, Outcome, str, str], dict[str, Any]]
"""(corpus root, outcome, output text, gold text) -> the score fields of the page's row."""


def token_scores(root: Path, outcome: Outcome, text: str, gold: str) -> dict[str, Any]:
    prf = token_prf(text, gold)
    return {"precision": prf.precision, "recall": prf.recall, "f1": prf.f1}


def dataset_groups(root: Path, grouping: Grouping, only_gold: bool = True,
                   ids: Container[str] | None = None) -> dict[str, list[Source]]:
    """Site groups of a corpus' pages (those with gold; only `ids` when given). Bad lines
    of the index are left out: they have no gold to score (`skipped_pages` counts them)."""
    rows, _ = index_rows(root)
    if ids is not None:
        rows = [r for r in rows if r["id"] in ids]
    if only_gold:
        rows = [r for r in rows if (root / "gold" / f"{r['id']}.txt").is_file()]
    groups = group_rows(rows, grouping.by)
    return {
        name: [Source(r["id"], "", r, str(root)) for r in members]
        for name, members in groups.items() if len(members) >= grouping.min_pages
    }


def index_rows(root: Path) -> tuple[list[dict[str, Any]], list[BadRow]]:
    """The rows of a corpus' index and its bad lines (`datasets.scan_index`)."""
    entries = scan_index(root)
    return ([e for e in entries if not isinstance(e, BadRow)],
            [e for e in entries if isinstance(e, BadRow)])


def skipped_pages(root: Path, grouping: Grouping) -> dict[str, int]:
    """The index lines `evaluate` leaves out, by reason: its accounting is index lines =
    scored rows + error rows + these."""
    rows, bad = index_rows(root)
    with_gold = sum(1 for r in rows if (root / "gold" / f"{r['id']}.txt").is_file())
    kept = sum(len(v) for v in dataset_groups(root, grouping).values())
    return {"bad index line": len(bad), "no gold file": len(rows) - with_gold,
            f"site group under {grouping.min_pages} pages": with_gold - kept}


def evaluate(datasets: Iterable[Path], methods: Iterable[str], *, grouping: Grouping = SITE,
             run: RunSettings = LOCAL, folds: int = 1,
             params: dict[str, dict[str, Any]] | None = None,
             ids: Container[str] | None = None,
             scorer: Scorer = token_scores) -> list[dict[str, Any]]:
    """One row per (corpus, page, method) with precision, recall, f1, ms and any error;
    `ids` limits the pages, `scorer` makes the score fields (it may also override `ms`);
    `folds` > 1 cleans every page with a site model fitted on the other folds of its
    group (pages the model never saw); `run` says how (`sitesift.jobs.run.RunSettings`:
    workers, limits that guard every page, progress)."""
    rows: list[dict[str, Any]] = []
    for root in datasets:
        root = Path(root)
        groups = dataset_groups(root, grouping, ids=ids)
        for method in methods:
            policy = SitePolicy(method, (params or {}).get(method) or {},
                                output=SCORED, folds=folds,
                                fallback=None)  # a method's figures are its own
            for outcome in run_groups(groups, policy, run):
                gold = read_gold(root, outcome.id) or ""
                text = outcome.result.text if outcome.result is not None else ""
                rows.append({
                    "corpus": root.name, "id": outcome.id, "method": method,
                    "group": outcome.group, "ms": round(outcome.ms, 3), "error": outcome.error,
                    **scorer(root, outcome, text, gold),
                })
    return rows


def summary_table(rows: list[dict[str, Any]]) -> str:
    """Markdown: one line per (corpus, method): mean and median F1, P and R; median ms."""
    keys = sorted({(r["corpus"], r["method"]) for r in rows})
    lines = [
        "| corpus | method | pages | errors | mean F1 | median F1 | mean P | median P "
        "| mean R | median R | median ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for corpus, method in keys:
        sel = [r for r in rows if r["corpus"] == corpus and r["method"] == method]
        cells = []
        for metric in ("f1", "precision", "recall"):
            values = [r[metric] for r in sel]
            cells += [f"{statistics.fmean(values):.3f}", f"{statistics.median(values):.3f}"]
        lines.append(
            f"| {corpus} | {method} | {len(sel)} | {sum(1 for r in sel if r['error'])} | "
            + " | ".join(cells) + f" | {statistics.median(r['ms'] for r in sel):.2f} |"
        )
    return "\n".join(lines)
