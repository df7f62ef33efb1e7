"""The peers `sitesift bench` compares against: one small adapter each.

Every adapter gets the same decoded page (`str`, decoded by sitesift's decoder) and the
page's URL, and returns plain text. Peers are optional (`pip install sitesift[bench]`):
each library is imported only when its adapter is built, and a missing one raises
`PeerUnavailable` with the reason, which the harness reports as skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from sitesift.bench.unavailable import PeerUnavailable
from sitesift.timing import Stopwatch

__all__ = ["PEERS", "Peer", "PeerUnavailable", "load_peers"]

Extract = Callable[[str, str | None], str]


def _noop() -> None:
    pass


@dataclass
class Peer:
    name: str
    version: str
    extract: Extract
    close: Callable[[], None] = field(default=_noop)
    # Peers in another process time their own call there, so IPC is not counted.
    timed: Callable[[str, str | None], tuple[str, float, float]] | None = None

    def run(self, html: str, url: str | None) -> tuple[str, float, float]:
        """(text, wall ms, CPU ms of the peer's own call). Exceptions propagate: the caller
        records them."""
        if self.timed is not None:
            return self.timed(html, url)
        watch = Stopwatch()
        text = self.extract(html, url)
        return text or "", watch.ms, watch.cpu_ms


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def _need(module: str, dist: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise PeerUnavailable(f"{dist} is not installed ({exc}); "
                              "pip install 'sitesift[bench]'") from None


def trafilatura(precision: bool = False) -> Peer:
    traf = _need("trafilatura", "trafilatura")

    def extract(html: str, url: str | None) -> str:
        return traf.extract(html, url=url, favor_precision=precision) or ""

    name = "trafilatura-precision" if precision else "trafilatura"
    return Peer(name, _version("trafilatura"), extract)


def resiliparse() -> Peer:
    mod = _need("resiliparse.extract.html2text", "resiliparse")

    def extract(html: str, url: str | None) -> str:
        return str(mod.extract_plain_text(html, main_content=True))

    return Peer("resiliparse", _version("resiliparse"), extract)


# Block-level tags whose boundaries become line breaks when readability's HTML is made text;
# without them "end.</p><p>Next" would run words of adjacent blocks together.
_BLOCKS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 "
    "h5 h6 header hr li main nav ol p pre section table td th tr ul".split())


def fragment_text(fragment: str) -> str:
    """Visible text of an HTML fragment, one line per block."""
    import lxml.html

    if not fragment.strip():
        return ""
    root = lxml.html.fromstring(fragment)
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag in _BLOCKS:
            el.text = "\n" + (el.text or "")
            el.tail = "\n" + (el.tail or "")
    lines = (" ".join(line.split()) for line in root.text_content().splitlines())
    return "\n".join(line for line in lines if line)


def readability() -> Peer:
    mod = _need("readability", "readability-lxml")

    def extract(html: str, url: str | None) -> str:
        return fragment_text(mod.Document(html, url=url).summary())

    return Peer("readability-lxml", _version("readability-lxml"), extract)


def justext() -> Peer:
    mod = _need("justext", "justext")
    stoplist = mod.get_stoplist("English")

    def extract(html: str, url: str | None) -> str:
        paragraphs = mod.justext(html, stoplist)
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return Peer("justext", _version("justext"), extract)


def boilerpy3() -> Peer:
    import logging

    mod = _need("boilerpy3.extractors", "boilerpy3")
    # It logs a warning (nested <a>) or a traceback (below) on many pages: not our output.
    logging.getLogger("boilerpy3").setLevel(logging.CRITICAL)
    # Its HTML parser trips over some stray end tags (IndexError) and by default then raises,
    # though the blocks read up to there extract fine (dragnet: 4% of pages, F1 ~0.9 each).
    extractor = mod.ArticleExtractor(raise_on_failure=False)

    def extract(html: str, url: str | None) -> str:
        return str(extractor.get_content(html))

    return Peer("boilerpy3", _version("boilerpy3"), extract)


def goose3() -> Peer:
    mod = _need("goose3", "goose3")
    # Never give goose a URL (it would fetch it) and never let it fetch images.
    goose = mod.Goose({"enable_image_fetching": False})

    def extract(html: str, url: str | None) -> str:
        return str(goose.extract(raw_html=html).cleaned_text or "")

    return Peer("goose3", _version("goose3"), extract, close=goose.close)


def html_text() -> Peer:
    mod = _need("html_text", "html-text")

    def extract(html: str, url: str | None) -> str:
        return str(mod.extract_text(html))

    return Peer("html-text", _version("html-text"), extract)


def rs_trafilatura() -> Peer:
    from sitesift.bench.py312 import Worker

    worker = Worker.start()
    return Peer("rs-trafilatura", worker.version, lambda html, url: worker.run(html, url)[0],
                close=worker.close, timed=worker.run)


PEERS: dict[str, Callable[[], Peer]] = {
    "trafilatura": trafilatura,
    "trafilatura-precision": lambda: trafilatura(precision=True),
    "resiliparse": resiliparse,
    "readability-lxml": readability,
    "justext": justext,
    "boilerpy3": boilerpy3,
    "goose3": goose3,
    "html-text": html_text,
    "rs-trafilatura": rs_trafilatura,
}


def load_peers(names: list[str]) -> tuple[list[Peer], dict[str, str]]:
    """The peers that can run here, and {name: reason} for those skipped."""
    peers: list[Peer] = []
    skipped: dict[str, str] = {}
    for name in names:
        factory = PEERS.get(name)
        if factory is None:
            skipped[name] = f"unknown peer; known: {', '.join(PEERS)}"
            continue
        try:
            peers.append(factory())
        except PeerUnavailable as exc:
            skipped[name] = str(exc)
    return peers, skipped
