"""The feature matrix of a page's blocks: one row per block, NaN where a value is unknown.

Groups (names in `FEATURES`):
- text: length, word shape, stop words, sentence punctuation, digits, link share (the
  shallow text features of Kohlschütter et al.'s boilerpipe, language-light);
- markup: the block's tag, depth, its own keyword groups (class, id, role, itemprop) and tag
  groups, and how many levels up the nearest ancestor of each group is;
- position: where the block starts in the page's text, and the page's size;
- neighbours: length and link share of the blocks around it;
- containers: share of the page's text, link share and number of blocks under the block's
  ancestors, and whether it lies in the page's densest text container (Readability's idea:
  score paragraphs into their parent and grandparent, take the best);
- title: overlap with the page's `<title>`;
- site: from `SiteEvidence` when pages of the site were fitted (NaN otherwise).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from urllib.parse import urlsplit

import numpy as np

from sitesift.extractor.blocks import (
    ATTR_GROUPS,
    N_ATTR,
    N_TAG,
    TAG_GROUPS,
    PageBlocks,
)
from sitesift.text import TOKEN

BLOCK_TAG_NAMES = (
    "p", "div", "td", "th", "li", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
    "pre", "figcaption", "caption", "section", "article", "header", "footer", "nav", "aside",
    "form", "label", "button", "option", "address", "main", "center", "body", "span-like",
)
_TAG_INDEX = {t: i for i, t in enumerate(BLOCK_TAG_NAMES)}
_OTHER_TAG = _TAG_INDEX["span-like"]
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_SENTENCE_END = frozenset(".!?。！？")
_SEPARATORS = frozenset("|»·•›/")
# Characters are counted with str.count (C) per character of a class, and capitals among
# word initials by deleting them (str.translate): a Python loop over every character would
# dominate the page's time.
_END_CHARS = "".join(sorted(_SENTENCE_END))
_SEP_CHARS = "".join(sorted(_SEPARATORS))
_UPPER_DEL = {i: None for i in range(0x3000) if chr(i).isupper()}
_PHRASE_SPAN = 400  # phrases and dates are looked for in a block's first characters
_SHORT = re.compile(r"\b\w{1,3}\b")
ANCESTOR_LEVELS = (1, 2, 3, 4, 6)
SIBLING_LEVELS = (0, 1, 2, 3)
# Phrases of page furniture (legal lines, calls to action, comment and share bars).
_BOILER = re.compile(
    r"©|copyright|all rights reserved|privacy|terms of (use|service)|cookie|subscribe"
    r"|newsletter|sign (up|in)|log ?in\b|register|follow us|share (this|on)|advertis"
    r"|sponsored|related (articles|stories|posts|content)|read more|more from|recommended"
    r"|\bcomments?\b|\breply\b|posted (by|on|in)|filed under|\btags?:|skip to|back to top"
    r"|click here|you may also|trending|most (read|popular)|\bmenu\b|\bhome\b")
_DATE = re.compile(
    r"\b(19|20)\d\d\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b"
    r"|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b")
NEIGHBOUR_OFFSETS = (-3, -2, -1, 1, 2, 3)


def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    # A few of the commonest function words of the other big Latin-script languages, so
    # running text in them looks like running text too.
    extra = ("der die das und ist nicht mit von zu den ein eine le la les et est des une pour "
             "dans qui el los las del que por para una con es il di che per non della sono "
             "het een van en op dat niet voor o os um uma não com como").split()
    return frozenset(ENGLISH_STOP_WORDS) | frozenset(extra)


STOP_WORDS = _stop_words()


def _names() -> list[str]:
    names = [
        "log_tokens", "log_chars", "link_density", "mean_token_len", "stop_share",
        "short_token_share", "sentence_ends", "sentence_end_rate", "comma_rate", "digit_share",
        "capital_share", "ends_sentence", "log_lines", "log_links", "log_images", "log_inputs",
        "separator_rate", "all_caps", "words_per_line", "dup_in_page",
    ]
    names += [f"tag_{t}" for t in BLOCK_TAG_NAMES]
    names += ["heading_level", "depth", "rel_depth"]
    names += [f"own_{name}" for name, _ in ATTR_GROUPS]
    names += [f"up_{name}" for name, _ in ATTR_GROUPS]
    names += [f"up_{name}" for name, _ in TAG_GROUPS]
    names += ["pos_block", "pos_chars", "page_log_tokens", "page_log_blocks",
              "page_link_density", "tokens_share"]
    for off in NEIGHBOUR_OFFSETS:
        names += [f"nb{off:+d}_log_tokens", f"nb{off:+d}_link_density", f"nb{off:+d}_heading"]
    names += ["win3_log_tokens", "win3_link_density"]
    for lvl in ANCESTOR_LEVELS:
        names += [f"anc{lvl}_share", f"anc{lvl}_link_density", f"anc{lvl}_log_blocks",
                  f"anc{lvl}_text_share"]
    names += ["in_best", "levels_to_best", "best_share", "best_anc_score", "tokens_before",
              "tokens_after"]
    names += ["title_in_block", "block_in_title", "is_first_heading"]
    names += ["boiler_phrases", "has_date", "from_h1", "page_log_long_paras", "url_depth",
              "url_digits"]
    for lvl in SIBLING_LEVELS:
        names += [f"sib{lvl}_log_same", f"sib{lvl}_share", f"sib{lvl}_blocks_per_item",
                  f"sib{lvl}_link_density"]
    names += ["site_text", "site_folded", "site_path", "site_log_pages"]
    return names


FEATURES: tuple[str, ...] = tuple(_names())
N_FEATURES = len(FEATURES)
_COL = {name: i for i, name in enumerate(FEATURES)}
SITE_COLUMNS = tuple(_COL[n] for n in ("site_text", "site_folded", "site_path",
                                       "site_log_pages"))


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def block_features(pb: PageBlocks,
                   site: tuple[list[float], list[float], list[float], int] | None = None
                   ) -> np.ndarray:
    """The (blocks x FEATURES) matrix of one page; `site` from `SiteEvidence.shares`."""
    n = len(pb.text)
    X = np.full((n, N_FEATURES), np.nan, dtype=np.float64)
    if n == 0:
        return X
    stop = STOP_WORDS
    heading = np.zeros(n)
    tok_sets: list[set[str]] = []
    lowered = [t.lower() for t in pb.text]
    norm_count = Counter(lowered)
    text_rows: list[tuple[float, ...]] = []
    append = text_rows.append
    short_re, upper_del = _SHORT, _UPPER_DEL
    for i, text in enumerate(pb.text):
        low = lowered[i]
        toks = TOKEN.findall(low)
        nt = len(toks)
        nc = len(text) - text.count(" ") - text.count("\n")
        ends = sum(map(text.count, _END_CHARS))
        initials = "".join(w[0] for w in text.split())
        lines = pb.n_lines[i]
        append((
            nt, nc, min(pb.link_chars[i] / nc, 1.0) if nc else 0.0,
            len("".join(toks)) / nt if nt else 0.0,
            sum(map(stop.__contains__, toks)) / nt if nt else 0.0,
            len(short_re.findall(low)) / nt if nt else 0.0,
            math.log1p(ends), ends / nt if nt else 0.0,
            text.count(",") / nt if nt else 0.0,
            sum(map(text.count, "0123456789")) / nc if nc else 0.0,
            (len(initials) - len(initials.translate(upper_del))) / len(initials)
            if initials else 0.0,
            1.0 if text[-1] in _SENTENCE_END else 0.0,
            math.log1p(lines), math.log1p(pb.n_links[i]), math.log1p(pb.n_images[i]),
            math.log1p(pb.n_inputs[i]),
            sum(map(text.count, _SEP_CHARS)) / nt if nt else 0.0,
            1.0 if text.isupper() else 0.0, nt / lines,
            math.log(norm_count[low]),
        ))
        tok_sets.append(set(toks))
    T = np.asarray(text_rows, dtype=np.float64)
    n_tok, chars = T[:, 0].copy(), T[:, 1].copy()
    link = T[:, 2]
    T[:, 0] = np.log1p(n_tok)
    T[:, 1] = np.log1p(chars)
    X[:, :20] = T
    c = 20  # the text features end here
    # markup
    tags = [pb.nodes[e].tag for e in pb.elem]
    depth = np.asarray([pb.depth[e] for e in pb.elem], dtype=np.float64)
    tag_cols = np.zeros((n, len(BLOCK_TAG_NAMES)))
    for i, tag in enumerate(tags):
        tag_cols[i, _TAG_INDEX.get(tag, _OTHER_TAG)] = 1.0
        if tag in _HEADINGS:
            heading[i] = 1.0
    X[:, c:c + len(BLOCK_TAG_NAMES)] = tag_cols
    c += len(BLOCK_TAG_NAMES)
    X[:, c] = [int(t[1]) if t in _HEADINGS else 0 for t in tags]
    X[:, c + 1] = depth
    X[:, c + 2] = depth / max(float(max(pb.depth)), 1.0)
    c += 3
    own = np.asarray([pb.flags[e] for e in pb.elem], dtype=np.int64)
    X[:, c:c + N_ATTR] = (own[:, None] >> np.arange(N_ATTR)) & 1
    c += N_ATTR
    near = np.asarray(pb.nearest, dtype=np.float64)  # (n, N_ATTR + N_TAG), -1 = none
    dist = depth[:, None] - near
    dist[near < 0] = np.nan
    X[:, c:c + N_ATTR + N_TAG] = dist
    c += N_ATTR + N_TAG
    # position and page
    total_tok = float(n_tok.sum())
    before = np.concatenate(([0.0], np.cumsum(n_tok)[:-1]))
    X[:, c] = np.arange(n) / max(n - 1, 1)
    X[:, c + 1] = before / max(total_tok, 1.0)
    X[:, c + 2] = math.log1p(total_tok)
    X[:, c + 3] = math.log1p(n)
    X[:, c + 4] = _ratio(float((link * chars).sum()), float(chars.sum()))
    X[:, c + 5] = n_tok / max(total_tok, 1.0)
    c += 6
    # neighbours
    log_tok = np.log1p(n_tok)
    for off in NEIGHBOUR_OFFSETS:
        idx = np.arange(n) + off
        ok = (idx >= 0) & (idx < n)
        src = idx[ok]
        for j, arr in enumerate((log_tok, link, heading)):
            col = np.full(n, np.nan)
            col[ok] = arr[src]
            X[:, c + j] = col
        c += 3
    win_tok = _window_sum(n_tok, 3)
    win_link = _window_sum(link * n_tok, 3)
    X[:, c] = np.log1p(win_tok)
    X[:, c + 1] = win_link / np.maximum(win_tok, 1.0)
    c += 2
    # containers
    tree = _Tree(pb, chars, link, n_tok)
    c = _containers(pb, tree, X, c, n_tok)
    # title
    title_toks = set(TOKEN.findall(pb.title.lower()))
    if title_toks:
        common = np.asarray([len(t & title_toks) for t in tok_sets], dtype=np.float64)
        X[:, c] = common / len(title_toks)
        X[:, c + 1] = np.divide(common, n_tok, out=np.zeros(n), where=n_tok > 0)
    else:
        X[:, c:c + 2] = 0.0
    X[:, c + 2] = 0.0
    first = np.flatnonzero((heading > 0) & (n_tok > 0))
    if len(first):
        X[first[0], c + 2] = 1.0
    c += 3
    c = _structure(pb, tree, X, c, n_tok, link, tags)
    # site
    if site is not None and site[3] > 0:
        X[:, c] = site[0]
        X[:, c + 1] = site[1]
        X[:, c + 2] = site[2]
        X[:, c + 3] = math.log1p(site[3])
    c += 4
    assert c == N_FEATURES, (c, N_FEATURES)
    return X


_WAYBACK = re.compile(r"^/web/\d+[a-z_]*/(.*)$")


def url_path(url: str) -> str:
    """The path of a page's URL (of the archived URL for Wayback Machine copies)."""
    try:
        parts = urlsplit(url)
        match = _WAYBACK.match(parts.path) if "archive.org" in parts.netloc else None
        if match:
            parts = urlsplit(match.group(1) if "//" in match.group(1)
                             else "http://" + match.group(1))
        return parts.path
    except ValueError:
        return ""


