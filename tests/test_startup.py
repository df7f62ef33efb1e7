"""What a process of a crawl or a batch pays before its first page (issue 53): the parent's
check of the default model (its seal and head, not a whole load), and the modules a spawned
ingest or cleaning worker imports."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sitesift.errors import ModelError
from sitesift.extractor import model as model_file
from sitesift.io.warc import HttpResponse, write_warc
from sitesift.model_io import seal
from tests.conftest import refused

SRC = Path(__file__).resolve().parents[1] / "src"
PAGE = (b"<html><head><title>Tide</title></head><body><nav>Home News</nav><article><p>"
        b"Boats sail at dawn from the harbour when the spring tide is high enough to clear "
        b"the bar, the harbour master said on Tuesday.</p></article></body></html>")


def _doc() -> dict[str, object]:
    raw = gzip.decompress(model_file.BUNDLED.read_bytes())
    doc: dict[str, object] = json.loads(raw)
    return doc


def _written(path: Path, doc: dict[str, object]) -> Path:
    path.write_bytes(gzip.compress(seal(doc)))
    return path


def test_the_head_check_refuses_what_a_whole_load_refuses(tmp_path: Path) -> None:
    """Damaged, altered, foreign and old-feature-set files: the same ModelError from the
    cheap check as from `load_scorer` (each with its file's name)."""
    assert model_file.check_head(model_file.BUNDLED) == \
        model_file.load_scorer(model_file.BUNDLED).thresholds
    raw = gzip.decompress(model_file.BUNDLED.read_bytes())
    bad: dict[str, bytes] = {
        "cut.json.gz": gzip.compress(raw)[:5000],  # truncated gzip
        "half.json": raw[: len(raw) // 2],  # sealed head, half the body: checksum
        "altered.json": raw.replace(b'"balanced":0.', b'"balanced":1.', 1),
        "readme.json": b"# not a model\n",
    }
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
    doc = _doc()
    doc["features"] = list(doc["features"])[:-1]  # type: ignore[call-overload]
    _written(tmp_path / "features.json.gz", doc)
    doc = _doc()
    doc["thresholds"] = {"precision": 0.2, "balanced": 0.5, "recall": 0.4}
    _written(tmp_path / "order.json.gz", doc)
    for name in [*bad, "features.json.gz", "order.json.gz"]:
        path = tmp_path / name
        with pytest.raises(ModelError) as whole:
            model_file.load_scorer(path)
        with pytest.raises(ModelError) as head:
            model_file.check_head(path)
        assert str(head.value) == str(whole.value) and str(path) in str(head.value), name


def test_a_resealed_bad_forest_passes_the_head_and_fails_every_worker(
        tmp_path: Path) -> None:
    """What the parent no longer reads: a body made bad and sealed again (never a file
    sitesift writes). The crawl's workers load the model whole and refuse it: every page
    an error record naming the forest, exit status 1; a damaged file is still refused by
    the parent before any work (exit 2, nothing written)."""
    doc = _doc()
    stage1 = doc["stage1"]
    assert isinstance(stage1, dict)
    stage1["feature"] = [10**6] * len(stage1["feature"])  # features that do not exist
    forged = _written(tmp_path / "forged.json.gz", doc)
    model_file.check_head(forged)
    with pytest.raises(ModelError, match="forest"):
        model_file.load_scorer(forged)
    warc = tmp_path / "in.warc.gz"
    write_warc(warc, [HttpResponse(f"http://a.example/{k}.html", PAGE) for k in range(3)])
    from sitesift.cli import main

    out = tmp_path / "out"
    assert main(["crawl", str(warc), "--out", str(out), "--set", f"model={forged}",
                 "-q"]) == 1
    errors = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert len(errors) == 3 and all("forest" in e["reason"] for e in errors), errors
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(forged.read_bytes()[:3000])
    refused(["crawl", str(warc), "--out", str(tmp_path / "o2"), "--set", f"model={cut}"],
            "cut.json.gz: cannot read")
    assert not (tmp_path / "o2").exists()


def _modules(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(sorted(sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120, env={"PYTHONPATH": str(SRC)}).stdout
    return set(json.loads(out.replace("'", '"')))


def test_a_spawned_ingest_process_imports_no_dom_and_no_api() -> None:
    """A crawl's ingest process: the `sitesift` script run again as `__mp_main__` (which
    imports `sitesift.cli`) and the WARC reading and spill code; not the API, the DOM, the
    HTML parser or the commands' modules."""
    loaded = _modules("import sitesift.cli, sitesift.io.ingest")
    assert not loaded & {"sitesift.api", "sitesift.page", "sitesift.dom", "selectolax",
                         "sitesift.methods.base", "sitesift.cli.clean", "numpy"}


def test_a_cleaning_worker_prepares_the_default_method_only() -> None:
    loaded = _modules("from sitesift.jobs.site import prepare_worker\nprepare_worker()")
    assert "sitesift.methods.default" in loaded
    assert not loaded & {"sitesift.methods.sst", "sitesift.methods.cetr", "scipy", "numpy"}


def test_a_worker_imports_a_methods_libraries_beyond_its_memory_limit() -> None:
    """The libraries a method names (`Cleaner.imports`: NumPy for all but the default
    cleaner) are imported when a worker warms the method, outside its memory limit, which
    then grows by what they took (NumPy's OpenBLAS fails under 200 MiB); a browser's start
    lifts the limit and puts it back as it was; pages still meet the limit."""
    probe = ("import resource\n"
             "from sitesift.guards import limit_memory\n"
             "from sitesift.memory import outside_limit\n"
             "limit_memory(100)\n"
             "soft = resource.getrlimit(resource.RLIMIT_AS)[0]\n"
             "with outside_limit():\n"
             "    held = bytearray(50 * 2**20)\n"
             "assert resource.getrlimit(resource.RLIMIT_AS)[0] == soft\n"
             "del held\n"
             "with outside_limit(grow=True):\n"
             "    import numpy\n"
             "grown = resource.getrlimit(resource.RLIMIT_AS)[0] - soft\n"
             "assert numpy.ones(1000).sum() == 1000 and grown > 10 * 2**20, grown\n"
             "try:\n"
             "    bytearray(300 * 2**20)\n"
             "except MemoryError:\n"
             "    print('limited')\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120, env={"PYTHONPATH": str(SRC)}).stdout
    assert out.strip() == "limited"


def test_a_default_site_fit_and_its_cleaning_import_no_numpy() -> None:
    """The default cleaner fits on a site (its repeated-page check included: the core's,
    on the shingles of the core's reading) and cleans its pages without NumPy, so a crawl's
    worker never imports it (0.1 s of CPU each)."""
    loaded = _modules(
        "from sitesift import get_cleaner\n"
        "from sitesift.cli import SAMPLE_SITE\n"
        "from sitesift.datasets import load_page, read_index\n"
        "rows = read_index(SAMPLE_SITE)[:6]\n"
        "pages = [load_page(SAMPLE_SITE, r) for r in rows]\n"
        "cleaner = get_cleaner('default').fit(pages + pages[:1])\n"
        "assert cleaner.fit_warnings and cleaner.evidence.n_pages == 6\n"
        "assert all(cleaner.clean(p).text for p in pages)")
    assert "sitesift.methods.default" in loaded and "numpy" not in loaded


def test_the_package_names_load_on_first_use() -> None:
    import sitesift

    assert sitesift.clean is sitesift.api.clean
    assert set(sitesift.__all__) <= set(dir(sitesift))
    with pytest.raises(AttributeError, match="nosuch"):
        _ = sitesift.nosuch  # type: ignore[attr-defined]
