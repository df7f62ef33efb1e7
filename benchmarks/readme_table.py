"""Rewrite the README's results table from `sitesift bench` runs, so it cannot go stale
silently: the table between `<!-- results:start -->` and `<!-- results:end -->` is made
here from the runs' `pages.jsonl` and `run.json`, never typed.

    python benchmarks/readme_table.py bench-readme [--heldout bench-heldout] [--check]

RUN: a bench run of `--methods default --peers trafilatura,rs-trafilatura,resiliparse,
readability-lxml` (any methods and peers work; each becomes a column). Its `default` column
is the shipped model, which trained on the shared corpora's pages.
`--heldout RUN`: a bench run of `--methods default --peers none` made with
`SITESIFT_DEFAULT_MODEL` naming the held-out bundle of `sitesift train-default --folds 5`
(docs/model-card.md): its token F1 becomes the column "default, sites held out".
Cells: mean token F1 over the corpus's pages and the median CPU ms per page
(`sitesift.bench.report`'s figures). `--check` writes nothing and exits 1 when the README's
table is not what the runs give.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import textwrap
from pathlib import Path
from typing import Any

from sitesift.bench.report import by_key, load_run, method_order

START, END = "<!-- results:start -->", "<!-- results:end -->"
README = Path(__file__).resolve().parents[1] / "README.md"
HELDOUT = "default, sites held out"
HELDOUT_ENV = "SITESIFT_DEFAULT_MODEL=heldout.json.gz"
LABELS = {"default": "default", "resiliparse": "Resiliparse"}
Row = dict[str, Any]


def short_command(info: dict[str, Any], env: str = "") -> str:
    """The run's command with its corpora as `$D/NAME` and its --out as a bare name."""
    args = shlex.split(info.get("command") or "sitesift bench ?")
    corpora = set(info.get("corpora", {}))
    out: list[str] = [env] if env else []
    for i, arg in enumerate(args):
        if Path(arg).name in corpora and "/" in arg:
            arg = f"$D/{Path(arg).name}"
        elif i and args[i - 1] == "--out":
            arg = Path(arg).name
        out.append(arg)
    return " ".join(out)


def _cell(rows: list[Row], with_ms: bool) -> tuple[float | None, str]:
    f1s = [r["f1"] for r in rows if r.get("f1") is not None]
    if not f1s:
        return None, "-"
    f1 = statistics.fmean(f1s)
    ms = [r["cpu_ms"] for r in rows if r.get("cpu_ms") is not None]
    text = f"{f1:.3f}"
    if with_ms and ms:
        text += f" · {statistics.median(ms):.1f} ms"
    return f1, text


def table(rows: list[Row], info: dict[str, Any], held: list[Row] | None = None,
          held_info: dict[str, Any] | None = None) -> str:
    """The markdown between the markers: the table and what made each figure."""
    methods = method_order(rows, info)
    held_rows = [r for r in held or [] if r["method"] == "default"]
    cols = ([HELDOUT] if held_rows else []) + methods
    cells = by_key(rows + [{**r, "method": HELDOUT} for r in held_rows], "corpus", "method")
    seen_default = "default" in methods  # F1 on pages the shipped model trained on
    head = [HELDOUT if c == HELDOUT else LABELS.get(c, c) + ("†" if c == "default" else "")
            for c in cols]
    lines = ["| corpus | pages | " + " | ".join(head) + " |", "|---|---|" + "---|" * len(cols)]
    for corpus in dict.fromkeys(r["corpus"] for r in rows):
        pages = max(len(cells.get((corpus, m), [])) for m in methods)
        made = {c: _cell(cells.get((corpus, c), []), c != HELDOUT) for c in cols}
        # bold only among figures on unseen pages: the held-out column and the peers
        fair = [f for c, (f, _) in made.items()
                if f is not None and c != "default" and (held_rows or not seen_default)]
        best = max(fair) if fair else None
        texts = []
        for c in cols:
            f1, text = made[c]
            bold = (f1 is not None and best is not None and c != "default"
                    and f"{f1:.3f}" == f"{best:.3f}")
            texts.append(f"**{text}**" if bold else text)
        lines.append(f"| {corpus} | {pages} | " + " | ".join(texts) + " |")
    meta = info.get("meta", {})
    peers = ", ".join(f"{n} {v}" for n, v in info.get("peers", {}).items()) or "none"
    lines += ["", _fill(
        "Mean token F1 over the corpus's pages · median CPU ms per page (sitesift: parse + "
        "clean + the page's share of its site's fit; peers: their extract call on the same "
        "decoded page)." + (" Best F1 in bold." if held_rows or not seen_default else "") + " "
        f"Run {meta.get('date', '?')}, {meta.get('cpus', '?')} CPUs, peers {peers}; `$D` is "
        "the folder of the shared corpora:"), "", "```bash", short_command(info)]
    if held_rows:
        lines.append(short_command(held_info or {}, HELDOUT_ENV))
    lines += ["```"]
    if seen_default:
        lines += ["", _fill(
            "† The shipped model, which trained on every page of these corpora: its F1 here "
            "is on pages it has seen" + (
                "; the held-out column is the same recipe trained without each page's site."
                if held_rows else ". Its figures on sites it never saw are in "
                "[docs/model-card.md](docs/model-card.md)."))]
    return "\n".join(lines)


def _fill(text: str) -> str:
    return textwrap.fill(text, 92, break_on_hyphens=False, break_long_words=False)


def replace_between(text: str, block: str) -> str:
    if START not in text or END not in text:
        raise SystemExit(f"readme_table: no {START} ... {END} markers")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    return f"{before}{START}\n{block}\n{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a `sitesift bench --out` folder")
    parser.add_argument("--heldout", type=Path, help="a bench run of the held-out bundle")
    parser.add_argument("--readme", type=Path, default=README)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the README's table is stale; write nothing")
    args = parser.parse_args(argv)
    rows, info = load_run(args.run)
    held, held_info = load_run(args.heldout) if args.heldout else (None, None)
    text = args.readme.read_text(encoding="utf-8")
    new = replace_between(text, table(rows, info, held, held_info))
    if args.check:
        if new != text:
            print(f"readme_table: {args.readme} is stale; run without --check", file=sys.stderr)
            return 1
        return 0
    args.readme.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
