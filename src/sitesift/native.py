"""The native core: `sitesift._native`, the per-page path in Rust (decoding a page's bytes
and checking its text for every method; reading and cleaning it for the default cleaner).

Built by maturin with the package (`pip install .` compiles `native/`, which needs a Rust
toolchain). Everything here asks for it on first use, so an installation without it says
what to do instead of failing with an import traceback.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

from sitesift.errors import SitesiftError


class NativeMissing(SitesiftError):
    """The native core is not built in this installation."""


@functools.cache
def core() -> ModuleType:
    try:
        import sitesift._native as _native
    except ImportError as exc:
        raise NativeMissing(
            "sitesift's native core (sitesift._native) is not built in this installation: "
            "install sitesift with `pip install .` from its source folder, which compiles "
            "native/ and needs a Rust toolchain (cargo; https://rustup.rs), or use "
            f"`--method` with a method written in Python ({exc})") from None
    return _native


class Verdicts:
    """The default cleaner's verdicts on a page the core read: what the structure renderer
    needs to write the page's content as markdown, HTML or text (`render`) after cleaning.
    Holds the core's reading of the page; lives in the process that cleaned it.
    `comments`: the page's comments are kept apart (`comments=separate`), and
    `render(..., comments=True)` writes them."""

    __slots__ = ("comments", "kept", "page")

    def __init__(self, page: Any, kept: bytes, *, comments: bool = False) -> None:
        self.page, self.kept, self.comments = page, kept, comments

    def render(self, renderings: list[str], *, links: bool = False,
               images: bool = False, comments: bool = False) -> list[str]:
        """The content in each of `renderings`; `comments`: the comments kept apart
        instead (the blocks the comments rule took out of the text, reply forms aside:
        `native/src/clean/pipeline.rs::comment_elements`)."""
        return list(core().render_page(self.page, self.kept,
                                       rendering(tuple(renderings), links, images),
                                       comments=comments))


@functools.lru_cache(maxsize=64)
def rendering(renderings: tuple[str, ...], links: bool = False, images: bool = False) -> Any:
    """How the core writes a page's content (`_native.Rendering`: the formats, checked, and
    whether links and images are kept), made once per such settings, for `render_page`
    and `render_html`."""
    return core().Rendering(list(renderings), links, images)


def read(html: Any, url: str | None = None, *, cut_title: bool = False,
         reveal: bool = True) -> Any:
    """The page read by the core (`_native.Page`) from a str or the core's own checked text
    (`Page.markup`): parsed, its visible tree, script-gated content shown (`reveal`), its
    blocks. Lone surrogates in a str, which no UTF-8 text can hold, are replaced first."""
    n = core()
    try:
        return n.read(html, url, cut_title, reveal)
    except UnicodeEncodeError:
        return n.read(without_surrogates(html), url, cut_title, reveal)


def without_surrogates(html: str) -> str:
    """`html` with its lone surrogates (which no UTF-8 text can hold, so the core cannot
    take them) replaced."""
    return html.encode("utf-8", "replace").decode("utf-8")
