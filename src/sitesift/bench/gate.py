"""The evaluation gate: sitesift's methods must keep their F1 on a fixed slice of the corpora.

The slice (`benchmarks/gate/slice.json`) is a few dozen pages of ../shared/datasets chosen by
`choose_slice` (a fixed rule, no randomness): whole site groups of the site-grouped corpora,
so site-level methods are fitted as in `sitesift evaluate`, and a few pages of each
page-level corpus (on wcxb one per page type). `benchmarks/gate/floors.json` pins, per method,
the mean token F1 over the slice's pages, and a SHA-256 of the slice (corpus names, ids, page
bytes, gold bytes). A method fails the gate when its mean F1 falls below its floor by more
than `margin`; a changed slice fails as such, never as a score. Floors are rewritten only by
`sitesift gate --write` (refusing to lower one without `--allow-lower`): a reviewed change.
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitesift.bench.runner import corpus_grouping
from sitesift.datasets import read_index, read_page_bytes
from sitesift.evaluate import evaluate
from sitesift.jobs.grouping import Grouping, group_key
from sitesift.methods.base import method_names

# The gate's folder (`benchmarks/gate` in a checkout; `sitesift gate --gate-dir`) holds:
SLICE_NAME = "slice.json"
FLOORS_NAME = "floors.json"
# Scores are deterministic on one machine; the margin absorbs what may move between parser /
# detector library versions: a real regression of a method moves the mean by more.
MARGIN = 0.01

# The rule of the slice: (corpus, site groups to take, pages per group at most) for the
# site-grouped corpora, (corpus, pages) for the page-level ones. Groups and pages are ranked
# by the SHA-256 of "corpus/key": fixed, and blind to anything a method could tune to.
SITE_GROUPED = (("big9", 2, 10), ("cleanportaleval", 1, 12), ("dragnet", 2, 10))
PAGE_LEVEL = (("wcxb", 7), ("cleaneval", 4), ("l3s-gn1", 4), ("readability", 3), ("chaos", 3))
MIN_GROUP = 5


class SliceChanged(Exception):
    """The slice's pages or gold are not those the floors were measured on."""


def _rank(corpus: str, key: str) -> str:
    return hashlib.sha256(f"{corpus}/{key}".encode()).hexdigest()


def _with_gold(root: Path) -> list[dict[str, Any]]:
    return [r for r in read_index(root) if (root / "gold" / f"{r['id']}.txt").is_file()]


def choose_slice(datasets: Path) -> dict[str, list[str]]:
    """The slice by the rule above: {corpus: [page ids]}."""
    chosen: dict[str, list[str]] = {}
    for corpus, n_groups, per_group in SITE_GROUPED:
        root = datasets / corpus
        grouping = corpus_grouping(root)
        groups: dict[str, list[str]] = {}
        for row in _with_gold(root):
            groups.setdefault(group_key(row, grouping), []).append(row["id"])
        eligible = sorted((k for k, v in groups.items() if len(v) >= MIN_GROUP),
                          key=lambda k: _rank(corpus, k))
        chosen[corpus] = [i for k in eligible[:n_groups] for i in groups[k][:per_group]]
    for corpus, n in PAGE_LEVEL:
        rows = sorted(_with_gold(datasets / corpus), key=lambda r: _rank(corpus, r["id"]))
        if corpus == "wcxb":  # one page of each page type: where extractors differ most
            firsts: dict[str, str] = {}
            for r in rows:
                firsts.setdefault(str(r.get("page_type")), r["id"])
            chosen[corpus] = sorted(firsts.values())[:n]
        else:
            chosen[corpus] = sorted(r["id"] for r in rows[:n])
    return chosen


def slice_hash(datasets: Path, pages: dict[str, list[str]]) -> str:
    """SHA-256 over corpus names, ids, page bytes (unpacked) and gold bytes."""
    digest = hashlib.sha256()
    for corpus in sorted(pages):
        root = datasets / corpus
        rows = {r["id"]: r for r in read_index(root)}
        for page_id in sorted(pages[corpus]):
            if page_id not in rows:
                raise SliceChanged(f"{corpus}/{page_id} is no longer in {root / 'index.jsonl'}")
            gold = root / "gold" / f"{page_id}.txt"
            for part in (corpus.encode(), page_id.encode(), read_page_bytes(root, rows[page_id]),
                         gold.read_bytes() if gold.is_file() else b""):
                digest.update(len(part).to_bytes(8, "big"))
                digest.update(part)
    return digest.hexdigest()


def load_slice(path: Path) -> dict[str, list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(k): [str(i) for i in v] for k, v in data["pages"].items()}


def write_slice(pages: dict[str, list[str]], path: Path) -> None:
    body = {"about": "Pages of ../shared/datasets the CI gate scores; made by "
                     "sitesift.bench.gate.choose_slice (`sitesift gate --reslice`).",
            "pages": pages}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")


