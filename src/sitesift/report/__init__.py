"""`sitesift report`: see what a cleaner removed, page by page, as the browser shows it.

- `build.py` groups the pages into sites, fits site-level methods, cleans every page and
  writes the files; `views.py` turns one method's verdicts on one page into marks and the
  framed page; `frame.py` writes the marks onto the page's own HTML and makes it inert;
  `sst_tree.py` exports a fitted Site Style Tree for the explorer; `chart.py` draws the
  summary's F1 chart; `write.py` and `assets/` are the HTML, CSS and script.
- Output: `index.html` (the summary), `pages/<id>.html` (page views), `sst/tree-<site>.html`
  (Site Style Tree explorers) and `pages.jsonl` (the summary's numbers, one row per page
  and method). Every file opens from a `file:` URL with no network.
"""

from sitesift.report.build import Report, Scope, build_report

__all__ = ["Report", "Scope", "build_report"]
