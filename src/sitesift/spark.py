"""The crawl on Apache Spark: the local job's reading and per-site step, distributed.

    inputs --flatMap(read)--> (key, item) --groupByKey--> sites and per-input accounting
           --mapPartitions(clean: one guarded worker process per task)--> outcome rows
           --> one cached table --filters--> OUT/results (Parquet), OUT/errors (Parquet),
               OUT/sites (JSON lines), the summary's tallies

Every record is keyed in one pass: pages by ("site", site), read errors by ("read", input)
and each input's record count and skip reasons by ("count", input), so no page body is
read twice and no record escapes the accounting. A site's pages are sorted by their place
in the crawl before sampling, so the models, and so the results, equal the local job's.
Cleaning runs in a `sitesift.guards.Supervisor` child of the Python worker, with the same
per-page time and memory limits as locally. Spark retries failed tasks by itself; a
killed job is rerun whole (its outputs are overwritten).

Submit it with `spark-submit .../sitesift/spark_submit.py INPUT... --out DIR` (docs/spark.md),
or run `sitesift crawl --engine spark` for a local Spark.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from sitesift.guards import Limits
from sitesift.io.records import ERROR_FIELDS, RESULT_FIELDS, Failed, PageRecord, error_record
from sitesift.io.sources import read_input
from sitesift.jobs.grouping import site_key
from sitesift.jobs.outcome import SiteDone
from sitesift.jobs.run import RunSettings
from sitesift.jobs.task import SiteTask
from sitesift.sitework import CrawlConfig, crawl_records, inline_task
from sitesift.spark_local import local_session

__all__ = ["balanced_bins", "local_session", "run_spark"]

Keyed = tuple[tuple[str, Any], Any]
# The outcome table's columns: a row's kind ("result", "error", "site", "tally"), the fields
# of result and error records, and a JSON text (a site's line, a partition's tally).
_RECORD_FIELDS = RESULT_FIELDS + tuple(f for f in ERROR_FIELDS if f not in RESULT_FIELDS)
_OUTCOME_FIELDS = ("kind", *_RECORD_FIELDS, "json")


def _read(entry: tuple[int, str], cfg: CrawlConfig) -> Iterator[Keyed]:
    index, path = entry
    records_in, skipped = 0, Counter[str]()
    for item in read_input(path, index, cfg.max_record_bytes):
        records_in += 1
        if isinstance(item, PageRecord):
            site = site_key(item.url, cfg.grouping)
            yield ("site", site), replace(item, site=site)
        elif isinstance(item, Failed):
            yield ("read", index), error_record(item, site_key(item.url, cfg.grouping), "read",
                                                item.reason)
        else:
            skipped[item.reason] += 1
    yield ("count", index), (records_in, dict(skipped))


def _clean(groups: Iterable[tuple[tuple[str, Any], Iterable[Any]]], cfg: CrawlConfig,
           limits: Limits) -> Iterator[tuple[Any, ...]]:
    """One partition: sites through a guarded worker, as rows of the outcome table; read
    errors passed through; the partition's tally (inputs' counts included) its last row."""
    side: list[tuple[Any, ...]] = []
    tally = Counter[str]()

    def tasks() -> Iterator[SiteTask]:
        for (kind, name), values in groups:
            if kind == "site":
                pages = sorted(values, key=lambda r: r.order)
                yield inline_task(name, pages, cfg)
            elif kind == "read":
                for record in values:
                    tally["error"] += 1
                    side.append(_outcome_row("error", record))
            else:
                for records_in, skipped in values:
                    tally["records_in"] += records_in
                    tally.update({f"skip:{r}": n for r, n in skipped.items()})

    # The engine's kept workers: Spark reuses its Python workers across tasks, and so the
    # cleaning process (NumPy, SciPy, ... imported) serves every partition it runs.
    for _task, message in crawl_records(tasks(), cfg, RunSettings(1, limits)):
        yield from side
        side.clear()
        if isinstance(message, SiteDone):
            site = {"site": message.site, "pages": message.pages, "method": message.method,
                    "model": message.model, "note": message.note,
                    "warnings": list(message.warnings)}
            tally.update({"sites": 1, f"model:{message.model}": 1, "pages": message.pages,
                          "warned_sites": int(bool(message.warnings))})
            yield _outcome_row("site", {}, json.dumps(site))
        elif "text" in message:
            tally.update({"result": 1, "warned_pages": int(bool(message.get("warnings")))})
            yield _outcome_row("result", message)
        else:
            tally["error"] += 1
            yield _outcome_row("error", message)
    yield from side
    yield _outcome_row("tally", {}, json.dumps(tally))


def _outcome_row(kind: str, record: dict[str, Any], blob: str | None = None) -> tuple[Any, ...]:
    """A row of the job's one outcome table: its kind, the record's fields (None where it
    has none: an error has no text, a result no stage) and a JSON text (a site's line of
    OUT/sites, a partition's tally)."""
    return (kind, *(record.get(f) for f in _RECORD_FIELDS), blob)


def balanced_bins(weights: dict[str, int], parts: int) -> dict[str, int]:
    """Sites to partitions, heaviest first onto the lightest partition (LPT scheduling), so
    partition 0 starts with the heaviest site and no core is left with a long tail: hash
    partitioning left one of two cores with most of the work. Weight = bytes of the pages
    (plus a per-page constant): fitting and cleaning are about linear in them."""
    loads = [0] * parts
    assigned: dict[str, int] = {}
    for site, weight in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0])):
        target = min(range(parts), key=loads.__getitem__)
        assigned[site] = target
        loads[target] += weight
    return assigned


