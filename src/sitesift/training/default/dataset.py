"""Labelled blocks of the shared corpora: the training and evaluation data of the extractor.

For every page with gold text: its blocks and their features as the native core reads them
(`features.page_features`, the cleaner's own reading) with the site's
evidence from the other pages of its site group (grouped as `sitesift bench` groups them),
and each block's gold share (`labels.gold_share`). A corpus is cached as one `.npz` (arrays)
and one `.json` (pages and block texts), so models can be trained and scored many times
without parsing again. The cache names the corpus it was built from (`corpus_fingerprint`:
its folder, index and the names, sizes and times of its page and gold files), so another
corpus of the same folder name, or this one edited, is built again rather than read stale.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitesift.extractor.features import feature_names, page_features
from sitesift.extractor.site import SiteEvidence, cv_group
from sitesift.training.default.labels import gold_share

if TYPE_CHECKING:
    import numpy as np

# 2: features from the native core (html5ever's parse): caches of the Python reading go
CACHE_VERSION = 2


@dataclass
class CorpusData:
    """Every labelled block of one corpus; block rows are grouped by page, in page order."""

    name: str
    X: np.ndarray          # (blocks, N_FEATURES) float32
    share: np.ndarray      # (blocks,) gold share of the block's tokens
    ntok: np.ndarray       # (blocks,) tokens of the block
    page: np.ndarray       # (blocks,) index into `pages`
    anc: np.ndarray        # (blocks, CONTEXT_LEVELS) ancestor element ids within the page
    pages: list[dict[str, Any]] = field(default_factory=list)  # id, group, cv, page_type, ...
    texts: list[str] = field(default_factory=list)              # block texts (exact scoring)

    def save(self, directory: Path, source: str = "") -> None:
        """Write the cache (each file atomically; the `.json`, which names the `source`,
        last, so a cache cut off while it was written is never taken as whole)."""
        import numpy as np
        directory.mkdir(parents=True, exist_ok=True)
        arrays, meta = directory / f"{self.name}.npz", directory / f"{self.name}.json"
        meta.unlink(missing_ok=True)
        tmp = directory / f"{self.name}.tmp.npz"
        np.savez_compressed(tmp, X=self.X, share=self.share, ntok=self.ntok, page=self.page,
                            anc=self.anc)
        os.replace(tmp, arrays)
        doc = {"version": CACHE_VERSION, "n_features": len(feature_names()), "source": source,
               "pages": self.pages, "texts": self.texts}
        tmp = directory / f"{self.name}.json.tmp"
        tmp.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, meta)

    @classmethod
    def load(cls, directory: Path, name: str, source: str | None = None) -> CorpusData:
        """The cached corpus; ValueError where it is of another feature set or (given
        `source`) of another corpus or another state of this one."""
        import numpy as np
        doc = json.loads((directory / f"{name}.json").read_text(encoding="utf-8"))
        if doc.get("version") != CACHE_VERSION or doc.get("n_features") != len(feature_names()):
            raise ValueError(f"{directory / name}: cache of another feature set")
        if source is not None and doc.get("source") != source:
            raise ValueError(f"{directory / name}: cache of another corpus, or the corpus "
                             "changed since")
        try:
            arrays = np.load(directory / f"{name}.npz", allow_pickle=False)  # never code
            data = cls(name, arrays["X"], arrays["share"], arrays["ntok"], arrays["page"],
                       arrays["anc"], doc["pages"], doc["texts"])
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:  # cut off, bit rot
            raise ValueError(f"{directory / name}.npz: damaged ({exc})") from None
        if len(data.X) != len(data.share) or len(data.texts) != len(data.X):
            raise ValueError(f"{directory / name}: arrays and texts disagree")
        return data


def corpus_fingerprint(root: Path) -> str:
    """What a cache of this corpus is checked against: the corpus folder, its index, and
    the name, size and modification time of every page and gold file."""
    h = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogatepass"))
    h.update((root / "index.jsonl").read_bytes())
    for sub in ("pages", "gold"):
        folder = root / sub
        if not folder.is_dir():
            continue
        with os.scandir(folder) as entries:
            stats = [(e.name, e.stat()) for e in entries]
        files = sorted((name, st.st_size, st.st_mtime_ns) for name, st in stats)
        h.update(repr((sub, files)).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _group_pages(root: Path, members: Sequence[dict[str, Any]], group: str,
                 grouping: str) -> list[tuple[dict[str, Any], np.ndarray, np.ndarray,
                                              np.ndarray, np.ndarray, list[str]]]:
    """Features and labels of one site group's pages (site evidence from the group)."""
    import numpy as np

    from sitesift.datasets import load_page, read_gold
    from sitesift.methods.default import read_page
    from sitesift.text import tokens

    loaded: list[tuple[dict[str, Any], Any]] = []
    for row in members:
        try:
            npage = read_page(load_page(root, row))
        except Exception as exc:  # a page the cleaner cannot read is not training data
            print(f"skip {root.name}/{row['id']}: {exc}", file=sys.stderr)
            continue
        loaded.append(({**row, "revealed": npage.revealed}, npage))
    evidence = (SiteEvidence.fit(p for _, p in loaded)
                if grouping != "none" and len(loaded) > 1 else None)
    out = []
    for row, npage in loaded:
        gold = read_gold(root, row["id"]) or ""
        X, ntok, anc = page_features(npage, evidence)
        texts = npage.texts
        share = gold_share(texts, gold).astype(np.float32)
        info = {"id": row["id"], "group": group, "cv": cv_group(row.get("site")),
                "page_type": row.get("page_type"), "gold_tokens": len(tokens(gold)),
                "gold": gold, "revealed": row["revealed"]}
        out.append((info, X.astype(np.float32), share, ntok.astype(np.int32), anc, texts))
    return out


