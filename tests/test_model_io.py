"""Model files: round trip, and clear errors for damaged or foreign files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitesift.errors import ModelError
from sitesift.methods.base import get_cleaner
from sitesift.model_io import load_model, save_model, seal
from tests.conftest import as_written, page
from tests.methods.test_sst import TOY

NEW = page('<body><div class="nav">home news</div><div class="main"><p>zeta</p></div></body>')


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    sst = get_cleaner("sst").fit([page(h) for h in TOY])
    return save_model(sst, tmp_path / "site.sst.json")


@pytest.mark.parametrize("name", ["site.sst.json", "site.sst.json.gz"])
def test_round_trip_cleans_unseen_page_alike(tmp_path: Path, name: str) -> None:
    sst = get_cleaner("sst", threshold=0.25).fit([page(h) for h in TOY])
    path = save_model(sst, tmp_path / name)
    loaded = load_model(path)
    assert loaded.get_params() == sst.get_params()
    assert loaded.to_state() == sst.to_state()
    assert loaded.clean(NEW).text == sst.clean(NEW).text == "zeta"


def test_simplified_tree_drops_children_of_decided_nodes(saved: Path) -> None:
    state = json.loads(saved.read_text())["state"]
    for node in state["nodes"]:
        if node["label"] != "possible":
            assert "styles" not in node


def _rewrite(path: Path, edit: object) -> None:
    """The file's document changed by `edit`, written as sitesift writes, its seal kept."""
    doc = json.loads(path.read_text())
    assert callable(edit)
    edit(doc)
    path.write_bytes(as_written(doc))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.write_bytes(p.read_bytes()[:200]), "checksum mismatch"),
        (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 50), "corrupt or truncated"),
        (lambda p: p.write_bytes(gzip.compress(p.read_bytes())[:40]), "cannot read|truncated"),
        (lambda p: _rewrite(p, lambda d: d.update(format_version=99)),
         r"version 99; this sitesift reads versions 1 and 2$"),
        (lambda p: _rewrite(p, lambda d: d.update(format="other")), "format tag"),
        (lambda p: _rewrite(p, lambda d: d["state"]["nodes"][0].update(comp_imp=0.123)),
         "checksum mismatch"),
        (lambda p: _rewrite(p, lambda d: d.update(method="nope")), "checksum mismatch"),
        (lambda p: p.write_text('{"format": "sitesift-model", "format_version": 1}'),
         "must be a string and two objects"),
    ],
    ids=["truncated", "binary", "truncated-gzip", "wrong-version", "not-ours", "tampered",
         "unknown-method", "missing-parts"],
)
def test_damaged_files_give_clear_errors(saved: Path, damage: object, message: str) -> None:
    assert callable(damage)
    damage(saved)
    with pytest.raises(ModelError, match=message) as info:
        load_model(saved)
    assert str(saved) in str(info.value)


def test_invalid_state_is_rejected_even_with_matching_checksum(saved: Path) -> None:
    doc = json.loads(saved.read_text())
    doc["state"]["nodes"][1]["styles"] = [{"count": 1, "elements": [999]}]
    saved.write_bytes(seal(doc))
    with pytest.raises(ModelError, match="missing node 999"):
        load_model(saved)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="cannot read"):
        load_model(tmp_path / "absent.json")


def test_oversized_file_refused(saved: Path) -> None:
    with pytest.raises(ModelError, match="exceeds the limit"):
        load_model(saved, max_bytes=10)


def test_a_model_of_another_sitesift_version_is_read_with_a_warning(saved: Path) -> None:
    """A file another sitesift wrote (sealed, as it wrote it) still reads, and says which
    version wrote it and which reads it."""
    import warnings

    from sitesift import __version__
    from sitesift.errors import ModelVersionWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelVersionWarning)
        load_model(saved)  # this version's own file: not a word
    doc = json.loads(saved.read_text())
    assert doc["sitesift_version"] == __version__
    doc["sitesift_version"] = "0.0.1"
    saved.write_bytes(seal(doc))
    with pytest.warns(ModelVersionWarning, match=rf"sitesift 0\.0\.1, read by sitesift "
                                                 rf"{__version__}"):
        assert load_model(saved).clean(NEW).text == "zeta"


