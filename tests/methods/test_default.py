"""The default cleaner and its parts: blocks, labels, site evidence, forests, model files."""

from __future__ import annotations

import gzip
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesift.errors import ModelError
from sitesift.extractor import model as model_file
from sitesift.extractor.features import feature_names, page_features
from sitesift.extractor.forest import Forest
from sitesift.extractor.site import SiteEvidence
from sitesift.methods.base import get_cleaner
from sitesift.methods.default import read_page
from sitesift.model_io import load_model, save_model, seal
from sitesift.page import Page
from sitesift.text import tokens
from sitesift.training.default.labels import gold_share
from sitesift.training.default.pool import Pool, balance_corpora
from sitesift.training.default.thresholds import choose_thresholds, macro_f_beta
from sitesift.verdicts import render_blocks
from tests.conftest import as_written, page, refused

ARTICLE = (
    "The committee met on Tuesday to discuss the new budget, which had been delayed by "
    "several months because of disagreements over the cost of the bridge repairs. "
)


def news_page(n: int = 0, comments: bool = True) -> str:
    """A news page: menu, headline, a few paragraphs, share bar, related links, comments,
    footer. `n` varies the article so several pages make one site."""
    story = " ".join(f"<p>{ARTICLE} Paragraph {i} of story {n} says more about item {n}, "
                     f"and the mayor answered questions from residents.</p>"
                     for i in range(5))
    related = "".join(f'<li><a href="/news/{k}">Other story number {k}</a></li>'
                      for k in range(6))
    comment_html = "".join(
        f'<div class="comment"><span class="author">user{k}</span><p>I think this is '
        f"wrong {k}!</p></div>" for k in range(4)) if comments else ""
    return (
        "<html><head><title>Budget delayed again - Daily Planet</title></head><body>"
        '<div id="header"><a href="/">Daily Planet</a></div>'
        '<nav class="main-menu"><ul><li><a href="/">Home</a></li><li><a href="/world">World'
        '</a></li><li><a href="/sport">Sport</a></li><li><a href="/about">About us</a></li>'
        "</ul></nav>"
        f'<div class="article"><h1>Budget delayed again {n}</h1>{story}</div>'
        '<div class="share-bar"><a href="#">Share on Facebook</a> <a href="#">Tweet</a></div>'
        f'<div class="related"><h3>Related stories</h3><ul>{related}</ul></div>'
        f'<div id="comments"><h3>Comments</h3>{comment_html}</div>'
        '<div id="footer">Copyright 2024 Daily Planet. All rights reserved. '
        '<a href="/privacy">Privacy</a> <a href="/terms">Terms</a></div>'
        "</body></html>")


def test_blocks_hold_exactly_the_rendered_text() -> None:
    """The native core's blocks (html5ever, native/src/read/dom.rs) hold the words that the
    Python tree (Lexbor, sitesift.dom) renders: the two readings of what a page shows
    agree."""
    p = page(news_page())
    texts = read_page(p).texts
    rendered = render_blocks(p.root, {}, with_paths=False)
    assert Counter(t for x in texts for t in tokens(x)) == Counter(
        t for b in rendered for t in tokens(b.text))
    assert texts[0] == "Daily Planet"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([
    "<p>", "</p>", "<div>", "</div>", "<a href=x>", "</a>", "<br>", "<span>", "</span>",
    "<ul><li>", "</li>", "<td>", "<table><tr>", " word ", "text", "<b>", "</b>", "<h2>",
    "</h2>", "<!-- c -->", "<script>x</script>", "&amp;"]), min_size=1, max_size=40))
def test_blocks_match_the_renderer_on_any_markup(parts: list[str]) -> None:
    html = "<html><body>" + "".join(parts) + "</body></html>"
    p = page(html)
    npage = read_page(p, reveal=False)
    rendered = render_blocks(p.root, {}, with_paths=False)
    assert Counter(t for x in npage.texts for t in tokens(x)) == Counter(
        t for b in rendered for t in tokens(b.text))
    X, ntok, anc = page_features(npage)
    assert X.shape == (len(npage.texts), len(feature_names()))
    assert len(ntok) == len(anc) == len(X)
    assert not np.isinf(X).any()


def test_gold_share_needs_aligned_runs() -> None:
    blocks = ["Home", "World", "Budget delayed again", ARTICLE, "Comments", "Share"]
    gold = "Budget delayed again\n" + ARTICLE + "\nThe world can wait."
    share = gold_share(blocks, gold)
    assert share[2] == 1.0 and share[3] == 1.0
    # "world" is in the gold but not as an aligned run of the menu: noise
    assert share[0] == 0.0 and share[1] == 0.0 and share[4] == 0.0


def test_gold_share_finds_runs_out_of_order() -> None:
    # The page prints the byline above the headline, the gold after the article; the
    # related teaser repeats the article's first sentence, which the gold holds only once.
    byline = "By Jane Doe, Staff Writer, January 5 2008"
    first = ARTICLE.split(". ")[0]
    blocks = [byline, "Budget delayed again", ARTICLE, "Related", first, "Sports in brief"]
    gold = f"Budget delayed again\n{ARTICLE}\n{byline}\nSports"
    share = gold_share(blocks, gold)
    assert share[0] == 1.0 and share[1] == 1.0 and share[2] == 1.0
    assert share[4] == 0.0  # the gold's copy of the sentence went to the article
    assert share[5] == 0.0  # "Sports" is out of order and shorter than MIN_MOVED
    # an in-order alignment alone keeps one side of the crossing
    assert gold_share(blocks, gold, min_moved=10**6)[0] == 0.0


def test_site_evidence_counts_other_pages_only() -> None:
    read = [read_page(page(news_page(n), id=f"p{n}")) for n in range(4)]
    ev = SiteEvidence.fit(read)
    assert ev.n_pages == 4
    col = {name: i for i, name in enumerate(feature_names())}
    X, _, _ = page_features(read[0], ev)
    text = X[:, col["site_text"]]
    assert np.expm1(X[0, col["site_log_pages"]]) == pytest.approx(3)  # the other pages
    by_text = dict(zip(read[0].texts, text, strict=True))
    assert by_text["Daily Planet"] == 1.0           # template: on every other page
    assert by_text["Budget delayed again 0"] == 0.0  # the page's own headline
    X_unseen, _, _ = page_features(read_page(page(news_page(9))), ev)
    assert np.expm1(X_unseen[0, col["site_log_pages"]]) == pytest.approx(4)
    assert np.isnan(page_features(read[0])[0][:, col["site_text"]]).all()  # no evidence
    again = SiteEvidence.from_state(json.loads(json.dumps(ev.to_state())))
    assert np.array_equal(page_features(read[0], again)[0], X, equal_nan=True)


def _toy_forest() -> tuple[Forest, object, np.ndarray]:
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    X[rng.random(X.shape) < 0.2] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1], nan=1.0) > 0.3).astype(int)
    model = HistGradientBoostingClassifier(max_iter=20, max_leaf_nodes=8).fit(X, y)
    return Forest.from_sklearn(model), model, X


def test_forest_export_predicts_like_scikit_learn() -> None:
    forest, model, X = _toy_forest()
    assert np.allclose(forest.proba(X), model.predict_proba(X)[:, 1])  # type: ignore[attr-defined]
    again = Forest.from_dict(json.loads(json.dumps(forest.to_dict())))
    assert np.allclose(again.proba(X), forest.proba(X))


