"""`--fallback-below X` of `clean` and `crawl`: the option, and its settings checked before
any page is read (docs/confidence.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from sitesift.cli.common import fail
from sitesift.cli.settings import checked_cleaner

if TYPE_CHECKING:
    from sitesift.jobs.policy import SitePolicy
    from sitesift.output import Output


def add_fallback_below(p: argparse.ArgumentParser, recorded: str,
                       methods: list[str] | None = None) -> None:
    """`--fallback-below X` (clean's and crawl's), `recorded` saying where the record keeps
    the first method's name and confidence; with `methods`, `--fallback` too (clean's: the
    crawl has its own)."""
    if methods is not None:
        p.add_argument("--fallback", choices=methods,
                       help="with --fallback-below: the method that cleans the doubtful pages "
                            "again (a page-level one); also cleans the pages a site model "
                            "empties (default: default)")
    p.add_argument("--fallback-below", type=float, metavar="X",
                   help="a page whose confidence (its predicted token F1, in [0, 1]) is under "
                        f"X is cleaned again by --fallback, another method; {recorded} "
                        "(docs/confidence.md)")


def fallback_routes(command: str, args: argparse.Namespace,
                    params: dict[str, Any]) -> dict[str, Any]:
    """A policy's `fallback` and `fallback_below` from --fallback and --fallback-below,
    checked before any page is read (a UsageError, exit 2): X in [0, 1], a fallback other
    than the method, a method that gives a confidence, the fallback's settings."""
    from sitesift.jobs.policy import FALLBACK, check_fallback_below

    if args.fallback_below is None:
        return {"fallback": args.fallback or FALLBACK}
    if getattr(args, "model", None):
        raise fail(command, "--fallback-below is for --method, not --model")
    try:
        below = check_fallback_below(args.fallback_below, args.method, args.fallback)
    except ValueError as exc:
        raise fail(command, str(exc)) from None
    checked_cleaner(command, args.fallback, params if args.fallback == args.method else {},
                    workers=True)
    return {"fallback": args.fallback, "fallback_below": below}


def clean_policy(args: argparse.Namespace, params: dict[str, Any], output: Output,
                 **more: Any) -> SitePolicy:
    """`clean`'s policy: its method, settings, model file and output, and its fallback and
    `--fallback-below` (`fallback_routes`)."""
    from sitesift.jobs.policy import SitePolicy

    return SitePolicy(args.method, params, model=args.model, output=output,
                      **fallback_routes("clean", args, params), **more)
