"""Glass blur's shuffle: the original runs it under numba, whose generator no seed of the original
reaches, so only its statistics can be matched: ours against the original's numba function."""

from __future__ import annotations

import numpy as np
import pytest

from ccc_reference import CCC_DIR, CCC_MISSING, ccc_available, load_functions
from corruptbench.ccc.functions import glass_rounds
from corruptbench.ccc.params import ccc_params
from corruptbench.corruptions.blur import glass_shuffle
from corruptbench.ops.gaussian import gaussian_blur_u8

numba = pytest.importorskip("numba")


@pytest.mark.slow
@pytest.mark.skipif(not ccc_available(), reason=CCC_MISSING)
@pytest.mark.parametrize("severity", [1.5, 3, 4.75])
def test_shuffle_statistics_match_numba(photo224, severity):
    # the original's function with its own @numba.jit() decorator
    original = load_functions(
        CCC_DIR / "make_imagenet_c.py", ["shuffle_pixels"], {"np": np, "numba": numba}
    )["shuffle_pixels"]
    sigma, d, iterations = glass_rounds(severity)
    c = np.array(ccc_params("glass_blur", severity), dtype=np.float64)
    c[1] = max(c[1], 1.0)
    base = gaussian_blur_u8(photo224, sigma, clip=False)

    def moved(x):  # share of values changed and mean absolute change
        diff = np.abs(x.astype(int) - base.astype(int))
        return (diff > 0).mean(), diff.mean()

    ours = [
        moved(glass_shuffle(base.copy(), d, iterations, np.random.RandomState(k))) for k in range(4)
    ]
    theirs = [moved(original(base.copy(), c)) for _ in range(4)]
    for i in range(2):
        a, b = np.mean([o[i] for o in ours]), np.mean([t[i] for t in theirs])
        assert abs(a - b) <= 0.02 * b, (i, a, b)
