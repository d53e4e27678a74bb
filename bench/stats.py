"""Order statistics the benchmarks print (one definition, so their figures compare).

>>> percentile([1.0, 2.0, 3.0, 4.0], 0.5)
2.5
>>> nearest_rank([4.0, 1.0, 3.0, 2.0], 0.95)
4.0
"""

from __future__ import annotations

from collections.abc import Sequence


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of already sorted values, interpolated between the two
    nearest ranks; NaN when there are none."""
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def nearest_rank(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (any order) without interpolation: the value
    at rank ``round(q * (n - 1))``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