def cached_corpus(root: Path, cache: Path | None, *, rebuild: bool = False, workers: int = 1,
                  progress: bool = False) -> CorpusData:
    """A corpus's labelled blocks from the `cache` folder when it holds them for this feature
    set, else built (and stored there when a cache is given)."""
    source = corpus_fingerprint(root) if cache is not None else ""
    if cache is not None and (cache / f"{root.name}.json").is_file() and not rebuild:
        try:
            return CorpusData.load(cache, root.name, source)
        except (OSError, ValueError, KeyError) as exc:
            print(f"sitesift train-default: rebuilding {root.name}: {exc}", file=sys.stderr)
    data = build_corpus(root, workers=workers, progress=progress)
    if cache is not None:
        data.save(cache, source)
    return data


def build_corpus(root: Path, *, grouping: str = "auto", workers: int = 1,
                 progress: bool = False) -> CorpusData:
    """Labelled blocks of every page with gold in a corpus."""
    from sitesift.bench.runner import corpus_grouping
    from sitesift.datasets import read_index
    from sitesift.jobs.grouping import group_rows

    grouping = corpus_grouping(root, grouping)
    rows = [r for r in read_index(root) if (root / "gold" / f"{r['id']}.txt").is_file()]
    groups = group_rows(rows, grouping)
    jobs = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    results: list[Any] = []
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            futures = [pool.submit(_group_pages, root, m, g, grouping) for g, m in jobs]
            for i, f in enumerate(futures):
                results.extend(f.result())
                if progress and i % 50 == 0:
                    print(f"{root.name}: {i}/{len(futures)} groups", file=sys.stderr)
    else:
        for i, (g, m) in enumerate(jobs):
            results.extend(_group_pages(root, m, g, grouping))
            if progress and i % 50 == 0:
                print(f"{root.name}: {i}/{len(jobs)} groups", file=sys.stderr)
    order = {r["id"]: i for i, r in enumerate(rows)}
    results.sort(key=lambda item: order[item[0]["id"]])
    return _stack(root.name, results)


def _stack(name: str, results: Iterable[tuple[dict[str, Any], np.ndarray, np.ndarray,
                                               np.ndarray, np.ndarray, list[str]]]
           ) -> CorpusData:
    import numpy as np
    pages: list[dict[str, Any]] = []
    texts: list[str] = []
    Xs, shares, ntoks, page_idx, ancs = [], [], [], [], []
    for info, X, share, ntok, anc, block_texts in results:
        page_idx.append(np.full(len(share), len(pages), dtype=np.int32))
        pages.append(info)
        Xs.append(X)
        shares.append(share)
        ntoks.append(ntok)
        ancs.append(anc)
        texts.extend(block_texts)
    if not pages:
        raise ValueError(f"{name}: no pages with gold")
    return CorpusData(name, np.concatenate(Xs), np.concatenate(shares),
                      np.concatenate(ntoks), np.concatenate(page_idx), np.concatenate(ancs),
                      pages, texts)
