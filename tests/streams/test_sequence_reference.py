"""Every setting's sequence equals the one the reference code feeds its model.

The reference (mariodoebler/test-time-adaptation, ../shared/reference) runs in this process
(:mod:`streams.tta_reference`): test_time.py's ``evaluate`` loop, ``get_test_loader``,
``sort_by_dirichlet`` and RobustBench's loaders, unchanged, on small data with the real ids:
CIFAR-C arrays of 1 x 1 px images with the real 10,000 rows per severity (the pixel holds the
row), and ImageNet-C trees of empty cells (the reference builds its sequence from the id lists,
as :func:`corruptbench.streams.stream` does with ``data=None``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import corruptbench.streams as S
from streams.tta_reference import TRIPWIRE_CALLS, need_reference, run_reference, write_cifar_c

ORDER = ["gaussian_noise", "fog"]


def _labels(classes: int) -> np.ndarray:
    """10,000 labels, 10,000 / classes per class (as in the CIFAR test sets), seeded order."""
    return np.random.RandomState(0).permutation(np.repeat(np.arange(classes), 10000 // classes))


@pytest.fixture(scope="module")
def cifar_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tta_cifar")
    write_cifar_c(root / "CIFAR-10-C", ORDER, _labels(10))
    write_cifar_c(root / "CIFAR-100-C", ORDER, _labels(100))
    return root


@pytest.fixture(scope="module")
def imagenet_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tta_imagenet")
    for name in ORDER:
        for s in range(1, 6):
            (root / "ImageNet-C" / name / str(s)).mkdir(parents=True)
    return root


def _compare(
    data: Path | None,
    dataset: str,
    setting: str,
    root: Path,
    *,
    severities: list[int],
    num_examples: int | None,
    delta: float | None,
    batch_size: int,
    seed: int = 1,
    order: list[str] = ORDER,
) -> S.Stream:
    need_reference()
    rec = run_reference(
        dataset=dataset,
        setting=setting,
        order=order,
        severities=severities,
        num_examples=-1 if num_examples is None else num_examples,
        delta=delta or 0.0,
        seed=seed,
        batch_size=batch_size,
        data_dir=root,
    )
    ours = S.stream(
        data,
        dataset,
        setting,
        order=order,
        severities=severities,
        num_examples=num_examples,
        delta=delta,
        seed=seed,
        batch_size=batch_size,
    )
    got = [(s.domain, s.severity, s.id, s.label) for s in ours.samples]
    assert len(got) == len(rec.samples)
    assert got == rec.samples
    assert [b.start for b in ours.blocks if b.reset] == rec.resets
    assert [(b0, e0) for _, b0, e0, _r in ours._jobs(batch_size, 0)] == rec.batches
    assert TRIPWIRE_CALLS == []  # no torchvision stub took part
    return ours


CIFAR_CASES = [
    ("continual", [5], None, None),
    ("continual", [5, 4, 3, 2, 1], 3000, None),
    ("reset_each_shift", [5], None, None),
    ("reset_each_shift", [5], 500, None),
    ("mixed_domains", [5], None, None),
    ("mixed_domains", [5], 4000, None),
    ("correlated", [5], None, None),
    ("correlated", [5], None, 0.1),
    ("mixed_domains_correlated", [5], None, 0.1),
    ("mixed_domains_correlated", [5], 5000, None),
    ("gradual_correlated", [5], 2000, None),
    ("reset_each_shift_correlated", [5], 3000, 1.0),
]


@pytest.mark.parametrize(("setting", "severities", "num_examples", "delta"), CIFAR_CASES)
def test_cifar10_c_sequence_equals_the_reference(
    cifar_root: Path,
    setting: str,
    severities: list[int],
    num_examples: int | None,
    delta: float | None,
) -> None:
    _compare(
        cifar_root / "CIFAR-10-C",
        "cifar10_c",
        setting,
        cifar_root,
        severities=severities,
        num_examples=num_examples,
        delta=delta,
        batch_size=200,
    )


@pytest.mark.parametrize(
    ("setting", "num_examples", "delta"),
    [
        ("continual", None, None),
        ("mixed_domains", 3000, None),
        ("correlated", None, 0.5),
        ("gradual_correlated", 1000, None),
    ],
)
def test_cifar100_c_sequence_equals_the_reference(
    cifar_root: Path, setting: str, num_examples: int | None, delta: float | None
) -> None:
    _compare(
        cifar_root / "CIFAR-100-C",
        "cifar100_c",
        setting,
        cifar_root,
        severities=[5],
        num_examples=num_examples,
        delta=delta,
        batch_size=200,
        seed=3,
    )


def test_gradual_schedule_and_resets_equal_the_reference(cifar_root: Path) -> None:
    ours = _compare(
        cifar_root / "CIFAR-10-C",
        "cifar10_c",
        "gradual",
        cifar_root,
        severities=[5],
        num_examples=700,
        delta=None,
        batch_size=200,
    )
    assert [b.severity for b in ours.blocks] == [1, 2, 3, 4, 5, 4, 3, 2, 1] * len(ORDER)
    assert [b.reset for b in ours.blocks] == [True] + [False] * 17


IMAGENET_CASES = [
    ("continual", None),  # RobustBench's 5,000 list
    ("continual", 1000),  # NUM_EX set: the 50,000 list, subsampled
    ("reset_each_shift", None),
    ("gradual", 300),
    ("mixed_domains", None),
    ("mixed_domains", 2000),
    ("correlated", None),  # correlated: the 50,000 list, sorted by label
    ("mixed_domains_correlated", 3000),
    ("gradual_correlated", 500),
    ("reset_each_shift_correlated", 800),
]


@pytest.mark.parametrize(("setting", "num_examples"), IMAGENET_CASES)
def test_imagenet_c_sequence_equals_the_reference(
    imagenet_root: Path, setting: str, num_examples: int | None
) -> None:
    order = ORDER[:1] if "gradual" in setting else ORDER  # nine blocks per domain
    ours = _compare(
        None,
        "imagenet_c",
        setting,
        imagenet_root,
        severities=[5],
        num_examples=num_examples,
        delta=None,
        batch_size=64,
        order=order,
    )
    listed = 50000 if num_examples is not None or "correlated" in setting else 5000
    assert len(ours.sequence.ids) == listed


@pytest.mark.slow
def test_imagenet_c_dirichlet_sequence_equals_the_reference(imagenet_root: Path) -> None:
    """The Dirichlet search over 1000 classes (the reference ~30 s on 2 cores, within its
    120 s limit, so it finishes and the sequences must agree)."""
    _compare(
        None,
        "imagenet_c",
        "correlated",
        imagenet_root,
        severities=[5],
        num_examples=None,
        delta=0.1,
        batch_size=64,
        order=ORDER[:1],
    )
