"""A local-mode Spark for `sitesift crawl --engine spark`, the tests and the benchmarks.

On 1,000 pages the crawl's own work is small beside Spark's: starting the driver's JVM
loads some 11,600 classes from Spark's jars (class loading and verification: half of the
session's start), and each task costs tens of ms of CPU in the JVM and the Python worker.
So a local session has as many default partitions as cores, and where asked
(SITESIFT_SPARK_CDS=1) keeps its JVM's classes in a class-data-sharing archive (AppCDS, a
standard JDK feature), dumped once at the first session's exit and mapped by the next ones:
each later session starts in 3-4 CPU-s rather than 6-7, but the first one costs about 40
CPU-s more and the archive is ~180 MB, a loss for anyone who runs a few local crawls, so it
is off by default. None of this is for a cluster: spark-submit (`sitesift.spark_submit`)
takes the cluster's own settings.

The archive is kept under SITESIFT_CACHE_DIR, else $XDG_CACHE_HOME/sitesift, else
~/.cache/sitesift.
"""

from __future__ import annotations

import atexit
import glob
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

# C1 only: the JVM starts about twice as fast, and the work is in Python anyway.
_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
# A stale or foreign archive is ignored by the JVM (-Xshare:auto); say nothing about it, nor
# about the classes a dump skips (generated ones), which would otherwise fill the console.
_QUIET_CDS = "-Xlog:cds=off -Xlog:cds+dynamic=off"
_DUMP_WAIT_S = 120.0


def local_session(cores: int = 2, app: str = "sitesift-crawl") -> Any:
    """A local-mode SparkSession tuned to start fast (tests, benchmarks, --engine spark)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers need sitesift too
    archive = class_archive(_JAVA_OPTIONS)
    java_options = _JAVA_OPTIONS
    if archive is not None:
        java_options += f" {_QUIET_CDS} " + (f"-XX:SharedArchiveFile={archive}" if archive.is_file()
                                             else f"-XX:ArchiveClassesAtExit={_dump_path(archive)}")
    session = (
        SparkSession.builder.master(f"local[{cores}]").appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.pyspark.driver.python", sys.executable)
        .config("spark.driver.host", "127.0.0.1")
        # One partition a core by default: every task is a round trip through the JVM and a
        # Python worker (~30 ms of CPU here), worth paying for parallelism only.
        .config("spark.sql.shuffle.partitions", str(cores))
        .config("spark.default.parallelism", str(cores))
        .config("spark.driver.extraJavaOptions", java_options)
        .getOrCreate()
    )
    if archive is not None and not archive.is_file():
        _finish_dump_at_exit(session, archive)
    return session


def class_archive(java_options: str) -> Path | None:
    """Where the class archive of this Java, Spark and JVM options is (it may not exist
    yet); None when disabled or there is no cache folder to keep it in."""
    if os.environ.get("SITESIFT_SPARK_CDS", "0") in ("0", "false", "no", ""):
        return None
    java = _java()
    spark_home = _spark_home()
    if java is None or spark_home is None:
        return None
    key = hashlib.sha256()
    modules = java.parent.parent / "lib" / "modules"  # the JDK's own classes: its upgrades
    for part in (str(java), _stat(modules), java_options, spark_home,
                 *sorted(glob.glob(os.path.join(spark_home, "jars", "*.jar")))):
        key.update(part.encode() + b"\0")
    folder = _cache_dir()
    return folder / f"spark-cds-{key.hexdigest()[:16]}.jsa" if folder is not None else None


def _java() -> Path | None:
    """The java that spark-submit runs: JAVA_HOME's, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return Path(found).resolve() if found and os.path.isfile(found) else None


def _spark_home() -> str | None:
    if "SPARK_HOME" in os.environ:
        return os.environ["SPARK_HOME"]
    try:
        import pyspark
    except ImportError:
        return None
    return os.path.dirname(pyspark.__file__)


def _stat(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return ""
    return f"{st.st_size}:{st.st_mtime_ns}"


def _cache_dir() -> Path | None:
    root = (os.environ.get("SITESIFT_CACHE_DIR")
            or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                            "sitesift"))
    try:
        Path(root).mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return Path(root) if os.access(root, os.W_OK) else None


def _dump_path(archive: Path) -> Path:
    """The JVM writes its archive here as it exits; renamed into place once it is whole."""
    return archive.with_name(f"{archive.name}.{os.getpid()}.tmp")


def _finish_dump_at_exit(session: Any, archive: Path) -> None:
    """The JVM dumps its classes when it exits, which is after this process's last word to
    it (it exits on its stdin's end). At this process's exit: end that stdin, wait for the
    dump, and only then move it into place (an archive half written is never used)."""
    proc = getattr(getattr(session.sparkContext, "_gateway", None), "proc", None)
    dump = _dump_path(archive)
    if proc is None:  # not our JVM (PYSPARK_GATEWAY_PORT): it may never dump; nothing to do
        return

    def finish() -> None:
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(_DUMP_WAIT_S)
            if proc.returncode == 0 and dump.is_file() and dump.stat().st_size > 0:
                os.replace(dump, archive)
                for old in archive.parent.glob("spark-cds-*.jsa"):  # other Javas or Sparks
                    if old != archive:
                        old.unlink(missing_ok=True)
        except (OSError, subprocess.TimeoutExpired):  # an optimisation only: no archive
            pass
        finally:
            dump.unlink(missing_ok=True)

    atexit.register(finish)
