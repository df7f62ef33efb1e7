"""Token precision, recall and F1 against gold text.

Tokens are lowercased `\\w+` matches (`sitesift.text.tokens`), counted as a multiset: a
token that appears three times in the gold and twice in the output counts two matches.
P = matches / output tokens, R = matches / gold tokens, F1 = 2PR / (P + R). When the output
is empty, P = R = F1 = 0 (and all three are 1 when the gold is empty too).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sitesift.text import tokens


@dataclass(frozen=True, slots=True)
class PRF:
    precision: float
    recall: float
    f1: float


def token_prf(output: str, gold: str) -> PRF:
    out, ref = Counter(tokens(output)), Counter(tokens(gold))
    n_out, n_ref = sum(out.values()), sum(ref.values())
    if n_out == 0 or n_ref == 0:
        same = float(n_out == n_ref)
        return PRF(same, same, same)
    matches = sum((out & ref).values())
    p, r = matches / n_out, matches / n_ref
    return PRF(p, r, 2 * p * r / (p + r) if matches else 0.0)
