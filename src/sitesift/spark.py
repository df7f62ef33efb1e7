"""The crawl on Apache Spark: the local job's reading and per-site step, distributed.

    inputs --flatMap(read)--> (key, item) --groupByKey--> sites and per-input accounting
           --mapPartitions(clean: one guarded worker process per task)--> outcomes
           --> OUT/results (Parquet), OUT/errors (Parquet), OUT/sites (JSON), summary

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
import os
import sys
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

Keyed = tuple[tuple[str, Any], Any]


def local_session(cores: int = 2, app: str = "sitesift-crawl") -> Any:
    """A local-mode SparkSession tuned to start fast (tests, benchmarks, --engine spark)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers need sitesift too
    return (
        SparkSession.builder.master(f"local[{cores}]").appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.pyspark.driver.python", sys.executable)
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", str(cores * 2))
        .config("spark.default.parallelism", str(cores * 2))
        # C1 only: the JVM starts about twice as fast, and the work is in Python anyway
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )


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
           limits: Limits) -> Iterator[tuple[str, Any]]:
    """One partition: sites through a guarded worker; accounting items passed through."""
    side: list[tuple[str, Any]] = []

    def tasks() -> Iterator[SiteTask]:
        for (kind, name), values in groups:
            if kind == "site":
                pages = sorted(values, key=lambda r: r.order)
                yield inline_task(name, pages, cfg)
            elif kind == "read":
                side.extend(("error", record) for record in values)
            else:
                side.extend(("count", value) for value in values)

    # The engine's kept workers: Spark reuses its Python workers across tasks, and so the
    # cleaning process (NumPy, SciPy, ... imported) serves every partition it runs.
    for _task, message in crawl_records(tasks(), cfg, RunSettings(1, limits)):
        yield from side
        side.clear()
        if isinstance(message, SiteDone):
            yield "site", {"site": message.site, "pages": message.pages,
                           "method": message.method, "model": message.model,
                           "note": message.note, "warnings": list(message.warnings)}
        else:
            yield ("result" if "text" in message else "error"), message
    yield from side


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


def _bin(key: tuple[str, Any], bins: Any) -> int:
    if key[0] == "site":
        return int(bins.value.get(key[1], 0))
    from pyspark.rdd import portable_hash

    return int(portable_hash(key))


def _schema(fields: tuple[str, ...]) -> Any:
    from pyspark.sql.types import (
        ArrayType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    kinds = {"position": LongType(), "offset": LongType(), "blocks": IntegerType(),
             "content_blocks": IntegerType(), "warnings": ArrayType(StringType(), False)}
    return StructType([StructField(f, kinds.get(f, StringType()), True) for f in fields])


def _tally(item: tuple[str, Any]) -> list[tuple[str, int]]:
    kind, value = item
    if kind == "count":
        records_in, skipped = value
        return [("records_in", records_in)] + [(f"skip:{r}", n) for r, n in skipped.items()]
    if kind == "site":
        return [("sites", 1), (f"model:{value['model']}", 1), ("pages", value["pages"]),
                ("warned_sites", int(bool(value.get("warnings"))))]
    if kind == "result":
        return [(kind, 1), ("warned_pages", int(bool(value.get("warnings"))))]
    return [(kind, 1)]


def run_spark(spark: Any, inputs: list[str], out: str, cfg: CrawlConfig,
              limits: Limits | None = None, partitions: int | None = None) -> dict[str, Any]:
    """Run the crawl of `inputs` on `spark`, writing Parquet under `out`; its summary."""
    from pyspark import StorageLevel

    cfg.check()
    limits = limits or Limits()
    sc = spark.sparkContext
    parts = partitions or 4 * max(2, sc.defaultParallelism)
    paths = sc.parallelize(list(enumerate(inputs)), max(1, len(inputs)))
    keyed = paths.flatMap(partial(_read, cfg=cfg)).persist(StorageLevel.MEMORY_AND_DISK)
    weights = (keyed.filter(lambda x: x[0][0] == "site")
               .map(lambda x: (x[0][1], len(x[1].body) + 4096)).reduceByKey(lambda a, b: a + b)
               .collect())
    bins = sc.broadcast(balanced_bins(dict(weights), parts))
    outcomes = (keyed.groupByKey(numPartitions=parts, partitionFunc=partial(_bin, bins=bins))
                .mapPartitions(partial(_clean, cfg=cfg, limits=limits))
                .persist(StorageLevel.MEMORY_AND_DISK))
    try:
        for kind, fields in (("result", RESULT_FIELDS), ("error", ERROR_FIELDS)):
            rows = outcomes.filter(lambda x, k=kind: x[0] == k).map(
                lambda x, f=fields: tuple(x[1][name] for name in f))
            spark.createDataFrame(rows, _schema(fields)).write.mode("overwrite").parquet(
                f"{out}/{kind}s")
        (outcomes.filter(lambda x: x[0] == "site").map(lambda x: json.dumps(x[1]))
         .toDF("string").write.mode("overwrite").text(f"{out}/sites"))
        totals = dict(outcomes.flatMap(_tally).reduceByKey(lambda a, b: a + b).collect())
    finally:
        outcomes.unpersist()
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