def test_a_default_model_file_names_its_writer(tmp_path: Path) -> None:
    """The default cleaner's model files carry the writing version in their meta; one
    written by another version is read, for training or cleaning, with a warning."""
    import warnings

    from sitesift import __version__
    from sitesift.errors import ModelVersionWarning
    from sitesift.extractor import model as model_file

    path = model_file.save(model_file.load(model_file.BUNDLED), tmp_path / "m.json.gz")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelVersionWarning)
        assert model_file.load(path).meta["sitesift_version"] == __version__
    doc = json.loads(gzip.decompress(path.read_bytes()))
    doc["meta"]["sitesift_version"] = "0.0.1"
    other = tmp_path / "other.json"
    other.write_bytes(seal(doc))
    for read in (model_file.load, model_file.load_scorer):
        with pytest.warns(ModelVersionWarning, match=rf"0\.0\.1, read by sitesift {__version__}"):
            read(other)


# The sealed format: `{"format":...,"format_version":N,"sha256":"<64 hex>",<body>}`, the
# seal the SHA-256 of these bytes with its digits zeroed (`sitesift.model_io.seal`).

def test_a_sealed_file_is_its_bytes_sealed(saved: Path) -> None:
    """What `save_model` writes is `seal` of its document: the head first, then the seal
    of exactly these bytes; the file reads back whole."""
    import hashlib

    from sitesift.model_io import FORMAT, FORMAT_VERSION, head_prefix

    raw = saved.read_bytes()
    head = head_prefix(FORMAT, FORMAT_VERSION)
    assert raw.startswith(b'{"format":"sitesift-model","format_version":2,"sha256":"')
    assert raw == seal(json.loads(raw))
    digits = raw[len(head):len(head) + 64]
    zeroed = raw[:len(head)] + b"0" * 64 + raw[len(head) + 64:]
    assert hashlib.sha256(zeroed).hexdigest().encode() == digits
    assert load_model(saved).to_state() == get_cleaner("sst").fit(
        [page(h) for h in TOY]).to_state()


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_one_byte_changed_past_the_head_is_a_checksum_mismatch(
        saved: Path, data: st.DataObject) -> None:
    """A byte of the seal's digits, its closing quote, or the body, changed to any other
    byte (gzipped or not): refused as altered before the JSON is read."""
    from sitesift.model_io import FORMAT, FORMAT_VERSION, head_prefix

    raw = bytearray(seal(json.loads(saved.read_bytes())))
    start = len(head_prefix(FORMAT, FORMAT_VERSION))
    at = data.draw(st.one_of(st.integers(start, start + 64),  # the digits and their quote
                             st.integers(start, len(raw) - 1)), label="at")
    raw[at] ^= data.draw(st.integers(1, 255), label="xor")
    out = saved.with_name(data.draw(st.sampled_from(["m.json", "m.json.gz"]), label="name"))
    out.write_bytes(gzip.compress(bytes(raw)) if out.suffix == ".gz" else bytes(raw))
    with pytest.raises(ModelError, match="checksum mismatch"):
        load_model(out)


@pytest.mark.parametrize("cut", [1, 2, 64, 100, 1000])
def test_a_truncated_file_is_refused(saved: Path, cut: int) -> None:
    raw = saved.read_bytes()
    saved.write_bytes(raw[:-cut])
    with pytest.raises(ModelError, match="checksum mismatch"):
        load_model(saved)
    saved.write_bytes(raw[:60])  # cut in the seal's digits
    with pytest.raises(ModelError, match="checksum mismatch"):
        load_model(saved)


