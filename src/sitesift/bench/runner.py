"""Run sitesift's methods and the peers on the same pages in one process, score every page.

Per corpus: the pages with gold (grouped as `sitesift evaluate` groups them, which also
decides which pages are in: `--min-site-pages` drops small groups for every method alike),
each read and decoded once by sitesift's decoder. Peers get that decoded `str` and are timed
on their own call. sitesift's methods run through `sitesift.evaluate` (site-level methods
fitted per site group, page-level ones page by page); their `ms` is the time to parse that
same `str` (`Page.from_html`, timed here) + cleaning + the page's share of the group's fit.
A page a method fails on scores as empty output, with the error in its row.
"""

from __future__ import annotations

import contextlib
import json
import platform
import time
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sitesift.batch import Outcome
from sitesift.bench.peers import Peer, load_peers
from sitesift.datasets import read_gold, read_index, read_page_bytes
from sitesift.decode import decode_html
from sitesift.evaluate import dataset_groups, evaluate
from sitesift.jobs.grouping import Grouping
from sitesift.jobs.run import LOCAL, RunSettings
from sitesift.metrics import rouge_l, shingle_prf, snippet_rates, token_prf
from sitesift.page import Page
from sitesift.timing import Stopwatch

AUTO = "auto"
BY_CORPUS = Grouping(AUTO)  # each corpus by site and year where it has years, else by site
Row = dict[str, Any]


@dataclass
class BenchRun:
    """Rows (one per corpus, page, method) and what the run was made of."""

    rows: list[Row] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    peers: dict[str, str] = field(default_factory=dict)  # name -> version
    skipped: dict[str, str] = field(default_factory=dict)  # name -> reason
    corpora: dict[str, str] = field(default_factory=dict)  # name -> grouping used
    meta: dict[str, Any] = field(default_factory=dict)

    def info(self) -> dict[str, Any]:
        return {"methods": self.methods, "peers": self.peers, "skipped": self.skipped,
                "corpora": self.corpora, "meta": self.meta}


def corpus_grouping(root: Path, grouping: str = AUTO) -> str:
    """`auto`: (site, year) where the corpus' rows carry a year (big9), else site."""
    if grouping != AUTO:
        return grouping
    return "site,year" if any("year" in r for r in read_index(root)) else "site"


def read_snippets(root: Path, page_id: str) -> dict[str, list[str]] | None:
    path = root / "gold" / f"{page_id}.snippets.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k: [s for s in data.get(k) or [] if isinstance(s, str)] for k in ("with", "without")}


def score(text: str, gold: str, snippets: dict[str, list[str]] | None) -> Row:
    """Every metric of `sitesift.metrics` for one page's output."""
    tok, rouge, shingle = token_prf(text, gold), rouge_l(text, gold), shingle_prf(text, gold)
    row: Row = {
        "precision": tok.precision, "recall": tok.recall, "f1": tok.f1,
        "rouge_l_p": rouge.precision, "rouge_l_r": rouge.recall, "rouge_l_f1": rouge.f1,
        "shingle_p": shingle.precision, "shingle_r": shingle.recall, "shingle_f1": shingle.f1,
        "chars": len(text),
    }
    if snippets is not None:
        row["with_found"], row["without_kept"] = snippet_rates(
            text, snippets["with"], snippets["without"])
    return row


def describe(exc: BaseException) -> str:
    """The error as recorded in a row: type and message, and the cause where the message is
    empty (libraries that wrap their errors, e.g. boilerpy3's HTMLExtractionError())."""
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__ or exc.__context__
    if not str(exc) and cause is not None:
        text += f"caused by {type(cause).__name__}: {cause}"
    return text[:500]


def first_ids(root: Path, limit: int) -> set[str]:
    """The first `limit` pages with gold, in index order: a quick, repeatable subset."""
    rows = [r for r in read_index(root) if (root / "gold" / f"{r['id']}.txt").is_file()]
    return {r["id"] for r in rows[:limit]}


@dataclass
class _Page:
    row: Row
    group: str
    gold: str
    snippets: dict[str, list[str]] | None
    parse_ms: float = 0.0
    parse_cpu_ms: float = 0.0


def _tags(page: _Page, kind: str) -> Row:
    """Fields beside the scores: who made the row, and the page type where the corpus has it."""
    tags: Row = {"kind": kind}
    if "page_type" in page.row:
        tags["page_type"] = page.row["page_type"]
    return tags


