"""The contract every method's `preset` setting keeps, checked in one place: the paper
preset sets the paper's values, a setting given beside it wins, the default preset is the
field defaults, and an unknown preset or a bad value is refused by name."""

from __future__ import annotations

from typing import Any

import pytest

from sitesift.methods.base import get_cleaner


def check_preset_contract(method: str, params_type: type[Any], paper: dict[str, Any],
                          override: dict[str, Any], bad: dict[str, Any]) -> None:
    """`paper`: the fields the paper preset sets; `override`: one field given beside it;
    `bad`: one value its Params refuse, named in the error."""
    params = get_cleaner(method, preset="paper").get_params()
    assert {k: params[k] for k in paper} == paper
    assert params["preset"] == "paper"
    mixed = get_cleaner(method, preset="paper", **override).get_params()
    assert mixed == {**params, **override}
    assert params_type.from_preset("default") == params_type()
    with pytest.raises(ValueError, match="preset must be one of default, paper"):
        params_type(preset="faithful")
    ((name, _),) = bad.items()
    with pytest.raises(ValueError, match=name):
        params_type(**bad)