@pytest.mark.parametrize("head", [
    b'{"format_version":2,"format":"sitesift-model","sha256":"',  # keys reordered
    b'{"format": "sitesift-model", "format_version": 2, "sha256": "',  # json.dumps' spaces
    b'{"format":"sitesift-model","format_version":2, "sha256":"',
    b' {"format":"sitesift-model","format_version":2,"sha256":"',
    b'{"format":"sitesift-model","format_version":2.0,"sha256":"',
    b'{"format":"sitesift-\\u006dodel","format_version":2,"sha256":"',  # an escape
], ids=["reordered", "spaces", "one-space", "leading-space", "float-version", "escape"])
def test_the_head_must_be_exactly_as_written(saved: Path, head: bytes) -> None:
    """The same document under a head written otherwise, with its seal made again over
    the new bytes, is refused: the reader compares the head byte for byte."""
    import hashlib

    from sitesift.model_io import FORMAT, FORMAT_VERSION, head_prefix

    raw = saved.read_bytes()
    rest = raw[len(head_prefix(FORMAT, FORMAT_VERSION)) + 64:]
    resealed = head + b"0" * 64 + rest
    digits = hashlib.sha256(resealed).hexdigest().encode()
    saved.write_bytes(head + digits + rest)
    json.loads(saved.read_bytes())  # still the same document to a JSON reader
    with pytest.raises(ModelError, match=r"checksum mismatch|format version 2\.0"):
        load_model(saved)


def test_a_version_1_file_with_its_old_digest_still_loads(saved: Path) -> None:
    """Files written before the seal (format version 1: a SHA-256 of the canonical JSON
    of method, params and state, last in the file) read as before, and their digest is
    checked."""
    from sitesift.model_io import _digest

    doc = json.loads(saved.read_bytes())
    del doc["sha256"]
    old = {**doc, "format_version": 1,
           "sha256": _digest(doc["method"], doc["params"], doc["state"])}
    saved.write_text(json.dumps(old, separators=(",", ":")))  # as version 1 was written
    assert load_model(saved).clean(NEW).text == "zeta"
    saved.write_text(json.dumps(old, indent=1))  # its digest is of the parsed content
    assert load_model(saved).get_params() == doc["params"]
    old["state"]["nodes"][0]["comp_imp"] = 0.123
    saved.write_text(json.dumps(old))
    with pytest.raises(ModelError, match="checksum mismatch"):
        load_model(saved)
    old["format_version"] = 2  # a version-1 file relabelled: not sealed
    saved.write_text(json.dumps(old))
    with pytest.raises(ModelError, match="checksum mismatch"):
        load_model(saved)


@pytest.mark.parametrize("raw", [
    b'{"a": [1, 2.5, -0.0, 1e-320, "\\u00e9"], "b": {"c": null, "c": true}}',
    b'{"x": NaN, "y": Infinity}',            # json reads these; orjson refuses them
    b'{"s": "\\ud800"}',                       # a lone surrogate escape
    b'{"s": "\xff\xfe"}',                      # bytes that are not UTF-8
    b"[" * 2000 + b"]" * 2000,                 # deeper than orjson goes
    b'{"cut": [1, 2',                          # truncated
])
def test_a_model_file_is_parsed_as_every_json_sitesift_reads(raw: bytes) -> None:
    """Model files are parsed by orjson where it can (a worker's start), and otherwise as
    `json_line` parses any JSON: the same value, or the same refusal."""
    from sitesift.errors import InputError
    from sitesift.model_io import parse_document
    from sitesift.reading import json_line

    try:
        expected: object = json_line(raw)
    except InputError as exc:
        with pytest.raises(InputError) as got:
            parse_document(raw)
        assert str(got.value) == str(exc)
        return
    value = parse_document(raw)
    assert json.dumps(value, sort_keys=True) == json.dumps(expected, sort_keys=True)
