"""The comments kept apart (`comments=separate`, issue 55) against dragnet's comment gold.

    python benchmarks/comments_apart.py [DRAGNET] [--peer trafilatura] [--out comments.json]

Dragnet's gold keeps a page's reader comments apart from its main text (`gold/<id>.txt`,
`gold/<id>.comments.json`, `has_comments` in its index). For every page, each cleaned alone
as `sitesift.clean` cleans it: the token F1 of the main text with `comments=auto` (the
default) and `comments=separate` against the main gold, and on the pages with comments the
token F1 of the `comments` field against the comment gold (a page whose comments field and
gold are both empty scores 1). `--peer trafilatura` scores trafilatura's
`extract(include_comments=True)` JSON (its `text` and `comments`) beside it. Means over
pages; about 1 minute of CPU for the 1,381 pages (trafilatura about as much again).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from statistics import mean
from typing import Any


def _f1(out: str, gold: str) -> float:
    from sitesift.metrics import token_prf

    if not out.strip() and not gold.strip():
        return 1.0
    return token_prf(out, gold).f1


def _trafilatura(html: str, url: str | None) -> tuple[str, str]:
    import trafilatura

    got = trafilatura.extract(html, url=url, include_comments=True, output_format="json",
                              with_metadata=False)
    if not got:
        return "", ""
    data = json.loads(got)
    return data.get("text") or "", data.get("comments") or ""


def run(root: Path, peer: str | None) -> dict[str, Any]:
    import sitesift
    from sitesift.datasets import load_page, read_gold, read_index

    rows: list[dict[str, Any]] = []
    for row in read_index(root):
        gold = read_gold(root, row["id"])
        if gold is None:
            continue
        page = load_page(root, row)
        comments_file = root / "gold" / f"{row['id']}.comments.json"
        gold_comments = (json.loads(comments_file.read_text(encoding="utf-8"))["comments"]
                         if comments_file.exists() else "")
        auto = sitesift.clean(page)
        apart = sitesift.clean(page, comments="separate")
        got: dict[str, Any] = {"id": row["id"], "has_comments": bool(row.get("has_comments")),
                               "text_auto": _f1(auto.text, gold),
                               "text_separate": _f1(apart.text, gold),
                               "comments": _f1(apart.comments or "", gold_comments)}
        if peer == "trafilatura":
            text, comments = _trafilatura(page.html, page.url)
            got["peer_text"] = _f1(text, gold)
            got["peer_comments"] = _f1(comments, gold_comments)
        rows.append(got)
    with_comments = [r for r in rows if r["has_comments"]]
    summary: dict[str, Any] = {
        "pages": len(rows), "pages_with_comments": len(with_comments),
        "text_f1_auto": mean(r["text_auto"] for r in rows),
        "text_f1_separate": mean(r["text_separate"] for r in rows),
        "text_f1_auto_with_comments": mean(r["text_auto"] for r in with_comments),
        "text_f1_separate_with_comments": mean(r["text_separate"] for r in with_comments),
        "comments_f1": mean(r["comments"] for r in with_comments),
        "comments_found": sum(r["comments"] > 0 for r in with_comments),
    }
    if peer:
        summary.update({
            "peer": peer, "peer_text_f1": mean(r["peer_text"] for r in rows),
            "peer_text_f1_with_comments": mean(r["peer_text"] for r in with_comments),
            "peer_comments_f1": mean(r["peer_comments"] for r in with_comments),
            "peer_comments_found": sum(r["peer_comments"] > 0 for r in with_comments)})
    return {"summary": summary, "pages": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(os.environ.get("SITESIFT_DATASETS", "../shared/datasets")) / "dragnet"
    ap.add_argument("dragnet", nargs="?", type=Path, default=default)
    ap.add_argument("--peer", choices=["trafilatura"])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if not (args.dragnet / "index.jsonl").exists():
        print(f"no dragnet corpus at {args.dragnet}", file=sys.stderr)
        return 2
    result = run(args.dragnet, args.peer)
    print(json.dumps(result["summary"], indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
