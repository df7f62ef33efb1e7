"""The HTML of the sample site's pages: the site's template parts (head, top bar, sidebar,
footer) and the article and section bodies, from the data in ``articles.json``.

Used by ``make_sample.py`` beside it (run as a script: standard library only).
"""

from __future__ import annotations

import html
import json
import random
import re
import unicodedata
from dataclasses import dataclass
from datetime import date

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
