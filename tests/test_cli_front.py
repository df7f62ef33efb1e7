"""The command line as people use it: stdin and stdout, several paths and globs, URLs,
versions, exit statuses, and settings refused before any work (issue 28)."""

from __future__ import annotations

import gzip
import http.server
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitesift.cli import main
from tests.conftest import loopback_server, refused

PAGE = ("<html><head><title>Harbour news</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/boats'>Boats</a></nav>"
        "<article><h1>Boats sail at dawn</h1><p>The fishing boats of the small harbour "
        "sailed at dawn, as they have every morning for a hundred years, and came back "
        "with a full catch before noon.</p><p>The harbour master said the season was the "
        "best in a decade.</p></article><footer>Copyright 2024 Harbour news</footer>"
        "</body></html>")


def _run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "sitesift", *args], input=stdin,
                          capture_output=True, timeout=120, check=False)


def test_a_page_on_stdin_comes_out_on_stdout() -> None:
    for args in (["clean", "-"], ["clean"]):
        proc = _run(*args, stdin=PAGE.encode())
        assert proc.returncode == 0, proc.stderr.decode()
        text = proc.stdout.decode()
        assert "The fishing boats of the small harbour" in text
        assert "Copyright" not in text
    proc = _run("clean", "-", "--format", "json", stdin=PAGE.encode())
    doc = json.loads(proc.stdout)
    assert doc["title"] == "Harbour news" and doc["blocks"]


