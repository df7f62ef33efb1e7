"""Generate the bundled sample site "The Harbour Gazette" (harbourgazette.example).

Reads the article texts from ``articles.json`` next to this file and writes ``pages/<id>.html``,
``gold/<id>.txt`` and ``index.jsonl`` in the layout of the evaluation corpora. Everything is
deterministic: template variations are drawn from a ``random.Random`` seeded per page id, so a
rerun writes byte-identical files. Standard library only.

Run: ``python make_sample.py`` (from any directory).
"""

from __future__ import annotations

import html
import json
import random
import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = "harbour-gazette-2024"
SITE = "harbourgazette.example"
HOST = f"www.{SITE}"
BASE = f"https://{HOST}"
SITE_NAME = "The Harbour Gazette"

ACTIVE = ' class="active"'
SKIES = ["sunny spells", "showers", "cloudy", "light rain", "fog patches", "bright"]
LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")


@dataclass(frozen=True)
class Template:
    """The site-wide parts of every page (the "template" entry of articles.json)."""

    nav: dict[str, str]
    tickers: list[str]
    footer_columns: dict[str, dict[str, str]]
    share_targets: list[str]
    style: str
    most_read: list[dict]  # the articles the "Most read" box draws its five links from

    @classmethod
    def from_source(cls, source: dict) -> Template:
        t = source["template"]
        by_id = {a["id"]: a for a in source["articles"]}
        return cls(
            nav=t["nav"],
            tickers=t["tickers"],
            footer_columns=t["footer_columns"],
            share_targets=t["share_targets"],
            style="\n" + "\n".join(f"  {rule}" for rule in t["style"]) + "\n",
            most_read=[by_id[i] for i in t["most_read_pool"]],
        )


def esc(text: str) -> str:
    """Escape text for an element's content."""
    return html.escape(text, quote=False)


def attr(text: str) -> str:
    """Escape text for an attribute value."""
    return html.escape(text, quote=True)


def inline(text: str) -> str:
    """Render ``[label](href)`` link markup as HTML, escaping everything else."""
    out, pos = [], 0
    for m in LINK_RE.finditer(text):
        out.append(esc(text[pos : m.start()]))
        out.append(f'<a href="{attr(m.group(2))}">{esc(m.group(1))}</a>')
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


def plain(text: str) -> str:
    """Return the visible text of a string with link markup."""
    return LINK_RE.sub(r"\1", text)