def _structure(pb: PageBlocks, tree: _Tree, X: np.ndarray, c: int, n_tok: np.ndarray,
               link: np.ndarray, tags: list[str]) -> int:
    """Phrases, dates, distance from the first h1, URL shape, and runs of alike siblings
    (the records of a forum thread, a product grid or a menu: same tag and class under one
    parent)."""
    total_tok = max(float(n_tok.sum()), 1.0)
    before = np.concatenate(([0.0], np.cumsum(n_tok)[:-1]))
    heads = [t[:_PHRASE_SPAN].lower() for t in pb.text]
    X[:, c] = [len(_BOILER.findall(h)) for h in heads]
    X[:, c + 1] = [1.0 if _DATE.search(h) else 0.0 for h in heads]
    h1 = [i for i, t in enumerate(tags) if t == "h1"]
    if h1:
        X[:, c + 2] = (before - before[h1[0]]) / total_tok
    long_paras = int(np.sum((n_tok >= 30) & (link < 0.2)))
    X[:, c + 3] = math.log1p(long_paras)
    if pb.url:
        path = url_path(pb.url)
        X[:, c + 4] = len([p for p in path.split("/") if p])
        X[:, c + 5] = sum(ch.isdigit() for ch in path)
    c += 6
    # alike siblings: same tag and class under one parent
    ids: dict[tuple[int, str], int] = {}
    pairs = zip(pb.parent, pb.kinds, strict=True)
    kind_id = np.fromiter((ids.setdefault(pk, len(ids)) for pk in pairs), dtype=np.int64,
                          count=len(pb.parent))
    count = np.bincount(kind_id)
    mass = np.bincount(kind_id, weights=tree.sub[:, 0])
    links = np.bincount(kind_id, weights=tree.sub[:, 1])
    blocks = np.bincount(kind_id, weights=tree.sub[:, 2])
    total = max(float(tree.sub[0, 0]), 1.0) if len(tree.sub) else 1.0
    for j, lvl in enumerate(SIBLING_LEVELS):
        a = tree.chain[:, lvl]
        ok = a >= 0
        k = kind_id[a[ok]]
        X[ok, c + 4 * j] = np.log(count[k])
        X[ok, c + 4 * j + 1] = mass[k] / total
        X[ok, c + 4 * j + 2] = blocks[k] / count[k]
        X[ok, c + 4 * j + 3] = np.divide(links[k], mass[k], out=np.zeros(len(k)),
                                         where=mass[k] > 0)
    return c + 4 * len(SIBLING_LEVELS)


