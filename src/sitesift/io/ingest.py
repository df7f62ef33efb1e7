"""The first step of a local crawl: read one input, spill its pages by site, account for
every record.

An input is ingested completely or not at all: its spill files go to `spill/<i>/`, its
read errors to `ingest/<i>.errors.jsonl`, and only then is its report written to
`ingest/<i>.json` (atomically). On resume, an input without a report has its partial spill
deleted and is read again.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from sitesift.io.records import Failed, PageRecord, error_record
from sitesift.io.sinks import dumps, remove_tree, write_atomic
from sitesift.io.sites import site_key
from sitesift.io.sources import read_input
from sitesift.io.spill import SpillWriter, site_file


@dataclass(slots=True)
class IngestReport:
    index: int
    input: str
    records_in: int = 0
    read_errors: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    sites: dict[str, int] = field(default_factory=dict)  # pages spilled per site

    @property
    def pages(self) -> int:
        return sum(self.sites.values())


def report_path(work: Path, index: int) -> Path:
    return work / "ingest" / f"{index}.json"


def errors_path(work: Path, index: int) -> Path:
    return work / "ingest" / f"{index}.errors.jsonl"


def spill_path(work: Path, index: int, site: str) -> Path:
    return work / "spill" / str(index) / (site_file(site) + ".spill")


def load_report(work: Path, index: int) -> IngestReport | None:
    path = report_path(work, index)
    if not path.is_file():
        return None
    return IngestReport(**json.loads(path.read_text(encoding="utf-8")))


def ingest_input(index: int, path: str, work: Path, grouping: str, max_bytes: int
                 ) -> IngestReport:
    """Read input `index` at `path` into the work folder; see the module docstring."""
    remove_tree(work / "spill" / str(index))  # what a killed earlier try left
    (work / "ingest").mkdir(parents=True, exist_ok=True)
    report = IngestReport(index, path)
    skipped: Counter[str] = Counter()
    writer = SpillWriter(work / "spill" / str(index))
    errors = errors_path(work, index)
    with open(f"{errors}.tmp", "w", encoding="utf-8") as err:
        for item in read_input(path, index, max_bytes):
            report.records_in += 1
            if isinstance(item, PageRecord):
                writer.add(replace(item, site=site_key(item.url, grouping)))
            elif isinstance(item, Failed):
                report.read_errors += 1
                err.write(dumps(error_record(item, site_key(item.url, grouping), "read",
                                             item.reason)))
            else:
                skipped[item.reason] += 1
    report.sites = dict(writer.close())
    report.skipped = dict(skipped)
    os.replace(f"{errors}.tmp", errors)
    write_atomic(report_path(work, index), json.dumps({
        "index": report.index, "input": report.input, "records_in": report.records_in,
        "read_errors": report.read_errors, "skipped": report.skipped, "sites": report.sites,
    }))
    return report
