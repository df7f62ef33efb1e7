"""All visible text: the baseline every cleaner must beat."""

from __future__ import annotations

from sitesift.methods.base import Cleaner, NodeScores, register
from sitesift.page import Page


@register
class AllText(Cleaner):
    """Keeps every visible text block (scripts, styles and hidden elements never count)."""

    name = "alltext"
    imports = ()

    def score(self, page: Page) -> NodeScores:
        return {}
