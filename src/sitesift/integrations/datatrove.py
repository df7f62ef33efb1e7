"""sitesift as a DataTrove pipeline step, where DataTrove's `Trafilatura` extractor stands.

    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter
    from sitesift.integrations.datatrove import Sitesift

    pipeline = [WarcReader("crawl/"), Sitesift(preset="precision"), JsonlWriter("out/")]

Like every DataTrove extractor it replaces each document's `text` (the HTML) with the
main text, runs each document in a worker process under `timeout` seconds, and drops a
document that comes out empty. Its stats are the base extractor's: `total`, `extracted`,
`forwarded`, `dropped`, `timeout`, `broken_process` and `clean_error` (a page sitesift
refuses: binary junk, nesting too deep, too large; the first one is logged). The
document's id and metadata are left as the reader made them (the metadata gains the
text's `language` and `language_score`, as DataTrove's own `LanguageFilter` writes them, and
`page_type`, `page_type_score` and `confidence`, as a crawl record has them, and with
`comments="separate"` the page's `comments`, None where it has none), so its
provenance goes on with it: `WarcReader` makes the id the WARC-Record-ID and fills `url`
and `date` from WARC-Target-URI and WARC-Date (a crawl record's `warc_record_id`, `url` and
`warc_date`, docs/crawl.md). Its `url` (the key `url_key`) is handed to the cleaner, whose
link features read it.

Needs `pip install sitesift[datatrove]`; `import sitesift` never imports DataTrove.
"""

from __future__ import annotations

from typing import Any

from datatrove.data import DocumentsPipeline
from datatrove.pipeline.extractors.base import BaseExtractor, ExtractorSandbox
from datatrove.utils.logging import logger
from datatrove.utils.typeshelper import StatHints

from sitesift.integrations._cleaning import build_cleaner, clean_fields, describe, fields_of
from sitesift.language import detect_language
from sitesift.methods.base import Cleaner

__all__ = ["Sitesift", "SitesiftFailure"]


class SitesiftFailure(Exception):
    """A document the worker process could not clean, sent back to the pipeline as a value
    (an exception raised in DataTrove's worker would end the process)."""


class Sitesift(BaseExtractor):
    """sitesift's cleaner as a DataTrove extractor.

    Args:
        method: the cleaning method (`sitesift methods`); unless named, `default` (the
            learned cleaner, what `sitesift clean` runs) or the method of `site_model`. A
            site-level method (`sst`, ...) must be fitted first: pass its model file as
            `site_model`.
        site_model: a model file written by `sitesift fit --out` or `sitesift.model_io.save_model`
            (it carries its own method and settings).
        timeout: the time limit per document, in seconds (as for DataTrove's extractors;
            the worker's start, which loads the model when the step was sent to another
            process, has the same limit).
        url_key: the metadata key holding the page's URL (None: pass no URL).
        **params: the method's settings, as `--set` takes them: `preset="precision"`
            (keeps less: DataTrove's `favour_precision=True`), `"recall"` or `"balanced"`
            (the default), `threshold=0.4`, `comments="drop"`, ...

    Every setting is checked here, by building the cleaner and cleaning a small test page:
    a bad one raises (UnknownMethodError, ValueError, ModelError) before any document.
    """

    name = "🧹 Sitesift"
    _warned_error: bool  # (set by BaseExtractor)

    def __init__(self, method: str | None = None, *, site_model: str | None = None,
                 timeout: float = 1, url_key: str | None = "url", **params: Any) -> None:
        if "favour_precision" in params or "favor_precision" in params:
            raise ValueError("sitesift has no favour_precision: pass preset='precision' "
                             "(keeps less) or preset='recall' (keeps more)")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        super().__init__(timeout)
        self.method = method
        self.site_model = site_model
        self.url_key = url_key
        self.params = params
        self._cleaner: Cleaner | None = build_cleaner(method, params, site_model)
        self._fields: dict[str, Any] = {}  # the last page's FIELDS (`extract`)

    @property
    def cleaner(self) -> Cleaner:
        """The cleaner, made again from the settings in a process this step was sent to."""
        if self._cleaner is None:
            self._cleaner = build_cleaner(self.method, self.params, self.site_model)
        return self._cleaner

    def __getstate__(self) -> dict[str, Any]:
        # The cleaner holds the native model, which does not pickle; the settings do, and
        # the cleaner is made again from them (executors pickle their pipeline's steps).
        state = self.__dict__.copy()
        state["_cleaner"] = None
        return state

    def extract(self, text: str | bytes, url: str | None = None) -> str:
        """The main text of one page (`text`: its HTML, str or bytes), one block per line;
        empty input gives "". A page sitesift cannot read raises InputError."""
        self._fields = {}
        if not text or (isinstance(text, str) and text.isspace()):
            return ""
        text, self._fields = clean_fields(self.cleaner, text, url)
        return text

    def _extract_in_worker(self, text: str | bytes, url: str | None = None
                           ) -> tuple[str, dict[str, Any]] | SitesiftFailure:
        """`extract` as DataTrove's worker process runs it, with what the document's
        metadata gets beside the text (`FIELDS`, which `extract` leaves in `_fields`): a
        failure is returned, not raised, so the worker lives on and the pipeline counts it
        as `clean_error`."""
        try:
            self._fields = {}
            if not text:  # the worker's warm-up: make the cleaner before the first page
                _ = self.cleaner
                return "", {}
            main = self.extract(text, url)
            if "language" not in self._fields:  # an `extract` of a subclass's: its text's
                self._fields = {**self._fields, **dict(zip(("language", "language_score"),
                                                           detect_language(main),
                                                           strict=True))}
            return main, self._fields
        except Exception as exc:
            return SitesiftFailure(describe(exc))

    def run(self, data: DocumentsPipeline, rank: int = 0,
            world_size: int = 1) -> DocumentsPipeline:
        """DataTrove's extractor loop (BaseExtractor.run), with the document's URL passed
        along with its HTML."""
        _ = self.cleaner  # made before the worker forks, so the worker starts with it
        with ExtractorSandbox(timeout=self.timeout, warmup_text=("", None)) as extractor:
            for doc in data:
                self.stat_update(StatHints.total)
                url = doc.metadata.get(self.url_key) if self.url_key else None
                with self.track_time():
                    try:
                        doc.text, fields = extractor.process_document(
                            (doc.text, url if isinstance(url, str) else None),
                            self._extract_in_worker)
                        doc.metadata.update({k: fields[k] for k in fields_of(self.cleaner)
                                             if k in fields})
                        self.stat_update("extracted")
                    except TimeoutError:
                        self.stat_update("timeout")
                        logger.warning("⏰ Timeout while cleaning record text. Skipping record.")
                        continue
                    except EOFError:
                        self.stat_update("broken_process")
                        logger.warning("Process died unexpectedly, will create new process for "
                                       "next document")
                        continue
                    except Exception as e:
                        self.stat_update("clean_error")
                        if not self._warned_error:
                            logger.warning(f'❌ Error "{e}" while cleaning record {doc.id}. '
                                           "Skipping record. This message will only appear "
                                           "once.")
                            self._warned_error = True
                        continue
                if doc.text:
                    self.stat_update(StatHints.forwarded)
                    self.update_doc_stats(doc)
                    yield doc
                else:
                    self.stat_update(StatHints.dropped)
