"""The local crawl job: `sitesift crawl INPUT... --out DIR`.

1. Ingest: each input is read once and its pages spilled to disk by site (in parallel over
   inputs), so the crawl is grouped without being held in memory: one spill file per input,
   with an index of each site's frames in it (`sitesift.io.ingest`, `sitesift.io.spill`).
2. Clean: each site is a task for guarded worker processes (`sitesift.sitework`, over the
   job engine `sitesift.jobs`), largest sites first; its records go to part files shared by
   the sites that finish close together (`sitesift.io.parts`).
3. Finish: the parts become `results.jsonl` (or `.parquet`), `errors.jsonl`,
   `sites.jsonl` (how each site was cleaned) and `summary.json` (the accounting:
   records in = results + error records + skipped).

So the files the crawl makes scale with its inputs and with time, not with its sites:
DIR/work holds `layout`, per input `inputs/<i>/` (`pages.spill`, `errors.jsonl`,
`report.json`), `parts/part-<n>.{results,errors}.jsonl` and `done.jsonl`.

Resuming: DIR/job.json names the inputs and the settings that decide the output; a rerun
with the same ones continues where a kill stopped it, one with others is refused, naming
the settings that differ (defaults count: a job started when the crawl's default was `sst`
with the `alltext` fallback resumes with `--method sst --fallback alltext`). Inputs whose
ingest was committed (`sitesift.io.ingest`: one rename per input) are not read again (a
half-read input is read again from the start); sites in `work/done.jsonl` are not cleaned
again (a site is entered there only after the part holding its records was renamed into
place; a site not entered, finished or not, is redone from scratch); finishing rewrites the
final files from the parts. So a rerun neither loses nor duplicates a record. A work folder
of an older layout (a spill file and a part pair per site) is deleted whole and its crawl
done again (`discard_partial`), not read.

Nothing else writes into DIR meanwhile: a run holds DIR/.lock (flock; a second run is
refused at once, and the kernel frees a killed run's lock), and its worker processes die
with it, even under SIGKILL (`sitesift.guards.die_with_parent`), instead of writing on
under the rerun. A failed write (a full disk) deletes its temporary file and stops the run
with an OSError naming the file; what was committed stays for the rerun.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import os
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from sitesift.errors import InputError
from sitesift.guards import Limits, Lost, die_with_parent, parent_identity
from sitesift.io import dups
from sitesift.io.ingest import (
    IngestReport,
    discard_partial,
    errors_path,
    ingest_input,
    load_report,
    spill_path,
)
from sitesift.io.parts import PartStore
from sitesift.io.sinks import (
    FORMATS,
    concat,
    dumps,
    hold_folder,
    jsonl_to_parquet,
    read_spans,
    remove_tree,
    result_schema,
    whole,
    write_atomic,
)
from sitesift.io.sources import input_kind
from sitesift.jobs.outcome import SiteDone
from sitesift.jobs.run import LOCAL, RunSettings, progress_bar
from sitesift.language import SKIP_REASON
from sitesift.sitework import CrawlConfig, crawl_records, spill_task


def run_crawl(inputs: Sequence[str], out: str | Path, cfg: CrawlConfig, *,
              run: RunSettings = LOCAL, fmt: str = "jsonl",
              keep_work: bool = False) -> dict[str, Any]:
    """Run (or resume, or just report) the crawl of `inputs` into `out`; its summary. `run`:
    processes for reading the inputs and cleaning the sites, their limits (always guarded:
    default `Limits()`), a progress bar."""
    cfg.check()
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    run = replace(run, limits=run.limits or Limits())
    out = Path(out)
    paths = [str(Path(p)) for p in inputs]
    if not paths:
        raise InputError("no inputs given")
    job = {"inputs": [_fingerprint(p) for p in paths], "format": fmt, "config": cfg.identity()}
    with hold_folder(out):  # one run at a time in `out`; a killed run's lock is freed
        return _run(paths, out, job, cfg, run, fmt, keep_work)


def _run(paths: list[str], out: Path, job: dict[str, Any], cfg: CrawlConfig, run: RunSettings,
         fmt: str, keep_work: bool) -> dict[str, Any]:
    _claim(out, job)
    if (out / "summary.json").is_file():
        summary: dict[str, Any] = json.loads((out / "summary.json").read_text("utf-8"))
        return summary
    start = time.perf_counter()
    work = out / "work"
    reports = _ingest_all(paths, work, cfg, run.workers, run.progress)
    parts, losses = _clean_all(reports, work, cfg, run)
    summary = _finish(out, work, reports, parts, fmt, cfg.drop_duplicates)
    summary["worker_restarts"] = losses
    summary["seconds"] = round(time.perf_counter() - start, 3)
    write_atomic(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    if not keep_work:
        remove_tree(work)
    return summary


def _fingerprint(path: str) -> dict[str, Any]:
    kind = input_kind(path)  # InputError for a missing or unknown input, before any work
    entry: dict[str, Any] = {"path": str(Path(path).resolve()), "kind": kind}
    if kind in ("warc", "jsonl"):
        stat = Path(path).stat()
        entry |= {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    return entry


def _claim(out: Path, job: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "job.json"
    if path.is_file():
        held = json.loads(path.read_text("utf-8"))
        if held != job:
            raise InputError(_mismatch(out, held, job))
        return
    write_atomic(path, json.dumps(job, indent=1) + "\n")


# The `sitesift crawl` options of the settings job.json records, to name in a mismatch.
FLAGS = {"format": "--format", "method": "--method", "fallback": "--fallback",
         "grouping": "--group-by", "min_site_pages": "--min-site-pages",
         "fit_sample": "--fit-sample", "seed": "--seed", "drop_duplicates": "--drop-duplicates",
         "languages": "--lang", "metadata": "--metadata"}
_ABSENT = object()


def _mismatch(out: Path, held: Any, job: dict[str, Any]) -> str:
    """Why `out` cannot take this job: the settings its job.json differs in, and, where
    only options differ, the ones that resume it (a crawl started under older defaults,
    `sst` with the `alltext` fallback, resumes with `--method sst --fallback alltext`)."""
    held = held if isinstance(held, dict) else {}
    was_cfg = held.get("config")
    was_cfg = was_cfg if isinstance(was_cfg, dict) else {}
    diffs, flags = [], []
    if held.get("inputs", _ABSENT) != job["inputs"]:
        diffs.append("other inputs (or inputs changed since)")
    pairs = [("format", held.get("format", _ABSENT), job["format"])]
    pairs += [(k, was_cfg.get(k, _ABSENT), job["config"].get(k, _ABSENT))
              for k in dict.fromkeys([*job["config"], *was_cfg])]
    for key, was, now in pairs:
        if was == now:
            continue
        diffs.append(f"{key} {'none' if was is _ABSENT else repr(was)} there, "
                     f"{'none' if now is _ABSENT else repr(now)} now")
        if key in FLAGS and was is not _ABSENT:
            flags.append(f"{FLAGS[key]} {was}")
    resume = ""
    if flags and len(flags) == len(diffs):
        resume = f"rerun with its settings ({' '.join(flags)}) to resume or report it, "
    return (f"{out} holds a different crawl (see its job.json: {'; '.join(diffs)}): {resume}"
            "use another --out, or delete it to start over")


INGEST_BYTES_PER_PROCESS = 64 << 20
"""Input bytes (as stored: a WARC compressed) that one more process reading the inputs takes
at least. A process costs about 0.15 s of CPU to start (interpreter, imports); a
compressed WARC is read at about 25 MB/s a core (decompressing, framing, spilling by site):
at 64 MB a process spends over 2.5 s reading, and its start is under 6 % of that. Fewer
bytes are read in this process, where starting costs nothing (docs/crawl.md)."""


def ingest_processes(paths: list[str], workers: int) -> int:
    """How many processes read `paths`: one per `INGEST_BYTES_PER_PROCESS` of input, at
    most `workers` and one per input; 1 reads them in this process."""
    size = 0
    for path in paths:
        with contextlib.suppress(OSError):
            size += os.path.getsize(path)
    return max(1, min(workers, len(paths), size // INGEST_BYTES_PER_PROCESS))


def _ingest_all(paths: list[str], work: Path, cfg: CrawlConfig, workers: int,
                progress: bool) -> list[IngestReport]:
    discard_partial(work)  # no ingest runs now: the lock is ours, old workers died with us
    pending = [i for i in range(len(paths)) if load_report(work, i) is None]
    readers = ingest_processes([paths[i] for i in pending], workers)
    with progress_bar(len(pending), progress, "input", "reading") as bar:
        if readers > 1:
            with ProcessPoolExecutor(readers,
                                     mp_context=mp.get_context("spawn"),
                                     initializer=die_with_parent,
                                     initargs=parent_identity()) as pool:
                futures = [pool.submit(ingest_input, i, paths[i], work, cfg.grouping,
                                       cfg.max_record_bytes) for i in pending]
                for future in as_completed(futures):
                    future.result()
                    bar.update(1)
        else:
            for i in pending:
                ingest_input(i, paths[i], work, cfg.grouping, cfg.max_record_bytes)
                bar.update(1)
    reports = [load_report(work, i) for i in range(len(paths))]
    assert all(r is not None for r in reports)
    return [r for r in reports if r is not None]


def _clean_all(reports: list[IngestReport], work: Path, cfg: CrawlConfig, run: RunSettings
               ) -> tuple[PartStore, int]:
    counts: Counter[str] = Counter()
    spills: dict[str, list[tuple[str, tuple[tuple[int, int], ...]]]] = {}
    for report in reports:  # in input order, so a site's pages keep the crawl's order
        path = str(spill_path(work, report.index))
        for site, n in report.sites.items():
            counts[site] += n
            frames = tuple((offset, length) for offset, length in report.frames[site])
            spills.setdefault(site, []).append((path, frames))
    parts = PartStore(work)
    todo = sorted((s for s in counts if s not in parts.done), key=lambda s: (-counts[s], s))
    tasks = [spill_task(site, counts[site], tuple(spills[site]), cfg) for site in todo]
    tallies: dict[str, list[int]] = {}
    losses: list[Lost] = []
    with progress_bar(sum(counts[s] for s in todo), run.progress, "page", "cleaning") as bar:
        records = crawl_records(tasks, cfg, run, lambda t, lost: losses.append(lost))
        try:
            for task, message in records:
                # results, errors, pages with warnings, results left out by --lang
                tally = tallies.setdefault(task.site, [0, 0, 0, 0])
                if isinstance(message, SiteDone):
                    parts.finish(task.site, {
                        "site": task.site, "pages": message.pages, "method": message.method,
                        "model": message.model, "note": message.note, "results": tally[0],
                        "errors": tally[1], "warnings": list(message.warnings),
                        "warned_pages": tally[2], **_skipped_entry(tally[3])})
                    del tallies[task.site]
                elif not cfg.written(message):
                    tally[3] += 1
                    bar.update(1)
                else:
                    parts.write(task.site, message)
                    tally[0 if "text" in message else 1] += 1
                    tally[2] += bool(message.get("warnings"))
                    bar.update(1)
            parts.commit()
        except BaseException:
            records.close()  # its workers stopped and its kept models removed now, not at GC
            parts.abandon()
            raise
    return parts, len(losses)


def _skipped_entry(by_language: int) -> dict[str, Any]:
    """A site's line's count of the pages `--lang` left out, where it left out some."""
    return {"skipped": {SKIP_REASON: by_language}} if by_language else {}


def _finish(out: Path, work: Path, reports: list[IngestReport], parts: PartStore,
            fmt: str, drop_duplicates: bool = False) -> dict[str, Any]:
    """Write the final files from the parts, the copies marked (or left out), and the
    accounting."""
    done = parts.done
    read_errors = [whole(errors_path(work, r.index)) for r in reports]
    errors = concat(read_errors + parts.spans("errors"), out / "errors.jsonl")
    rows = read_spans(parts.spans("dups"))  # one a result, in the order of the results
    row_count, copies = dups.find_copies(rows)
    edits = {c.index: partial(_marked, dup_of=c.dup_of, drop=drop_duplicates) for c in copies}
    if fmt == "parquet":
        results = jsonl_to_parquet(parts.spans("results"), out / "results.parquet",
                                   result_schema(), edits)
    else:
        results = concat(parts.spans("results"), out / "results.jsonl", edits)
    exact = sum(c.dup_of["exact"] for c in copies)
    duplicates = dups.summary(exact, len(copies) - exact, drop_duplicates)
    if results + duplicates["dropped"] != row_count:
        raise RuntimeError(f"{work}: the parts hold {row_count} rows for the copy check and "
                           f"{results + duplicates['dropped']} results")
    write_atomic(out / "sites.jsonl", "".join(dumps(done[s]) for s in sorted(done)))
    skipped: Counter[str] = Counter()
    for report in reports:
        skipped.update(report.skipped)
    left_out: Counter[str] = Counter()  # pages cleaned but not written (--lang)
    for entry in done.values():
        left_out.update(entry.get("skipped") or {})
    skipped.update(left_out)
    records_in = sum(r.records_in for r in reports)
    pages = sum(r.pages for r in reports)
    models = Counter(entry["model"] for entry in done.values())
    return {
        "inputs": len(reports), "records_in": records_in, "pages": pages,
        "results": results, "errors": errors, "skipped": sum(skipped.values()),
        "read_errors": sum(r.read_errors for r in reports),
        "page_errors": sum(e["errors"] for e in done.values()),
        "skipped_by_reason": dict(sorted(skipped.items())), "duplicates": duplicates,
        "sites": len(done),
        "sites_by_model": dict(sorted(models.items())),
        # pages whose record has warnings (`sitesift.weak`), sites whose fit had some
        "warnings": {"pages": sum(e.get("warned_pages", 0) for e in done.values()),
                     "sites": sum(bool(e.get("warnings")) for e in done.values())},
        "balanced": (records_in == results + duplicates["dropped"] + errors
                     + sum(skipped.values())
                     and pages == (sum(e["results"] + e["errors"] for e in done.values())
                                   + sum(left_out.values()))),
    }


def _marked(record: dict[str, Any], dup_of: dict[str, Any], drop: bool) -> dict[str, Any] | None:
    """A copy's record with its `dup_of`, or None where copies are left out."""
    return None if drop else {**record, "dup_of": dup_of}
