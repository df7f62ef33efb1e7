"""The command line's edges, and habits people bring from trafilatura (issue 52): unknown
flags, names of methods and peers, help text, `-o FILE`, error lines, `--metadata` in every
format, and which evidence a page was cleaned with."""

from __future__ import annotations

import argparse
import http.server
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitesift.cli import build_parser, main
from tests.conftest import loopback_server, refused
from tests.test_cli_front import PAGE as FRONT_PAGE
from tests.test_cli_front import _Site

SAMPLE_SITE = Path(__file__).resolve().parents[1] / "src" / "sitesift" / "data" / "sample_site"


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


@pytest.mark.parametrize("command", sorted(_commands()))
def test_an_unknown_flag_prints_that_commands_usage(command: str) -> None:
    err = refused([command, "--no-such-flag"], "unrecognized arguments: --no-such-flag")
    assert f"usage: sitesift {command} " in err, err


def test_an_unknown_flag_before_the_command_is_the_top_levels() -> None:
    err = refused(["--no-such-flag", "clean"], "unrecognized arguments")
    assert "usage: sitesift [-h]" in err


@pytest.mark.parametrize("command", sorted(_commands()))
def test_help_says_each_default_once_and_no_empty_ones(command: str) -> None:
    parser = _commands()[command]
    text = re.sub(r"\s+", " ", parser.format_help())
    for empty in ("(default: None)", "(default: [])", "(default: False)"):
        assert empty not in text
    formatter = parser._get_formatter()
    for action in parser._actions:
        if not action.help:
            continue
        shown = formatter._expand_help(action)
        stated = re.findall(r"[(;,]\s*default\b|\bthe default\b", shown, re.I)
        assert len(stated) <= 1, (command, action.dest, shown)
    # a choice holding a comma reads as one: {site|site,year|none}, not {site,site,year,none}
    assert "site,site,year" not in text


def test_clean_help_shows_defaults_of_options_only() -> None:
    text = re.sub(r"\s+", " ", _commands()["clean"].format_help())
    assert "(default: text)" in text and "{site|site,year|none}" in text
    assert text.count("(default 2)") + text.count("(default: 2)") <= 1


@pytest.mark.parametrize(("flags", "why"), [
    (["--peers", "nosuchpeer"], "unknown peer.*nosuchpeer"),
    (["--peers", "trafilatura,nosuchpeer"], "unknown peer.*nosuchpeer"),
    (["--peers", ","], "names no peer"),
    (["--methods", "nosuch"], "unknown method.*nosuch"),
    (["--methods", "alltext", "--set", "nosuch=1"], "nosuch"),
    (["--methods", "alltext", "--set", "sst.threshold=1"], "sst is not one of"),
    (["--methods", "none", "--set", "threshold=0.5"], "no sitesift method"),
], ids=["peer", "peer-in-list", "no-peer", "method", "setting", "method-setting",
        "setting-for-none"])
def test_bench_naming_mistakes_exit_2_before_any_work(tmp_path: Path, flags: list[str],
                                                       why: str) -> None:
    out = tmp_path / "out"
    refused(["bench", str(SAMPLE_SITE), "--peers", "none", *flags, "--out", str(out)], why)
    assert not out.exists()


# test_cli_front's page, with a language, a canonical link, an author and a description
PAGE = FRONT_PAGE.replace(
    "<html><head><title>Harbour news</title>",
    "<html lang='en'><head><title>Harbour news</title>"
    "<link rel='canonical' href='https://harbour.example/boats'>"
    "<meta name='author' content='Ann Quay'><meta name='description' content='Boats, at dawn'>")


def _run(*args: str, stdin: bytes | None = None, cwd: Path | None = None
         ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "sitesift", *args], input=stdin, cwd=cwd,
                          capture_output=True, timeout=120, check=False)