def long_date(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{d.day} {d.strftime('%B %Y')}"


def day_date(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{d.strftime('%A')} {d.day} {d.strftime('%B %Y')}"


def article_path(a: dict) -> str:
    return f"/{a['section']}/{a['date'].replace('-', '/')}/{a['slug']}"


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def charset_meta(encoding: str) -> str:
    if encoding == "iso-8859-1":
        return '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
    return f'<meta charset="{encoding}">'


def render_head(page: dict, tpl: Template) -> str:
    url = BASE + page["path"]
    jsonld: dict = {"@context": "https://schema.org", "url": url}
    if page["page_type"] == "article":
        jsonld |= {"@type": "NewsArticle", "headline": page["title"], "datePublished": page["date"]}
        jsonld["author"] = {"@type": "Person", "name": page["author"]}
        jsonld["publisher"] = {"@type": "Organization", "name": SITE_NAME}
    else:
        jsonld |= {"@type": "CollectionPage", "name": page["title"]}
    ld = json.dumps(jsonld, ensure_ascii=True).replace("</", "<\\/")
    title = f"{page['title']} | {SITE_NAME}"
    og_type = "article" if page["page_type"] == "article" else "website"
    return f"""<head>
{charset_meta(page["encoding"])}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
<meta name="description" content="{attr(page["description"])}">
<meta property="og:site_name" content="{SITE_NAME}">
<meta property="og:title" content="{attr(page["title"])}">
<meta property="og:type" content="{og_type}">
<meta property="og:url" content="{url}">
<link rel="canonical" href="{url}">
<link rel="icon" href="/static/favicon.ico">
<style>{tpl.style}</style>
<script>
  window.hgLayer = window.hgLayer || [];
  window.hgLayer.push({{"pageId": "{page["id"]}", "section": "{page["section"]}",
                        "pageType": "{page["page_type"]}"}});
  (function(d){{var s=d.createElement("script");s.async=true;
    s.src="https://stats.example/hg.js";d.head.appendChild(s);}})(document);
</script>
<script type="application/ld+json">{ld}</script>
</head>"""


def render_top(page: dict, rng: random.Random, tpl: Template) -> str:
    current = f"/{page['section']}/"
    nav = "\n".join(
        f'<li{ACTIVE if href == current else ""}><a href="{href}">{name}</a></li>'
        for name, href in tpl.nav.items()
    )
    promo = ""
    if rng.random() < 0.3:
        promo = (
            '<div class="promo" id="promo-subscribe"><a href="/subscribe/?src=banner">'
            "Support local journalism: subscribe for &pound;1 a week for three months"
            "</a></div>\n"
        )
    section_name = page["section"].capitalize()
    return f"""<div class="topbar"><span class="today">{day_date(page["date"])}</span>
<a href="/account/login/">Log in</a><a href="/subscribe/">Subscribe</a></div>
<header class="masthead">
<a class="logo" href="/"><img src="/static/logo.svg" alt="{SITE_NAME} logo"
 width="48" height="48"></a>
<span class="site-name">{SITE_NAME}</span>
<span class="tagline">News from Wrenhaven and the Isle of Carrow since 1902</span>
</header>
<nav class="main-nav" aria-label="Main">
<ul>
{nav}
</ul>
</nav>
<div class="ticker"><strong>Latest:</strong>
<a href="/news/latest/">{esc(rng.choice(tpl.tickers))}</a></div>
{promo}<div class="breadcrumb"><a href="/">Home</a> &rsaquo;
<a href="/{page["section"]}/">{section_name}</a></div>"""


def render_sidebar(page_id: str, rng: random.Random, tpl: Template) -> str:
    pool = [a for a in tpl.most_read if a["id"] != page_id]
    items = "\n".join(
        f'<li><a href="{article_path(a)}">{esc(a["headline"])}</a></li>'
        for a in rng.sample(pool, 5)
    )
    weather = ""
    if rng.random() < 0.5:
        temp, tide = rng.randint(7, 14), f"{rng.randint(1, 12)}:{rng.randint(10, 59)}"
        weather = (
            f'<div class="widget weather-widget"><h3>Wrenhaven today</h3>'
            f"<p>{temp}&deg;C, {rng.choice(SKIES)}. High tide {tide}</p></div>\n"
        )
    return f"""<aside class="sidebar">
<div class="widget most-read"><h3>Most read</h3>
<ol>
{items}
</ol></div>
{weather}<div class="widget newsletter"><h3>Get the Gazette in your inbox</h3>
<form action="/newsletter/subscribe" method="post">
<label for="nl-email">Email address</label>
<input type="email" id="nl-email" name="email" placeholder="you@example.com">
<button type="submit">Sign up</button>
</form>
<p class="small">We will never share your address. Unsubscribe at any time.</p></div>
<div class="ad ad-300x250">Advertisement</div>
</aside>"""


def render_footer(year: int, tpl: Template) -> str:
    cols = "\n".join(
        f'<div class="footer-col"><h4>{title}</h4><ul>'
        + "".join(f'<li><a href="{href}">{name}</a></li>' for name, href in links.items())
        + "</ul></div>"
        for title, links in tpl.footer_columns.items()
    )
    return f"""<footer>
<div class="footer-columns">
{cols}
</div>
<p class="legal">&copy; {year} Harbour Gazette Media Ltd. All rights reserved.
<a href="/privacy/">Privacy policy</a> <a href="/cookies/">Cookie policy</a>
<a href="/terms/">Terms of use</a></p>
</footer>
<div id="cookie-consent" class="cookie-banner" role="dialog">
<p>We use cookies to improve your experience and to show you relevant advertising.
<a href="/cookies/">Find out more</a></p>
<button class="accept">Accept all</button> <button class="reject">Reject non-essential</button>
</div>
<script src="/static/js/ads.js" async></script>
<script src="/static/js/site.js" defer></script>"""


def render_block(block: dict) -> str:
    kind = block["type"]
    if kind == "p":
        return f"<p>{inline(block['text'])}</p>"
    if kind == "h2":
        return f"<h2>{esc(block['text'])}</h2>"
    if kind == "quote":
        return f"<blockquote><p>{esc(block['text'])}</p></blockquote>"
    if kind == "ul":
        return "<ul>\n" + "\n".join(f"<li>{esc(i)}</li>" for i in block["items"]) + "\n</ul>"
    if kind == "table":
        head, *rows = block["rows"]
        out = [
            '<table class="data-table">',
            "<thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in head) + "</tr></thead>",
            "<tbody>",
        ]
        out += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows]
        return "\n".join([*out, "</tbody>", "</table>"])
    if kind == "figure":
        return (
            f'<figure><img src="{attr(block["src"])}" alt="{attr(block["alt"])}" width="640" '
            f'height="427" loading="lazy">\n'
            f"<figcaption>{esc(block['caption'])}</figcaption></figure>"
        )
    raise ValueError(f"unknown block type {kind!r}")


def gold_block(block: dict) -> list[str]:
    """Gold lines of one body block (figure captions are not gold)."""
    kind = block["type"]
    if kind in ("p", "h2", "quote"):
        return [plain(block["text"])]
    if kind == "ul":
        return list(block["items"])
    if kind == "table":
        return [cell for row in block["rows"] for cell in row]
    return []


def render_article(a: dict, rng: random.Random, related: list[dict], tpl: Template) -> str:
    hour, minute = rng.randint(6, 18), rng.choice([0, 15, 30, 45])
    stamp = f"{a['date']}T{hour:02d}:{minute:02d}:00Z"
    body = [render_block(b) for b in a["body"]]
    if len(body) >= 6 and rng.random() < 0.4:
        body.insert(3, '<div class="ad ad-728x90 ad-inarticle">Advertisement</div>')
    body_html = "\n".join(body)
    share = " ".join(
        f'<a href="/share/{t.lower()}?u={attr(article_path(a))}">Share on {t}</a>'
        for t in tpl.share_targets
    )
    tags = " ".join(f'<a href="/tags/{slugify(t)}/">{esc(t)}</a>' for t in a["tags"])
    rel = "\n".join(
        f'<li><a href="{article_path(r)}">{esc(r["headline"])}</a></li>' for r in related
    )
    comments = ""
    if a["comments"]:
        items = "\n".join(
            f'<div class="comment"><p class="comment-meta"><strong>{esc(c["name"])}</strong> '
            f'<span class="comment-time">{esc(c["when"])}</span></p>\n<p>{esc(c["text"])}</p>\n'
            '<a class="reply" href="#respond">Reply</a></div>'
            for c in a["comments"]
        )
        comments = (
            '\n<section class="comments" id="comments">'
            f"<h2>Comments ({len(a['comments'])})</h2>\n{items}\n"
            '<p><a href="/account/login/?next=comment">Log in to comment</a></p></section>'
        )
    author_slug = slugify(a["author"])
    return f"""<main id="content">
<article class="article" data-id="{a["id"]}">
<header class="article-header">
<h1 class="headline">{esc(a["headline"])}</h1>
<p class="byline">By <a href="/authors/{author_slug}/">{esc(a["author"])}</a>
<time datetime="{stamp}">{long_date(a["date"])}</time></p>
</header>
<div class="article-body">
<p class="lead">{inline(a["lead"])}</p>
{body_html}
</div>
<div class="share-bar">{share}</div>
<div class="tags"><span>Tags:</span> {tags}</div>
</article>
<section class="related"><h2>Related stories</h2>
<ul>
{rel}
</ul></section>{comments}
</main>"""


def render_section(s: dict, teasers: list[dict]) -> str:
    items = []
    for t in teasers:
        img = ""
        if t.get("image"):
            img = (
                f'<a class="teaser-img" href="{t["path"]}"><img src="{attr(t["image"])}" '
                'alt="" width="200" height="133"></a>\n'
            )
        items.append(
            f'<li class="teaser">\n{img}<h2 class="teaser-title">'
            f'<a href="{t["path"]}">{esc(t["headline"])}</a></h2>\n'
            f'<p class="teaser-summary">{esc(t["summary"])}</p>\n'
            f"<time>{long_date(t['date'])}</time>\n</li>"
        )
    body = "\n".join(items)
    return f"""<main id="content">
<section class="section-front">
<h1 class="section-title">{esc(s["name"])}</h1>
<ul class="teasers">
{body}
</ul>
<nav class="pagination"><a href="/{s["section"]}/?page=2">Older stories</a></nav>
</section>
</main>"""


def render_page(page: dict, rng: random.Random, main_html: str, tpl: Template) -> str:
    body_class = f"page-{page['page_type']} section-{page['section']}"
    year = date.fromisoformat(page["date"]).year
    return f"""<!DOCTYPE html>
<html lang="en-GB">
{render_head(page, tpl)}
<body class="{body_class}">
<a class="skip-link" href="#content">Skip to content</a>
{render_top(page, rng, tpl)}
<div class="layout">
{main_html}
{render_sidebar(page["id"], rng, tpl)}
</div>
{render_footer(year, tpl)}
</body>
</html>
"""


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
