"""Shared fixtures: the real graphs of ``../shared/data`` beside the repository
(skipped, with the reason, when absent) and small random graphs."""

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"


def data_file(relative: str) -> Path:
    """The data file ``relative`` under ``../shared/data``, or a skip."""
    path = DATA / relative
    if not path.is_file():
        pytest.skip(f"{path} is absent (real graphs live in ../shared/data beside the repository)")
    return path


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def random_csr(rng, n, density, low=1, high=100):
    """A random square scipy CSR array with integer weights in [low, high]."""
    import scipy.sparse as sp

    m = sp.random_array((n, n), density=density, format="csr", rng=rng, dtype=np.float64)
    m.data = rng.integers(low, high + 1, size=m.nnz).astype(np.float64)
    return m
