"""Single-thread timing of the compiled legacy-``RandomState`` kernels vs NumPy's own samplers.

Usage::

    .venv/bin/python benchmarks/legacy_random.py                # 224 px photo, 15 repeats
    .venv/bin/python benchmarks/legacy_random.py --repeats 30

Prints milliseconds per call (CPU time of this thread, ``time.thread_time``; the minimum over
``--repeats`` calls after one untimed warm-up) of each kernel of ``corruptbench.ops.legacy_random_kernels`` on a
224 x 224 x 3 photo (150,528 values), next to the NumPy ``RandomState`` call drawing the same numbers,
then the five noise corruptions and glass blur per severity and summed over the 5 severities
(``corruptbench.corrupt`` with a ``RandomState``, i.e. including the per-call overhead).
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import PHOTO, synthetic  # isort: split

import argparse
import time
from collections.abc import Callable
from functools import partial

import numpy as np

import corruptbench
from corruptbench.ops.legacy_random import PoissonPlan, legacy_normal_u8, legacy_state
from corruptbench.ops.legacy_random_kernels import glass_shuffle_mt, impulse_u8
from corruptbench.tables.corruptions import get_params

SEVERITIES = (1, 2, 3, 4, 5)


def photo() -> np.ndarray:
    """The 224 x 224 test photo (imagenet preprocessing), or a synthetic stand-in."""
    if PHOTO.is_file():
        from PIL import Image

        from corruptbench.ops.preprocess import profile_preprocess

        with Image.open(PHOTO) as im:
            return profile_preprocess(im.convert("RGB"), "imagenet")
    return synthetic(224, 224)


def _shot(img: np.ndarray, c: float, rs: np.random.RandomState) -> np.ndarray:
    return PoissonPlan.from_uint8(img, c).sample_unit_u8(rs, c)


def best_ms(fn: Callable[[], object], repeats: int) -> float:
    """Minimum thread CPU time of ``fn()`` over ``repeats`` calls (after one warm-up), in ms."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t0)
    return best * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    reps = args.repeats
    img = photo()
    flat = np.ascontiguousarray(img).reshape(-1)
    n = flat.size
    rs = np.random.RandomState(0)
    out = np.empty(n, np.uint8)

    def kernel_gauss() -> None:
        assert legacy_normal_u8(rs, flat, 0.08, False, out)

    def kernel_impulse() -> None:
        st = legacy_state(rs)
        assert st is not None
        lut = ((np.arange(256) / 255.0) * 255).astype(np.uint8)
        impulse_u8(flat, lut, 0.03, 0.5, st.key, st.ints, out)
        st.commit()

    rows: list[tuple[str, float, str, float]] = []
    rows.append(
        (
            "legacy_normal_u8 (c=0.08)",
            best_ms(kernel_gauss, reps),
            "rs.standard_normal",
            best_ms(lambda: rs.standard_normal(n), reps),
        )
    )
    for c in (60.0, 25.0, 12.0, 5.0, 3.0):
        lam = (img / 255.0) * c
        rows.append(
            (
                f"poisson u8 (c={c:g})",
                best_ms(partial(_shot, img, c, rs), reps),
                "rs.poisson(lam)",
                best_ms(partial(rs.poisson, lam), reps),
            )
        )
    rows.append(
        (
            "impulse_u8 (2 masks)",
            best_ms(kernel_impulse, reps),
            "2x rs.random_sample",
            best_ms(lambda: (rs.random_sample(n), rs.random_sample(n)), reps),
        )
    )
    for sev in SEVERITIES:
        _, d, iters = get_params("glass_blur", sev, "imagenet")
        x = img.copy()

        def kernel_glass(d: int = d, iters: int = iters, x: np.ndarray = x) -> None:
            st = legacy_state(rs)
            assert st is not None
            glass_shuffle_mt(x, d, iters, st.key, st.ints)
            st.commit()

        pairs = iters * (224 - 2 * d) ** 2
        rows.append(
            (
                f"glass_shuffle_mt s{sev} (d={d}, it={iters})",
                best_ms(kernel_glass, reps),
                f"rs.randint(-d,d,({pairs},2))",
                best_ms(partial(rs.randint, -d, d, size=(pairs, 2)), reps),
            )
        )
    print(f"kernels, 224 x 224 x 3 ({n} values), ms per call (thread CPU time, min of {reps})")
    for name, ours, ref_name, ref in rows:
        print(f"  {name:36s} {ours:8.3f}   {ref_name:28s} {ref:8.3f}")

    print("\ncorruptbench.corrupt(img, name, s, rng=RandomState), ms per call")
    total = 0.0
    for name in ("gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise", "glass_blur"):
        per = [
            best_ms(partial(corruptbench.corrupt, img, name, s, rng=rs), reps) for s in SEVERITIES
        ]
        total += sum(per)
        print(f"  {name:16s} " + " ".join(f"{t:7.3f}" for t in per) + f"   sum {sum(per):8.3f}")
    print(f"  {'total':16s} {total:8.3f}")


if __name__ == "__main__":
    main()
