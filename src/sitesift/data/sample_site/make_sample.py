"""Generate the bundled sample site "The Harbour Gazette" (harbourgazette.example).

Reads the article texts from ``articles.json`` next to this file and writes ``pages/<id>.html``,
``gold/<id>.txt`` and ``index.jsonl`` in the layout of the evaluation corpora. Everything is
deterministic: template variations are drawn from a ``random.Random`` seeded per page id, so a
rerun writes byte-identical files. Standard library only.

Run: ``python make_sample.py`` (from any directory).
"""

from __future__ import annotations

import json
import random
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

from sample_html import (  # beside this file (a script's folder is on its path)
    BASE,
    HOST,
    SEED,
    SITE,
    Template,
    article_path,
    gold_block,
    plain,
    render_article,
    render_page,
    render_section,
)

HERE = Path(__file__).resolve().parent


class _TextCollector(HTMLParser):
    """Visible text of a page, for the self-check that every gold line is on the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "title"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "title"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def check_page(data: bytes, encoding: str, gold: list[str]) -> None:
    """Fail loudly if the written page does not decode to text containing every gold line."""
    if encoding != "utf-8":
        legacy_text = "\n".join(gold)
        legacy_text.encode(encoding)  # the article itself must be representable, no char refs
        if not any(ord(ch) > 127 for ch in legacy_text):
            raise ValueError("a legacy-encoded page must contain non-ASCII text")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            raise ValueError("a legacy-encoded page must not also be valid UTF-8")
    parser = _TextCollector()
    parser.feed(data.decode(encoding))
    visible = " ".join("".join(parser.parts).split())
    for line in gold:
        if line not in visible:
            raise ValueError(f"gold line not on page: {line[:60]!r}")


def article_page(a: dict, articles: list[dict], tpl: Template) -> dict:
    """Build one article page: its HTML, gold lines and meta data."""
    rng = random.Random(f"{SEED}:{a['id']}")
    same = [o for o in articles if o["section"] == a["section"] and o["id"] != a["id"]]
    related = rng.sample(same, 3)
    page = {
        "id": a["id"],
        "title": a["headline"],
        "description": a["summary"],
        "path": article_path(a),
        "section": a["section"],
        "date": a["date"],
        "page_type": "article",
        "encoding": a["encoding"],
        "author": a["author"],
    }
    gold = [a["headline"], plain(a["lead"])]
    gold += [line for b in a["body"] for line in gold_block(b)]
    main_html = render_article(a, rng, related, tpl)
    page["html"] = render_page(page, rng, main_html, tpl)
    page["gold"] = gold
    return page


def section_page(s: dict, articles: list[dict], tpl: Template) -> dict:
    """Build one section front: teasers of its sample articles, newest first, then older ones."""
    rng = random.Random(f"{SEED}:{s['id']}")
    own = sorted(
        (a for a in articles if a["section"] == s["section"]), key=lambda a: a["date"], reverse=True
    )
    teasers = [
        {
            "path": article_path(a),
            "headline": a["headline"],
            "summary": a["summary"],
            "date": a["date"],
            "image": next((b["src"] for b in a["body"] if b["type"] == "figure"), None),
        }
        for a in own
    ]
    teasers += [
        {
            "path": "/" + t["path"],
            "headline": t["headline"],
            "summary": t["summary"],
            "date": "-".join(t["path"].split("/")[1:4]),
        }
        for t in s["archive_teasers"]
    ]
    page = {
        "id": s["id"],
        "title": s["name"],
        "description": s["description"],
        "path": f"/{s['section']}/",
        "section": s["section"],
        "date": s["date"],
        "page_type": "section",
        "encoding": "utf-8",
    }
    page["html"] = render_page(page, rng, render_section(s, teasers), tpl)
    page["gold"] = [s["name"]] + [line for t in teasers for line in (t["headline"], t["summary"])]
    return page


def build() -> list[dict]:
    """Write pages/, gold/ and index.jsonl; return the index rows."""
    source = json.loads((HERE / "articles.json").read_text(encoding="utf-8"))
    tpl = Template.from_source(source)
    articles: list[dict] = source["articles"]
    for sub in ("pages", "gold"):
        (HERE / sub).mkdir(exist_ok=True)
        for old in (HERE / sub).glob("hg-*.*"):
            old.unlink()
    pages = [article_page(a, articles, tpl) for a in articles]
    pages += [section_page(s, articles, tpl) for s in source["sections"]]
    rows = [write(page) for page in pages]
    with open(HERE / "index.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return rows


def write(page: dict) -> dict:
    """Write one page and its gold; return its index row."""
    encoding = page["encoding"]
    gold = [unicodedata.normalize("NFC", line) for line in page["gold"]]
    # Legacy pages: text outside the charset (e.g. a curly quote in a "Most read" headline on
    # the ISO-8859-1 page) becomes a numeric character reference, as a CMS would write it.
    data = page["html"].encode(encoding, errors="xmlcharrefreplace")
    check_page(data, encoding, gold)
    gold_text = "\n".join(gold) + "\n"
    (HERE / "pages" / f"{page['id']}.html").write_bytes(data)
    (HERE / "gold" / f"{page['id']}.txt").write_bytes(gold_text.encode("utf-8"))
    return {
        "id": page["id"],
        "url": BASE + page["path"],
        "site": SITE,
        "host": HOST,
        "host_how": "declared",
        "page_type": page["page_type"],
        "encoding": encoding,
        "gold_chars": len(gold_text),
    }


def main() -> None:
    rows = build()
    size = sum(p.stat().st_size for p in HERE.rglob("*") if p.is_file())
    print(f"wrote {len(rows)} pages to {HERE} ({size / 1024:.0f} KiB in total)")


if __name__ == "__main__":
    main()