def test_forest_walk_matches_scikit_learn_on_deep_trees_and_any_row_count() -> None:
    """Deep paths, missing values sent either way, one row or many: the native core's sum
    of leaf values is scikit-learn's."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(1)
    X = rng.normal(size=(2000, 6))
    X[rng.random(X.shape) < 0.25] = np.nan
    y = ((np.nan_to_num(X[:, 0], nan=2.0) * np.nan_to_num(X[:, 1], nan=-1.0)
          + np.sin(3 * np.nan_to_num(X[:, 2]))) > 0.2).astype(int)
    model = HistGradientBoostingClassifier(max_iter=25, max_leaf_nodes=80,
                                           min_samples_leaf=3, random_state=0).fit(X, y)
    forest = Forest.from_sklearn(model)
    assert forest.depth > 3 * 3  # several rounds of the walk
    assert forest.missing_left.any() and (~forest.missing_left[forest.feature >= 0]).any()
    want = model._raw_predict(X).ravel()  # type: ignore[attr-defined]
    assert np.allclose(forest.raw(X), want, rtol=0, atol=1e-9)
    assert np.allclose(forest.raw(X[7:8]), want[7:8], rtol=0, atol=1e-9)
    # the rows do not change each other's sums
    whole = forest.raw(X)
    assert np.array_equal(forest.raw(X[::-1])[::-1], whole)
    assert forest.raw(X[:0]).shape == (0,)


def test_averaged_forest_scores_the_mean_of_its_members() -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier

    _, _, X = _toy_forest()
    y = (np.nan_to_num(X[:, 2]) > 0).astype(int)
    members = [Forest.from_sklearn(HistGradientBoostingClassifier(max_iter=10 + 5 * i)
                                   .fit(X[i::3], y[i::3])) for i in range(3)]
    mean = Forest.mean(members)
    assert np.allclose(mean.raw(X), np.mean([m.raw(X) for m in members], axis=0))
    assert len(mean.roots) == 10 + 15 + 20
    again = Forest.from_dict(json.loads(json.dumps(mean.to_dict())))
    assert np.allclose(again.proba(X), mean.proba(X))
    with pytest.raises(ValueError):
        Forest.mean([members[0], _constant(3, 1.0)])


@pytest.mark.parametrize("damage", ["backward_child", "feature_range", "length", "nan_value",
                                    "bool_field", "float_index", "huge_index", "string_value",
                                    "leaf_not_self"])
def test_forest_refuses_damaged_arrays(damage: str) -> None:
    forest, _, _ = _toy_forest()
    doc = forest.to_dict()
    inner = next(i for i, f in enumerate(doc["feature"]) if f >= 0)
    leaf = next(i for i, f in enumerate(doc["feature"]) if f < 0)
    if damage == "backward_child":
        doc["left"][inner + 1] = 0 if doc["feature"][inner + 1] >= 0 else doc["left"][inner + 1]
        doc["left"][inner] = inner  # a loop
    elif damage == "feature_range":
        doc["feature"][inner] = 99
    elif damage == "length":
        doc["value"].pop()
    elif damage == "nan_value":
        doc["value"][leaf] = float("nan")
    elif damage == "bool_field":
        doc["missing_left"][0] = True
    elif damage == "float_index":
        doc["left"][inner] = float(doc["left"][inner])
    elif damage == "huge_index":
        doc["right"][inner] = 10**30
    elif damage == "string_value":
        doc["value"][leaf] = "0.5"
    else:
        doc["left"][leaf] = leaf + 1
    with pytest.raises(ModelError):
        Forest.from_dict(doc)


@pytest.fixture(scope="module")
def bundled() -> model_file.ExtractorModel:
    if not model_file.BUNDLED.is_file():
        pytest.skip("the bundled model is not built (sitesift train-default)")
    return model_file.load(model_file.BUNDLED)


def test_model_file_rejects_tampering(bundled: model_file.ExtractorModel,
                                      tmp_path: Path) -> None:
    path = model_file.save(bundled, tmp_path / "m.json")
    assert model_file.load(path).thresholds == bundled.thresholds
    doc = json.loads(path.read_text())
    doc["thresholds"]["balanced"] = 0.01
    bad = tmp_path / "tampered.json"
    bad.write_bytes(as_written(doc))
    for read in (model_file.load, model_file.load_scorer):
        with pytest.raises(ModelError, match="checksum"):
            read(bad)
    doc = json.loads(path.read_text())
    doc["features"] = doc["features"][:-1]
    other = tmp_path / "other.json"
    other.write_bytes(seal(doc))
    with pytest.raises(ModelError, match="feature set"):
        model_file.load(other)
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(gzip.compress(path.read_bytes())[:500])
    with pytest.raises(ModelError):
        model_file.load(cut)


def test_default_keeps_the_article_and_drops_the_furniture(bundled: object) -> None:
    result = get_cleaner("default").clean(page(news_page()))
    text = result.text
    assert "Budget delayed again" in text
    assert "Paragraph 3 of story 0" in text
    for noise in ("About us", "Share on Facebook", "All rights reserved", "Other story number",
                  "I think this is wrong"):
        assert noise not in text, noise


def test_comments_drop_removes_the_comment_section_not_a_wrapper_named_for_it(
        bundled: object) -> None:
    story, comment = "Paragraph 3 of story 0", "I think this is wrong"
    lenient = {"threshold": 0.01, "relative": 0.0}  # a cut that keeps the comments
    assert comment in get_cleaner("default", **lenient).clean(page(news_page())).text
    wrapped = news_page().replace("<body>", '<body><div id="comments-enabled">').replace(
        "</body>", "</div></body>")  # a site whose whole page sits in a comment-named box
    for html in (news_page(), wrapped):
        result = get_cleaner("default", comments="drop", **lenient).clean(page(html))
        assert story in result.text and comment not in result.text
        assert any("comments=drop" in b.reason for b in result.blocks
                   if comment in b.text)
    with pytest.raises(ValueError, match="comments"):
        get_cleaner("default", comments="keep")


FIGURE_STORY = (
    "<html><body><nav><a href='/'>Home</a> <a href='/w'>World</a></nav><article>"
    "<h1>Harbour bridge reopens</h1><p class='byline'>By Ann Lee, city desk</p>"
    "<div class='dateline'><time datetime='2024-05-01'>1 May 2024, 09:00</time></div>"
    + "".join(f"<p>Paragraph {k} of the story tells at some length how the bridge was mended "
              f"and what it cost the town over the long winter months.</p>" for k in range(4))
    + "<figure><img src='b.jpg'><figcaption>The bridge at dawn, seen from the quay</figcaption>"
    "</figure><p>Paragraph 9 ends the story with the mayor's words on the reopening day.</p>"
    "</article><aside><figure><figcaption>Gallery: boats of the week in the bay</figcaption>"
    "</figure></aside></body></html>")


@pytest.mark.parametrize("kind,text", [("captions", "The bridge at dawn"),
                                       ("bylines", "By Ann Lee"), ("dates", "1 May 2024")])
def test_a_convention_switch_drops_or_keeps_its_sections_whatever_the_model_says(
        bundled: object, kind: str, text: str) -> None:
    strict = {"threshold": 0.95, "relative": 0.0}  # keeps the paragraphs alone
    lenient = {"threshold": 0.001, "relative": 0.0}  # one that keeps nearly everything
    dropped = get_cleaner("default", **{kind: "drop"}, **lenient).clean(page(FIGURE_STORY))
    assert text not in dropped.text and "Paragraph 2" in dropped.text
    assert any(f"{kind}=drop" in b.reason for b in dropped.blocks if text in b.text)
    assert text not in get_cleaner("default", **strict).clean(page(FIGURE_STORY)).text
    kept = get_cleaner("default", **{kind: "keep"}, **strict).clean(page(FIGURE_STORY))
    assert text in kept.text and "Paragraph 2" in kept.text
    assert any(f"{kind}=keep" in b.reason for b in kept.blocks if text in b.text)
    if kind == "captions":  # only the main text's: not the gallery's beside it
        assert "Gallery: boats" not in kept.text
    with pytest.raises(ValueError, match=kind):
        get_cleaner("default", **{kind: "always"})


def _thread_page() -> str:
    """A forum thread: the first post, then three replies of the same layout."""
    def post(user: str, text: str) -> str:
        return (f"<div class='message'><div class='message-user'><a href='/u/{user}'>{user}</a>"
                f"<span>Member since 2019</span></div><div class='message-body'><p>{text}</p>"
                f"</div><div class='message-footer'><a href='#'>Reply</a> <a href='#'>Quote</a>"
                f"</div></div>")
    first = ("I replaced the water pump on my 2009 hatchback last weekend, and since then the "
             "engine temperature climbs whenever I sit in traffic for more than ten minutes. The "
             "fan runs, the coolant is full and there are no leaks that I can see. Has anyone had "
             "this happen after the same job, and what did you check first?")
    replies = [("eve", "Sounds like air trapped in the system. Park it nose up and bleed it "
                       "again with the heater on full."),
               ("fay", "Check that the new thermostat went in the right way round; mine was "
                       "installed backwards once."),
               ("gus", "Bleeding it twice fixed mine. It took a few drives before the level "
                       "settled.")]
    return ("<html><head><title>Overheating after water pump - Car Forum</title></head><body>"
            "<header><a href='/'>Car Forum</a><nav><a href='/f'>Forums</a> <a href='/new'>"
            "What's new</a></nav></header><h1>Overheating after water pump</h1>"
            "<div class='thread'>" + post("dan", first)
            + "".join(post(u, t) for u, t in replies)
            + "</div><footer>Terms and rules. Privacy policy.</footer></body></html>")


def test_a_threads_replies_are_kept_as_its_first_post_is(bundled: object) -> None:
    # the model keeps the first post and some replies; a reply it kept nothing of takes the
    # verdicts of the posts it kept (records=keep, the default), and says so. The cut is set
    # just above the reply the model believes least, so the test reads the rule, not how
    # sure one training draw is of each reply.
    bodies = {"Sounds like air trapped", "Check that the new thermostat",
              "Bleeding it twice fixed mine"}
    scored = get_cleaner("default", records="auto").clean(page(_thread_page()))
    score = {t: b.score for b in scored.blocks for t in bodies if t in b.text}
    reply = min(score, key=lambda t: score[t])
    cut = {"threshold": score[reply] + 0.01, "relative": 0.0}
    assert sorted(score.values())[1] >= cut["threshold"], score  # other replies stay kept
    kept = get_cleaner("default", **cut).clean(page(_thread_page()))
    assert reply in kept.text and "Has anyone had this happen" in kept.text
    assert any("records=keep" in b.reason for b in kept.blocks if reply in b.text)
    assert "Terms and rules" not in kept.text
    alone = get_cleaner("default", records="auto", **cut).clean(page(_thread_page()))
    assert reply not in alone.text and "Has anyone had this happen" in alone.text
    with pytest.raises(ValueError, match="records"):
        get_cleaner("default", records="drop")


def _shop_page() -> str:
    """A shop's category: a heading, an intro, and a grid of eight products, each a name,
    a price and its stock."""
    names = ["Enamel kettle, red", "Stovetop kettle, steel", "Whistling kettle, blue",
             "Electric kettle with temperature control", "Copper kettle, hand made",
             "Travel kettle", "Glass kettle with tea infuser", "Cast iron kettle, black"]
    tiles = "".join(
        f"<div class='product-tile'><div class='product-name'><a href='/p/{i}'>{name}</a>"
        f"</div><div class='product-price'>${19 + 7 * i}.99</div><div class='stock'>In stock"
        f"</div></div>" for i, name in enumerate(names))
    return ("<html><head><title>Kettles | Kitchen Shop</title></head><body><header>"
            "<a href='/'>Kitchen Shop</a><nav><a href='/pots'>Pots</a> <a href='/pans'>Pans</a>"
            "</nav></header><main><h1>Kettles</h1><p>Kettles for the stove and the socket.</p>"
            f"<div class='product-grid'>{tiles}</div></main><footer>Kitchen Shop Ltd. Terms."
            "</footer></body></html>")


def test_a_listings_products_are_kept_where_the_model_kept_only_its_intro() -> None:
    # probabilities of a model that keeps the heading and intro only: with listings=keep,
    # the default, the grid's records come too, and the navigation and footer do not
    from sitesift._native import Cut, verdicts_for

    npage = read_page(page(_shop_page()))
    prob = [0.9 if t in ("Kettles", "Kettles for the stove and the socket.") else 0.05
            for t in npage.texts]
    def kept(conventions: dict[str, str]) -> list[str]:
        verdicts = verdicts_for(npage, prob, Cut(0.5, 0.5, 0.0, conventions))
        return [t for t, k in zip(npage.texts, verdicts, strict=True) if k]

    listing = kept({"listings": "keep"})
    assert "Copper kettle, hand made" in listing and "$68.99" in listing
    assert "Kettles for the stove and the socket." in listing
    assert not any("Pots" in t or "Terms" in t for t in listing)
    assert kept({"listings": "auto"}) == ["Kettles", "Kettles for the stove and the socket."]
    # a page with prose keeps what the model says of its lists
    story = " ".join(["The kettle came to the shop in a crate from the foundry."] * 5)
    npage = read_page(page(_shop_page().replace("<h1>", f"<p>{story}</p><h1>")))
    prob = [0.9 if t.startswith(("Kettles", "The kettle came")) else 0.05 for t in npage.texts]
    assert "Copper kettle, hand made" not in kept({"listings": "keep"})


def test_the_cleaner_says_which_blocks_the_listing_brought_in(bundled: object) -> None:
    # a cut no block reaches keeps nothing, but for a listing: its blocks say listings=keep
    strict = {"threshold": 0.99, "relative": 0.0}
    kept = get_cleaner("default", **strict).clean(page(_shop_page()))
    assert "Copper kettle, hand made" in kept.text
    assert all("listings=keep" in b.reason for b in kept.blocks if b.label == "content")
    assert "Copper kettle" not in get_cleaner("default", listings="auto", **strict).clean(
        page(_shop_page())).text
    with pytest.raises(ValueError, match="listings"):
        get_cleaner("default", listings="drop")


def test_an_articles_text_is_kept_where_the_model_kept_only_its_heading() -> None:
    # a model sure of the heading alone (filler it never learnt from): articles=keep, the
    # default, keeps the <article>'s prose, not the navigation or the footer beside it
    from sitesift._native import Cut, verdicts_for

    lorem = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
             "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis "
             "nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. "
             "Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore.")
    html = (f"<html><body><nav><a href='/'>Home</a> <a href='/b'>Blog</a></nav><article>"
            f"<h1>Tempor incididunt</h1><div>{lorem}</div><div>{lorem}</div></article>"
            f"<footer><p>{lorem}</p></footer></body></html>")
    npage = read_page(page(html))
    prob = [0.9 if t == "Tempor incididunt" else 0.05 for t in npage.texts]

    def kept(conventions: dict[str, str]) -> list[str]:
        verdicts = verdicts_for(npage, prob, Cut(0.5, 0.5, 0.0, conventions))
        return [t for t, k in zip(npage.texts, verdicts, strict=True) if k]

    assert kept({"articles": "keep"}) == ["Tempor incididunt", lorem, lorem]
    assert kept({"articles": "auto"}) == ["Tempor incididunt"]


def test_the_convention_switches_are_those_the_core_knows() -> None:
    from sitesift._native import Cut
    from sitesift.methods.default import CONVENTIONS

    for kind, values in CONVENTIONS.items():
        for value in values:  # every value Python offers, the core takes
            Cut(0.5, 0.5, 0.5, {kind: value})
        with pytest.raises(ValueError, match=kind):
            Cut(0.5, 0.5, 0.5, {kind: "sometimes"})
    with pytest.raises(ValueError, match="unknown convention"):
        Cut(0.5, 0.5, 0.5, {"tweets": "drop"})


def test_the_switch_fields_are_the_cores_table() -> None:
    """DefaultParams declares one field a rule (for typing), in the table's order, and each
    field's default, values and line are the table's: a rule added to the core without a
    field, or a field without a rule, fails here."""
    from dataclasses import fields

    from sitesift._native import rules
    from sitesift.methods.default import CONVENTIONS, DefaultParams

    table = rules()
    switches = [f for f in fields(DefaultParams) if "doc" in f.metadata]
    assert [f.name for f in switches] == [r.name for r in table] == list(CONVENTIONS)
    for f, r in zip(switches, table, strict=True):
        assert (f.default, f.metadata["values"], f.metadata["doc"]) == (
            r.values[0], tuple(r.values), r.summary), r.name
        assert r.phase in ("bar", "bring-in", "take-out", "editorial")
        assert set(r.values) <= {"auto", "drop", "keep", "separate", "stories"} \
            and "auto" in r.values
        # comments alone go apart, or by the page's declaration
        assert {"separate", "stories"}.isdisjoint(r.values) or r.name == "comments"
    # set as a keyword or as `--set default.NAME=VALUE`, checked against the table
    assert DefaultParams(teasers="auto").teasers == "auto"
    assert get_cleaner("default", teasers="auto").conventions()["hidden"] == "drop"
    assert "teasers" not in get_cleaner("default", teasers="auto").conventions()
    with pytest.raises(ValueError, match="teasers must be one of drop, auto"):
        DefaultParams(teasers="keep")


def test_site_evidence_drops_template_text(bundled: object) -> None:
    pages = [page(news_page(n), id=f"p{n}") for n in range(6)]
    cleaner = get_cleaner("default").fit(pages)
    text = cleaner.clean(pages[2]).text
    assert "Paragraph 1 of story 2" in text
    assert "Daily Planet" not in text.replace("Budget delayed again", "")


def test_a_fitted_page_is_read_once(bundled: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cleaning the pages a site was fitted on takes the fit's reading of each; a copy of a
    page (another object) is read again, and cleans the same."""
    from sitesift.methods import default as default_method

    reads: list[str | None] = []
    real = default_method.read_page

    def counting(p: Page, **kw: bool) -> object:
        reads.append(p.id)
        return real(p, **kw)

    monkeypatch.setattr(default_method, "read_page", counting)
    pages = [page(news_page(n), id=f"p{n}") for n in range(3)]
    cleaner = get_cleaner("default").fit(pages)
    assert reads == ["p0", "p1", "p2"]
    texts = [cleaner.clean(p).text for p in pages]
    assert reads == ["p0", "p1", "p2"]
    copy = page(pages[1].html, id="p1")
    assert cleaner.clean(copy).text == texts[1]
    assert cleaner.clean(pages[1]).text == texts[1]  # a second cleaning reads it again
    assert reads == ["p0", "p1", "p2", "p1", "p1"]


