"""summary.md of a bench run: one overview table, one table per corpus, page types of wcxb."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sitesift.bench.rows import PAGE_TYPES, Row, by_key

SPEED_REFS = ("trafilatura", "resiliparse")

NOTES = """\
Token P/R/F1: lowercased `\\w+` tokens as multisets (the headline). ROUGE-L F1: longest common
subsequence over whitespace tokens. Shingle F1: sets of 4-token shingles. `with found` /
`without kept`: share of WCXB's must-keep snippets found in the output (higher is better) and
of its boilerplate snippets wrongly kept (lower is better), over pages that have snippets.
Exact definitions: `sitesift.metrics`. A page a method fails on scores as empty output.
`ms`: median wall time per page of the method's own call on the decoded page (peers: their
extract call; sitesift: parse + clean + the page's share of its site group's fit). `CPU ms`:
the same calls' CPU time (of the calling thread; rs-trafilatura's in its worker), which other
jobs on the machine do not inflate. `x trafilatura` / `x resiliparse`: that peer's median CPU
ms divided by the method's, measured in the same run (above 1: faster)."""


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.fmean(vals) if vals else None


def _median(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def _f(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def method_order(rows: list[Row], info: dict[str, Any]) -> list[str]:
    """sitesift's methods first, then the peers, each in the order asked for."""
    order = list(info.get("methods", [])) + list(info.get("peers", {}))
    seen = {r["method"] for r in rows}
    return [m for m in order if m in seen] + sorted(seen - set(order))


def overview(rows: list[Row], methods: list[str], time_key: str = "ms") -> str:
    """Mean token F1 (median `time_key` ms) per corpus and method: the issue's reference
    table, with wall (`ms`) or CPU (`cpu_ms`) times."""
    cells = by_key(rows, "corpus", "method")
    corpora = list(dict.fromkeys(r["corpus"] for r in rows))
    lines = ["| corpus | pages | " + " | ".join(methods) + " |",
             "|---|---|" + "---|" * len(methods)]
    for corpus in corpora:
        pages = max(len(cells.get((corpus, m), [])) for m in methods)
        row = []
        for m in methods:
            sel = cells.get((corpus, m), [])
            ms = _ms(_median(r.get(time_key) for r in sel))
            row.append(f"{_f(_mean(r['f1'] for r in sel))} ({ms})" if sel else "-")
        lines.append(f"| {corpus} | {pages} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def corpus_table(rows: list[Row], methods: list[str]) -> str:
    """Every metric of one corpus, one line per method."""
    cells = by_key(rows, "method")
    ref_ms = {ref: _median(r.get("cpu_ms") for r in cells.get((ref,), [])) for ref in SPEED_REFS}
    lines = [
        "| method | pages | errors | mean F1 | median F1 | mean P | median P | mean R | median R "
        "| ROUGE-L F1 | shingle F1 | with found | without kept | median ms | median CPU ms "
        "| x trafilatura | x resiliparse |",
        "|---|" + "---|" * 16,
    ]
    for m in methods:
        sel = cells.get((m,), [])
        if not sel:
            continue
        ms = _median(r.get("cpu_ms") for r in sel)
        cols = [m, str(len(sel)), str(sum(1 for r in sel if r.get("error")))]
        for metric in ("f1", "precision", "recall"):
            cols += [_f(_mean(r[metric] for r in sel)), _f(_median(r[metric] for r in sel))]
        cols += [_f(_mean(r.get(k) for r in sel))
                 for k in ("rouge_l_f1", "shingle_f1", "with_found", "without_kept")]
        cols += [_ms(_median(r["ms"] for r in sel)), _ms(ms)]
        for ref in SPEED_REFS:
            ref_value = ref_ms[ref]
            cols.append(f"{ref_value / ms:.2f}" if ref_value is not None and ms else "-")
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines)


def page_type_table(rows: list[Row], methods: list[str]) -> str:
    """Mean token F1 per page type (rows that carry `page_type`)."""
    cells = by_key(rows, "page_type", "method")
    present = {r["page_type"] for r in rows if r.get("page_type")}
    types = [t for t in PAGE_TYPES if t in present] + sorted(present - set(PAGE_TYPES))
    lines = ["| page type | pages | " + " | ".join(methods) + " |",
             "|---|---|" + "---|" * len(methods)]
    for t in types:
        pages = max(len(cells.get((t, m), [])) for m in methods)
        vals = [_f(_mean(r["f1"] for r in cells.get((t, m), []))) for m in methods]
        lines.append(f"| {t} | {pages} | " + " | ".join(vals) + " |")
    return "\n".join(lines)


def confidence_table(rows: list[Row], methods: list[str]) -> str | None:
    """Per method whose rows carry a confidence (the default cleaner's) and corpus: how it
    stands against the real token F1 (`bench.calibration`: ECE in 10 bins, Spearman,
    AUROC for F1 < 0.8); None where no row carries one."""
    from sitesift.bench.calibration import summary as calibration

    rated = [r for r in rows if isinstance(r.get("confidence"), int | float)]
    if not rated:
        return None
    lines = ["| method | corpus | pages | mean F1 | mean confidence | ECE (10 bins) "
             "| Spearman | AUROC F1 < 0.8 |", "|---|---|---|---|---|---|---|---|"]
    for m in methods:
        mine = [r for r in rated if r["method"] == m]
        groups = [*by_key(mine, "corpus").items(), (("all",), mine)] if mine else []
        for (corpus,), sel in groups:
            f = calibration([r["confidence"] for r in sel], [r["f1"] for r in sel])
            cells = [_f(f[k]) for k in ("mean_f1", "mean_confidence", "ece", "spearman",
                                        "auroc_bad")]
            lines.append(f"| {m} | {corpus} | {f['pages']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(rows: list[Row], info: dict[str, Any], command: str | None = None) -> str:
    methods = method_order(rows, info)
    meta = info.get("meta", {})
    peers = info.get("peers", {})
    out = ["# sitesift bench", ""]
    if command:
        out += [f"Command: `{command}`", ""]
    out.append(f"Run {meta.get('date', '?')}, Python {meta.get('python', '?')}, "
               f"{meta.get('cpus', '?')} CPUs, {meta.get('seconds', '?')} s. sitesift methods: "
               + ", ".join(f"`{m}`" for m in info.get("methods", [])) + ". Peers: "
               + (", ".join(f"{n} {v}" for n, v in peers.items()) or "none") + ".")
    for name, reason in info.get("skipped", {}).items():
        out.append(f"- skipped {name}: {reason}")
    out += ["", NOTES, "", "## Mean token F1 (median ms per page)", "", overview(rows, methods)]
    if any("cpu_ms" in r for r in rows):
        out += ["", "## Mean token F1 (median CPU ms per page)", "",
                overview(rows, methods, "cpu_ms")]
    if (table := confidence_table(rows, methods)) is not None:
        out += ["", "## Confidence against the real token F1", "",
                "The predicted token F1 of each page (`confidence`, docs/confidence.md) beside "
                "its real F1: expected calibration error over 10 equal-width bins, Spearman's "
                "rank correlation, and how well it finds the bad pages (AUROC for F1 < 0.8). "
                "The reliability diagrams are plots/reliability-METHOD.png.", "", table]
    corpora = info.get("corpora", {})
    for corpus, sel in by_key(rows, "corpus").items():
        name = corpus[0]
        pages = len({r["id"] for r in sel})
        out += ["", f"## {name} ({pages} pages, site groups by `{corpora.get(name, '?')}`)", "",
                corpus_table(sel, methods)]
        if len({r.get("page_type") for r in sel} - {None}) > 1:
            out += ["", f"### {name}: mean token F1 per page type", "",
                    page_type_table(sel, methods)]
    return "\n".join(out) + "\n"


def write_report(rows: list[Row], info: dict[str, Any], out: Path, command: str | None = None,
                 plots: bool = True) -> str:
    """summary.md, run.json and (with `plots`) plots/*.png into `out`; returns the summary.
    pages.jsonl is written by the caller as rows come, so a long run keeps what it did."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    if plots:
        try:
            from sitesift.bench.plots import write_plots

            write_plots(rows, method_order(rows, info), out / "plots")
        except ImportError as exc:  # matplotlib is in the bench extra only
            info = {**info, "skipped": {**info.get("skipped", {}),
                                        "plots": f"{exc}; pip install 'sitesift[bench]'"}}
    text = summary(rows, info, command)
    (out / "summary.md").write_text(text, encoding="utf-8")
    (out / "run.json").write_text(json.dumps({**info, "command": command}, indent=1) + "\n",
                                  encoding="utf-8")
    return text


def load_run(out: Path) -> tuple[list[Row], dict[str, Any]]:
    """The rows and run info a previous run left in `out` (to render them again)."""
    import json

    with open(out / "pages.jsonl", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    info_path = out / "run.json"
    info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.is_file() else {}
    return rows, info
