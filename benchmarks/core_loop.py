"""CPU per page of the default cleaner's whole per-page path, to compare two builds by.

    PYTHONPATH=<tree>/src python benchmarks/core_loop.py [ROUNDS]

Reads the first 60 pages of each modern corpus (dragnet, big9, wcxb, l3s-gn1, chaos) once,
then cleans and finishes them `ROUNDS` times (default 3) as `evaluate` does (`clean`, then
`finish` to the scored text), and prints the CPU ms per page of that loop and a digest of
the first round's texts, labels and scores: two builds that give the same answers print
the same digest. Run two builds in turn, twice or more (the machine is shared), to compare
them; `native_stages.py` tells where a build's time goes.
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

from sitesift.datasets import load_page, read_index
from sitesift.methods.base import get_cleaner
from sitesift.output import SCORED, finish
from sitesift.page import Page

SHARED = Path(__file__).resolve().parents[2] / "shared/datasets"
CORPORA = ("dragnet", "big9", "wcxb", "l3s-gn1", "chaos")


def pages(per_corpus: int = 60) -> list[Page]:
    out = []
    for corpus in CORPORA:
        for row in read_index(SHARED / corpus)[:per_corpus]:
            out.append(load_page(SHARED / corpus, row))
    return out


def main() -> None:
    if not SHARED.is_dir():
        sys.exit(f"core_loop: no shared datasets at {SHARED}")
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    read = pages()
    cleaner = get_cleaner("default")
    cleaner.check_settings()  # the model loaded before the clock
    digest = hashlib.sha256()
    start = time.process_time()
    for i in range(rounds):
        for page in read:
            result = finish(cleaner.clean(page), page, SCORED)
            if i == 0:
                digest.update(result.text.encode())
                digest.update(repr([(b.label, b.score) for b in result.blocks]).encode())
    ms = (time.process_time() - start) / len(read) / rounds * 1000
    print(f"{len(read)} pages, {ms:.2f} CPU ms/page, {digest.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
