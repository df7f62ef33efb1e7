"""`sitesift mine` in the paper's setting: its NB configuration 1 (both classes trained on
one site, tested on the others) pinned on a hand-computed case, and `--paper`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitesift.cli import main
from sitesift.errors import InputError
from sitesift.mining import MineSettings
from sitesift.mining.classify import PAPER_CONFIGURATIONS, classify, experiments
from sitesift.mining.corpus import MineCorpus
from sitesift.mining.represent import check_representations, describe, method_params
from sitesift.mining.run import PAPER_REPRESENTATIONS, PAPER_RUNS
from tests.test_mine import CLASSES, make_corpus

ONE_SITE = "one-university-to-others"

# two universities, one course and one student page each; words per page
PAGES = {
    "a-course": ("a", "course", {"lecture": 2}),
    "a-student": ("a", "student", {"hobby": 2}),
    "b-course": ("b", "course", {"lecture": 1}),
    "b-student": ("b", "student", {"lecture": 2, "hobby": 1}),
}


def _tiny() -> MineCorpus:
    rows = {i: {"id": i, "split": d, "site": f"{d}.edu", "label": c}
            for i, (d, c, _) in PAGES.items()}
    return MineCorpus(Path("."), rows, ("course", "student"), list(PAGES), "split", None, [])


def test_paper_configuration_1_trains_both_classes_on_one_site() -> None:
    """By hand (multinomial NB, alpha 1, the training pages' vocabulary, equal priors):
    trained on a: P(lecture|course) = 3/4, P(lecture|student) = 1/4, so b-student
    (lecture 2, hobby 1) scores 9/64 as course against 3/64 as student: wrong; b-course
    right. Accuracy 1/2, macro F (2/3 + 0) / 2 = 1/3.
    Trained on b: P(lecture|course) = 2/3, P(lecture|student) = 3/5; a-course (lecture 2)
    4/9 > 9/25, a-student (hobby 2) 1/9 < 4/25: both right. Accuracy 1, F 1.
    The configuration's figure is the mean of the two experiments: 3/4 and 2/3."""
    corpus = _tiny()
    exps, notes = experiments(corpus, configs=(ONE_SITE,))
    assert not notes
    assert [(e.note, e.folds) for e in exps] == [
        ("train a", ((("a-course", "a-student"), ("b-course", "b-student")),)),
        ("train b", ((("b-course", "b-student"), ("a-course", "a-student")),)),
    ]
    from sklearn.feature_extraction import DictVectorizer

    matrix = DictVectorizer(sort=False).fit_transform([w for *_, w in PAGES.values()]).tocsr()
    row_of = {i: n for n, i in enumerate(PAGES)}
    labels = {i: c for i, (_, c, _) in PAGES.items()}
    got = classify(matrix, row_of, labels, exps)[ONE_SITE]
    assert got["accuracy"] == pytest.approx(3 / 4)
    assert got["f"] == pytest.approx(2 / 3)
    assert got["pairs"]["course/student"]["experiments"] == 2


def test_paper_configuration_1_on_a_built_corpus(tmp_path: Path) -> None:
    from sitesift.mining.corpus import load_corpus

    corpus = load_corpus(make_corpus(tmp_path / "c"), CLASSES)
    exps, _ = experiments(corpus, folds=3, configs=tuple(PAPER_CONFIGURATIONS))
    assert {e.config for e in exps} == set(PAPER_CONFIGURATIONS)
    one = [e for e in exps if e.config == ONE_SITE]
    assert len(one) == 3 * 3  # every university, every pair (no all-classes run)
    for exp in one:
        (train, test), = exp.folds
        trained = {corpus.domain(i) for i in train}
        assert len(trained) == 1 and {corpus.label(i) for i in train} == set(exp.classes)
        assert {corpus.domain(i) for i in test} == set(corpus.universities) - trained


def test_paper_settings_and_the_cli_flag(tmp_path: Path) -> None:
    paper = MineSettings.paper()
    assert (paper.runs, paper.cluster_on, paper.init) == (PAPER_RUNS, "all", "random")
    assert PAPER_RUNS == 400 and paper.configurations == tuple(PAPER_CONFIGURATIONS)
    assert paper.representations == PAPER_REPRESENTATIONS
    assert MineSettings.paper(runs=3).runs == 3
    data = make_corpus(tmp_path / "c")
    out = tmp_path / "out"
    assert main(["mine", str(data), "--out", str(out), "--paper", "--runs", "2",
                 "--classes", ",".join(CLASSES), "--representations", "raw,sst@paper",
                 "--no-plots", "--quiet"]) == 0
    got = json.loads((out / "results.json").read_text())
    assert got["settings"]["cluster_on"] == "all" and got["settings"]["runs"] == 2
    # every target page is clustered, the misc sites' too
    assert got["clustering"]["pages"] == got["pages"]["targets"]
    assert got["representations"]["sst@paper"]["description"].endswith("preset=paper")
    assert set(got["representations"]["sst@paper"]["classification"]) == set(
        PAPER_CONFIGURATIONS)
    assert "--paper" in got["command"]
    table = (out / "classification.md").read_text()
    assert "(6) paper's configuration 1" in table and "leave-one-university-out" not in table
    assert main(["mine", str(data), "--out", str(tmp_path / "bad"), "--configurations",
                 "nope", "--quiet"]) == 2


def test_a_method_in_its_paper_mode_is_a_representation_of_its_own() -> None:
    assert check_representations(["sst", "sst@paper"]) == ["sst", "sst@paper"]
    assert method_params("sst@paper") != method_params("sst")  # cached apart
    assert method_params("sst@paper")["align_unmatched"] is None
    assert "preset=paper" in describe("template@paper")
    with pytest.raises(InputError, match="sst@nope"):
        check_representations(["sst@nope"])
