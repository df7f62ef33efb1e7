"""Scores of an extracted text against gold text: one home for every metric.

All P/R/F1 metrics share one convention: P = matches / output units, R = matches / gold
units, F1 = 2PR / (P + R). When the output or the gold has no units, P = R = F1 = 0, and all
three are 1 when both are empty.

- `token_prf` (the headline): tokens are lowercased `\\w+` matches (`sitesift.text.tokens`),
  counted as a multiset: a token that appears three times in the gold and twice in the output
  counts two matches.
- `rouge_l`: ROUGE-L over whitespace tokens, case kept (the tokens of Bevendorff et al.,
  SIGIR 2023): matches = length of the longest common subsequence of the two whole token
  sequences. (They report ROUGE-LSum, the union of LCS per gold line; not the same number.)
- `shingle_prf`: 4-gram shingles (runs of 4 consecutive `token_prf` tokens) as sets, after
  the scrapinghub article-extraction benchmark (which counts case-kept shingles as multisets);
  a text of fewer than 4 tokens is one shingle.
- `snippet_rates`: for `with` / `without` snippet gold (WCXB): the share of snippets found in
  the output. Found = the snippet, case-folded with every whitespace run made one space and
  stripped, is a substring of the output normalised the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sitesift.text import tokens

SHINGLE = 4
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class PRF:
    precision: float
    recall: float
    f1: float


def _prf(matches: int, n_out: int, n_ref: int) -> PRF:
    if n_out == 0 or n_ref == 0:
        same = float(n_out == n_ref)
        return PRF(same, same, same)
    p, r = matches / n_out, matches / n_ref
    return PRF(p, r, 2 * p * r / (p + r) if matches else 0.0)


def token_prf(output: str, gold: str) -> PRF:
    out, ref = Counter(tokens(output)), Counter(tokens(gold))
    return _prf(sum((out & ref).values()), sum(out.values()), sum(ref.values()))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel (Allison-Dix / Hyyro 2004).

    One Python big integer holds a DP column as bits, so the cost is O(len(a) * len(b) / 64)
    machine words: 10,000 x 10,000 tokens take a fraction of a second, not minutes."""
    if len(a) < len(b):
        a, b = b, a  # the longer sequence as the bit vector: fewer loop turns
    if not b:
        return 0
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full  # a 0 bit marks a row where the LCS grew
    for token in b:
        m = masks.get(token)
        if m is None:
            continue
        u = v & m
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def rouge_l(output: str, gold: str) -> PRF:
    out, ref = output.split(), gold.split()
    return _prf(lcs_length(out, ref) if out and ref else 0, len(out), len(ref))


def shingles(text: str, n: int = SHINGLE) -> set[tuple[str, ...]]:
    toks = tokens(text)
    if len(toks) < n:
        return {tuple(toks)} if toks else set()
    return {tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)}


def shingle_prf(output: str, gold: str, n: int = SHINGLE) -> PRF:
    out, ref = shingles(output, n), shingles(gold, n)
    return _prf(len(out & ref), len(out), len(ref))


def normalise_snippet(text: str) -> str:
    return _SPACES.sub(" ", text.casefold()).strip()


def snippet_share(output: str, snippets: Sequence[str]) -> float | None:
    """Share of `snippets` found in `output` (see the module docstring); None if there are
    none, so pages without snippets stay out of the means."""
    wanted = [s for s in (normalise_snippet(s) for s in snippets) if s]
    if not wanted:
        return None
    hay = normalise_snippet(output)
    return sum(1 for s in wanted if s in hay) / len(wanted)


def snippet_rates(output: str, with_: Sequence[str],
                  without: Sequence[str]) -> tuple[float | None, float | None]:
    """(share of `with` snippets found: higher is better, share of `without` snippets
    wrongly kept: lower is better)."""
    return snippet_share(output, with_), snippet_share(output, without)
