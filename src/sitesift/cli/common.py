"""What every command family shares: exit codes, `--set` and limit flags, early checks,
and writing outcomes."""

from __future__ import annotations

import argparse
import contextlib
import errno
import glob
import hashlib
import json
import math
import os
import re
import sys
import tempfile
from collections.abc import Container, Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitesift.jobs.grouping import GROUPINGS as GROUPINGS  # light: no dataset code for --help
from sitesift.language import SKIP_REASON
from sitesift.output import render_result as render_result

if TYPE_CHECKING:
    from sitesift.batch import Outcome
    from sitesift.language import LanguageFilter

# Exit status: every input gave a result; some inputs failed (the summary says how many,
# errors.jsonl why); the command could not run as given (usage, settings, model files, an
# --out another run holds); the machine stopped it (a full disk, a path it cannot write).
OK, SOME_FAILED, USAGE, ENVIRONMENT = 0, 1, 2, 3

FORMATS = {"text": ".txt", "markdown": ".md", "html": ".html", "json": ".json"}
MANIFEST = "manifest.jsonl"  # beside the pages: each input's id and its file (or error)
SAMPLE_SITE = Path(__file__).resolve().parents[1] / "data" / "sample_site"
# Default page time limits: a rendered page takes 1-3 s of browser time, more on a busy box.
PAGE_SECONDS = 10.0
BROWSER_PAGE_SECONDS = 60.0
ENV_DATASETS = "SITESIFT_DATASETS"
STDIN = "-"  # an INPUT that means: read standard input


class UsageError(Exception):
    """The command cannot run as given: `main` prints it on one line and exits 2."""


# Help text that already states an option's default: `(default 2)`, `; default 10`,
# `default (the default)`, `%(default)s`.
_STATED_DEFAULT = re.compile(r"[(;,]\s*default\b|\bthe default\b|%\(default\)", re.I)


