"""``corruptbench.kernel_cache``: the compile estimates and the warm-up's report."""

from __future__ import annotations

from corruptbench.kernel_cache import WarmupResult, compile_estimate
from corruptbench.tables.kernel_signatures import COMPILE_SECONDS


def test_estimates_come_from_the_table_and_are_capped() -> None:
    total = COMPILE_SECONDS["all"]
    assert compile_estimate(everything=True) == total
    assert compile_estimate() == 0.0
    one = compile_estimate(["glass_blur"])
    assert one == COMPILE_SECONDS["corruption:glass_blur"] > 0
    every = [k.split(":")[1] for k in COMPILE_SECONDS if k.startswith("corruption:")]
    assert len(every) == 19 + 30  # ImageNet-C and ImageNet-C-bar
    assert compile_estimate(every, jpeg=True) == total  # shared kernels: capped
    assert compile_estimate(perturbations=["snow"]) == COMPILE_SECONDS["perturbation:snow"]


def test_describe() -> None:
    r = WarmupResult(37, 3, 4.0, 5.25, ("/a/x/ops", "/a/x/datasets"), 5_000_000, False)
    first, second = r.describe().splitlines()
    assert first == "37 kernel signatures ready in 5.2 s (3 compiled, 34 loaded from the cache)"
    assert second == "cache: /a/x (2 folders), 5.0 MB (not writable: set NUMBA_CACHE_DIR)"
