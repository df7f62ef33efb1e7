"""benchmarks/native_stages.py times the native core's stages; with `--model` given twice it
times each page with both models in turn and reports the second's time over the first's, and
a model file it cannot read is refused before any page is timed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sitesift.errors import ModelError
from sitesift.extractor import model as model_file
from tests.conftest import benchmark_script

ROOT = Path(__file__).resolve().parents[1]
STYLED = ROOT / "tests" / "fixtures" / "styled"


def _run(monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    monkeypatch.setattr(sys, "argv", ["native_stages.py", str(STYLED), *args])
    benchmark_script("native_stages").main()


def test_two_models_are_timed_on_the_same_pages(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bundled = str(model_file.BUNDLED)
    _run(monkeypatch, "--model", bundled, "--model", bundled)
    out = capsys.readouterr().out
    pages = len((STYLED / "index.jsonl").read_text().splitlines())
    for n in (1, 2):
        assert f"all, {model_file.BUNDLED.name} #{n}: {pages} pages" in out
    ratios = out.split("per-page total over", 1)[1].splitlines()
    assert ratios[3].startswith(f"| {model_file.BUNDLED.name} #2 | ")


def test_an_unreadable_model_is_refused_before_any_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(b"\x1f\x8b not a gzip stream")
    with pytest.raises(ModelError, match=r"broken\.json\.gz"):
        _run(monkeypatch, "--model", str(model_file.BUNDLED), "--model", str(broken))
    assert "pages" not in capsys.readouterr().out