def test_a_revealed_page_of_a_fitted_site_leaves_itself_out(bundled: object) -> None:
    """The site evidence knows a page by the HTML it came with, as in training, also where
    the cleaner reads it with hidden content shown (which is other HTML)."""
    def curtained(n: int) -> str:
        story = " ".join(f"Sentence {i} of story {n} tells what the town did next." for i
                         in range(30))
        return (f"<html><head><title>Guide {n}</title></head><body>"
                "<div style='visibility:hidden;background-color:#fff'>"
                f"<h1>Guide {n}</h1><p>{story}</p></div>"
                "<div style='display:none'>menu</div></body></html>")

    pages = [page(curtained(n), id=f"c{n}") for n in range(3)]
    cleaner = get_cleaner("default").fit(pages)
    assert cleaner.evidence is not None
    result = cleaner.clean(pages[0])
    assert result.meta.get("revealed")
    shown = read_page(page(curtained(0), id="c0"))
    assert shown.revealed
    X, _, _ = page_features(shown, cleaner.evidence)
    col = {name: i for i, name in enumerate(feature_names())}
    assert np.expm1(X[0, col["site_log_pages"]]) == pytest.approx(2)  # itself left out
    story = next(i for i, t in enumerate(shown.texts) if t.startswith("Sentence 0 of story 0"))
    assert X[story, col["site_text"]] == 0.0  # on no other page of the site


