"""The job engine: a site's pages -> its model -> each page cleaned under guards -> one
outcome per input, for every command (`clean`, `fit`, `evaluate`, `bench`, `crawl`, Spark).

- `source`: one input page (`Source`) and a site's pages (a list, or the crawl's spill)
- `grouping`: the grouping keys (by row: site, site+year, none; by URL: domain, host)
- `policy`: how a site gets its model (`SitePolicy`: fit all or a sample, model file,
  store, folds, fit mode, fallback)
- `outcome`: what a job yields (`Outcome`) and the worker's messages
- `page`: one page cleaned under its guard (`clean_source`)
- `model`: reading the fit's pages, fitting, loading and keeping models
- `task`: one site task (`SiteTask`: pages, policy, what earlier tries learnt)
- `site`: one site's work (`steps`; `process_site`, the worker handler)
- `retry`: the retry and poison-page loop (`drive`, `after_loss`, `MAX_BLIND_LOSSES`)
- `pool`: the one pool of guarded workers
- `run`: running tasks here or in the pool (`RunSettings`)

The commands are adapters: `sitesift.batch` (clean, fit, evaluate, bench: groups of
sources in, outcomes in input order out) and `sitesift.sitework` (crawl and Spark:
`CrawlConfig` as a policy, outcomes as crawl records).

Nothing heavy is imported here: submodules are imported by name.
"""
