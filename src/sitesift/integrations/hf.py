"""sitesift for Hugging Face `datasets.Dataset.map`: a column of HTML in, a column of main
text and a column of errors out.

    import datasets
    from sitesift.integrations.hf import batch_cleaner, clean_batch

    ds = datasets.Dataset.from_dict({"html": [...], "url": [...]})
    ds = ds.map(batch_cleaner(preset="precision"), batched=True)      # settings checked now
    ds = ds.map(clean_batch, batched=True, fn_kwargs={"preset": "precision"})  # the same

Each row gets `text` (the main text, one block per line), `sitesift_error` ("" when the
row was cleaned, else why not), the text's `language` and `language_score` and the page's
`page_type` and `page_type_score`, and its `confidence` (as a crawl record has them; "" and 0.0
where the row failed or its text has nothing to read; the confidence 0.0 where the row failed,
None for a method that cannot give one), with `comments=separate` its `comments` ("" where
the page has none), and keeps its other columns (`map` adds these), so a
row's provenance goes on with it (a `url`, a `warc_record_id`, a `warc_date`, as a crawl
record has them: docs/crawl.md); a row that fails (no HTML, binary junk, a page nested too
deep) gets empty text and its reason, and the map goes on. Settings that are wrong for every
row (an unknown method or setting, a bad value, a missing model file, no HTML column) raise
before the first row is cleaned: `batch_cleaner` when it is called, `clean_batch` on its
first batch. The HTML may be str or bytes (bytes are decoded as files are: BOM, meta
charset, detection). The map function is picklable, so `num_proc=` works; the cleaner is
made once per process.

Nothing here imports `datasets`: the functions take and return dicts of lists, so they
also serve any batch of rows (`batched=False` works too: one row's values in, one out).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sitesift.integrations._cleaning import build_cleaner, clean_fields, describe, fields_of
from sitesift.methods.base import Cleaner

__all__ = ["ERROR_COLUMN", "BatchCleaner", "batch_cleaner", "clean_batch"]

ERROR_COLUMN = "sitesift_error"

# Cleaners by their settings, made once per process for `clean_batch` (datasets calls it
# per batch with the same fn_kwargs); a handful at most.
_CLEANERS: dict[tuple[str | None, str | None, str], Cleaner] = {}
_MAX_CLEANERS = 8


def _cached_cleaner(method: str | None, params: Mapping[str, Any],
                    site_model: str | None) -> Cleaner:
    key = (method, site_model, repr(sorted(params.items())))
    cleaner = _CLEANERS.get(key)
    if cleaner is None:
        cleaner = build_cleaner(method, params, site_model)
        if len(_CLEANERS) >= _MAX_CLEANERS:
            _CLEANERS.pop(next(iter(_CLEANERS)))
        _CLEANERS[key] = cleaner
    return cleaner


# A row that failed, or a text with nothing to read: no language and no type, as its text is
# empty (not None: `datasets` types a column by its first batch, and a batch of such rows
# would make it a column of nulls).
FAILED: dict[str, Any] = {"language": "", "language_score": 0.0, "page_type": "",
                          "page_type_score": 0.0, "confidence": 0.0, "comments": ""}


def _column(batch: Mapping[str, Any], name: str) -> list[Any]:
    values = batch[name]
    if hasattr(values, "to_pylist"):  # a pyarrow array (a dataset formatted as "arrow")
        return list(values.to_pylist())
    if hasattr(values, "tolist"):  # a NumPy array
        return list(values.tolist())
    return list(values)


def _is_one_row(value: Any) -> bool:
    return value is None or isinstance(value, str | bytes | bytearray | memoryview)


def _clean_rows(cleaner: Cleaner, batch: Mapping[str, Any], html_column: str,
                url_column: str | None, text_column: str,
                error_column: str) -> dict[str, Any]:
    if text_column == error_column:
        raise ValueError(f"text_column and error_column are both {text_column!r}")
    if html_column not in batch:
        raise ValueError(f"no column {html_column!r} to clean (columns: "
                       f"{', '.join(map(repr, batch)) or 'none'}); name it with html_column=")
    one_row = _is_one_row(batch[html_column])
    if one_row:  # batched=False: one row's values
        batch = {k: [v] for k, v in batch.items() if k in (html_column, url_column)}
    htmls = _column(batch, html_column)
    urls = (_column(batch, url_column) if url_column is not None and url_column in batch
            else [None] * len(htmls))
    texts: list[str] = []
    errors: list[str] = []
    names = fields_of(cleaner)
    fields: dict[str, list[Any]] = {k: [] for k in names}
    for html, url in zip(htmls, urls, strict=True):
        try:
            if html is None:
                raise ValueError("no HTML in this row (None)")
            text, more = clean_fields(cleaner, html, url if isinstance(url, str) else None)
            texts.append(text)
            errors.append("")
        except Exception as exc:  # one bad row never stops the map
            texts.append("")
            errors.append(describe(exc))
            more = FAILED
        for k in names:
            if k == "confidence" and not cleaner.gives_confidence:
                fields[k].append(None)  # every row's: the method cannot give one
            else:
                fields[k].append(FAILED[k] if more.get(k) is None else more[k])
    if one_row:
        return {text_column: texts[0], error_column: errors[0],
                **{k: v[0] for k, v in fields.items()}}
    return {text_column: texts, error_column: errors, **fields}


def clean_batch(batch: Mapping[str, Any], *, html_column: str = "html",
                url_column: str | None = "url", text_column: str = "text",
                error_column: str = ERROR_COLUMN, method: str | None = None,
                site_model: str | None = None, **params: Any) -> dict[str, Any]:
    """Clean a batch of rows: `{text_column: [...], error_column: [...]}` for
    `Dataset.map(clean_batch, batched=True, fn_kwargs={...})`, which adds (or replaces) the
    two columns. The keyword arguments are those of `batch_cleaner`."""
    cleaner = _cached_cleaner(method, params, site_model)
    return _clean_rows(cleaner, batch, html_column, url_column, text_column, error_column)


class BatchCleaner:
    """The map function `batch_cleaner` returns: settings checked when it is made, the
    cleaner made again (once) in each process it is sent to."""

    def __init__(self, method: str | None, params: Mapping[str, Any],
                 site_model: str | None, html_column: str, url_column: str | None,
                 text_column: str, error_column: str) -> None:
        if text_column == error_column:
            raise ValueError(f"text_column and error_column are both {text_column!r}")
        self.method = method
        self.params = dict(params)
        self.site_model = site_model
        self.html_column = html_column
        self.url_column = url_column
        self.text_column = text_column
        self.error_column = error_column
        self._cleaner: Cleaner | None = _cached_cleaner(method, self.params, site_model)

    def __call__(self, batch: Mapping[str, Any]) -> dict[str, Any]:
        if self._cleaner is None:
            self._cleaner = _cached_cleaner(self.method, self.params, self.site_model)
        return _clean_rows(self._cleaner, batch, self.html_column, self.url_column,
                           self.text_column, self.error_column)

    def __getstate__(self) -> dict[str, Any]:
        # The settings only: the native model does not pickle, and `datasets` fingerprints
        # the map function by pickling it (the same settings give the same fingerprint).
        state = self.__dict__.copy()
        state["_cleaner"] = None
        return state

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return (f"batch_cleaner(method={self.method!r}"
                f"{', ' + settings if settings else ''}, html_column={self.html_column!r})")


def batch_cleaner(method: str | None = None, *, site_model: str | None = None,
                  html_column: str = "html", url_column: str | None = "url",
                  text_column: str = "text", error_column: str = ERROR_COLUMN,
                  **params: Any) -> BatchCleaner:
    """A map function for `Dataset.map(..., batched=True)`, its settings checked now.

    Args:
        method: the cleaning method (`sitesift methods`); unless named, `default` (the
            learned cleaner, what `sitesift clean` runs) or the method of `site_model`. A
            site-level method (`sst`, ...) needs `site_model`.
        site_model: a model file from `sitesift fit --out` or `sitesift.model_io.save_model`.
        html_column: the column of HTML (str or bytes).
        url_column: the column of page URLs, used when the batch has it (None: no URLs).
        text_column: where the main text goes ("" for a row that failed).
        error_column: where each row's error goes ("" for a row that was cleaned: a string
            column in every batch, so Arrow never sees a column of nulls).
        **params: the method's settings, as `--set` takes them (`preset="precision"`, ...).

    Raises UnknownMethodError, ValueError or ModelError for settings no row could be cleaned
    with.
    """
    return BatchCleaner(method, params, site_model, html_column, url_column, text_column,
                        error_column)
