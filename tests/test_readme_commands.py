"""The README's commands run as written on a fresh checkout: the bash blocks of "The commands"
and "Settings and conventions" are run line by line as one shell script, in a folder where
`src/` is the checkout's (the blocks' paths are relative to the checkout), and every command
must succeed. None needs data outside the checkout: the samples they use ship with sitesift
(src/sitesift/data/sample_site, sample_labelled, sample_courier), and each generator writes
its sample's pages again byte for byte."""

from __future__ import annotations

import filecmp
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SECTIONS = ("The commands", "Settings and conventions")
DATA = ROOT / "src" / "sitesift" / "data"
PEERS = ("trafilatura", "resiliparse")


def readme_blocks() -> list[str]:
    """The bash blocks of the README's sections of commands, in order."""
    text = README.read_text(encoding="utf-8")
    blocks = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title = section.splitlines()[0].strip()
        if title in SECTIONS:
            blocks += re.findall(r"^```bash\n(.*?)^```", section, flags=re.M | re.S)
    return blocks


def _lines() -> list[str]:
    lines = [line for block in readme_blocks() for line in block.splitlines()]
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _run(lines: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    (cwd / "src").symlink_to(ROOT / "src")
    script = "set -euo pipefail\n" + "\n".join(
        f"echo '+ {line.replace(chr(39), '')}' >&2\n{line}" for line in lines) + "\n"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("SITESIFT_DEFAULT_MODEL", None)
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1800)


def test_the_readme_lists_the_commands() -> None:
    commands = {line.split()[1] for line in _lines() if line.startswith("sitesift ")}
    assert {"clean", "fit", "crawl", "evaluate", "bench", "report", "mine", "articles",
            "train-default"} <= commands
    # no placeholder or folder that a fresh checkout lacks
    for line in _lines():
        assert "$D" not in line and "site-a/" not in line, line


def test_the_readme_commands_run_as_written(tmp_path: Path) -> None:
    # all but the bench line, which needs the `bench` extra: test_the_readme_bench_line
    lines = [line for line in _lines() if not line.startswith("sitesift bench ")]
    done = _run(lines, tmp_path)
    assert done.returncode == 0, f"a README command failed:\n{done.stderr[-4000:]}"
    # what the commands say they write
    assert (tmp_path / "site.sst.json").is_file() and (tmp_path / "model.json.gz").is_file()
    assert (tmp_path / "report" / "index.html").is_file()
    assert (tmp_path / "mine-out" / "clustering.md").is_file()
    assert json.loads((tmp_path / "mine-paper" / "results.json").read_text())["settings"][
        "runs"] == 400
    # the articles sample: the Courier's three reprints, each with its Gazette original
    groups = [json.loads(x) for x in
              (tmp_path / "articles-out" / "articles.jsonl").read_text().splitlines()]
    reprints = {r["id"]: r["reprint_of"] for r in map(json.loads, (
        DATA / "sample_courier" / "index.jsonl").read_text().splitlines()) if "reprint_of" in r}
    assert sorted(sorted(p["id"] for p in g["pages"]) for g in groups) == sorted(
        sorted(pair) for pair in reprints.items())


def test_the_readme_bench_line(tmp_path: Path) -> None:
    missing = [p for p in PEERS if not importlib.util.find_spec(p)]
    if missing:
        pytest.skip(f"the README's bench line needs the peers {', '.join(missing)} "
                    "(pip install '.[bench]'; scripts/test.sh installs them)")
    lines = _lines()
    setup = [line for line in lines if re.match(r"^[A-Z]=", line)]
    bench = [line for line in lines if line.startswith("sitesift bench ")]
    assert bench
    done = _run(setup + bench, tmp_path)
    assert done.returncode == 0, f"the README's bench line failed:\n{done.stderr[-4000:]}"


@pytest.mark.parametrize("sample, script", [("sample_labelled", "make_labelled.py"),
                                            ("sample_courier", "make_courier.py")])
def test_the_samples_are_made_by_their_generators(sample: str, script: str,
                                                  tmp_path: Path) -> None:
    """Each bundled sample is what its generator writes: invented pages, labelled, no more."""
    copy = tmp_path / "data" / sample
    shutil.copytree(DATA / sample, copy, ignore=shutil.ignore_patterns("pages", "index.jsonl"))
    if sample == "sample_courier":  # the reprints come from the sample site's stories
        (copy.parent / "sample_site").mkdir()
        shutil.copy(DATA / "sample_site" / "articles.json", copy.parent / "sample_site")
    subprocess.run([sys.executable, str(copy / script)], check=True, capture_output=True)
    made = sorted(p.name for p in (copy / "pages").iterdir())
    assert made == sorted(p.name for p in (DATA / sample / "pages").iterdir())
    _, mismatch, errors = filecmp.cmpfiles(copy / "pages", DATA / sample / "pages", made,
                                           shallow=False)
    assert not mismatch and not errors
    assert (copy / "index.jsonl").read_bytes() == (DATA / sample / "index.jsonl").read_bytes()
    size = sum(p.stat().st_size for p in (DATA / sample).rglob("*") if p.is_file())
    assert size < 120_000, f"{sample} is {size} bytes: keep the bundled samples small"
