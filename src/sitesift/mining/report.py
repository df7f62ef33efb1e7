"""The mining report: `clustering.md`, `classification.md`, `results.json` and the plots."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sitesift.mining.classify import CONFIGURATIONS, MULTICLASS
from sitesift.mining.cluster import F_LEVELS

CLUSTER_PLOT = "mining-clustering.png"
CLASSIFY_PLOT = "mining-classification.png"
HIGHLIGHT = ("raw", "alltext", "template", "sst")
"""The paper's comparison (noisy pages, template method, SST) plus all visible text."""

CONFIG_TITLES = {
    "same-universities": "(1) same universities, stratified cross-validation",
    "leave-one-university-out": "(2) leave one university out",
    "universities-to-misc": "(3) train on the universities, test on the misc sites",
    "confounded-other-universities":
        "(4) paper's configuration 2: C1 from university a, C2 from b; test on the others",
    "confounded-rest":
        "(5) paper's configuration 3: same training; test on every other C1/C2 page",
    "one-university-to-others":
        "(6) paper's configuration 1: C1 and C2 from university a; test on the others",
}


def _f3(value: float) -> str:
    return f"{value:.3f}"


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def clustering_markdown(results: dict[str, Any]) -> str:
    info = results["settings"]
    reps = results["representations"]
    lines = [
        f"# k-means clustering of {results['dataset']} pages",
        "",
        f"Command: `{results['command']}`",
        "",
        f"{results['clustering']['pages']} pages ({results['clustering']['scope']}; classes "
        f"{', '.join(info['classes'])}: "
        + ", ".join(f"{c} {n}" for c, n in results["clustering"]["classes"].items())
        + f"). {info['runs']} k-means runs per representation (k = {len(info['classes'])}, "
        + ("initial centres drawn at random from the pages"
           if info.get("init", "random") == "random" else "k-means++ initial centres")
        + f", random seeds 0..{info['runs'] - 1}, one initialisation per run), over TF-IDF "
        "vectors of the words "
        "found on at least 2 of the pages. F of a run: the mean class F-score under the best "
        "class-to-cluster assignment (Hungarian method). Pages without words (unreadable, or "
        "emptied by the cleaner) are not clustered but count in their class. `F vs "
        f"{results['settings']['domain_field']}`: the same runs scored against the "
        f"{results['settings']['domain_field']} the pages come from instead of their class "
        "(high = the clusters follow the sites, as the paper says noise makes them).",
        "",
        "| representation | pages without words | words/page | mean F | median F | s.d. | min "
        f"| max | F vs {results['settings']['domain_field']} | "
        + " | ".join(f"F >= {level:.1f}" for level in F_LEVELS) + " |",
        "|---|---|---|---|---|---|---|---|---|" + "---|" * len(F_LEVELS),
    ]
    for name, rep in reps.items():
        c = rep["clustering"]
        lines.append(
            f"| {name} | {rep['text']['empty_pages_clustered']} | "
            f"{rep['text']['words_per_page_clustered']:.0f} | {_f3(c['mean_f'])} | "
            f"{_f3(c['median_f'])} | {_f3(c['std_f'])} | {_f3(c['min_f'])} | "
            f"{_f3(c['max_f'])} | {_f3(c['mean_f_vs_domain'])} | "
            + " | ".join(_pct(c["share_at_least"][f"{level:.1f}"]) for level in F_LEVELS)
            + " |")
    lines += ["", *_check_lines(results, "clustering"), "",
              f"![cumulative distribution of the runs' F]({CLUSTER_PLOT})", ""]
    best = results.get("best_page_level")
    if best:
        lines.insert(-2, f"Best page-level method by mean clustering F: "
                         f"**{best['clustering']}**.")
        lines.insert(-2, "")
    lines += _text_section(results)
    return "\n".join(lines)


