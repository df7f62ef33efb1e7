"""The first step of a local crawl: read one input, spill its pages by site, account for
every record.

An input is ingested completely or not at all: its spill file (`pages.spill`, every site's
pages of the input; `sitesift.io.spill`), its read errors and its report (with the index of
each site's frames in the spill file) are written into a folder of this try's own,
`inputs/<i>.part-<pid>/`, which is renamed to `inputs/<i>/` when complete. That rename is
the commit: a folder `inputs/<i>` holds a whole ingest, and nothing else does. A try cut off
by a kill leaves only a `.part` folder, which the next run deletes (`discard_partial`)
before it reads the input again; and even a try still running beside another (a worker that
outlived its crawl) cannot mix its pages into the other's, nor commit an input twice: the
first rename wins, the second try's folder is deleted. So an input costs three files however
many sites it has.

The work folder says its layout in `work/layout`; `discard_partial` deletes a work folder of
another layout whole (an older crawl's: one whose spill files are zstd, or whose spilled
pages and records lack their WARC provenance, with a spill file and a part pair per site
before that, or `spill/` and `ingest/`), so its inputs are read again and its sites cleaned
again: it is never misread.
"""

from __future__ import annotations

import errno
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sitesift.errors import writing
from sitesift.io.records import Failed, PageRecord, error_record
from sitesift.io.sinks import dumps, remove_tree, write_atomic
from sitesift.io.sources import read_input
from sitesift.io.spill import SpillWriter
from sitesift.jobs.grouping import site_key

PARTIAL = ".part-"  # the mark of an uncommitted ingest folder
LAYOUT = "6\n"
"""work/layout: one spill file per input (`inputs/`), batched parts (`parts/`); since 3 a
spilled page's meta holds its WARC headers (`sitesift.io.spill`), and its records their
provenance; since 4 a part holds its results' rows for the copy check (`part-<n>.dups.bin`,
`sitesift.io.parts`); since 5 the spill files are LZ4 frames, zstd ones before; since 6 a
spilled WARC page may be a reference to its payload in the input (`sitesift.io.warcref`). A
work folder of an older layout is redone, so that no record of it lacks a field and no spill
file is read as what it is not."""


@dataclass(slots=True)
class IngestReport:
    index: int
    input: str
    records_in: int = 0
    read_errors: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    sites: dict[str, int] = field(default_factory=dict)  # pages spilled per site
    frames: dict[str, list[list[int]]] = field(default_factory=dict)  # in the spill file

    @property
    def pages(self) -> int:
        return sum(self.sites.values())


def input_folder(work: Path, index: int) -> Path:
    """Where input `index`'s committed ingest is."""
    return work / "inputs" / str(index)


def report_path(work: Path, index: int) -> Path:
    return input_folder(work, index) / "report.json"


def errors_path(work: Path, index: int) -> Path:
    return input_folder(work, index) / "errors.jsonl"


def spill_path(work: Path, index: int) -> Path:
    return input_folder(work, index) / "pages.spill"


def load_report(work: Path, index: int) -> IngestReport | None:
    path = report_path(work, index)
    if not path.is_file():
        return None
    return IngestReport(**json.loads(path.read_text(encoding="utf-8")))


def discard_partial(work: Path) -> None:
    """Delete what uncommitted ingests left (call it holding the crawl's lock, when no
    ingest runs), or the whole work folder where it is of another layout (see the module
    docstring): it is marked with this layout only once emptied."""
    marker = work / "layout"
    if not marker.is_file() or marker.read_text("utf-8") != LAYOUT:
        remove_tree(work)
        work.mkdir(parents=True)
        write_atomic(marker, LAYOUT)
        return
    for stale in (work / "inputs").glob(f"*{PARTIAL}*"):
        remove_tree(stale)


def ingest_input(index: int, path: str, work: Path, grouping: str, max_bytes: int
                 ) -> IngestReport:
    """Read input `index` at `path` into the work folder; see the module docstring."""
    final = input_folder(work, index)
    part = final.with_name(f"{index}{PARTIAL}{os.getpid()}")
    remove_tree(part)
    try:
        report = _read_into(part, index, path, grouping, max_bytes)
        _commit(part, final)
    except BaseException:
        remove_tree(part)  # frees the space a full disk needs back; the input is read again
        raise
    return report


def _read_into(part: Path, index: int, path: str, grouping: str, max_bytes: int
               ) -> IngestReport:
    report = IngestReport(index, path)
    skipped: Counter[str] = Counter()
    writer = SpillWriter(part / "pages.spill")
    errors = part / "errors.jsonl"
    with writing(errors), open(errors, "w", encoding="utf-8") as err:
        for item in read_input(path, index, max_bytes, refs=True):
            report.records_in += 1
            if isinstance(item, PageRecord):
                writer.add(item, site_key(item.url, grouping))
            elif isinstance(item, Failed):
                report.read_errors += 1
                err.write(dumps(error_record(item, site_key(item.url, grouping), "read",
                                             item.reason)))
            else:
                skipped[item.reason] += 1
    report.sites = dict(writer.close())
    report.frames = {site: [list(f) for f in frames] for site, frames in writer.frames.items()}
    report.skipped = dict(skipped)
    write_atomic(part / "report.json", json.dumps({
        "index": report.index, "input": report.input, "records_in": report.records_in,
        "read_errors": report.read_errors, "skipped": report.skipped, "sites": report.sites,
        "frames": report.frames,
    }))
    return report


def _commit(part: Path, final: Path) -> None:
    try:
        os.rename(part, final)  # atomic; fails on an existing non-empty folder
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
        remove_tree(part)  # another try committed this input first: its ingest stands
