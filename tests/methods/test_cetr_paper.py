"""CETR's paper preset: a five-line page whose tag ratios and smoothed ratios are worked out
by hand, and the paper's output, the text of the content lines (seed 001's CETR)."""

from __future__ import annotations

import math

import pytest

from sitesift.methods.base import get_cleaner
from sitesift.methods.cetr import CETRParams, line_text, smooth, tag_ratios, threshold_labels
from sitesift.methods.shared.source import source_lines
from tests.conftest import page
from tests.methods.paper_presets import check_preset_contract

FIVE = (
    '<div><a href="/">Home</a></div>\n'                          # 4 chars, 4 tags
    "<h1>Storm</h1>\n"                                            # 5 chars, 2 tags
    "<p>The storm hit the coast at dawn.\n"                       # 32 chars, 1 tag
    "Boats &amp; piers were lost.</p>\n"                          # 28 chars, 1 tag
    '<div><a href="/a">About</a> <a href="/b">Jobs</a></div>\n'  # 10 chars, 6 tags
)
RATIOS = [1.0, 2.5, 32.0, 28.0, 10 / 6]
# Gaussian weights w_d = exp(-d^2 / 2) for d = 0..4 (sigma 1, radius 4), normalised by
# w_0 + 2 (w_1 + w_2 + w_3 + w_4); beyond the ends the histogram is reflected
# (x_-1 = x_0, x_-2 = x_1, ..., x_5 = x_4, x_6 = x_3).
W = [math.exp(-d * d / 2) for d in range(5)]
NORM = W[0] + 2 * sum(W[1:])
X = RATIOS
SMOOTHED = [
    # line 1: neighbours -4..4 are x3 x2 x1 x0 | x0 x1 x2 x3 x4
    (W[0] * X[0] + W[1] * (X[0] + X[1]) + W[2] * (X[1] + X[2]) + W[3] * (X[2] + X[3])
     + W[4] * (X[3] + X[4])) / NORM,
    # line 2: x2 x1 x0 x0 | x1 | x2 x3 x4 x4
    (W[0] * X[1] + W[1] * (X[0] + X[2]) + W[2] * (X[0] + X[3]) + W[3] * (X[1] + X[4])
     + W[4] * (X[2] + X[4])) / NORM,
    # line 3: x1 x0 x0 x1 | x2 | x3 x4 x4 x3
    (W[0] * X[2] + W[1] * (X[1] + X[3]) + W[2] * (X[0] + X[4]) + W[3] * (X[0] + X[4])
     + W[4] * (X[1] + X[3])) / NORM,
    # line 4: x0 x0 x1 x2 | x3 | x4 x4 x3 x2
    (W[0] * X[3] + W[1] * (X[2] + X[4]) + W[2] * (X[1] + X[4]) + W[3] * (X[0] + X[3])
     + W[4] * (X[0] + X[2])) / NORM,
    # line 5: x0 x1 x2 x3 | x4 | x4 x3 x2 x1
    (W[0] * X[4] + W[1] * (X[3] + X[4]) + W[2] * (X[2] + X[3]) + W[3] * (X[1] + X[2])
     + W[4] * (X[0] + X[1])) / NORM,
]


def test_five_line_tag_ratios_by_hand() -> None:
    lines = source_lines(FIVE, rebreak_over=None)
    assert [(line.text_chars, line.tags) for line in lines] == [
        (4, 4), (5, 2), (32, 1), (28, 1), (10, 6)]
    assert tag_ratios(lines).tolist() == pytest.approx(RATIOS)


def test_five_line_smoothed_ratios_by_hand() -> None:
    smoothed = smooth(tag_ratios(source_lines(FIVE, rebreak_over=None)), 1.0)
    assert smoothed.tolist() == pytest.approx(SMOOTHED)
    assert smoothed[2] == pytest.approx(20.306197, abs=1e-6)
    # TM at lambda 1.25: std 6.32, so tau 7.90: only the first line falls below
    assert threshold_labels(smoothed, 1.25).tolist() == [False, True, True, True, True]


def test_line_text_drops_tags_and_decodes_entities() -> None:
    lines = source_lines(FIVE, rebreak_over=None)
    assert [line_text(line) for line in lines] == [
        "Home", "Storm", "The storm hit the coast at dawn.", "Boats & piers were lost.",
        "About Jobs"]


@pytest.mark.parametrize("method", ["cetr-tm", "cetr-km", "cetr-2d"])
def test_paper_output_is_the_content_lines(method: str) -> None:
    cleaner = get_cleaner(method, preset="paper")
    lines, content = cleaner.line_labels(page(FIVE))
    result = cleaner.clean(page(FIVE))
    assert [b.text for b in result.blocks] == [line_text(line) for line in lines]
    assert [b.label == "content" for b in result.blocks] == content.tolist()
    assert {b.tag for b in result.blocks} == {"line"}
    kept = cleaner.clean(page(FIVE), noise=False)
    assert [b.label for b in kept.blocks] == ["content"] * int(content.sum())
    assert kept.text == result.text


def test_paper_lines_cut_an_element_the_default_keeps_whole() -> None:
    # One paragraph whose last word sits five empty lines below its long first line, out
    # of the smoothing's reach: the paper keeps the long line alone, our default keeps the
    # whole paragraph (nearly all of its text lies on content lines).
    long = "word " * 60
    menu = "".join(f"<li><a href=/{i}>m{i}</a></li>\n" for i in range(8))
    html = (f"<ul>\n{menu}</ul>\n<p>{long}\n" + "<span></span>\n" * 5
            + f"tail</p>\n<ul>\n{menu}</ul>\n")
    paper = get_cleaner("cetr-tm", preset="paper").clean(page(html)).text
    default = get_cleaner("cetr-tm").clean(page(html)).text
    assert paper == long.strip()
    assert default == f"{long.strip()} tail"


@pytest.mark.parametrize("method", ["cetr-tm", "cetr-km", "cetr-2d"])
def test_paper_preset_sets_every_paper_choice(method: str) -> None:
    check_preset_contract(method, CETRParams, {"rebreak_over": None, "output": "lines"},
                          {"rebreak_over": 500}, {"output": "dom"})
