"""Page-level template detection (`isotonic`, seed 004): the seed's evaluations, cross-site.

    python benchmarks/template_detection.py [--out DIR] [--parts detection,cleaner,dups,timing]

1. detection: node-level template detection on sites left out of training. Every labelled
   page of the site-grouped corpora gets the scores of a model trained without its site
   (5 folds over sites) or without its corpus; F of the template class against the held-out
   site's own site-level labels and against labels from its gold text (a node mostly inside
   the gold is content, mostly outside noise), classifier only against classifier plus
   smoothing, with a sweep of the section cost c; and the token F1 of the kept text.
2. cleaner: the real cleaner (`sitesift` batch path, text as `sitesift evaluate` scores it)
   on big9, dragnet and cleanportaleval with models trained without that corpus.
3. dups: near-duplicate detection with shingles, with and without template removal (the
   seed's lyrics experiment, rebuilt on the shared corpora). Duplicate pairs: the same
   article on two sites. The corpora hold few natural ones (gold texts of different sites
   sharing most 5-grams: 8 pairs), so each pair (A, A') takes A and makes A' by moving A's
   article element (the smallest element holding 80 % of A's gold tokens) into page B of
   another site of the same corpus in place of B's own: A's story in B's template, as a
   syndicated story appears. Non-duplicate pairs: two different pages of one site (gold
   5-gram resemblance below 0.3). A pair is called duplicate when the resemblance (Jaccard
   overlap of 4-token shingle sets) of the two cleaned texts is at least tau. Compared:
   all visible text, the site-level template method (Bar-Yossef & Rajagopalan, fitted on
   the host site's pages: the seed's SiteLevel) and the page-level cleaners (models
   trained without the corpus).
4. timing: CPU time of the DP on 3,000-node trees and on the largest real pages, and of the
   whole cleaner per page.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitesift.batch import SitePolicy, run_groups
from sitesift.datasets import load_page, read_gold, read_index
from sitesift.errors import SitesiftError
from sitesift.jobs.grouping import group_rows
from sitesift.methods.base import Cleaner, get_cleaner
from sitesift.methods.isotonic import (
    IsotonicCleaner,
    IsotonicParams,
    IsotonicRawCleaner,
    expected_features,
)
from sitesift.methods.isotonic.features import node_table
from sitesift.methods.isotonic.regression import smooth_tree
from sitesift.metrics import token_prf
from sitesift.model_io import save_model
from sitesift.output import Output
from sitesift.page import Page
from sitesift.shingles import shingle_ids
from sitesift.text import tokens
from sitesift.training.isotonic.evaluation import node_prf, smoothed, token_f1
from sitesift.training.isotonic.pipeline import (
    GROUPING,
    PageData,
    TrainParams,
    collect,
    fit,
    out_of_fold,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
DEFAULT = IsotonicParams()
SWEEP = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0)
EVAL_CORPORA = ("big9", "dragnet", "cleanportaleval")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def fmt(prf: Any) -> str:
    return f"{prf.f1:.3f} ({prf.precision:.3f} / {prf.recall:.3f})"


# --- 1. node-level detection, cross-site ------------------------------------------------

def detection(pages: list[PageData], p: TrainParams) -> tuple[str, dict[str, Any]]:
    names = expected_features(p.render)
    lines, results = [], {}
    for scheme in ("sites", "corpus"):
        start = time.process_time()
        x = out_of_fold(pages, p, names, scheme)
        log(f"detection: out-of-fold scores ({scheme}) in {time.process_time() - start:.0f} s")
        held = "whole sites (5 folds)" if scheme == "sites" else "whole corpora"
        lines += [f"\n### held out: {held}\n",
                  "| scores | c | weighting | F vs site labels (P / R) | F vs gold labels (P / R) "
                  "| token F1 " + " | ".join(EVAL_CORPORA) + " |",
                  "|---|---|---|---|---|" + "---|" * len(EVAL_CORPORA)]
        settings: list[tuple[float | None, str]] = [(None, "-")]
        settings += [(c, w) for w in ("none", "log-tokens") for c in SWEEP]
        for c, weighting in settings:
            y = smoothed(pages, x, c, weighting)
            site, gold = node_prf(pages, y, DEFAULT.threshold, "site"), node_prf(
                pages, y, DEFAULT.threshold, "gold")
            tf = token_f1(pages, y, DEFAULT.threshold)
            label = "raw (isotonic-raw)" if c is None else "smoothed"
            if c == DEFAULT.c and weighting == DEFAULT.weighting:
                label += " **default**"
            lines.append(f"| {label} | {'' if c is None else c} | {weighting} | {fmt(site)} | "
                         f"{fmt(gold)} | " + " | ".join(f"{tf.get(k, float('nan')):.3f}"
                                                         for k in EVAL_CORPORA) + " |")
            results[f"{scheme}:{c}:{weighting}"] = {
                "site": [site.precision, site.recall, site.f1, site.support],
                "gold": [gold.precision, gold.recall, gold.f1, gold.support], "token_f1": tf}
    return "\n".join(lines), results


# --- 2. the real cleaner, leave-corpus-out ----------------------------------------------

def corpus_models(pages: list[PageData], p: TrainParams, out: Path) -> dict[str, Path]:
    """A model file per evaluation corpus, trained on the other corpora's pages (the same
    classifier is also saved as an `isotonic-raw` model: a file names its method)."""
    models = {}
    for corpus in EVAL_CORPORA:
        model = fit([pg for pg in pages if pg.corpus != corpus], p, expected_features(p.render))
        save_model(IsotonicRawCleaner(model=model), out / f"without-{corpus}.isotonic-raw.json")
        models[corpus] = save_model(IsotonicCleaner(model=model),
                                    out / f"without-{corpus}.isotonic.json")
    return models


def cleaner_f1(datasets: Path, models: dict[str, Path]) -> tuple[str, dict[str, Any]]:
    from sitesift.evaluate import dataset_groups
    from sitesift.jobs.grouping import Grouping

    lines = ["| corpus | pages | method | mean token F1, model without the corpus | "
             "with the shipped model | median CPU ms per page |", "|---|---|---|---|---|---|"]
    results: dict[str, Any] = {}
    for corpus, path in models.items():
        root = datasets / corpus
        groups = dataset_groups(root, Grouping(GROUPING.get(corpus, "site")))
        for method in ("isotonic-raw", "isotonic"):
            f1s: dict[str, list[float]] = {"held": [], "shipped": []}
            cpu: list[float] = []
            held = str(path).replace(".isotonic.json", f".{method}.json")
            for which, model in (("held", held), ("shipped", None)):
                policy = SitePolicy(method, model=model, output=Output(noise=False))
                for outcome in run_groups(groups, policy):
                    text = outcome.result.text if outcome.result is not None else ""
                    f1s[which].append(token_prf(text, read_gold(root, outcome.id) or "").f1)
                    if which == "shipped":
                        cpu.append(outcome.cpu_ms)
            results[f"{corpus}:{method}"] = {k: statistics.fmean(v) for k, v in f1s.items()}
            lines.append(f"| {corpus} | {len(f1s['held'])} | {method} | "
                         f"{statistics.fmean(f1s['held']):.3f} | "
                         f"{statistics.fmean(f1s['shipped']):.3f} | "
                         f"{statistics.median(cpu):.1f} |")
    return "\n".join(lines), results


# --- 3. duplicate detection -------------------------------------------------------------

def article_html(html: str, gold: str, recall: float = 0.8) -> str | None:
    """Outer HTML of the smallest element holding `recall` of the gold's tokens."""
    from selectolax.lexbor import LexborHTMLParser

    want = Counter(tokens(gold))
    total = sum(want.values())
    body = LexborHTMLParser(html).body
    if not total or body is None:
        return None
    best: tuple[int, str] | None = None
    for node in body.traverse():
        if node.tag in ("-text", "-comment"):
            continue
        have = Counter(tokens(node.text(deep=True, separator=" ")))
        if sum((have & want).values()) >= recall * total:
            size = sum(have.values())
            if best is None or size < best[0]:
                best = (size, node.html or "")
    return best[1] if best else None


