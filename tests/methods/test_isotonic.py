"""Page-level template detection (`isotonic`, `isotonic-raw`): scored tree, features,
site-level labels, the classifier's model file, and cleaning single pages."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sitesift.errors import ModelError
from sitesift.methods.base import get_cleaner
from sitesift.methods.isotonic import IsotonicCleaner, IsotonicParams, shipped_model
from sitesift.methods.isotonic.features import FEATURES, node_table
from sitesift.methods.isotonic.model import TemplateModel
from sitesift.methods.isotonic.regression import is_monotone
from sitesift.model_io import load_model, save_model, seal
from sitesift.page import Page
from sitesift.result import CONTENT as CONTENT_LABEL
from sitesift.result import NOISE
from sitesift.training.isotonic.labels import (
    CONTENT,
    TEMPLATE,
    UNLABELLED,
    gold_labels,
    site_labels,
)
from tests.conftest import as_written

NAV = ('<ul class="menu"><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
       '<li><a href="/sport">Sport</a></li><li><a href="/about">About us</a></li></ul>')
FOOT = '<div id="footer"><p>Copyright 2024 Example Corp. All rights reserved.</p></div>'
STORIES = [
    "The council approved the new budget on Tuesday after a long debate about schools. "
    "Members said the plan would fund repairs to three buildings. The vote was close.",
    "A storm brought heavy rain to the coast, flooding several roads near the harbour. "
    "Residents were told to stay indoors until the water had gone down again.",
    "The museum opened an exhibition of early photographs taken by a local doctor. "
    "Visitors can see portraits, street scenes and the first pictures of the bridge.",
    "Farmers expect a late harvest this year because the spring was cold and wet. "
    "Prices for apples and pears are likely to rise in the shops in autumn.",
    "A young swimmer crossed the lake in record time, cheered on by her family. "
    "She trained every morning for a year and plans to try the channel next.",
    "Engineers tested a quieter tram on the northern line during the night. "
    "If the trial goes well, the whole fleet could be replaced within five years.",
]


def site_page(i: int, story: str | None = None) -> Page:
    body = story or STORIES[i % len(STORIES)]
    html = (f"<html><head><title>Story {i}</title></head><body>{NAV}"
            f'<div class="article"><h1>{" ".join(body.split()[1:4])}</h1><p>{body}</p>'
            f"<p>{body.split('.')[0]}, the report added.</p></div>{FOOT}</body></html>")
    return Page.from_html(html, id=f"p{i}")


# --- the scored tree and its features -------------------------------------------------

def test_scored_tree_keeps_blocks_and_folds_inline_elements() -> None:
    page = Page.from_html('<body><div><p>Read <a href="/x">this</a> now</p>'
                          '<span>loose <b>words</b></span></div></body>')
    table = node_table(page)
    tags = [n.tag for n in table.nodes]
    # body, div, p (its link and the bold run are part of their block), and the text runs
    # beside the span inside the div
    assert tags[:3] == ["body", "div", "p"]
    assert "a" not in tags and "b" not in tags
    assert table.parents[0] == -1 and all(table.parents[1:] < np.arange(1, len(table)))
    assert table.X.shape == (len(table), len(FEATURES))
    assert np.isfinite(table.X).all()


def test_features_tell_a_menu_from_a_paragraph() -> None:
    table = node_table(site_page(0))
    col = {name: i for i, name in enumerate(FEATURES)}
    tags = [n.tag for n in table.nodes]
    menu, para = tags.index("ul"), tags.index("p")
    assert table.X[menu, col["anchor_share"]] == 1.0
    assert table.X[para, col["anchor_share"]] == 0.0
    assert table.X[menu, col["name_template"]] == 1.0
    assert table.X[para, col["anc_content"]] == 1.0
    assert table.X[para, col["log_sentence"]] > table.X[menu, col["log_sentence"]]
    assert table.X[menu, col["start"]] < table.X[para, col["start"]]  # placement
    foot = next(i for i, n in enumerate(table.nodes) if (n.attrs or {}).get("id") == "footer")
    assert table.X[foot, col["copyright"]] == 1.0


def test_empty_body_gives_an_empty_table() -> None:
    table = node_table(Page.from_html("<body><img src=a.png></body>"))
    assert len(table) == 0 and table.X.shape == (0, len(FEATURES))


# --- site-level labels ----------------------------------------------------------------

def test_recurring_nodes_are_template_unique_ones_content() -> None:
    pages = [site_page(i) for i in range(4)]
    tables = [node_table(p) for p in pages]
    labels = site_labels(tables)
    for table, lab in zip(tables, labels, strict=True):
        by_tag = {n.tag: lab[i] for i, n in enumerate(table.nodes)}
        assert by_tag["ul"] == TEMPLATE and by_tag["li"] == TEMPLATE
        assert by_tag["h1"] == CONTENT
        assert by_tag["body"] == CONTENT  # not all its children are template


def test_a_duplicate_page_gets_no_labels() -> None:
    pages = [site_page(0), site_page(1), site_page(2), site_page(0)]
    labels = site_labels([node_table(p) for p in pages])
    assert (labels[3] == UNLABELLED).all() and (labels[0] != UNLABELLED).any()


def test_gold_labels_follow_the_gold_text() -> None:
    page = site_page(1)
    table = node_table(page)
    gold = STORIES[1]
    lab = gold_labels(table, gold)
    tags = [n.tag for n in table.nodes]
    assert lab[tags.index("h1")] == CONTENT
    assert lab[tags.index("ul")] == TEMPLATE


# --- the classifier and its model file ------------------------------------------------

def toy_model() -> TemplateModel:
    """A model fitted on the toy site's own labels (for behaviour, not quality)."""
    pages = [site_page(i, f"{STORIES[i % 4]} Extra {i}.") for i in range(12)]
    tables = [node_table(p) for p in pages]
    labels = site_labels(tables)
    X = np.vstack([t.X for t in tables])
    y = np.concatenate(labels)
    tokens = np.concatenate([t.tokens for t in tables])
    keep = y != UNLABELLED
    return TemplateModel.fit(X[keep], y[keep], tokens[keep], FEATURES, edges=(4, 16))


