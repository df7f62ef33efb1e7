"""Fuzzing model files of every method: flipped bytes, truncations, values of another type,
oversized and deeply nested arrays, dropped and foreign keys, with and without a checksum
made to match. Loading gives a ModelError that names the file, never another exception; a
mutated file that still validates cleans pages with nothing but sitesift's own errors; and
nothing is ever unpickled or evaluated on the way.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import gzip
import json
import marshal
import pickle
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitesift.errors import ModelError, ModelVersionWarning, SitesiftError
from sitesift.methods.base import Cleaner, get_cleaner, method_names
from sitesift.model_io import load_model, save_model, seal, seal_bytes
from tests.conftest import as_written, page
from tests.methods.test_sst import TOY

SRC = Path(__file__).resolve().parents[1] / "src" / "sitesift"
PAGES = [page(h, f"p{i}") for i, h in enumerate(TOY)]
UNSEEN = page('<body><div class="nav">home news</div><div class="main"><p>zeta</p></div>'
              '<div class="ad">buy now</div></body>', "new")
METHODS = [m for m in method_names() if not get_cleaner(m).needs_browser]
FUZZ = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@contextlib.contextmanager
def no_foreign_code() -> Iterator[None]:
    """Unpickling, unmarshalling and eval fail loudly while this is active."""
    def refuse(*args: object, **kwargs: object) -> Any:
        raise AssertionError("a model file must never be unpickled or evaluated")

    saved = [(pickle, "loads"), (pickle, "load"), (pickle, "Unpickler"), (marshal, "loads"),
             (builtins, "eval")]
    originals = [getattr(mod, name) for mod, name in saved]
    for mod, name in saved:
        setattr(mod, name, refuse)
    try:
        yield
    finally:
        for (mod, name), original in zip(saved, originals, strict=True):
            setattr(mod, name, original)


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each method's fitted model as a JSON document."""
    folder = tmp_path_factory.mktemp("models")
    docs = {}
    for method in METHODS:
        cleaner = get_cleaner(method)
        try:
            if cleaner.site_level:
                cleaner.fit(PAGES)
            path = save_model(cleaner, folder / f"{method}.json")
        except SitesiftError:  # e.g. a method whose shipped data is not built here
            continue
        docs[method] = json.loads(path.read_text("utf-8"))
    return docs


def _doc(models: dict[str, dict[str, Any]], method: str) -> dict[str, Any]:
    if method not in models:
        pytest.skip(f"{method} cannot be fitted and saved in this checkout")
    return copy.deepcopy(models[method])


def _load(path: Path) -> Cleaner | None:
    """Load under the no-foreign-code guard: a ModelError naming the file, or a cleaner.
    A mutated writer's version is only warned of (`check_writer`): not shown here."""
    with no_foreign_code(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelVersionWarning)
        try:
            return load_model(path)
        except ModelError as exc:
            assert str(path) in str(exc), exc
            return None


def _use(cleaner: Cleaner) -> None:
    """A model that validated must clean pages, or fail with sitesift's own errors only."""
    for p in [*PAGES, UNSEEN]:
        with contextlib.suppress(SitesiftError):
            cleaner.clean(p).text.encode("utf-8", "surrogatepass")


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a document a value can be changed."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node[:50]):  # long lists: their head is enough
            yield from _paths(value, (*prefix, i))


def _nested(depth: int) -> list[Any]:
    out: list[Any] = []
    for _ in range(depth):
        out = [out]
    return out


DEEP = "\x00deep\x00"  # stands for arrays nested past any parser's recursion limit
values = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
    st.lists(st.integers(-3, 3), max_size=4),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
    st.just(_nested(400)), st.just(DEEP),
)
actions = st.sampled_from(["replace", "replace", "replace", "delete", "grow", "foreign-key"])


def _mutate(doc: dict[str, Any], path: tuple[Any, ...], action: str, value: Any) -> None:
    *parents, last = path
    holder: Any = doc
    for key in parents:
        holder = holder[key]
    if action == "delete" and isinstance(holder, dict):
        del holder[last]
    elif action == "grow":  # oversized: the array (or value) repeated a thousand times
        target = holder[last]
        holder[last] = (target * 1000) if isinstance(target, list) and target else [target] * 1000
    elif action == "foreign-key":
        target = holder[last]
        if isinstance(target, dict):
            target["__class__"] = "os.system"
        else:
            holder[last] = {"__reduce__": ["os.system", ["true"]], "value": target}
    else:
        holder[last] = value