def _text_section(results: dict[str, Any]) -> list[str]:
    """Words kept per page and domain, the cleaning cost, and the corpus' template share."""
    reps = results["representations"]
    domains = sorted({d for r in reps.values() for d in r["text"]["words_per_page_by_domain"]})
    lines = ["## Text per page (all target pages)", "",
             "Words per page (after the word filter) by domain; errors: pages a method could "
             "not read or clean (empty text); fallback: pages of sites too small for a site "
             "model, given all visible text; CPU: seconds to parse, fit and clean, summed over "
             "the site groups (from the cache, when it was made).", "",
             "| representation | " + " | ".join(domains) + " | errors | fallback | CPU s |",
             "|---|" + "---|" * (len(domains) + 3)]
    for name, rep in reps.items():
        t = rep["text"]
        cells = [f"{t['words_per_page_by_domain'].get(d, 0):.0f}" for d in domains]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {t['errors']} | "
                     f"{t['fallback_pages']} | {rep['cleaning_cpu_s']:.0f} |")
    share = results.get("template_share")
    if share:
        lines += ["", f"Template share of the visible text ({share['definition']}): "
                  + ", ".join(f"{d} {v['share']:.3f}" for d, v in share["by_domain"].items())
                  + "."]
    lines.append("")
    return lines


def _check_lines(results: dict[str, Any], which: str) -> list[str]:
    checks = results.get("checks", {})
    out = []
    for check in checks.values():
        if check["task"] != which:
            continue
        verdict = "met" if check["met"] else "NOT met"
        out.append(f"- {check['what']}: {check['value']:+.3f} (aim >= {check['aim']:+.2f}: "
                   f"{verdict})")
    return out


def classification_markdown(results: dict[str, Any]) -> str:
    info = results["settings"]
    reps = results["representations"]
    configs = [c for c in CONFIGURATIONS
               if any(c in r["classification"] for r in reps.values())]
    lines = [
        f"# Naive Bayes classification of {results['dataset']} pages",
        "",
        f"Command: `{results['command']}`",
        "",
        "Multinomial naive Bayes (scikit-learn, alpha 1) on word counts (CST: weighted "
        "counts), vocabulary of the training pages. Two-class classifiers for every pair of "
        f"the classes {', '.join(info['classes'])}; a configuration's figure is the mean over "
        "the pairs (each pair's the mean over its experiments), as in the paper's tables. "
        "F is macro-averaged over the experiment's classes. `4 classes`: one classifier for "
        "all classes at once.",
        "",
        "Pages per domain and class: "
        + "; ".join(f"{d}: " + ", ".join(f"{c} {n}" for c, n in counts.items())
                    for d, counts in results["pages"]["by_domain"].items()) + ".",
        "",
        "## Summary: accuracy / F averaged over the class pairs",
        "",
        "| representation | " + " | ".join(f"({CONFIGURATIONS.index(c) + 1}) {c}"
                                          for c in configs) + " |",
        "|---|" + "---|" * len(configs),
    ]
    for name, rep in reps.items():
        cells = []
        for c in configs:
            got = rep["classification"].get(c)
            cells.append(f"{got['accuracy']:.3f} / {got['f']:.3f}" if got else "-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    multi = [c for c in configs if any(MULTICLASS in r["classification"].get(c, {})
                                       for r in reps.values())]
    if multi:
        lines += ["", "## 4 classes at once: accuracy / macro F", "",
                  "| representation | " + " | ".join(multi) + " |",
                  "|---|" + "---|" * len(multi)]
        for name, rep in reps.items():
            cells = []
            for c in multi:
                got = rep["classification"].get(c, {}).get(MULTICLASS)
                cells.append(f"{got['accuracy']:.3f} / {got['f']:.3f}" if got else "-")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", *_check_lines(results, "classification")]
    best = results.get("best_page_level")
    if best:
        lines += [f"- Best page-level method by cross-university (2) accuracy: "
                  f"**{best['classification']}**."]
    lines += ["", f"![accuracy per configuration]({CLASSIFY_PLOT})", ""]
    for c in configs:
        pairs = sorted({p for r in reps.values() for p in r["classification"].get(c, {}).get(
            "pairs", {})}, key=lambda p: p)
        n_exp = {p: max(r["classification"][c]["pairs"].get(p, {}).get("experiments", 0)
                        for r in reps.values() if c in r["classification"]) for p in pairs}
        lines += [f"## {CONFIG_TITLES.get(c, c)}", "",
                  "Experiments per pair: " + ", ".join(f"{p} {n_exp[p]}" for p in pairs) + ".",
                  ""]
        for metric, title in (("f", "F"), ("accuracy", "accuracy")):
            lines += [f"{title}:", "",
                      "| representation | " + " | ".join(pairs) + " | average |",
                      "|---|" + "---|" * (len(pairs) + 1)]
            for name, rep in reps.items():
                got = rep["classification"].get(c)
                if not got:
                    continue
                cells = [_f3(got["pairs"][p][metric]) if p in got["pairs"] else "-"
                         for p in pairs]
                lines.append(f"| {name} | " + " | ".join(cells) + f" | {_f3(got[metric])} |")
            lines.append("")
    if results.get("notes"):
        lines += ["## Experiments that could not run", ""]
        lines += [f"- {n}" for n in results["notes"]]
        lines.append("")
    return "\n".join(lines)