def _window_sum(values: np.ndarray, half: int) -> np.ndarray:
    """Sum over the `half` values before and after each value and the value itself."""
    cum = np.concatenate(([0.0], np.cumsum(values)))
    idx = np.arange(len(values))
    hi = np.minimum(idx + half + 1, len(values))
    lo = np.maximum(idx - half, 0)
    return cum[hi] - cum[lo]


_MIN_CHAIN = 8  # chains reach at least the highest level any feature asks for


class _Tree:
    """The page's element tree as arrays: subtree sums and every block's ancestor chain."""

    def __init__(self, pb: PageBlocks, chars: np.ndarray, link: np.ndarray,
                 n_tok: np.ndarray) -> None:
        m = len(pb.nodes)
        self.parent = parent = np.asarray(pb.parent, dtype=np.int64)
        self.depth = depth = np.asarray(pb.depth, dtype=np.int64)
        elem = np.asarray(pb.elem, dtype=np.int64)
        # per element: block chars, link chars, blocks, chars of text-like blocks
        sub = np.zeros((m, 4))
        textlike = (n_tok >= 10) & (link < 0.34)
        plain = chars * (1.0 - link) * textlike
        np.add.at(sub, elem, np.stack([chars, chars * link, np.ones(len(elem)), plain], 1))
        # Readability's container score: text-like paragraphs count for their parent and,
        # half, for their grandparent.
        score = np.zeros(m + 1)  # [m]: "no element"
        up = np.where(parent[elem] >= 0, parent[elem], m)
        np.add.at(score, up, plain)
        up2 = np.where(up < m, np.where(parent[np.minimum(up, m - 1)] >= 0,
                                        parent[np.minimum(up, m - 1)], m), m)
        np.add.at(score, up2, plain / 2)
        self.score = score[:m]
        # bottom-up sums, one depth level at a time
        order = np.argsort(-depth, kind="stable")
        levels = np.split(order, np.cumsum(np.bincount(depth)[::-1])[:-1])
        for idx in levels:
            idx = idx[parent[idx] >= 0]
            if len(idx):
                np.add.at(sub, parent[idx], sub[idx])
        self.sub = sub
        # ancestor chains: chain[i, k] = element k levels above block i's element (-1 above)
        top = max(int(depth.max()) + 1 if m else 1, _MIN_CHAIN)
        ext = np.append(parent, -1)  # ext[-1] = -1: -1 stays -1
        chain = np.full((len(elem), top + 1), -1, dtype=np.int64)
        chain[:, 0] = elem
        for k in range(1, top + 1):
            chain[:, k] = ext[chain[:, k - 1]]
        self.chain = chain


