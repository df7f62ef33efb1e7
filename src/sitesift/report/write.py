"""The report's HTML: the summary, one view per page, one explorer per Site Style Tree.

Every file stands alone: the stylesheet and the script (`assets/`) are inlined, the data the
script needs is embedded as JSON, charts are inline SVG, and a Content-Security-Policy meta
allows nothing to be fetched, so the report opens from a `file:` URL with no network.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from sitesift.report.views import PageMarks, removed_share
from sitesift.result import CONTENT

REPORT_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
              "img-src data:; font-src data:; form-action 'none'; base-uri 'none'")


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


@cache
def asset(name: str) -> str:
    return (resources.files("sitesift.report") / "assets" / name).read_text(encoding="utf-8")


def embed_json(element_id: str, data: Any) -> str:
    """JSON inside a <script type=application/json>: `<` escaped so no `</script>` ends it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def document(title: str, body: str, *, data: str = "", view: str = "") -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{REPORT_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{asset('report.css')}</style></head>"
        f'<body data-view="{view}">{body}{data}<script>{asset("report.js")}</script>'
        "</body></html>\n"
    )


def pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.0f}%"


def num(x: float | None) -> str:
    return "" if x is None else f"{x:.3f}"


@dataclass(slots=True)
class MethodOnPage:
    """One method's outcome on a viewed page."""

    method: str
    marks: PageMarks | None
    error: str | None = None
    f1: float | None = None
    precision: float | None = None
    recall: float | None = None


def page_view(*, page_id: str, title: str | None, url: str | None, site: str,
              site_anchor: str, methods: Sequence[MethodOnPage], prev: str | None,
              next_: str | None, has_gold: bool) -> str:
    """The view of one page: the framed page per method, the cleaned text, the switch."""
    tabs = "".join(
        f'<button type="button" role="tab" data-tab="{i}">{esc(m.method)}</button>'
        for i, m in enumerate(methods))
    picker = ""
    if len(methods) > 1:
        tabs += '<button type="button" role="tab" data-tab="compare">compare side by side</button>'
        options = [
            "".join(f'<option value="{j}"{" selected" if j == pick else ""}>{esc(m.method)}'
                    "</option>" for j, m in enumerate(methods))
            for pick in (0, 1)]
        picker = (f'<span class="pick"><select id="pick-left" aria-label="left">{options[0]}'
                  f'</select> vs <select id="pick-right" aria-label="right">{options[1]}'
                  "</select></span>")
    panes, cols, data = [], [], []
    for i, m in enumerate(methods):
        panes.append(_pane(i, m, has_gold))
        cols.append(_column(i, m))
        marks = m.marks.marks if m.marks is not None else []
        data.append({"name": m.method, "marks": [
            [k.label, round(k.score, 4), k.reason, k.path, k.via] for k in marks]})
    nav = "".join([
        f'<a href="{esc(prev)}">‹ previous</a>' if prev else "",
        f'<a href="{esc(next_)}">next ›</a>' if next_ else ""])
    link = f' · <span class="mono">{esc(url)}</span>' if url else ""
    body = (
        '<header class="bar"><a href="../index.html">sitesift report</a>'
        f'<a href="../index.html#{esc(site_anchor)}">{esc(site)}</a><b>{esc(page_id)}</b>'
        f'<span class="title">{esc(title or "")}</span><nav class="pn">{nav}</nav></header>'
        f'<div class="toolbar"><div class="tabs" role="tablist">{tabs}</div>{picker}'
        '<span class="legend"><i class="sw noise"></i>noise (shaded)'
        '<i class="sw content"></i>content (outlined)</span>'
        '<label><input type="checkbox" id="show-noise"> removed text in the column</label>'
        f'<span class="note">hover a region for its score and rule{link}</span></div>'
        f'<main class="view"><section class="frames">{"".join(panes)}</section>'
        f'<aside class="text">{"".join(cols)}</aside></main>'
        '<div id="tip" role="tooltip" hidden></div>')
    return document(f"{page_id} · sitesift report", body, data=embed_json("ss-data",
                    {"methods": data}), view="page")


