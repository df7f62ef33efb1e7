"""The language of a page's main text (issue 55), detected from the text, with a score.

`Result.language` is an ISO 639-1 code (`de`, `fr`: as DataTrove and FineWeb write it) and
`Result.language_score` the detector's confidence in [0, 1]; both null for a page with no
text to read. The page's *declared* language (`<html lang>`, Content-Language) is another
thing, and stays in its metadata (`sitesift.metadata`, `clean --metadata`).

The detector is whatlang's, in the native core (`native/src/output/language.rs`), on the first
`PREFIX_CHARS` characters of the text: chosen by measurement beside lingua, fastText's
lid.176, py3langid and Resiliparse's `detect_fast` (`benchmarks/language_check.py`,
docs/language.md). `finish` (`sitesift.output`) sets it on every result, so every path
has it; `--lang de,fr` (`LanguageFilter`) keeps the results in those languages.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sitesift.errors import SettingsError
from sitesift.native import core

SKIP_REASON = "language"
"""The reason a page left out by `--lang` is counted under (a crawl's `skipped_by_reason`,
clean's summary)."""


def detect_language(text: str) -> tuple[str | None, float | None]:
    """(ISO 639-1 code, score in [0, 1]) of `text`'s language, from its first
    `PREFIX_CHARS` characters; (None, None) where it has no letters to read."""
    got = core().detect_language(text[:PREFIX_CHARS])
    if got is None:
        return None, None
    code, score = got
    return code, round(score, 4)


def language_codes() -> tuple[str, ...]:
    """Every code the detector can give (69 languages), sorted."""
    return tuple(core().language_codes())


def parse_languages(value: str | Iterable[str]) -> frozenset[str]:
    """The languages of `--lang de,fr` (or a list of codes): each an ISO 639-1 code the
    detector knows, case folded; SettingsError naming a bad one (an unknown code, a
    region such as `de-AT`, an empty list)."""
    items = value.split(",") if isinstance(value, str) else list(value)
    codes = [str(item).strip().lower() for item in items if str(item).strip()]
    if not codes:
        raise SettingsError("--lang: no language given (e.g. --lang de,fr)")
    known = set(language_codes())
    bad = [c for c in codes if c not in known]
    if bad:
        raise SettingsError(f"--lang: {bad[0]!r} is not a language code the detector knows "
                            f"(ISO 639-1, two letters; known: {', '.join(sorted(known))})")
    return frozenset(codes)


@dataclass(frozen=True, slots=True)
class LanguageFilter:
    """`--lang`: the languages whose pages are written; the others are counted as skipped
    (`SKIP_REASON`). A page with no language (no text) is not in any, and so is skipped."""

    languages: frozenset[str]

    def keeps(self, language: str | None) -> bool:
        return language in self.languages

    def __str__(self) -> str:
        return ",".join(sorted(self.languages))


PREFIX_CHARS = 2048
"""The characters of the text the detector reads (the core's `LANGUAGE_PREFIX_CHARS`)."""


__all__ = ["PREFIX_CHARS", "SKIP_REASON", "LanguageFilter", "detect_language",
           "language_codes", "parse_languages"]
