"""Known-item retrieval with page segmentation (Cai et al., "Block-based web search", SIGIR 2004).

For each corpus, every page with gold text is a document and yields three known-item
queries: its `<title>`; the first sentence of its gold text (the first with at least three
index terms); and three index terms drawn from its gold text (distinct terms, each drawn
with probability proportional to its frequency there, seeded by the page's id: a simulated
known-item query after Azzopardi, de Rijke & Balog, SIGIR 2007; shorter and harder than the
other two, which nearly every method answers at rank 1). The page is the only relevant
answer; the score is the mean reciprocal rank (MRR) of whole-page retrieval over the
corpus' pages (and, with `--pooled`, over the pages of all the corpora given as one
collection). Each page is rendered once (VIPS and CombPS at every PDoC share it).

Rows: no segmentation (whole pages), FixedPS, DomPS, VIPS and CombPS (sitesift.segment),
the last two at each PDoC asked for (coarser semantic blocks at 5, finer at 8).
Columns, all ranking whole pages:
- page BM25: Okapi BM25 over whole pages (the baseline, the same in every row);
- best block: pages by their best block alone;
- block retrieval: rank combination of page rank and best-block rank (alpha 0.5);
- page QE: the query expanded from the top 10 pages (classic pseudo-relevance feedback);
- block QE: the query expanded from the top 10 blocks (the paper's block-level feedback).

    python benchmarks/segment_retrieval.py DATASET [DATASET ...] [--pooled] [--pdoc 5,8]
        [--cache DIR] [--out FILE]

DATASET is a corpus folder (index.jsonl, pages/, gold/), e.g. ../shared/datasets/big9.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from sitesift.browser.rendering import Rendering
from sitesift.datasets import gold_pages
from sitesift.errors import SitesiftError
from sitesift.segment import (
    VIPSPS,
    BlockSearch,
    DomPS,
    FixedPS,
    combine,
    page_text,
    query_terms,
    reciprocal_rank,
    terms,
)
from sitesift.text import tokens

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
WINDOW = 200  # words: FixedPS and CombPS windows
QUERY_KINDS = ("title", "gold sentence", "3 gold terms")
QUERY_TERMS = 3


def first_sentence(gold: str) -> str | None:
    for sentence in _SENTENCE.split(gold):
        if len(terms(sentence)) >= 3:
            return sentence.strip()
    return None


def drawn_terms(gold: str, seed: str, k: int = QUERY_TERMS) -> str:
    """k words of the gold text with distinct index terms, each term drawn with probability
    proportional to its frequency there (seeded); a term is written as its commonest word."""
    counts: Counter[str] = Counter()
    words: dict[str, Counter[str]] = {}
    for word in tokens(gold):
        for term in terms(word):
            counts[term] += 1
            words.setdefault(term, Counter())[word] += 1
    rng = random.Random(seed)  # a str seed is hashed with SHA-512: the same on every run
    chosen: list[str] = []
    while counts and len(chosen) < k:
        pool = sorted(counts)
        term = rng.choices(pool, weights=[counts[t] for t in pool])[0]
        chosen.append(words[term].most_common(1)[0][0])
        del counts[term]
    return " ".join(chosen)


@dataclass
class Corpus:
    """One corpus, segmented: page texts, blocks by segmentation, queries by kind."""

    name: str
    texts: list[str] = field(default_factory=list)
    blocks: dict[str, list[list[str]]] = field(default_factory=dict)
    queries: dict[str, list[str]] = field(default_factory=dict)
    failures: int = 0
    seconds: float = 0.0
    render_ms: list[float] = field(default_factory=list)       # wall, per rendered page
    browser_cpu_ms: list[float] = field(default_factory=list)  # Chromium's CPU, per page
    vips_cpu_ms: list[float] = field(default_factory=list)     # first PDoC, this process

    def merged(self, other: Corpus) -> Corpus:
        return Corpus(
            f"{self.name}+{other.name}" if self.name else other.name,
            self.texts + other.texts,
            {k: self.blocks.get(k, []) + v for k, v in other.blocks.items()},
            {k: self.queries.get(k, []) + v for k, v in other.queries.items()},
            self.failures + other.failures, self.seconds + other.seconds)


def load(root: Path, pdocs: list[int]) -> Corpus:
    """Every page with gold: its text, its segmentations and its queries."""
    corpus = Corpus(root.name, blocks={"FixedPS": [], "DomPS": []},
                    queries={k: [] for k in QUERY_KINDS})
    for pdoc in pdocs:
        corpus.blocks[f"VIPS (PDoC {pdoc})"] = []
        corpus.blocks[f"CombPS (PDoC {pdoc})"] = []
    start = time.perf_counter()
    for row, page, gold in gold_pages(root):
        corpus.texts.append(page_text(page))
        corpus.blocks["FixedPS"].append(FixedPS(WINDOW).segments(page))
        corpus.blocks["DomPS"].append(DomPS().segments(page))
        failed = False
        for i, pdoc in enumerate(pdocs):  # one rendering per page, for every PDoC
            vips: list[str] = []
            if not failed:
                cpu = time.process_time()
                try:
                    vips = VIPSPS(pdoc).segments(page)
                except SitesiftError as exc:  # counted: the page stays, with no VIPS blocks
                    print(f"  {row['id']}: {exc}", file=sys.stderr)
                    corpus.failures += 1
                    failed = True
                if i == 0 and not failed:  # the first PDoC's time includes the rendering
                    corpus.vips_cpu_ms.append((time.process_time() - cpu) * 1000)
            corpus.blocks[f"VIPS (PDoC {pdoc})"].append(vips)
            corpus.blocks[f"CombPS (PDoC {pdoc})"].append(combine(vips, WINDOW))
        renderings = page.meta.get("sitesift.renderings")  # kept there by render()
        for rendering in renderings.values() if isinstance(renderings, dict) else ():
            if isinstance(rendering, Rendering):
                corpus.render_ms.append(rendering.ms)
                corpus.browser_cpu_ms.append(rendering.browser_cpu_ms)
        corpus.queries["title"].append(page.title or "")
        corpus.queries["gold sentence"].append(first_sentence(gold) or "")
        corpus.queries["3 gold terms"].append(drawn_terms(gold, f"{root.name}:{row['id']}"))
    corpus.seconds = time.perf_counter() - start
    return corpus


def mrr(queries: list[str], ranker: Callable[[dict[str, float]], np.ndarray]
        ) -> tuple[float, int]:
    """MRR over the queries that have index terms (query i's answer is page i)."""
    found = []
    for target, text in enumerate(queries):
        q = query_terms(text)
        if q:
            found.append(reciprocal_rank(ranker(q), target))
    return (statistics.fmean(found) if found else 0.0), len(found)


def expanded(search: BlockSearch, level: str, query: dict[str, float]) -> np.ndarray:
    """Whole pages ranked by the query expanded from the top pages or blocks."""
    return search.page_scores(search.expand(query, level))


def table(corpus: Corpus) -> list[str]:
    whole = BlockSearch(corpus.texts, [[] for _ in corpus.texts])
    searches = {seg: BlockSearch(corpus.texts, per_page)
                for seg, per_page in corpus.blocks.items()}
    lines = []
    for kind, qs in corpus.queries.items():
        page_mrr, n = mrr(qs, whole.page_scores)
        page_qe, _ = mrr(qs, partial(expanded, whole, "page"))
        lines.append(f"| {corpus.name} | {kind} | {n} | whole pages | 1 | {page_mrr:.3f} "
                     f"| | | {page_qe:.3f} | |")
        for seg, search in searches.items():
            best, _ = mrr(qs, search.best_blocks)
            br, _ = mrr(qs, search.block_retrieval)
            block_qe, _ = mrr(qs, partial(expanded, search, "block"))
            per = statistics.fmean(len(b) for b in corpus.blocks[seg]) if corpus.texts else 0.0
            lines.append(f"| {corpus.name} | {kind} | {n} | {seg} | {per:.1f} | {page_mrr:.3f} "
                         f"| {best:.3f} | {br:.3f} | {page_qe:.3f} | {block_qe:.3f} |")
    return lines


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}" if values else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", type=Path, nargs="+")
    ap.add_argument("--pdoc", default="5,8", help="PDoC values of VIPS and CombPS")
    ap.add_argument("--pooled", action="store_true",
                    help="also retrieve over all the corpora' pages as one collection")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--cache", type=Path, default=None,
                    help="keep each corpus' segmented pages here (JSON), to rerun the "
                         "retrieval without rendering again")
    args = ap.parse_args(argv)
    pdocs = [int(x) for x in args.pdoc.split(",")]
    lines = [
        "| corpus | queries | n | segmentation | blocks / page | page BM25 | best block "
        "| block retrieval | page QE | block QE |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    notes, corpora = [], []
    for root in args.datasets:
        cached = (args.cache / f"{root.name}-pdoc{'_'.join(map(str, pdocs))}.json"
                  if args.cache else None)
        if cached is not None and cached.is_file():
            corpus = Corpus(**json.loads(cached.read_text("utf-8")))
        else:
            corpus = load(root, pdocs)
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_text(json.dumps(asdict(corpus)), "utf-8")
        notes.append(
            f"{corpus.name}: {len(corpus.texts)} pages, {corpus.failures} failed to render, "
            f"{corpus.seconds:.0f} s to load, render and segment; per page (median): "
            f"rendering {_median(corpus.render_ms)} ms wall, "
            f"{_median(corpus.browser_cpu_ms)} ms browser CPU; VIPS at PDoC {pdocs[0]} "
            f"(rendering included) {_median(corpus.vips_cpu_ms)} ms CPU "
            f"in Python")
        print(notes[-1], file=sys.stderr)
        lines += table(corpus)
        corpora.append(corpus)
    if args.pooled and len(corpora) > 1:
        pooled = Corpus("")
        for corpus in corpora:
            pooled = pooled.merged(corpus)
        pooled.name = "pooled"
        lines += table(pooled)
    report = "\n".join(lines) + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
