"""VIPS's paper preset and its separator switch, on hand-built blocks (no browser)."""

from __future__ import annotations

import pytest

from sitesift.browser.rendering import Rendering
from sitesift.methods.base import get_cleaner
from sitesift.methods.vips import VIPSParams
from sitesift.methods.vips.blocks import VBlock
from sitesift.methods.vips.separators import construct, detect


def _block(x0: float, y0: float, x1: float, y1: float, doc: int = 10) -> VBlock:
    return VBlock(x0, y0, x1, y1, doc)


# Three rows: the first two touch (y = 100), the third is 0.5 px and then 16 px below.
TOP, MID = _block(0, 0, 500, 100), _block(0, 100, 500, 200)
NEAR, FAR = _block(0, 200.5, 500, 300), _block(0, 316, 500, 400)


@pytest.mark.parametrize(("min_gap", "runs", "gaps"), [
    # Ours: a zero-thickness separator where blocks touch, one per gap.
    (None, [1, 1, 1, 1], [(100, 100), (200, 200.5), (300, 316)]),
    # A separator of at least one screen pixel: touching and half-pixel gaps join a run.
    (1.0, [3, 1], [(300, 316)]),
], ids=["ours", "one-pixel"])
def test_min_gap(min_gap: float | None, runs: list[int],
                 gaps: list[tuple[float, float]]) -> None:
    found, seps = detect([FAR, NEAR, MID, TOP], True, min_gap)
    assert [len(r) for r in found] == runs
    assert [(s.start, s.end) for s in seps] == gaps


def test_min_gap_reaches_the_structure() -> None:
    r = Rendering(1000.0, 1000.0, (1000, 1000), {}, 0, 0)
    ours = construct([TOP, MID, NEAR, FAR], r, [])
    # The 16 px gap weighs 1 + 16 / 8 = 3, the heaviest: cut there first, both ways.
    assert ours.weight == 3 and len(ours.children) == 2
    assert len(ours.children[0].children) == 3  # touching rows split again at weight 1
    joined = construct([TOP, MID, NEAR, FAR], r, [], min_gap=1.0)
    assert joined.children[0].rule == "overlapping blocks"  # no separator inside


def test_presets() -> None:
    paper = get_cleaner("vips", preset="paper").get_params()
    assert (paper["max_link_share"], paper["min_gap"], paper["pdoc"]) == (1.0, 1.0, 8)
    assert get_cleaner("vips").get_params()["min_gap"] is None
    assert get_cleaner("vips", preset="paper", min_gap=None).get_params()["min_gap"] is None
    assert get_cleaner("vips", preset="paper", max_link_share=0.5).get_params()[
        "max_link_share"] == 0.5
    assert get_cleaner("vips").get_params()["max_link_share"] == 0.5
    with pytest.raises(ValueError, match="preset"):
        VIPSParams(preset="cai")
    with pytest.raises(ValueError, match="min_gap"):
        VIPSParams(min_gap=-1)
