"""`sitesift articles`: two sites with their own templates share one agency article; the
command fits IBDF per site and writes the copies as one group, errors as records."""

from __future__ import annotations

import json
from pathlib import Path

from sitesift.cli import main
from tests.conftest import refused

WIRE = ("<p>storm floods coastal towns overnight as rivers burst their banks</p>"
        "<p>rescuers evacuate thousands from low lying districts</p>")


def _site(folder: Path, name: str, menu: str, stories: list[str]) -> Path:
    folder.mkdir(parents=True)
    nav = "<ul>" + "".join(f"<li><a href='/{w}'>{w}</a></li>" for w in menu.split()) + "</ul>"
    for i, story in enumerate(stories):
        (folder / f"{name}{i}.html").write_text(
            f"<html><body>{nav}{story}<p>{name} copyright reserved</p></body></html>")
    return folder


def _two_sites(tmp: Path) -> tuple[Path, Path]:
    daily = _site(tmp / "daily", "daily", "home politics sport weather",
                  [WIRE, "<p>council approves budget plan</p>", "<p>local team wins final</p>"])
    herald = _site(tmp / "herald", "herald", "front opinion business arts travel",
                   ["<p>museum opens new wing</p>", "<p>markets rally after report</p>", WIRE])
    return daily, herald


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_shared_article_is_one_group(tmp_path: Path) -> None:
    daily, herald = _two_sites(tmp_path)
    out = tmp_path / "out"
    assert main(["articles", str(daily), str(herald), "--out", str(out), "--quiet"]) == 0
    groups = _lines(out / "articles.jsonl")
    assert [[(p["id"], p["site"]) for p in g["pages"]] for g in groups] == [  # type: ignore
        [("daily0", str(daily)), ("herald2", str(herald))]]
    assert groups[0]["sites"] == 2 and _lines(out / "errors.jsonl") == []
    # a stricter setting still finds it (the copies' content vectors are equal), and the
    # IBDF settings reach the fit
    assert main(["articles", str(daily), str(herald), "--out", str(out), "--similarity",
                 "1", "--set", "preset=paper", "--quiet"]) == 0
    assert len(_lines(out / "articles.jsonl")) == 1


def test_errors_are_records_per_page_and_site(tmp_path: Path) -> None:
    daily, herald = _two_sites(tmp_path)
    (daily / "frames.html").write_text("<html><frameset><frame src='x.html'></frameset></html>")
    lonely = _site(tmp_path / "lonely", "lonely", "home", [WIRE])
    out = tmp_path / "out"
    assert main(["articles", str(daily), str(herald), str(lonely), "--out", str(out),
                 "--quiet"]) == 1
    errors = {e["id"]: e for e in _lines(out / "errors.jsonl")}  # type: ignore[misc]
    assert set(errors) == {"frames", "lonely0"}
    assert "no document body" in str(errors["frames"]["error"])
    assert "needs 2 or more" in str(errors["lonely0"]["error"])
    # the bad page and the small site do not stop the others
    assert len(_lines(out / "articles.jsonl")) == 1


def test_bad_settings_are_refused_before_any_work(tmp_path: Path) -> None:
    daily, herald = _two_sites(tmp_path)
    out = tmp_path / "out"
    for argv, match in (
            (["--similarity", "0"], "similarity"), (["--similarity", "1.5"], "similarity"),
            (["--set", "threshold=2"], "threshold"), (["--set", "nope=1"], "nope")):
        refused(["articles", str(daily), str(herald), "--out", str(out), *argv], match)
    refused(["articles", str(daily), "--out", str(out)], "two or more")
    refused(["articles", str(daily), str(tmp_path / "missing"), "--out", str(out)],
            "no such file")
    assert not out.exists()


def test_sites_from_the_urls_of_one_dataset(tmp_path: Path) -> None:
    """`--sites url`: one dataset folder holding both sites, told apart by their rows."""
    daily, herald = _two_sites(tmp_path / "src")
    root = tmp_path / "both"
    (root / "pages").mkdir(parents=True)
    rows = []
    for folder in (daily, herald):
        for file in sorted(folder.iterdir()):
            (root / "pages" / file.name).write_bytes(file.read_bytes())
            rows.append({"id": file.stem, "url": f"https://{folder.name}.example/{file.stem}",
                         "site": f"{folder.name}.example", "path": f"pages/{file.name}"})
    (root / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    assert main(["articles", str(root), "--sites", "url", "--out", str(out), "--quiet"]) == 0
    (group,) = _lines(out / "articles.jsonl")
    assert [(p["id"], p["site"], p["url"]) for p in group["pages"]] == [  # type: ignore
        ("daily0", "daily.example", "https://daily.example/daily0"),
        ("herald2", "herald.example", "https://herald.example/herald2")]