def _run_peers(root: Path, pages: list[_Page], peers: list[Peer], emit: Callable[[Row], None],
               progress: bool) -> None:
    """Page by page: decode once, time sitesift's parse, then every peer on the same str."""
    bar = _bar(len(pages), progress, f"{root.name}: peers")
    for page in pages:
        html, error = None, None
        try:
            html = decode_html(read_page_bytes(root, page.row),
                               page.row.get("http_content_type")).text
        except Exception as exc:  # an unreadable page: every peer scores it empty
            error = f"{type(exc).__name__}: {exc}"
        if html is not None:
            watch = Stopwatch()
            # sitesift's own rows carry their parse errors; here only the time is wanted
            with contextlib.suppress(Exception):
                Page.from_html(html)
            page.parse_ms, page.parse_cpu_ms = watch.ms, watch.cpu_ms
        for peer in peers:
            text, ms, cpu_ms, peer_error = "", 0.0, 0.0, error
            if html is not None:
                watch = Stopwatch()
                try:
                    text, ms, cpu_ms = peer.run(html, page.row.get("url"))
                except Exception as exc:  # the peer failed on this page: recorded, scored empty
                    ms, cpu_ms = watch.ms, watch.cpu_ms
                    peer_error = describe(exc)
            emit({"corpus": root.name, "id": page.row["id"], "method": peer.name,
                  "group": page.group, "ms": round(ms, 3), "cpu_ms": round(cpu_ms, 3),
                  "error": peer_error,
                  **_tags(page, "peer"), **score(text, page.gold, page.snippets)})
        bar.update(1)
    bar.close()


def bench_corpus(root: Path, methods: list[str], peers: list[Peer], *, grouping: Grouping,
                 run: RunSettings, emit: Callable[[Row], None],
                 ids: Container[str] | None = None,
                 params: dict[str, dict[str, Any]] | None = None) -> str:
    """Bench one corpus, passing each row to `emit` (`params`: each sitesift method's
    parameters); returns the grouping used."""
    grouping = replace(grouping, by=corpus_grouping(root, grouping.by))
    groups = dataset_groups(root, grouping, ids=ids)
    group_of = {s.id: name for name, members in groups.items() for s in members}
    pages = [_Page(r, group_of[r["id"]], read_gold(root, r["id"]) or "",
                   read_snippets(root, r["id"]))
             for r in read_index(root) if r["id"] in group_of]
    _run_peers(root, pages, peers, emit, run.progress)
    by_id = {p.row["id"]: p for p in pages}

    def scorer(root: Path, outcome: Outcome, text: str, gold: str) -> Row:
        page = by_id[outcome.id]
        total = page.parse_ms + outcome.ms + outcome.fit_ms
        cpu = page.parse_cpu_ms + outcome.cpu_ms + outcome.fit_cpu_ms
        held = outcome.result.confidence if outcome.result is not None else \
            (outcome.record or {}).get("confidence")
        return {**_tags(page, "sitesift"), "confidence": held,
                "ms": round(total, 3), "cpu_ms": round(cpu, 3),
                "clean_ms": round(outcome.ms, 3), "parse_ms": round(page.parse_ms, 3),
                "fit_ms": round(outcome.fit_ms, 3), **score(text, gold, page.snippets)}

    for row in evaluate([root], methods, grouping=grouping, run=run, ids=set(group_of),
                        scorer=scorer, params=params):
        emit(row)
    return grouping.by


def run_bench(datasets: Iterable[Path], methods: list[str], peer_names: list[str], *,
              grouping: Grouping = BY_CORPUS, run: RunSettings = LOCAL,
              limit: int | None = None, on_row: Callable[[Row], None] | None = None,
              params: dict[str, dict[str, Any]] | None = None) -> BenchRun:
    """Bench every corpus (grouped as `grouping` says, `auto`: `corpus_grouping`; run as
    `run` says); `on_row` sees each row as soon as it is scored; `params` are each
    sitesift method's parameters (kept in the run's meta)."""
    peers, skipped = load_peers(peer_names)
    bench = BenchRun(methods=list(methods), peers={p.name: p.version for p in peers},
                   skipped=skipped, meta=_machine())
    if params := {m: v for m, v in (params or {}).items() if v}:
        bench.meta["params"] = params

    def emit(row: Row) -> None:
        bench.rows.append(row)
        if on_row is not None:
            on_row(row)

    start = time.time()
    try:
        for root in datasets:
            root = Path(root)
            ids = first_ids(root, limit) if limit is not None else None
            bench.corpora[root.name] = bench_corpus(
                root, methods, peers, grouping=grouping, run=run, emit=emit, ids=ids,
                params=params)
    finally:
        for peer in peers:
            peer.close()
    bench.meta["seconds"] = round(time.time() - start, 1)
    return bench


def _machine() -> dict[str, Any]:
    import os

    return {"python": platform.python_version(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d")}


def _bar(total: int, enabled: bool, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="page", desc=desc, dynamic_ncols=True, disable=not enabled)
