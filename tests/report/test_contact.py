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