@pytest.fixture(scope="module")
def model() -> TemplateModel:
    return toy_model()


def test_model_round_trips_through_its_file(model: TemplateModel, tmp_path: Path) -> None:
    path = save_model(IsotonicCleaner(model=model, c=0.3), tmp_path / "m.json")
    loaded = load_model(path)
    assert isinstance(loaded, IsotonicCleaner) and loaded.params.c == 0.3
    page = site_page(7, "Something entirely new happened in the town hall today.")
    a, b = IsotonicCleaner(model=model, c=0.3).score(page), loaded.score(page)
    assert a == b


def test_fit_reaches_the_optimum_of_the_logistic_loss() -> None:
    """The regression is solved to its optimum (gradient ~0), not stopped early at a point
    that depends on the solver's path (BLAS threads): a rebuild gives the same model."""
    pages = [site_page(i, f"{STORIES[i % 4]} Extra {i}.") for i in range(12)]
    tables = [node_table(p) for p in pages]
    y = np.concatenate(site_labels(tables))
    keep = y != UNLABELLED
    X, y = np.vstack([t.X for t in tables])[keep], y[keep]
    tokens = np.concatenate([t.tokens for t in tables])[keep]
    lin = TemplateModel.fit(X, y, tokens, FEATURES, edges=()).buckets[0]
    # 0.5 |w|^2 + C sum s_i logloss_i (C = 1, balanced class weights s, intercept free)
    s = np.where(y == 1, len(y) / (2 * (y == 1).sum()), len(y) / (2 * (y == 0).sum()))
    r = s * (lin.proba(X) - y)
    assert np.abs(lin.coef + lin.standardise(X).T @ r).max() < 1e-5  # lbfgs's default: 4e-3
    assert abs(r.sum()) < 1e-5


def _doc(tmp_path: Path, model: TemplateModel) -> tuple[Path, dict[str, Any]]:
    path = save_model(IsotonicCleaner(model=model), tmp_path / "m.json")
    return path, json.loads(path.read_text())


