"""What `evaluate` scores is the text `clean` writes, for every registered method.

A slice of a shared corpus (one site's pages, with gold) is cleaned by `sitesift clean
--format text` and scored by `sitesift.evaluate.evaluate` (site-level methods fitted on the
slice by both); the two texts must be the same, page by page. `sitesift.output.finish` is
the one finishing step both go through: a method whose renderer reads other verdicts than
its blocks (the Site Style Tree's locally noisy blocks once did) fails here.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from sitesift.cli import main
from sitesift.evaluate import evaluate
from sitesift.jobs.grouping import Grouping
from sitesift.jobs.outcome import Outcome
from sitesift.methods.base import get_class, method_names
from sitesift.metrics import token_prf
from tests.conftest import BROWSER_MISSING, shared_dataset

# One site and year of big9 (old table layouts, a section menu the Site Style Tree marks
# as locally noisy on forbes-2009-07), and one site of cleanportaleval (modern markup).
SLICES = {"big9": ("forbes-2009-", 5), "cleanportaleval": ("bbc.co.uk_news_", 5)}
BROWSER_PAGES = 2  # the methods that render in Chromium see fewer pages
_NUMBERED = re.compile(r"^[ \t]*\d+\.[ \t]", re.M)  # an ordered list item's number


def _slice(corpus: str, tmp: Path, pages: int) -> Path:
    """A corpus folder of the first `pages` pages of the slice (copies of a few files)."""
    src = shared_dataset(corpus)
    prefix, _ = SLICES[corpus]
    rows = [json.loads(line) for line in (src / "index.jsonl").read_text().splitlines()
            if line.strip()]
    rows = [r for r in rows if r["id"].startswith(prefix)][:pages]
    out = tmp / corpus
    (out / "pages").mkdir(parents=True)
    (out / "gold").mkdir()
    for row in rows:
        for page in (src / "pages").glob(f"{row['id']}.*"):
            shutil.copy(page, out / "pages" / page.name)
        shutil.copy(src / "gold" / f"{row['id']}.txt", out / "gold" / f"{row['id']}.txt")
    (out / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def _scored(root: Path, method: str) -> tuple[dict[str, str], dict[str, str]]:
    """The text `evaluate` scores for each page, and its method's content blocks."""
    texts: dict[str, str] = {}
    blocks: dict[str, str] = {}

    def keep(root: Path, outcome: Outcome, text: str, gold: str) -> dict[str, Any]:
        assert outcome.result is not None
        texts[outcome.id] = text
        blocks[outcome.id] = "\n".join(b.text for b in outcome.result.content)
        return {"f1": 0.0}

    rows = evaluate([root], [method], grouping=Grouping("site"), scorer=keep)
    assert not [r for r in rows if r["error"]], rows
    return texts, blocks


def _written(root: Path, method: str, out: Path) -> dict[str, str]:
    """The text `sitesift clean --format text` writes for each page."""
    assert main(["clean", str(root), "--method", method, "--group-by", "site",
                 "--format", "text", "--out", str(out), "--workers", "1", "--quiet"]) == 0
    return {p.name.removesuffix(".txt"): p.read_text(encoding="utf-8")
            for p in out.glob("*.txt")}


@pytest.mark.parametrize("corpus", sorted(SLICES))
@pytest.mark.parametrize("method", method_names())
def test_evaluate_scores_the_text_clean_writes(method: str, corpus: str,
                                               tmp_path: Path) -> None:
    browser = get_class(method).needs_browser
    if browser and BROWSER_MISSING is not None:
        pytest.skip(f"{method} renders pages in Chromium: {BROWSER_MISSING}")
    root = _slice(corpus, tmp_path, BROWSER_PAGES if browser else SLICES[corpus][1])
    scored, blocks = _scored(root, method)
    written = _written(root, method, tmp_path / "out")
    assert sorted(written) == sorted(scored)
    for page_id, text in scored.items():
        assert written[page_id].rstrip("\n") == text, page_id
        # the structure renderer applies the verdicts the method's blocks carry: beside
        # the ordered lists' numbers, it writes their words (a word split or joined at an
        # inline element's edge aside)
        unnumbered = _NUMBERED.sub("", text)
        assert token_prf(unnumbered, blocks[page_id]).f1 >= 0.97, page_id


def test_sst_writes_without_what_it_marked_locally_noisy(tmp_path: Path) -> None:
    """forbes-2009-07: the Site Style Tree marks the section menu (one link a block inside
    a meaningful node) locally noisy; the text written leaves it out, as the blocks do."""
    root = _slice("big9", tmp_path, 10)
    written = _written(root, "sst", tmp_path / "out")
    gold = (root / "gold" / "forbes-2009-07.txt").read_text()
    menu = "Home Business Tech Markets Entrepreneurs"
    assert menu not in " ".join(gold.split())
    assert menu not in " ".join(written["forbes-2009-07"].split())
    with gzip.open(root / "pages" / "forbes-2009-07.html.gz", "rt") as page:
        assert ">Entrepreneurs</a>" in page.read()  # the menu is on the page