def test_one_file_without_out_goes_to_stdout_in_any_format(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE)
    assert main(["clean", str(page), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Boats sail at dawn")
    assert list(tmp_path.iterdir()) == [page]  # nothing written beside it


def test_version_and_python_dash_m() -> None:
    from sitesift import __version__

    proc = _run("--version")
    assert proc.returncode == 0 and proc.stdout.decode().strip() == f"sitesift {__version__}"
    proc = subprocess.run([sys.executable, "-m", "sitesift", "--help"], capture_output=True,
                          timeout=60, check=False)
    assert proc.returncode == 0 and b"clean" in proc.stdout


def test_several_paths_and_globs(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(3):
        (src / f"p{i}.html").write_text(PAGE.replace("dawn", f"dawn {i}"))
    (src / "notes.txt").write_text("not a page")
    out = tmp_path / "out"
    assert main(["clean", str(src / "p0.html"), str(src / "p1.html"), "-o", str(out),
                 "-q"]) == 0
    assert sorted(p.name for p in out.glob("*.txt")) == ["p0.txt", "p1.txt"]
    out2 = tmp_path / "out2"
    assert main(["clean", str(src / "p*.html"), "--out", str(out2), "--quiet"]) == 0  # quoted
    assert sorted(p.name for p in out2.glob("*.txt")) == ["p0.txt", "p1.txt", "p2.txt"]
    # more than one page needs --out; nothing is written
    refused(["clean", str(src / "p0.html"), str(src / "p1.html")], "give -o/--out")
    refused(["clean", str(src / "none*.html"), "-o", str(tmp_path / "o3")], "no file matches")
    assert not (tmp_path / "o3").exists()


@pytest.mark.parametrize(("setting", "why"), [
    (["--set", "preset=bogus"], "preset must be one of"),
    (["--set", "threshold=abc"], "threshold must be a number"),
    (["--set", "nosuchkey=1"], "no setting .nosuchkey.*preset"),
    (["--set", "novalue"], "KEY=VALUE"),
    (["--model", "nosuch.json"], "--model nosuch.json"),
], ids=["preset", "threshold", "unknown-key", "no-equals", "missing-model"])
def test_bad_settings_are_refused_before_any_page(tmp_path: Path, setting: list[str],
                                                  why: str) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE)
    out = tmp_path / "out"
    refused(["clean", str(page), "--out", str(out), *setting], why)
    assert not out.exists()


def test_bad_model_files_are_refused(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE)
    readme = Path(__file__).resolve().parents[1] / "README.md"
    corrupt = tmp_path / "corrupt.json.gz"
    corrupt.write_bytes(gzip.compress(b'{"format": "sitesift-extractor", "stage1": [1, 2'))
    for model in (readme, corrupt):
        refused(["clean", str(page), "--out", str(tmp_path / "o"), "--model", str(model)],
                "--model")
        refused(["clean", str(page), "--out", str(tmp_path / "o"), "--set",
                 f"model={model}"], "")
    assert not (tmp_path / "o").exists()


def test_out_naming_a_file_is_refused_for_several_pages(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE)
    taken = tmp_path / "taken"
    taken.write_text("x")
    refused(["clean", str(page), str(page), "--out", str(taken)], "is a file")
    assert taken.read_text() == "x"
    # one page: -o FILE writes that file, in place of what it held
    assert main(["clean", str(page), "--out", str(taken), "-q"]) == 0
    assert taken.read_text().startswith("Boats sail at dawn")


def test_exit_status_says_whether_inputs_failed(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "empty.html").write_text("")
    (src / "blank.html").write_text("   ")
    assert main(["clean", str(src), "--out", str(tmp_path / "out"), "-q"]) == 1
    err = capsys.readouterr().err
    assert "2 inputs = 0 pages cleaned + 2 errors" in err
    (src / "good.html").write_text(PAGE)
    assert main(["clean", str(src), "--out", str(tmp_path / "out2"), "-q"]) == 1
    (src / "empty.html").unlink()
    (src / "blank.html").unlink()
    assert main(["clean", str(src), "--out", str(tmp_path / "out3"), "-q"]) == 0
    refused(["clean", str(tmp_path / "absent.html")], "no such file")


def test_methods_and_set_help_list_every_setting_with_its_default(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["methods", "default"]) == 0
    out = capsys.readouterr().out
    for key in ("preset=balanced", "threshold=null", "comments=stories", "relative=0.5"):
        assert f"--set {key}" in out
    assert main(["clean", "--set", "help", "--method", "sst"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("sst:") and "--set threshold=" in out
    assert main(["methods"]) == 0
    listing = capsys.readouterr().out
    assert "default:" in listing and "alltext:" in listing


class _Site(http.server.BaseHTTPRequestHandler):
    """Pages on loopback: a page in windows-1251 (declared only in the header), a redirect
    to it, a missing page, an image and a page bigger than the fetch limit."""

    big = 0

    def do_GET(self) -> None:
        if self.path == "/ru":
            body = ("<html><body><nav>Меню</nav><article><p>" + "Лодки вышли в море на "
                    "рассвете и вернулись с уловом. " * 5 + "</p></article></body></html>"
                    ).encode("cp1251")
            self._send(200, body, "text/html; charset=windows-1251")
        elif self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/ru")
            self.end_headers()
        elif self.path == "/image":
            self._send(200, b"\x89PNG\r\n", "image/png")
        elif self.path == "/big":
            self._send(200, b"<p>" + b"x" * self.big, "text/html")
        else:
            self._send(404, b"not here", "text/plain")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:  # quiet
        pass


@pytest.fixture
def site() -> Iterator[str]:
    with loopback_server(_Site, http.server.ThreadingHTTPServer) as address:
        yield address


def test_urls_are_fetched_with_the_headers_charset_and_redirects(
        site: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clean", f"{site}/moved"]) == 0
    out = capsys.readouterr().out
    assert "Лодки вышли в море на рассвете" in out


def test_urls_that_fail_are_error_records(site: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from sitesift.io import fetch

    monkeypatch.setattr(fetch, "MAX_BYTES", 1000)
    monkeypatch.setattr(fetch.fetch, "__kwdefaults__",
                        {**(fetch.fetch.__kwdefaults__ or {}), "max_bytes": 1000})
    _Site.big = 5000
    out = tmp_path / "out"
    assert main(["clean", f"{site}/ru", f"{site}/missing", f"{site}/image", f"{site}/big",
                 "-o", str(out), "-q"]) == 1
    errors = {e["id"]: e["reason"]
              for e in map(json.loads, (out / "errors.jsonl").read_text().splitlines())}
    assert "HTTP status 404" in errors[f"{site}/missing"]
    assert "content type image/png" in errors[f"{site}/image"]
    assert "limit" in errors[f"{site}/big"]
    assert len(list(out.glob("*.txt"))) == 1


def test_the_gate_needs_its_folders_named(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """No command reaches into a checkout: the gate's corpora and floors come from flags or
    the environment, with a clear refusal otherwise."""
    monkeypatch.delenv("SITESIFT_DATASETS", raising=False)
    monkeypatch.delenv("SITESIFT_GATE_DIR", raising=False)
    refused(["gate"], "--datasets")
    refused(["gate", "--datasets", str(tmp_path)], "--gate-dir")
    monkeypatch.setenv("SITESIFT_DATASETS", str(tmp_path / "absent"))
    refused(["gate"], "no corpora folder")
    refused(["train-template", "--out", str(tmp_path / "m.json")], "no corpora folder")


def test_the_cli_families_agree_on_groupings() -> None:
    from sitesift.cli import common
    from sitesift.jobs.grouping import GROUPINGS

    assert common.GROUPINGS == GROUPINGS


def test_clean_and_crawl_run_the_same_cleaner_without_method(tmp_path: Path) -> None:
    from sitesift.cli import build_parser

    parser = build_parser()
    clean = parser.parse_args(["clean", "page.html"])
    crawl = parser.parse_args(["crawl", "x.warc.gz", "--out", str(tmp_path)])
    assert clean.method == crawl.method == crawl.fallback == "default"


def test_bad_limits_are_refused_before_any_input_is_read(tmp_path: Path) -> None:
    # the settings come first: no input is looked at (here a missing one), none fetched
    refused(["clean", str(tmp_path / "absent.html"), "--page-timeout", "-1"],
            "--page-timeout: must be a number of seconds above 0")
