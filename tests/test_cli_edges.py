"""The command line's edges, and habits people bring from trafilatura (issue 52): unknown
flags, names of methods and peers, help text, `-o FILE`, error lines, `--metadata` in every
format, and which evidence a page was cleaned with."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from sitesift.cli import build_parser
from tests.conftest import refused

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