def splice(host_html: str, host_gold: str, donor_article: str) -> str | None:
    """The host page with its article element replaced by the donor's."""
    from selectolax.lexbor import LexborHTMLParser

    own = article_html(host_html, host_gold)
    if not own:
        return None
    full = LexborHTMLParser(host_html).html or ""
    at = full.find(own)
    if at < 0 or full.count(own) != 1:
        return None
    return full[:at] + donor_article + full[at + len(own):]


def shingles(text: str) -> np.ndarray:
    return shingle_ids(tokens(text), 4)


def resemblance(a: np.ndarray, b: np.ndarray) -> float:
    if not a.size and not b.size:
        return 1.0
    inter = np.intersect1d(a, b, assume_unique=True).size
    return inter / (a.size + b.size - inter)


def dup_pairs(datasets: Path, corpus: str, model: Path, n_pairs: int, seed: int
              ) -> list[dict[str, Any]]:
    """Resemblance of every pair under every method, with the pair's truth."""
    from sitesift.model_io import load_model

    root = datasets / corpus
    rows = [r for r in read_index(root) if (root / "gold" / f"{r['id']}.txt").is_file()]
    groups = {k: v for k, v in group_rows(rows, GROUPING.get(corpus, "site")).items()
              if len(v) >= 5}
    iso = load_model(model)
    assert isinstance(iso, IsotonicCleaner)
    page_level: dict[str, Cleaner] = {
        "alltext": get_cleaner("alltext"),
        "isotonic-raw": get_cleaner("isotonic-raw", model=iso.model),
        "isotonic": iso,
    }
    pages: dict[str, Page] = {}
    golds: dict[str, str] = {}
    site_of: dict[str, str] = {}
    template: dict[str, Cleaner] = {}
    for name, members in sorted(groups.items()):
        loaded = []
        for r in members:
            try:
                page = load_page(root, r)
            except SitesiftError:
                continue
            pages[r["id"]], golds[r["id"]] = page, read_gold(root, r["id"]) or ""
            site_of[r["id"]] = name
            loaded.append(page)
        template[name] = get_cleaner("template").fit(loaded)
    rng = random.Random(seed)
    ids = sorted(pages)
    gold_sh = {i: shingle_ids(tokens(golds[i]), 5) for i in ids}

    def texts(page: Page, group: str) -> dict[str, np.ndarray]:
        out = {m: shingles(c.clean(page, noise=False).text) for m, c in page_level.items()}
        out["template (site-level)"] = shingles(template[group].clean(page, noise=False).text)
        out["gold"] = shingles(golds.get(page.id or "", ""))
        return out

    cache: dict[str, dict[str, np.ndarray]] = {}

    def of(pid: str) -> dict[str, np.ndarray]:
        if pid not in cache:
            cache[pid] = texts(pages[pid], site_of[pid])
        return cache[pid]

    results: list[dict[str, Any]] = []
    donors: dict[str, str | None] = {}
    tries = 0
    while sum(r["dup"] for r in results) < n_pairs and tries < 20 * n_pairs:
        tries += 1
        a, b = rng.sample(ids, 2)
        if site_of[a].split("/")[0] == site_of[b].split("/")[0]:
            continue
        if a not in donors:
            donors[a] = article_html(pages[a].html, golds[a])
        donor = donors[a]
        html = splice(pages[b].html, golds[b], donor) if donor else None
        if html is None:
            continue
        try:
            fake = Page.from_html(html, id=a, url=pages[b].url, site=pages[b].site)
        except SitesiftError:
            continue
        if token_prf(fake.root.text(), golds[a]).recall < 0.8:
            continue  # the move lost the story
        other = texts(fake, site_of[b])
        mine = of(a)
        results.append({"dup": True, "a": a, "b": b, **{
            m: resemblance(mine[m], other[m]) for m in mine if m != "gold"}})
    by_group: dict[str, list[str]] = {}
    for i in ids:
        by_group.setdefault(site_of[i], []).append(i)
    pairs = [(x, y) for members in by_group.values()
             for x, y in itertools.combinations(sorted(members), 2)
             if resemblance(gold_sh[x], gold_sh[y]) < 0.3]
    for a, b in rng.sample(pairs, min(n_pairs, len(pairs))):
        ta, tb = of(a), of(b)
        results.append({"dup": False, "a": a, "b": b, **{
            m: resemblance(ta[m], tb[m]) for m in ta if m != "gold"}})
    return results


