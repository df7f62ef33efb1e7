"""The crawl on Apache Spark: the local job's reading and per-site step, distributed.

    inputs --flatMap(read)--> (key, item) --groupByKey--> sites and per-input accounting
           --mapPartitions(clean: one guarded worker process per task)--> outcome rows
           --> one cached table --filters--> OUT/results (Parquet), OUT/errors (Parquet),
               OUT/sites (JSON lines), the summary's tallies
    results' rows for the copy check --groupByKey(digest), then (LSH band)--> copies
           --left join on (input, position)--> the results' `dup_of`

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
from sitesift.io import dups
from sitesift.io.records import (
    DUP_OF_FIELDS,
    DUP_ROW,
    ERROR_FIELDS,
    METADATA_FIELDS,
    RESULT_FIELDS,
    Failed,
    PageRecord,
    error_record,
)
from sitesift.io.sources import read_input
from sitesift.jobs.grouping import site_key
from sitesift.jobs.outcome import SiteDone
from sitesift.jobs.run import RunSettings
from sitesift.jobs.task import SiteTask
from sitesift.language import SKIP_REASON
from sitesift.native import core
from sitesift.sitework import CrawlConfig, crawl_records, inline_task
from sitesift.spark_local import local_session

__all__ = ["balanced_bins", "local_session", "run_spark"]

Keyed = tuple[tuple[str, Any], Any]
# The outcome table's columns: a row's kind ("result", "error", "site", "tally"), the fields
# of result and error records, a result's row for the copy check, and a JSON text (a site's
# line, a partition's tally).
_RECORD_FIELDS = RESULT_FIELDS + tuple(f for f in ERROR_FIELDS if f not in RESULT_FIELDS)
_OUTCOME_FIELDS = ("kind", *_RECORD_FIELDS, "dup_row", "json")


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
        elif not cfg.written(message):  # a result --lang leaves out
            tally["skip:" + SKIP_REASON] += 1
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
    return (kind, *(record.get(f) for f in _RECORD_FIELDS), record.get(DUP_ROW), blob)


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
        BinaryType,
        DoubleType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    kinds = {"position": LongType(), "offset": LongType(), "blocks": IntegerType(),
             "content_blocks": IntegerType(), "warnings": ArrayType(StringType(), False),
             "dup_of": _dup_of_type(), "dup_row": BinaryType(), "language_score": DoubleType(),
             "page_type_score": DoubleType(), "confidence": DoubleType(),
             "fallback_from_confidence": DoubleType(),
             "metadata": StructType([StructField(f, StringType(), True) for f in METADATA_FIELDS])}
    return StructType([StructField(f, kinds.get(f, StringType()), True) for f in fields])


def _dup_of_type() -> Any:
    from pyspark.sql.types import (
        BooleanType,
        DoubleType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    kinds = {"position": LongType(), "similarity": DoubleType(), "exact": BooleanType()}
    return StructType([StructField(f, kinds.get(f, StringType()), True) for f in DUP_OF_FIELDS])


def _by_digest(row: bytes) -> list[tuple[bytes, bytes]]:
    """A result's row keyed by its text's digest (none: a record without text)."""
    digest = core().dup_sources(row)[0].digest
    return [] if digest is None else [(bytes(digest), row)]


def _exact(group: tuple[bytes, Iterable[bytes]]) -> Iterator[tuple[str, Any]]:
    """One text's records: its copies ("copy", ((input, position), (original's place,
    dup_of))) and its first record's row ("first", row), which the near check takes on."""
    rows = list(group[1])
    copies = dups.find_copies(b"".join(rows))[1] if len(rows) > 1 else []
    copied = {c.index for c in copies}
    for c in copies:
        yield "copy", (c.key, (c.original, c.dup_of))
    yield from (("first", row) for i, row in enumerate(rows) if i not in copied)


def _bands(row: bytes) -> list[tuple[tuple[int, int], bytes]]:
    return [((band, key), row) for band, key in enumerate(core().dup_bands(row))]


def _near(group: tuple[Any, Iterable[bytes]]) -> Iterator[tuple[Any, Any]]:
    """The near copies among the texts of one LSH bucket: for each, the first earlier text
    of the bucket it resembles (`dups.rs` gives, over all buckets, the least of these)."""
    rows = list(group[1])
    if len(rows) > 1:
        for c in dups.find_copies(b"".join(rows))[1]:
            yield c.key, (c.original, c.dup_of)


def _copies(results: Any) -> tuple[Any, Counter[str]]:
    """The copies among `results` (a DataFrame with a `dup_row` column) as an RDD of
    ((input, position), dup_of), and their count by kind. The same as the local job's
    (`dups.find_copies` over all rows): exact copies by a shuffle on the digest, near ones
    by a shuffle on each LSH band of the first records of each text."""
    rows = results.select("dup_row").rdd.map(lambda r: bytes(r[0]))
    by_text = rows.flatMap(_by_digest).groupByKey().flatMap(_exact).cache()
    exact = by_text.filter(lambda x: x[0] == "copy").map(lambda x: x[1])
    firsts = by_text.filter(lambda x: x[0] == "first").map(lambda x: x[1])
    near = (firsts.flatMap(_bands).groupByKey().flatMap(_near)
            .reduceByKey(lambda a, b: min(a, b, key=lambda c: c[0])))
    copies = exact.union(near).map(lambda kv: (kv[0], kv[1][1])).cache()
    counts = Counter[str](copies.map(lambda kv: "exact" if kv[1]["exact"] else "near")
                          .countByValue())
    by_text.unpersist()
    return copies, counts


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
    copies = None
    try:
        results = table.filter(table.kind == "result")
        copies, copied = _copies(results)
        marks = spark.createDataFrame(
            copies.map(lambda kv: (kv[0][0], kv[0][1], kv[1])),
            _schema(("input", "position", "dup_of")))
        results = results.drop("dup_of").join(marks, ["input", "position"], "left")
        if cfg.drop_duplicates:
            results = results.filter(results.dup_of.isNull())
        results.select(*RESULT_FIELDS).write.mode("overwrite").parquet(f"{out}/results")
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
        if copies is not None:
            copies.unpersist()
        table.unpersist()
        keyed.unpersist()
    return _summary(totals, len(inputs), out, copied, cfg.drop_duplicates)


def _summary(totals: dict[str, int], inputs: int, out: str, copied: Counter[str],
             dropped: bool) -> dict[str, Any]:
    skipped = {k[5:]: v for k, v in sorted(totals.items()) if k.startswith("skip:")}
    duplicates = dups.summary(copied["exact"], copied["near"], dropped)
    results = totals.get("result", 0) - duplicates["dropped"]
    errors = totals.get("error", 0)
    summary: dict[str, Any] = {
        "inputs": inputs, "records_in": totals.get("records_in", 0),
        "pages": totals.get("pages", 0), "results": results, "errors": errors,
        "skipped": sum(skipped.values()), "skipped_by_reason": skipped,
        "duplicates": duplicates,
        "sites": totals.get("sites", 0),
        "sites_by_model": {k[6:]: v for k, v in sorted(totals.items())
                           if k.startswith("model:")},
        "warnings": {"pages": totals.get("warned_pages", 0),
                     "sites": totals.get("warned_sites", 0)},
    }
    summary["balanced"] = (summary["records_in"]
                           == results + duplicates["dropped"] + errors + summary["skipped"])
    if "://" not in out:  # a local folder: keep the accounting beside the data
        Path(out, "summary.json").write_text(json.dumps(summary, indent=1) + "\n", "utf-8")
    return summary
