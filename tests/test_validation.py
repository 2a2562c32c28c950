"""The input checks shared by every entry point (corruptbench.validation)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from corruptbench.validation import check_image, check_severity


def test_check_severity() -> None:
    assert [check_severity(s) for s in (1, 5, np.int64(3))] == [1, 5, 3]
    # NumPy integers (and 0-d integer arrays) are ints, a numpy bool is not
    assert [check_severity(s) for s in (np.uint8(2), np.int32(4), np.array(3))] == [2, 4, 3]
    assert type(check_severity(np.int64(3))) is int
    with pytest.raises(TypeError, match="got the bool"):
        check_severity(np.bool_(True))
    for bad in (0, 6, -1):
        with pytest.raises(ValueError, match="severity must be in 1..5"):
            check_severity(bad)
    for bad in (True, 2.0, "3", None):
        with pytest.raises(TypeError, match="severity must be an int in 1..5"):
            check_severity(bad)


def test_rgb_is_a_read_only_view() -> None:
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    rgb, restore = check_image(img)
    assert np.shares_memory(rgb, img) and not rgb.flags.writeable and img.flags.writeable
    out = rgb + 1
    assert restore(out) is out


def test_gray_rgba_layouts_and_restore() -> None:
    gray = np.array([[0, 100], [200, 255]], np.uint8)
    rgb, restore = check_image(gray)
    assert rgb.shape == (2, 2, 3) and (rgb == gray[:, :, None]).all()
    colour = np.zeros((2, 2, 3), np.uint8)
    colour[..., 0] = 255  # PIL's luma: (255 * 299 + 500) // 1000 = 76
    assert restore(colour).tolist() == [[76, 76], [76, 76]]
    rgb1, restore1 = check_image(gray[:, :, None])
    assert rgb1.shape == (2, 2, 3) and restore1(colour).shape == (2, 2, 1)
    rgba = np.dstack([colour, np.full((2, 2), 9, np.uint8)])
    rgb4, restore4 = check_image(rgba)
    assert rgb4.shape == (2, 2, 3)
    back = restore4(np.full((2, 2, 3), 5, np.uint8))
    assert back.shape == (2, 2, 4) and (back[..., 3] == 9).all() and (back[..., :3] == 5).all()


def test_errors_name_the_argument() -> None:
    with pytest.raises(TypeError, match="image must be a numpy array; convert a PIL image"):
        check_image(Image.new("RGB", (4, 4)))
    with pytest.raises(TypeError, match="frame must be a numpy uint8 array, got list"):
        check_image([[1]], name="frame")
    with pytest.raises(TypeError, match="dtype uint8, got float32; for a float image"):
        check_image(np.zeros((4, 4, 3), np.float32))
    with pytest.raises(TypeError, match="dtype uint8, got int64$"):
        check_image(np.zeros((4, 4, 3), np.int64))
    with pytest.raises(ValueError, match=r"H x W x 4 \(RGBA\), got shape \(4, 4, 2\)"):
        check_image(np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(ValueError, match="image is empty"):
        check_image(np.zeros((0, 4, 3), np.uint8))


def test_numpy_integers_at_every_entry_point(synthetic_image: np.ndarray) -> None:
    import corruptbench
    from corruptbench.perturbations import perturb

    x = synthetic_image[:64, :64]
    np.testing.assert_array_equal(
        corruptbench.corrupt(x, "fog", np.int64(2), rng=np.int64(4)),
        corruptbench.corrupt(x, "fog", 2, rng=4),
    )
    np.testing.assert_array_equal(
        perturb(x, "shot_noise", profile="tiny", difficulty=np.int64(2), rng=1),
        perturb(x, "shot_noise", profile="tiny", difficulty=2, rng=1),
    )


def test_check_quality() -> None:
    from corruptbench.errors import ArgumentError
    from corruptbench.validation import check_quality

    assert check_quality(85) == 85 and check_quality(np.int64(100)) == 100
    for bad in (0, -3, 101, 500, 85.0, "85"):
        with pytest.raises(ArgumentError, match=r"quality must be an int in 1\.\.100"):
            check_quality(bad)


def test_errors_name_the_argument_in_both_worlds() -> None:
    from corruptbench.cli import FLAGS
    from corruptbench.errors import ArgumentError, InputTypeError

    with pytest.raises(ArgumentError) as info:
        check_severity(6)
    assert str(info.value) == "severity must be in 1..5, got 6"
    assert info.value.render(FLAGS) == "--severity must be in 1..5, got 6"
    with pytest.raises(InputTypeError) as typed:
        check_severity(2.0)
    assert typed.value.render(FLAGS).startswith("--severity must be an int in 1..5")
    with pytest.raises(InputTypeError, match="^image must have dtype uint8"):
        check_image(np.zeros((2, 2, 3), np.float32))