class HelpFormatter(argparse.HelpFormatter):
    """Every command's help: an option's default said once, appended where its help does
    not state it and there is one to say (not for a flag, a positional, an unset or empty
    default); choices as `{site|site,year|none}`, so a choice holding a comma reads as one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (not action.option_strings or action.nargs == 0 or default is None
                or default is argparse.SUPPRESS or default is False
                or (isinstance(default, list | tuple) and not default)
                or _STATED_DEFAULT.search(text)):
            return action.help
        return f"{text} (default: %(default)s)".strip()

    def _metavar_formatter(self, action: argparse.Action, default_metavar: str) -> Any:
        if action.metavar is None and action.choices is not None:
            shown = "{" + "|".join(str(c) for c in action.choices) + "}"
            return lambda size: (shown,) * size
        return super()._metavar_formatter(action, default_metavar)


class Parser(argparse.ArgumentParser):
    """`sitesift`'s parser: every command's help written by `HelpFormatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


class CommandParser(Parser):
    """A command's parser (`sitesift clean`, ...): an argument it does not know is refused
    with the command's own usage (exit 2), not the top-level one."""

    def parse_known_args(self, args: Any = None, namespace: Any = None
                         ) -> tuple[Any, list[str]]:
        given = list(sys.argv[1:] if args is None else args)
        words = given[:given.index("--")] if "--" in given else given
        # (named first, before a missing required argument is: that is the lesser news)
        if unknown := [w for w in words if (found := self._parse_optional(w)) is not None
                       and found[0] is None]:
            self.error(f"unrecognized arguments: {' '.join(unknown)}")
        parsed, extra = super().parse_known_args(given, namespace)
        if extra:
            self.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed, extra


def fail(command: str, message: str) -> UsageError:
    return UsageError(f"sitesift {command}: {message}")


def expand_inputs(command: str, inputs: list[str]) -> list[str]:
    """Inputs as given, globs expanded (quoted ones too); a path that is not there, or a
    glob that matches nothing, is a usage error."""
    from sitesift.io.fetch import is_url

    out: list[str] = []
    for value in inputs or [STDIN]:
        if value == STDIN or is_url(value) or Path(value).exists():
            out.append(value)
            continue
        if glob.has_magic(value):
            matches = sorted(glob.glob(value, recursive=True))
            if not matches:
                raise fail(command, f"{value}: no file matches")
            out.extend(matches)
            continue
        raise fail(command, f"{value}: no such file or folder")
    if out.count(STDIN) > 1:
        raise fail(command, "stdin (-) given more than once")
    return out


def add_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars or notes")


def seconds(text: str) -> float:
    """An argparse type: a time limit, finite and above 0 (nan passes every comparison and
    inf overflows the timer: either would fail every page, so they are refused here)."""
    from sitesift.guards import MAX_SECONDS

    return _number(text, float, 0.0, MAX_SECONDS, above=True, what="a number of seconds")


def megabytes(text: str) -> float:
    """An argparse type: a size in MB, finite and above 0."""
    return _number(text, float, 0.0, float(1 << 24), above=True, what="a size in MB")


def at_least(low: int, high: int | None = None) -> Any:
    """An argparse type: a whole number from `low` (to `high`)."""
    def whole(text: str) -> int:
        return int(_number(text, int, low, high, what="a whole number"))

    whole.__name__ = "whole number"  # what argparse would call it
    return whole


def _number(text: str, kind: type, low: float, high: float | None, *, above: bool = False,
            what: str) -> float:
    try:
        value = kind(text)
    except ValueError:
        value = None
    bound = f"above {low:g}" if above else f"{low:g} or more"
    bound += f" and at most {high:g}" if high is not None else ""
    if value is None or not math.isfinite(value) or value < low or (above and value == low) \
            or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"must be {what} {bound}, not {text!r}")
    return float(value) if kind is float else value


def add_limits(p: argparse.ArgumentParser) -> None:
    """The guards' settings (sitesift.guards.Limits), the same for every batch command."""
    from sitesift.guards import MAX_MEMORY_MB

    p.add_argument("--page-timeout", type=seconds, default=None, metavar="SECONDS",
                   help=f"per page (decode, parse, clean; default {PAGE_SECONDS:g}, or "
                        f"{BROWSER_PAGE_SECONDS:g} for methods that render in a browser); "
                        "past it the page is an error record")
    p.add_argument("--fit-timeout", type=seconds, default=300.0, metavar="SECONDS",
                   help="per site model fit (default %(default)g)")
    p.add_argument("--memory-mb", type=at_least(0, MAX_MEMORY_MB), default=2048, metavar="MB",
                   help="each worker's memory cap: the address space a worker process may "
                        "grow by past its start-up size, whatever it holds (a site group's "
                        "pages included), fixed for the whole run; an allocation past it "
                        "fails, and the page the worker was on becomes an error record "
                        "(0: no cap; default %(default)s)")


def add_workers(p: argparse.ArgumentParser, default: int | None = None,
                what: str = "processes") -> None:
    n = default if default is not None else (os.cpu_count() or 1)
    p.add_argument("--workers", type=at_least(1), default=n,
                   help=f"{what} (default {n})")


def renders(args: argparse.Namespace) -> bool:
    """Whether a method the command runs renders pages in a browser (seconds per page)."""
    from sitesift.methods.base import get_class

    names = getattr(args, "method", None) or []  # argparse checked them against the registry
    names = [names] if isinstance(names, str) else names
    return any(get_class(name).needs_browser for name in names)


def limits(args: argparse.Namespace) -> Any:
    from sitesift.guards import Limits

    seconds = args.page_timeout
    if seconds is None:
        seconds = BROWSER_PAGE_SECONDS if renders(args) else PAGE_SECONDS
    try:
        return Limits(page_seconds=seconds, fit_seconds=args.fit_timeout,
                      memory_mb=args.memory_mb)
    except ValueError as exc:
        raise fail(args.command, str(exc)) from None


def grouping(args: argparse.Namespace) -> Any:
    """The run's grouping (`--group-by`, `--min-site-pages`)."""
    from sitesift.jobs.grouping import Grouping

    return Grouping(args.group_by, getattr(args, "min_site_pages", 1))


def run_settings(args: argparse.Namespace, guards: Any = None) -> Any:
    """How the run is carried out (`--workers`, `--quiet`; `guards`: its limits)."""
    from sitesift.jobs.run import RunSettings

    return RunSettings(args.workers, guards, progress=not args.quiet)


def environment_message(command: str, exc: OSError, where: str | None) -> str:
    """One line for an error of the machine (a full disk, a path that cannot be written):
    the path, the reason and its errno. `where`: the path to name when the error names
    none (the --out folder)."""
    path = exc.filename or where or "?"
    again = ("; what was written is kept: fix that, then rerun the same command to finish"
             if command == "crawl" else "; fix that, then run the command again")
    return f"sitesift {command}: {path}: {os_reason(exc)}{again}"


def os_reason(exc: OSError) -> str:
    """An OSError's reason with its errno: `No space left on device (errno 28 ENOSPC)`."""
    if not exc.errno:
        return str(exc)
    return f"{exc.strerror} (errno {exc.errno} {errno.errorcode.get(exc.errno, '?')})"


def unwritable(path: Path) -> str | None:
    """Why a file cannot be written at `path` (its folder is made if missing), or None."""
    if path.is_dir():
        return "is a folder"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot make its folder: {exc.strerror or exc}"
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return "not writable"
    return None


def out_folder(command: str, out: str | Path) -> Path:
    """An output folder that can be made and written, checked before any work."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise fail(command, f"--out {out}: is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(command, f"--out {out}: cannot make it: {os_reason(exc)}") from None
    try:  # a real write: access() answers for permissions only, and yes to root always
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise fail(command, f"--out {out}: cannot write in it: {os_reason(exc)}") from None
    return path


def holding(out: Path | None, command: str) -> AbstractContextManager[None]:
    """Hold the --out folder `out` for this run alone (`sitesift.io.sinks.hold_folder`: a
    second run into it is refused at once, naming this one); nothing without an --out."""
    if out is None:
        return contextlib.nullcontext()
    from sitesift.io.sinks import hold_folder

    return hold_folder(out, command)


def datasets_folder(command: str, value: str | None) -> Path:
    """The shared corpora's folder: the flag, else $SITESIFT_DATASETS, else a clear error."""
    value = value or os.environ.get(ENV_DATASETS)
    if not value:
        raise fail(command, f"give --datasets DIR (the corpora's folder) or set {ENV_DATASETS}")
    path = Path(value)
    if not path.is_dir():
        raise fail(command, f"no corpora folder at {path}")
    return path


# The longest file name ext4, XFS, Btrfs and APFS take, in bytes (NTFS: 255 UTF-16 units).
NAME_BYTES = 255
# What a page id may not carry into a file name as it is: the escape character itself, path
# separators, control characters and lone surrogates (from a JSON `\ud800`: no file system
# takes them); a leading dot (a hidden file, or `.`/`..`).
_ESCAPE = re.compile(r"^\.|[%/\\\x00-\x1f\x7f\ud800-\udfff]")
_TOKEN = re.compile(r"%[0-9A-F]{2}|.", re.S)  # an escape or one character: never cut apart
_HASHED = "%-"  # marks a shortened name: never in an escaped one (there % leads 2 hex digits)


def output_name(page_id: str, suffix: str) -> str:
    """The file name of a page's output: distinct ids give distinct names. The id with
    `%`, path separators, control characters and a leading dot %-escaped (`unquote` gives
    the id back); an id too long for a file name is cut and ends in `%-` and a hash of the
    whole id; the empty id is `%`."""
    name = _ESCAPE.sub(lambda m: "".join(f"%{b:02X}" for b in _utf8(m.group())), page_id)
    budget = NAME_BYTES - len(suffix.encode())
    if len(name.encode()) > budget:
        digest = hashlib.sha256(_utf8(page_id)).hexdigest()[:24]
        room, kept = budget - len(_HASHED) - len(digest), []
        for token in _TOKEN.findall(name):
            room -= len(token.encode())
            if room < 0:
                break
            kept.append(token)
        name = "".join(kept) + _HASHED + digest
    return (name or "%") + suffix


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate too, as its own bytes


def numbered(name: str, taken: Container[str]) -> str:
    """`name`, or if it is taken the first of `name~2`, `name~3`, ... that is not: how a
    second input of one id is told apart."""
    if name not in taken:
        return name
    k = 2
    while f"{name}~{k}" in taken:
        k += 1
    return f"{name}~{k}"


def write_file(path: Path, body: str) -> None:
    """Write `body` to `path` whole or not at all (a temporary file beside it, renamed)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.part")
    # (mode 0o666 less the umask, as a file written in place would have)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(body)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def error_line(reason: str, *names: str | None) -> str:
    """`NAME: REASON`, the input named once: a reason that already starts with one of its
    names (its id, path or URL: the reader's own words) is not led by the first again."""
    known = [n for n in names if n]
    if any(reason.startswith(f"{n}: ") for n in known) or not known:
        return reason
    return f"{known[0]}: {reason}"


def outcome_error(outcome: Outcome) -> str:
    """The failed input and why, naming it once (`error_line`)."""
    source = outcome.source
    return error_line(str(outcome.error), outcome.id, source.get("path"), source.get("url"))


def write_outcomes(outcomes: Iterable[Outcome], out: Path, fmt: str,
                   metadata: bool = False, keep: LanguageFilter | None = None
                   ) -> tuple[int, int, int]:
    """One file per page (`output_name`), errors.jsonl with one record per failed input,
    and manifest.jsonl with one line per input: its id and its file, or its error, or why
    it was skipped (`keep`, `--lang`: a page whose text is in another language, no file).
    (written, failed, skipped)."""
    out.mkdir(parents=True, exist_ok=True)
    ok = failed = skipped = 0
    ids: set[str] = set()
    with open(out / "errors.jsonl", "w", encoding="utf-8") as errors, \
            open(out / MANIFEST, "w", encoding="utf-8") as manifest:
        for outcome in outcomes:
            page_id = numbered(outcome.id, ids)  # one id twice: the second file apart
            ids.add(page_id)
            record: dict[str, Any] = {"id": outcome.id, "group": outcome.group}
            if outcome.source.get("path"):
                record["path"] = outcome.source["path"]
            result, packed = outcome.result, outcome.record
            if result is None and packed is None:
                failed += 1
                record["reason"] = outcome.error
                errors.write(_line(record))
                manifest.write(_line({**record, "file": None}))
                continue
            language = packed.get("language") if packed is not None else (
                result.language if result is not None else None)
            if keep is not None and not keep.keeps(language):
                skipped += 1
                manifest.write(_line({**record, "file": None, "skipped": SKIP_REASON,
                                      "language": language}))
                continue
            ok += 1
            name = output_name(page_id, FORMATS[fmt])
            # (the body made where the page was cleaned, `output.file_record`, or here)
            if packed is not None:
                body = str(packed["body"])
            elif result is not None:
                body = render_result(result, fmt, metadata)
            (out / name).write_text(body + "\n", "utf-8")
            manifest.write(_line({**record, "file": name}))
    return ok, failed, skipped


def _line(record: dict[str, Any]) -> str:
    text = json.dumps(record, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (an id from JSON's "\ud800"): as its escape
        text = json.dumps(record)
    return text + "\n"


def note(args: argparse.Namespace, message: str) -> None:
    """A line for the person at the terminal (stderr), unless --quiet."""
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr)
