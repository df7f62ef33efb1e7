"""Generate the bundled second sample site, "The Carrow Courier" (carrowcourier.example), for
`sitesift articles`: the island paper across the water from the sample site's Harbour Gazette.
It reprints three of the Gazette's stories (hg-003, hg-008, hg-012, from
``../sample_site/articles.json``) under its own template, beside four stories of its own, so
the same article is on two sites with different templates.

Writes ``pages/<id>.html`` and ``index.jsonl`` beside this file (`reprint_of` names the
Gazette page a reprint copies). Deterministic, standard library only: a rerun writes
byte-identical files. Every story, name and template string here is invented for sitesift
(CC0-1.0, as the sample site); the domain uses the reserved ``.example`` TLD.
Run: ``python make_courier.py`` (from any directory).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
SITE = "carrowcourier.example"
BASE = f"https://www.{SITE}"
REPRINTS = ("hg-003", "hg-008", "hg-012")
LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")

NAV = ["Island News", "Ferries", "Farming", "Schools", "Sport", "What's On", "Letters",
       "Notices", "Contact the Courier"]
FOOTER = ("The Carrow Courier is published every Thursday from the Old Forge, Portcarrow, "
          "Isle of Carrow. News tips to the newsdesk; adverts and notices to the front office. "
          "Copyright The Carrow Courier. Printed on recycled paper.")
NOTICE = "Tide tables, ferry times and church notices are in this week's printed Courier."

OWN: list[dict[str, Any]] = [
    {"id": "cc-001", "slug": "island-school-new-roof", "headline":
     "Portcarrow school gets a new roof before the autumn term",
     "lead": "Builders finished the new slate roof on Portcarrow Primary School on Friday, two "
             "weeks ahead of schedule and in time for pupils to return in September.",
     "body": ["The old roof had leaked in three classrooms during the winter storms, and "
              "lessons were moved into the village hall for much of February.",
              "Head teacher Morwenna Hext thanked parents for their patience. \"The children "
              "coped brilliantly, but it will be a relief to have every room back,\" she said.",
              "The work was paid for by the island council's repairs fund, with a grant from "
              "a local charitable trust towards new insulation in the loft."]},
    {"id": "cc-002", "slug": "sheep-show-record-entries", "headline":
     "Record entries for the Carrow sheep show",
     "lead": "More than two hundred sheep from fourteen island farms were shown at the annual "
             "Carrow agricultural show on Saturday, the largest entry in its history.",
     "body": ["The champion ewe came from Trenowe Farm at the north end of the island, where "
              "the Pascoe family have kept sheep for four generations.",
              "Judges praised the quality of the young stock. Show secretary Bryony Pascoe, no "
              "relation, said the fine weather had brought out visitors from the mainland too.",
              "The show also held sheepdog trials, a craft tent and a baking competition, won "
              "this year by a nine-year-old with a lemon sponge."]},
    {"id": "cc-003", "slug": "lighthouse-open-day", "headline":
     "Carrow Head lighthouse opens its doors for one day",
     "lead": "Visitors will be able to climb the 112 steps of Carrow Head lighthouse on Sunday "
             "10 June, the first open day since the light was automated.",
     "body": ["Guided tours run every half hour from ten in the morning, and places are "
              "limited to twelve people a tour, so booking is advised.",
              "Former keeper Alfie Jago, now 84, will be at the foot of the tower to talk about "
              "his years on the light and the night of the great storm in 1979.",
              "Stout shoes are recommended; the path from the car park is steep and can be "
              "muddy after rain."]},
    {"id": "cc-004", "slug": "island-shop-community-ownership", "headline":
     "Islanders vote to buy the village shop",
     "lead": "Residents of Portcarrow have voted to buy the island's only shop and run it as a "
             "community business after its owners announced their retirement.",
     "body": ["More than three hundred people bought shares at a public meeting in the "
              "village hall, raising enough for a deposit on the building and its stock.",
              "The shop will keep its post office counter and its opening hours, and the "
              "current staff have been offered jobs with the new company.",
              "\"Without the shop, the island would lose its heart,\" said Kenver Rowe, who "
              "chairs the steering group. \"This way it belongs to all of us.\""]},
]


class Story(NamedTuple):
    id: str
    slug: str
    headline: str
    lead: str
    body: list[str]
    credit: str
    reprint_of: str | None


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def inline(text: str) -> str:
    """The Gazette's `[label](href)` link markup as plain text (the Courier drops the links)."""
    return esc(LINK_RE.sub(r"\1", text))


