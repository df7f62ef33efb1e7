"""Model files: round trip, and clear errors for damaged or foreign files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from sitesift.errors import ModelError
from sitesift.methods.base import get_cleaner
from sitesift.model_io import load_model, save_model
from tests.conftest import page
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
    doc = json.loads(path.read_text())
    assert callable(edit)
    edit(doc)
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.write_bytes(p.read_bytes()[:200]), "corrupt or truncated"),
        (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 50), "corrupt or truncated"),
        (lambda p: p.write_bytes(gzip.compress(p.read_bytes())[:40]), "cannot read|truncated"),
        (lambda p: _rewrite(p, lambda d: d.update(format_version=99)), "version 99"),
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
    from sitesift.model_io import _digest

    doc = json.loads(saved.read_text())
    doc["state"]["nodes"][1]["styles"] = [{"count": 1, "elements": [999]}]
    doc["sha256"] = _digest(doc["method"], doc["params"], doc["state"])
    saved.write_text(json.dumps(doc))
    with pytest.raises(ModelError, match="missing node 999"):
        load_model(saved)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="cannot read"):
        load_model(tmp_path / "absent.json")


def test_oversized_file_refused(saved: Path) -> None:
    with pytest.raises(ModelError, match="exceeds the limit"):
        load_model(saved, max_bytes=10)


def test_a_model_of_another_sitesift_version_is_read_with_a_warning(saved: Path) -> None:
    """The writer's version is not in the checksum: an older file still reads, and says
    which version wrote it and which reads it."""
    import warnings

    from sitesift import __version__
    from sitesift.errors import ModelVersionWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelVersionWarning)
        load_model(saved)  # this version's own file: not a word
    doc = json.loads(saved.read_text())
    assert doc["sitesift_version"] == __version__
    doc["sitesift_version"] = "0.0.1"
    saved.write_text(json.dumps(doc))
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
    body = {k: v for k, v in doc.items() if k not in ("format", "format_version", "sha256")}
    doc["sha256"] = model_file._digest(body)
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc))
    for read in (model_file.load, model_file.load_scorer):
        with pytest.warns(ModelVersionWarning, match=rf"0\.0\.1, read by sitesift {__version__}"):
            read(other)