def _rewrite(path: Path, doc: dict[str, Any]) -> None:
    """Write the changed document sealed again: a later check must refuse it."""
    path.write_bytes(seal(doc))


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s.update(model_version=99), "version 99"),
    (lambda s: s.update(features=s["features"][:-1]), "features do not match"),
    (lambda s: s.update(features=list(reversed(s["features"]))), "features do not match"),
    (lambda s: s.update(edges=[16, 4]), "increasing"),
    (lambda s: s["buckets"].pop(), "buckets"),
    (lambda s: s["buckets"][0].update(coef=s["buckets"][0]["coef"][:3]), "coef must be"),
    (lambda s: s["buckets"][1].update(scale=[0.0] * len(s["features"])), "positive"),
    (lambda s: s["buckets"][0].update(intercept="1"), "intercept"),
    (lambda s: s["buckets"][0]["mean"].__setitem__(0, True), "numbers only"),
], ids=["version", "missing-feature", "reordered", "edges", "bucket-count", "coef-shape",
        "zero-scale", "intercept-type", "bool-number"])
def test_bad_model_state_is_refused(model: TemplateModel, tmp_path: Path, change: Any,
                                    message: str) -> None:
    path, doc = _doc(tmp_path, model)
    change(doc["state"])
    _rewrite(path, doc)
    with pytest.raises(ModelError, match=message):
        load_model(path)


def test_non_finite_coefficients_are_refused(model: TemplateModel, tmp_path: Path) -> None:
    path, doc = _doc(tmp_path, model)
    doc["state"]["buckets"][0]["coef"][0] = float("inf")  # JSON `Infinity`
    _rewrite(path, doc)
    with pytest.raises(ModelError, match="finite"):
        load_model(path)


def test_tampered_or_unknown_parameters_are_refused(model: TemplateModel,
                                                    tmp_path: Path) -> None:
    path, doc = _doc(tmp_path, model)
    doc["state"]["buckets"][0]["intercept"] += 1.0  # checksum no longer matches
    path.write_bytes(as_written(doc))
    with pytest.raises(ModelError, match="checksum"):
        load_model(path)
    doc["params"]["smoothing"] = 2
    _rewrite(path, doc)
    with pytest.raises(ModelError, match="unknown isotonic parameters"):
        load_model(path)
    doc["params"] = {"c": -1}
    _rewrite(path, doc)
    with pytest.raises(ModelError, match="bad isotonic parameters"):
        load_model(path)