def dup_table(rows: list[dict[str, Any]], taus: Sequence[float] = (0.3, 0.5, 0.7)) -> str:
    from sklearn.metrics import average_precision_score

    methods = [k for k in rows[0] if k not in ("dup", "a", "b")]
    truth = np.asarray([r["dup"] for r in rows])
    head = " | ".join(f"tau {t}: P / R / F" for t in taus)
    lines = [f"| method | {head} | average precision | mean resemblance dup / non-dup |",
             "|---|" + "---|" * (len(taus) + 2)]
    for m in methods:
        s = np.asarray([r[m] for r in rows])
        cells = []
        for t in taus:
            pred = s >= t
            tp, fp = int((pred & truth).sum()), int((pred & ~truth).sum())
            fn = int((~pred & truth).sum())
            p = tp / (tp + fp) if tp + fp else 0.0
            r = tp / (tp + fn) if tp + fn else 0.0
            f = 2 * p * r / (p + r) if p + r else 0.0
            cells.append(f"{p:.3f} / {r:.3f} / {f:.3f}")
        ap = average_precision_score(truth, s)
        lines.append(f"| {m} | " + " | ".join(cells) + f" | {ap:.3f} | "
                     f"{s[truth].mean():.3f} / {s[~truth].mean():.3f} |")
    return "\n".join(lines)


