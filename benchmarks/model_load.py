"""CPU time of a cold `extractor.model.load_scorer`, what every crawl or batch worker pays
once for the default cleaner's model, and of its parts.

    python benchmarks/model_load.py [MODEL ...]   # default: the bundled model

Each figure is the best of `--repeat` runs (process CPU time): the whole load with its
memo cleared, then the gunzip, the JSON parse and the checksum alone (the seal of a
version-3 file, or the canonical-JSON digest of a version 1 or 2 file).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sitesift.extractor import model as model_file
from sitesift.model_io import check_seal, parse_document
from sitesift.reading import read_bounded


def best(run: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def cold_load(path: Path) -> None:
    model_file._scorer_cached.cache_clear()
    model_file.load_scorer(path)


def measure(path: Path, repeat: int) -> str:
    """One model file's figures, as a line."""
    model_file.load_scorer(path)  # the imports and the native module, not timed
    raw = read_bounded(path, model_file.MAX_BYTES, gunzip=None)
    doc = parse_document(raw)
    version = doc["format_version"]
    if version == model_file.FORMAT_VERSION:
        checksum = best(lambda: check_seal(raw, model_file.FORMAT, version), repeat)
    else:
        checksum = best(lambda: model_file._legacy_digest(doc), repeat)
    load = best(lambda: cold_load(path), repeat)
    gunzip = best(lambda: read_bounded(path, model_file.MAX_BYTES, gunzip=None), repeat)
    parse = best(lambda: parse_document(raw), repeat)
    return (f"{path} (format version {version}): load_scorer {load:.3f} s CPU; gunzip "
            f"{gunzip:.3f} s, JSON {parse:.3f} s, checksum {checksum:.4f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", type=Path, default=[model_file.BUNDLED])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for path in args.models:
        print(measure(path, args.repeat))


if __name__ == "__main__":
    main()
