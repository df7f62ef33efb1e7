"""The package's layout holds: no import circle between its modules (imports inside
functions and under TYPE_CHECKING included, as a reader follows them) and no module over
500 lines (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "sitesift"
MAX_LINES = 500


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules `name` imports: `from a.b import c` is `a.b.c` where that is
    a module, else `a.b`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return {m for m in found if m in known and m != name}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_circle_finder_finds_a_circle_and_only_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]


def test_no_module_of_the_package_imports_itself_back() -> None:
    mods = _modules()
    known = set(mods)
    # a package's __init__ importing its own submodules is how a package is made, not a circle
    graph = {m: {i for i in _imports(m, p, known) if not i.startswith(m + ".")}
             for m, p in mods.items()}
    assert _circles(graph) == []


def test_no_module_is_over_500_lines() -> None:
    long = {_module_name(p): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


NATIVE = SRC.parent / "native" / "src"


def _crate_modules() -> dict[str, list[Path]]:
    """The crate's modules below `lib.rs`: each file, and each folder of files (`rules/`,
    opened by its `mod.rs`) as one module."""
    files = {p.stem: [p] for p in NATIVE.glob("*.rs") if p.stem not in ("lib", "main")}
    folders = {d.name: sorted(d.rglob("*.rs")) for d in NATIVE.iterdir() if (d / "mod.rs").exists()}
    return files | folders


def _crate_uses(name: str, paths: list[Path], known: set[str]) -> set[str]:
    """The crate's modules a module's files name (`crate::name`), its tests left out (a test
    module may borrow another's fixtures without making the code circular)."""
    import re

    code = "".join(p.read_text(encoding="utf-8").split("#[cfg(test)]")[0] for p in paths)
    return {m for m in re.findall(r"\bcrate::(\w+)", code) if m in known and m != name}


def test_no_module_of_the_native_crate_uses_itself_back() -> None:
    modules = _crate_modules()
    assert "rules" in modules and len(modules["rules"]) > 1
    graph = {m: _crate_uses(m, paths, set(modules)) for m, paths in modules.items()}
    assert _circles(graph) == []


def test_every_benchmark_script_is_named_in_its_readme() -> None:
    """benchmarks/README.md tells the maintained tools from the studies: a new script must
    say which it is."""
    bench = SRC.parent / "benchmarks"
    readme = (bench / "README.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in bench.glob("*.py") if f"`{p.name}`" not in readme) == []