@pytest.mark.parametrize(("overrides", "message"), [
    ({"c": -0.1}, "c must be"), ({"threshold": 2}, "threshold"),
    ({"weighting": "area"}, "weighting"),
], ids=["c", "threshold", "weighting"])
def test_bad_parameters_are_refused(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        IsotonicParams(**overrides)


def test_the_shipped_model_is_valid() -> None:
    model = shipped_model()
    assert model.features == FEATURES
    assert len(model.buckets) == len(model.edges) + 1
    assert model.training["nodes_template"] > 0 and model.training["nodes_content"] > 0
    assert set(model.training["pages"]) >= {"big9", "dragnet"}


# --- cleaning -------------------------------------------------------------------------

def test_cleaning_a_lone_page_with_the_shipped_model() -> None:
    page = site_page(3)
    result = get_cleaner("isotonic").clean(page)
    kept = " ".join(b.text for b in result.blocks if b.label == CONTENT_LABEL)
    dropped = " ".join(b.text for b in result.blocks if b.label == NOISE)
    assert "harvest" in kept
    assert "All rights reserved" in dropped


def test_smoothed_verdicts_are_monotone_and_final(model: TemplateModel) -> None:
    page = site_page(2)
    cleaner = IsotonicCleaner(model=model, c=0.2)
    table, _, y = cleaner.templateness(page)
    assert y is not None and is_monotone(table.parents, y)
    verdicts = cleaner.score(page)
    nid_index = {n.nid: i for i, n in enumerate(table.nodes)}
    for nid, verdict in verdicts.items():
        assert verdict.final == (verdict.label == NOISE)
        template = y[nid_index[nid]] >= cleaner.params.threshold
        assert verdict.label == (NOISE if template else CONTENT_LABEL)


def test_raw_method_labels_every_node_by_its_own_score(model: TemplateModel) -> None:
    page = site_page(2)
    raw = get_cleaner("isotonic-raw", model=model)
    assert isinstance(raw, IsotonicCleaner) and not raw.smooth
    table, x, y = raw.templateness(page)
    assert y is None
    verdicts = raw.score(page)
    assert len(verdicts) == len(table)
    t = raw.params.threshold
    assert all((v.label == NOISE) == (x[i] >= t)
               for i, v in enumerate(verdicts[n.nid] for n in table.nodes))


def test_a_huge_section_cost_makes_one_section(model: TemplateModel) -> None:
    page = site_page(1)
    cleaner = IsotonicCleaner(model=model, c=1e6)
    _, _, y = cleaner.templateness(page)
    assert y is not None and len(set(y.tolist())) == 1
    assert len(cleaner.score(page)) == 1  # one verdict, at the body


@pytest.mark.parametrize("method", ["isotonic", "isotonic-raw"])
def test_a_page_scored_all_template_is_kept_whole(model: TemplateModel, method: str) -> None:
    sure = TemplateModel(model.features, model.edges, [
        replace(b, coef=np.zeros_like(b.coef), intercept=20.0) for b in model.buckets])
    page = site_page(0)
    result = get_cleaner(method, model=sure).clean(page)
    assert all(b.label == CONTENT_LABEL for b in result.blocks)
    assert "kept whole" in result.blocks[0].reason
    assert "harvest" not in result.text and "budget" in result.text


# --- training: the rebuild command ----------------------------------------------------

def toy_corpus(root: Path) -> Path:
    """Two sites of six pages each in the shared corpus layout."""
    import gzip

    (root / "pages").mkdir(parents=True)
    rows = []
    for site in ("one.example", "two.example"):
        for i in range(6):
            page_id = f"{site.split('.')[0]}-{i}"
            desk = ("city", "weather", "arts", "farming", "sports", "science")[i]
            story = f"{STORIES[i]} The {desk} desk of {site} reported it."
            html = site_page(i, story).html.replace("Example Corp", site)
            (root / "pages" / f"{page_id}.html.gz").write_bytes(
                gzip.compress(html.encode(), mtime=0))
            rows.append({"id": page_id, "site": site})
    (root / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_train_template_rebuilds_the_same_model_file(tmp_path: Path) -> None:
    from sitesift.cli import main

    toy_corpus(tmp_path / "data" / "toy")
    outs = [tmp_path / "a.json", tmp_path / "b.json"]
    for out in outs:
        assert main(["train-template", "--datasets", str(tmp_path / "data"), "--corpora", "toy",
                     "--out", str(out), "--quiet"]) == 0
    assert outs[0].read_bytes() == outs[1].read_bytes()  # reproducible
    cleaner = load_model(outs[0])
    assert isinstance(cleaner, IsotonicCleaner)
    assert cleaner.model.training["pages"] == {"toy": 12}
    assert cleaner.model.training["params"]["corpora"] == ["toy"]
    result = cleaner.clean(site_page(9, "A brand new story about the river and the mill."))
    assert "river" in result.text


def test_train_template_names_a_missing_corpus(tmp_path: Path) -> None:
    from sitesift.cli import main

    assert main(["train-template", "--datasets", str(tmp_path), "--corpora", "nope",
                 "--out", str(tmp_path / "m.json"), "--quiet"]) == 2


def test_rendered_boxes_add_their_columns() -> None:
    from sitesift.browser.rendering import Box, Rendering
    from sitesift.methods.isotonic.features import RENDER_FEATURES

    page = site_page(0)
    nodes = list(page.root.iter())[1:]
    boxes = {n.nid: Box(0.0, 40.0 * k, 1280.0, 40.0, True, "block", None, 16.0, 400)
             for k, n in enumerate(nodes)}
    menu = next(n for n in nodes if n.tag == "ul")
    boxes[menu.nid] = Box(0.0, 0.0, 1280.0, 30.0, True, "block", "rgb(0, 0, 0)", 14.0, 700)
    rendering = Rendering(1280.0, 2000.0, (1280, 1024), boxes, len(nodes), len(nodes))
    table = node_table(page, rendering)
    assert table.names == FEATURES + RENDER_FEATURES
    col = {name: i for i, name in enumerate(table.names)}
    row = [n.nid for n in table.nodes].index(menu.nid)
    assert table.X[row, col["box_bg"]] == 1.0 and table.X[row, col["box_bold"]] == 1.0
    assert table.X[row, col["box_log_aspect"]] > 3  # a wide, flat bar
    assert table.X[:, col["box_missing"]].sum() == 0
    # the shipped model reads the DOM only: rendered columns are refused
    with pytest.raises(ValueError, match="feature columns"):
        shipped_model().predict(table.X, table.tokens)
    with pytest.raises(ModelError, match="without rendering"):
        shipped_model(render=True)
