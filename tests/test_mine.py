"""`sitesift mine`: the Hungarian F, the configurations' splits, the cache and the report,
on a synthetic corpus of templated university sites and on a slice of WebKB."""

from __future__ import annotations

import gzip
import json
import random
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesift.cli import main
from sitesift.errors import InputError
from sitesift.mining import MineSettings, run_mine
from sitesift.mining import represent as represent_module
from sitesift.mining.classify import CONFIGURATIONS, MULTICLASS, experiments
from sitesift.mining.cluster import hungarian_f, summarise
from sitesift.mining.corpus import load_corpus
from sitesift.mining.represent import bag, check_representations
from tests.conftest import refused, shared_dataset

# ---------------------------------------------------------------- the Hungarian F


def test_hungarian_f_on_a_known_confusion() -> None:
    # classes {0: 2 pages, 1: 2 pages}; clusters {0: 3 pages, 1: 1 page}
    # F[0,0] = 2*2/(2+3) = 0.8, F[1,1] = 2*1/(2+1) = 2/3, F[1,0] = 0.4, F[0,1] = 0
    assert hungarian_f([0, 0, 1, 1], [0, 0, 0, 1], 2) == pytest.approx((0.8 + 2 / 3) / 2)
    # the best assignment, not the identity: the clusters are named the other way round
    assert hungarian_f([0, 0, 1, 1], [1, 1, 1, 0], 2) == pytest.approx((0.8 + 2 / 3) / 2)
    assert hungarian_f([0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0], 2) == 1.0
    # three classes, everything in one cluster: one class gets it, the others score 0
    assert hungarian_f([0, 0, 1, 2], [0, 0, 0, 0], 3) == pytest.approx((2 * 2 / (2 + 4)) / 3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40),
       st.permutations(range(4)))
def test_hungarian_f_ignores_cluster_names_and_is_one_only_for_the_classes(
        pairs: list[tuple[int, int]], rename: list[int]) -> None:
    truth = [t for t, _ in pairs]
    pred = [p for _, p in pairs]
    score = hungarian_f(truth, pred, 4, 4)
    assert 0.0 <= score <= 1.0 + 1e-12
    assert hungarian_f(truth, [rename[p] for p in pred], 4, 4) == pytest.approx(score)
    assert hungarian_f(truth, [rename[t] for t in truth], 4, 4) == pytest.approx(
        len(set(truth)) / 4)


def test_pages_without_words_are_not_clustered_but_count_against_their_class() -> None:
    from scipy.sparse import csr_matrix

    from sitesift.mining.cluster import kmeans_runs

    # unclustered (-1) pages lower their class's recall: class 0 has 3 pages, 2 clustered
    assert hungarian_f([0, 0, 0, 1, 1], [0, 0, -1, 1, 1], 2) == pytest.approx(
        (2 * 2 / (3 + 2) + 1.0) / 2)
    # two clear groups and two empty pages; an empty page never becomes a centre, so no
    # run collapses into one cluster
    vectors = csr_matrix([[1.0, 0], [0.9, 0.1], [1.0, 0.05], [0, 1.0], [0.1, 0.9],
                          [0, 0], [0, 0]])
    runs = kmeans_runs(vectors, [0, 0, 0, 1, 1, 0, 1], 2, 20, sites=[0, 0, 0, 1, 1, 0, 0])
    assert all(s == pytest.approx((2 * 3 / (4 + 3) + 2 * 2 / (3 + 2)) / 2)
               for s in runs.scores)
    # scored against the sites too: site 1 is found exactly, site 0 loses its empty pages
    assert runs.site_scores == [pytest.approx((2 * 3 / (5 + 3) + 1.0) / 2)] * 20


def test_summary_shares_runs_above_fixed_levels() -> None:
    s = summarise([0.2, 0.45, 0.55, 0.9])
    assert s["mean_f"] == pytest.approx(0.525) and s["median_f"] == pytest.approx(0.5)
    assert s["share_at_least"]["0.5"] == 0.5 and s["share_at_least"]["0.8"] == 0.25


def test_bags_filter_words_the_same_way_for_text_and_weights() -> None:
    assert bag("The Course CS414 course syllabus 1996 x") == {"course": 2.0, "syllabus": 1.0}
    assert bag({"course": 1.5, "the": 3.0, "cs414": 1.0, "nav": 0.0}) == {"course": 1.5}
    assert bag(None) == {}


