"""sitesift inside the data pipelines people already run.

- `sitesift.integrations.datatrove`: `Sitesift`, a DataTrove pipeline step that stands
  where DataTrove's `Trafilatura` extractor does (extra `sitesift[datatrove]`).
- `sitesift.integrations.hf`: `clean_batch` and `batch_cleaner` for Hugging Face
  `datasets.Dataset.map` (extra `sitesift[hf]`; the functions themselves need only dicts
  of lists).

Nothing here is imported by `import sitesift`; each module imports its pipeline library
itself, so sitesift never needs either.
"""
