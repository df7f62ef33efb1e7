"""Every html5lib tokenizer input through decoding, parsing and every non-browser cleaner.

The inputs are the HTML standard's own edge cases (bad entities, NUL characters, lone
surrogates, unterminated tags and comments): each must give a result or one of sitesift's
own errors, never another exception.
"""

from __future__ import annotations

import contextlib
import json
import re

import pytest

from sitesift.errors import SitesiftError
from sitesift.methods.base import get_cleaner, method_names
from sitesift.page import Page
from tests.conftest import SHARED

TOKENIZER = SHARED / "html5lib-tests" / "tokenizer"
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def _inputs() -> list[str]:
    if not TOKENIZER.is_dir():
        pytest.skip(f"html5lib-tests not found at {TOKENIZER} (needs ../shared/datasets)")
    out = []
    for path in sorted(TOKENIZER.glob("*.test")):
        for case in json.loads(path.read_text(encoding="utf-8")).get("tests", []):
            text = case["input"]
            if case.get("doubleEscaped"):  # \\uD800 and friends: lone surrogates on purpose
                text = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
            out.append(text)
    return out


def _page(text: str, i: int) -> Page | None:
    try:
        return Page.from_html(text, id=f"t{i}")
    except SitesiftError:
        return None


def test_every_input_parses_or_gives_a_clear_error() -> None:
    inputs = _inputs()
    assert len(inputs) > 6000
    pages = [_page(t, i) for i, t in enumerate(inputs)]
    for page in pages:
        if page is not None:
            get_cleaner("alltext").clean(page).text.encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("method", [m for m in method_names()
                                    if not get_cleaner(m).needs_browser])
def test_every_cleaner_survives_a_sample_of_the_inputs(method: str) -> None:
    inputs = _inputs()[::40]  # a fixed sample: ~170 inputs per method
    pages = [p for i, t in enumerate(inputs) if (p := _page(t, i)) is not None]
    cleaner = get_cleaner(method)
    if cleaner.site_level:
        cleaner.fit(pages[:50])
    for page in pages:
        with contextlib.suppress(SitesiftError):  # a clear error of ours is an allowed end
            cleaner.clean(page)