# ---------------------------------------------------------------- a synthetic corpus

CLASS_WORDS = {
    "course": "lecture syllabus homework exam assignment grading textbook lab".split(),
    "student": "phd advisor hobbies resume interests thesis graduate friends".split(),
    "faculty": "professor publications teaching research grants awards chair".split(),
}
COMMON = "page information welcome computer science university links".split()


def _word(rng: random.Random) -> str:
    return "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(4, 9)))


def _page(uni: str, cls: str, n: int, rng: random.Random) -> str:
    """A templated page: banner and footer shared by the site, and content of words of
    its own (as real pages have) with a few of its class's words among them."""
    words = [_word(rng) for _ in range(40)] + rng.choices(CLASS_WORDS.get(cls, COMMON), k=6)
    rng.shuffle(words)
    nav = " ".join(f'<a href="/{w}">{uni}{w} portal</a>' for w in
                   ("home", "people", "research", "courses", "admissions", "contact"))
    return (f"<html><head><title>{cls} {n}</title></head><body>"
            f'<table class="banner"><tr><td>{uni} department of computer sciences</td>'
            f"<td>{nav}</td></tr></table>"
            f"<h1>{cls.title()} page {n}</h1><p>{' '.join(words)}</p>"
            f"<p>{' '.join([_word(rng) for _ in range(15)] + rng.choices(COMMON, k=3))}</p>"
            f'<div class="footer">{uni} webmaster copyright {uni}university</div>'
            "</body></html>")


