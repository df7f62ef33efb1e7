"""Metadata from the page's own declarations (`sitesift.metadata`, issue 29): one snippet per
source, broken declarations ignored, and the ways out: `clean(metadata=True)`, the CLI's
`--metadata` JSON and `--front-matter` markdown."""

from __future__ import annotations

import json
import subprocess
import sys

import sitesift
from sitesift.metadata import Metadata, extract_metadata
from sitesift.result import Result

BODY = ("<body><article><p>The fishing boats of the small harbour sailed at dawn, as they "
        "have every morning for a hundred years, and came back with a full catch before "
        "noon.</p></article></body>")


def _page(head: str, body: str = BODY, html_attrs: str = "") -> str:
    return f"<!DOCTYPE html><html{html_attrs}><head>{head}</head>{body}</html>"


def test_json_ld_graph_gives_headline_author_date_and_site() -> None:
    ld = {"@context": "https://schema.org", "@graph": [
        {"@type": "WebSite", "name": "Harbour Gazette"},
        {"@type": "NewsArticle", "headline": "Boats sail at dawn",
         "author": {"@type": "Person", "name": "Mary Shore"},
         "datePublished": "2024-03-05T08:00:00+00:00", "inLanguage": "en",
         "description": "Dawn at the harbour."},
    ]}
    meta = extract_metadata(_page(
        f'<script type="application/ld+json">{json.dumps(ld)}</script>'))
    assert meta.title == "Boats sail at dawn"
    assert meta.author == "Mary Shore"
    assert meta.date == "2024-03-05"
    assert meta.sitename == "Harbour Gazette"
    assert meta.language == "en"
    assert meta.description == "Dawn at the harbour."


def test_json_ld_nested_author_list_is_joined() -> None:
    ld = [{"@type": "BlogPosting", "headline": "Two hands",
           "author": [{"@type": "Person", "name": "Ann Lee"},
                      {"@type": "Person", "givenName": "Bo", "familyName": "Chen"},
                      "Cy Dunn"]}]
    meta = extract_metadata(_page(
        f'<script type="application/ld+json">{json.dumps(ld)}</script>'))
    assert meta.author == "Ann Lee, Bo Chen, Cy Dunn"


def test_open_graph_tags() -> None:
    meta = extract_metadata(_page(
        '<meta property="og:title" content="Boats sail at dawn">'
        '<meta property="og:site_name" content="Harbour Gazette">'
        '<meta property="og:description" content="Dawn &amp; the harbour.">'
        '<meta property="og:url" content="https://gazette.example/boats">'
        '<meta property="og:locale" content="en_GB">'
        '<meta property="article:published_time" content="2023-11-02T10:00:00Z">'))
    assert meta.title == "Boats sail at dawn"
    assert meta.sitename == "Harbour Gazette"
    assert meta.description == "Dawn & the harbour."
    assert meta.canonical_url == "https://gazette.example/boats"
    assert meta.language == "en-GB"
    assert meta.date == "2023-11-02"


def test_meta_author_and_citation_tags() -> None:
    assert extract_metadata(_page('<meta name="author" content="By Mary Shore">')
                            ).author == "Mary Shore"
    meta = extract_metadata(_page('<meta name="citation_title" content="On Tides">'
                                  '<meta name="citation_author" content="Shore, Mary">'
                                  '<meta name="citation_publication_date" content="2019/05/04">'))
    assert meta.title == "On Tides"
    assert meta.author == "Shore, Mary"
    assert meta.date == "2019-05-04"
    # a profile URL is not a name
    assert extract_metadata(_page(
        '<meta property="article:author" content="https://facebook.com/someone">')
    ).author is None


def test_time_datetime_is_found_by_htmldate() -> None:
    body = ('<body><article><h1>Boats</h1><p>Published <time datetime="2022-07-14">'
            'July 14</time></p><p>The fishing boats sailed at dawn.</p></article></body>')
    assert extract_metadata(_page("<title>Boats</title>", body)).date == "2022-07-14"
    assert extract_metadata(_page("<title>Boats</title>", body), fast_dates=True
                            ).date == "2022-07-14"


def test_html_lang_and_canonical_link_resolved_against_the_url() -> None:
    meta = extract_metadata(_page('<link rel="canonical" href="/boats?x=1">',
                                  html_attrs=' lang="de-AT"'),
                            url="https://gazette.example/news/boats")
    assert meta.language == "de-AT"
    assert meta.canonical_url == "https://gazette.example/boats?x=1"
    # no canonical link: the URL the page came from
    assert extract_metadata(_page(""), url="https://gazette.example/a").canonical_url == (
        "https://gazette.example/a")
    assert extract_metadata(_page('<link rel="canonical" href="javascript:x()">')
                            ).canonical_url is None


def test_title_suffix_with_the_site_name_is_stripped() -> None:
    site = '<meta property="og:site_name" content="Harbour Gazette">'
    for title in ("Boats sail at dawn | Harbour Gazette", "Boats sail at dawn - Harbour Gazette",
                  "Harbour Gazette | Boats sail at dawn"):
        assert extract_metadata(_page(f"<title>{title}</title>{site}")).title == (
            "Boats sail at dawn")
    # an unknown site name: the part the headline repeats
    body = "<body><h1>Boats sail at dawn</h1><p>text</p></body>"
    assert extract_metadata(_page("<title>Boats sail at dawn | Gazette</title>", body)
                            ).title == "Boats sail at dawn"
    # a dash inside the title is kept
    assert extract_metadata(_page("<title>Pre-dawn boats - a story</title>")).title == (
        "Pre-dawn boats - a story")