def _pane(i: int, m: MethodOnPage, has_gold: bool) -> str:
    hidden = "" if i == 0 else " hidden"
    if m.marks is None:
        return (f'<figure class="pane" data-i="{i}"{hidden}><figcaption><b>{esc(m.method)}'
                f'</b></figcaption><div class="failed">{esc(m.error or "no result")}</div>'
                "</figure>")
    pm = m.marks
    total, removed = removed_share(pm.result.blocks)
    facts = [f"{pct(removed / total if total else 0.0)} of the text removed",
             f"{len(pm.marks)} marked regions"]
    if has_gold and m.f1 is not None:
        facts.append(f"token F1 {m.f1:.3f} (P {m.precision:.3f}, R {m.recall:.3f})")
    if not pm.node_verdicts:
        facts.append("no node verdicts: blocks placed by their text")
    if pm.unplaced:
        facts.append(f"{pm.unplaced} blocks not placed on the page")
    frame = html.escape(pm.frame, quote=True)
    return (f'<figure class="pane" data-i="{i}"{hidden}><figcaption><b>{esc(m.method)}</b>: '
            f'{esc(" · ".join(facts))}</figcaption>'
            f'<iframe sandbox="allow-same-origin" title="the page as marked by '
            f'{esc(m.method)}" srcdoc="{frame}"></iframe></figure>')


def _column(i: int, m: MethodOnPage) -> str:
    hidden = "" if i == 0 else " hidden"
    head = f'<div class="col" data-i="{i}"{hidden}><h2>Cleaned text: {esc(m.method)}</h2>'
    if m.marks is None:
        return head + f'<p class="note">{esc(m.error or "no result")}</p></div>'
    rows = []
    for block, mark in zip(m.marks.result.blocks, m.marks.block_marks, strict=True):
        cls = "b " + ("c" if block.label == CONTENT else "n")
        if mark is None and block.label == CONTENT:
            cls += " kept"  # no verdict above it: kept by default
        if block.tag == "li":
            cls += " li"
        attrs = f' data-m="{mark}"' if mark is not None else ""
        rows.append(f'<p class="{cls}" data-tag="{esc(block.tag)}"{attrs} '
                    f'title="{esc(block.label)} {block.score:.2f} · {esc(block.path)}&#10;'
                    f'{esc(block.reason)}">{esc(block.text)}</p>')
    kept = sum(1 for b in m.marks.result.blocks if b.label == CONTENT)
    note = (f'<p class="note">{kept} of {len(m.marks.result.blocks)} blocks kept; tick '
            '"removed text" to see the rest in place. Click a block to find it on the page.</p>')
    return head + note + f'<div class="blocks">{"".join(rows)}</div></div>'


def tree_view(*, site: str, site_anchor: str, method: str, data: dict[str, Any],
              counts: dict[str, int]) -> str:
    """The Site Style Tree explorer of one site."""
    params = ", ".join(f"{k}={v}" for k, v in data["params"].items())
    legend = " · ".join(f'<span class="lab l-{k[0]}">{k}</span> {v}' for k, v in counts.items())
    body = (
        '<header class="bar"><a href="../index.html">sitesift report</a>'
        f'<a href="../index.html#{esc(site_anchor)}">{esc(site)}</a><b>Site Style Tree</b>'
        "</header>"
        f'<div class="wrap"><h1>Site Style Tree of {esc(site)}</h1>'
        f'<p class="muted">{esc(method)} fitted on {data["pages"]} pages; '
        f'{len(data["nodes"])} element nodes: {legend}.</p>'
        f'<p class="note">Parameters: {esc(params)}. An element node is noisy when it and '
        "everything below it has composite importance under the threshold, meaningful when "
        "it is not noisy and has no noisy node below it. Each element node lists its style "
        "nodes (the child sequences the site's pages use under it, with how many pages use "
        "each); open one to see its element nodes.</p>"
        '<div class="controls"><input type="search" id="q" placeholder="search by tag: '
        'table, div, div|class=nav …" aria-label="search by tag"></div>'
        '<div id="results"></div><ul class="sst" id="tree"></ul></div>')
    return document(f"{site}: Site Style Tree · sitesift report", body,
                    data=embed_json("ss-tree", data), view="tree")


