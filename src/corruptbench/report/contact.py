"""Contact sheets: one image under every corruption and severity, and strips of ImageNet-P frames.

The sheet is composed at the model's input resolution (224 x 224 cells, no resampling), so noise,
blur and JPEG artefacts look exactly as the network sees them; it is stored as a high-quality JPEG
(4:4:4) to keep the self-contained HTML report small.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..grid import SEVERITIES, subsets
from ..results.format import ALL_CORRUPTIONS, EXTRA_CORRUPTIONS, pretty
from ..tables.cbar import benchmark_levels

__all__ = [
    "sample_image",
    "corruption_grid",
    "contact_sheet",
    "cbar_grid",
    "cbar_contact_sheet",
    "perturbation_sequences",
    "perturbation_strip",
]

_GAP = 4
_LEFT = 170
_TOP = 30
_BG = (255, 255, 255)
_FG = (30, 30, 30)


def _font(size: int = 16) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: fixed bitmap font
        return ImageFont.load_default()


def sample_image(path: str | None = None) -> np.ndarray:
    """The contact-sheet photo: ``path`` if given, else scikit-image's ``chelsea`` (ships in the wheel)."""
    if path is not None:
        from ..formats.images import ImageLoadError, load_image

        try:
            return np.asarray(load_image(path))
        except ImageLoadError as exc:
            raise ValueError(f"{path}: cannot read the sample image ({exc})") from None
    import skimage.data

    return np.asarray(skimage.data.chelsea())


def _to_224(image: np.ndarray) -> np.ndarray:
    from ..ops.preprocess import profile_preprocess

    arr = np.asarray(image)
    if arr.ndim == 2:
        arr = np.stack([arr] * 3, axis=-1)
    arr = arr[..., :3].astype(np.uint8)
    if arr.shape[:2] == (224, 224):
        return arr
    return profile_preprocess(arr, "imagenet")


def corruption_grid(
    image: np.ndarray,
    *,
    corruptions: Sequence[str] | None = None,
    severities: Sequence[int] = SEVERITIES,
    seed: int = 0,
    profile: str = "imagenet",
) -> tuple[np.ndarray, dict[str, list[np.ndarray | None]]]:
    """Corrupt one photo (Resize(256) + CenterCrop(224) first) with every corruption and severity.

    Corruptions that are not available (not registered, or failing) give ``None`` cells.
    ``profile``: the parameter tables; any but ``imagenet`` takes ``image`` as it is (e.g. a
    32 x 32 image for ``cifar``).

    Returns:
        ``(clean_224, {corruption: [image or None per severity]})``.
    """
    from ..api import corrupt

    clean = _to_224(image) if profile == "imagenet" else np.asarray(image, dtype=np.uint8)
    grid: dict[str, list[np.ndarray | None]] = {}
    for k, name in enumerate(corruptions or ALL_CORRUPTIONS):
        cells: list[np.ndarray | None] = []
        for s in severities:
            try:
                cells.append(corrupt(clean, name, s, profile=profile, rng=seed + 1000 * k + s))
            except Exception:  # unavailable corruption: leave a blank cell, the sheet says "n/a"
                cells.append(None)
        grid[name] = cells
    return clean, grid


def _encode(canvas: Image.Image) -> bytes:
    buf = io.BytesIO()
    try:
        canvas.save(buf, format="JPEG", quality=90, subsampling=0, optimize=True)
    except OSError:
        # Pillow gives an optimised JPEG a buffer of one byte per pixel; a sheet of noisy
        # cells (C-bar's) can need more ("Suspension not allowed here"): plain Huffman tables
        buf = io.BytesIO()
        canvas.save(buf, format="JPEG", quality=90, subsampling=0)
    return buf.getvalue()


