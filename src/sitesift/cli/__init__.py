"""The command line: one module per command family, each holding its subparsers and
handlers (`clean`: clean, fit, methods, demo; `evaluate`: evaluate, bench, gate; `crawl`;
`report`; `mine`; `articles`; `train`: train-template, train-default). Argument parsing lives here
only; the core never sees argparse. Nothing heavy is imported before a command runs.

Exit status: 0 when every input gave a result, 1 when some failed (the summary line says
how many, errors.jsonl why), 2 when the command could not run as given (usage, settings,
model files, an --out another run holds: one line on stderr, nothing written), 3 when the
machine stopped it (a full disk, a path it cannot write: one line naming the path and the
errno; a crawl keeps what it wrote and its rerun finishes the job).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sitesift.cli.common import (
    ENVIRONMENT,
    SAMPLE_SITE,
    USAGE,
    CommandParser,
    Parser,
    UsageError,
    environment_message,
)
from sitesift.cli.common import limits as _limits


def crawl_settings(args: argparse.Namespace) -> tuple[Any, Any]:
    """The CrawlConfig and Limits that `sitesift crawl` arguments ask for
    (`sitesift.cli.crawl.crawl_settings`)."""
    from sitesift.cli.crawl import crawl_settings as settings

    return settings(args)


def build_parser() -> argparse.ArgumentParser:
    # The command families are imported here, not with this package: a spawned worker of a
    # crawl started by the `sitesift` script runs that script again (as `__mp_main__`),
    # which imports this package, and should not pay for every command's module.
    from sitesift import __version__
    from sitesift.cli import articles, clean, crawl, evaluate, mine, report, train
    from sitesift.methods.base import method_names

    parser = Parser(
        prog="sitesift",
        description="Remove navigation, ads, headers, footers and repeated site templates "
                    "from web pages. `sitesift clean page.html` prints a page's main text; "
                    "`sitesift COMMAND -h` tells more.")
    parser.add_argument("--version", action="version", version=f"sitesift {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=CommandParser)
    methods = method_names()
    for family in (clean, evaluate, crawl, report, mine, articles, train):
        family.add_parsers(sub, methods)
    return parser


def _check_native() -> None:
    """Every command reads pages, and the core decodes them (`native/src/read/decode.rs`) for
    every method: where it is not built, the command is refused before any work, with what
    to do about it."""
    from sitesift.native import core

    core()


def main(argv: list[str] | None = None) -> int:
    from sitesift.errors import SitesiftError

    args = build_parser().parse_args(argv)
    try:
        _check_native()
        return int(args.func(args))
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return USAGE
    except SitesiftError as exc:
        print(f"sitesift: {exc}", file=sys.stderr)
        return USAGE
    except FileNotFoundError as exc:
        print(f"sitesift: {exc}", file=sys.stderr)
        return USAGE
    except BrokenPipeError:  # `sitesift clean page | head`: the reader left; not an error
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:  # the machine's, not the command's: a full disk, a read-only path
        print(environment_message(args.command, exc, getattr(args, "out", None)),
              file=sys.stderr)
        return ENVIRONMENT


__all__ = ["SAMPLE_SITE", "_limits", "build_parser", "crawl_settings", "main"]
