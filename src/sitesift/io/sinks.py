"""Result and error records on disk: per-site parts while a crawl runs, then the final files.

While a site is cleaned its records go to `<site>.results.jsonl.tmp` and
`<site>.errors.jsonl.tmp`; when it is done both are renamed at once, before the site is
entered in the done-manifest. A site whose parts were never renamed is redone from
scratch on resume, so a kill at any moment neither loses nor duplicates a record.
`finish` concatenates the parts in site order into `results.jsonl` (or converts them to
`results.parquet`) and `errors.jsonl`, each written to a temporary name and renamed.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from sitesift.io.records import ERROR_FIELDS, RESULT_FIELDS, is_result
from sitesift.io.spill import site_file

FORMATS = ("jsonl", "parquet")
_PARQUET_BATCH = 2000


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def result_schema() -> Any:
    import pyarrow as pa

    types = {"position": pa.int64(), "offset": pa.int64(), "blocks": pa.int32(),
             "content_blocks": pa.int32(), "warnings": pa.list_(pa.string())}
    return pa.schema([(name, types.get(name, pa.string())) for name in RESULT_FIELDS])


def error_schema() -> Any:
    import pyarrow as pa

    types = {"position": pa.int64(), "offset": pa.int64()}
    return pa.schema([(name, types.get(name, pa.string())) for name in ERROR_FIELDS])


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class PartStore:
    """Per-site part files in `folder`; open ones are `.tmp` until `commit`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.tmp"):  # a site cut off by a kill: it is redone
            stale.unlink()
        self._open: dict[str, tuple[IO[str], IO[str]]] = {}

    def _paths(self, site: str) -> tuple[Path, Path]:
        name = site_file(site)
        return self.folder / f"{name}.results.jsonl", self.folder / f"{name}.errors.jsonl"

    def write(self, site: str, record: dict[str, Any]) -> None:
        files = self._open.get(site)
        if files is None:
            res, err = self._paths(site)
            files = (open(f"{res}.tmp", "w", encoding="utf-8"),  # noqa: SIM115 - kept open
                     open(f"{err}.tmp", "w", encoding="utf-8"))  # noqa: SIM115
            self._open[site] = files
        files[0 if is_result(record) else 1].write(dumps(record))

    def commit(self, site: str) -> None:
        files = self._open.pop(site, None)
        for fh in files or ():
            fh.close()
        for path in self._paths(site):
            tmp = Path(f"{path}.tmp")
            if files is None:
                tmp.touch()
            os.replace(tmp, path)

    def close(self) -> None:
        for files in self._open.values():
            for fh in files:
                fh.close()
        self._open.clear()

    def parts(self, sites: Iterable[str]) -> tuple[list[Path], list[Path]]:
        pairs = [self._paths(s) for s in sorted(sites)]
        return [r for r, _ in pairs], [e for _, e in pairs]


def concat(sources: Iterable[Path], target: Path) -> int:
    """Concatenate JSONL files into `target` (atomically); the number of lines."""
    tmp = target.with_name(target.name + ".tmp")
    lines = 0
    with open(tmp, "wb") as out:
        for src in sources:
            with open(src, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    lines += chunk.count(b"\n")
                    out.write(chunk)
    os.replace(tmp, target)
    return lines


def jsonl_to_parquet(sources: Iterable[Path], target: Path, schema: Any) -> int:
    """Convert JSONL files into one Parquet file (atomically), in batches of rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = target.with_name(target.name + ".tmp")
    rows = 0
    with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
        batch: list[dict[str, Any]] = []
        for src in sources:
            with open(src, encoding="utf-8") as fh:
                for line in fh:
                    batch.append(json.loads(line))
                    if len(batch) >= _PARQUET_BATCH:
                        writer.write_table(pa.Table.from_pylist(batch, schema))
                        rows += len(batch)
                        batch = []
        if batch or rows == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema))
            rows += len(batch)
    os.replace(tmp, target)
    return rows


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
