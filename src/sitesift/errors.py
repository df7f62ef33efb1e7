"""sitesift's own small error hierarchy.

Core code raises these; only the batch edge (CLI, batch jobs) catches them and turns
them into error records that name the input and the reason. Warnings (`SitesiftWarning`)
flag set-ups that run but clean badly: a fit on too few pages or on several sites.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path


class SitesiftError(Exception):
    """Base class of every error sitesift raises on purpose."""


class InputError(SitesiftError):
    """A page cannot be read: empty, binary, not HTML, too large or too deep."""


class ModelError(SitesiftError):
    """A model file is missing, corrupt, truncated, tampered or of the wrong version."""


class NotFittedError(SitesiftError):
    """A site-level cleaner was asked to score or clean before `fit`."""


class UnknownMethodError(SitesiftError):
    """No cleaner is registered under the requested name."""


class FolderInUse(SitesiftError):
    """An output folder, or a model file, is held by another run (`sitesift.io.sinks.hold`)."""


@contextlib.contextmanager
def writing(path: str | Path) -> Iterator[None]:
    """Name `path` in an OSError of the block that names no file: a full disk is reported
    by write() and close(), which know no name, and a message must say where it was."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


class SettingsError(SitesiftError, ValueError):
    """A method setting has a bad value (`get_cleaner`, `clean`, `fit_site`). Also a
    ValueError, which is what the methods' own checks raise."""


class UnknownSettingError(SettingsError, TypeError):
    """A method has no setting of that name. Also a TypeError, which is what an unexpected
    keyword argument raises."""


class SitesiftWarning(UserWarning):
    """Base class of every warning sitesift gives (`warnings.warn`): a set-up that runs but
    is likely to clean badly. Silence them all with
    `warnings.simplefilter("ignore", SitesiftWarning)`."""


class ModelVersionWarning(SitesiftWarning):
    """A model file was written by another version of sitesift: it is read, but a model
    made by another version may clean differently (`sitesift.model_io.check_writer`)."""


class WeakFitWarning(SitesiftWarning):
    """A site-level model was fitted on fewer pages than its method needs
    (`Cleaner.min_fit_pages`), or on pages of more than one site (`sitesift.weak`)."""


def reason_of(exc: BaseException) -> str:
    """Why a page, a fit or a task failed, as one line for its error record: sitesift's own
    errors say it themselves; anything else (a bug) is named with its type, so that it is
    recorded rather than swallowed. The one place every job words an exception."""
    if isinstance(exc, SitesiftError):
        return str(exc)
    if isinstance(exc, MemoryError):  # an address-space limit (sitesift.guards) was reached
        return "out of memory: the page needs more than the worker's memory limit"
    from selectolax.lexbor import SelectolaxError

    if isinstance(exc, SelectolaxError):  # what Lexbor raises when an allocation fails
        return f"the HTML parser failed ({exc}): out of memory?"
    return f"internal error ({type(exc).__name__}): {exc}"
