"""Pages unlike the model's training pages (`extractor.novelty`) and `unseen=keep`."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sitesift.errors import ModelError
from sitesift.extractor import model as model_file
from sitesift.extractor import novelty
from sitesift.extractor.context import context_names
from sitesift.extractor.features import feature_names
from sitesift.extractor.forest import Forest
from sitesift.methods.base import get_cleaner
from sitesift.methods.default import read_page
from sitesift.model_io import seal
from sitesift.native import core
from sitesift.page import Page

SERVICE = """<html><body>
<nav><a href="/">Home</a> <a href="/services">Services</a></nav>
<main>
<p>We build web applications your customers will love to use, with the look and feel of a
native app on every phone, tablet and desktop they own.</p>
<div class="tile">300+ projects within ten years</div>
<p>Progressive web apps work offline, install from the browser, update themselves and cost
far less to build and to keep running than two native apps would.</p>
</main>
<footer>Copyright 2024 Example</footer>
</body></html>"""


def _tokens_tree(n_features: int) -> Forest:
    """A one-tree forest on `log_tokens` (column 0): a block of a word or two at p 0.0025,
    of a few words at 0.2, of a sentence or more at 0.6."""
    lo, mid, hi = np.log(0.0025 / 0.9975), np.log(0.2 / 0.8), np.log(0.6 / 0.4)
    return Forest._checked(
        n_features, 0.0, np.asarray([0]), np.asarray([0, -1, 0, -1, -1]),
        np.asarray([1.2, 0.0, 2.6, 0.0, 0.0]), np.zeros(5, dtype=bool),
        np.asarray([1, 1, 3, 3, 4]), np.asarray([2, 1, 4, 3, 4]),
        np.asarray([0.0, lo, 0.0, mid, hi]))


def _descriptor(html: str) -> np.ndarray:
    f = core().features(read_page(Page.from_html(html)))
    return np.asarray(core().page_descriptor(f.x, f.ntok))


def _reference(near: np.ndarray, far: np.ndarray) -> dict[str, Any]:
    """Five points at `near` (site `dailyplanet`) and five at `far` (`farsite`), the cut at
    1 (standardized units)."""
    desc = np.vstack([np.tile(near, (5, 1)), np.tile(far, (5, 1))])
    doc = novelty.build(desc, ["dailyplanet"] * 5 + ["farsite"] * 5)
    return {**doc, "cut": 1.0}


def _model(tmp_path: Path, doc: dict[str, Any] | None, *, bundle: bool = False) -> str:
    n1, n2 = len(feature_names()), len(feature_names()) + len(context_names())
    pair = (_tokens_tree(n1), _tokens_tree(n2))
    thresholds = {"precision": 0.5, "balanced": 0.35, "recall": 0.2}
    folds, fold_of = ((pair,), {"dailyplanet": 0}) if bundle else ((), {})
    m = model_file.ExtractorModel(*pair, thresholds, {}, folds, fold_of, novelty=doc)
    return str(model_file.save(m, tmp_path / f"m{len(list(tmp_path.iterdir()))}.json.gz"))


def _text(model: str, site: str | None = None, **settings: Any) -> str:
    cleaner = get_cleaner("default", model=model, relative=0.0, site=False, **settings)
    return cleaner.clean(Page.from_html(SERVICE, site=site)).text


def test_an_unlike_page_keeps_what_lies_between_its_kept_paragraphs(tmp_path: Path) -> None:
    d = _descriptor(SERVICE)
    unlike = _model(tmp_path, _reference(d + 50.0, d + 100.0))
    text = _text(unlike)
    assert "300+ projects" in text and "Progressive web apps" in text
    # not what lies beside the main text, nor a word or two
    assert "Copyright" not in text and "Home" not in text
    # the switch at auto, a page like the training pages, or a file without a reference:
    # what the model says
    assert "300+ projects" not in _text(unlike, unseen="auto")
    assert "300+ projects" not in _text(_model(tmp_path, _reference(d, d + 50.0)))
    assert "300+ projects" not in _text(_model(tmp_path, None))


def test_a_held_out_bundle_leaves_out_the_points_of_the_pages_fold(tmp_path: Path) -> None:
    d = _descriptor(SERVICE)
    bundle = _model(tmp_path, _reference(d, d + 50.0), bundle=True)
    # a site the bundle trained its fold without: its own pages' points are left out too
    assert "300+ projects" in _text(bundle, site="www.dailyplanet.com")
    # a site it never saw: every point counts, and the page is like the first five
    assert "300+ projects" not in _text(bundle, site="elsewhere.org")


def test_the_cut_is_the_quantile_of_training_pages_seen_from_other_sites() -> None:
    rng = np.random.default_rng(0)
    desc = rng.normal(size=(60, len(core().novelty_columns())))
    sites = [f"s{i % 7}" for i in range(60)]
    doc = novelty.build(desc, sites, k=3, quantile=0.8)
    # the same distances by brute force over the stored (standardized, rounded) points
    points = np.frombuffer(base64.b64decode(doc["points"]), "<f4").reshape(60, -1)
    query = (desc - np.asarray(doc["mean"])) / np.asarray(doc["scale"])
    own = []
    for i, q in enumerate(query):
        dist = np.sqrt(((points - q) ** 2).sum(axis=1))
        dist[[j for j in range(60) if sites[j] == sites[i]]] = np.inf
        own.append(np.sort(dist)[:3].mean())
    assert doc["cut"] == pytest.approx(float(np.quantile(own, 0.8)))
    # one page in five of the training pages, seen so, is beyond the cut; a far page is
    assert novelty.unlike(doc, desc[:1] + 100.0).all()
    assert not novelty.unlike(doc, desc).any()  # each page finds itself


def test_model_files_keep_their_reference_and_refuse_a_bad_one(tmp_path: Path) -> None:
    d = _descriptor(SERVICE)
    path = Path(_model(tmp_path, _reference(d, d + 1.0)))
    assert model_file.load(path).novelty == json.loads(
        json.dumps(_reference(d, d + 1.0)))
    for damage in ("columns", "points", "k", "missing"):
        doc = model_file.load(path).to_dict()
        ref = doc["novelty"]
        if damage == "columns":
            ref["columns"] = ref["columns"][::-1]
        elif damage == "points":
            ref["points"] = ref["points"][:-8]  # two floats short
        elif damage == "k":
            ref["k"] = 0
        else:
            del ref["cut"]
        out = tmp_path / f"bad-{damage}.json"  # damaged, with its checksum made again
        out.write_bytes(seal({"format": model_file.FORMAT,
                              "format_version": model_file.FORMAT_VERSION, **doc}))
        with pytest.raises(ModelError, match="novelty"):
            model_file.load(out)
        with pytest.raises(ModelError, match="novelty"):
            model_file.load_scorer(out)


def test_a_few_training_pages_make_a_reference_of_fewer_neighbours() -> None:
    width = len(core().novelty_columns())
    doc = novelty.build(np.zeros((2, width)), ["a", "b"])
    assert doc["k"] == 1 and doc["cut"] == 0.0  # each page has one page of another site
    # one site: no page is seen from another, and none is unlike the reference
    alone = novelty.build(np.zeros((3, width)), ["a"] * 3)
    assert alone["cut"] is None and not novelty.unlike(alone, np.ones((1, width))).any()
