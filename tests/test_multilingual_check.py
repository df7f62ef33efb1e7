"""benchmarks/multilingual_check.py: which gold texts count as another language, and the
slices it writes (the check of issue 56's deliverable 2)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import benchmark_script

check = benchmark_script("multilingual_check")

FRENCH = ("Le projet de loi sur le renseignement a été massivement approuvé par les députés "
          "mardi, après des semaines de débats sur les libertés publiques et la surveillance.")
ENGLISH = ("The council voted on Monday to keep the old harbour bridge open to cyclists and "
           "walkers through the winter, after a long debate about the quay.")


def test_a_page_counts_when_its_gold_is_long_and_surely_another_language() -> None:
    assert check.other_language(FRENCH) == "fr"
    assert check.other_language(ENGLISH) is None
    assert check.other_language("Le projet de loi") is None  # a few words tell nothing


def corpus(root: Path, rows: list[tuple[str, str, str]]) -> None:
    for sub in ("pages", "gold"):
        (root / sub).mkdir(parents=True)
    with (root / "index.jsonl").open("w") as index:
        for id_, site, gold in rows:
            index.write(json.dumps({"id": id_, "site": site}) + "\n")
            (root / "pages" / f"{id_}.html").write_text(f"<p>{gold}</p>")
            (root / "gold" / f"{id_}.txt").write_text(gold)


def test_the_slices_hold_the_pages_and_in_a_site_grouped_corpus_their_sites(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    rows = [("1", "a.fr", FRENCH), ("2", "a.fr", ENGLISH), ("3", "b.com", ENGLISH)]
    corpus(data / "dragnet", rows)  # grouped by site: page 2 is page 1's site
    corpus(data / "wcxb", rows)     # page by page
    langs = check.find(data, ["dragnet", "wcxb"], True, tmp_path / "out")
    assert langs == {"dragnet/1": "fr", "wcxb/1": "fr"}

    def ids(name: str) -> list[str]:
        index = tmp_path / "out" / "slices" / name / "index.jsonl"
        return [json.loads(line)["id"] for line in index.read_text().splitlines()]
    assert ids("dragnet") == ["1", "2"] and ids("wcxb") == ["1"]
    assert (tmp_path / "out" / "slices" / "wcxb" / "gold" / "1.txt").read_text() == FRENCH