def _sheet(
    rows: Sequence[tuple[str, Sequence[np.ndarray | None]]],
    headers: Sequence[str],
    cell: int,
    resample: Image.Resampling = Image.Resampling.BILINEAR,
) -> bytes:
    n_cols = max(len(cells) for _, cells in rows)
    width = _LEFT + n_cols * (cell + _GAP)
    height = _TOP + len(rows) * (cell + _GAP)
    canvas = Image.new("RGB", (width, height), _BG)
    draw = ImageDraw.Draw(canvas)
    font = _font(16)
    small = _font(13)
    for j, text in enumerate(headers[:n_cols]):
        x = _LEFT + j * (cell + _GAP) + cell // 2
        draw.text((x, _TOP // 2), text, fill=_FG, font=font, anchor="mm")
    for i, (label, cells) in enumerate(rows):
        y = _TOP + i * (cell + _GAP)
        lines = label.split("\n")
        for k, line in enumerate(lines):
            draw.text(
                (8, y + cell // 2 + (k - (len(lines) - 1) / 2) * 18),
                line,
                fill=_FG,
                font=font if k == 0 else small,
                anchor="lm",
            )
        for j, img in enumerate(cells):
            x = _LEFT + j * (cell + _GAP)
            if img is None:
                draw.rectangle((x, y, x + cell - 1, y + cell - 1), fill=(235, 235, 235))
                draw.text(
                    (x + cell // 2, y + cell // 2),
                    "n/a",
                    fill=(120, 120, 120),
                    font=font,
                    anchor="mm",
                )
                continue
            tile = Image.fromarray(np.asarray(img, dtype=np.uint8)[..., :3])
            if tile.size != (cell, cell):
                tile = tile.resize((cell, cell), resample)
            canvas.paste(tile, (x, y))
    return _encode(canvas)


def contact_sheet(
    clean: np.ndarray, grid: Mapping[str, Sequence[np.ndarray | None]], *, cell: int = 224
) -> bytes:
    """JPEG bytes of the sheet: one row per corruption, columns clean + severities."""
    n_sev = max((len(v) for v in grid.values()), default=5)
    rows = []
    for name, cells in grid.items():
        label = pretty(name) + ("\n(extra)" if name in EXTRA_CORRUPTIONS else "")
        rows.append((label, [clean, *cells]))
    headers = ["clean"] + [f"severity {s}" for s in range(1, n_sev + 1)]
    return _sheet(rows, headers, cell)


def cbar_grid(
    image: np.ndarray,
    benchmark: str = "imagenet_c_bar",
    *,
    corruptions: Sequence[str] | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, dict[str, list[np.ndarray | None]]]:
    """One photo under C-bar corruptions (default the benchmark's ten) at severities 1..5 with
    the benchmark's levels (:func:`corruption_grid`): at 224 x 224 (Resize(256) + CenterCrop(224))
    for ``imagenet_c_bar``, for ``cifar10_c_bar`` at 32 x 32 (that crop shrunk with a box filter,
    the size of CIFAR's images), as each dataset holds them."""
    clean = _to_224(image)
    profile = "imagenet"
    if benchmark == "cifar10_c_bar":
        clean = np.asarray(Image.fromarray(clean).resize((32, 32), Image.Resampling.BOX))
        profile = "cifar"
    names = list(corruptions or subsets("c", "cbar")[benchmark])
    return corruption_grid(clean, corruptions=names, seed=seed, profile=profile)


def cbar_contact_sheet(
    clean: np.ndarray,
    grid: Mapping[str, Sequence[np.ndarray | None]],
    benchmark: str = "imagenet_c_bar",
    *,
    cell: int = 224,
) -> bytes:
    """JPEG bytes of :func:`cbar_grid`'s images: one row per corruption, labelled with the range
    of its levels in ``benchmark``'s table, columns clean + severities; 32 px images are shown
    enlarged without smoothing (nearest neighbour), so each pixel stays visible."""
    rows = []
    for name, cells in grid.items():
        levels = benchmark_levels(name, benchmark)
        title = "\n".join(textwrap.wrap(pretty(name), 19))  # the label column is 170 px wide
        rows.append((f"{title}\nlevels {levels[0]:g}-{levels[-1]:g}", [clean, *cells]))
    headers = ["clean"] + [f"severity {s}" for s in SEVERITIES]
    small = clean.shape[0] < cell
    return _sheet(
        rows, headers, cell, Image.Resampling.NEAREST if small else Image.Resampling.BILINEAR
    )


def perturbation_sequences(
    image: np.ndarray, perturbations: Sequence[str], *, difficulty: int = 1, seed: int = 0
) -> dict[str, np.ndarray]:
    """ImageNet-P sequences ``(T, 224, 224, 3)`` of one photo; perturbations that fail are skipped."""
    try:
        from ..perturbations import perturb  # type: ignore[attr-defined]
    except ImportError:
        return {}
    out: dict[str, np.ndarray] = {}
    for k, name in enumerate(perturbations):
        try:
            out[name] = np.asarray(
                perturb(image, name, profile="imagenet", difficulty=difficulty, rng=seed + k)
            )
        except Exception:  # unavailable perturbation: leave it out of the strip
            continue
    return out


def perturbation_strip(
    sequences: Mapping[str, np.ndarray], *, n_frames: int = 6, cell: int = 160
) -> bytes | None:
    """JPEG bytes: one row per perturbation with ``n_frames`` evenly spaced frames (0 ... T-1)."""
    if not sequences:
        return None
    rows = []
    lengths = {len(seq) for seq in sequences.values()}
    for name, seq in sequences.items():
        idx = np.linspace(0, len(seq) - 1, n_frames).round().astype(int)
        rows.append((f"{pretty(name)}\n({len(seq)} frames)", [seq[i] for i in idx]))
    if len(lengths) == 1:
        idx = np.linspace(0, lengths.pop() - 1, n_frames).round().astype(int)
        headers = [f"frame {i}" for i in idx]
    else:
        headers = ["first frame"] + [""] * (n_frames - 2) + ["last frame"]
    return _sheet(rows, headers, cell)
