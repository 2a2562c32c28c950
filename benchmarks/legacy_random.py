"""Single-thread timing of the compiled legacy-``RandomState`` kernels vs NumPy's own samplers.

Usage::

    .venv/bin/python benchmarks/legacy_random.py                # 224 px photo, 15 repeats
    .venv/bin/python benchmarks/legacy_random.py --repeats 30

Prints milliseconds per call (CPU time of this thread, ``time.thread_time``; the minimum over
``--repeats`` calls after one untimed warm-up) of each kernel of ``corruptbench.ops.legacy_random_kernels`` on a
224 x 224 x 3 photo (150,528 values), next to the NumPy ``RandomState`` call drawing the same numbers,
then the five noise corruptions and glass blur per severity and summed over the 5 severities
(``corruptbench.corrupt`` with a ``RandomState``, i.e. including the per-call overhead).

Last, each noise corruption against its floors, per severity (``--floors``, on by default): the
corruption (``corrupt(img, name, s, rng=seed)``), the same numbers drawn alone by the compiled
sampler into a plain array (normals: ``legacy_normal``; Poisson counts: ``PoissonPlan.sample``;
impulse noise's two masks: two ``legacy_uniform`` arrays of uniforms), and the bare MT19937
stream behind them (as many ``random_sample`` doubles as the draw consumes, counted from the
generator's state, made by ``legacy_uniform``). NumPy's own sampler for the same numbers is shown
for context. The ratios say how close each corruption is to drawing its numbers.
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
from corruptbench.ops.legacy_random import (
    PoissonPlan,
    legacy_normal,
    legacy_normal_u8,
    legacy_state,
    legacy_uniform,
)
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


def doubles_consumed(draw: Callable[[np.random.RandomState], object], seed: int = 0) -> int:
    """How many ``random_sample`` doubles ``draw(RandomState(seed))`` consumes (from the state)."""
    rs = np.random.RandomState(seed)
    draw(rs)
    _, key, pos, *_ = rs.get_state()
    probe = np.random.RandomState(seed)
    blocks = 0
    while True:  # whole blocks of 624 words (312 doubles) until the key is the final one
        probe.random_sample(312)
        blocks += 1
        if np.array_equal(probe.get_state()[1], key):
            return 312 * (blocks - 1) + int(pos) // 2


def _fresh(draw: Callable[[np.random.RandomState], object]) -> object:
    return draw(np.random.RandomState(0))


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    """Median process CPU time of ``fn()`` over ``repeats`` calls (after one warm-up), in ms."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return float(np.median(times)) * 1e3


def floors(img: np.ndarray, repeats: int) -> None:
    """Each noise corruption against the draw of its numbers alone and the bare MT19937 stream."""
    n = img.size
    shape = img.shape
    print(
        "\nnoise corruptions vs their floors, 224 x 224 x 3, ms per call (process CPU, median of"
        f" {repeats}); x = corruption / floor"
    )
    print(
        f"  {'corruption':16s} {'sev':>3s} {'corrupt':>8s} {'draw alone':>11s} {'x':>5s}"
        f" {'MT19937':>8s} {'x':>5s} {'doubles':>9s} {'NumPy':>8s}"
    )
    totals = [0.0, 0.0, 0.0]
    for name in ("gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise"):
        for sev in SEVERITIES:
            c = get_params(name, sev, "imagenet")
            draw: Callable[[np.random.RandomState], object]
            numpy_draw: Callable[[np.random.RandomState], object]
            if name in ("gaussian_noise", "speckle_noise"):
                draw = partial(legacy_normal, loc=0.0, scale=c, size=shape)
                numpy_draw = partial(np.random.RandomState.normal, scale=c, size=shape)
            elif name == "shot_noise":
                plan = PoissonPlan.from_uint8(img, c)
                lam = (img / 255.0) * c
                draw = plan.sample
                numpy_draw = partial(np.random.RandomState.poisson, lam=lam)
            else:

                def draw(rs: np.random.RandomState) -> object:
                    return legacy_uniform(rs, 0.0, 1.0, n), legacy_uniform(rs, 0.0, 1.0, n)

                def numpy_draw(rs: np.random.RandomState) -> object:
                    return rs.random_sample(n), rs.random_sample(n)

            k = doubles_consumed(draw)
            ours = median_ms(partial(corruptbench.corrupt, img, name, sev, rng=0), repeats)
            alone = median_ms(partial(_fresh, draw), repeats)
            stream = median_ms(
                partial(_fresh, partial(legacy_uniform, low=0.0, high=1.0, size=k)), repeats
            )
            numpy_ms = median_ms(partial(_fresh, numpy_draw), max(3, repeats // 3))
            totals[0] += ours
            totals[1] += alone
            totals[2] += stream
            print(
                f"  {name:16s} {sev:>3d} {ours:8.3f} {alone:11.3f} {ours / alone:5.2f}"
                f" {stream:8.3f} {ours / stream:5.2f} {k:>9d} {numpy_ms:8.3f}"
            )
    print(
        f"  {'all four':16s} {'':>3s} {totals[0]:8.3f} {totals[1]:11.3f}"
        f" {totals[0] / totals[1]:5.2f} {totals[2]:8.3f} {totals[0] / totals[2]:5.2f}"
    )


def _kernel_rows(img: np.ndarray, rs: np.random.RandomState, reps: int) -> list:  # type: ignore[type-arg]
    """(kernel, its ms, NumPy's sampler for the same numbers, its ms) per compiled sampler."""
    flat = np.ascontiguousarray(img).reshape(-1)
    n = flat.size
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
    rows += _glass_rows(img, rs, reps)
    return rows


def _glass_rows(img: np.ndarray, rs: np.random.RandomState, reps: int) -> list:  # type: ignore[type-arg]
    """The glass-blur shuffle's rows of :func:`_kernel_rows`, per severity."""
    rows = []
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
    return rows


def _corrupt_rows(img: np.ndarray, rs: np.random.RandomState, reps: int) -> None:
    """Print ms per ``corrupt`` call of the five corruptions that draw the most."""
    print("\ncorruptbench.corrupt(img, name, s, rng=RandomState), ms per call")
    total = 0.0
    for name in ("gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise", "glass_blur"):
        per = [
            best_ms(partial(corruptbench.corrupt, img, name, s, rng=rs), reps) for s in SEVERITIES
        ]
        total += sum(per)
        print(f"  {name:16s} " + " ".join(f"{t:7.3f}" for t in per) + f"   sum {sum(per):8.3f}")
    print(f"  {'total':16s} {total:8.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--no-floors", action="store_true", help="skip the floors table")
    parser.add_argument("--floors-only", action="store_true", help="only the floors table")
    args = parser.parse_args()
    if args.floors_only:
        floors(photo(), args.repeats)
        return
    reps = args.repeats
    img = photo()
    rs = np.random.RandomState(0)
    rows = _kernel_rows(img, rs, reps)
    print(
        f"kernels, 224 x 224 x 3 ({img.size} values), ms per call (thread CPU time, min of {reps})"
    )
    for name, ours, ref_name, ref in rows:
        print(f"  {name:36s} {ours:8.3f}   {ref_name:28s} {ref:8.3f}")
    _corrupt_rows(img, rs, reps)
    if not args.no_floors:
        floors(img, reps)


if __name__ == "__main__":
    main()