@pytest.mark.parametrize("method", METHODS)
@FUZZ
@given(data=st.data())
def test_mutated_values_give_a_model_error_or_a_working_model(
        models: dict[str, dict[str, Any]], method: str, tmp_path: Path, data: st.DataObject
) -> None:
    doc = _doc(models, method)
    paths = [p for p in _paths(doc) if p and (p[0] in ("params", "state") or len(p) == 1)]
    path = data.draw(st.sampled_from(paths), label="path")
    _mutate(doc, path, data.draw(actions, label="action"), data.draw(values, label="value"))
    resum = data.draw(st.booleans(), label="checksum made to match")
    raw = b""
    with contextlib.suppress(TypeError, ValueError, RecursionError, KeyError):
        # the checksum is no secret: validation, not the seal, must stop a resealed file
        raw = seal(doc) if resum else as_written(doc)
    if not raw:  # the mutation broke the document's own structure: write what is left
        resum, raw = False, as_written({k: v for k, v in doc.items()
                                        if k in ("format", "method")})
    deep = raw.replace(json.dumps(DEEP).encode(), ("[" * 100_000 + "]" * 100_000).encode())
    if resum and deep != raw:  # sealed again over the deep arrays
        deep = seal_bytes(deep, doc["format"], doc["format_version"])
    raw = deep
    file = tmp_path / f"{method}.json"
    file.write_bytes(raw)
    cleaner = _load(file)
    if cleaner is not None:
        _use(cleaner)


@pytest.mark.parametrize("method", METHODS)
@FUZZ
@given(data=st.data())
def test_damaged_bytes_give_a_model_error(models: dict[str, dict[str, Any]], method: str,
                                          tmp_path: Path, data: st.DataObject) -> None:
    raw = seal(_doc(models, method))
    if data.draw(st.booleans(), label="gzip"):
        raw = gzip.compress(raw, mtime=0)
    damage = data.draw(st.sampled_from(["flip", "truncate", "insert"]), label="damage")
    at = data.draw(st.integers(0, len(raw) - 1), label="at")
    if damage == "flip":
        flips = data.draw(st.lists(st.integers(0, len(raw) - 1), min_size=1, max_size=8))
        buf = bytearray(raw)
        for i in [at, *flips]:
            buf[i] ^= data.draw(st.integers(1, 255))
        raw = bytes(buf)
    elif damage == "truncate":
        raw = raw[:at]
    else:
        raw = raw[:at] + data.draw(st.binary(min_size=1, max_size=16)) + raw[at:]
    file = tmp_path / f"{method}.json"
    file.write_bytes(raw)
    cleaner = _load(file)
    if cleaner is not None:  # a flip inside gzip's header fields can leave the content whole
        _use(cleaner)


@pytest.mark.parametrize("method", METHODS)
def test_changed_checksum_is_caught(models: dict[str, dict[str, Any]], method: str,
                                    tmp_path: Path) -> None:
    for checksum in ("0" * 64, "f" * 64, "0" * 63, "", None, 42, ["x"]):
        doc = _doc(models, method)
        doc["sha256"] = checksum
        file = tmp_path / "m.json"
        file.write_bytes(as_written(doc))
        with pytest.raises(ModelError, match="checksum mismatch") as info:
            load_model(file)
        assert str(file) in str(info.value)


def test_oversized_files_and_arrays_are_refused(models: dict[str, dict[str, Any]],
                                                tmp_path: Path) -> None:
    doc = _doc(models, "sst")
    file = tmp_path / "big.json.gz"
    file.write_bytes(gzip.compress(seal(doc) + b" " * 5000))
    with pytest.raises(ModelError, match="unpacks to more than") as info:
        load_model(file, max_bytes=2000)
    assert str(file) in str(info.value)
    from sitesift.methods.shared import state as _state

    doc = _doc(models, "infodiscoverer")
    doc["state"]["pages"] = [f"{i:016x}" for i in range(6)]
    old = _state.MAX_ITEMS
    _state.MAX_ITEMS = 5  # the same check as at 5 million items, without the 5 million
    try:
        (tmp_path / "m.json").write_bytes(seal(doc))
        with pytest.raises(ModelError, match="over the limit"):
            load_model(tmp_path / "m.json")
    finally:
        _state.MAX_ITEMS = old


def test_model_loading_code_never_unpickles_or_evaluates() -> None:
    """The code a model file passes through holds no deserialiser that can run code."""
    files = [SRC / "model_io.py", SRC / "io" / "models.py",
             *sorted((SRC / "methods").rglob("*.py"))]
    modules = r"(?:c?pickle|marshal|shelve|joblib|dill|cloudpickle)"
    risky = re.compile(rf"\bimport {modules}\b|\bfrom {modules} import|\bpickle\.|"
                       r"\beval\(|\bexec\(|__import__\(|yaml\.(?:unsafe_)?load\(|np\.load\(|"
                       r"allow_pickle=True")
    hits = [f"{f.relative_to(SRC)}:{n}: {line.strip()}" for f in files
            for n, line in enumerate(f.read_text("utf-8").splitlines(), 1) if risky.search(line)]
    assert hits == []
