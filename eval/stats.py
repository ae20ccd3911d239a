"""Paired uncertainty for run-vs-run differences: bootstrap CI, sign-flip p-value, questions needed.

Every metric of a run is a *ratio of sums over questions*: a mean over the questions where it applies
is sum(value) / count, a pooled metric (supported sentences, abstention precision/recall) is
sum(numerator) / sum(denominator). So one question contributes (num, den) to run A and (num, den) to
run B, and the difference of the run-level metric is

    diff = sum(num_b) / sum(den_b) - sum(num_a) / sum(den_a)        (b - a)

Resampling questions (the unit the two runs share) keeps every pair together:

- 95% paired-bootstrap CI: draw n questions with replacement `resamples` times (seeded); each draw is a
  row of question indices, and the resampled sums of all draws in a block are one gather-and-sum
  (numpy, no Python loop per draw); the interval is the 2.5th and 97.5th percentile of the resampled
  differences.
- p-value: paired permutation (sign-flip) test on each question's contribution to the difference,
  linearised at the pooled ratio (`linearised_pairs`; for a mean metric simply b_i - a_i): under "A
  and B are interchangeable" each contribution is as likely to have either sign; the p-value is the
  share of sign patterns (exact enumeration for n <= 16, else 10,000 random ones with the +1
  correction) whose |sum| is at least the observed one.
- questions needed: the number of questions for which a difference of the observed size would come out
  distinguishable (two-sided 5%, 80% power), from the bootstrap standard error, which scales as
  1/sqrt(n): n_needed = n * ((1.96 + 0.84) * se / |diff|)^2.

A difference is *distinguishable from noise* when its CI excludes 0 and p < 0.05 (with very few
questions the percentile bootstrap can collapse to a point, e.g. 5 of 5 improved gives [1, 1], while
the exact permutation test says p = 0.0625: both must agree).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

NEEDED_ALPHA = 0.05  # "questions needed": the two-sided level ...
NEEDED_POWER = 0.80  # ... and the power it is computed for (reports quote these, not their own copies)
Z_ALPHA = NormalDist().inv_cdf(1 - NEEDED_ALPHA / 2)  # 1.95996...
Z_POWER = NormalDist().inv_cdf(NEEDED_POWER)  # 0.84162...
EXACT_FLIPS_MAX_N = 16  # 2^16 sign patterns: enumerate them
CHUNK_CELLS = 2_000_000  # resamples x questions per block (memory stays ~16 MB)


@dataclass(frozen=True)
class PairedDiff:
    a: float | None
    b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    n: int  # questions that count for A or B
    se: float | None
    n_needed: int | None  # questions a difference of this size needs to be distinguishable (80% power)
    distinguishable: bool

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "diff": self.diff, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "p_value": self.p_value, "n": self.n, "se": self.se, "n_needed": self.n_needed,
                "distinguishable": self.distinguishable}


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _blocks(total: int, n: int):
    per = max(1, CHUNK_CELLS // max(n, 1))
    start = 0
    while start < total:
        yield start, min(total, start + per)
        start += per


def bootstrap_diffs(num_a, den_a, num_b, den_b, resamples: int = 10_000, seed: int = 0) -> np.ndarray:
    """Resampled differences (b - a) of the ratio metric; NaN where a resample leaves a side undefined."""
    na, da, nb, db = (np.asarray(x, dtype=float) for x in (num_a, den_a, num_b, den_b))
    n = len(na)
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    for lo, hi in _blocks(resamples, n):
        idx = rng.integers(0, n, size=(hi - lo, n))  # one row of question indices per resample
        out[lo:hi] = _ratio(nb[idx].sum(1), db[idx].sum(1)) - _ratio(na[idx].sum(1), da[idx].sum(1))
    return out


def linearised_pairs(num_a, den_a, num_b, den_b) -> np.ndarray:
    """Per-question paired contributions z_i to n * (R_b - R_a) of a ratio-of-sums metric, linearised at
    the pooled ratio R0 of both runs (the value both share under "no difference"):

        z_i = (num_b_i - R0 den_b_i) / mean(den_b) - (num_a_i - R0 den_a_i) / mean(den_a)

    sum(z) == n * (R_b - R_a) exactly. For a plain mean metric z_i is the question's b - a; for a pooled
    metric a question weighs by its claims / abstentions, so runs that write more or fewer claims per
    answer do not, by that alone, look different."""
    na, da, nb, db = (np.asarray(x, dtype=float) for x in (num_a, den_a, num_b, den_b))
    r0 = (na.sum() + nb.sum()) / (da.sum() + db.sum())
    return (nb - r0 * db) / db.mean() - (na - r0 * da) / da.mean()


def sign_flip_p(num_a, den_a, num_b, den_b, resamples: int = 10_000, seed: int = 0) -> float | None:
    """Two-sided p-value of the paired permutation test: under "A and B are interchangeable" each question's
    contribution z_i (see `linearised_pairs`) is as likely to be +z_i as -z_i."""
    na, da, nb, db = (np.asarray(x, dtype=float) for x in (num_a, den_a, num_b, den_b))
    n = len(na)
    if n == 0 or da.sum() <= 0 or db.sum() <= 0:
        return None
    z = linearised_pairs(na, da, nb, db)
    obs = abs(z.sum())
    if obs < 1e-12:
        return 1.0
    exact = n <= EXACT_FLIPS_MAX_N
    total = 2 ** n if exact else resamples
    rng = np.random.default_rng(seed + 1)
    extreme = 0
    for lo, hi in _blocks(total, n):
        if exact:
            bits = (np.arange(lo, hi)[:, None] >> np.arange(n)[None, :]) & 1
        else:
            bits = rng.integers(0, 2, size=(hi - lo, n))
        extreme += int((np.abs((1 - 2 * bits) @ z) >= obs * (1 - 1e-9)).sum())
    return extreme / total if exact else (extreme + 1) / (total + 1)


def paired_diff(num_a: Sequence[float], den_a: Sequence[float], num_b: Sequence[float], den_b: Sequence[float], *,
                resamples: int = 10_000, seed: int = 0, level: float = 0.95) -> PairedDiff:
    """The difference b - a of a ratio-of-sums metric over paired questions, with CI, p-value and n needed."""
    na, da, nb, db = (np.asarray(x, dtype=float) for x in (num_a, den_a, num_b, den_b))
    n = int(((da > 0) | (db > 0)).sum())
    a = float(na.sum() / da.sum()) if da.sum() > 0 else None
    b = float(nb.sum() / db.sum()) if db.sum() > 0 else None
    if a is None or b is None:
        return PairedDiff(a, b, None, None, None, None, n, None, None, False)
    diff = b - a
    boots = bootstrap_diffs(na, da, nb, db, resamples, seed)
    boots = boots[~np.isnan(boots)]
    tail = (1 - level) / 2 * 100
    lo, hi = (float(v) for v in np.percentile(boots, [tail, 100 - tail]))
    se = float(boots.std(ddof=1)) if len(boots) > 1 else 0.0
    p = sign_flip_p(na, da, nb, db, resamples, seed)
    distinct = (lo > 0 or hi < 0) and p is not None and p < 1 - level
    needed = None
    if abs(diff) > 1e-12 and se > 0:
        needed = max(2, math.ceil(n * ((Z_ALPHA + Z_POWER) * se / abs(diff)) ** 2))
    return PairedDiff(a, b, diff, lo, hi, p, n, se, needed, distinct)


def mean_pairs(values_a: Sequence[float | None], values_b: Sequence[float | None]):
    """(num_a, den_a, num_b, den_b) of a per-question mean metric: None counts nowhere.

    >>> mean_pairs([1.0, None, 0.5], [0.0, 1.0, None])
    ([1.0, 0.0, 0.5], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0])
    """
    def split(vs):
        return [0.0 if v is None else float(v) for v in vs], [0.0 if v is None else 1.0 for v in vs]

    na, da = split(values_a)
    nb, db = split(values_b)
    return na, da, nb, db