def default_partitions(sc: Any) -> int:
    """Partitions of sites: on a cluster 4 a core, so that the bin-packing evens out the
    cores' loads; in local mode 2 a core (each task is a round trip through the JVM and a
    Python worker, ~30 ms of CPU: 16 partitions of 1,000 pages cost 2-3 CPU-s more than 4)."""
    if str(sc.master).startswith("local"):
        return 2 * max(1, sc.defaultParallelism)
    return 4 * max(2, sc.defaultParallelism)


def _bin(key: tuple[str, Any], bins: Any) -> int:
    if key[0] == "site":
        return int(bins.value.get(key[1], 0))
    from pyspark.rdd import portable_hash

    return int(portable_hash(key))


def _schema(fields: tuple[str, ...]) -> Any:
    from pyspark.sql.types import (
        ArrayType,
        DoubleType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    kinds = {"position": LongType(), "offset": LongType(), "blocks": IntegerType(),
             "content_blocks": IntegerType(), "warnings": ArrayType(StringType(), False),
             "page_type_score": DoubleType()}
    return StructType([StructField(f, kinds.get(f, StringType()), True) for f in fields])


def run_spark(spark: Any, inputs: list[str], out: str, cfg: CrawlConfig,
              limits: Limits | None = None, partitions: int | None = None) -> dict[str, Any]:
    """Run the crawl of `inputs` on `spark`, writing Parquet under `out`; its summary."""
    from pyspark import StorageLevel

    cfg.check()
    limits = limits or Limits()
    sc = spark.sparkContext
    parts = partitions or default_partitions(sc)
    paths = sc.parallelize(list(enumerate(inputs)), max(1, len(inputs)))
    keyed = paths.flatMap(partial(_read, cfg=cfg)).persist(StorageLevel.MEMORY_AND_DISK)
    weights = (keyed.filter(lambda x: x[0][0] == "site")
               .map(lambda x: (x[0][1], len(x[1].body) + 4096)).reduceByKey(lambda a, b: a + b)
               .collect())
    bins = sc.broadcast(balanced_bins(dict(weights), parts))
    rows = (keyed.groupByKey(numPartitions=parts, partitionFunc=partial(_bin, bins=bins))
            .mapPartitions(partial(_clean, cfg=cfg, limits=limits)))
    # One table of every outcome, cached by Spark SQL: each output below is a filter of it
    # in the JVM. (Kept as an RDD of Python objects, every output was one more pass of
    # Python workers unpickling all the pages' texts, and one more conversion to rows.)
    table = spark.createDataFrame(rows, _schema(_OUTCOME_FIELDS)).persist(
        StorageLevel.MEMORY_AND_DISK)
    try:
        (table.filter(table.kind == "result").select(*RESULT_FIELDS)
         .write.mode("overwrite").parquet(f"{out}/results"))
        # The small outputs in a quarter as many files (and tasks, each a fixed cost): a
        # site's line or an error record is small beside a page's text.
        few = max(1, parts // 4)
        (table.filter(table.kind == "error").select(*ERROR_FIELDS).coalesce(few)
         .write.mode("overwrite").parquet(f"{out}/errors"))
        (table.filter(table.kind == "site").select("json").coalesce(few)
         .write.mode("overwrite").text(f"{out}/sites"))
        totals = Counter[str]()
        for row in table.filter(table.kind == "tally").select("json").collect():
            totals.update(json.loads(row[0]))
    finally:
        table.unpersist()
        keyed.unpersist()
    return _summary(totals, len(inputs), out)


def _summary(totals: dict[str, int], inputs: int, out: str) -> dict[str, Any]:
    skipped = {k[5:]: v for k, v in sorted(totals.items()) if k.startswith("skip:")}
    results, errors = totals.get("result", 0), totals.get("error", 0)
    summary: dict[str, Any] = {
        "inputs": inputs, "records_in": totals.get("records_in", 0),
        "pages": totals.get("pages", 0), "results": results, "errors": errors,
        "skipped": sum(skipped.values()), "skipped_by_reason": skipped,
        "sites": totals.get("sites", 0),
        "sites_by_model": {k[6:]: v for k, v in sorted(totals.items())
                           if k.startswith("model:")},
        "warnings": {"pages": totals.get("warned_pages", 0),
                     "sites": totals.get("warned_sites", 0)},
    }
    summary["balanced"] = summary["records_in"] == results + errors + summary["skipped"]
    if "://" not in out:  # a local folder: keep the accounting beside the data
        Path(out, "summary.json").write_text(json.dumps(summary, indent=1) + "\n", "utf-8")
    return summary
