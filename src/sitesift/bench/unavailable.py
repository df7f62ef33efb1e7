"""The one error of a bench peer: apart from the adapters, so that the rs-trafilatura worker
(`sitesift.bench.py312`) raises it without importing them."""


class PeerUnavailable(Exception):
    """The peer cannot run here (library or interpreter missing): skip it, say why."""
