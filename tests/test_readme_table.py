"""The README's results table is made by benchmarks/readme_table.py from bench runs: made
again from a small fabricated run, it holds that run's figures and commands, and `--check`
fails on a README whose table was edited by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import benchmark_script

ROOT = Path(__file__).resolve().parents[1]


def _run(folder: Path, methods: list[str], peers: list[str], f1: dict[str, float],
         env_note: str = "") -> Path:
    """A bench output folder as `sitesift bench --out` leaves it: run.json + pages.jsonl."""
    folder.mkdir()
    rows = []
    for corpus in ("big9", "wcxb"):
        for i in range(3):
            for name in methods + peers:
                rows.append({"corpus": corpus, "id": f"p{i}", "method": name,
                             "f1": f1[name] + (0.1 if corpus == "wcxb" else 0.0),
                             "cpu_ms": 2.0 + i, "ms": 9.0, "error": None})
    (folder / "pages.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    command = (f"sitesift bench /data/sets/big9 /data/sets/wcxb --methods {','.join(methods)} "
               f"--peers {','.join(peers) or 'none'} --workers 1 --out /tmp/x/{folder.name}")
    (folder / "run.json").write_text(json.dumps({
        "methods": methods, "peers": {p: "1.0" for p in peers}, "skipped": {},
        "corpora": {"big9": "site,year", "wcxb": "site"},
        "meta": {"date": "2026-01-02", "cpus": 2}, "command": command}))
    return folder


@pytest.fixture
def readme(tmp_path: Path) -> Path:
    path = tmp_path / "README.md"
    path.write_text("# x\n\n<!-- results:start -->\nSTALE-TABLE\n<!-- results:end -->\n\nafter\n")
    return path


def test_the_table_is_made_from_the_run(tmp_path: Path, readme: Path) -> None:
    script = benchmark_script("readme_table")
    run = _run(tmp_path / "bench-readme", ["default"], ["trafilatura", "resiliparse"],
               {"default": 0.8, "trafilatura": 0.7, "resiliparse": 0.6})
    assert script.main([str(run), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert "STALE-TABLE" not in text and text.endswith("<!-- results:end -->\n\nafter\n")
    assert "| corpus | pages | default† | trafilatura | Resiliparse |" in text
    # mean F1 over three pages, median CPU ms of 2, 3 and 4; nothing in bold, as the
    # default's F1 is on pages it trained on
    assert "| big9 | 3 | 0.800 · 3.0 ms | 0.700 · 3.0 ms | 0.600 · 3.0 ms |" in text
    assert "| wcxb | 3 | 0.900 · 3.0 ms | 0.800 · 3.0 ms | 0.700 · 3.0 ms |" in text
    assert ("sitesift bench $D/big9 $D/wcxb --methods default --peers trafilatura,resiliparse"
            " --workers 1 --out bench-readme") in text
    assert "on sites it never saw" in text
    assert script.main([str(run), "--readme", str(readme), "--check"]) == 0


def test_a_held_out_run_becomes_its_own_column(tmp_path: Path, readme: Path) -> None:
    script = benchmark_script("readme_table")
    run = _run(tmp_path / "bench-readme", ["default"], ["trafilatura"],
               {"default": 0.8, "trafilatura": 0.7})
    held = _run(tmp_path / "bench-heldout", ["default"], [], {"default": 0.75})
    assert script.main([str(run), "--heldout", str(held), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert "| corpus | pages | default, sites held out | default† | trafilatura |" in text
    # the best F1 on unseen pages in bold
    assert "| big9 | 3 | **0.750** | 0.800 · 3.0 ms | 0.700 · 3.0 ms |" in text
    held = _run(tmp_path / "bench-heldout2", ["default"], [], {"default": 0.65})
    assert script.main([str(run), "--heldout", str(held), "--readme", str(readme)]) == 0
    assert "| big9 | 3 | 0.650 | 0.800 · 3.0 ms | **0.700 · 3.0 ms** |" in readme.read_text()
    assert "SITESIFT_DEFAULT_MODEL=heldout.json.gz sitesift bench $D/big9" in text


def test_check_fails_on_a_stale_table(tmp_path: Path, readme: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    script = benchmark_script("readme_table")
    run = _run(tmp_path / "bench-readme", ["default"], ["trafilatura"],
               {"default": 0.8, "trafilatura": 0.7})
    assert script.main([str(run), "--readme", str(readme)]) == 0
    readme.write_text(readme.read_text().replace("| 0.700 · 3.0 ms", "| 0.710 · 3.0 ms"))
    stale = readme.read_text()
    assert script.main([str(run), "--readme", str(readme), "--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert readme.read_text() == stale  # --check writes nothing


def test_the_readme_has_the_markers_and_a_generated_table() -> None:
    text = (ROOT / "README.md").read_text()
    script = benchmark_script("readme_table")
    block = text.split(script.START, 1)[1].split(script.END, 1)[0]
    assert block.strip().startswith("| corpus | pages |") and "sitesift bench $D/" in block