def gazette_blocks(a: dict) -> list[str]:
    """A Gazette article's body, as the Courier prints it."""
    out = []
    for block in a["body"]:
        kind = block["type"]
        if kind == "p":
            out.append(f"<p>{inline(block['text'])}</p>")
        elif kind == "h2":
            out.append(f"<h3>{esc(block['text'])}</h3>")
        elif kind == "quote":
            out.append(f"<p>&ldquo;{esc(block['text'])}&rdquo;</p>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in block["items"]) + "</ul>")
        elif kind == "table":
            rows = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>"
                           for r in block["rows"])
            out.append(f"<table>{rows}</table>")
    return out


def page(headline: str, lead: str, body: list[str], credit: str, others: list[str]) -> str:
    """A Courier page: masthead, menu, notice, the story, a list of other stories, footer."""
    nav = "\n".join(f'<li><a href="/{i}/">{esc(label)}</a></li>' for i, label in enumerate(NAV))
    more = "\n".join(f"<li>{esc(h)}</li>" for h in others)
    story = "\n".join(body)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(headline)} - The Carrow Courier</title>
</head><body>
<div id="masthead"><span class="title">The Carrow Courier</span>
<span class="motto">The island's own paper since 1921</span></div>
<div id="menu"><ul>
{nav}
</ul></div>
<div class="notice">{esc(NOTICE)}</div>
<div id="story">
<h2>{esc(headline)}</h2>
<p class="credit">{esc(credit)}</p>
<p><b>{inline(lead)}</b></p>
{story}
</div>
<div id="more"><h4>More from this week's Courier</h4><ul>
{more}
</ul></div>
<div id="foot">{esc(FOOTER)}</div>
</body></html>
"""


def main() -> None:
    gazette = json.loads((HERE.parent / "sample_site" / "articles.json").read_text("utf-8"))
    by_id = {a["id"]: a for a in gazette["articles"]}
    stories = [Story(s["id"], s["slug"], s["headline"], s["lead"],
                     [f"<p>{esc(p)}</p>" for p in s["body"]], "By the Courier newsdesk", None)
               for s in OWN]
    for n, gid in enumerate(REPRINTS, len(OWN) + 1):
        a = by_id[gid]
        stories.append(Story(f"cc-{n:03d}", a["slug"], a["headline"], a["lead"],
                             gazette_blocks(a),
                             f"By {a['author']}, reprinted from The Harbour Gazette", gid))
    stories.sort(key=lambda s: s.id)
    pages = HERE / "pages"
    pages.mkdir(exist_ok=True)
    for old in pages.glob("*.html"):
        old.unlink()
    rows = []
    for i, story in enumerate(stories):
        others = [s.headline for s in stories if s.id != story.id][i % 3:][:3]
        (pages / f"{story.id}.html").write_text(
            page(story.headline, story.lead, story.body, story.credit, others), encoding="utf-8")
        row = {"id": story.id, "url": f"{BASE}/news/{story.slug}", "site": SITE,
               "host": f"www.{SITE}", "host_how": "source", "page_type": "article"}
        if story.reprint_of:
            row["reprint_of"] = story.reprint_of
        rows.append(row)
    with open(HERE / "index.jsonl", "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    print(f"wrote {len(rows)} pages to {pages}")


if __name__ == "__main__":
    main()
