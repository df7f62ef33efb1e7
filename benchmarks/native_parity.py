"""Does the default cleaner give the same answers as another build of it? (issue 27)

    python benchmarks/native_parity.py run DATASET... --out new.jsonl [--workers 2]
    python benchmarks/native_parity.py compare old.jsonl new.jsonl

`run` cleans every page with gold of each dataset as `sitesift bench` does (site groups by
the corpus's grouping, the default cleaner fitted on each group) and writes one line per
page: its blocks' labels, a digest of its (text, label) sequence and its token F1. Run it
under two builds (e.g. the Python cleaner of a commit before the native core, with
`PYTHONPATH=<that checkout>/src`, and this one) and `compare` reports, per corpus, the
share of pages whose labelled blocks are identical, of pages whose content text is
identical, and the mean F1 on each side with its difference. It only uses APIs that both
builds have.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any


def _group(root: str, members: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from sitesift import get_cleaner
    from sitesift.datasets import load_page, read_gold
    from sitesift.metrics import token_prf

    rootp = Path(root)
    pages, out = [], []
    for row in members:
        try:
            pages.append((row, load_page(rootp, row)))
        except Exception as exc:  # unreadable on this build: recorded, not fatal
            out.append({"id": row["id"], "error": f"{type(exc).__name__}: {exc}"})
    cleaner = get_cleaner("default")
    try:
        cleaner.fit([p for _, p in pages])
    except Exception as exc:
        return out + [{"id": r["id"], "error": f"fit: {exc}"} for r, _ in pages]
    for row, page in pages:
        try:
            result = cleaner.clean(page)
        except Exception as exc:
            out.append({"id": row["id"], "error": f"{type(exc).__name__}: {exc}"})
            continue
        pairs = [(b.text, b.label) for b in result.blocks]
        digest = hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode()).hexdigest()
        text = result.text
        out.append({"id": row["id"], "blocks": digest, "n_blocks": len(pairs),
                    "text": hashlib.sha256(text.encode("utf-8", "replace")).hexdigest(),
                    "f1": token_prf(text, read_gold(rootp, row["id"]) or "").f1})
    return out


def run(datasets: list[str], out: Path, workers: int) -> None:
    from sitesift.bench.runner import corpus_grouping
    from sitesift.evaluate import dataset_groups
    from sitesift.jobs.grouping import Grouping

    with out.open("w", encoding="utf-8") as fh:
        for d in datasets:
            root = Path(d)
            groups = dataset_groups(root, Grouping(corpus_grouping(root, "auto")))
            jobs = [[s.row for s in members] for members in groups.values()]
            with ProcessPoolExecutor(workers) as pool:
                for rows in pool.map(_group, [str(root)] * len(jobs), jobs, chunksize=4):
                    for r in rows:
                        fh.write(json.dumps({"corpus": root.name, **r}) + "\n")
            print(f"{root.name}: {sum(len(j) for j in jobs)} pages", file=sys.stderr)


def compare(a: Path, b: Path) -> None:
    def load(p: Path) -> dict[tuple[str, str], dict[str, Any]]:
        return {(r["corpus"], r["id"]): r for r in map(json.loads, p.open(encoding="utf-8"))}

    old, new = load(a), load(b)
    by: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for key in old.keys() & new.keys():
        by[key[0]].append((old[key], new[key]))
    print("| corpus | pages | same labelled blocks | same text | F1 old | F1 new | diff |")
    print("|---|---|---|---|---|---|---|")
    tot = same = 0
    for corpus in sorted(by):
        pairs = by[corpus]
        n = len(pairs)
        sb = sum(1 for o, w in pairs if o.get("blocks") and o.get("blocks") == w.get("blocks"))
        st = sum(1 for o, w in pairs if o.get("text") and o.get("text") == w.get("text"))
        f_old = sum(o.get("f1", 0.0) for o, _ in pairs) / n
        f_new = sum(w.get("f1", 0.0) for _, w in pairs) / n
        tot, same = tot + n, same + sb
        print(f"| {corpus} | {n} | {sb / n:.4f} | {st / n:.4f} | {f_old:.4f} | {f_new:.4f} "
              f"| {f_new - f_old:+.4f} |")
    print(f"\nall: {same}/{tot} pages ({same / max(tot, 1):.4f}) with identical labelled blocks")
    only = (old.keys() ^ new.keys())
    if only:
        print(f"{len(only)} pages on one side only: {sorted(only)[:5]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("datasets", nargs="+")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--workers", type=int, default=2)
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = ap.parse_args()
    if args.cmd == "run":
        run(args.datasets, args.out, args.workers)
    else:
        compare(args.old, args.new)


if __name__ == "__main__":
    main()
