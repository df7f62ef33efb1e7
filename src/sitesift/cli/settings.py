"""`--set KEY=VALUE`: reading the pairs, giving each method its own, and making the cleaner
they ask for before any page is read."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sitesift.cli.common import fail

if TYPE_CHECKING:
    from sitesift.methods.base import Cleaner

# Settings that add up when repeated (`--set drop=.ad --set drop=#promo` drops both): the
# default cleaner's selectors, each a list. Any other repeated key keeps its last value.
ADD_UP = ("keep", "drop")


def parse_set(pairs: Iterable[str], flag: str = "--set", command: str = "") -> dict[str, Any]:
    """`--set threshold=0.4` pairs; values are read as JSON where they parse. A key given
    again replaces its value, except the `ADD_UP` settings, whose values join one list."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise fail(command or "", f"{flag} wants KEY=VALUE, got {pair!r}")
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        out[key] = _joined(out[key], parsed) if key in out and _adds_up(key) else parsed
    return out


def _adds_up(key: str) -> bool:
    return key.rpartition(".")[2] in ADD_UP


def _joined(before: Any, value: Any) -> list[Any]:
    """Two values of an `ADD_UP` setting as one list (each a selector or a list of them;
    anything else is kept as it is, for the setting's own check to name)."""
    def items(v: Any) -> list[Any]:
        return list(v) if isinstance(v, list) else [v]
    return items(before) + items(value)


def method_params(pairs: Iterable[str], methods: list[str], command: str
                  ) -> dict[str, dict[str, Any]]:
    """Each method's parameters from `--set` pairs: `sst.threshold=0.4` for one method,
    `threshold=0.4` for every method given."""
    params: dict[str, dict[str, Any]] = {m: {} for m in methods}
    for key, value in parse_set(pairs, command=command).items():
        method, dot, name = key.partition(".")
        if dot and method not in params:
            raise fail(command, f"--set {key}: {method} is not one of the methods given")
        if not methods:  # a setting for no method would be dropped without a word
            raise fail(command, f"--set {key}: no sitesift method is run to take it")
        for m in [method] if dot else methods:
            setting = name if dot else key
            had = params[m].get(setting)
            params[m][setting] = (_joined(had, value) if had is not None and _adds_up(setting)
                                  else value)
    return params


def checked_cleaner(command: str, method: str, params: dict[str, Any], *,
                    workers: bool = False) -> Cleaner:
    """The cleaner the settings ask for, made (and its model file read) before any page is:
    a bad value, an unknown key or a bad model file is a UsageError naming it. `workers`:
    the pages are cleaned by worker processes, which read the model file whole again, so
    this one checks it as `Cleaner.precheck` does (a crawl's parent: 0.1 s less)."""
    from sitesift.errors import SitesiftError
    from sitesift.methods.base import get_cleaner

    try:
        cleaner = get_cleaner(method, **params)
    except (SitesiftError, TypeError, ValueError) as exc:  # SettingsError names the keys
        raise fail(command, f"--set: {exc} (`sitesift methods {method}`)") from None
    try:
        if workers:
            cleaner.precheck()
        else:
            cleaner.check_settings()
    except (ValueError, SitesiftError) as exc:
        raise fail(command, str(exc)) from None
    return cleaner


def add_method_set(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="[METHOD.]KEY=VALUE",
                   help="a method setting, for one method (default.preset=precision) or "
                        "every method given (preset=precision); `sitesift methods` lists them")