def test_presets_nest(bundled: object) -> None:
    p = page(news_page())
    kept = {}
    for preset in ("precision", "balanced", "recall"):
        result = get_cleaner("default", preset=preset).clean(p)
        kept[preset] = {b.nid for b in result.content}
    assert kept["precision"] <= kept["balanced"] <= kept["recall"]
    with pytest.raises(ValueError):
        get_cleaner("default", preset="fast")
    with pytest.raises(ValueError):
        get_cleaner("default", threshold=1.5)


def test_fitted_cleaner_round_trips(bundled: object, tmp_path: Path) -> None:
    pages = [page(news_page(n), id=f"p{n}") for n in range(3)]
    cleaner = get_cleaner("default", preset="precision").fit(pages)
    path = save_model(cleaner, tmp_path / "site.json")
    loaded = load_model(path)
    assert loaded.clean(pages[1]).text == cleaner.clean(pages[1]).text
    doc = json.loads(path.read_text())
    doc["state"]["evidence"]["n_pages"] = -1
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelError):
        load_model(path)


def test_unknown_model_path_is_a_clear_error(tmp_path: Path) -> None:
    cleaner = get_cleaner("default", model=str(tmp_path / "missing.json"))
    with pytest.raises(ModelError, match=r"missing\.json"):
        cleaner.clean(page(news_page()))


def _constant(n_features: int, value: float) -> Forest:
    """A one-leaf forest: every block gets the same log-odds."""
    one = np.asarray([0])
    return Forest._checked(n_features, 0.0, one, np.asarray([-1]), np.asarray([0.0]),
                           np.asarray([False]), one, one, np.asarray([value]))


def test_heldout_bundle_scores_each_site_with_its_fold(tmp_path: Path) -> None:
    from sitesift.extractor.context import context_names

    n1, n2 = len(feature_names()), len(feature_names()) + len(context_names())
    keep, drop = (_constant(n1, 5.0), _constant(n2, 5.0)), (_constant(n1, -5.0),
                                                           _constant(n2, -5.0))
    thresholds = {"precision": 0.6, "balanced": 0.5, "recall": 0.4}
    bundle = model_file.ExtractorModel(*keep, thresholds, {}, (drop,),
                                       {"unknown": 0, "dailyplanet": 0})
    path = model_file.save(bundle, tmp_path / "bundle.json.gz")
    cleaner = get_cleaner("default", model=str(path), relative=0.0)
    # a site the bundle was trained on, and a page without a site (trained as `unknown`):
    # both are scored by the fold's forests, which drop everything here
    html = news_page()
    assert cleaner.clean(Page.from_html(html, site="www.dailyplanet.com")).text == ""
    assert cleaner.clean(Page.from_html(html)).text == ""
    # a site it never saw: the model trained on everything
    assert "Paragraph 3" in cleaner.clean(Page.from_html(html, site="elsewhere.org")).text


def test_unsure_pages_keep_their_likeliest_blocks(tmp_path: Path) -> None:
    from sitesift.extractor.context import context_names

    n1, n2 = len(feature_names()), len(feature_names()) + len(context_names())

    def model(logit: float) -> str:
        unsure = model_file.ExtractorModel(
            _constant(n1, logit), _constant(n2, logit),
            {"precision": 0.6, "balanced": 0.5, "recall": 0.4}, {})
        return str(model_file.save(unsure, tmp_path / f"unsure{logit}.json"))

    p = Page.from_html(news_page())
    # every block at p = 0.076: under the preset's cut, but not under half the page's best
    assert "Paragraph 3" in get_cleaner("default", model=model(-2.5)).clean(p).text
    assert get_cleaner("default", model=model(-2.5), relative=0.0).clean(p).text == ""
    # at p = 0.018 the model is sure there is no main content: nothing, not the navigation
    sure = get_cleaner("default", model=model(-4.0)).clean(p)
    assert sure.text == "" and sure.no_main_content == "nothing on the page reads as main content"
    with pytest.raises(ValueError):
        get_cleaner("default", relative=2.0)


def test_corpus_weight_scales_each_page_of_that_corpus() -> None:
    pool = Pool(X=np.zeros((5, 1)), share=np.zeros(5), ntok=np.array([1, 3, 10, 0, 5]),
                anc=np.zeros((5, 1), dtype=int), page=np.array([0, 0, 1, 2, 2]),
                pages=[{"corpus": "old"}, {"corpus": "new"}, {"corpus": "new"}],
                texts=["a"] * 5)
    even = np.bincount(pool.page, weights=pool.weights())
    assert np.allclose(even, 100.0)  # every page weighs the same, whatever its blocks
    pool.corpus_weight = {"new": 2.0}
    assert np.allclose(np.bincount(pool.page, weights=pool.weights()), [100.0, 200.0, 200.0])


def test_corpus_balance_moves_weight_to_small_corpora_and_keeps_the_total() -> None:
    pages = [{"corpus": "big"}] * 9 + [{"corpus": "small"}]
    pool = Pool(X=np.zeros((10, 1)), share=np.zeros(10), ntok=np.ones(10, dtype=int),
                anc=np.zeros((10, 1), dtype=int), page=np.arange(10), pages=pages,
                texts=["a"] * 10)
    assert balance_corpora(pool, 0.0) == {}
    for power, share in ((1.0, 0.5), (0.5, 1 / (1 + 3))):  # small: 1 of 2, 1 of 1 + 3
        pool.corpus_weight = balance_corpora(pool, power)
        per_page = np.bincount(pool.page, weights=pool.weights())
        assert per_page.sum() == pytest.approx(1000.0)
        assert per_page[9] / per_page.sum() == pytest.approx(share)


def _story_gold(n: int) -> str:
    paragraphs = (f"{ARTICLE} Paragraph {i} of story {n} says more about item {n}, and the "
                  "mayor answered questions from residents." for i in range(5))
    return "\n".join([f"Budget delayed again {n}", *paragraphs])