NATURAL = [  # cross-site pairs whose gold texts share most 5-gram shingles (scan of all gold)
    ("l3s-gn1", "02e622bc-00a7-4b0e-85ef-5a663ef6233c", "l3s-gn1",
     "cb487d49-b44c-4d82-93be-06702e394bf7"),
    ("l3s-gn1", "1bb25401-88ee-466c-852a-7ebb6e99f64b", "l3s-gn1",
     "cb487d49-b44c-4d82-93be-06702e394bf7"),
    ("l3s-gn1", "02e622bc-00a7-4b0e-85ef-5a663ef6233c", "l3s-gn1",
     "1bb25401-88ee-466c-852a-7ebb6e99f64b"),
    ("chaos", "space-2", "chaos", "space-8"),
    ("l3s-gn1", "967a6e51-c43f-4892-bb5c-39cbfb08163a", "l3s-gn1",
     "d9e50b32-13b4-4d19-9e12-17e3b0e2fbda"),
    ("dragnet", "9", "dragnet", "44"),
    ("l3s-gn1", "70435bf4-7e87-402f-afe8-1e88ed6390f3", "l3s-gn1",
     "90808156-7b9e-4993-80aa-31e1a6ba6cff"),
    ("l3s-gn1", "6c414d50-1d83-4867-a602-137cbb4c5531", "l3s-gn1",
     "aa00507b-348b-476f-b421-7cbf2b6ada76"),
]


