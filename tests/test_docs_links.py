"""The documentation's links hold: every relative link of the repository's markdown (README.md,
docs/ with docs/lab/, benchmarks/, the bundled samples' READMEs) names a file that exists, and
an anchor (`page.md#heading`) a heading of that page; every page of docs/ that the code, the
tests and the benchmarks cite (`docs/<page>.md`) exists; docs/README.md, the index, links
every page of docs/. A page moved into docs/lab/ must keep all three whole."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
CITED = re.compile(r"(?<![\w/.-])docs/[\w./-]*[\w-]\.md\b")


def _markdown_files() -> list[Path]:
    files = [ROOT / "README.md", *DOCS.rglob("*.md"), *(ROOT / "benchmarks").rglob("*.md")]
    files += (ROOT / "src").rglob("*.md")
    return sorted(p for p in files if p.is_file())


def _prose(text: str) -> str:
    """The text without its code: links in code blocks and inline code are examples."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lowercased, punctuation dropped, spaces as -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        slug = _slug(heading)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _broken_links(path: Path) -> list[str]:
    broken = []
    for target in LINK.findall(_prose(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, file:
            continue
        name, _, anchor = target.partition("#")
        dest = (path.parent / unquote(name)).resolve() if name else path
        where = f"{path.relative_to(ROOT)}: {target}"
        if not dest.exists():
            broken.append(f"{where} (no such file)")
        elif anchor and dest.suffix == ".md" and unquote(anchor) not in _anchors(dest):
            broken.append(f"{where} (no such heading)")
    return broken


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path) -> None:
    assert _broken_links(path) == []


def test_every_docs_page_the_code_cites_exists() -> None:
    sources = [*(ROOT / "src").rglob("*.py"), *(ROOT / "native" / "src").rglob("*.rs"),
               ROOT / "native" / "Cargo.toml", *(ROOT / "benchmarks").rglob("*.py"),
               *(ROOT / "tests").rglob("*.py"), *(ROOT / "scripts").rglob("*.sh"),
               *_markdown_files()]
    missing = sorted({f"{p.relative_to(ROOT)}: {cited}"
                      for p in sources if p.is_file()
                      for cited in CITED.findall(p.read_text(encoding="utf-8", errors="replace"))
                      if not (ROOT / cited).is_file()})
    assert missing == []


def test_the_index_links_every_docs_page() -> None:
    index = DOCS / "README.md"
    linked = {(DOCS / unquote(t.partition("#")[0])).resolve()
              for t in LINK.findall(_prose(index.read_text(encoding="utf-8")))}
    pages = {p.resolve() for p in DOCS.rglob("*.md")} - {index.resolve()}
    assert sorted(str(p.relative_to(DOCS.resolve())) for p in pages - linked) == []
