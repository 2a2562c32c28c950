"""make-c ``--layout tree``: any dataset folder, every image at its own size and in its own format.

``OUT/<corruption>/<severity>/<relative path>`` mirrors SRC (COCO's ``val2017/x.jpg``, Cityscapes'
``leftImg8bit/val/<city>/x.png``, ...), the COCO-C / Pascal-C / Cityscapes-C convention of
Michaelis et al. (2019): no resize, no crop, the profile's parameter tables at the image's own size.

Formats (by the source file's extension, so an output's name never depends on its content):

* ``.jpg`` / ``.jpeg`` -> JPEG at ``quality``; by default each file's own quality, read from its
  quantisation tables when they are libjpeg's standard tables scaled to a quality (what libjpeg,
  Pillow, OpenCV and most tools write; :func:`~corruptbench.formats.jpeg.jpeg_quality`), else 95.
  Optimised Huffman tables, 4:2:0 chroma (Pillow's ``save(quality=q, optimize=True)`` bytes).
* ``.png``, ``.tif``/``.tiff``, ``.bmp``, ``.ppm``/``.pgm``/``.pnm`` -> the same format, lossless
  (PNG with zlib level 1: ~4x faster to write than level 6 on corrupted images, ~20 % larger);
  ``.webp`` -> lossless WebP.
* ``.gif`` (256 colours) and ``.pbm`` (1 bit) cannot hold a corrupted image -> PNG, named
  ``<stem>.png``.

Gray stays gray, alpha is kept (:class:`~corruptbench.pipeline.NativeCorruptStep`); an image with
alpha under a name whose format has none (``.jpg``, ``.bmp``, ``.ppm``) is skipped with the reason.
An EXIF orientation other than 1 is written into the output (JPEG, PNG, WebP), so a loader that
applies it turns the output exactly as it turns the source (boxes stay aligned); no other metadata
is copied (an EXIF thumbnail would show the clean image). (Pillow itself turns a TIFF upright when
it reads it, so a TIFF output holds the upright pixels and no orientation.)

``copy_files`` (glob patterns, :func:`~corruptbench.pipeline.open_tree`) are copied once to
``OUT/<relative path>``; with ``links`` each ``OUT/<corruption>/<severity>/`` also gets relative
symbolic links to them, so that every corruption / severity folder is a complete dataset root.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from ..formats.imagenet import ImageLoadError
from ..layouts.build import link_roots
from ..layouts.imagenet_c import level_dirname
from ..pipeline import ItemStep, NativeCorruptStep, Source, SourceError, SourceItem, open_tree
from .outputs import write_atomic, write_bytes
from .spec import BuildError, BuildSpec, ItemResult, ShardPlan
from .writers import FileTreeWriter

__all__ = ["TreeWriter", "tree_output_name", "DEFAULT_JPEG_QUALITY", "PNG_COMPRESS_LEVEL"]

#: JPEG quality of outputs whose source quality cannot be read (non-standard tables)
DEFAULT_JPEG_QUALITY = 95
PNG_COMPRESS_LEVEL = 1

_JPEG = (".jpg", ".jpeg")
#: extension -> Pillow format written losslessly under the same name
_SAME = {
    ".png": "PNG",
    ".tif": "TIFF",
    ".tiff": "TIFF",
    ".bmp": "BMP",
    ".ppm": "PPM",
    ".pgm": "PPM",
    ".pnm": "PPM",
    ".webp": "WEBP",
}
_TO_PNG = (".gif", ".pbm")
_NO_ALPHA = ("JPEG", "BMP", "PPM")
# Pillow applies a TIFF's orientation when it loads it (the pixels come upright): not for TIFF
_EXIF_FORMATS = ("JPEG", "PNG", "WEBP")
_ORIENTATION = 0x0112


def tree_output_name(rel: str) -> str:
    """The output's relative path: ``rel``, or ``<stem>.png`` for ``.gif`` / ``.pbm`` sources."""
    stem, ext = os.path.splitext(rel)
    return stem + ".png" if ext.lower() in _TO_PNG else rel


def _format_of(rel: str) -> str:
    ext = os.path.splitext(rel)[1].lower()
    if ext in _JPEG:
        return "JPEG"
    if ext in _TO_PNG:
        return "PNG"
    try:
        return _SAME[ext]
    except KeyError:
        raise ValueError(f"no output format for the extension {ext!r}") from None


def _pil_mode(arr: np.ndarray) -> str:
    if arr.ndim == 2:
        return "L"
    return {2: "LA", 3: "RGB", 4: "RGBA"}[arr.shape[2]]


def _exif(orientation: int | None) -> bytes:
    if orientation is None:
        return b""
    ex = Image.Exif()
    ex[_ORIENTATION] = orientation
    return ex.tobytes()


def _orientation(im: Image.Image) -> object:
    try:
        return im.getexif().get(_ORIENTATION)
    except Exception:  # noqa: BLE001 - a malformed EXIF block: no orientation, not a lost image
        return None


def _insert_app1(jpeg: bytes, exif: bytes) -> bytes:
    """Put an APP1 Exif segment after the JFIF APP0 one: the bytes of Pillow's ``save(exif=)``."""
    end = 2
    if jpeg[2:4] == b"\xff\xe0":
        end = 4 + int.from_bytes(jpeg[4:6], "big")
    return jpeg[:end] + b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif + jpeg[end:]


