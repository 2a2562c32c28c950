"""CCC's corruptions on torch batches (corruptbench.ccc.batch): the NumPy functions' pixels with
the NumPy draws, the torch backend's levels at integer severities, identity at 0, refusals."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from corruptbench.ccc import CCC_CORRUPTIONS, corrupt  # noqa: E402
from corruptbench.ccc.batch import corrupt_batch, corrupt_pair_batch, cpu_draws  # noqa: E402
from corruptbench.ccc.params import corruption_params  # noqa: E402
from corruptbench.corruptions.params import params_of  # noqa: E402
from corruptbench.errors import ArgumentError  # noqa: E402
from corruptbench.tables.ccc import CCC_NAMES  # noqa: E402
from corruptbench.torch import corrupt_batch as level_batch  # noqa: E402
from support import psnr  # noqa: E402

#: quarter steps (the walk's grid), arbitrary fractions, and below 1 (far from the levels)
FRACTIONAL = (0.25, 1.5, 3.6)


def _t(images) -> torch.Tensor:
    return torch.as_tensor(np.stack(images)).permute(0, 3, 1, 2).contiguous()


def _np(x: torch.Tensor) -> np.ndarray:
    return x.permute(0, 2, 3, 1).numpy()


@pytest.mark.parametrize("name", CCC_CORRUPTIONS)
def test_numpy_draws_reproduce_ccc_corrupt(photos224, name):
    # with the draws corrupt(image, name, s, rng=k) makes, the torch path gives its pixels up to
    # float32 rounding (the torch backend's tolerance: PSNR >= 40 dB)
    x = _t(photos224)
    for j, s in enumerate(FRACTIONAL):
        seeds = [100 * j + i for i in range(len(photos224))]
        ref = np.stack([corrupt(im, name, s, rng=k) for im, k in zip(photos224, seeds)])
        d = cpu_draws(photos224, name, s, [np.random.RandomState(k) for k in seeds])
        got = _np(corrupt_batch(x, name, s, draws=d))
        assert psnr(got, ref) >= 40.0, (name, s, psnr(got, ref))


@pytest.mark.parametrize("name", [n for n in CCC_CORRUPTIONS if n != "frost"])
def test_integer_severities_are_the_torch_levels(photos224, name):
    # at k = 1..5 CCC's parameters are ImageNet-C's (to the last bit where the interpolation
    # lands on the knot): the torch backend's level output for the same generator state
    x = _t(photos224[:1])
    reg = CCC_NAMES[name]
    for k in range(1, 6):
        got = corrupt_batch(x, name, k, generator=torch.Generator().manual_seed(k))
        want = level_batch(
            x, reg, k, profile="imagenet", generator=torch.Generator().manual_seed(k),
            backend="tensor",
        )  # fmt: skip
        exact = corruption_params(name, k) == params_of(reg, k, "imagenet")
        if exact:
            assert torch.equal(got, want), (name, k)
        else:  # the interpolation's last-bit difference
            assert psnr(_np(got), _np(want)) >= 40.0, (name, k)


def test_frost_crops_ccc_textures_not_imagenet_cs(photo224):
    # the same draws, ImageNet-C's textures (the level path) and CCC's re-encoded ones differ
    # (where a JPEG texture is drawn: the PNGs keep their pixels)
    x = _t([photo224] * 8)
    got = corrupt_batch(x, "frost", 3, generator=torch.Generator().manual_seed(4))
    lvl = level_batch(
        x, "frost", 3, profile="imagenet", generator=torch.Generator().manual_seed(4),
        backend="tensor",
    )  # fmt: skip
    assert not torch.equal(got, lvl)
    assert psnr(_np(got), _np(lvl)) > 30.0  # the same texture and crop, re-encoded at q75


def test_severity_zero_is_identity_and_pairs_skip_it(photo224):
    x = _t([photo224])
    for name in ("gaussian_noise", "frost", "elastic"):
        out = corrupt_batch(x, name, 0)
        assert torch.equal(out, x) and out is not x
    g1, g2 = torch.Generator().manual_seed(2), torch.Generator().manual_seed(2)
    pair = corrupt_pair_batch(x, "fog", 0, "contrast", 2.5, generator=g1)
    assert torch.equal(pair, corrupt_batch(x, "contrast", 2.5, generator=g2))


def test_float_batches_and_change_grows_with_severity(photo224):
    x = _t([photo224])
    changes = []
    for s in (0.5, 1.0, 1.5, 2.0):
        y = corrupt_batch(
            x.float() / 255, "gaussian_noise", s, generator=torch.Generator().manual_seed(0)
        )
        assert y.dtype == torch.float32 and y.shape == x.shape
        changes.append(float((y - x.float() / 255).abs().mean()))
    assert changes == sorted(changes) and changes[0] > 0


def test_refusals_name_the_problem(photo224):
    x = _t([photo224])
    with pytest.raises(ArgumentError, match="must be one of CCC's corruptions"):
        corrupt_batch(x, "speckle_noise", 1)
    with pytest.raises(ArgumentError, match=r"severity must be in \[0, 5\]"):
        corrupt_batch(x, "fog", 5.5)
    with pytest.raises(ArgumentError, match=r"x must be a \(N, 3, 224, 224\) tensor"):
        corrupt_batch(x[:, :, :100], "fog", 1)


def test_package_attribute_and_no_torch_on_import():
    import subprocess
    import sys

    import corruptbench.ccc as ccc

    assert ccc.corrupt_batch is corrupt_batch and ccc.corrupt_pair_batch is corrupt_pair_batch
    code = "import sys, corruptbench.ccc; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("name", ["gaussian_noise", "shot_noise", "impulse_noise"])
def test_torch_draws_same_statistics_as_numpy(photo224, name):
    # with its own generator (other random streams) the change has the NumPy one's size
    x = _t([photo224] * 2)
    for s in (1.3, 3.7):
        a = np.stack([corrupt(photo224, name, s, rng=k) for k in range(2)]).astype(float)
        b = _np(corrupt_batch(x, name, s, generator=torch.Generator().manual_seed(1)))
        ref = np.abs(a - photo224).mean()
        assert abs(np.abs(b.astype(float) - photo224).mean() / ref - 1) < 0.02, (name, s)