def write_json(results: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


_FIXED = {"raw": ("black", "--", 2.0), "alltext": ("0.45", ":", 2.0),
          "template": ("tab:blue", "-", 2.0), "sst": ("tab:red", "-", 2.6)}
_OTHERS = ("tab:green", "tab:orange", "tab:purple", "tab:brown", "tab:pink", "tab:olive",
           "tab:cyan", "darkgoldenrod", "teal", "slateblue", "yellowgreen", "sienna")
"""Colours for the other representations: none of them near the four above."""


def _style(name: str, index: int) -> dict[str, Any]:
    if name in _FIXED:
        color, line, width = _FIXED[name]
        return {"color": color, "linestyle": line, "linewidth": width}
    return {"color": _OTHERS[index % len(_OTHERS)], "linestyle": "-", "linewidth": 1.2}


def plot_clustering(runs: Mapping[str, Sequence[float]], path: Path, title: str) -> None:
    """Left: cumulative distribution of the runs' F per representation; right: the runs
    binned by F (width 0.05) for the paper's comparison, like its figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.2), width_ratios=(1.35, 1))
    for i, (name, scores) in enumerate(runs.items()):
        xs = np.sort(np.asarray(scores))
        ys = np.arange(1, len(xs) + 1) / len(xs)
        left.step(xs, ys, where="post", label=name, **_style(name, i))
    left.set_xlabel("F-score of a k-means run")
    left.set_ylabel("share of runs with F <= x")
    left.set_title("cumulative distribution over runs")
    left.grid(alpha=0.3)
    left.legend(fontsize=8, ncol=2, loc="upper left")
    bins = np.arange(0.0, 1.0001, 0.05)
    shown = [n for n in HIGHLIGHT if n in runs] or list(runs)[:4]
    width = 0.05 / (len(shown) + 1)
    for j, name in enumerate(shown):
        counts, _ = np.histogram(runs[name], bins=bins)
        style = _style(name, j)
        right.bar(bins[:-1] + width * (j + 0.5), counts, width=width, label=name,
                  color=style["color"], alpha=0.85)
    lows = [min(runs[n]) for n in shown if len(runs[n])]
    highs = [max(runs[n]) for n in shown if len(runs[n])]
    if lows:  # the bins that hold runs, with a margin
        right.set_xlim(max(0.0, min(lows) - 0.05), min(1.0, max(highs) + 0.05))
    right.set_xlabel("F-score bin (width 0.05)")
    right.set_ylabel("runs")
    right.set_title("runs per F bin")
    right.legend(fontsize=8)
    right.grid(alpha=0.3, axis="y")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_classification(results: dict[str, Any], path: Path, title: str) -> None:
    """Accuracy averaged over class pairs, per configuration and representation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    reps = results["representations"]
    configs = [c for c in CONFIGURATIONS if any(c in r["classification"] for r in reps.values())]
    fig, ax = plt.subplots(figsize=(14, 5))
    width = 0.8 / max(len(reps), 1)
    xs = np.arange(len(configs))
    for i, (name, rep) in enumerate(reps.items()):
        values = [rep["classification"].get(c, {}).get("accuracy", np.nan) for c in configs]
        ax.bar(xs + width * (i - (len(reps) - 1) / 2), values, width=width, label=name,
               color=_style(name, i)["color"], edgecolor="white", linewidth=0.3)
    ax.set_xticks(xs, [f"({CONFIGURATIONS.index(c) + 1}) {c}" for c in configs], fontsize=8)
    ax.set_ylabel("NB accuracy, mean over class pairs")
    lows = [r["classification"][c]["accuracy"] for r in reps.values() for c in configs
            if c in r["classification"]]
    ax.set_ylim(max(0.0, min(lows, default=0.5) - 0.05), 1.0)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
