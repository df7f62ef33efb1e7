"""The learned extractor behind the `default` cleaner.

- `blocks`: one walk of a page's DOM into text blocks (a block element's own text), with
  the raw measurements the features need.
- `features`: the feature matrix of a page's blocks (text, markup, position, neighbours,
  containers, and the site's evidence where several pages of the site are at hand).
- `site`: site evidence: how often a block's text recurs on the site's other pages, and
  the site name folds are drawn by (`cv_group`).
- `forest`: gradient-boosted trees as JSON arrays, evaluated with NumPy; validated on load.
- `model`: the model file (members, thresholds, held-out folds) and the page cut.

Training it (labelled blocks, site-held-out cross-validation, the shipped model) is
`sitesift.training.default`.
"""