def natural_pairs(datasets: Path, models: dict[str, Path]) -> str:
    """Resemblance of the natural syndicated pairs, before and after template removal."""
    from sitesift.model_io import load_model

    def cleaners(corpus: str) -> dict[str, Cleaner]:
        iso = load_model(models[corpus]) if corpus in models else get_cleaner("isotonic")
        assert isinstance(iso, IsotonicCleaner)
        return {"alltext": get_cleaner("alltext"),
                "isotonic-raw": get_cleaner("isotonic-raw", model=iso.model), "isotonic": iso}

    lines = ["| pair | gold | alltext | isotonic-raw | isotonic |", "|---|---|---|---|---|"]
    for ca, a, cb, b in NATURAL:
        row = []
        sh = {}
        for corpus, pid in ((ca, a), (cb, b)):
            root = datasets / corpus
            rec = next(r for r in read_index(root) if r["id"] == pid)
            page = load_page(root, rec)
            sh[pid] = {"gold": shingles(read_gold(root, pid) or "")}
            for m, c in cleaners(corpus).items():
                sh[pid][m] = shingles(c.clean(page, noise=False).text)
        for m in ("gold", "alltext", "isotonic-raw", "isotonic"):
            row.append(f"{resemblance(sh[a][m], sh[b][m]):.2f}")
        lines.append(f"| {ca}/{a[:8]} ~ {cb}/{b[:8]} | " + " | ".join(row) + " |")
    return "\n".join(lines)


# --- 4. timing ----------------------------------------------------------------------------

