"""The spark-submit entry of the crawl: `spark-submit .../sitesift/spark_submit.py INPUT...
--out DIR` takes the arguments of `sitesift crawl` and runs `sitesift.spark` on the cluster
it was submitted to. Apart from `sitesift.spark`, so that the job does not import the CLI
(which imports the job for `crawl --engine spark`).
"""

from __future__ import annotations

import json
import sys

from sitesift.cli import build_parser, crawl_settings
from sitesift.spark import run_spark


def main(argv: list[str] | None = None) -> int:
    """spark-submit entry: the arguments of `sitesift crawl`, run on the submitted cluster."""
    from pyspark.sql import SparkSession

    args = build_parser().parse_args(["crawl", *(sys.argv[1:] if argv is None else argv)])
    cfg, limits = crawl_settings(args)
    spark = SparkSession.builder.appName("sitesift-crawl").getOrCreate()
    try:
        summary = run_spark(spark, list(args.inputs), args.out, cfg, limits)
    finally:
        spark.stop()
    print(json.dumps(summary, indent=1))
    return 0 if summary["balanced"] else 1


if __name__ == "__main__":
    sys.exit(main())
