"""The contact sheet and the ImageNet-P frame strip."""

from __future__ import annotations

import io

import numpy as np

from corruptbench.report.contact import contact_sheet, corruption_grid, perturbation_strip


def test_contact_sheet_small(synthetic_image: np.ndarray) -> None:
    from PIL import Image

    clean, grid = corruption_grid(synthetic_image, corruptions=["gaussian_noise", "fog"])
    assert clean.shape == (224, 224, 3) and len(grid["fog"]) == 5
    sheet = Image.open(io.BytesIO(contact_sheet(clean, grid)))
    assert sheet.format == "JPEG" and sheet.width > 6 * 224 and sheet.height > 2 * 224
    seqs = {"rotate": np.repeat(clean[None], 31, axis=0)}
    strip = Image.open(io.BytesIO(perturbation_strip(seqs) or b""))
    assert strip.width > 6 * 160


def test_cbar_contact_sheet_at_each_benchmarks_size(synthetic_image: np.ndarray) -> None:
    """ImageNet-C-bar's corruptions at 224 px with its levels; CIFAR-10-C-bar's at 32 px with
    its own (each cell the photo corrupted as the dataset holds it)."""
    from PIL import Image

    from corruptbench import corrupt
    from corruptbench.report.contact import cbar_contact_sheet, cbar_grid

    clean, grid = cbar_grid(synthetic_image, corruptions=["sparkles"], seed=5)
    assert clean.shape == (224, 224, 3)
    assert np.array_equal(grid["sparkles"][2], corrupt(clean, "sparkles", 3, rng=5 + 3))
    small, grid32 = cbar_grid(synthetic_image, "cifar10_c_bar", seed=5)
    assert small.shape == (32, 32, 3) and len(grid32) == 10 and "ripple" in grid32
    want = corrupt(
        small, "ripple", 5, profile="cifar", rng=5 + 1000 * list(grid32).index("ripple") + 5
    )
    assert np.array_equal(grid32["ripple"][4], want)
    sheet = Image.open(io.BytesIO(cbar_contact_sheet(small, grid32, "cifar10_c_bar", cell=96)))
    assert sheet.format == "JPEG" and sheet.width > 6 * 96 and sheet.height > 10 * 96


def test_a_sheet_of_noise_is_still_written() -> None:
    """Cells of pure noise need more than the one byte per pixel Pillow allots an optimised JPEG
    ("Suspension not allowed here"): the sheet is written with plain Huffman tables instead."""
    from PIL import Image

    from corruptbench.report.contact import cbar_contact_sheet

    noise = np.random.default_rng(0).integers(0, 256, (224, 224, 3), dtype=np.uint8)
    sheet = cbar_contact_sheet(noise, {"sparkles": [noise] * 5}, "imagenet_c_bar", cell=224)
    with Image.open(io.BytesIO(sheet)) as im:
        assert im.format == "JPEG" and im.width > 6 * 224
