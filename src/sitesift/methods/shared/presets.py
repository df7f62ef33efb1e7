"""`preset="default"|"paper"` for a method's Params: the preset gives the starting values,
and any field also set explicitly wins (as the template method does it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def check_preset(method: str, presets: Mapping[str, Mapping[str, Any]], preset: str) -> None:
    """A ValueError naming the presets when `preset` is not one of them."""
    if preset not in presets:
        raise ValueError(f"{method}: preset must be one of {', '.join(presets)}, "
                         f"got {preset!r}")


def preset_settings(method: str, presets: Mapping[str, Mapping[str, Any]], preset: str,
                    overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The Params fields of `preset`, `overrides` on top, the preset itself named."""
    check_preset(method, presets, preset)
    return {**presets[preset], **overrides, "preset": preset}
