"""Public API surface of the corruption library: names, profiles, bad input, compat, CLI."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import corruptbench
from corruptbench.cli import main

ALL = corruptbench.ALL_CORRUPTIONS


def _img(h: int = 40, w: int = 48, seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)


def test_name_lists_follow_the_reference_order() -> None:
    assert corruptbench.CORRUPTIONS == (
        "gaussian_noise", "shot_noise", "impulse_noise", "defocus_blur", "glass_blur",
        "motion_blur", "zoom_blur", "snow", "frost", "fog", "brightness", "contrast",
        "elastic_transform", "pixelate", "jpeg_compression",
    )  # fmt: skip
    assert corruptbench.EXTRA_CORRUPTIONS == (
        "speckle_noise",
        "gaussian_blur",
        "spatter",
        "saturate",
    )
    assert corruptbench.get_corruption_names("all") == list(ALL)
    assert corruptbench.get_corruption_names("common") == list(corruptbench.CORRUPTIONS)
    assert corruptbench.get_corruption_names("validation") == list(corruptbench.EXTRA_CORRUPTIONS)
    fams = {
        f: corruptbench.get_corruption_names(f) for f in ("noise", "blur", "weather", "digital")
    }
    # the paper's Figure 1 (and imagecorruptions): the 4 extra corruptions are in no family
    assert fams["noise"] == ["gaussian_noise", "shot_noise", "impulse_noise"]
    assert fams["blur"] == ["defocus_blur", "glass_blur", "motion_blur", "zoom_blur"]
    assert fams["weather"] == ["snow", "frost", "fog", "brightness"]
    assert fams["digital"] == ["contrast", "elastic_transform", "pixelate", "jpeg_compression"]
    assert sorted(sum(fams.values(), [])) == sorted(corruptbench.CORRUPTIONS)
    with pytest.raises(ValueError, match="did you mean 'blur'"):
        corruptbench.get_corruption_names("blurr")


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("shape", [(40, 48, 3), (40, 48), (40, 48, 1), (40, 48, 4), (33, 70, 3)])
def test_every_corruption_any_layout_keeps_shape_and_input(
    name: str, shape: tuple[int, ...]
) -> None:
    x = np.random.RandomState(1).randint(0, 256, shape).astype(np.uint8)
    before = x.copy()
    y = corruptbench.corrupt(x, name, 3, rng=7)
    assert y.shape == x.shape and y.dtype == np.uint8
    np.testing.assert_array_equal(x, before)  # never modified
    np.testing.assert_array_equal(
        y, corruptbench.corrupt(x, name, 3, rng=7)
    )  # same rng, same bytes
    if len(shape) == 3 and shape[2] == 4:
        np.testing.assert_array_equal(y[..., 3], x[..., 3])  # alpha kept


@pytest.mark.parametrize("profile", ["imagenet", "inception", "tiny", "cifar"])
def test_every_profile_at_native_and_other_sizes(profile: str) -> None:
    size = corruptbench.PROFILES[profile].size
    for shape in [(size, size, 3), (50, 90, 3)]:
        x = _img(*shape[:2])
        for name in ALL:
            y = corruptbench.corrupt(x, name, 5, profile=profile, rng=0)
            assert y.shape == x.shape, (profile, name, shape)


def test_auto_profile() -> None:
    from corruptbench.profiles import resolve_profile

    assert resolve_profile("auto", (32, 32, 3)).name == "cifar"
    assert resolve_profile("auto", (64, 64, 3)).name == "tiny"
    assert resolve_profile("auto", (299, 299, 3)).name == "inception"
    assert resolve_profile("auto", (224, 224, 3)).name == "imagenet"
    assert resolve_profile("auto", (64, 80, 3)).name == "imagenet"
    # auto on 32x32 equals the explicit cifar profile
    x = _img(32, 32)
    np.testing.assert_array_equal(
        corruptbench.corrupt(x, "fog", 2, rng=3),
        corruptbench.corrupt(x, "fog", 2, profile="cifar", rng=3),
    )


def test_rng_kinds() -> None:
    x = _img()
    a = corruptbench.corrupt(x, "gaussian_noise", 2, rng=5)
    b = corruptbench.corrupt(x, "gaussian_noise", 2, rng=np.random.RandomState(5))
    np.testing.assert_array_equal(a, b)
    g1 = corruptbench.corrupt(x, "gaussian_noise", 2, rng=np.random.default_rng(5))
    g2 = corruptbench.corrupt(x, "gaussian_noise", 2, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(g1, g2)
    c = corruptbench.corrupt(x, "gaussian_noise", 2, rng=6)
    assert not np.array_equal(a, c)
    # rng=None: fresh randomness each call
    assert not np.array_equal(
        corruptbench.corrupt(x, "gaussian_noise", 2), corruptbench.corrupt(x, "gaussian_noise", 2)
    )


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (
            {"image": np.zeros((40, 40, 3), np.float32)},
            TypeError,
            "dtype uint8.*float image in \\[0, 1\\]",
        ),
        ({"image": np.zeros((40, 40, 3), np.int64)}, TypeError, "dtype uint8"),
        ({"image": [[1, 2], [3, 4]]}, TypeError, "numpy uint8 array"),
        ({"image": np.zeros((4, 40, 40, 3), np.uint8)}, ValueError, "got shape \\(4, 40, 40, 3\\)"),
        ({"image": np.zeros((40, 40, 2), np.uint8)}, ValueError, "H x W x 3"),
        ({"image": np.zeros((0, 40, 3), np.uint8)}, ValueError, "empty"),
        (
            {"image": np.zeros((10, 40, 3), np.uint8)},
            ValueError,
            "too small for the 'imagenet' profile",
        ),
        ({"severity": 0}, ValueError, "severity must be in 1..5, got 0"),
        ({"severity": 6}, ValueError, "severity must be in 1..5"),
        ({"severity": 2.0}, TypeError, "severity must be an int"),
        ({"severity": True}, TypeError, "severity must be an int"),
        ({"corruption": "gausian_noise"}, ValueError, "did you mean 'gaussian_noise'"),
        ({"corruption": "elastic"}, ValueError, "unknown corruption 'elastic'"),
        ({"profile": "imagenet64"}, ValueError, "unknown profile"),
        ({"rng": "seed"}, TypeError, "rng must be"),
        ({"rng": -1}, ValueError, "rng seed must be in"),
    ],
)
def test_bad_input_is_named(kwargs: dict, exc: type, match: str) -> None:
    args = {"image": _img(), "corruption": "gaussian_noise", "severity": 1}
    args.update(kwargs)
    prof = {"profile": args.pop("profile")} if "profile" in args else {}
    rng = {"rng": args.pop("rng")} if "rng" in args else {}
    with pytest.raises(exc, match=match):
        corruptbench.corrupt(args["image"], args["corruption"], args["severity"], **prof, **rng)


def test_names_are_normalised() -> None:
    x = _img()
    np.testing.assert_array_equal(
        corruptbench.corrupt(x, "Gaussian-Noise", 1, rng=0),
        corruptbench.corrupt(x, "gaussian_noise", 1, rng=0),
    )


def test_grayscale_is_returned_as_grayscale() -> None:
    x = _img()[..., 0]
    y = corruptbench.corrupt(x, "contrast", 2)
    assert y.shape == x.shape
    # a gray image through a colour-neutral corruption stays consistent with the RGB path
    rgb = np.repeat(x[..., None], 3, axis=2)
    np.testing.assert_array_equal(y, corruptbench.corrupt(rgb, "contrast", 2)[..., 0])


def test_cli_list_and_corrupt(tmp_path, capsys) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert all(n in out for n in ALL)
    src = tmp_path / "in.png"
    Image.fromarray(_img(60, 80)).save(src)
    for ext in ("png", "jpg"):
        dst = tmp_path / f"out.{ext}"
        assert (
            main(
                [
                    "corrupt",
                    str(src),
                    str(dst),
                    "--corruption",
                    "fog",
                    "--severity",
                    "3",
                    "--seed",
                    "0",
                ]
            )
            == 0
        )
        with Image.open(dst) as im:
            assert im.size == (80, 60) and im.format == ("PNG" if ext == "png" else "JPEG")
    png = np.asarray(Image.open(tmp_path / "out.png"))
    np.testing.assert_array_equal(png, corruptbench.corrupt(_img(60, 80), "fog", 3, rng=0))
    # errors: exit 2 with a message naming the problem
    assert (
        main(
            [
                "corrupt",
                str(tmp_path / "missing.png"),
                str(tmp_path / "o.png"),
                "-c",
                "fog",
                "-s",
                "1",
            ]
        )
        == 2
    )
    assert "not found" in capsys.readouterr().err
    bad = tmp_path / "bad.jpg"
    bad.write_text("not an image")
    assert main(["corrupt", str(bad), str(tmp_path / "o.png"), "-c", "fog", "-s", "1"]) == 2
    assert "cannot read image" in capsys.readouterr().err
    assert main(["corrupt", str(src), str(tmp_path / "o.xyz"), "-c", "fog", "-s", "1"]) == 2
    assert main(["corrupt", str(src), str(tmp_path / "o.png"), "-c", "fogg", "-s", "1"]) == 2
    assert "did you mean 'fog'" in capsys.readouterr().err
    assert not (tmp_path / "o.png").exists() and not list(tmp_path.glob(".*"))


def test_corrupt_runs_the_cbar_suite() -> None:
    rs = np.random.RandomState(3)
    img32 = rs.randint(0, 256, (32, 32, 3)).astype(np.uint8)
    # auto picks the CIFAR-10-C-bar levels for 32 x 32, as for ImageNet-C's tables
    a = corruptbench.corrupt(img32, "sparkles", 2, rng=4)
    assert np.array_equal(a, corruptbench.corrupt(img32, "sparkles", 2, profile="cifar", rng=4))
    assert not np.array_equal(
        a, corruptbench.corrupt(img32, "sparkles", 2, profile="imagenet", rng=4)
    )
    # every other profile reads the ImageNet-C-bar levels, at the image's own size
    for profile in ("tiny", "inception"):
        assert np.array_equal(
            corruptbench.corrupt(img32, "lines", 3, profile=profile, rng=1),
            corruptbench.corrupt(img32, "lines", 3, profile="imagenet", rng=1),
        )
    # the paper's spellings
    b = corruptbench.corrupt(img32, "Transverse Chromatic Aberration", 3, rng=2)
    assert np.array_equal(
        b, corruptbench.corrupt(img32, "transverse_chromatic_abberation", 3, rng=2)
    )
    with pytest.raises(ValueError, match="severity must be in 1..5"):
        corruptbench.corrupt(img32, "sparkles", 6)
    # the ImageNet-C names and lists are unchanged
    assert (
        len(corruptbench.ALL_CORRUPTIONS) == 19 and "sparkles" not in corruptbench.ALL_CORRUPTIONS
    )