def _containers(pb: PageBlocks, tree: _Tree, X: np.ndarray, c: int,
                n_tok: np.ndarray) -> int:
    """Ancestor aggregates and the densest-container features; returns the next column."""
    sub, chain = tree.sub, tree.chain
    m = len(sub)
    total = max(float(sub[0, 0]), 1.0) if m else 1.0
    total_text = max(float(sub[0, 3]), 1.0) if m else 1.0
    for lvl in ANCESTOR_LEVELS:
        a = chain[:, lvl]
        ok = a >= 0
        s = sub[a[ok]]
        X[ok, c] = s[:, 0] / total
        X[ok, c + 1] = np.divide(s[:, 1], s[:, 0], out=np.zeros(len(s)), where=s[:, 0] > 0)
        X[ok, c + 2] = np.log1p(s[:, 2])
        X[ok, c + 3] = s[:, 3] / total_text
        c += 4
    score = tree.score
    total_score = max(float(score.sum()), 1.0)
    best = int(np.argmax(score)) if m else 0
    scored = np.where(chain >= 0, np.append(score, 0.0)[chain], 0.0)
    inside = (chain == best).any(axis=1) & (score[best] > 0 if m else False)
    X[:, c] = inside
    X[:, c + 1] = np.where(inside, tree.depth[chain[:, 0]] - tree.depth[best], np.nan)
    X[:, c + 2] = score[best] / total_score if m else 0.0
    X[:, c + 3] = scored.max(axis=1) / total_score
    c += 4
    cum = np.cumsum(n_tok)
    total_tok = max(float(cum[-1]), 1.0)
    X[:, c] = (cum - n_tok) / total_tok
    X[:, c + 1] = (total_tok - cum) / total_tok
    return c + 2


CONTEXT_LEVELS = (1, 2, 3, 4, 6, 8)


def ancestors(pb: PageBlocks) -> np.ndarray:
    """(blocks x CONTEXT_LEVELS) element index of each block's ancestor at that many levels
    up (level 0 would be the block's element), -1 above `<body>`."""
    out = np.full((len(pb.elem), len(CONTEXT_LEVELS)), -1, dtype=np.int32)
    parent = pb.parent
    top = CONTEXT_LEVELS[-1]
    for i, e in enumerate(pb.elem):
        a, lvl, j = e, 0, 0
        while lvl < top and a >= 0:
            a = parent[a]
            lvl += 1
            if lvl == CONTEXT_LEVELS[j]:
                out[i, j] = a
                j += 1
    return out
