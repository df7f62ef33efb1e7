"""How the cleaner reads pages that are not in English, beside its peers, on what the shared
corpora hold (issue 56, deliverable 2: "build a check from what you have, and report it").

The shared corpora are almost all English: of their 5,008 pages with gold, 25 have a gold
text whose language is another (whatlang, as `Result.language` reads it, on the gold text:
score >= 0.5 and 20 words or 80 characters, which leaves out test fixtures of a few words and
Readability's Lorem-ipsum pages). This check:

1. finds those pages (`--corpora`, each corpus's `index.jsonl` and `gold/`);
2. writes them as dataset slices under OUT/slices (index lines, pages and gold linked in;
   in a corpus grouped by site, `--whole-sites` takes every page of such a page's site, so
   the default cleaner has its site's evidence as in a whole-corpus bench);
3. runs `sitesift bench` on the slices with the peers (`--peers`), the default cleaner from
   `--model` if given (a held-out bundle, `train-default --heldout`: each page scored by the
   forests that never saw its site; the bundled model has seen these pages);
4. prints mean token P / R / F1 per method over the non-English pages only, and each page's
   F1 per method.

    .venv/bin/python benchmarks/multilingual_check.py --out /tmp/multi \
        [--model heldout.json.gz] [--datasets ../shared/datasets] \
        [--peers trafilatura,trafilatura-precision,rs-trafilatura,readability-lxml,resiliparse]

Without the shared datasets it says so and exits 0 (nothing to measure). 25 pages are a
check, not a benchmark: a page moves the mean by 0.04.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crawl_throughput import write_slice  # the benchmarks' slice writer

HERE = Path(__file__).resolve().parents[1]
CORPORA = ("big9", "dragnet", "cleanportaleval", "cleaneval", "l3s-gn1", "readability", "wcxb",
           "chaos")
SITE_GROUPED = ("big9", "dragnet", "cleanportaleval")
PEERS = "trafilatura,trafilatura-precision,rs-trafilatura,readability-lxml,resiliparse"
MIN_SCORE, MIN_WORDS, MIN_CHARS = 0.5, 20, 80


def other_language(text: str) -> str | None:
    """The gold text's language where it is not English (and a text long and sure enough
    to tell), else None."""
    from sitesift.native import core

    code, score = core().detect_language(text)
    if code in (None, "en", "la") or score < MIN_SCORE:
        return None
    if len(text.split()) < MIN_WORDS and len(text) < MIN_CHARS:  # CJK: characters count
        return None
    return str(code)


def find(datasets: Path, corpora: list[str], whole_sites: bool, out: Path
         ) -> dict[str, str]:
    """Slices of the non-English pages under OUT/slices; {corpus/id: language}."""
    langs: dict[str, str] = {}
    for corpus in corpora:
        root = datasets / corpus
        if not (root / "index.jsonl").is_file():
            continue
        rows = [json.loads(line) for line in (root / "index.jsonl").open(encoding="utf-8")]
        chosen = []
        for row in rows:
            gold = root / "gold" / f"{row['id']}.txt"
            if not gold.is_file():
                continue
            lang = other_language(gold.read_text(encoding="utf-8", errors="replace"))
            if lang is not None:
                chosen.append(row)
                langs[f"{corpus}/{row['id']}"] = lang
        if whole_sites and corpus in SITE_GROUPED:
            sites = {r.get("site") for r in chosen}
            chosen = [r for r in rows if r.get("site") in sites]
        if chosen:
            write_slice(root, out / "slices" / corpus, chosen)
    return langs


def report(pages: Path, langs: dict[str, str]) -> None:
    by: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for line in pages.open(encoding="utf-8"):
        row = json.loads(line)
        key = f"{row['corpus']}/{row['id']}"
        if key in langs:
            by[row["method"]][key] = row
    print(f"{len(langs)} pages not in English: "
          + ", ".join(f"{lang} {n}" for lang, n in sorted(
              ((x, list(langs.values()).count(x)) for x in set(langs.values())),
              key=lambda t: -t[1])))
    print("\n| method | pages | token F1 | P | R |\n|---|---|---|---|---|")
    for method, rows in by.items():
        n = len(rows)
        mean = {k: sum(r[k] for r in rows.values()) / n for k in ("f1", "precision", "recall")}
        print(f"| {method} | {n} | {mean['f1']:.3f} | {mean['precision']:.3f} | "
              f"{mean['recall']:.3f} |")
    print("\n| page | language | " + " | ".join(by) + " |\n|---|---|"
          + "---|" * len(by))
    for key in sorted(langs):
        cells = [f"{by[m][key]['f1']:.2f}" if key in by[m] else "" for m in by]
        print(f"| {key} | {langs[key]} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--datasets", type=Path, default=HERE.parent / "shared" / "datasets")
    ap.add_argument("--corpora", default=",".join(CORPORA))
    ap.add_argument("--model", help="the default cleaner's model file (a held-out bundle)")
    ap.add_argument("--peers", default=PEERS)
    ap.add_argument("--no-whole-sites", action="store_true",
                    help="only the pages themselves, not their sites' other pages")
    args = ap.parse_args()
    if not args.datasets.is_dir():
        print(f"multilingual_check: no shared datasets at {args.datasets}; nothing to measure")
        return
    langs = find(args.datasets, args.corpora.split(","), not args.no_whole_sites, args.out)
    if not langs:
        print("multilingual_check: no page of another language in these corpora")
        return
    slices = sorted(p for p in (args.out / "slices").iterdir() if p.is_dir())
    env = dict(os.environ)
    if args.model:
        env["SITESIFT_DEFAULT_MODEL"] = str(Path(args.model).resolve())
    bench = args.out / "bench"
    subprocess.run([sys.executable, "-m", "sitesift", "bench", *map(str, slices),
                    "--methods", "default", "--peers", args.peers, "--workers", "1",
                    "--no-plots", "--out", str(bench), "-q"], env=env, check=True)
    report(bench / "pages.jsonl", langs)


if __name__ == "__main__":
    main()