def encode_native(arr: np.ndarray, fmt: str, quality: int, exif: bytes = b"") -> bytes:
    """The bytes of one tree output: ``arr`` (uint8 ``H x W``, ``x 2``, ``x 3`` or ``x 4``) as
    ``fmt`` (a Pillow format name; JPEG at ``quality``, the others lossless), with ``exif``."""
    if fmt == "JPEG":
        from ..formats.jpeg import encode_jpeg

        data = encode_jpeg(arr, quality)
        return _insert_app1(data, exif) if exif else data
    opts: dict[str, Any] = {}
    if fmt == "PNG":
        opts["compress_level"] = PNG_COMPRESS_LEVEL
    elif fmt == "WEBP":
        opts["lossless"] = True
    if exif and fmt in _EXIF_FORMATS:
        opts["exif"] = exif
    buf = io.BytesIO()
    Image.fromarray(arr, _pil_mode(arr)).save(buf, format=fmt, **opts)
    return buf.getvalue()


@dataclass(frozen=True)
class TreeWriter(FileTreeWriter):
    """make-c ``--layout tree``: ``<corruption>/<severity>/<relative path>``, each image at its
    own size and in its own format (see the module's notes).

    Attributes:
        quality: JPEG quality of every JPEG output, or None: each source's own quality
            (:func:`~corruptbench.formats.jpeg.jpeg_quality`), else :data:`DEFAULT_JPEG_QUALITY`.
        copy_files: glob patterns of the files copied once into OUT (annotations, label masks).
        links: give each ``<corruption>/<severity>/`` folder relative links to the copied files.
    """

    format: ClassVar[str] = "tree"
    quality: int | None = None
    copy_files: tuple[str, ...] = ()
    links: bool = True

    def layout(self) -> str:
        return (
            "<corruption>/<severity>/<relative path> (each image at its own size and in its own "
            "format; copied files at <relative path>)"
        )

    def manifest_params(self) -> dict[str, Any]:
        return {
            "layout": "tree",
            "jpeg_quality": self.quality if self.quality is not None else "source",
            "jpeg_quality_fallback": DEFAULT_JPEG_QUALITY,
            "png_compress_level": PNG_COMPRESS_LEVEL,
            "copy_files": list(self.copy_files),
            "links": self.links,
        }

    def open_source(self, src: str | os.PathLike[str]) -> Source:
        try:
            return open_tree(src, self.copy_files)
        except SourceError as exc:
            raise BuildError(*exc.parts) from None

    def item_step(self, kind: str, profile: str, seed: int) -> ItemStep:
        if kind != "c":
            raise BuildError("the tree layout is a make-c layout")
        return NativeCorruptStep(profile, seed)

    def target(self, name: str, level: int, rel: str) -> str:
        return os.path.join(self.out, name, level_dirname(name, level), tree_output_name(rel))

    def output_key(self, rel: str) -> str | None:
        return tree_output_name(rel).lower()

    def encoder(self, item: SourceItem) -> Callable[[str, np.ndarray, str], None]:
        """Read the source's header once: JPEG quality, EXIF orientation, alpha."""
        fmt = _format_of(item.rel)
        quality = self.quality or DEFAULT_JPEG_QUALITY
        orientation = None
        if item.path is not None:
            from ..formats.jpeg import jpeg_quality

            try:
                with Image.open(item.path) as im:
                    alpha = "A" in im.mode or "transparency" in im.info
                    if self.quality is None and fmt == "JPEG":
                        quality = jpeg_quality(im) or DEFAULT_JPEG_QUALITY
                    value = _orientation(im)
            except (OSError, SyntaxError, ValueError) as exc:
                raise ImageLoadError(f"cannot read the header: {exc}") from None
            if isinstance(value, int) and 2 <= value <= 8:
                orientation = value
            if alpha and fmt in _NO_ALPHA:
                raise ValueError(
                    f"the image has an alpha channel, which a {fmt} output "
                    f"({os.path.splitext(item.rel)[1]}) cannot hold"
                )
        exif = _exif(orientation) if fmt in _EXIF_FORMATS else b""

        def write(target: str, out: np.ndarray, name: str) -> None:
            write_bytes(target, encode_native(out, fmt, quality, exif))

        return write

    def write(self, target: str, out: np.ndarray, name: str) -> None:
        """Without a source file (images in memory): the format of the name, quality 95."""
        write_bytes(
            target, encode_native(out, _format_of(target), self.quality or DEFAULT_JPEG_QUALITY)
        )

    def finish(
        self, spec: BuildSpec, plan: ShardPlan, source: Source, results: Sequence[ItemResult]
    ) -> int:
        """Copy the selected files once, then link them into every corruption / severity."""
        out = Path(self.out)
        for ex in source.copied:
            dst = out / ex.rel
            if not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(dst, partial(_copy_from, str(ex.path)))
        if self.links and source.copied:
            roots = link_roots([ex.rel for ex in source.copied], [it.rel for it in source.items])
            for name, level in spec.cells:
                cell = out / name / level_dirname(name, level)
                for root in roots:
                    link = cell / root
                    if os.path.lexists(link):
                        continue
                    link.parent.mkdir(parents=True, exist_ok=True)
                    try:
                        os.symlink(os.path.relpath(out / root, link.parent), link)
                    except OSError as exc:
                        raise BuildError(
                            f"cannot create the link {link}: {exc.strerror or exc}; "
                            "build without links (links=False, --no-links) on this filesystem"
                        ) from None
        return super().finish(spec, plan, source, results)


def _copy_from(path: str, fh: Any) -> None:
    with open(path, "rb") as src:
        shutil.copyfileobj(src, fh, 1 << 20)