def _two_small_corpora(tmp_path: Path) -> list[Path]:
    """Two corpora of two sites each, four story pages a site, with gold."""
    roots = [tmp_path / "news", tmp_path / "papers"]
    sites = [("planet.com", "article"), ("globe.org", "story"), ("herald.net", "post-body"),
             ("times.io", "text")]
    for site_no, (site, box) in enumerate(sites):
        root = roots[site_no // 2]
        (root / "pages").mkdir(parents=True, exist_ok=True)
        (root / "gold").mkdir(exist_ok=True)
        with (root / "index.jsonl").open("a") as index:
            for k in range(4):
                n = 10 * site_no + k
                html = news_page(n, comments=k % 2 == 0).replace('class="article"',
                                                                 f'class="{box}"')
                pid = f"{site_no}-{k}"
                (root / "pages" / f"{pid}.html").write_text(html.replace("Daily Planet", site))
                (root / "gold" / f"{pid}.txt").write_text(_story_gold(n))
                index.write(json.dumps({"id": pid, "site": site,
                                        "url": f"https://{site}/{k}"}) + "\n")
    return roots


def test_train_default_learns_a_model_that_cleans(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole training command on two small corpora of two sites each: a
    cross-validated model with an averaged stage 2, its held-out bundle, each corpus
    measured by models trained on the other, and a cleaner that uses the model."""
    from sitesift.cli import main
    from sitesift.training.default.stages import DEFAULT_PARAMS

    monkeypatch.setitem(DEFAULT_PARAMS, "max_iter", 40)  # (fewer trees: a faster test)
    roots = _two_small_corpora(tmp_path)
    # (the bundle goes to a folder that does not exist yet: it is made)
    out, heldout = tmp_path / "model.json.gz", tmp_path / "new" / "heldout.json.gz"
    report = tmp_path / "report.json"
    args = ["train-default", *map(str, roots), "--out", str(out), "--folds", "2",
            "--heldout", str(heldout), "--by-corpus", "--report", str(report), "--quiet",
            "--corpus-balance", "0.5", "--stage2-members", "2"]
    assert main(args) == 0
    model = model_file.load(out)
    assert model.meta["stage2_members"] == 2 and model.meta["pages"] == 16
    # two corpora of 8 pages: balancing leaves every page as it was
    assert model.meta["corpus_balance"] == 0.5
    assert model.meta["corpus_weight"] == {"news": 1.0, "papers": 1.0}
    assert len(model.stage2.roots) == 2 * DEFAULT_PARAMS["max_iter"]
    assert len(model.stage1.roots) == DEFAULT_PARAMS["max_iter"]
    bundle = model_file.load(heldout)
    assert len(bundle.folds) == 2 and set(bundle.fold_of) == {"planet", "globe", "herald",
                                                              "times"}
    # each corpus, cleaned by models that learned from the other corpus's sites only
    by_corpus = json.loads(report.read_text())["heldout_corpora"]
    assert by_corpus["threshold"] == model.thresholds["balanced"]
    assert by_corpus["f1/news"] > 0.8 and by_corpus["f1/papers"] > 0.8
    text = get_cleaner("default", model=str(out)).clean(page(news_page(99))).text
    assert "Paragraph 3 of story 99" in text
    for noise in ("All rights reserved", "Share on Facebook", "I think this is wrong"):
        assert noise not in text, noise
    refused([*args[:-2], "--stage2-members", "0"], "stage2-members")
    refused([*args[:-4], "--corpus-balance", "2"], "corpus-balance")
    refused(["train-default", str(roots[0]), "--out", str(out), "--by-corpus"], "two corpora")


def test_train_default_refuses_an_unwritable_output_before_training(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model that cannot be written is reported at once, not after hours of training."""
    import sitesift.training.default.dataset

    def no_training(*_: object, **__: object) -> None:
        raise AssertionError("read the corpora before checking the outputs")

    monkeypatch.setattr(sitesift.training.default.dataset, "cached_corpus", no_training)
    roots = _two_small_corpora(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    good = ["--out", str(tmp_path / "m.json.gz")]
    for args, why in (([*good[:1], str(tmp_path)], "--out .* is a folder"),
                      ([*good, "--heldout", str(blocker / "h.json.gz")],
                       "--heldout .* cannot make its folder"),
                      ([*good, "--report", str(blocker / "r.json")],
                       "--report .* cannot make its folder")):
        refused(["train-default", *map(str, roots), *args], why)


def test_the_training_cache_is_rebuilt_for_a_changed_or_damaged_corpus(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache is read back for the same corpus, and built again where the corpus's gold
    changed, where another corpus of the same folder name comes, or where the cached
    arrays are damaged; never read stale or half-written."""
    import sitesift.training.default.dataset as dataset

    built: list[str] = []
    real_build = dataset.build_corpus

    def counting(root: Path, **kw: object) -> dataset.CorpusData:
        built.append(str(root))
        return real_build(root, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(dataset, "build_corpus", counting)
    news = _two_small_corpora(tmp_path / "a")[0]
    cache = tmp_path / "cache"
    first = dataset.cached_corpus(news, cache)
    again = dataset.cached_corpus(news, cache)
    assert len(built) == 1 and np.array_equal(first.X, again.X, equal_nan=True)
    # the gold of one page changes: its labels change, so the corpus is read again
    gold = news / "gold" / "0-0.txt"
    gold.write_text("Budget delayed again 0")
    edited = dataset.cached_corpus(news, cache)
    assert len(built) == 2 and edited.share.sum() < first.share.sum()
    # another corpus that happens to have the same folder name
    other = _two_small_corpora(tmp_path / "b")[0]
    dataset.cached_corpus(other, cache)
    assert built[-1] == str(other) and len(built) == 3
    # damaged arrays (a run cut off while writing, a bad disk): built again, not a crash
    (cache / "news.npz").write_bytes(b"PK\x03\x04 not a whole zip")
    dataset.cached_corpus(other, cache)
    assert len(built) == 4
    assert dataset.cached_corpus(other, cache).X.shape == first.X.shape and len(built) == 4
    # a whole zip whose compressed arrays are garbled in the middle
    whole = bytearray((cache / "news.npz").read_bytes())
    middle = len(whole) // 2
    whole[middle:middle + 64] = bytes(64)
    (cache / "news.npz").write_bytes(bytes(whole))
    dataset.cached_corpus(other, cache)
    assert len(built) == 5


def test_members_are_averaged_and_round_trip(tmp_path: Path) -> None:
    from sitesift.extractor.context import context_names

    n1, n2 = len(feature_names()), len(feature_names()) + len(context_names())
    thresholds = {"precision": 0.6, "balanced": 0.5, "recall": 0.4}
    sure = (_constant(n1, 6.0), _constant(n2, 6.0))      # p 0.9975
    doubt = model_file.Member(_constant(n1, 0.0), _constant(n2, -1.0))  # p 0.269
    cleaner_of = {}
    for name, more in (("one", ()), ("two", (doubt,))):
        path = model_file.save(model_file.ExtractorModel(*sure, thresholds, {}, more=more),
                               tmp_path / f"{name}.json")
        assert json.loads(path.read_text())["format_version"] == 3  # sealed, any members
        assert len(model_file.load(path).members) == 1 + len(more)
        cleaner_of[name] = get_cleaner("default", model=str(path), relative=0.0)
    p = page(news_page())
    _, one = cleaner_of["one"].probabilities(p)
    _, two = cleaner_of["two"].probabilities(p)
    assert one == pytest.approx(1 / (1 + math.exp(-6.0)))
    assert two == pytest.approx((1 / (1 + math.exp(-6.0)) + 1 / (1 + math.exp(1.0))) / 2)
    # a version-1 file (its old digest right) that claims further members is refused, not
    # half read
    doc = json.loads((tmp_path / "two.json").read_text())
    (tmp_path / "bad.json").write_text(json.dumps(_old_version(doc, 1)))
    with pytest.raises(ModelError, match="more"):
        model_file.load(tmp_path / "bad.json")
    doc["more"] = [5]  # checksum right, member not an object
    (tmp_path / "bad.json").write_bytes(seal(doc))
    with pytest.raises(ModelError, match="member"):
        model_file.load(tmp_path / "bad.json")


def _old_version(doc: dict[str, Any], version: int) -> dict[str, Any]:
    """The document as sitesift wrote it in format version 1 or 2: the SHA-256 of its
    body's canonical JSON, last."""
    body = {k: v for k, v in doc.items() if k not in ("format", "format_version", "sha256")}
    return {"format": doc["format"], "format_version": version, **body,
            "sha256": model_file._digest(body)}


@pytest.mark.parametrize("version", [1, 2])
def test_a_file_of_an_older_format_version_still_loads(tmp_path: Path, version: int) -> None:
    """Files written before the seal (versions 1 and 2) are read, their digest checked;
    an unknown version is refused naming the versions read."""
    from sitesift.extractor.context import context_names

    n1, n2 = len(feature_names()), len(feature_names()) + len(context_names())
    thresholds = {"precision": 0.6, "balanced": 0.5, "recall": 0.4}
    more = (model_file.Member(_constant(n1, 0.0), _constant(n2, -1.0)),) * (version - 1)
    path = model_file.save(model_file.ExtractorModel(
        _constant(n1, 6.0), _constant(n2, 6.0), thresholds, {}, more=more), tmp_path / "m.json")
    doc = _old_version(json.loads(path.read_text()), version)
    old = tmp_path / "old.json.gz"
    old.write_bytes(gzip.compress(json.dumps(doc, separators=(",", ":")).encode()))
    assert model_file.load(old).to_dict() == model_file.load(path).to_dict()
    p = page(news_page())
    probs = [get_cleaner("default", model=str(f)).probabilities(p)[1] for f in (path, old)]
    assert probs[0].tolist() == probs[1].tolist()
    doc["thresholds"]["balanced"] = 0.45  # its old digest no longer matches
    old.write_text(json.dumps(doc))
    for read in (model_file.load, model_file.load_scorer):
        with pytest.raises(ModelError, match="checksum mismatch"):
            read(old)
    doc["format_version"] = 4
    old.write_text(json.dumps(doc))
    with pytest.raises(ModelError, match=r"version 4; this sitesift reads versions 1, 2 and 3$"):
        model_file.load(old)


def test_seeds_make_a_model_of_members_and_combine_rebuilds_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--seeds 2` trains one member per seed; `--combine` of two one-seed runs' held-out
    bundles gives the same members and presets without training; a bundle that never saw
    the corpora's sites is refused."""
    from sitesift.cli import main
    from sitesift.training.default.stages import DEFAULT_PARAMS

    monkeypatch.setitem(DEFAULT_PARAMS, "max_iter", 20)
    roots = [str(r) for r in _two_small_corpora(tmp_path)]
    common = [*roots, "--folds", "2", "--quiet", "--stage2-members", "1"]

    def run(name: str, *extra: str) -> tuple[model_file.ExtractorModel,
                                             model_file.ExtractorModel]:
        out, held = tmp_path / f"{name}.json.gz", tmp_path / f"{name}-heldout.json.gz"
        assert main(["train-default", *common, "--out", str(out), "--heldout", str(held),
                     *extra]) == 0
        return model_file.load(out), model_file.load(held)

    both, both_held = run("both", "--seeds", "2")
    assert len(both.members) == 2 and not any(m.folds for m in both.members)
    assert [len(m.folds) for m in both_held.members] == [2, 2]
    runs = [run(f"seed{s}", "--seed", str(s))[1] for s in (0, 1)]
    combined, combined_held = run("combined", "--combine",
                                  *(str(tmp_path / f"seed{s}-heldout.json.gz") for s in (0, 1)))
    assert combined.thresholds == both.thresholds
    for a, b, single in zip(combined.members, both.members, runs, strict=True):
        assert a.stage2.to_dict() == b.stage2.to_dict() == single.stage2.to_dict()
    assert combined_held.members[1].fold_of == runs[1].fold_of
    (tmp_path / "other").mkdir()
    stranger = _two_small_corpora(tmp_path / "other")[0]
    (stranger / "index.jsonl").write_text((stranger / "index.jsonl").read_text()
                                          .replace("planet.com", "elsewhere.com"))
    refused(["train-default", str(stranger), "--out", str(tmp_path / "x.json"),
            "--combine", str(tmp_path / "seed0-heldout.json.gz")],
            "not trained on these pages' sites")
    refused(["train-default", *roots, "--out", str(tmp_path / "x.json"),
            "--combine", str(tmp_path / "seed0.json.gz")], "held-out bundles")


def test_a_held_out_corpus_learns_from_no_page_of_its_sites(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from sitesift.training.default import stages as train

    pages = [{"corpus": c, "cv": s} for c, s in
             [("a", "x"), ("a", "y"), ("b", "x"), ("b", "z"), ("c", "w"), ("c", "w")]]
    pool = Pool(X=np.zeros((6, 1)), share=np.zeros(6), ntok=np.ones(6, dtype=int),
                anc=np.zeros((6, 1), dtype=int), page=np.arange(6), pages=pages,
                texts=["a"] * 6)
    trained_on: list[list[int]] = []

    class Marker:  # a stage whose probability is its first feature
        def predict_proba(self, X: np.ndarray) -> np.ndarray:
            return np.column_stack([1 - X[:, 0], X[:, 0]])

    def fake_train(pool_: Pool, page_ids: np.ndarray, **_: object) -> tuple[Marker, Marker]:
        trained_on.append(sorted(page_ids.tolist()))
        return Marker(), Marker()

    monkeypatch.setattr(train, "train_two_stage", fake_train)
    monkeypatch.setattr(train, "stage2_matrix", lambda pool_, ids, p1: np.full((len(ids), 1),
                                                                                0.25))
    p2 = train.heldout_corpora(pool)
    # corpus a holds site x, which corpus b also has: b's page of x is not learned from
    assert trained_on == [[3, 4, 5], [1, 4, 5], [0, 1, 2, 3]]
    assert np.allclose(p2, 0.25)  # every block is scored


def test_page_cut_scales_every_preset_alike_on_unsure_pages() -> None:
    presets = (0.55, 0.325, 0.175)
    # a page with a sure block: each preset's own threshold
    assert [model_file.page_cut(t, 0.99, 0.325) for t in presets] == list(presets)
    # an unsure page (surest block 0.2): balanced cuts at half of it, the others alike
    cuts = [float(model_file.page_cut(t, 0.2, 0.325)) for t in presets]
    assert cuts[1] == pytest.approx(0.1)
    assert cuts[0] == pytest.approx(0.55 * 0.1 / 0.325) and cuts[2] == pytest.approx(
        0.175 * 0.1 / 0.325)
    assert model_file.page_cut(0.55, 0.2, 0.325, relative=0.0) == 0.55
    assert np.allclose(model_file.page_cut(0.325, np.array([0.99, 0.2]), 0.325), [0.325, 0.1])


def test_a_small_unsure_page_is_cut_lower() -> None:
    # a page of a few blocks (a fixture, a bare article) squares the unsure page's factor:
    # surest block 0.2 at balanced 0.325 gives a factor of 0.2 x 0.5 / 0.325
    factor = 0.2 * 0.5 / 0.325
    small, large = model_file.SMALL_PAGE_BLOCKS, model_file.SMALL_PAGE_BLOCKS + 1
    assert model_file.page_cut(0.325, 0.2, 0.325, n_blocks=small) == pytest.approx(
        0.325 * factor * factor)
    assert model_file.page_cut(0.325, 0.2, 0.325, n_blocks=large) == pytest.approx(0.1)
    assert model_file.page_cut(0.325, 0.99, 0.325, n_blocks=3) == 0.325  # a sure page
    assert np.allclose(model_file.page_cut(0.325, np.array([0.2, 0.2]), 0.325,
                                           n_blocks=np.array([3, 300])),
                       [0.325 * factor * factor, 0.1])


def test_a_page_sure_to_hold_no_main_content_keeps_nothing() -> None:
    assert model_file.page_cut(0.325, model_file.MIN_PAGE_MAX / 2, 0.325) == math.inf
    assert np.isinf(model_file.page_cut(0.55, np.array([0.99, 0.01]), 0.325)[1])
    assert model_file.page_cut(0.325, 0.01, 0.325, relative=0.0) == 0.325  # off with it


def test_the_cleaners_cut_is_the_one_training_scores_with(
        bundled: model_file.ExtractorModel) -> None:
    """The native core cuts each page as `extractor.model.page_cut` does (the thresholds
    are chosen on the latter): same block verdicts at every preset and relative setting,
    and the same floor."""
    from sitesift._native import MIN_PAGE_MAX, SMALL_PAGE_BLOCKS, Cleaner, Cut, decide

    assert MIN_PAGE_MAX == model_file.MIN_PAGE_MAX
    assert SMALL_PAGE_BLOCKS == model_file.SMALL_PAGE_BLOCKS
    cleaner = get_cleaner("default")
    pages = [news_page(n) for n in range(3)] + [
        "<html><body><nav><a href='/'>Home</a> <a href='/a'>About</a></nav>"
        "<div class='cookie-banner'>We use cookies. Accept</div></body></html>"]
    for html in pages:
        npage = read_page(page(html))
        for threshold in (0.9, 0.475, 0.35, 0.175):
            for relative in (0.0, 0.5, 2.0):
                got = decide(npage, Cleaner(cleaner._model.native,
                                            Cut(threshold, 0.35, relative)))
                top = max(d.score for d in got)
                cut = model_file.page_cut(threshold, top, 0.35, relative, len(got))
                assert [d.content for d in got] == [d.score >= cut for d in got]


def _pool(probs: list[list[float]], gold: list[list[bool]], corpus: str = "c") -> Pool:
    texts, page_of, pages = [], [], []
    for i, (ps, gs) in enumerate(zip(probs, gold, strict=True)):
        words = [f"page{i} block{j} words" for j in range(len(ps))]
        texts += words
        page_of += [i] * len(ps)
        pages.append({"corpus": corpus, "id": str(i),
                      "gold": "\n".join(w for w, g in zip(words, gs, strict=True) if g)})
    n = len(texts)
    return Pool(X=np.zeros((n, 1)), share=np.zeros(n), ntok=np.full(n, 3),
                anc=np.zeros((n, 1), dtype=int), page=np.asarray(page_of), pages=pages,
                texts=texts)


def test_thresholds_are_chosen_with_the_cleaners_page_cut() -> None:
    # a sure page (its noise at 0.3) and an unsure one (its content at 0.15): no single
    # threshold serves both, the cleaner's scaled cut on the unsure page does (a page of
    # two blocks: its factor squared, so its noise is at 0.005)
    probs = [[0.9, 0.3], [0.15, 0.005]]
    pool = _pool(probs, [[True, False], [True, False]])
    chosen = choose_thresholds(pool, np.concatenate(probs))
    assert 0.3 < chosen["thresholds"]["balanced"] <= 0.9
    assert chosen["report"]["balanced"]["f1/c"] == 1.0
    t = chosen["thresholds"]
    assert t["precision"] >= t["balanced"] >= t["recall"]


def test_each_page_type_weighs_like_a_corpus() -> None:
    rows = [{"corpus": "w", "page_type": "x", "precision": 1.0, "recall": 1.0}] * 3 + [
        {"corpus": "w", "page_type": "y", "precision": 0.0, "recall": 0.0},
        {"corpus": "a", "page_type": None, "precision": 1.0, "recall": 1.0}]
    assert macro_f_beta(rows, 1.0) == pytest.approx(2 / 3)  # a, w/x, w/y: not a and w


def test_threads_clean_pages_side_by_side_with_the_same_results(bundled: object) -> None:
    """The native core lets go of the GIL while it cleans: pages cleaned from several threads
    at once (one cleaner, fitted on a site) come out as they do one by one."""
    from concurrent.futures import ThreadPoolExecutor

    pages = [page(news_page(n), id=f"p{n}") for n in range(8)]
    one_by_one = get_cleaner("default").fit(pages)
    want = [one_by_one.clean(p).text for p in pages]
    cleaner = get_cleaner("default").fit(pages)
    copies = [page(p.html, id=p.id) for p in pages]  # not the fitted objects: read again
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda p: cleaner.clean(p).text, copies * 3))
    assert got == want * 3


def test_score_gives_the_verdicts_clean_renders(bundled: object) -> None:
    """`score` maps the core's verdicts onto the page's own DomNodes (the two readings of
    the visible tree walk the same elements in the same order): rendering them gives what
    `clean` gives."""
    from sitesift.verdicts import KEEP, render_blocks

    for html in (news_page(3), news_page(4, comments=False)):
        p = page(html)
        cleaner = get_cleaner("default")
        verdicts = cleaner.score(p)
        assert verdicts
        blocks = render_blocks(p.root, verdicts, KEEP, with_paths=True)
        want = cleaner.clean(page(html)).blocks
        assert [(b.text, b.label, b.nid, b.path) for b in blocks] == [
            (b.text, b.label, b.nid, b.path) for b in want]


def _story_with_gallery(stated: int = 31, shown: int = 12) -> str:
    """A story, then a "World news in pictures" gallery: `shown` slides of a slideshow of
    `stated`, each a counter, a caption (a sentence) and a credit."""
    story = ("<p>The council voted on Tuesday to close the old bridge to cars from March, "
             "after engineers found cracks in two of its piers during the spring survey and "
             "warned that the repairs would take at least a year to finish.</p>"
             "<p>Buses will use the ring road while the bridge is shut, and the council will "
             "run a ferry across the river at peak hours for people on foot and on bikes.</p>"
             "<p>Shops on the east bank fear the closure will keep their customers away, and "
             "have asked the council for help with their rates until the bridge opens again, "
             "late next spring as the engineers promise."
             "</p>")
    slides = "".join(
        f"<li><div class='count'>{k}/{stated}</div><p>Protesters march through the capital "
        f"on day {k} of the strike, calling for higher wages and shorter hours</p>"
        f"<span>Reuters</span></li>" for k in range(1, shown + 1))
    return ("<html><head><title>Old bridge to close | Daily</title></head><body><article>"
            f"<h1>Old bridge to close</h1>{story}</article><section><h2>World news in "
            f"pictures</h2><ul class='gallery'>{slides}</ul></section></body></html>")


def test_a_numbered_slideshow_beside_the_story_is_dropped() -> None:
    # probabilities of a model that keeps the story and the captions (sentences) alike
    from sitesift._native import Cut, verdicts_for

    def kept(html: str, conventions: dict[str, str]) -> list[str]:
        npage = read_page(page(html))
        prob = [0.9 if t.startswith(("Old bridge", "The council", "Buses", "Shops", "Protesters"))
                else 0.6 if "/" in t else 0.05 for t in npage.texts]
        verdicts = verdicts_for(npage, prob, Cut(0.5, 0.5, 0.0, conventions))
        return [t for t, k in zip(npage.texts, verdicts, strict=True) if k]

    html = _story_with_gallery()
    dropped = kept(html, {"slideshows": "drop"})
    assert dropped[0] == "Old bridge to close" and dropped[-1].startswith("Shops")
    assert not any(t.startswith("Protesters") or t == "4/31" for t in dropped)
    assert sum(t.startswith("Protesters") for t in kept(html, {"slideshows": "auto"})) == 12
    # a short carousel (4 slides stated) and a gallery with no story stay the model's call
    short = kept(_story_with_gallery(stated=4, shown=4), {"slideshows": "drop"})
    assert sum(t.startswith("Protesters") for t in short) == 4
    alone = _story_with_gallery().replace("<p>The council", "<p hidden>The council")
    assert sum(t.startswith("Protesters") for t in kept(alone, {"slideshows": "drop"})) == 12


def test_the_cleaner_says_which_blocks_the_slideshow_rule_dropped(bundled: object) -> None:
    html = _story_with_gallery()
    auto = get_cleaner("default", slideshows="auto").clean(page(html))
    cleaned = get_cleaner("default").clean(page(html))
    assert "The council voted" in cleaned.text and "Protesters march" in auto.text
    assert "Protesters march" not in cleaned.text
    said = [b for b in cleaned.blocks if "slideshows=drop" in b.reason]
    assert said and all(b.label != "content" for b in said)
    with pytest.raises(ValueError, match="slideshows"):
        get_cleaner("default", slideshows="keep")


_CONSENT = ("<div id='onetrust-consent-sdk'><div class='ot-sdk-container'><p>We process your "
            "data to deliver content or advertisements and measure the delivery of such content "
            "or advertisements to extract insights about our website. We share this information "
            "with our partners on the basis of consent and legitimate interest. You may exercise "
            "your right to consent or object to a legitimate interest, based on a specific "
            "purpose below or at a partner level in the link under each purpose.</p>"
            "<button>Accept all</button></div></div>")


def test_a_consent_dialogs_text_is_dropped_and_not_taken_for_the_pages_prose() -> None:
    # probabilities of a model that keeps the shop's heading and intro, and the consent
    # dialog's text too (it is prose)
    from sitesift._native import Cut, verdicts_for

    html = _shop_page().replace("</footer>", f"</footer>{_CONSENT}")
    npage = read_page(page(html))
    prob = [0.9 if t.startswith(("Kettles", "We process")) else 0.05 for t in npage.texts]

    def kept(conventions: dict[str, str]) -> list[str]:
        verdicts = verdicts_for(npage, prob,
                                Cut(0.5, 0.5, 0.0, {"listings": "keep", **conventions}))
        return [t for t, k in zip(npage.texts, verdicts, strict=True) if k]

    dropped = kept({"consent": "drop"})
    assert not any(t.startswith("We process") for t in dropped)
    # with the dialog's prose out of the count, the page has none: its listing is kept
    assert "Copper kettle, hand made" in dropped
    auto = kept({"consent": "auto"})
    assert any(t.startswith("We process") for t in auto)
    assert "Copper kettle, hand made" not in auto


def test_the_cleaner_says_which_blocks_the_consent_rule_dropped(bundled: object) -> None:
    story = ("<html><body><article><h1>Harbour to reopen</h1>" + "".join(
        f"<p>The harbour will reopen on Monday after {n} weeks of repairs to the old sea wall, "
        f"the port authority said, and the ferries will run again as before.</p>"
        for n in range(2, 7)) + f"</article>{_CONSENT}</body></html>")
    cleaned = get_cleaner("default").clean(page(story))
    assert "The harbour will reopen" in cleaned.text and "We process" not in cleaned.text
    said = [b for b in cleaned.blocks if "consent=drop" in b.reason]
    assert said and all(b.label != "content" for b in said)
    # the model alone keeps the dialog's prose
    auto = get_cleaner("default", consent="auto").clean(page(story))
    assert "We process" in auto.text
    assert not any("consent=drop" in b.reason for b in auto.blocks)
    with pytest.raises(ValueError, match="consent"):
        get_cleaner("default", consent="keep")


NOTICE_STORY = ("<html><body><article><h1>Quay reopens</h1><p>The north quay reopens in May "
                "after six weeks of repairs to the harbour wall, the board said.</p>"
                "<div class='ad-slot'><span>Advertisement</span></div>"
                "<figure><figcaption>The wall in March. © Reuters</figcaption></figure>"
                "<p>Boats will land their catch there again from the first week.</p></article>"
                "<footer><p>Copyright 2024 The Gazette. All rights reserved.</p></footer>"
                "</body></html>")


CHOICE_STORY = ("<html><body><article><h1>Quay reopens</h1><p>The north quay reopens in May "
                "after six weeks of repairs to the harbour wall, the board said.</p>"
                "<form><label>Your harbour</label><select name='h'><option>Northport</option>"
                "<option>Southsea Marina</option></select></form>"
                "<p>Boats will land their catch there again from the first week.</p></article>"
                "</body></html>")


PRODUCT_PAGE = ("<html><head><script type='application/ld+json'>{\"@context\": "
                "\"https://schema.org\", \"@type\": \"Product\", \"name\": \"Trail pack\"}"
                "</script></head><body><main><h1>Trail pack 25</h1><p>A light pack for day "
                "hikes, with a padded back panel, a hip belt, two side pockets and a sleeve for a "
                "water bladder of three litres, in four colours and two sizes.</p>"
                "<section class='product-reviews'><div class='review'><p>The straps are a game "
                "changer, so comfortable.</p></div></section>"
                "<div id='modal-size-guide' role='dialog'><p>Measure your torso from the base "
                "of the neck.</p></div></main></body></html>")


PROMO_STORY = ("<html><body><div id='promoBar' class='promo-bar hide'><p>Free shipping on "
               "orders over 65 euros to every country of the union.</p></div>"
               "<article><h1>Quay reopens</h1><p>The north quay reopens in May after six weeks "
               "of repairs to the harbour wall, the board said.</p>"
               "<p class='d-none d-lg-block'>Boats will land their catch there again.</p>"
               "</article></body></html>")


@pytest.mark.parametrize(("switch", "html", "dropped", "kept"), [
    # a promotion bar a class hides; a paragraph shown on wide screens is not hidden
    ("hidden", PROMO_STORY,
     ("Free shipping on orders over 65 euros to every country of the union.",),
     ("Quay reopens", "Boats will land")),
    # an ad slot's label and the footer's copyright; a photo's credit is no notice
    ("notices", NOTICE_STORY,
     ("Advertisement", "Copyright 2024 The Gazette. All rights reserved."),
     ("© Reuters", "Boats will land")),
    # a drop-down's options; the form's label is no option
    ("choices", CHOICE_STORY, ("Northport", "Southsea Marina"),
     ("Your harbour", "Boats will land")),
    # a declared product's customer reviews; its description is no review
    ("reviews", PRODUCT_PAGE, ("The straps are a game changer, so comfortable.",),
     ("Trail pack 25", "A light pack")),
    # a modal dialog's text (a size guide)
    ("dialogs", PRODUCT_PAGE, ("Measure your torso from the base of the neck.",),
     ("Trail pack 25", "A light pack")),
])
def test_a_notice_options_reviews_a_dialog_or_hidden_text_are_dropped_and_say_so(
        bundled: object, switch: str, html: str, dropped: tuple[str, ...],
        kept: tuple[str, ...]) -> None:
    # a cut low enough that the model keeps every block, so the test reads the rule
    everything = {"threshold": 0.001, "relative": 0.0}
    auto = get_cleaner("default", **{switch: "auto"}, **everything).clean(page(html))
    assert all(t in auto.text for t in dropped)
    cleaned = get_cleaner("default", **everything).clean(page(html))
    assert not any(t in cleaned.text for t in dropped)
    assert all(t in cleaned.text for t in kept)
    said = [b for b in cleaned.blocks if b.text in dropped]
    assert said and all(f"{switch}=drop" in b.reason for b in said)
    with pytest.raises(ValueError, match=switch):
        get_cleaner("default", **{switch: "keep"})


def test_stage_times_run_the_rules_the_cleaner_runs(bundled: model_file.ExtractorModel) -> None:
    from sitesift.methods.default import DefaultCleaner
    from sitesift.native import core
    cleaner = get_cleaner("default")
    assert isinstance(cleaner, DefaultCleaner)
    scorer = model_file.load_scorer(model_file.BUNDLED)
    cut = cleaner.native_cut()
    assert cut.threshold == cut.balanced == bundled.thresholds["balanced"]
    assert cleaner.native_cut() is cut  # made once
    stages = [name for name, _ in core().stage_times(CHOICE_STORY,
                                                      core().Cleaner(scorer.native, cut))]
    assert stages[-3:] == ["novelty", "forests", "render"] and "parse" in stages
    with pytest.raises(ValueError, match="choices"):  # checked when made
        core().Cut(cut.threshold, cut.balanced, cut.relative, {"choices": "keep"})


def test_soft_labels_teach_the_probabilities_not_their_rounding() -> None:
    from sitesift.training.default.stages import fit_soft, fit_trees

    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(3000, 2))
    target = 1.0 / (1.0 + np.exp(-1.5 * X[:, 0]))  # a teacher unsure near x0 = 0
    w = np.ones(len(X))
    params = {"max_iter": 60, "min_samples_leaf": 20}
    student = fit_soft(X, target, w, params)
    got = student.predict_proba(X)[:, 1]
    assert np.mean(np.abs(got - target)) < 0.03
    rounded = fit_trees(X, (target >= 0.5).astype(np.int8), w, params)
    assert np.mean(np.abs(rounded.predict_proba(X)[:, 1] - target)) > 0.1


def test_train_default_distils_the_members_into_one_student(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--distil`: the members (trained here, or those of bundles trained apart with one
    --fold-seed) teach one student of the trees asked for, with a student per site fold in
    the held-out bundle; bundles with other folds are refused."""
    from sitesift.cli import main
    from sitesift.training.default.stages import DEFAULT_PARAMS

    monkeypatch.setitem(DEFAULT_PARAMS, "max_iter", 30)
    roots = _two_small_corpora(tmp_path)
    out, heldout = tmp_path / "student.json.gz", tmp_path / "heldout.json.gz"
    base = ["train-default", *map(str, roots), "--folds", "2", "--stage2-members", "1",
            "--quiet"]
    assert main([*base, "--out", str(out), "--heldout", str(heldout), "--seeds", "2",
                 "--distil", "12"]) == 0
    model, bundle = model_file.load(out), model_file.load(heldout)
    assert len(model.members) == 1 and model.meta["config"]["distil"] == 12
    assert len(model.stage1.roots) == len(model.stage2.roots) == 12
    assert len(bundle.folds) == 2 and all(len(a.roots) == 12 for a, _ in bundle.folds)
    text = get_cleaner("default", model=str(out)).clean(page(news_page(99))).text
    assert "Paragraph 3 of story 99" in text and "All rights reserved" not in text
    # two bundles trained apart on the same folds, distilled without training again
    bundles = []
    for seed in (0, 1):
        bundles.append(tmp_path / f"s{seed}.json.gz")
        assert main([*base, "--out", str(tmp_path / f"m{seed}.json.gz"), "--seed", str(seed),
                     "--fold-seed", "0", "--heldout", str(bundles[-1])]) == 0
    combined = tmp_path / "combined.json.gz"
    assert main([*base, "--out", str(combined), "--combine", *map(str, bundles),
                 "--distil", "12"]) == 0
    assert len(model_file.load(combined).stage2.roots) == 12
    other = tmp_path / "other.json.gz"
    assert main([*base, "--out", str(tmp_path / "m2.json.gz"), "--seed", "2",
                 "--heldout", str(other)]) == 0
    refused([*base, "--out", str(combined), "--combine", str(bundles[0]), str(other),
             "--distil", "12"], "folds differ")
    refused([*base, "--out", str(out), "--distil", "5"], "--distil takes")
