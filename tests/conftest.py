"""Shared helpers: toy pages and the location of the shared corpora."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import socketserver
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sitesift.browser.chromium import check_available, close_shared
from sitesift.page import Page

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def as_written(doc: dict[str, Any]) -> bytes:
    """A model document's JSON bytes as sitesift writes them (compact, in its key order)
    with the seal it holds: written after a change, it is tampering the seal must catch.
    `sitesift.model_io.seal` makes a changed document that passes the seal instead."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def benchmark_script(name: str) -> ModuleType:
    """`benchmarks/<name>.py` imported as module `name` (registered in `sys.modules`, where
    dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def page(html: str, id: str = "p") -> Page:
    return Page.from_html(html, id=id)


def shared_dataset(name: str) -> Path:
    """A corpus of ../shared/datasets, or skip the test with a clear message."""
    path = SHARED / name
    if not (path / "index.jsonl").is_file():
        pytest.skip(f"shared corpus {name!r} not found at {path} (needs ../shared/datasets)")
    return path


# Why no browser can render here (None: Chromium and Playwright are present).
BROWSER_MISSING = check_available()
needs_browser = pytest.mark.skipif(
    BROWSER_MISSING is not None,
    reason=f"rendering tests need Chromium and Playwright: {BROWSER_MISSING}")


@pytest.fixture(autouse=True, scope="module")
def _no_browser_left() -> Iterator[None]:
    """Close this thread's shared browsers after each module: Playwright's sync API allows
    one driver per thread, and later modules may start their own."""
    yield
    close_shared()


def refused(argv: list[str], match: str = "") -> str:
    """Run the command line expecting a refusal of how it was called: exit status 2 and
    `match` (a pattern) in what it printed on stderr; returns that. A refusal by argparse
    (an option's type: `--page-timeout nan`) exits through SystemExit, caught here."""
    import contextlib
    import io
    import re

    from sitesift.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code  # type: ignore[assignment]
    assert code == 2, f"exit {code}, stderr: {err.getvalue()}"
    assert re.search(match, err.getvalue()), err.getvalue()
    return err.getvalue()


@contextlib.contextmanager
def loopback_server(handler: type[socketserver.BaseRequestHandler],
                    server_type: type[socketserver.TCPServer] = socketserver.ThreadingTCPServer
                    ) -> Iterator[str]:
    """A server of `handler` on 127.0.0.1 (a free port) for the block: its http:// address.
    Tests send traffic only here."""
    server = server_type(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
