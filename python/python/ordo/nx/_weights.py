"""Which edge weights of a networkx graph ordo can compute with: the one place
that decides.

ordo's graphs carry unsigned 32-bit integer weights. A networkx graph's
weights are whatever Python values its edge attributes hold. :func:`classify`
looks at the values of one attribute (every edge's, the default filled in
where an edge lacks it, as networkx does) and says what ordo can take:

- all of them equal to 1: an unweighted ordo graph (ordo's edges weigh 1);
- whole numbers in ``0 .. 2**32-1`` (Python ints, bools, or floats with no
  fraction, e.g. ``2.0``): those weights; networkx computes with floats in the
  last case, so results come back as floats then;
- anything else (a fraction, a negative or non-finite value, a value too
  large, a non-number): no weights, and a reason, which the backend gives as
  its ``can_run`` answer so that networkx runs its own code.

When ordo gains real-valued weights, this module is what changes: a kind for
them, and the array handed to ``ordo.Graph``.
"""

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

#: The largest weight ordo's graphs hold.
MAX_WEIGHT = 2**32 - 1

#: Distances are handed back as float64: exact only below this.
EXACT_FLOAT = 2**53


@dataclass(frozen=True, eq=False)
class Weights:
    """The weights of one edge attribute, per edge in CSR order."""

    #: The values as a numeric numpy array (``None`` when they are not
    #: numbers, e.g. strings or ``None``).
    values: Optional[np.ndarray]
    #: The ``uint32`` weights for ordo, or ``None`` for an unweighted graph
    #: (every weight 1) or when ordo cannot take them (see ``reason``).
    ordo: Optional[np.ndarray]
    #: Why ordo cannot compute with these weights, or ``None`` when it can.
    reason: Optional[str]
    #: Whether networkx would compute with floats (a float weight).
    floats: bool

    @property
    def supported(self) -> bool:
        return self.reason is None

    @property
    def uniform(self) -> bool:
        """Whether every edge weighs the same positive amount (for
        algorithms whose result only depends on weight ratios)."""
        v = self.values
        if v is None or v.size == 0:
            return v is not None
        first = v[0]
        return bool(np.isfinite(first) and first > 0 and (v == first).all())

    @property
    def distinct(self) -> bool:
        """Whether no two edges weigh the same."""
        v = self.values
        return v is not None and np.unique(v).size == v.size


def _numeric(values: Sequence[Any]) -> Optional[np.ndarray]:
    """The values as a bool, integer or float array, or ``None``."""
    try:
        a = np.asarray(values)
    except (ValueError, TypeError, OverflowError):
        return None
    if a.ndim != 1 or a.dtype.kind not in "biuf":
        return None
    return a


def classify(values: Sequence[Any], n: int) -> Weights:
    """What ordo can take of the weights ``values`` (one per edge) of a graph
    of ``n`` vertices."""
    a = _numeric(values)
    if a is None:
        return Weights(None, None, "weights that are not real numbers", False)
    floats = a.dtype.kind == "f"
    if a.size == 0:
        return Weights(a, None, None, floats)
    if floats:
        if not np.isfinite(a).all():
            return Weights(a, None, "a NaN or infinite weight", True)
        if (a != np.floor(a)).any():
            return Weights(a, None, "non-integer weights (ordo's weights are unsigned 32-bit integers)", True)
    low, high = a.min(), a.max()
    if low < 0:
        return Weights(a, None, "a negative weight", floats)
    if high > MAX_WEIGHT:
        return Weights(a, None, f"a weight above {MAX_WEIGHT} (ordo's weights are unsigned 32-bit integers)", floats)
    if int(high) * max(n - 1, 1) >= EXACT_FLOAT:
        return Weights(a, None, "weights whose path sums could exceed 2**53", floats)
    if low == high == 1:
        return Weights(a, None, None, floats)
    return Weights(a, a.astype(np.uint32), None, floats)
