"""`sitesift mine`: the Site Style Tree paper's mining experiments on a labelled corpus.

Yi, Liu & Li (KDD 2003) argue that template noise harms web mining and that cleaning
restores it: they cluster pages with k-means and classify them with naive Bayes, before
and after cleaning. This package runs those experiments for every representation of the
pages (raw HTML, all visible text, each cleaner's text, CST's weighted vectors):

- `corpus`: which pages take part (classes, universities, the held-out sites) and the
  site groups the site-level methods are fitted on;
- `represent`: each page cleaned once per method, cached on disk, turned into a bag of words;
- `cluster`: seeded k-means runs scored by the best class-to-cluster assignment;
- `classify`: multinomial naive Bayes over class pairs in the paper's configurations;
- `report`: the markdown tables, `results.json` and the plots;
- `run`: the whole experiment, as the command line calls it.
"""

from __future__ import annotations

from sitesift.mining.run import MineSettings, run_mine

__all__ = ["MineSettings", "run_mine"]
