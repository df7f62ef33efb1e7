"""sitesift's own small error hierarchy.

Core code raises these; only the batch edge (CLI, batch jobs) catches them and turns
them into error records that name the input and the reason.
"""

from __future__ import annotations


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