@dataclass
class Floors:
    floors: dict[str, float]
    slice_sha256: str
    margin: float = MARGIN

    @classmethod
    def load(cls, path: Path) -> Floors:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls({str(k): float(v) for k, v in data["floors"].items()},
                   str(data["slice_sha256"]), float(data.get("margin", MARGIN)))

    def write(self, path: Path) -> None:
        body = {
            "about": "CI gate (tests/test_eval_gate.py): mean token F1 over the pages of "
                     "slice.json per method. A method fails below floor - margin. Rewrite with "
                     "`sitesift gate --write` and review the change; add a method with one line.",
            "margin": self.margin,
            "slice_sha256": self.slice_sha256,
            "floors": dict(sorted(self.floors.items())),
        }
        path.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


@dataclass
class GateResult:
    scores: dict[str, float] = field(default_factory=dict)  # method -> mean F1 over the slice
    per_corpus: dict[str, dict[str, float]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def table(self, floors: Floors | None = None) -> str:
        """Mean F1 and floor per method, then the mean per corpus (to see where it moved)."""
        corpora = sorted({c for v in self.per_corpus.values() for c in v})
        head = ["method", "mean F1", "floor", *corpora]
        lines = [head]
        for m, value in self.scores.items():
            floor = floors.floors.get(m) if floors else None
            lines.append([m, f"{value:.4f}", "-" if floor is None else f"{floor:.3f}",
                          *(f"{self.per_corpus[m][c]:.3f}" for c in corpora)])
        widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
        return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True))
                         .rstrip() for line in lines)


def score_methods(methods: Iterable[str], datasets: Path,
                  pages: dict[str, list[str]]) -> GateResult:
    """Mean token F1 of each method over the slice, fitted per site group as in evaluate."""
    result = GateResult()
    methods = list(methods)
    rows: list[dict[str, Any]] = []
    for corpus, ids in pages.items():
        root = datasets / corpus
        rows += evaluate([root], methods, grouping=Grouping(corpus_grouping(root)), ids=set(ids))
    for m in methods:
        mine = [r for r in rows if r["method"] == m]
        result.scores[m] = statistics.fmean(r["f1"] for r in mine)
        result.per_corpus[m] = {c: statistics.fmean(r["f1"] for r in mine if r["corpus"] == c)
                                for c in pages}
    return result


def check(scores: dict[str, float], floors: Floors) -> list[str]:
    """One message per method below its floor by more than the margin."""
    return [f"{m}: mean token F1 {value:.4f} is below its floor {floors.floors[m]:.3f} "
            f"by more than the margin {floors.margin}"
            for m, value in scores.items()
            if m in floors.floors and value < floors.floors[m] - floors.margin]


def verify_slice(floors: Floors, datasets: Path, pages: dict[str, list[str]]) -> None:
    actual = slice_hash(datasets, pages)
    if actual != floors.slice_sha256:
        raise SliceChanged(
            f"the gate's slice changed (sha256 {actual[:12]}..., floors measured on "
            f"{floors.slice_sha256[:12]}...): pages or gold under {datasets} differ from when "
            "the floors were pinned; re-measure them with `sitesift gate --write` and review")


def gated_methods(floors: Floors) -> list[str]:
    """Every registered method that has a floor."""
    return [m for m in method_names() if m in floors.floors]


def run_gate(datasets: Path, floors: Floors, pages: dict[str, list[str]],
             methods: Iterable[str] | None = None) -> GateResult:
    verify_slice(floors, datasets, pages)
    result = score_methods(gated_methods(floors) if methods is None else methods, datasets, pages)
    result.failures = check(result.scores, floors)
    if methods is None:  # a pinned method that is gone is a regression too
        result.failures += [f"{m}: has a floor but is not a registered method"
                            for m in sorted(set(floors.floors) - set(method_names()))]
    return result


def rewrite_floors(methods: Iterable[str], datasets: Path, pages: dict[str, list[str]],
                   floors_path: Path, allow_lower: bool = False
                   ) -> tuple[Floors, GateResult]:
    """Measure `methods` and pin their floors (the measured mean, rounded down to 0.001).

    Refuses to lower an existing floor unless `allow_lower`."""
    old = Floors.load(floors_path) if floors_path.is_file() else Floors({}, "")
    result = score_methods(methods, datasets, pages)
    new = dict(old.floors)
    lowered = []
    for m, value in result.scores.items():
        floor = math.floor(value * 1000 + 1e-9) / 1000  # down, but 0.861 stays 0.861
        if m in old.floors and floor < old.floors[m] and not allow_lower:
            lowered.append(f"{m}: {old.floors[m]:.3f} -> {floor:.3f}")
        new[m] = floor
    if lowered:
        raise ValueError("refusing to lower floors without --allow-lower: " + "; ".join(lowered))
    floors = Floors(new, slice_hash(datasets, pages), old.margin)
    floors.write(floors_path)
    return floors, result
