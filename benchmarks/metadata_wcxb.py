"""Metadata accuracy on wcxb: sitesift's `extract_metadata` beside trafilatura's own, in one run.

Every page of the corpus is decoded once (sitesift's decoder) and the same text given to
both extractors: `sitesift.metadata.extract_metadata(html, url)` and
`trafilatura.extract_metadata(html, default_url=url)` (trafilatura 2.x, its defaults).
Scored over the pages whose gold (index.jsonl) has the field:

- title: exact match after case folding and whitespace folding (gold `title`);
- author: the case/space-folded gold author equals the extracted one or is contained in it
  (a byline "Jane Doe, Staff Writer" finds "Jane Doe"); `author=` is strict equality alone;
- date: the same yyyy-mm-dd (gold `publish_date`);
- CPU ms per page (process time) of each extractor, the decoding excluded.

    .venv/bin/python benchmarks/metadata_wcxb.py /work/shared/datasets/wcxb [--limit N]
        [--misses title --who sitesift]   # list the pages one side gets wrong
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

_SPACE = re.compile(r"\s+")


def fold(value: Any) -> str:
    return _SPACE.sub(" ", str(value or "")).strip().casefold()


def title_ok(gold: str, got: str | None) -> bool:
    return bool(got) and fold(gold) == fold(got)


def author_ok(gold: str, got: str | None) -> bool:
    return bool(got) and fold(gold) in fold(got)


def author_exact(gold: str, got: str | None) -> bool:
    return bool(got) and fold(gold) == fold(got)


def date_ok(gold: str, got: str | None) -> bool:
    return bool(got) and str(got)[:10] == gold[:10]


def sitesift_meta(html: str, url: str | None) -> dict[str, Any]:
    from sitesift.metadata import extract_metadata

    return extract_metadata(html, url).to_dict()


def trafilatura_meta(html: str, url: str | None) -> dict[str, Any]:
    import trafilatura

    doc = trafilatura.extract_metadata(html, default_url=url)
    if doc is None:
        return {}
    return {"title": doc.title, "author": doc.author, "date": doc.date,
            "sitename": doc.sitename}


EXTRACTORS = {"sitesift": sitesift_meta, "trafilatura": trafilatura_meta}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--misses", choices=["title", "author", "date"],
                    help="print the pages where --who is wrong on this field")
    ap.add_argument("--who", default="sitesift", choices=sorted(EXTRACTORS))
    ap.add_argument("--json", type=Path, help="write every page's fields here (JSON lines)")
    args = ap.parse_args()

    from sitesift.datasets import read_page_bytes
    from sitesift.decode import decode_html

    rows = [json.loads(line) for line in
            (args.dataset / "index.jsonl").read_text(encoding="utf-8").splitlines() if line]
    rows = rows[: args.limit] if args.limit else rows
    for extract in EXTRACTORS.values():  # imports and first-call set-up out of the timing
        extract("<html><head><title>x</title></head><body><p>x</p></body></html>", None)

    checks = {"title": ("title", title_ok), "author": ("author", author_ok),
              "author=": ("author", author_exact), "date": ("publish_date", date_ok)}
    hits = {name: dict.fromkeys(checks, 0) for name in EXTRACTORS}
    cpu = dict.fromkeys(EXTRACTORS, 0.0)
    have = dict.fromkeys(checks, 0)
    failed = dict.fromkeys(EXTRACTORS, 0)
    dump = open(args.json, "w", encoding="utf-8") if args.json else None  # noqa: SIM115
    for row in rows:
        html = decode_html(read_page_bytes(args.dataset, row)).text
        url = row.get("url")
        for check, (key, _) in checks.items():
            have[check] += bool(row.get(key))
        got: dict[str, dict[str, Any]] = {}
        for name, extract in EXTRACTORS.items():
            start = time.process_time()
            try:
                got[name] = extract(html, url)
            except Exception as exc:  # a peer failing on a page scores nothing on it
                failed[name] += 1
                got[name] = {}
                print(f"{row['id']}: {name} failed: {exc!r}", file=sys.stderr)
            cpu[name] += time.process_time() - start
            for check, (key, ok) in checks.items():
                if row.get(key) and ok(row[key], got[name].get(check.rstrip("="))):
                    hits[name][check] += 1
        if args.misses:
            key, ok = checks[args.misses]
            field = args.misses
            if row.get(key) and not ok(row[key], got[args.who].get(field)):
                other = "trafilatura" if args.who == "sitesift" else "sitesift"
                mark = "+" if ok(row[key], got[other].get(field)) else " "
                print(f"{row['id']} {mark} gold={row[key]!r} {args.who}="
                      f"{got[args.who].get(field)!r} {other}={got[other].get(field)!r}")
        if dump:
            dump.write(json.dumps({"id": row["id"], **got}, ensure_ascii=False) + "\n")
    if dump:
        dump.close()

    n = len(rows)
    print(f"\nwcxb: {n} pages; gold has title {have['title']}, author {have['author']}, "
          f"publish_date {have['date']}\n")
    print("| extractor | title exact | author (contains) | author (equal) | date | "
          "CPU ms/page |")
    print("|---|---|---|---|---|---|")
    for name in EXTRACTORS:
        cells = [f"{hits[name][c] / have[c]:.3f} ({hits[name][c]})" if have[c] else "-"
                 for c in checks]
        print(f"| {name} | " + " | ".join(cells) + f" | {1000 * cpu[name] / max(n, 1):.1f} |")
    if any(failed.values()):
        print(f"\nfailures: {failed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