def make_corpus(root: Path, per_class: int = 6) -> Path:
    """Three templated 'universities' and a misc split of small sites, classes course,
    student, faculty (+ unlabelled-for-the-experiment 'other' pages in the fit sets);
    pages saved with an HTTP header, as WebKB's are."""
    rng = random.Random(7)
    (root / "pages").mkdir(parents=True)
    rows = []
    splits = {"alpha": "alpha.edu", "beta": "beta.edu", "gamma": "gamma.edu"}
    layout = [(split, site, per_class) for split, site in splits.items()]
    layout += [("misc", f"small{k}.edu", 2) for k in range(4)]
    for split, site, count in layout:
        for cls in (*CLASS_WORDS, "other"):
            for n in range(count if cls != "other" else 2):
                page_id = f"{split}-{site.split('.')[0]}-{cls}-{n:03d}"
                header = b"HTTP/1.0 200 OK\r\nServer: NCSA/1.5\r\nContent-Type: text/html\r\n\r\n"
                body = _page(site.split(".")[0], cls, n, rng).encode()
                (root / "pages" / f"{page_id}.html.gz").write_bytes(
                    gzip.compress(header + body))
                rows.append({"id": page_id, "url": f"http://www.{site}/{cls}/{n}.html",
                             "site": site, "label": cls, "split": split,
                             "body_offset": len(header), "http_content_type": "text/html"})
    with open(root / "index.jsonl", "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    return root


CLASSES = ("course", "faculty", "student")


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_corpus(tmp_path_factory.mktemp("minecorpus"))


def test_configurations_never_leak_a_university(synthetic: Path) -> None:
    corpus = load_corpus(synthetic, CLASSES)
    assert corpus.universities == ["alpha", "beta", "gamma"] and corpus.heldout == "misc"
    exps, notes = experiments(corpus, folds=3)
    assert not notes
    domain = corpus.domain
    seen = {e.config for e in exps}
    assert seen == set(CONFIGURATIONS)
    for exp in exps:
        for train, test in exp.folds:
            assert not set(train) & set(test)
            tr, te = {domain(i) for i in train}, {domain(i) for i in test}
            assert {corpus.label(i) for i in train} == set(exp.classes)
            assert {corpus.label(i) for i in test} <= set(exp.classes)
            assert "misc" not in tr  # the misc sites are never training data
            if exp.config == "leave-one-university-out":
                assert len(te) == 1 and not tr & te
            elif exp.config == "universities-to-misc":
                assert te == {"misc"} and tr == {"alpha", "beta", "gamma"}
            elif exp.config == "confounded-other-universities":
                assert len({domain(i) for i in train if corpus.label(i) == exp.classes[0]}) == 1
                assert not tr & te and len(tr) == 2
            elif exp.config == "same-universities":
                assert "misc" not in te
    # cross-validation covers each page of the pool exactly once as a test page
    cv = next(e for e in exps if e.config == "same-universities" and len(e.classes) == 2)
    tested = [i for _, test in cv.folds for i in test]
    assert len(tested) == len(set(tested)) == 3 * 2 * 6
    # a leave-one-out experiment per university, pair and the 3-class set
    loo = [e for e in exps if e.config == "leave-one-university-out"]
    assert len(loo) == 3 * 4
    conf = [e for e in exps if e.config == "confounded-rest"]
    assert len(conf) == 3 * len(list(permutations("abc", 2)))


def test_bad_inputs_fail_with_clear_errors(synthetic: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no pages of class"):
        load_corpus(synthetic, ("course", "project"))
    with pytest.raises(InputError, match="not a dataset folder"):
        load_corpus(tmp_path)
    with pytest.raises(InputError, match="unknown representation"):
        check_representations(["raw", "nope"])
    with pytest.raises(InputError, match="twice"):
        check_representations(["sst", "sst"])
    unlabelled = tmp_path / "unlabelled"
    (unlabelled / "pages").mkdir(parents=True)
    (unlabelled / "index.jsonl").write_text('{"id": "a", "site": "x.org"}\n')
    with pytest.raises(InputError, match="no 'label'"):
        load_corpus(unlabelled)


REPS = ("raw", "alltext", "sst", "cst", "template")


def test_mine_writes_the_report_and_reuses_the_cache(synthetic: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    mine_settings = MineSettings(runs=4, classes=CLASSES, representations=REPS, folds=3,
                                 min_site_pages=5, progress=False)
    results = run_mine(synthetic, out, mine_settings, command="test")
    for name in ("clustering.md", "classification.md", "results.json",
                 "mining-clustering.png", "mining-classification.png"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    assert list(data["representations"]) == list(REPS)
    assert data["clustering"]["pages"] == 3 * 3 * 6
    for rep, got in data["representations"].items():
        c = got["clustering"]
        assert c["runs"] == 4 and len(c["runs_f"]) == 4
        assert 0 < c["mean_f"] <= 1 and 0 < c["median_f"] <= 1, rep
        for config in CONFIGURATIONS:
            assert 0 <= got["classification"][config]["accuracy"] <= 1
            assert 0 <= got["classification"][config]["f"] <= 1
            assert len(got["classification"][config]["pairs"]) == 3
        assert MULTICLASS in got["classification"]["same-universities"]
        assert got["text"]["pages"] == len(load_corpus(synthetic, CLASSES).targets)
    # misc sites hold 8 pages, the universities 20: all reach 5 pages, none falls back
    assert data["representations"]["sst"]["text"]["fallback_pages"] == 0
    # raw HTML keeps the markup; the HTTP header is cut (body_offset)
    raw_words = data["representations"]["raw"]["text"]["words_per_page"]
    assert raw_words > data["representations"]["alltext"]["text"]["words_per_page"]
    assert "ncsa" not in json.dumps(_cached_words(out / "cache", "raw"))
    # the SST removes the universities' banner and footer: fewer words than all visible text
    sst = data["representations"]["sst"]["text"]["words_per_page_by_domain"]
    alltext = data["representations"]["alltext"]["text"]["words_per_page_by_domain"]
    assert all(sst[u] < alltext[u] - 10 for u in ("alpha", "beta", "gamma"))
    # on templated sites the experiment shows the paper's effect: the raw pages cluster
    # partly by site, the SST's text by class
    got = data["representations"]
    assert got["sst"]["clustering"]["mean_f"] > got["raw"]["clustering"]["mean_f"] + 0.1
    assert got["sst"]["clustering"]["mean_f_vs_domain"] < \
        got["raw"]["clustering"]["mean_f_vs_domain"]
    assert set(data["checks"]) >= {"clustering_sst_minus_raw",
                                   "classification_sst_minus_raw"}
    md = (out / "clustering.md").read_text()
    assert "| representation |" in md and "| sst |" in md and "F >= 0.5" in md
    cmd = (out / "classification.md").read_text()
    assert "leave-one-university-out" in cmd and "course/student" in cmd

    # a rerun cleans nothing: every (representation, site) comes from the cache
    def refuse(task: object) -> None:
        raise AssertionError("cleaned again despite the cache")

    monkeypatch.setattr("sitesift.mining.run.clean_task", refuse)
    again = run_mine(synthetic, out, mine_settings, command="test")
    assert again["representations"]["sst"]["clustering"] == \
        results["representations"]["sst"]["clustering"]


def _cached_words(cache: Path, rep: str) -> list[str]:
    texts = []
    for path in (cache / rep).glob("*.json.gz"):
        data = json.loads(gzip.decompress(path.read_bytes()))
        texts += [t.lower() for t in data["entries"].values()]
    return texts


def test_small_sites_fall_back_to_all_visible_text(synthetic: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_mine(synthetic, out, MineSettings(runs=2, classes=CLASSES,
                                          representations=("sst",), folds=3,
                                          min_site_pages=10, progress=False, plots=False),
             command="test")
    data = json.loads((out / "results.json").read_text())
    # the four misc sites have 8 pages each, below 10: their 24 target pages fall back
    assert data["representations"]["sst"]["text"]["fallback_pages"] == 4 * 3 * 2
    assert not (out / "mining-clustering.png").exists()


def test_a_page_that_cannot_be_parsed_is_an_error_record_not_a_gap(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "corpus")
    row = json.loads((root / "index.jsonl").read_text().splitlines()[0])
    frameset = b"<html><frameset cols='20%,*'><frame src='a.html'></frameset></html>"
    (root / "pages" / f"{row['id']}.html.gz").write_bytes(gzip.compress(frameset))
    rows = [json.loads(x) for x in (root / "index.jsonl").read_text().splitlines()]
    rows[0]["body_offset"] = 0
    (root / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    run_mine(root, out, MineSettings(runs=2, classes=CLASSES, representations=(
        "raw", "alltext", "template"), folds=3, progress=False, plots=False), command="test")
    data = json.loads((out / "results.json").read_text())
    # in a site-level method too: the page is an error, its site's fit goes on without it
    for rep in ("alltext", "template"):
        text = data["representations"][rep]["text"]
        assert text["errors"] == 1 and text["empty_pages"] >= 1, rep
        assert "no document body" in next(iter(text["error_reasons"]))
    assert data["representations"]["raw"]["text"]["errors"] == 0


def test_cli_mine(synthetic: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    assert main(["mine", str(synthetic), "--out", str(out), "--runs", "3",
                 "--classes", ",".join(CLASSES), "--representations", "raw,alltext,sst",
                 "--folds", "3", "--no-plots", "--quiet"]) == 0
    data = json.loads((out / "results.json").read_text())
    assert data["settings"]["runs"] == 3
    assert list(data["representations"]) == ["raw", "alltext", "sst"]
    assert data["command"].startswith("sitesift mine")
    assert main(["mine", str(synthetic), "--out", str(out), "--representations",
                 "raw,nope", "--quiet"]) == 2
    # the tables are written again from results.json alone
    (out / "clustering.md").unlink()
    assert main(["mine", "--out", str(out), "--from-results", "--no-plots"]) == 0
    assert "| sst |" in (out / "clustering.md").read_text()
    assert main(["mine", "--out", str(tmp_path / "none"), "--from-results"]) == 2
    refused(["mine", "--out", str(out)])


# ---------------------------------------------------------------- a slice of WebKB


def webkb_slice(tmp: Path, per_cell: int = 6) -> Path:
    """`per_cell` pages of each (university folder, class), the 4-class setting plus some
    `other` pages for the site fits; pages linked, not copied."""
    webkb = shared_dataset("webkb")
    rows = [json.loads(x) for x in (webkb / "index.jsonl").read_text().splitlines() if x]
    taken: dict[tuple[str, str], int] = {}
    keep = []
    for row in rows:
        cell = (row["split"], row["label"])
        wanted = row["label"] in ("course", "faculty", "project", "student") or (
            row["label"] == "other" and row["split"] != "misc")
        if wanted and taken.get(cell, 0) < per_cell:
            taken[cell] = taken.get(cell, 0) + 1
            keep.append(row)
    (tmp / "pages").mkdir(parents=True)
    for row in keep:
        name = f"{row['id']}.html.gz"
        (tmp / "pages" / name).symlink_to(webkb / "pages" / name)
    (tmp / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in keep))
    return tmp


def test_webkb_corpus_and_splits() -> None:
    corpus = load_corpus(shared_dataset("webkb"))
    assert corpus.universities == ["cornell", "texas", "washington", "wisconsin"]
    assert corpus.heldout == "misc" and corpus.domain_field == "split"
    counts = corpus.counts()
    assert counts["cornell"] == {"course": 44, "faculty": 34, "project": 20, "student": 128}
    assert len(corpus.targets) == 930 + 1124 + 504 + 1641
    groups = {g.name: g for g in corpus.groups}
    assert len(groups["wisc.edu"].fit_ids) == 1263  # fitted on every page of the site
    exps, _ = experiments(corpus)
    for exp in exps:
        if exp.config == "leave-one-university-out":
            (train, test), = exp.folds
            assert not {corpus.domain(i) for i in train} & {corpus.domain(i) for i in test}


def test_mine_on_a_webkb_slice(tmp_path: Path) -> None:
    root = webkb_slice(tmp_path / "webkb")
    out = tmp_path / "out"
    results = run_mine(root, out, MineSettings(
        runs=3, representations=("raw", "alltext", "sst", "cst"), folds=3, progress=False,
        plots=False), command="test")
    reps = results["representations"]
    assert results["clustering"]["pages"] == 4 * 4 * 6
    # the saved HTTP header never reaches the text
    assert not any("mime-version" in t for t in _cached_words(out / "cache", "raw"))
    for rep in reps.values():
        assert rep["text"]["pages"] == len(load_corpus(root).targets)
        assert 0 < rep["clustering"]["mean_f"] <= 1
        assert 0 < rep["classification"]["universities-to-misc"]["accuracy"] <= 1
    # the universities' sites are fitted (24-30 pages each); misc sites of 1-2 pages here
    # fall back to all visible text
    assert 0 < reps["sst"]["text"]["fallback_pages"] < reps["sst"]["text"]["pages"]


def test_cache_key_changes_with_the_parameters(synthetic: Path) -> None:
    corpus = load_corpus(synthetic, CLASSES)
    group = corpus.groups[0]
    a = represent_module.cache_key("sst", group, 5, synthetic)
    assert a == represent_module.cache_key("sst", group, 5, synthetic)
    assert a != represent_module.cache_key("sst", group, 6, synthetic)
    assert a != represent_module.cache_key("cst", group, 5, synthetic)


# ---------------------------------------------------------------- edge cases and noise


def test_a_representation_that_kept_nothing_scores_as_one_cluster_and_the_prior() -> None:
    from scipy.sparse import csr_matrix

    from sitesift.mining.classify import Experiment, run_experiment
    from sitesift.mining.cluster import kmeans_runs, tfidf

    empty = csr_matrix((6, 0))
    scores, degenerate, _ = kmeans_runs(tfidf(csr_matrix((6, 3))), [0, 0, 0, 0, 1, 1], 2, 3)
    assert scores == [0.0] * 3 and degenerate == 3  # no page clustered: no class found
    ids = [f"p{i}" for i in range(6)]
    labels = dict(zip(ids, ["a", "a", "a", "b", "a", "b"], strict=True))
    exp = Experiment("x", ("a", "b"), ((tuple(ids[:4]), tuple(ids[4:])),))
    accuracy, f = run_experiment(empty, {i: n for n, i in enumerate(ids)}, labels, exp)
    assert accuracy == 0.5  # the majority class of training, 'a', for both test pages
    assert f == pytest.approx((2 / 3 + 0) / 2)


def test_repeated_line_share_counts_template_lines() -> None:
    from sitesift.mining.noise import repeated_line_share

    template = "Department of Computer Sciences\nHome | People | Courses"
    texts = [f"{template}\nmy own words number {n} here" for n in range(10)]
    share, words = repeated_line_share(texts)
    assert words == 10 * (4 + 3 + 6)
    assert share == pytest.approx(7 / 13)
    assert repeated_line_share([f"page {n} alone" for n in range(10)])[0] == 0.0
