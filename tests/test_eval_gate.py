"""The CI evaluation gate: every pinned sitesift method keeps its F1 on the fixed slice.

Floors and the slice live in benchmarks/gate/; the slice's pages come from ../shared/datasets
(the tests skip where it is absent). Rewrite floors with `sitesift gate --write` (reviewed).
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from sitesift.bench import gate
from sitesift.cli import SAMPLE_SITE
from sitesift.datasets import read_index
from sitesift.methods import base
from sitesift.methods.alltext import AllText
from sitesift.page import Page
from sitesift.result import NOISE, Result
from tests.conftest import SHARED

GATE_DIR = Path(__file__).resolve().parents[1] / "benchmarks" / "gate"
FLOORS = gate.Floors.load(GATE_DIR / "floors.json")
PAGES = gate.load_slice(GATE_DIR / "slice.json")


@pytest.fixture(scope="module")
def shared() -> Path:
    missing = [c for c in PAGES if not (SHARED / c / "index.jsonl").is_file()]
    if missing:
        pytest.skip(f"the gate needs the shared corpora {', '.join(missing)} under {SHARED}")
    return SHARED


@pytest.fixture(scope="module")
def scores(shared: Path) -> gate.GateResult:
    return gate.score_methods([m for m in FLOORS.floors if m in base.method_names()], shared,
                              PAGES)


def test_slice_is_the_one_the_floors_were_measured_on(shared: Path) -> None:
    try:
        gate.verify_slice(FLOORS, shared, PAGES)
    except gate.SliceChanged as exc:
        pytest.fail(str(exc))


def test_slice_file_follows_its_rule(shared: Path) -> None:
    assert gate.choose_slice(shared) == PAGES


@pytest.mark.parametrize("method", sorted(FLOORS.floors), ids=sorted(FLOORS.floors))
def test_method_keeps_its_floor(method: str, scores: gate.GateResult) -> None:
    assert method in base.method_names(), f"{method} has a floor but is not registered"
    failures = gate.check({method: scores.scores[method]}, FLOORS)
    assert not failures, "\n".join(failures) + "\n" + scores.table(FLOORS)


class HalfDrop(AllText):
    """A deliberately broken method: all visible text, then every second block dropped."""

    name = "halfdrop-test"

    def clean(self, page: Page, *, noise: bool = True) -> Result:
        result = super().clean(page, noise=noise)
        for i, block in enumerate(result.content):
            if i % 2:
                block.label = NOISE
        result.verdicts = None  # it decides on blocks, not nodes: its text is theirs
        return result


def test_gate_fails_on_a_broken_method(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(base._REGISTRY, HalfDrop.name, HalfDrop)
    result = gate.score_methods([HalfDrop.name, "alltext"], shared, PAGES)
    floors = gate.Floors({HalfDrop.name: FLOORS.floors["alltext"],
                          "alltext": FLOORS.floors["alltext"]}, FLOORS.slice_sha256)
    failures = gate.check(result.scores, floors)
    assert [f.split(":")[0] for f in failures] == [HalfDrop.name]


@pytest.mark.parametrize(
    ("scores", "failing"),
    [({"a": 0.80, "b": 0.75}, []), ({"a": 0.7951, "b": 0.75}, []),
     ({"a": 0.7949, "b": 0.75}, ["a"]), ({"a": 0.5, "b": 0.1, "c": 0.0}, ["a", "b"])],
    ids=["at-floor", "within-margin", "beyond-margin", "no-floor-no-check"],
)
def test_check_applies_floor_minus_margin(scores: dict[str, float], failing: list[str]) -> None:
    floors = gate.Floors({"a": 0.805, "b": 0.75}, "hash", margin=0.01)
    assert [f.split(":")[0] for f in gate.check(scores, floors)] == failing


@pytest.fixture
def sample_corpora(tmp_path: Path) -> Path:
    """A copy of the bundled sample site as a corpus folder of its own."""
    root = tmp_path / "datasets"
    shutil.copytree(SAMPLE_SITE, root / "sample_site")
    return root


def test_slice_hash_sees_changed_page_bytes_gold_and_ids(sample_corpora: Path) -> None:
    ids = [r["id"] for r in read_index(sample_corpora / "sample_site")][:3]
    pages = {"sample_site": ids}
    before = gate.slice_hash(sample_corpora, pages)
    assert gate.slice_hash(sample_corpora, {"sample_site": list(reversed(ids))}) == before
    page = next((sample_corpora / "sample_site" / "pages").glob(f"{ids[1]}.html*"))
    data = gzip.decompress(page.read_bytes()) if page.suffix == ".gz" else page.read_bytes()
    page.write_bytes(data.replace(b"</body>", b"<p>one more line</p></body>"))
    assert gate.slice_hash(sample_corpora, pages) != before
    floors = gate.Floors({}, before)
    with pytest.raises(gate.SliceChanged, match="slice changed"):
        gate.verify_slice(floors, sample_corpora, pages)
    with pytest.raises(gate.SliceChanged, match="no longer"):
        gate.slice_hash(sample_corpora, {"sample_site": ["not-a-page"]})


def test_rewrite_pins_floors_and_refuses_to_lower_them(sample_corpora: Path,
                                                       tmp_path: Path) -> None:
    pages = {"sample_site": [r["id"] for r in read_index(sample_corpora / "sample_site")]}
    path = tmp_path / "floors.json"
    floors, result = gate.rewrite_floors(["alltext", "sst"], sample_corpora, floors_path=path,
                                         pages=pages)
    assert gate.Floors.load(path) == floors
    assert 0 <= result.scores["sst"] - floors.floors["sst"] < 0.001
    assert floors.floors["sst"] > floors.floors["alltext"]  # sst is fitted per site group
    passed = gate.run_gate(sample_corpora, floors, pages)
    assert passed.failures == []

    gate.Floors({**floors.floors, "sst": 0.999}, floors.slice_sha256).write(path)
    with pytest.raises(ValueError, match="lower"):
        gate.rewrite_floors(["sst"], sample_corpora, floors_path=path, pages=pages)
    lowered, _ = gate.rewrite_floors(["sst"], sample_corpora, allow_lower=True,
                                     floors_path=path, pages=pages)
    assert lowered.floors["sst"] == floors.floors["sst"]
