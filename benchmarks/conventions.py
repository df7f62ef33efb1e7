"""Which editorial conventions (headline, captions, bylines, social embeds, comments, dates)
each gold corpus follows, and which the shipped default cleaner follows.

    python benchmarks/conventions.py [--summary] [corpus ...]

with SITESIFT_DATASETS (default ../shared/datasets) holding the corpora and
SITESIFT_CONVENTIONS_OUT (default conventions-out) where it writes elements.jsonl (one row
per element: kind, corpus, page, whether the gold and the cleaner keep it) and table.txt.
An element is kept by a text when three-token runs of that text cover at least 80 % of its
tokens (at most 20 %: dropped; between: left out); the tables in docs/conventions.md.
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

import sitesift
from sitesift.datasets import gold_pages, read_page_bytes
from sitesift.text import tokens

DATA = Path(os.environ.get("SITESIFT_DATASETS", "../shared/datasets"))
OUT = Path(os.environ.get("SITESIFT_CONVENTIONS_OUT", "conventions-out"))
CORPORA = ["big9", "dragnet", "cleanportaleval", "cleaneval", "l3s-gn1", "readability", "wcxb",
           "chaos"]
KINDS = ["headline", "caption", "byline", "social", "comments", "date"]
KEEP, DROP = 0.8, 0.2
MIN_TOK = 3

SEL = {
    "caption": "figcaption, [class*=caption i], [id*=caption i]",
    "byline": ", ".join(f"[{a}*={w} i]" for w in ("author", "byline")
                        for a in ("class", "id", "itemprop", "rel")),
    "social": ", ".join(f"blockquote[class*={c} i]" for c in (
        "twitter-tweet", "twitter-video", "instagram-media", "tiktok-embed",
        "fb-xfbml-parse-ignore")) + ", [class*=tiktok-embed i]",
    "comments": "[class*=comment i], [id*=comment i]",
    "date": "time",
}
_WS = re.compile(r"\s+")
_TITLE_SEP = re.compile(r"\s+[|\-\u2013\u2014:\u00bb\u00ab\u00b7~/]+\s+")
# caps on element size, so wrappers that merely carry such a class are not counted
MAX_TOK = {"caption": 150, "byline": 60, "date": 40, "headline": 60, "social": 400}


def trigram_share(toks: list[str], ref3: set) -> float:
    """Share of the element's tokens covered by a token trigram that also occurs in ref."""
    n = len(toks)
    cov = [False] * n
    for i in range(n - 2):
        if (toks[i], toks[i + 1], toks[i + 2]) in ref3:
            cov[i] = cov[i + 1] = cov[i + 2] = True
    return sum(cov) / n


def unigram_share(toks: list[str], ref: Counter) -> float:
    """The brief's literal test: multiset share of the element's tokens present in ref."""
    c = Counter(toks)
    return sum(min(v, ref.get(k, 0)) for k, v in c.items()) / len(toks)


SHORT = 15


def verdict(share: float, ntok: int = 0, exact: bool | None = None) -> int | None:
    """>= 0.8 kept, <= 0.2 dropped; in between, a short element (<= 15 tokens) is kept if
    its whole token sequence occurs in the text and dropped if not (its words are being
    matched in other sentences), a longer one is ambiguous."""
    if share >= KEEP or exact:
        return 1
    if share <= DROP:
        return 0
    if exact is not None and ntok <= SHORT:
        return 0
    return None


def ancestors(node):
    p = node.parent
    while p is not None:
        yield p
        p = p.parent


def outermost(nodes):
    ids = {n.mem_id for n in nodes}
    return [n for n in nodes if not any(a.mem_id in ids for a in ancestors(n))]


def text_of(node) -> str:
    return _WS.sub(" ", node.text(separator=" ")).strip()


def elements(html: str):
    """(kind, text, source) for the page's elements of each kind."""
    tree = LexborHTMLParser(html)
    title_node = tree.css_first("title")
    title = text_of(title_node) if title_node is not None else ""
    tree.strip_tags(["script", "style", "noscript", "template", "svg"])
    body = tree.body
    if body is None:
        return [], []
    page_toks = tokens(body.text(separator=" "))
    out = []
    # headline: first h1 of >= 3 tokens, else the title's longest part
    h1 = next((h for h in body.css("h1") if len(tokens(text_of(h))) >= MIN_TOK), None)
    h1_anc = {a.mem_id for a in ancestors(h1)} if h1 is not None else set()
    if h1 is not None:
        out.append(("headline", text_of(h1), "h1"))
    elif title:
        part = max(_TITLE_SEP.split(title), key=lambda s: len(tokens(s)))
        out.append(("headline", part, "title"))
    n_body = max(len(page_toks), 1)

    def cands(kind):
        got = []
        for n in body.css(SEL[kind]):
            if n.tag in ("html", "body", "head", "meta", "link") or n.mem_id in h1_anc:
                continue
            if kind == "comments":
                vals = " ".join((n.attributes.get(a) or "") for a in ("class", "id")).lower()
                if "comment" not in vals.replace("commentary", "").replace("commentaries", ""):
                    continue
                if n.tag in ("a", "span", "button", "input", "textarea", "label", "img"):
                    continue
            got.append(n)
        return outermost(got)

    comments = []
    for n in cands("comments"):
        t = text_of(n)
        k = len(tokens(t))
        if k > 0.6 * n_body:   # the page's main wrapper, not a comments section
            continue
        comments.append(n)
    comments = outermost(comments)
    com_ids = {n.mem_id for n in comments}
    for n in comments:
        out.append(("comments", text_of(n), n.tag))
    for kind in ("caption", "byline", "social", "date"):
        for n in cands(kind):
            if any(a.mem_id in com_ids for a in ancestors(n)):
                continue  # belongs to a reader comment
            t = text_of(n)
            if len(tokens(t)) > MAX_TOK[kind]:
                continue
            out.append((kind, t, n.tag))
    return out, page_toks


