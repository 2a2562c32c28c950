"""CCC's corruptions at continuous severities equal the original's on real photos."""

from __future__ import annotations

import numpy as np
import pytest

from ccc_reference import CCC_MISSING, ccc_reference_available, run_ccc
from corruptbench.ccc import CCC_CORRUPTIONS, corrupt
from corruptbench.errors import ArgumentError
from reference import REFERENCE_MISSING, reference_available

#: integer, quarter and arbitrary fractional severities
SEVERITIES = (0.25, 1, 1.5, 2.75, 3, 4.6, 5)

needs_ref = pytest.mark.skipif(
    not ccc_reference_available(),
    reason=CCC_MISSING if reference_available() else REFERENCE_MISSING,
)


@pytest.fixture(scope="module")
def reference_outputs(photos224):
    """The original's output for every corruption, severity and photo (one runner call)."""
    ops, keys = [], []
    for p in range(len(photos224)):
        for name in CCC_CORRUPTIONS:
            for k, s in enumerate(SEVERITIES):
                seed = 1000 * p + 10 * k + 7
                ops.append(
                    {"op": "ccc", "image": f"p{p}", "name": name, "severity": s, "seed": seed}
                )
                keys.append((p, name, s, seed))
    _, out = run_ccc(ops, {f"p{p}": img for p, img in enumerate(photos224)}, timeout=900)
    return {key: out[f"r{i}"] for i, key in enumerate(keys)}


@pytest.mark.reference
@pytest.mark.slow
@needs_ref
@pytest.mark.parametrize("name", CCC_CORRUPTIONS)
def test_equals_original(name, photos224, reference_outputs):
    for (p, n, s, seed), expected in reference_outputs.items():
        if n != name:
            continue
        got = corrupt(photos224[p], name, s, rng=seed)
        diff = np.abs(got.astype(int) - expected.astype(int))
        assert diff.max() == 0, (name, s, p, int(diff.max()), int((diff > 0).sum()))


def test_severity_zero_is_identity(photo224):
    for name in CCC_CORRUPTIONS:
        out = corrupt(photo224, name, 0, rng=1)
        assert np.array_equal(out, photo224) and out is not photo224


def test_seeded_and_deterministic(photo224):
    a = corrupt(photo224, "gaussian_noise", 2.5, rng=3)
    b = corrupt(photo224, "gaussian_noise", 2.5, rng=np.random.RandomState(3))
    assert np.array_equal(a, b) and not np.array_equal(a, photo224)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"severity": 5.5}, r"severity must be in \[0, 5\], got 5.5"),
        ({"severity": -1}, r"severity must be in \[0, 5\]"),
        ({"name": "speckle"}, r"name must be one of CCC's corruptions"),
        ({"image": np.zeros((32, 32, 3), np.uint8)}, r"image must be a 224 x 224 x 3 uint8"),
        ({"rng": "x"}, r"rng must be None, an int seed"),
        ({"rng": -1}, r"rng must be None, an int seed in \[0, 2\*\*32\) .*got -1"),
        ({"rng": True}, r"rng must be None, an int seed .*got True"),
        ({"rng": np.random.default_rng(0)}, r"or a np.random.RandomState, got Generator"),
    ],
)
def test_refusals(photo224, kwargs, message):
    args = {"image": photo224, "name": "fog", "severity": 1.0, "rng": 0, **kwargs}
    with pytest.raises(ArgumentError, match=message):
        corrupt(**args)
