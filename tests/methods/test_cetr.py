"""CETR on hand-made inputs: the seed's worked example, smoothing and clustering by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sitesift.methods.base import get_cleaner
from sitesift.methods.cetr import (
    absolute_derivative,
    kmeans_labels,
    origin_kmeans,
    smooth,
    tag_ratios,
    threshold_labels,
)
from sitesift.methods.shared.source import align_runs, rebreak, source_lines
from tests.conftest import page

# The survey's Example 1 (seed 001), with the elided text cut where the counts stop:
# 37 characters on line 4, 41 around two <br> on line 5.
EXAMPLE = (
    '<div id="topnav">\n'
    "\n"
    "<!-- a remark --><script>var x = '<b>1</b>';</script>\n"
    '<div id="author">James Smith</div>\n'
    "OKLAHOMA CITY \u2013 Police were told that\n"
    "The Oklahoman reported Sunday. <br><br> Jones had\n"
)


def test_worked_example_tag_ratios() -> None:
    lines = source_lines(EXAMPLE, rebreak_over=None)
    # The empty line and the remark/script line are gone; four lines remain.
    assert [(line.text_chars, line.tags) for line in lines] == [
        (0, 1), (11, 2), (37, 0), (41, 2)]
    assert tag_ratios(lines).tolist() == [0.0, 5.5, 37.0, 20.5]


def test_tags_spread_over_lines_count_once() -> None:
    lines = source_lines('<a\n href="x">link</a>\ntext', rebreak_over=None)
    assert [(line.text_chars, line.tags) for line in lines] == [(4, 2), (4, 0)]


def test_rebreak_splits_minified_source_at_block_tags() -> None:
    one_line = "<div><ul><li><a href=/>Home</a></li></ul><p>Some <b>bold</b> text.</p></div>"
    assert rebreak(one_line) == [
        "", "<div>", "<ul>", "<li><a href=/>Home</a></li>", "</ul>", "",
        "<p>Some <b>bold</b> text.</p>", "</div>", ""]
    lines = source_lines(one_line, rebreak_over=10)
    assert [line.ratio for line in lines] == [0, 0, 4 / 4, 0, 15 / 4, 0]
    assert len(source_lines(one_line, rebreak_over=None)) == 1


# Gaussian weights with sigma 1 over radius 4 (SciPy's truncate=4), by hand:
# sum = 1 + 2 (e^-0.5 + e^-2 + e^-4.5 + e^-8) = 2.506620..., so the centre keeps 10 / sum.
_NORM = 1 + 2 * (math.exp(-0.5) + math.exp(-2) + math.exp(-4.5) + math.exp(-8))


@pytest.mark.parametrize(("offset", "weight"), [
    (0, 1.0), (1, math.exp(-0.5)), (2, math.exp(-2)), (3, math.exp(-4.5)), (4, math.exp(-8)),
], ids=["centre", "one-away", "two-away", "three-away", "four-away"])
def test_smoothing_spreads_a_spike_by_gaussian_weights(offset: int, weight: float) -> None:
    spike = np.zeros(11)
    spike[5] = 10.0
    smoothed = smooth(spike, 1.0)
    assert smoothed[5 + offset] == pytest.approx(10 * weight / _NORM)
    assert smoothed[5 - offset] == pytest.approx(smoothed[5 + offset])
    assert smoothed[5] == pytest.approx(3.989435, abs=1e-6)


def test_smoothing_keeps_mass_and_sigma_zero_is_identity() -> None:
    values = np.array([0.0, 3.0, 40.0, 0.0, 12.0, 0.0, 0.0, 5.0])
    assert smooth(values, 0).tolist() == values.tolist()
    assert smooth(values, 1.0).sum() == pytest.approx(values.sum())


@pytest.mark.parametrize(("factor", "expected"), [
    (0.0, [False, False, False, True, True, False]),  # zero ratios are never content
    (1.0, [False, False, False, True, True, False]),  # std = sqrt(8) = 2.83 <= 6
    (2.2, [False] * 6),                                # 2.2 * 2.83 = 6.22 > 6
], ids=["zero", "one-std", "above-peak"])
def test_threshold_method(factor: float, expected: list[bool]) -> None:
    smoothed = np.array([0.0, 0.0, 0.0, 6.0, 6.0, 0.0])  # mean 2, variance 72/6 - 4 = 8
    assert threshold_labels(smoothed, factor).tolist() == expected


def test_kmeans_cluster_nearest_origin_is_noise() -> None:
    smoothed = np.array([0.1, 0.2, 0.0, 50.0, 52.0, 48.0, 20.0, 21.0])
    assert kmeans_labels(smoothed, 3).tolist() == [False] * 3 + [True] * 5
    assert kmeans_labels(smoothed, 2).tolist() == [False] * 3 + [True] * 3 + [False] * 2


@pytest.mark.parametrize(("values", "expected"), [
    ([0.0, 0.0, 0.0], [False] * 3),
    ([4.0, 4.0], [True, True]),
    ([], []),
], ids=["all-zero", "one-value", "empty"])
def test_kmeans_degenerate_histograms(values: list[float], expected: list[bool]) -> None:
    assert kmeans_labels(np.array(values), 3).tolist() == expected


def test_absolute_derivative_by_hand() -> None:
    # i=0: mean(0, 9, 9) = 6; i=1: mean(9, 9, 9) = 9 -> |9 - 0|; i=2: mean(9, 9, 0) = 6;
    # i=3: mean(9, 0) = 4.5; i=4: mean(0) = 0; the last line has nothing ahead: 0.
    smoothed = np.array([0.0, 0.0, 9.0, 9.0, 9.0, 0.0])
    assert absolute_derivative(smoothed, 3).tolist() == [6.0, 9.0, 3.0, 4.5, 9.0, 0.0]


def test_origin_kmeans_keeps_one_centroid_at_the_origin() -> None:
    points = np.array([[0, 0], [1, 0], [0, 1], [50, 50], [52, 48], [100, 0], [98, 2]],
                      dtype=float)
    labels = origin_kmeans(points, 3)
    assert labels[:3].tolist() == [0, 0, 0]
    assert labels[3] == labels[4] != 0 and labels[5] == labels[6] != 0
    assert labels[3] != labels[5]
    # Points far from the origin never join the origin's cluster, even alone.
    assert origin_kmeans(np.array([[10.0, 10.0], [11.0, 11.0]]), 2).tolist() == [1, 1]


PARAGRAPH = ("The council met on Tuesday evening to discuss the new bridge, and after a long "
             "debate the members agreed to fund the first phase of the work this spring.")
NEWS = (
    "<html><head><title>t</title></head><body>\n"
    '<div id="nav"><ul>\n'
    + "".join(f'<li><a href="/s{i}">Section {i}</a></li>\n' for i in range(8))
    + "</ul></div>\n<div id=\"story\">\n"
    + "".join(f"<p>{PARAGRAPH} ({i})</p>\n" for i in range(6))
    + "</div>\n<div id=\"foot\"><a href=/a>About</a> | <a href=/c>Contact</a></div>\n"
    "</body></html>"
)


@pytest.mark.parametrize("method", ["cetr-tm", "cetr-km", "cetr-2d"])
@pytest.mark.parametrize("layout", ["pretty", "minified"])
def test_keeps_the_story_and_drops_the_menu(method: str, layout: str) -> None:
    html = NEWS if layout == "pretty" else NEWS.replace("\n", "")
    result = get_cleaner(method).clean(page(html))
    assert all(f"({i})" in result.text for i in range(6))
    assert "Section 3" not in result.text and "Contact" not in result.text
    noise = [b for b in result.blocks if b.label == "noise"]
    assert noise and all(b.reason.startswith(method.upper()) for b in noise)


def test_minified_page_without_rebreak_is_one_line() -> None:
    minified = page(NEWS.replace("\n", ""))
    result = get_cleaner("cetr-km", rebreak_over=None).clean(minified)
    # One line, one ratio: nothing can be told apart, the whole page is kept.
    assert "Section 3" in result.text and "(5)" in result.text


def test_dom_text_is_aligned_with_its_source_lines() -> None:
    html = "<body><p>alpha\nbeta</p>\n<div>gamma <b>delta</b></div></body>"
    p = page(html)
    lines = source_lines(html, rebreak_over=None)
    assert [line.visible for line in lines] == ["alpha", "beta", "gammadelta"]
    placed = [(owner.tag, unit, chars) for owner, unit, chars in
              align_runs(p.root, [line.visible for line in lines])]
    assert placed == [("p", 0, 5), ("p", 1, 4), ("div", 2, 5), ("div", 2, 5)]


@pytest.mark.parametrize("method", ["cetr-tm", "cetr-km", "cetr-2d"])
@pytest.mark.parametrize("html", [
    "<html><script>var x = 1;</script></html>",
    "<p>" + "word " * 20000 + "</p>",
    "<div>" + "<span>x</span>" * 5000 + "</div>",
    "plain text, no markup",
], ids=["no-text", "giant-line", "giant-tag-line", "plain"])
def test_odd_pages_clean_without_errors(method: str, html: str) -> None:
    result = get_cleaner(method).clean(page(html))
    assert "var x" not in result.text
