"""`sitesift clean`, `fit`, `methods` and `demo`: cleaning pages, fitting a site's model,
what each method takes, and the bundled demonstration."""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitesift.cli.common import (
    FORMATS,
    GROUPINGS,
    MANIFEST,
    OK,
    SAMPLE_SITE,
    SOME_FAILED,
    STDIN,
    USAGE,
    add_limits,
    add_quiet,
    add_workers,
    error_line,
    expand_inputs,
    fail,
    holding,
    limits,
    note,
    numbered,
    out_folder,
    outcome_error,
    render_result,
    run_settings,
    unwritable,
    write_file,
    write_outcomes,
)
from sitesift.cli.fallback import add_fallback_below, clean_policy, fallback_routes
from sitesift.cli.settings import checked_cleaner, parse_set
from sitesift.errors import SettingsError
from sitesift.output import Output, file_record

if TYPE_CHECKING:
    from sitesift.batch import Outcome, Source, WarningTally
    from sitesift.guards import Limits
    from sitesift.language import LanguageFilter


def add_parsers(sub: Any, methods: list[str]) -> None:
    p = sub.add_parser(
        "clean", help="clean pages: files, folders, datasets, URLs or stdin",
        description="Clean pages and write their main content. With one input and no --out "
                    "the result goes to stdout, with -o FILE to that file; with several "
                    "inputs (or -o DIR/), one file per page in the folder (named from its "
                    "id; manifest.jsonl maps ids to files) and errors.jsonl. Site "
                    "evidence: the default cleaner compares the pages of a site group "
                    "cleaned together (a folder's, a dataset's, several files of one "
                    "site), and what repeats across them reads as template; a lone page "
                    "has none, so one page may come out differently alone and in its "
                    "folder (a byline, say). The JSON's meta.evidence says which: \"page\" "
                    "or \"site (N pages)\"; --set site=false cleans every page alone. "
                    "Exit 0: every input gave a result; 1: some failed (see the summary "
                    "and errors.jsonl); 2: the command could not run as given; 3: the "
                    "machine stopped it (a full disk, a path it cannot write).")
    p.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="a page file, a folder of pages, a dataset folder (index.jsonl + "
                        "pages/), a text file listing page paths, a glob, an http(s) URL, or "
                        "- for stdin (also when no INPUT is given)")
    p.add_argument("-o", "--out", metavar="FILE|DIR",
                   help="with one page (a page file, a URL or stdin): the file to write it "
                        "to, unless OUT is a folder or ends in /; otherwise (several inputs, "
                        "a folder, a dataset, a list, a glob) the folder for one file per "
                        "page, manifest.jsonl and errors.jsonl")
    p.add_argument("--method", default="default", choices=methods,
                   help="the cleaner; `sitesift methods` describes each")
    add_fallback_below(p, "json keeps the first method's in meta.fallback_from", methods)
    p.add_argument("--format", default="text", choices=sorted(FORMATS),
                   help="text (paragraphs, line breaks and code lines kept), markdown, html "
                        "(a clean document of the same structure), or json (the text, and "
                        "every block with its label and score)")
    p.add_argument("--links", action="store_true",
                   help="keep links as links (markdown, html), resolved against the page's "
                        "URL and <base href>")
    p.add_argument("--images", action="store_true",
                   help="keep images (markdown, html; text: their alt text)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a method's setting (preset=precision); --set help lists them. "
                        "title=keep: the page's title atop the content, headline kept or not. "
                        "drop=CSS / keep=CSS: what a CSS selector matches (in a site group, "
                        "its style path on every page) goes / stays (docs/usage.md)")
    p.add_argument("--group-by", default="site", choices=GROUPINGS,
                   help="site groups for site-level methods (the index's site, else the "
                        "host of the URL a page declares)")
    p.add_argument("--model", help="a fitted model file (`sitesift fit`) to clean with")
    p.add_argument("--metadata", action="store_true",
                   help="also read each page's metadata (title, author, date, site name, "
                        "language, canonical URL, description) and write it: json in "
                        "meta.metadata, markdown as YAML front matter, text as a header "
                        "block (one `key: value` line each, then a blank line), html as "
                        "<meta> tags; costs time")
    p.add_argument("--front-matter", action="store_true",
                   help="with --format markdown: lead each page with its metadata as YAML "
                        "front matter between --- lines (implies --metadata)")
    p.add_argument("--lang", metavar="CODES",
                   help="only pages whose main text is in one of these languages (ISO 639-1 codes, "
                        "e.g. de,fr; detected from the text, not the page's declaration): "
                        "the others are counted as skipped (reason `language`)")
    add_workers(p)
    add_limits(p)
    add_quiet(p)
    p.set_defaults(func=cmd_clean)

    p = sub.add_parser("fit", help="fit a site-level model on pages of one site")
    p.add_argument("path", help="a folder of one site's pages, a dataset folder or a list")
    p.add_argument("--method", default="sst", choices=methods)
    p.add_argument("-o", "--out", required=True, help="the model file to write (.json)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting of the method (--set help lists them)")
    add_limits(p)
    add_quiet(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("methods", help="the methods, and the settings each takes (--set)")
    p.add_argument("method", nargs="?", choices=methods, help="only this method")
    p.set_defaults(func=cmd_methods)

    p = sub.add_parser("demo", help="fit, clean and score the bundled sample site")
    p.add_argument("-o", "--out", default="sitesift-demo", help="output folder")
    p.set_defaults(func=cmd_demo)


def describe(method: str) -> str:
    """The method's first docstring paragraph and its settings: each with its default, the
    values it takes and one line on what it does (`methods.base.settings_help`)."""
    from sitesift.methods.base import get_class, settings_help

    cls = get_class(method)
    doc = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
    lines = [f"{method}: {doc}"]
    kind = "site-level (fitted on pages of a site)" if cls.site_level else "page-level"
    lines.append(f"  {kind}{'; renders pages in Chromium' if cls.needs_browser else ''}")
    settings = settings_help(method)
    if not settings:
        lines.append("  (no settings)")
        return "\n".join(lines)
    lines.append("  settings (--set KEY=VALUE; shown with its default), the values each "
                 "takes, what it does:")
    shown = [f"--set {s.name}={_show(s.default)}" for s in settings]
    width = max((len(text) for text in shown if len(text) <= 32), default=0)  # (long: apart)
    for text, s in zip(shown, settings, strict=True):
        about = "  ".join(part for part in (f"[{s.values}]" if s.values else "", s.doc) if part)
        lines.append(f"  {text:<{width}}  {about}".rstrip())
    return "\n".join(lines)


def _show(value: Any) -> str:
    import json

    return value if isinstance(value, str) else json.dumps(value)


def cmd_methods(args: argparse.Namespace) -> int:
    from sitesift.methods.base import method_names

    names = [args.method] if args.method else method_names()
    print("\n\n".join(describe(m) for m in names))
    return OK


def _help_asked(args: argparse.Namespace) -> bool:
    if "help" in args.set:
        print(describe(args.method))
        return True
    return False


def _sources(command: str, inputs: list[str], grouping: str
             ) -> tuple[dict[str, list[Source]], list[Outcome]]:
    """Site groups of every input's pages, and the inputs that failed before cleaning (a
    URL that could not be fetched)."""
    from sitesift.batch import Outcome, Source
    from sitesift.errors import InputError
    from sitesift.inputs import collect_sources
    from sitesift.io.fetch import fetch, is_url
    from sitesift.io.listing import declared_in
    from sitesift.jobs.grouping import group_key, host_of
    from sitesift.jobs.source import error_source
    from sitesift.reading import text_name

    groups: dict[str, list[Source]] = {}
    failed: list[Outcome] = []
    seen: set[str] = set()

    def add(group: str, source: Source) -> None:
        if source.id in seen:  # two inputs naming one page: the second gets a new id
            source = replace(source, id=numbered(source.id, seen))
        seen.add(source.id)
        groups.setdefault(group, []).append(source)

    for value in inputs:
        if value == STDIN:
            if sys.stdin is None or sys.stdin.isatty():
                raise fail(command, "no INPUT given and nothing piped to stdin")
            data = sys.stdin.buffer.read()
            # (the URL the page declares, as a page file's: `io.listing.declared_in`)
            add("stdin", Source("stdin", "", {"url": declared_in(data[:65536])}, data=data))
        elif is_url(value):
            try:
                got = fetch(value)
            except InputError as exc:
                failed.append(Outcome(value, host_of(value) or "unknown", error=str(exc),
                                      source={"url": value}))
                continue
            group = host_of(got.url) or "unknown"
            add(group if grouping != "none" else "all",
                Source(value, "", {"url": got.url}, data=got.data,
                       content_type=got.content_type))
        else:
            try:
                found = collect_sources(Path(value), grouping)
            except InputError as exc:
                if not _page_or_list(value):  # a WARC, a FIFO: how it was called is wrong
                    raise fail(command, error_line(str(exc), value)) from None
                # a file that is neither a page nor a list of them (binary, say) fails as
                # a page named so would: an error record, exit status 1
                name = text_name(value)
                add(group_key({"id": name, "site": "unknown"}, grouping),
                    error_source(name, str(exc).removeprefix(f"{name}: ")))
                continue
            except OSError as exc:
                raise fail(command, f"{value}: {exc}") from None
            for group, members in found.items():
                for s in members:
                    add(group, s)
    return groups, failed


def cmd_clean(args: argparse.Namespace) -> int:
    if _help_asked(args):
        return OK
    command = "clean"
    params = parse_set(args.set, command=command)
    output = _output(command, args, params)  # takes title= out of the method's settings
    keep = None
    if args.lang is not None:  # a bad code is refused before any page is read (exit 2)
        from sitesift.language import LanguageFilter, parse_languages

        keep = LanguageFilter(parse_languages(args.lang))
    # Everything that can be wrong with the settings is found before any page is read.
    if args.model:
        from sitesift.errors import ModelError
        from sitesift.model_io import load_model

        try:
            load_model(args.model)
        except (ModelError, OSError) as exc:
            raise fail(command, f"--model {args.model}: {exc}") from None
        if params:  # the model file holds its method's settings: one would go unread
            raise fail(command, f"--set {next(iter(params))}: --model {args.model} cleans "
                                "with the settings it was fitted with (set them at `sitesift "
                                "fit`)")
    else:
        checked_cleaner(command, args.method, params, workers=_to_folder(args))
    fallback_routes(command, args, params)  # --fallback-below's settings, checked now
    guards = limits(args)
    inputs = expand_inputs(command, args.inputs)
    if args.out and _to_file(args.out, args.inputs, inputs):
        from sitesift.io.sinks import hold_file

        target = Path(args.out)
        if target.exists() and inputs[0] != STDIN and Path(inputs[0]).exists() \
                and target.samefile(inputs[0]):
            raise fail(command, f"--out {args.out}: is the page's own file")
        if problem := unwritable(target):
            raise fail(command, f"--out {args.out}: {problem}")
        with hold_file(target, command):  # no other run writes this file meanwhile
            return _clean(args, inputs, None, params, output, guards, keep, target)
    out = out_folder(command, args.out) if args.out else None
    with holding(out, command):  # no other run writes into --out meanwhile
        return _clean(args, inputs, out, params, output, guards, keep)


def _to_folder(args: argparse.Namespace) -> bool:
    """Whether the pages surely go to an --out folder, cleaned in worker processes (before
    the inputs are expanded: a page, or -o FILE, may still be one cleaned here)."""
    out, given = args.out, args.inputs
    return bool(out) and (Path(out).is_dir() or out.endswith(("/", os.sep)) or len(given) > 1
                          or (len(given) == 1 and Path(given[0]).is_dir()))


def _to_file(out: str, given: list[str], inputs: list[str]) -> bool:
    """Whether `--out` names the file for one page: one INPUT (not a glob) that is one page
    (a page file, a URL, stdin), and `out` is no folder and does not end in a separator."""
    from sitesift.io.fetch import is_url

    if Path(out).is_dir() or out.endswith(("/", os.sep)) or len(given) > 1 \
            or len(inputs) != 1 or (given and given[0] != inputs[0]):
        return False
    value = inputs[0]
    return value == STDIN or is_url(value) or _page_or_list(value, one_page=True)


def _page_or_list(value: str, *, one_page: bool = False) -> bool:
    """Whether the file `value` is read as a page or a list of them (not a WARC, a JSONL
    file, a folder or a FIFO); `one_page`: as one page, or as neither (a binary file)."""
    from sitesift.errors import InputError
    from sitesift.io.listing import input_kind, listed_files

    path = Path(value)
    try:
        kind = input_kind(path) if path.is_file() else None
        if kind == "page" or (kind == "list" and not one_page):
            return True
        return kind == "list" and listed_files(path) == [path]
    except InputError:  # a file that is neither: it fails as one page
        return True


def _clean(args: argparse.Namespace, inputs: list[str], out: Path | None,
           params: dict[str, Any], output: Output, guards: Limits,
           keep: LanguageFilter | None = None, target: Path | None = None) -> int:
    """Clean the inputs into the folder `out`, the file `target`, or stdout; `keep`
    (`--lang`): only the pages in its languages, the others counted as skipped."""
    from sitesift.batch import WarningTally, run_groups

    command = "clean"
    groups, prefailed = _sources(command, inputs, args.group_by)
    pages = sum(len(m) for m in groups.values())
    if out is None and pages + len(prefailed) != 1:
        raise fail(command, f"{pages + len(prefailed)} pages: give -o/--out DIR for more "
                            "than one (stdout or -o FILE takes one page)")
    tally = WarningTally()
    if out is None:
        # (no page: the one input was a URL that could not be fetched)
        outcomes = (_one_page(args, groups, params, output, guards.page_seconds)
                    if pages == 1 else list(prefailed))
        (outcome,) = _tallied(args, tally, outcomes)
        if outcome.result is None:
            print(f"sitesift clean: {outcome_error(outcome)}", file=sys.stderr)
            return SOME_FAILED
        if keep is not None and not keep.keeps(outcome.result.language):
            note(args, f"sitesift clean: {outcome.id}: skipped (language): its text is in "
                       f"{outcome.result.language or 'no language'}, not in --lang {keep}")
            return OK
        body = render_result(outcome.result, args.format, output.metadata) + "\n"
        if target is None:
            sys.stdout.write(body)
        else:
            write_file(target, body)
            note(args, f"sitesift clean: {outcome.id} -> {target}")
        return OK
    # (each page's file body made where it was cleaned: a body crosses from a worker in a
    # fraction of the time its Result does)
    pack = partial(file_record, fmt=args.format, metadata=output.metadata)
    policy = clean_policy(args, params, output, pack=pack)
    stream = itertools.chain(prefailed, run_groups(groups, policy, run_settings(args, guards)))
    ok, failed, skipped = write_outcomes(_tallied(args, tally, stream), out, args.format,
                                         output.metadata, keep)
    inputs_n = pages + len(prefailed)
    # the accounting, also under --quiet: what exit status 1 refers to
    print(f"sitesift clean: {inputs_n} inputs = {ok} pages cleaned + {failed} errors "
          + (f"+ {skipped} skipped (language not in --lang {keep}) " if keep else "")
          + f"(see {out}/errors.jsonl; each input's file: {out}/{MANIFEST}), {len(groups)} "
          "site groups, "
          + (f"model {args.model}" if args.model else f"method {args.method}")
          + (f", {tally.count} warnings ({tally.pages} pages, {len(tally.fits)} fits)"
             if tally.count else ""), file=sys.stderr)
    return OK if failed == 0 and inputs_n == ok + skipped else SOME_FAILED


def _output(command: str, args: argparse.Namespace, params: dict[str, Any]) -> Output:
    """What each result carries, from the flags and the `title` setting (which is the
    output's, not the method's: it is taken out of `params`)."""
    if args.front_matter and args.format != "markdown":
        raise fail(command, "--front-matter is for --format markdown")
    if args.links and args.format not in ("markdown", "html"):
        raise fail(command, "--links is for --format markdown or html")
    title = params.pop("title", "model")
    # json: the text with its structure, beside every block
    rendering = "text" if args.format == "json" else args.format
    try:
        return Output(renderings=(rendering,), links=args.links, images=args.images,
                      title=str(title), metadata=args.metadata or args.front_matter,
                      noise=args.format == "json")
    except SettingsError as exc:
        raise fail(command, f"--set {exc}") from None


def _one_page(args: argparse.Namespace, groups: dict[str, list[Source]],
              params: dict[str, Any], output: Output, seconds: float) -> list[Outcome]:
    """One page for stdout, cleaned in this process (a worker process would cost more than
    the page): a watchdog ends the command past --page-timeout, with exit status 1."""
    import os
    import threading

    from sitesift.batch import clean_group

    def overtime() -> None:
        print(f"sitesift clean: the page took more than {seconds:g} s (--page-timeout)",
              file=sys.stderr, flush=True)
        os._exit(SOME_FAILED)

    watchdog = threading.Timer(seconds, overtime)
    watchdog.daemon = True
    watchdog.start()
    try:
        ((group, sources),) = groups.items()
        return clean_group(clean_policy(args, params, output), group, sources)
    finally:
        watchdog.cancel()


def _tallied(args: argparse.Namespace, tally: WarningTally, outcomes: Iterable[Outcome]
             ) -> Iterator[Outcome]:
    """The outcomes as they come, their warnings counted and shown on stderr: a weak fit
    once per site group, a page's own (a page whose text a script fills in) with its id."""
    for outcome in outcomes:
        for line in tally.add(outcome):
            print(f"sitesift {args.command}: warning: {line}", file=sys.stderr)
        for warning in outcome.warnings:
            note(args, f"sitesift {args.command}: warning: {outcome.id}: {warning}")
        yield outcome


def cmd_fit(args: argparse.Namespace) -> int:
    from sitesift.io.sinks import hold_file

    if _help_asked(args):
        return OK
    params = parse_set(args.set, command="fit")
    checked_cleaner("fit", args.method, params)
    if problem := unwritable(Path(args.out)):
        raise fail("fit", f"--out {args.out}: {problem}")
    if not Path(args.path).exists():
        raise fail("fit", f"{args.path}: no such file or folder")
    with hold_file(Path(args.out), "fit"):  # no other fit writes this model meanwhile
        return _fit(args, params)


def _fit(args: argparse.Namespace, params: dict[str, Any]) -> int:
    from sitesift.batch import RunSettings, SitePolicy, fit_sources
    from sitesift.inputs import collect_sources

    groups = collect_sources(Path(args.path), "none")
    sources = [s for members in groups.values() for s in members]
    report = fit_sources(sources, SitePolicy(args.method, params), args.out,
                         RunSettings(limits=limits(args)))
    for outcome in report.errors:
        print(f"sitesift fit: skipped {outcome_error(outcome)}", file=sys.stderr)
    fitted = report.fitted
    for warning in fitted.warnings:
        print(f"sitesift fit: warning: {warning}", file=sys.stderr)
    print(f"sitesift fit: {len(sources)} inputs = {fitted.pages} pages fitted on + "
          f"{len(report.errors)} errors", file=sys.stderr)
    if fitted.error is not None:
        print(f"sitesift fit: no model: {fitted.error}", file=sys.stderr)
        return USAGE
    note(args, f"sitesift fit: {args.method} model from {fitted.pages} pages in "
               f"{fitted.seconds:.2f} s -> {args.out}")
    return OK if len(sources) == fitted.pages + len(report.errors) else SOME_FAILED


def cmd_demo(args: argparse.Namespace) -> int:
    """Fit a Site Style Tree on the bundled sample site, clean every page, score and save."""
    out = out_folder("demo", args.out)
    with holding(out, "demo"):
        return _demo(out)


def _demo(out: Path) -> int:
    from sitesift.batch import SitePolicy, clean_group
    from sitesift.evaluate import evaluate, summary_table
    from sitesift.inputs import collect_sources
    from sitesift.methods.base import get_cleaner
    from sitesift.model_io import save_model

    groups = collect_sources(SAMPLE_SITE, "site")
    sources = [s for members in groups.values() for s in members]
    pages = [s.load() for s in sources]
    start = time.perf_counter()
    model = get_cleaner("sst").fit(pages)
    fit_s = time.perf_counter() - start
    model_path = save_model(model, out / "sample_site.sst.json")
    outcomes = clean_group(SitePolicy("sst", model=str(model_path)), "sample", sources)
    ok, failed, _ = write_outcomes(outcomes, out / "pages", "text")
    # Beside the tree: all text (the floor) and the default cleaner (what `clean` runs).
    rows = evaluate([SAMPLE_SITE], ["alltext", "sst", "default"])
    table = summary_table(rows)
    (out / "summary.md").write_text(table + "\n", encoding="utf-8")
    print(f"fitted a Site Style Tree on {len(pages)} pages in {fit_s:.2f} s -> {model_path}")
    print(f"cleaned {ok} pages ({failed} errors) -> {out / 'pages'}")
    print(table)
    return OK