def summary_view(*, title: str, command: str | None, methods: Sequence[str],
                 sites: Sequence[dict[str, Any]]) -> str:
    """The summary: per site, pages, share of text removed, F1 where gold exists, a chart."""
    head_cells = "".join(
        f'<th class="num">{esc(m)}: removed</th><th class="num">{esc(m)}: mean F1</th>'
        for m in methods)
    rows = []
    for s in sites:
        cells = "".join(
            f'<td class="num">{pct(s["removed"].get(m))}</td>'
            f'<td class="num">{num(s["mean_f1"].get(m))}</td>' for m in methods)
        tree = f'<a href="{esc(s["tree"])}">style tree</a>' if s.get("tree") else ""
        rows.append(f'<tr><td><a href="#{esc(s["anchor"])}">{esc(s["name"])}</a></td>'
                    f'<td class="num">{s["pages"]}</td><td class="num">{s["errors"]}</td>'
                    f"{cells}<td>{tree}</td></tr>")
    parts = [
        f'<header class="bar"><b>sitesift report</b><span class="title">{esc(title)}</span>'
        "</header><div class=\"wrap\">",
        f"<h1>{esc(title)}</h1>",
        f'<p class="muted">methods: {esc(", ".join(methods))}'
        + (f' · <span class="mono">{esc(command)}</span>' if command else "") + "</p>",
        '<p class="note">removed = share of the page\'s visible text that the method labels '
        "noise (characters, all pages of the site pooled); F1 = token F1 of the kept text "
        "against the gold text, mean over the site's pages with gold.</p>",
        f'<table><tr><th>site</th><th class="num">pages</th><th class="num">errors</th>'
        f"{head_cells}<th></th></tr>{''.join(rows)}</table>",
    ]
    for s in sites:
        parts.append(_site_section(s, methods))
    parts.append("</div>")
    return document(f"{title} · sitesift report", "".join(parts), view="summary")


def _site_section(s: dict[str, Any], methods: Sequence[str]) -> str:
    out = [f'<section id="{esc(s["anchor"])}"><h2>{esc(s["name"])}</h2>']
    facts = [f'{s["pages"]} pages']
    for m, fit in s["fit"].items():
        if fit.get("error"):
            facts.append(f"{m}: {fit['error']}")
        elif fit.get("seconds") is not None:
            facts.append(f"{m} fitted in {fit['seconds']:.2f} s")
    if s.get("tree"):
        facts.append(f'<a href="{esc(s["tree"])}">Site Style Tree explorer</a>')
    out.append(f'<p class="muted">{" · ".join(f if f.startswith("<a") else esc(f) for f in facts)}'
               "</p>")
    if s.get("chart"):
        out.append(f'<div class="chart">{s["chart"]}</div>')
    elif s.get("chart_note"):
        out.append(f'<p class="note">{esc(s["chart_note"])}</p>')
    head = "".join(f'<th class="num">{esc(m)}: removed</th>'
                   + (f'<th class="num">{esc(m)}: F1</th>' if s["gold"] else "")
                   for m in methods)
    rows = []
    for n, page in enumerate(s["rows"], 1):
        name = (f'<a href="{esc(page["view"])}">{esc(page["id"])}</a>' if page.get("view")
                else esc(page["id"]))
        cells = []
        for m in methods:
            r = page["methods"].get(m, {})
            if r.get("error"):
                cells.append(f'<td class="err" colspan="{2 if s["gold"] else 1}" '
                             f'title="{esc(r["error"])}">error</td>')
                continue
            cells.append(f'<td class="num">{pct(r.get("removed_share"))}</td>')
            if s["gold"]:
                cells.append(f'<td class="num">{num(r.get("f1"))}</td>')
        rows.append(f'<tr><td class="num">{n}</td><td>{name}</td>'
                    f'<td>{esc(page.get("title") or "")}</td>{"".join(cells)}</tr>')
    out.append(f'<table><tr><th class="num">#</th><th>page</th><th>title</th>{head}</tr>'
               f"{''.join(rows)}</table>")
    for page_id, reason in s["load_errors"]:
        out.append(f'<p class="note err">{esc(page_id)}: not read: {esc(reason)}</p>')
    out.append("</section>")
    return "".join(out)