def test_first_h1_is_the_last_resort_for_the_title() -> None:
    assert extract_metadata(_page("", "<body><h1>Boats <em>at</em> dawn</h1></body>")
                            ).title == "Boats at dawn"


def test_broken_declarations_are_ignored_never_raised() -> None:
    head = ('<script type="application/ld+json">{"@type": "Article", "headline": </script>'
            '<script type="application/ld+json">{"@type": "Article", "author": 42, '
            '"datePublished": "2024-13-45", "headline": ["Boats"]}</script>'
            '<meta name="author" content="Mary Shore">'
            '<meta property="article:published_time" content="0000-00-00">'
            "<title>Boats</title>")
    meta = extract_metadata(_page(head))
    assert meta.title == "Boats"
    assert meta.author == "Mary Shore"
    assert meta.date is None or meta.date[:2] in {"19", "20"}
    for html in ("", "<", "<html>", "\x00\x00", "<script type='application/ld+json'>[[[["):
        assert isinstance(extract_metadata(html), Metadata)
    assert extract_metadata("").to_dict() == dict.fromkeys(
        ("title", "author", "date", "sitename", "language", "canonical_url", "description"))


PAGE = _page('<title>Boats sail at dawn | Harbour Gazette</title>'
             '<meta property="og:site_name" content="Harbour Gazette">'
             '<meta name="author" content="Mary Shore">'
             '<meta name="description" content="Dawn: boats # and &quot;nets&quot;">'
             '<meta property="article:published_time" content="2024-03-05">',
             "<body><nav><a href='/'>Home</a></nav><article><h1>Boats sail at dawn</h1>"
             "<p>The fishing boats of the small harbour sailed at dawn, as they have every "
             "morning for a hundred years, and came back with a full catch before noon.</p>"
             "<p>The harbour master said the season was the best in a decade.</p></article>"
             "</body>", ' lang="en"')
EXPECTED = {"title": "Boats sail at dawn", "author": "Mary Shore", "date": "2024-03-05",
            "sitename": "Harbour Gazette", "language": "en"}


def test_clean_with_metadata_puts_it_in_meta() -> None:
    result = sitesift.clean(PAGE, metadata=True, url="https://gazette.example/boats")
    got = result.meta["metadata"]
    assert {k: got[k] for k in EXPECTED} == EXPECTED
    assert got["canonical_url"] == "https://gazette.example/boats"
    assert "metadata" not in sitesift.clean(PAGE).meta  # opt-in


def test_front_matter_is_quoted_yaml_ahead_of_the_markdown() -> None:
    result = sitesift.clean(PAGE, metadata=True)
    text = result.markdown(front_matter=True)
    assert text.startswith("---\ntitle: \"Boats sail at dawn\"\n")
    head, _, body = text[4:].partition("\n---\n")
    assert 'description: "Dawn: boats # and \\"nets\\""' in head.splitlines()
    assert body.lstrip("\n") == result.markdown()
    odd = Result([], "default", meta={"metadata": {"title": 'a\n---\nb: "c" \\ d\x07'}})
    assert odd.front_matter().splitlines()[1] == 'title: "a\\n---\\nb: \\"c\\" \\\\ d\\u0007"'


def _run(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "sitesift", *args], input=stdin,
                          capture_output=True, timeout=120, check=False)


def test_cli_metadata_json_and_front_matter_markdown(tmp_path: object) -> None:
    proc = _run("clean", "-", "--format", "json", "--metadata", stdin=PAGE.encode())
    assert proc.returncode == 0, proc.stderr.decode()
    got = json.loads(proc.stdout)["meta"]["metadata"]
    assert {k: got[k] for k in EXPECTED} == EXPECTED
    proc = _run("clean", "-", "--format", "markdown", "--front-matter", stdin=PAGE.encode())
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    assert text.startswith("---\n") and 'author: "Mary Shore"' in text
    assert "\n---\n\n# Boats sail at dawn" in text
    proc = _run("clean", "-", "--front-matter", stdin=PAGE.encode())
    assert proc.returncode == 2 and b"--front-matter" in proc.stderr


def test_cli_metadata_for_every_page_of_a_batch(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    pages = folder / "pages"
    pages.mkdir()
    for name in ("a", "b"):
        (pages / f"{name}.html").write_text(PAGE, encoding="utf-8")
    out = folder / "out"
    proc = subprocess.run([sys.executable, "-m", "sitesift", "clean", str(pages), "-o", str(out),
                           "--format", "json", "--metadata", "--workers", "2", "-q"],
                          capture_output=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    files = sorted(out.glob("*.json"))
    assert len(files) == 2
    for path in files:
        got = json.loads(path.read_text(encoding="utf-8"))["meta"]["metadata"]
        assert got["author"] == "Mary Shore" and got["date"] == "2024-03-05"


def test_importing_sitesift_does_not_import_htmldate() -> None:
    code = "import sitesift, sitesift.metadata, sys; print('htmldate' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out.strip() == "False"
