"""Comments kept apart (issue 55, deliverable 7): `comments=separate` writes the main text
without the page's comment section and the comments in a field of their own (`Result.comments`,
`to_dict`, clean's JSON, the crawl's record), with the text's structure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sitesift
from sitesift.cli import main
from sitesift.datasets import load_page, read_gold, read_index
from sitesift.errors import SettingsError
from sitesift.io.records import RESULT_FIELDS
from sitesift.metrics import token_prf
from tests.conftest import refused, shared_dataset

STORY = ("The council met on Tuesday to discuss the harbour budget, which has been delayed for "
         "the third time this year, and the fishermen's association asked for a public hearing.")
BLOG = f"""<html><head><title>Budget delayed</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>
<article><h1>Budget delayed again</h1><p>{STORY}</p><p>{STORY}</p><p>{STORY}</p></article>
<div id="comments"><h3>2 Comments</h3><ol class="commentlist">
<li class="comment"><div class="comment-author">Ann says:</div><p>This is the <em>third</em>
delay, and nobody on the council seems to care about the harbour at all.</p>
<a class="comment-reply-link" href="#">Reply</a></li>
<li class="comment"><div class="comment-author">Bob says:</div><p>Agreed. The fishermen
deserve better than another year of waiting for the new quay.</p></li></ol>
<div id="respond"><h3>Leave a Reply</h3><form><label>Name</label><input name="n">
<textarea></textarea><button>Post Comment</button></form></div></div>
<footer>Copyright 2024 Harbour news</footer></body></html>"""


def test_separate_keeps_the_comments_apart_from_the_text() -> None:
    auto = sitesift.clean(BLOG)
    apart = sitesift.clean(BLOG, comments="separate")
    dropped = sitesift.clean(BLOG, comments="drop")
    assert apart.text == dropped.text
    assert "Ann says" not in apart.text and STORY in apart.text
    assert auto.comments is None and dropped.comments is None
    assert auto.to_dict()["comments"] is None
    # the comments with the text's structure: the list, the emphasis in markdown; the reply
    # link and the reply form are no one's comment
    assert apart.comments == (
        "2 Comments\n\n1. Ann says:\n\n   This is the third delay, and nobody on the council "
        "seems to care about the harbour at all.\n2. Bob says:\n\n   Agreed. The fishermen "
        "deserve better than another year of waiting for the new quay.")
    assert apart.comments_markdown is not None
    assert apart.comments_markdown.startswith("### 2 Comments\n\n1. Ann says:")
    assert "This is the *third* delay" in apart.comments_markdown
    assert apart.to_dict()["comments"] == apart.comments
    # each comment block says why it is out of the text
    reasons = {b.reason.split(", ")[-1] for b in apart.blocks if "Bob says" in b.text}
    assert reasons == {"comments=separate"}
    # a page without comments: an empty field, not a missing one
    alone = sitesift.clean(f"<html><body><article><p>{STORY}</p></article></body></html>",
                           comments="separate")
    assert alone.comments == ""


def test_clean_json_and_the_crawl_record_hold_the_comments(tmp_path: Path) -> None:
    page = tmp_path / "blog.html"
    page.write_text(BLOG, encoding="utf-8")
    out = tmp_path / "blog.json"
    assert main(["clean", str(page), "--format", "json", "--set", "comments=separate",
                 "-o", str(out)]) == 0
    record = json.loads(out.read_text("utf-8"))
    assert "Bob says" in record["comments"] and "Bob says" not in record["text"]

    from sitesift.crawl import run_crawl
    from sitesift.io.sinks import result_schema
    from sitesift.jobs.run import RunSettings
    from sitesift.sitework import CrawlConfig

    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "blog.html").write_text(BLOG, encoding="utf-8")
    for params, markdown in (({"comments": "separate"}, True), ({}, False)):
        crawl_out = tmp_path / f"crawl-{bool(params)}"
        run_crawl([str(pages)], crawl_out, CrawlConfig(params=params, markdown=markdown),
                  run=RunSettings(1))
        (rec,) = [json.loads(line) for line in
                  (crawl_out / "results.jsonl").read_text("utf-8").splitlines()]
        assert list(rec) == list(RESULT_FIELDS)
        if params:
            assert "Ann says:" in rec["comments"] and "Ann says" not in rec["text"]
            assert "*third*" in rec["comments_markdown"]
        else:
            assert rec["comments"] is None and rec["comments_markdown"] is None
    schema = result_schema()
    assert str(schema.field("comments").type) == "string"
    assert str(schema.field("comments_markdown").type) == "string"


def test_a_bad_comments_value_is_refused_before_any_work(tmp_path: Path) -> None:
    refusal = "comments must be one of stories, auto, drop, separate"
    with pytest.raises(SettingsError, match=refusal):
        sitesift.clean(BLOG, comments="apart")
    page = tmp_path / "blog.html"
    page.write_text(BLOG, encoding="utf-8")
    out = tmp_path / "out"
    refused(["clean", str(page), "--set", "comments=apart", "-o", str(out)],
            refusal)
    assert not out.exists()
    refused(["crawl", str(tmp_path), "--set", "comments=keep", "--out", str(tmp_path / "c")],
            refusal)
    # a method without the switch refuses it too
    with pytest.raises(SettingsError, match="comments"):
        sitesift.clean(BLOG, method="alltext", comments="separate")


def test_dragnet_pages_comments_apart_match_its_comment_gold() -> None:
    # dragnet's gold keeps a page's reader comments apart (gold/<id>.comments.json): on its
    # first ten pages with comments, the field holds them and the text keeps its score
    root = shared_dataset("dragnet")
    rows = [r for r in read_index(root) if r.get("has_comments")][:10]
    scores, text_auto, text_apart = [], [], []
    for row in rows:
        page = load_page(root, row)
        gold = read_gold(root, row["id"]) or ""
        comments_gold = json.loads((root / "gold" / f"{row['id']}.comments.json")
                                   .read_text("utf-8"))["comments"]
        apart = sitesift.clean(page, comments="separate")
        assert apart.comments is not None
        scores.append(token_prf(apart.comments, comments_gold).f1)
        text_auto.append(token_prf(sitesift.clean(page).text, gold).f1)
        text_apart.append(token_prf(apart.text, gold).f1)
    assert sum(s > 0.5 for s in scores) >= 6, scores
    assert sum(text_apart) >= sum(text_auto) - 0.05 * len(rows)


def test_a_page_declaring_a_story_loses_its_comment_section_by_default() -> None:
    # the default (`comments=stories`) drops the comment section of a page that declares a
    # story whatever the model says, and names the switch in each block's reason
    story = BLOG.replace("<title>", "<meta property='og:type' content='article'><title>")
    default = sitesift.clean(story)
    assert default.text == sitesift.clean(story, comments="drop").text
    assert STORY in default.text and "Ann says" not in default.text
    assert all(b.reason.endswith("comments=drop") for b in default.blocks
               if "Bob says" in b.text or "Agreed" in b.text)
    # a page declaring no story, or a forum thread declaring one: the model's call
    undeclared = sitesift.clean(BLOG)
    assert undeclared.text == sitesift.clean(BLOG, comments="auto").text
    assert not any("comments=" in b.reason for b in undeclared.blocks)
    thread = "https://forums.example.com/threads/budget-delayed.1/"
    posts = sitesift.clean(story, url=thread)
    assert not any("comments=" in b.reason for b in posts.blocks)
