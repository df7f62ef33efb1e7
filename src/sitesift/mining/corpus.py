"""Which pages take part in the mining experiments, and how they are grouped.

A corpus row needs `id` and `label` (the page class); `split` names the *domain* a page
comes from (on WebKB the university folder, or `misc` for the other sites), else `site`
does. The *target* pages are those of the chosen classes; the *universities* are the
domains other than the held-out one (`misc`), whose pages are the test set of the
cross-site configuration. Site-level methods are fitted per `site` group on every page of
the site, whatever its class: the fit sees no labels, and a site's template is learnt
from all of its pages.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitesift.datasets import read_index
from sitesift.errors import InputError
from sitesift.jobs.grouping import group_key

DEFAULT_CLASSES = ("course", "faculty", "project", "student")
"""The common 4-class WebKB setting (README of the corpus; Craven et al. 1998)."""


@dataclass(frozen=True, slots=True)
class SiteGroup:
    """One site: all its pages (the fit set) and its pages of the chosen classes."""

    name: str
    fit_ids: tuple[str, ...]
    target_ids: tuple[str, ...]


@dataclass(slots=True)
class MineCorpus:
    """The rows of a corpus as the experiments see them."""

    root: Path
    rows: dict[str, dict[str, Any]]   # every page of the corpus, by id
    classes: tuple[str, ...]
    targets: list[str]                # ids of pages of the chosen classes, index order
    domain_field: str                 # `split` where the index has it, else `site`
    heldout: str | None               # the held-out domain (misc), when the corpus has it
    groups: list[SiteGroup]           # site groups that hold target pages

    def label(self, page_id: str) -> str:
        return str(self.rows[page_id]["label"])

    def domain(self, page_id: str) -> str:
        return str(self.rows[page_id].get(self.domain_field) or "unknown")

    @property
    def universities(self) -> list[str]:
        """The domains of the target pages other than the held-out one, sorted."""
        return sorted({self.domain(i) for i in self.targets} - {self.heldout or ""})

    def university_targets(self) -> list[str]:
        return [i for i in self.targets if self.domain(i) != self.heldout]

    def heldout_targets(self) -> list[str]:
        return [i for i in self.targets if self.heldout and self.domain(i) == self.heldout]

    def counts(self) -> dict[str, dict[str, int]]:
        """Target pages per domain and class."""
        table: dict[str, Counter[str]] = defaultdict(Counter)
        for i in self.targets:
            table[self.domain(i)][self.label(i)] += 1
        return {d: dict(sorted(c.items())) for d, c in sorted(table.items())}


def load_corpus(root: Path, classes: tuple[str, ...] = DEFAULT_CLASSES,
                heldout: str = "misc") -> MineCorpus:
    """Read the index and select the pages; clear errors for what the experiments need."""
    root = Path(root)
    if not (root / "index.jsonl").is_file() or not (root / "pages").is_dir():
        raise InputError(f"{root}: not a dataset folder (needs index.jsonl and pages/)")
    rows = read_index(root)
    unlabelled = [r["id"] for r in rows if not isinstance(r.get("label"), str)]
    if unlabelled:
        raise InputError(f"{root}: {len(unlabelled)} rows have no 'label' (page class), "
                         f"e.g. {unlabelled[0]}; `sitesift mine` needs labelled pages")
    by_id: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["id"] in by_id:
            raise InputError(f"{root}: page id {row['id']!r} occurs twice in index.jsonl")
        by_id[row["id"]] = row
    if len(set(classes)) != len(classes) or len(classes) < 2:
        raise InputError(f"need at least two distinct classes, got {list(classes)}")
    present = Counter(str(r["label"]) for r in rows)
    missing = [c for c in classes if not present.get(c)]
    if missing:
        raise InputError(f"{root}: no pages of class(es) {', '.join(missing)}; classes here: "
                         + ", ".join(f"{c} ({n})" for c, n in sorted(present.items())))
    domain_field = "split" if all(r.get("split") for r in rows) else "site"
    wanted = set(classes)
    targets = [r["id"] for r in rows if r["label"] in wanted]
    has_heldout = any(str(by_id[i].get(domain_field)) == heldout for i in targets)
    corpus = MineCorpus(root, by_id, tuple(classes), targets, domain_field,
                        heldout if has_heldout else None, [])
    if len(corpus.universities) < 2:
        raise InputError(f"{root}: the target pages come from fewer than two "
                         f"{domain_field} values besides {heldout!r}; the cross-site "
                         "configurations need at least two")
    corpus.groups = site_groups(by_id, wanted)
    return corpus


def site_groups(rows: dict[str, dict[str, Any]], classes: set[str]) -> list[SiteGroup]:
    """Pages grouped by `site` (all classes), for the groups that hold target pages;
    largest first, so a pool of workers does not end on one big site."""
    members: dict[str, list[str]] = defaultdict(list)
    for page_id, row in rows.items():
        members[group_key(row, "site")].append(page_id)
    groups = []
    for name, ids in members.items():
        targets = tuple(i for i in ids if rows[i]["label"] in classes)
        if targets:
            groups.append(SiteGroup(name, tuple(ids), targets))
    return sorted(groups, key=lambda g: (-len(g.fit_ids), g.name))
