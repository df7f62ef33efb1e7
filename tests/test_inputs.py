"""One listing of inputs (`sitesift.io.listing`) for every command: the same folder or
dataset folder yields the same pages, ids and URLs through `clean` (`collect_sources`, its
`Source`s) and the crawl (`read_input`, its records by position)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from sitesift.cli import main
from sitesift.errors import InputError
from sitesift.inputs import collect_sources
from sitesift.io.listing import input_kind, list_pages
from sitesift.io.records import PageRecord
from sitesift.io.sources import read_input

WORDS = "Words of an ordinary page, written to be read by people. " * 12


def page(text: str, url: str | None = None, how: str = "canonical") -> str:
    head = ""
    if url and how == "canonical":
        head = f'<link rel="canonical" href="{url}">'
    elif url:
        head = f'<meta property="og:url" content="{url}">'
    return (f"<html><head><title>{text}</title>{head}</head>"
            f"<body><p>{text}. {WORDS}</p></body></html>")


def tree(root: Path) -> Path:
    """Nested folders, a gzip page, a page with a saved HTTP header, two pages of one name, a
    file that is no page, and a dataset folder inside (read as page files: the folder is
    what was given)."""
    (root / "news" / "2024").mkdir(parents=True)
    (root / "a.html").write_text(page("alpha", "http://x.example/a"))
    (root / "news" / "a.html").write_text(page("alpha two", "http://x.example/news/a", "og"))
    (root / "news" / "b.html.gz").write_bytes(
        gzip.compress(page("beta", "http://y.example/b").encode()))
    (root / "news" / "2024" / "c.htm").write_text(page("gamma"))
    (root / "news" / "2024" / "d.html").write_bytes(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=latin-1\r\n\r\n"
        + page("d\xe9lta", "http://x.example/d").encode("latin-1"))
    (root / "notes.txt").write_text("not a page")
    (root / "news" / "data.json").write_text("{}")
    corpus = dataset(root / "corpus")
    assert input_kind(corpus) == "dataset"
    return root


def dataset(root: Path) -> Path:
    (root / "pages").mkdir(parents=True)
    rows = [{"id": "p1", "url": "http://z.example/1", "site": "z.example"},
            {"id": "p2", "url": "http://z.example/2", "site": "z.example"}]
    (root / "pages" / "p1.html").write_text(page("one"))
    (root / "pages" / "p2.html.gz").write_bytes(gzip.compress(page("two").encode()))
    (root / "index.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows) + "{bad line\n", encoding="utf-8")
    return root


EXPECTED = [  # (id, file under the tree, URL): path order; the second a.html by its path
    ("a", "a.html", "http://x.example/a"),
    ("p1", "corpus/pages/p1.html", None),
    ("p2", "corpus/pages/p2.html.gz", None),
    ("c", "news/2024/c.htm", None),
    ("d", "news/2024/d.html", "http://x.example/d"),
    ("news/a.html", "news/a.html", "http://x.example/news/a"),
    ("b", "news/b.html.gz", "http://y.example/b"),
]


def test_a_folder_lists_its_pages_by_one_rule(tmp_path: Path) -> None:
    root = tree(tmp_path / "t")
    listed = [(e.id, str(e.file.relative_to(root)) if e.file else None, e.url)
              for e in list_pages(root)]
    assert listed == EXPECTED


def test_clean_and_crawl_read_a_folder_as_the_same_pages_ids_and_urls(tmp_path: Path) -> None:
    root = tree(tmp_path / "t")
    sources = [s for group in collect_sources(root, "site").values() for s in group]
    by_clean = sorted((s.id, s.path, s.row["url"]) for s in sources)
    items = list(read_input(str(root), 0, 1 << 20))
    assert all(isinstance(i, PageRecord) for i in items)
    ids = [e.id for e in list_pages(root)]  # the crawl keeps a page by its position
    by_crawl = sorted((ids[i.position], i.input, i.url) for i in items)
    assert by_clean == by_crawl == sorted(
        (pid, str(root / name), url) for pid, name, url in EXPECTED)
    # the grouping of `none` reads the same URLs (it used to skip them)
    assert sorted((s.id, s.row["url"]) for g in collect_sources(root, "none").values()
                  for s in g) == sorted((pid, url) for pid, _, url in EXPECTED)
    # and the pages hold the same bytes, the saved HTTP header dropped by both
    record = next(i for i in items if isinstance(i, PageRecord) and i.input.endswith("d.html"))
    assert record.content_type == "text/html; charset=latin-1"
    assert not record.body.startswith(b"HTTP/")
    assert "d\u00e9lta" in next(s for s in sources if s.id == "d").load().html


def test_clean_and_crawl_commands_clean_the_same_pages_of_a_folder(tmp_path: Path) -> None:
    root = tree(tmp_path / "t")
    common = ["--method", "alltext", "--quiet", "--workers", "1"]
    assert main(["clean", str(root), "--out", str(tmp_path / "c"), *common]) == 0
    assert main(["crawl", str(root), "--out", str(tmp_path / "w"), *common]) == 0
    manifest = [json.loads(line) for line in
                (tmp_path / "c" / "manifest.jsonl").read_text().splitlines()]
    cleaned = {m["path"]: (m["id"], (tmp_path / "c" / m["file"]).read_text().strip())
               for m in manifest}
    ids = [e.id for e in list_pages(root)]
    results = [json.loads(line) for line in
               (tmp_path / "w" / "results.jsonl").read_text().splitlines()]
    crawled = {r["input"]: (ids[r["position"]], r["text"].strip()) for r in results}
    assert cleaned == crawled and len(cleaned) == len(EXPECTED)


def test_clean_and_crawl_read_a_dataset_folder_as_the_same_rows(tmp_path: Path) -> None:
    root = dataset(tmp_path / "ds")
    sources = [s for group in collect_sources(root, "site").values() for s in group]
    items = list(read_input(str(root), 0, 1 << 20))
    assert [(s.id, s.row.get("url"), s.error is not None) for s in sources] == [
        ("p1", "http://z.example/1", False), ("p2", "http://z.example/2", False),
        ("index.jsonl:3", None, True)]
    assert [(i.position, i.url, isinstance(i, PageRecord)) for i in items] == [
        (0, "http://z.example/1", True), (1, "http://z.example/2", True), (2, None, False)]
    assert [e.id for e in list_pages(root)] == [s.id for s in sources]
    assert [s.load().html for s in sources[:2]] == [
        i.body.decode() for i in items if isinstance(i, PageRecord)]


@pytest.mark.parametrize("name", ["pages.jsonl", "crawl.warc.gz"])
def test_clean_refuses_the_crawls_inputs_rather_than_misread_them(
        tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b'{"url": "http://a.example/", "html": "<p>a</p>"}\n')
    with pytest.raises(InputError, match="sitesift crawl"):
        collect_sources(path, "site")