def cpu_ms(fn: Any, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def timing(datasets: Path) -> str:
    rng = np.random.default_rng(0)
    lines = ["| tree | n nodes | distinct scores | DP CPU ms (median of 5) |", "|---|---|---|---|"]
    n = 3000
    shapes = {
        "random recursive tree": [-1] + [int(rng.integers(0, i)) for i in range(1, n)],
        "DOM-like (parent among the last 20 nodes)":
            [-1] + [int(rng.integers(max(0, i - 20), i)) for i in range(1, n)],
        "path": [-1, *range(n - 1)],
        "star": [-1] + [0] * (n - 1),
    }
    x = rng.random(n)
    for name, parents in shapes.items():
        ms = cpu_ms(lambda parents=parents: smooth_tree(parents, x, DEFAULT.c))
        lines.append(f"| {name}, uniform random scores | {n} | {n} | {ms:.0f} |")
    # The real pages with the most scored nodes, among the 30 biggest files of each corpus.
    files = []
    for corpus in ("wcxb", "dragnet", "cleaneval", "l3s-gn1", "chaos", "big9"):
        root = datasets / corpus
        sized = []
        for r in read_index(root):
            path = root / "pages" / f"{r['id']}.html.gz"
            if path.is_file():
                sized.append((path.stat().st_size, corpus, r))
        files += sorted(sized, key=lambda t: -t[0])[:30]
    cleaner = get_cleaner("isotonic")
    assert isinstance(cleaner, IsotonicCleaner)
    tables = []
    for _, corpus, r in files:
        try:
            page = load_page(datasets / corpus, r)
        except SitesiftError as exc:
            lines.append(f"| {corpus}/{r['id']}: {exc} | | | |")
            continue
        tables.append((sum(1 for _ in page.root.iter()), node_table(page), corpus, r))
    tables.sort(key=lambda t: -len(t[1]))
    for dom, table, corpus, r in tables[:6]:
        scores = cleaner.model.predict(table.X, table.tokens)
        w = cleaner.weights(table)
        ms = cpu_ms(lambda t=table, s=scores, w=w: smooth_tree(t.parents, s, DEFAULT.c, w))
        lines.append(f"| {corpus}/{r['id']} ({dom} DOM nodes), classifier scores | {len(table)} | "
                     f"{len(np.unique(scores))} | {ms:.0f} |")
    return "\n".join(lines)


def cleaner_speed(datasets: Path) -> str:
    """CPU ms per page of the parts of the cleaner, over big9 and a slice of wcxb."""
    cleaner = get_cleaner("isotonic")
    assert isinstance(cleaner, IsotonicCleaner)
    lines = ["| corpus | pages | scored nodes median / p90 / max | features | classifier | DP "
             "| whole clean() | (CPU ms per page, median / p90) |",
             "|---|---|---|---|---|---|---|---|"]
    for corpus, step in (("big9", 1), ("wcxb", 5), ("dragnet", 5)):
        root = datasets / corpus
        parts: dict[str, list[float]] = {k: [] for k in ("features", "classifier", "dp", "all")}
        sizes = []
        for r in read_index(root)[::step]:
            try:
                page = load_page(root, r)
            except SitesiftError:
                continue
            t0 = time.process_time()
            table = node_table(page)
            t1 = time.process_time()
            x = cleaner.model.predict(table.X, table.tokens) if len(table) else np.zeros(0)
            t2 = time.process_time()
            if len(table):
                smooth_tree(table.parents, x, DEFAULT.c, cleaner.weights(table))
            t3 = time.process_time()
            page2 = load_page(root, r)
            t4 = time.process_time()
            cleaner.clean(page2, noise=False)
            t5 = time.process_time()
            sizes.append(len(table))
            for k, v in (("features", t1 - t0), ("classifier", t2 - t1), ("dp", t3 - t2),
                         ("all", t5 - t4)):
                parts[k].append(v * 1000)

        def q(v: list[float]) -> str:
            s = sorted(v)
            return f"{statistics.median(s):.1f} / {s[int(0.9 * (len(s) - 1))]:.1f}"

        s = sorted(sizes)
        lines.append(f"| {corpus} | {len(sizes)} | {statistics.median(s):.0f} / "
                     f"{s[int(0.9 * (len(s) - 1))]} / {s[-1]} | {q(parts['features'])} | "
                     f"{q(parts['classifier'])} | {q(parts['dp'])} | {q(parts['all'])} | |")
    return "\n".join(lines)


def save(out: Path, report: list[str], results: dict[str, Any]) -> str:
    """Write the report so far (each part is saved as soon as it is done)."""
    text = "\n\n".join(report) + "\n"
    (out / "report.md").write_text(text, encoding="utf-8")
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str), "utf-8")
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=str(SHARED))
    ap.add_argument("--out", default="template-detection-out")
    ap.add_argument("--parts", default="detection,cleaner,dups,timing")
    ap.add_argument("--pairs", type=int, default=150, help="duplicate pairs per corpus")
    args = ap.parse_args()
    datasets, out = Path(args.datasets), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    parts = set(args.parts.split(","))
    report: list[str] = [f"# Page-level template detection\n\n`{' '.join(sys.argv)}`\n"]
    results: dict[str, Any] = {}
    p = TrainParams()
    models: dict[str, Path] = {}
    if parts & {"detection", "cleaner", "dups"}:
        start = time.process_time()
        pages = collect(datasets, p)
        log(f"collected {len(pages)} labelled pages in {time.process_time() - start:.0f} s CPU")
        if "detection" in parts:
            text, results["detection"] = detection(pages, p)
            report += ["## Node-level template detection, cross-site", text]
            save(out, report, results)
        models = corpus_models(pages, p, out)
        del pages
    if "cleaner" in parts:
        text, results["cleaner"] = cleaner_f1(datasets, models)
        report += ["## The cleaner on corpora left out of training", text]
        save(out, report, results)
    if "dups" in parts:
        report.append("## Near-duplicate detection with shingles")
        everything: list[dict[str, Any]] = []
        for corpus in EVAL_CORPORA:
            rows = dup_pairs(datasets, corpus, models[corpus], args.pairs, seed=0)
            everything += rows
            n_dup = sum(r["dup"] for r in rows)
            report += [f"\n### {corpus}: {n_dup} duplicate, {len(rows) - n_dup} non-duplicate "
                       "pairs\n", dup_table(rows)]
            log(f"dups: {corpus} done")
            save(out, report, results)
        report += [f"\n### all three: {len(everything)} pairs\n", dup_table(everything),
                   "\n### natural cross-site duplicates (resemblance of the cleaned texts)\n",
                   natural_pairs(datasets, models)]
        results["dups"] = everything
    if "timing" in parts:
        report += ["## DP time", timing(datasets), "## Cleaner time per page",
                   cleaner_speed(datasets)]
    print(save(out, report, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