class _Pages(_Site):
    """test_cli_front's pages, and PAGE at /boats."""

    def do_GET(self) -> None:
        if self.path == "/boats":
            self._send(200, PAGE.encode(), "text/html; charset=utf-8")
        else:
            super().do_GET()


@pytest.fixture
def site() -> Iterator[str]:
    with loopback_server(_Pages, http.server.ThreadingHTTPServer) as address:
        yield address


@pytest.mark.parametrize("kind", ["file", "stdin", "url"])
def test_one_input_and_out_file_writes_that_file(kind: str, tmp_path: Path, site: str
                                                 ) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE)
    given = {"file": str(page), "stdin": "-", "url": f"{site}/boats"}[kind]
    proc = _run("clean", given, "-o", "out.txt", "-q", stdin=PAGE.encode(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    out = tmp_path / "out.txt"
    assert out.is_file() and out.read_text().startswith("Boats sail at dawn")
    assert not proc.stdout
    # an existing folder, or a name ending in /, is a folder whatever the inputs
    (tmp_path / "existing").mkdir()
    for folder in ("existing", "new/"):
        proc = _run("clean", given, "-o", folder, "-q", stdin=PAGE.encode(), cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr.decode()
        written = tmp_path / folder
        assert (written / "manifest.jsonl").is_file()
        assert len([p for p in written.iterdir() if p.suffix == ".txt"]) == 1


def test_out_file_in_any_format_and_several_inputs_want_a_folder(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE)
    assert main(["clean", str(page), "--format", "json", "-o", str(tmp_path / "r.json"),
                 "-q"]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["text"].startswith("Boats")
    # several inputs (or a folder input): -o names a folder, and a file there is refused
    assert main(["clean", str(page), str(page), "-o", str(tmp_path / "two.txt"), "-q"]) == 0
    assert (tmp_path / "two.txt" / "manifest.jsonl").is_file()
    assert main(["clean", str(tmp_path / "two.txt"), "-o", str(tmp_path / "d.txt"),
                 "-q"]) in (0, 1)
    assert (tmp_path / "d.txt").is_dir()
    refused(["clean", str(page), str(page), "-o", str(tmp_path / "r.json")], "is a file")
    refused(["clean", str(page), "-o", str(page)], "the page's own file")
    assert page.read_text() == PAGE


def test_a_page_that_fails_writes_no_out_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.html"
    empty.write_text("   ")
    proc = _run("clean", str(empty), "-o", "out.txt", cwd=tmp_path)
    assert proc.returncode == 1 and not (tmp_path / "out.txt").exists()
    assert proc.stderr.decode().count("empty.html") == 1


@pytest.mark.parametrize("kind", ["stdin", "file", "url"])
def test_an_error_line_names_the_input_once(kind: str, tmp_path: Path, site: str) -> None:
    page = tmp_path / "blank.html"
    page.write_text(" \n ")
    given = {"stdin": "-", "file": str(page), "url": f"{site}/missing"}[kind]
    proc = _run("clean", given, stdin=b"  \n")
    err = proc.stderr.decode().strip()
    assert proc.returncode == 1, err
    name = {"stdin": "stdin", "file": str(page), "url": given}[kind]
    assert err.count(name) == 1, err


def test_a_binary_file_fails_alike_whatever_its_name(tmp_path: Path) -> None:
    blob = bytes(range(256)) * 8
    codes = {}
    for name in ("x.bin", "x.html", "x", "x.txt", "utf8.dat"):
        # (utf8.dat: binary that is valid UTF-8, no list of page paths either)
        (tmp_path / name).write_bytes(b"\x00\x01\x02binary" if name == "utf8.dat" else blob)
        proc = _run("clean", name, cwd=tmp_path)
        codes[name] = proc.returncode
        assert proc.stderr.decode().count(name) == 1, proc.stderr.decode()
    assert set(codes.values()) == {1}, codes  # an input that is not a page: it failed
    proc = _run("clean", "x.bin", "x.html", "-o", "out", "-q", cwd=tmp_path)
    assert proc.returncode == 1
    errors = (tmp_path / "out" / "errors.jsonl").read_text().splitlines()
    assert len(errors) == 2


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "json"])
def test_metadata_is_written_in_every_format(fmt: str, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE)
    proc = _run("clean", str(page), "--format", fmt, "--metadata")
    assert proc.returncode == 0, proc.stderr.decode()
    out = proc.stdout.decode()
    if fmt == "text":
        head, _, body = out.partition("\n\n")
        assert head.splitlines()[:2] == ["title: Harbour news", "author: Ann Quay"]
        assert "url: https://harbour.example/boats" in head.splitlines()
        assert body.startswith("Boats sail at dawn")
    elif fmt == "markdown":
        assert out.startswith('---\ntitle: "Harbour news"\nauthor: "Ann Quay"\n')
        assert "\n---\n\n# Boats sail at dawn" in out
    elif fmt == "html":
        assert '<meta name="author" content="Ann Quay">' in out
        assert '<link rel="canonical" href="https://harbour.example/boats">' in out
        assert '<html lang="en">' in out
    else:
        assert json.loads(out)["meta"]["metadata"]["author"] == "Ann Quay"
    plain = _run("clean", str(page), "--format", fmt).stdout.decode()
    assert "Ann Quay" not in plain  # without --metadata: the content alone


def test_the_json_record_says_which_evidence_cleaned_the_page(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    pages = SAMPLE_SITE / "pages"
    assert main(["clean", str(pages / "hg-001.html"), "--format", "json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert alone["meta"]["evidence"] == "page"
    out = tmp_path / "out"
    assert main(["clean", str(pages), "--format", "json", "-o", str(out), "-q"]) == 0
    together = json.loads((out / "hg-001.json").read_text())
    assert together["meta"]["evidence"] == "site (30 pages)"
    out = tmp_path / "alone"
    assert main(["clean", str(pages), "--format", "json", "-o", str(out), "-q", "--set",
                 "site=false"]) == 0
    assert json.loads((out / "hg-001.json").read_text())["meta"]["evidence"] == "page"
    helped = re.sub(r"\s+", " ", _commands()["clean"].format_help())
    assert "meta.evidence" in helped and "differently alone and in its folder" in helped


def test_methods_default_describes_every_setting_with_its_values(
        capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import fields

    from sitesift.methods.default import CONVENTIONS, RULES, DefaultParams

    summaries = {name: summary for name, _, _, summary in RULES}

    assert main(["methods", "default"]) == 0
    lines = {line.split()[1].split("=")[0]: line for line in capsys.readouterr().out.splitlines()
             if line.startswith("  --set ")}
    assert list(lines) == [f.name for f in fields(DefaultParams)]  # each setting, in order
    for name, line in lines.items():
        default, _, about = line.removeprefix(f"  --set {name}=").partition("  ")
        assert default and len(about.strip()) > 20, line  # its default, values and a line
        if name in CONVENTIONS:
            assert f"[{'|'.join(CONVENTIONS[name])}]" in about
            assert default == CONVENTIONS[name][0]
            assert about.endswith(summaries[name])  # the core's line for the rule
    assert "[precision|balanced|recall]" in lines["preset"]
    assert "[true|false]" in lines["site"]
    assert "or null" in lines["threshold"]


def test_a_setting_beside_a_model_file_is_refused(tmp_path: Path) -> None:
    model = tmp_path / "site.sst.json"
    assert main(["fit", str(SAMPLE_SITE / "pages"), "-o", str(model), "-q"]) == 0
    page = SAMPLE_SITE / "pages" / "hg-001.html"
    refused(["clean", str(page), "--model", str(model), "--set", "threshold=0.1"],
            "--set threshold: --model .* the settings it was fitted with")
    refused(["clean", str(page), "--model", str(model), "--set", "nosuch=1"], "--set nosuch")
