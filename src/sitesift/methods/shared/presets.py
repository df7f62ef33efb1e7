"""`preset="default"|"paper"` for a method's Params: the preset gives the starting values,
and any field also set explicitly wins (as the template method does it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self


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


class Presets:
    """A method's Params that a named preset starts (`from_preset`); each names its method
    and its presets (`METHOD`, `PRESETS`)."""

    __slots__ = ()
    METHOD: ClassVar[str]
    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]]

    @classmethod
    def from_preset(cls, preset: str, **overrides: Any) -> Self:
        """The preset's values with `overrides` on top."""
        make: Any = cls  # a dataclass below, whose fields the settings name
        params: Self = make(**preset_settings(cls.METHOD, cls.PRESETS, preset, overrides))
        return params
