"""The one-call Python API (`sitesift.clean`, `fit_site`, `save_model`, `load_model`), its
errors, and what importing sitesift costs (no heavy libraries)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import sitesift
from sitesift import api
from sitesift.errors import (
    InputError,
    NotFittedError,
    SettingsError,
    SitesiftError,
    UnknownMethodError,
    UnknownSettingError,
)
from sitesift.methods import base
from sitesift.methods.base import get_cleaner
from tests.conftest import page
from tests.methods.test_sst import TOY

SITE = [f'<body><div class="nav">home news</div><div class="main"><p>{word}</p></div></body>'
        for word in ("eta", "theta", "iota")]  # with TOY, enough pages for a fit

STORY = ("The harbour board voted on Tuesday to rebuild the north pier, which storms have "
         "battered for three winters running, at a cost the town will share with the county.")
HTML = f"""<!DOCTYPE html><html><head><title>Pier to be rebuilt</title></head><body>
<nav><a href="/">Home</a> | <a href="/news">News</a> | <a href="/sport">Sport</a></nav>
<article><h1>Pier to be rebuilt</h1>
<p>{STORY}</p>
<p>Work starts in spring and should take eighteen months, the board said in a statement
issued after a long meeting that ran well into the evening.</p>
<ul><li>Cost shared with the county council</li><li>Ferries moved to the south quay</li></ul>
</article>
<footer>Copyright 2024 The Harbour Gazette. All rights reserved.</footer>
</body></html>"""

HEAVY = {"sklearn", "scipy", "matplotlib", "pyarrow", "pyspark", "playwright"}


def test_clean_a_string() -> None:
    result = sitesift.clean(HTML)
    assert isinstance(result, sitesift.Result)
    assert result.method == "default"
    assert STORY in result.text
    assert "Sport" not in result.text and "Copyright" not in result.text
    assert "# Pier to be rebuilt" in result.markdown()
    assert "- Cost shared with the county council" in result.markdown()
    record = result.to_dict()
    assert record["text"] == result.text and record["method"] == "default"
    assert record["title"] == "Pier to be rebuilt"
    assert {b["label"] for b in record["blocks"]} == {"content", "noise"}


def test_clean_bytes_in_a_legacy_encoding_declared_by_meta_charset() -> None:
    words = "Новый причал построят к осени"
    html = HTML.replace("<head>", '<head><meta charset="windows-1251">').replace(
        "<h1>Pier to be rebuilt</h1>", f"<h1>{words}</h1>")
    data = html.encode("cp1251")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    result = sitesift.clean(data)
    assert words in result.text and STORY in result.text
    assert api.as_page(data).encoding in {"cp1251", "windows-1251"}
    assert sitesift.clean(bytearray(data)).text == result.text


def test_clean_a_page_and_the_url_passed_through() -> None:
    url = "https://harbourgazette.example/news/pier"
    from_str = sitesift.clean(HTML, url=url)
    assert from_str.url == url and from_str.to_dict()["url"] == url
    assert sitesift.clean(HTML.encode(), url=url).url == url
    p = sitesift.Page.from_html(HTML, url=url, id="pier")
    from_page = sitesift.clean(p)
    assert (from_page.url, from_page.id) == (url, "pier")
    assert from_page.text == from_str.text
    # a url given with a Page replaces the page's own in the result, not in the page
    other = sitesift.clean(p, url="https://elsewhere.example/")
    assert other.url == "https://elsewhere.example/" and p.url == url
    assert sitesift.clean(HTML).url is None


def test_settings_and_methods_are_those_of_get_cleaner() -> None:
    for method, params in [("default", {"preset": "precision"}), ("default", {"threshold": 0.9}),
                           ("alltext", {}), ("blockdist", {"min_blocks": 3})]:
        expected = get_cleaner(method, **params).clean(page(HTML)).content
        result = sitesift.clean(HTML, method=method, **params)
        assert result.method == method
        assert [b.text for b in result.content] == [b.text for b in expected]
    assert "Sport" in sitesift.clean(HTML, method="alltext").text
    # a stricter cut keeps no more than the balanced one
    strict = sitesift.clean(HTML, threshold=0.99).text.splitlines()
    assert set(strict) <= set(sitesift.clean(HTML).text.splitlines())


def test_the_cleaner_is_made_once_per_method_and_settings() -> None:
    assert api._cleaner("default", {"preset": "recall"}) is api._cleaner(
        "default", {"preset": "recall"})
    assert api._cleaner("default", {"preset": "recall"}) is not api._cleaner("default", {})
    # settings that cannot be a cache key still work, each call with a new cleaner
    eligible = ["div", "p", "li"]
    a = api._cleaner("template", {"eligible": eligible})
    assert a is not api._cleaner("template", {"eligible": eligible})


@pytest.mark.parametrize(("params", "error", "match"), [
    ({"preset": "bogus"}, SettingsError, "preset must be one of precision, balanced, recall"),
    ({"threshold": "abc"}, SettingsError, "threshold must be a number"),
    ({"nosuchkey": 1}, UnknownSettingError,
     r"default has no setting 'nosuchkey'; its settings: preset, threshold"),
])
def test_bad_settings_raise_our_errors(params: dict[str, object], error: type[Exception],
                                       match: str) -> None:
    with pytest.raises(error, match=match) as caught:
        sitesift.clean(HTML, **params)
    assert isinstance(caught.value, SitesiftError)
    with pytest.raises(error, match=match):
        get_cleaner("default", **params)
    with pytest.raises(error, match=match):
        sitesift.fit_site([page(HTML)], method="default", **params)


def test_setting_errors_stay_the_builtin_kinds_they_were() -> None:
    """Callers that caught ValueError (a bad value) or TypeError (an unknown keyword) from
    get_cleaner still do."""
    with pytest.raises(ValueError, match="cetr"):
        get_cleaner("cetr-tm", sigma=-1)
    with pytest.raises(TypeError, match="its settings: sigma, threshold, k"):
        get_cleaner("cetr-tm", nosuch=1)
    with pytest.raises(UnknownSettingError, match="its settings: none"):
        get_cleaner("alltext", x=1)
    with pytest.raises(SettingsError, match=r"^sst: "):  # a wrong type names the method too
        get_cleaner("sst", threshold="high")
    assert issubclass(UnknownSettingError, SettingsError)


def test_unknown_method_and_bad_input() -> None:
    with pytest.raises(UnknownMethodError, match="unknown method 'nope'; known: alltext"):
        sitesift.clean(HTML, method="nope")
    for bad in ("", "   ", b"", 42, None, ["<p>x</p>"]):
        with pytest.raises(InputError):
            sitesift.clean(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("method", ["sst", "cst", "template", "ibdf", "infodiscoverer"])
def test_a_site_level_method_on_one_page_says_to_fit_it(method: str) -> None:
    with pytest.raises(NotFittedError, match=rf"fit_site\(pages, method='{method}'\)"):
        sitesift.clean(HTML, method=method)


def test_fit_site_save_model_load_model_round_trip(tmp_path: Path) -> None:
    assert {"clean", "save_model", "load_model", "fit_site"} <= set(sitesift.__all__)
    pages = [page(h, f"p{i}") for i, h in enumerate(TOY + SITE)]
    model = sitesift.fit_site(pages, threshold=0.25)
    new = page('<body><div class="nav">home news</div><div class="main"><p>zeta</p></div>'
               "</body>")
    path = sitesift.save_model(model, tmp_path / "site.sst.json.gz")
    assert path == tmp_path / "site.sst.json.gz" and path.is_file()
    loaded = sitesift.load_model(path)
    assert loaded.name == "sst" and loaded.get_params() == model.get_params()
    assert loaded.clean(new).text == model.clean(new).text == "zeta"
    assert sitesift.load_model(str(path)).to_state() == model.to_state()


def test_a_fitted_model_cleans_through_the_finishing_step_clean_writes_with() -> None:
    """`sitesift.clean(page, model=model)`: the text as `sitesift clean --model` writes it
    (an ordered list numbered), not the bare blocks of `model.clean(page)`."""
    pages = [page(h, f"p{i}") for i, h in enumerate(TOY + SITE)]
    model = sitesift.fit_site(pages, threshold=0.25)
    new = page('<body><div class="nav">home news</div><div class="main"><ol><li>zeta</li>'
               "<li>eta</li></ol></div></body>")
    assert model.clean(new).text == "zeta\neta"
    result = sitesift.clean(new, model=model)
    assert result.text == "1. zeta\n2. eta"
    assert result.markdown() == "1. zeta\n2. eta"
    with pytest.raises(SettingsError, match="threshold: a fitted model keeps"):
        sitesift.clean(new, model=model, threshold=0.5)


def test_the_table_of_builtin_methods_is_what_the_modules_register() -> None:
    base._load_builtin_methods()
    registered = {name: cls.__module__ for name, cls in base._REGISTRY.items()
                  if cls.__module__.startswith("sitesift.methods.")}
    assert registered == {name: f"sitesift.methods.{module}"
                          for name, module in base._BUILTIN.items()}
    for name in base.method_names():
        assert base.get_class(name).name == name


def _imported(code: str) -> list[str]:
    """The top-level packages of HEAVY, numpy and fastwarc that `code` leaves imported in a
    new interpreter."""
    probe = f"import sys\n{code}\nprint(sorted({{m.split('.')[0] for m in sys.modules}}))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    names = set(ast.literal_eval(out))
    return sorted(names & (HEAVY | {"numpy", "fastwarc"}))


def test_importing_sitesift_and_listing_methods_loads_nothing_heavy() -> None:
    code = ("import sitesift, sys; from sitesift.methods.base import method_names; "
            "method_names(); print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "{'sklearn','scipy','matplotlib','pyarrow','pyspark','playwright'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out.strip() == "[]"


def test_nothing_heavy_nor_numpy_until_a_page_is_cleaned() -> None:
    """Listing methods, getting each method's class, the batch and input modules: none of
    them needs NumPy (cleaning with the default cleaner does: its model's arrays)."""
    assert _imported(
        "import sitesift\n"
        "from sitesift.methods.base import get_class, method_names\n"
        "for name in method_names(): get_class(name)\n"
        "import sitesift.batch, sitesift.inputs, sitesift.model_io, sitesift.api") == []


def test_repr_is_short_and_says_what_the_result_is() -> None:
    result = sitesift.clean(HTML, url="https://harbour.example/pier")
    shown = repr(result)
    assert len(shown) < 400 and shown.startswith("<Result method='default'")
    assert "url='https://harbour.example/pier'" in shown
    assert f"blocks={len(result.blocks)}" in shown
    assert f"content={len(result.content)}" in shown
    assert "Pier to be rebuilt" in shown and STORY not in shown  # the first words only
    many = sitesift.clean(HTML.replace(f"<p>{STORY}</p>", f"<p>{STORY}</p>" * 400))
    assert len(repr(many)) < 400


@pytest.mark.parametrize("address", ["https://example.org/x", "http://example.org",
                                     "  www.example.org/a  ", b"https://example.org/x"])
def test_an_address_is_refused_saying_how_to_fetch_it(address: str | bytes) -> None:
    with pytest.raises(InputError, match="is an address, not a page's HTML: fetch"):
        sitesift.clean(address)


def test_a_file_name_is_refused_saying_how_to_read_it(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(HTML)
    with pytest.raises(InputError, match=r"is a file's name.*Page\.from_file"):
        sitesift.clean(str(path))
    assert sitesift.clean(sitesift.Page.from_file(path)).text == sitesift.clean(HTML).text
    assert "plain words" in sitesift.clean("plain words").text  # text is not an address


def test_the_url_is_the_declared_one_as_on_the_command_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from sitesift.cli import main

    declared = HTML.replace("<head>", '<head><link rel="canonical" '
                                      'href="https://harbour.example/pier">')
    path = tmp_path / "page.html"
    path.write_text(declared)
    assert main(["clean", str(path), "--format", "json"]) == 0
    from_cli = json.loads(capsys.readouterr().out)["url"]
    assert from_cli == "https://harbour.example/pier"
    for given in (declared, declared.encode(), sitesift.Page.from_file(path)):
        assert sitesift.clean(given).url == from_cli
    assert sitesift.clean(declared, url="https://other.example/").url == \
        "https://other.example/"  # a url given wins
    assert sitesift.clean(HTML).url is None  # none declared, none given
