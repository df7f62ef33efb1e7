"""The local Spark session's class archive: where it is kept, when it is off, what keys it.

No JVM is started here: tests/test_spark.py runs the sessions themselves (and so writes and
maps the archive where the machine's cache is).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesift import spark_local


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SITESIFT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SITESIFT_SPARK_CDS", "1")
    if spark_local._java() is None or spark_local._spark_home() is None:
        pytest.skip("needs java and pyspark to name an archive")
    return tmp_path / "cache"


def test_the_archive_is_kept_in_the_cache_folder(cache: Path) -> None:
    archive = spark_local.class_archive("-XX:+UseSerialGC")
    assert archive is not None and archive.parent == cache and cache.is_dir()
    assert archive.name.startswith("spark-cds-") and archive.suffix == ".jsa"
    assert spark_local._dump_path(archive).parent == cache  # renamed within one folder


def test_other_java_options_get_another_archive(cache: Path) -> None:
    one = spark_local.class_archive("-XX:+UseSerialGC")
    assert one == spark_local.class_archive("-XX:+UseSerialGC")  # stable
    assert one != spark_local.class_archive("-XX:+UseParallelGC")


def test_the_archive_is_asked_for(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Off unless SITESIFT_SPARK_CDS asks: its first session costs ~40 CPU-s and 180 MB."""
    monkeypatch.setenv("SITESIFT_SPARK_CDS", "0")
    assert spark_local.class_archive("-XX:+UseSerialGC") is None
    monkeypatch.delenv("SITESIFT_SPARK_CDS")
    assert spark_local.class_archive("-XX:+UseSerialGC") is None


def test_no_archive_without_a_writable_cache(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("SITESIFT_CACHE_DIR", str(blocked / "cache"))
    assert spark_local._cache_dir() is None
