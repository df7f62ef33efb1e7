"""rs-trafilatura, run from a CPython 3.12 interpreter in a subprocess.

Its wheels exist for CPython 3.12 only, so the harness keeps a venv of its own under the
cache directory (`$XDG_CACHE_HOME/sitesift/rs-trafilatura-venv`, else `~/.cache/...`),
made on first use with a 3.12 interpreter found as: `$SITESIFT_PYTHON312`, `python3.12` on
PATH, then pyenv's `~/.pyenv/versions/3.12*/bin/python3.12`. Pages go to the worker
(`rs_worker.py`) as JSON lines; where no interpreter or wheel is found the peer is skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sitesift.bench.unavailable import PeerUnavailable

WORKER = Path(__file__).with_name("rs_worker.py")
PAGE_TIMEOUT_S = 300.0  # a page the worker has not answered by then kills it
_SETUP_TIMEOUT_S = 600.0


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sitesift"


def _is_python312(path: str) -> bool:
    # A pyenv shim on PATH may exist and still fail to run: ask the interpreter itself.
    try:
        return subprocess.run([path, "-c", "import sys; assert sys.version_info[:2] == (3, 12)"],
                              capture_output=True, timeout=30, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def find_python312() -> str | None:
    candidates = [os.environ.get("SITESIFT_PYTHON312"), shutil.which("python3.12")]
    candidates += [str(p) for p in
                   sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python3.12"), reverse=True)]
    return next((c for c in candidates if c and _is_python312(c)), None)


def _run(cmd: list[str], what: str) -> None:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=_SETUP_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PeerUnavailable(f"rs-trafilatura: {what} failed: {exc}") from None
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise PeerUnavailable(f"rs-trafilatura: {what} failed: {' / '.join(tail)}")


def ensure_venv(venv: Path | None = None) -> Path:
    """The venv's interpreter, with rs-trafilatura installed (made on first use)."""
    venv = venv or cache_dir() / "rs-trafilatura-venv"
    python = venv / "bin" / "python"
    if python.exists() and subprocess.run(
            [str(python), "-I", "-c", "import rs_trafilatura"], capture_output=True,
            check=False).returncode == 0:
        return python
    base = find_python312()
    if base is None:
        raise PeerUnavailable("rs-trafilatura: its wheels need CPython 3.12 and no python3.12 "
                              "was found (set SITESIFT_PYTHON312)")
    if not python.exists():
        _run([base, "-m", "venv", str(venv)], f"making a venv in {venv}")
    _run([str(python), "-m", "pip", "install", "--quiet", "rs-trafilatura"],
         "pip install rs-trafilatura (3.12)")
    return python


class Worker:
    """One worker process; restarted after it dies, so one bad page costs one page."""

    def __init__(self, python: Path) -> None:
        self.python = python
        self.proc: subprocess.Popen[bytes] | None = None
        self.version = "?"

    @classmethod
    def start(cls) -> Worker:
        worker = cls(ensure_venv())
        worker._spawn()
        return worker

    def _spawn(self) -> None:
        self.proc = subprocess.Popen([str(self.python), "-I", str(WORKER)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        hello = self._read(60.0)
        if "version" not in hello:
            self.close()
            raise PeerUnavailable(f"rs-trafilatura worker: {hello.get('error', hello)}")
        self.version = str(hello["version"])

    def _read(self, timeout: float) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else b""
        if not line:
            if ready:  # end of output: the worker died
                try:
                    why = f"exited with code {self.proc.wait(timeout=10)}"
                except subprocess.TimeoutExpired:
                    why = "closed its output"
            else:
                why = f"gave no answer in {timeout} s"
            self.close()
            raise RuntimeError(f"rs-trafilatura worker {why}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def run(self, html: str, url: str | None, markdown: bool = False
            ) -> tuple[str, float, float]:
        """(text, or with `markdown` its markdown output; wall and CPU ms of the extract
        call in the worker); raises on the page's error."""
        reply = self._ask({"html": html, "url": url, "markdown": markdown})
        return str(reply["text"]), float(reply["ms"]), float(reply.get("cpu_ms", reply["ms"]))

    def typed(self, html: str, url: str | None, page_type: str | None = None
              ) -> tuple[str, str | None]:
        """(text, the page type rs-trafilatura extracted the page as): by its classifier,
        or `page_type` forced (one of its types, or "url": its URL heuristics alone)."""
        reply = self._ask({"html": html, "url": url, "page_type": page_type})
        kind = reply.get("page_type")
        return str(reply["text"]), None if kind is None else str(kind)

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """The worker's reply to one request; raises on the page's error."""
        if self.proc is None:
            self._spawn()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.close()
            raise RuntimeError("rs-trafilatura worker died") from None
        reply = self._read(PAGE_TIMEOUT_S)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply

    def close(self) -> None:
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        if proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
