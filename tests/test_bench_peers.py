"""Peer adapters: missing peers are skipped with a reason; installed ones extract the article;
the rs-trafilatura worker protocol survives a page error and a dying worker."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sitesift.bench import py312
from sitesift.bench.peers import PEERS, PeerUnavailable, fragment_text, load_peers

SENTENCE = "The harbour wall repairs will close the north quay to all traffic until the spring"
ARTICLE = f"""<html><head><title>Harbour wall repairs</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>
<article><h1>Harbour wall repairs close the north quay</h1>
<p>{SENTENCE}, the council said on Tuesday, after engineers found that the old stones had
been washed out by the winter storms and that the wall could no longer be trusted.</p>
<p>The work is expected to take four months, and the fishing boats that use the quay will be
moved to the south basin while it is done. The harbour master said that he was sorry for the
trouble this would cause, but that there was no other safe way of doing the repairs.</p>
<p>Residents who live near the quay have been told that the noise will be kept to the working
day, and that the road along the front will stay open for most of the time, with some
closures at night when the heavy machines have to be brought in and taken away again.</p>
</article><footer>Copyright Harbour Gazette. All rights reserved.</footer></body></html>"""
LOCAL_PEERS = sorted(p for p in PEERS if p != "rs-trafilatura")
MODULES = {"trafilatura": "trafilatura", "trafilatura-precision": "trafilatura",
           "resiliparse": "resiliparse", "readability-lxml": "readability",
           "justext": "justext", "boilerpy3": "boilerpy3", "goose3": "goose3",
           "html-text": "html_text"}


@pytest.mark.parametrize("name", LOCAL_PEERS, ids=LOCAL_PEERS)
def test_installed_peer_keeps_the_article(name: str) -> None:
    pytest.importorskip(MODULES[name], reason=f"{name} is not installed (sitesift[bench])")
    (peer,), skipped = load_peers([name])
    assert skipped == {}
    text, ms, cpu_ms = peer.run(ARTICLE, "https://harbour.example/news/wall")
    peer.close()
    assert SENTENCE in " ".join(text.split())
    assert ms > 0 and cpu_ms >= 0 and peer.version not in ("", "?")


@pytest.mark.parametrize("name", LOCAL_PEERS, ids=LOCAL_PEERS)
def test_missing_library_is_skipped_with_a_reason(name: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    module = MODULES[name]
    for loaded in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    peers, skipped = load_peers([name, "no-such-peer"])
    assert peers == []
    assert "not installed" in skipped[name] and "sitesift[bench]" in skipped[name]
    assert "unknown peer" in skipped["no-such-peer"]


@pytest.mark.parametrize(
    ("fragment", "text"),
    [("<div><p>end.</p><p>Next one</p></div>", "end.\nNext one"),
     ("<div>a<b>bold</b>word<br>after</div>", "aboldword\nafter"),
     ("<html><body></body></html>", ""), ("", "")],
    ids=["blocks-split", "inline-joins", "empty-body", "empty"],
)
def test_fragment_text_breaks_lines_at_blocks_only(fragment: str, text: str) -> None:
    pytest.importorskip("lxml", reason="readability's adapter needs lxml (sitesift[bench])")
    assert fragment_text(fragment) == text


def test_rs_trafilatura_is_skipped_without_python312(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(py312, "find_python312", lambda: None)
    peers, skipped = load_peers(["rs-trafilatura"])
    assert peers == [] and "3.12" in skipped["rs-trafilatura"]


FAKE_RS = '''
import os
__version__ = "9.9"

class Result:
    def __init__(self, text, page_type):
        self.main_content = text
        self.page_type = page_type

def classify_url(url):
    return ("forum", 0.9) if "/threads/" in url else ("article", None)

def extract(html, url=None, page_type=None):
    if "PANIC" in html:
        raise ValueError("bad page")
    if "DIE" in html:
        os._exit(3)
    return Result(html.upper() + " " + str(url), page_type or "article")
'''


@pytest.fixture
def fake_worker_python(tmp_path: Path) -> Path:
    """An 'interpreter' that runs the worker with a stand-in rs_trafilatura module."""
    (tmp_path / "rs_trafilatura.py").write_text(FAKE_RS)
    wrapper = tmp_path / "python"
    # drop the worker's -I so that PYTHONPATH finds the stand-in
    wrapper.write_text(f'#!/bin/sh\nshift\nPYTHONPATH="{tmp_path}" exec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def test_worker_protocol_errors_and_restart(fake_worker_python: Path) -> None:
    worker = py312.Worker(fake_worker_python)
    worker._spawn()
    try:
        assert worker.version == "9.9"
        text, ms, cpu_ms = worker.run("<p>héllo</p>", "https://x.example/")
        assert text == "<P>HÉLLO</P> https://x.example/" and ms >= 0 and cpu_ms >= 0
        with pytest.raises(RuntimeError, match="ValueError: bad page"):
            worker.run("PANIC", None)
        assert worker.run("still alive", None)[0] == "STILL ALIVE None"
        with pytest.raises(RuntimeError, match="exited with code 3"):
            worker.run("DIE", None)
        assert worker.run("restarted", None)[0] == "RESTARTED None"
    finally:
        worker.close()
    assert worker.proc is None


def test_worker_extracts_as_the_page_type_asked_for(fake_worker_python: Path) -> None:
    worker = py312.Worker(fake_worker_python)
    try:
        url = "https://x.example/threads/1"
        assert worker.typed("<p>a</p>", url) == (f"<P>A</P> {url}", "article")
        assert worker.typed("<p>a</p>", url, "product")[1] == "product"
        # "url": the type its URL heuristics give, not its classifier's
        assert worker.typed("<p>a</p>", url, "url")[1] == "forum"
        assert worker.typed("<p>a</p>", None, "url")[1] == "article"
    finally:
        worker.close()


def test_worker_reports_a_missing_module(tmp_path: Path) -> None:
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\nshift\nexec "{sys.executable}" -I "$@"\n')
    wrapper.chmod(0o755)
    with pytest.raises(PeerUnavailable, match="cannot import rs_trafilatura"):
        py312.Worker(wrapper)._spawn()