def run_corpus(corpus: str, fh) -> int:
    root = DATA / corpus
    n_el = 0
    for row, page, gold in gold_pages(root):
        try:
            els, page_toks = elements(page.html)
        except Exception as exc:
            print(f"skip {corpus}/{row['id']}: {exc}", file=sys.stderr)
            continue
        if not els:
            continue
        try:
            res = sitesift.clean(read_page_bytes(root, row), url=row.get("url"))
            cl_text = "\n".join(b.text for b in res.content)
        except Exception as exc:
            print(f"clean failed {corpus}/{row['id']}: {exc}", file=sys.stderr)
            cl_text = None
        g = tokens(gold)
        g3 = set(zip(g, g[1:], g[2:], strict=False))
        gc = Counter(g)
        if cl_text is not None:
            c = tokens(cl_text)
            c3 = set(zip(c, c[1:], c[2:], strict=False))
            cc = Counter(c)
        page_str = " " + " ".join(page_toks) + " "
        g_str = " " + " ".join(g) + " "
        c_str = " " + " ".join(c) + " " if cl_text is not None else ""
        for kind, text, src in els:
            toks = tokens(text)
            if len(toks) < MIN_TOK:
                continue
            reps = page_str.count(" " + " ".join(toks) + " ")
            rec = {"corpus": corpus, "id": row["id"], "type": row.get("page_type"), "kind": kind,
                   "src": src, "ntok": len(toks), "reps": reps, "text": text[:200],
                   "g3": round(trigram_share(toks, g3), 3), "g1": round(unigram_share(toks, gc), 3),
                   "gx": (" " + " ".join(toks) + " ") in g_str}
            if cl_text is not None:
                rec["c3"] = round(trigram_share(toks, c3), 3)
                rec["c1"] = round(unigram_share(toks, cc), 3)
                rec["cx"] = (" " + " ".join(toks) + " ") in c_str
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n_el += 1
    return n_el


def summarise(path: Path, measure: str = "3", tiebreak: bool = True) -> str:
    """Page-weighted shares: each page's elements of a kind are averaged, then the pages."""
    per_page = defaultdict(lambda: defaultdict(list))   # (group, kind) -> page -> verdicts
    tot = defaultdict(Counter)
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    for r in rows:
        k = r["kind"]
        tot[k]["found"] += 1
        # repeated elsewhere in the page: ambiguous (headline: tested anyway, the h1 itself)
        if r["reps"] > 1 and k != "headline":
            tot[k]["repeated"] += 1
            continue
        gx = r["gx"] if tiebreak else None
        cx = r.get("cx") if tiebreak else None
        gv = verdict(r["g" + measure], r["ntok"], gx)
        cv = verdict(r.get("c" + measure, 0.5), r["ntok"], cx)
        if gv is None or cv is None:
            tot[k]["ambiguous"] += 1
            continue
        groups = [r["corpus"]] + ([f"wcxb:{r['type']}"] if r["corpus"] == "wcxb" else [])
        for grp in groups:
            per_page[grp, k][r["corpus"] + "/" + r["id"]].append((gv, cv))
    name = "token-trigram coverage" if measure == "3" else "unigram multiset share"
    lines = [f"measure: {name}, short-element tie-break {'on' if tiebreak else 'off'}; "
             "cell = elements/pages gold% cleaner% disagree% (page-weighted; <5 pages: '-')",
             f"{'corpus':18s}" + "".join(f"{k:>23s}" for k in KINDS)]
    order = CORPORA + sorted({g for g, _ in per_page if g.startswith("wcxb:")})
    for grp in order:
        cells = []
        for k in KINDS:
            pages = per_page.get((grp, k), {})
            n_el = sum(len(v) for v in pages.values())
            n_pg = len(pages)
            if n_pg < 5:
                cells.append(f"{n_el}/{n_pg} -")
                continue
            gm = sum(sum(g for g, _ in v) / len(v) for v in pages.values()) / n_pg
            cm = sum(sum(c for _, c in v) / len(v) for v in pages.values()) / n_pg
            dm = sum(sum(g != c for g, c in v) / len(v) for v in pages.values()) / n_pg
            cells.append(f"{n_el}/{n_pg} {100*gm:3.0f} {100*cm:3.0f} {100*dm:3.0f}")
        lines.append(f"{grp:18s}" + "".join(f"{c:>23s}" for c in cells))
    lines.append("found / repeated-in-page / ambiguous, all corpora: " + "; ".join(
        f"{k} {tot[k]['found']}/{tot[k]['repeated']}/{tot[k]['ambiguous']}" for k in KINDS))
    return "\n".join(lines)


def main() -> None:
    args = sys.argv[1:]
    OUT.mkdir(parents=True, exist_ok=True)
    if args and args[0] == "--summary":
        path = OUT / "elements.jsonl"
    else:
        corpora = args or CORPORA
        path = OUT / "elements.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for corpus in corpora:
                t = time.time()
                n = run_corpus(corpus, fh)
                fh.flush()
                print(f"{corpus}: {n} elements, {time.time() - t:.0f}s", file=sys.stderr)
    table = "\n\n".join((summarise(path, "3"), summarise(path, "3", tiebreak=False),
                           summarise(path, "1", tiebreak=False)))
    (OUT / "table.txt").write_text(table + "\n", encoding="utf-8")
    print(table)


if __name__ == "__main__":
    main()
