"""The released corruption datasets: where each file is, its size and checksum, with sources
(data only; :mod:`corruptbench.download` fetches, :mod:`corruptbench.verify` checks).

Every value has its public source next to it. None of the hosts could be asked while this table
was written (no network), so the values come from published code that embeds them:

* ``TFDS 4.9.10``: the ``tensorflow-datasets`` 4.9.10 wheel on PyPI,
  ``tensorflow_datasets/url_checksums/<name>.txt`` (URL, size, SHA-256);
* ``pytorch-ood 0.4.0``: the ``pytorch-ood`` 0.4.0 wheel on PyPI, ``pytorch_ood/dataset/img/*.py``
  (MD5 of the archives);
* ``torch-uncertainty 0.13.0``: the ``torch-uncertainty`` 0.13.0 wheel on PyPI,
  ``torch_uncertainty/datasets/classification/...`` (MD5 of the archives, and of each ``.npy``
  inside the CIFAR-C archives);
* ``kkirchheim/pytorch-ood`` on GitHub: an earlier version of
  ``src/pytorch_ood/dataset/img/imagenet.py`` (class ``ImageNetP``, later commented out and then
  removed) is the only place found with the ImageNet-P MD5s; no second source confirms them.

Where no value could be found, the field is None and ``unknown`` says why. The downloader never
accepts a file without a known checksum unless the user says so (see :mod:`corruptbench.download`).
Sizes are only given where a source states them; otherwise the server's ``Content-Length`` (or
Zenodo's record API) tells the size at download time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cbar import IMAGENET_C_BAR

__all__ = [
    "Checksum",
    "ReleasedFile",
    "ReleasedDataset",
    "RELEASED",
    "ZENODO_API",
    "IMAGENET_C_PARTS",
    "IMAGENET_C_BAR_LEVELS",
    "MNIST_C_CORRUPTIONS",
    "CIFAR_C_NPY_MD5",
    "released_dataset",
]

#: Zenodo's record API (``GET <ZENODO_API><record id>`` returns the record's files as JSON)
ZENODO_API = "https://zenodo.org/api/records/"

_TFDS = "tensorflow-datasets 4.9.10 (PyPI), tensorflow_datasets/url_checksums/{}, line 1"
_OOD = "pytorch-ood 0.4.0 (PyPI), pytorch_ood/dataset/img/{}"
_TU = "torch-uncertainty 0.13.0 (PyPI), torch_uncertainty/datasets/classification/{}"


@dataclass(frozen=True)
class Checksum:
    """A published digest of a file: ``algorithm`` (a :mod:`hashlib` name), hex ``value``, and
    where it was published."""

    algorithm: str
    value: str
    source: str


@dataclass(frozen=True)
class ReleasedFile:
    """One downloadable file of a released dataset.

    Attributes:
        name: The file name on the host (and in the target folder).
        urls: Where to fetch it: the publisher's URL first, then known mirrors (same bytes).
        part: The part a user may select with ``--parts`` (ImageNet-C: ``noise``, ...).
        size: Bytes, where a source states it (else None).
        size_source: Where ``size`` comes from.
        checksums: Published digests (empty: unknown).
        unknown: Why there is no checksum (when ``checksums`` is empty).
        zenodo_record: The Zenodo record the file belongs to (its API lists an MD5 per file).
        contents: What the part holds (corruption names), for the plan.
        optional: Left out unless ``--parts`` names it.
        approx_gb: A rounded size in GB where a source gives only that (shown by the plan;
            never checked: ``size`` is what is checked).
        approx_source: Where ``approx_gb`` comes from.
    """

    name: str
    urls: tuple[str, ...]
    part: str
    size: int | None = None
    size_source: str = ""
    checksums: tuple[Checksum, ...] = ()
    unknown: str = ""
    zenodo_record: str | None = None
    contents: tuple[str, ...] = ()
    optional: bool = False
    approx_gb: int | None = None
    approx_source: str = ""


@dataclass(frozen=True)
class ReleasedDataset:
    """A released dataset: its files and what a complete copy looks like (for ``verify``)."""

    name: str
    title: str
    homepage: str
    files: tuple[ReleasedFile, ...]
    #: the layout ``verify`` checks (a key of ``corruptbench.verify``'s layouts)
    layout: str
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def parts(self) -> tuple[str, ...]:
        """Every part's name, in table order."""
        return tuple(f.part for f in self.files)

    @property
    def default_parts(self) -> tuple[str, ...]:
        """The parts fetched when none are named (all but the optional ones)."""
        return tuple(f.part for f in self.files if not f.optional)


def _zenodo(record: str, name: str) -> str:
    return f"https://zenodo.org/records/{record}/files/{name}?download=1"


#: ImageNet-C's five archives on Zenodo record 2235448 and the corruptions each holds (the
#: grouping: pytorch-ood 0.4.0, pytorch_ood/dataset/img/imagenet.py, class ImageNetC docstring)
IMAGENET_C_PARTS: dict[str, tuple[str, ...]] = {
    "noise": ("gaussian_noise", "shot_noise", "impulse_noise"),
    "blur": ("defocus_blur", "glass_blur", "motion_blur", "zoom_blur"),
    "weather": ("snow", "frost", "fog", "brightness"),
    "digital": ("contrast", "elastic_transform", "pixelate", "jpeg_compression"),
    "extra": ("speckle_noise", "gaussian_blur", "spatter", "saturate"),
}

#: ImageNet-C's archive sizes, rounded to GB: kkirchheim/pytorch-ood on GitHub (commit 42f17ca),
#: src/pytorch_ood/dataset/img/imagenet.py, class ImageNetC docstring (no exact byte count was
#: found offline; the server announces it and the MD5 decides)
_IMAGENET_C_GB = {"noise": 21, "blur": 7, "weather": 12, "digital": 7, "extra": 15}
_IMAGENET_C_GB_SOURCE = (
    "rounded; kkirchheim/pytorch-ood on GitHub (commit 42f17ca), "
    "src/pytorch_ood/dataset/img/imagenet.py, class ImageNetC docstring"
)

# MD5 of ImageNet-C's archives: pytorch-ood 0.4.0 imagenet.py lines 190-194 and torch-uncertainty
# 0.13.0 imagenet/imagenet_c.py lines 28-32 (two packages, the same five values)
_IMAGENET_C_MD5 = {
    "blur": ("2d8e81fdd8e07fef67b9334fa635e45c", 190, 28),
    "digital": ("89157860d7b10d5797849337ca2e5c03", 191, 29),
    "extra": ("d492dfba5fc162d8ec2c3cd8ee672984", 192, 30),
    "noise": ("e80562d7f6c3f8834afb1ecf27252745", 193, 31),
    "weather": ("33ffea4db4d93fe4a428c40a6ce0c25d", 194, 32),
}


def _imagenet_c_file(part: str) -> ReleasedFile:
    md5, ood_line, tu_line = _IMAGENET_C_MD5[part]
    src = (
        _OOD.format(f"imagenet.py line {ood_line}")
        + "; "
        + _TU.format(f"imagenet/imagenet_c.py line {tu_line}")
    )
    return ReleasedFile(
        name=f"{part}.tar",
        urls=(_zenodo("2235448", f"{part}.tar"),),
        part=part,
        size_source="not published in a source found offline; the server tells it",
        checksums=(Checksum("md5", md5, src),),
        zenodo_record="2235448",
        contents=IMAGENET_C_PARTS[part],
        approx_gb=_IMAGENET_C_GB[part],
        approx_source=_IMAGENET_C_GB_SOURCE,
    )


# ImageNet-P (Zenodo record 3565846): MD5s from one source only, an earlier version of
# kkirchheim/pytorch-ood src/pytorch_ood/dataset/img/imagenet.py (class ImageNetP, tgz_md5_list)
_IMAGENET_P_MD5 = {
    "blur": "869b2d2fb1604d1baa4316b5ecc9fdea",
    "digital": "8c1f73e4912812788e2fdb637cd55372",
    "noise": "619b37b5139ce764f77ce3bed3aee837",
    "weather": "a597ff6db8c6fb0dbcd6eb12ed620002",
}
_IMAGENET_P_SOURCE = (
    "kkirchheim/pytorch-ood on GitHub, an earlier src/pytorch_ood/dataset/img/imagenet.py "
    "(class ImageNetP, tgz_md5_list; the class was later commented out): a single source, "
    "not confirmed by another"
)


def _imagenet_p_file(part: str) -> ReleasedFile:
    return ReleasedFile(
        name=f"{part}.tar",
        urls=(_zenodo("3565846", f"{part}.tar"),),
        part=part,
        size_source="not published in a source found offline; the server tells it",
        checksums=(Checksum("md5", _IMAGENET_P_MD5[part], _IMAGENET_P_SOURCE),),
        zenodo_record="3565846",
    )


_NO_TINY_MD5 = (
    "no published checksum found offline for Zenodo record 2536630 (torch-uncertainty's "
    "Tiny-ImageNet-C MD5 belongs to another upload, record 8206060); the MD5 that Zenodo's "
    "record API lists is used at download time"
)

#: ImageNet-C-bar's ten corruptions and the five severity levels of each (Mintun et al. 2021;
#: facebookresearch/augmentation-corruption commit ba4d5a5, imagenet_c_bar/imagenet_c_bar.csv,
#: transcribed once in :data:`corruptbench.tables.cbar.IMAGENET_C_BAR`); the released folders are
#: named by the level (``2.35``), formatted ``{:.2f}`` by make_imagenet_c_bar.py, or ``1``..``5``
IMAGENET_C_BAR_LEVELS: dict[str, tuple[float, ...]] = dict(IMAGENET_C_BAR)

#: MNIST-C's corruption folders (``identity`` = the clean images): TFDS 4.9.10,
#: tensorflow_datasets/image_classification/mnist_corrupted.py lines 46-63 (_CORRUPTIONS)
MNIST_C_CORRUPTIONS: tuple[str, ...] = (
    "identity",
    "shot_noise",
    "impulse_noise",
    "glass_blur",
    "motion_blur",
    "shear",
    "scale",
    "rotate",
    "brightness",
    "translate",
    "stripe",
    "fog",
    "spatter",
    "dotted_line",
    "zigzag",
    "canny_edges",
)

#: MD5 of each ``.npy`` inside the CIFAR-C archives (``verify --hash``): torch-uncertainty 0.13.0,
#: cifar/cifar_c.py lines 40-59 (CIFAR-10-C) and 195-214 (CIFAR-100-C)
CIFAR_C_NPY_MD5: dict[str, dict[str, str]] = {
    "cifar10-c": {
        "fog": "7b397314b5670f825465fbcd1f6e9ccd",
        "jpeg_compression": "2b9cc4c864e0193bb64db8d7728f8187",
        "zoom_blur": "6ea8e63f1c5cdee1517533840641641b",
        "speckle_noise": "ef00b87611792b00df09c0b0237a1e30",
        "glass_blur": "7361fb4019269e02dbf6925f083e8629",
        "spatter": "8a5a3903a7f8f65b59501a6093b4311e",
        "shot_noise": "3a7239bb118894f013d9bf1984be7f11",
        "defocus_blur": "7d1322666342a0702b1957e92f6254bc",
        "elastic_transform": "9421657c6cd452429cf6ce96cc412b5f",
        "gaussian_blur": "c33370155bc9b055fb4a89113d3c559d",
        "frost": "31f6ab3bce1d9934abfb0cc13656f141",
        "saturate": "1cfae0964219c5102abbb883e538cc56",
        "brightness": "0a81ef75e0b523c3383219c330a85d48",
        "snow": "bb238de8555123da9c282dea23bd6e55",
        "gaussian_noise": "ecaf8b9a2399ffeda7680934c33405fd",
        "motion_blur": "fffa5f852ff7ad299cfe8a7643f090f4",
        "contrast": "3c8262171c51307f916c30a3308235a8",
        "impulse_noise": "2090e01c83519ec51427e65116af6b1a",
        "labels": "c439b113295ed5254878798ffe28fd54",
        "pixelate": "0f14f7e2db14288304e1de10df16832f",
    },
    "cifar100-c": {
        "fog": "4efc7ebd5e82b028bdbe13048e3ea564",
        "jpeg_compression": "c851b7f1324e1d2ffddeb76920576d11",
        "zoom_blur": "0204613400c034a81c4830d5df81cb82",
        "speckle_noise": "e3f215b1a0f9fd9fd6f0d1cf94a7ce99",
        "glass_blur": "0bf384f38e5ccbf8dd479d9059b913e1",
        "spatter": "12ccf41d62564d36e1f6a6ada5022728",
        "shot_noise": "b0a1fa6e1e465a747c1b204b1914048a",
        "defocus_blur": "d923e3d9c585a27f0956e2f2ad832564",
        "elastic_transform": "a0792bd6581f6810878be71acedfc65a",
        "gaussian_blur": "5204ba0d557839772ef5a4196a052c3e",
        "frost": "3a39c6823bdfaa0bf8b12fe7004b8117",
        "saturate": "c0697e9fdd646916a61e9c312c77bf6b",
        "brightness": "f22d7195aecd6abb541e27fca230c171",
        "snow": "0237be164583af146b7b144e73b43465",
        "gaussian_noise": "ecc4d366eac432bdf25c024086f5e97d",
        "motion_blur": "732a7e2e54152ff97c742d4c388c5516",
        "contrast": "322bb385f1d05154ee197ca16535f71e",
        "impulse_noise": "3b3c210ddfa0b5cb918ff4537a429fef",
        "labels": "bb4026e9ce52996b95f439544568cdb2",
        "pixelate": "96c00c60f144539e14cffb02ddbd0640",
    },
}

RELEASED: dict[str, ReleasedDataset] = {
    d.name: d
    for d in (
        ReleasedDataset(
            name="imagenet-c",
            title="ImageNet-C (Hendrycks & Dietterich 2019), 224 px JPEGs",
            homepage="https://zenodo.org/records/2235448",
            files=tuple(_imagenet_c_file(p) for p in IMAGENET_C_PARTS),
            layout="imagenet-c",
        ),
        ReleasedDataset(
            name="imagenet-p",
            title="ImageNet-P (Hendrycks & Dietterich 2019), MP4 sequences",
            homepage="https://zenodo.org/records/3565846",
            files=tuple(_imagenet_p_file(p) for p in _IMAGENET_P_MD5),
            layout="imagenet-p",
        ),
        ReleasedDataset(
            name="cifar10-c",
            title="CIFAR-10-C (Hendrycks & Dietterich 2019), .npy arrays",
            homepage="https://zenodo.org/records/2535967",
            files=(
                ReleasedFile(
                    name="CIFAR-10-C.tar",
                    urls=(
                        _zenodo("2535967", "CIFAR-10-C.tar"),
                        # torch-uncertainty 0.13.0 cifar/cifar_c.py line 61 downloads from this
                        # mirror and checks it against the same MD5 (line 16)
                        "https://huggingface.co/datasets/torch-uncertainty/CIFAR-C/resolve/main/"
                        "CIFAR-10-C.tar",
                    ),
                    part="all",
                    size=2918471680,
                    size_source=_TFDS.format("cifar10_corrupted.txt"),
                    checksums=(
                        Checksum(
                            "sha256",
                            "c72763e101c723b7c507b96205f7e938912a5d587376173b825850cf3cb876a7",
                            _TFDS.format("cifar10_corrupted.txt"),
                        ),
                        Checksum(
                            "md5",
                            "56bf5dcef84df0e2308c6dcbcbbd8499",
                            _OOD.format("cifar.py line 65")
                            + "; "
                            + _TU.format("cifar/cifar_c.py line 16"),
                        ),
                    ),
                    zenodo_record="2535967",
                ),
            ),
            layout="cifar10-c",
        ),
        ReleasedDataset(
            name="cifar100-c",
            title="CIFAR-100-C (Hendrycks & Dietterich 2019), .npy arrays",
            homepage="https://zenodo.org/records/3555552",
            files=(
                ReleasedFile(
                    name="CIFAR-100-C.tar",
                    urls=(_zenodo("3555552", "CIFAR-100-C.tar"),),
                    part="all",
                    size_source="not published in a source found offline; the server tells it",
                    checksums=(
                        Checksum(
                            "md5",
                            "11f0ed0f1191edbf9fa23466ae6021d3",
                            _OOD.format("cifar.py line 145")
                            + "; "
                            + _TU.format("cifar/cifar_c.py line 193"),
                        ),
                    ),
                    zenodo_record="3555552",
                ),
            ),
            layout="cifar100-c",
        ),
        ReleasedDataset(
            name="tiny-imagenet-c",
            title="Tiny-ImageNet-C (Hendrycks & Dietterich 2019), 64 px JPEGs",
            homepage="https://zenodo.org/records/2536630",
            files=(
                ReleasedFile(
                    name="Tiny-ImageNet-C.tar",
                    urls=(_zenodo("2536630", "Tiny-ImageNet-C.tar"),),
                    part="all",
                    unknown=_NO_TINY_MD5,
                    zenodo_record="2536630",
                ),
            ),
            layout="tiny-imagenet-c",
        ),
        ReleasedDataset(
            name="tiny-imagenet-p",
            title="Tiny-ImageNet-P (Hendrycks & Dietterich 2019), MP4 sequences",
            homepage="https://zenodo.org/records/2536630",
            files=(
                ReleasedFile(
                    name="Tiny-ImageNet-P.tar",
                    urls=(_zenodo("2536630", "Tiny-ImageNet-P.tar"),),
                    part="all",
                    unknown=_NO_TINY_MD5,
                    zenodo_record="2536630",
                ),
            ),
            layout="tiny-imagenet-p",
        ),
        ReleasedDataset(
            name="imagenet-c-bar",
            title="ImageNet-C-bar (Mintun, Kirillov & Xie 2021), 224 px JPEGs",
            # the link is in README.md of github.com/facebookresearch/augmentation-corruption
            # ("New: preprocessed ImageNet-C-bar dataset")
            homepage="https://github.com/facebookresearch/augmentation-corruption",
            files=(
                ReleasedFile(
                    name="imagenet_c_bar.tar.gz",
                    urls=("https://dl.fbaipublicfiles.com/inc_bar/imagenet_c_bar.tar.gz",),
                    part="all",
                    unknown=(
                        "the publisher gives no checksum and none was found in published code; "
                        "give --checksum or --accept-unverified"
                    ),
                ),
            ),
            layout="imagenet-c-bar",
        ),
        ReleasedDataset(
            name="mnist-c",
            title="MNIST-C (Mu & Gilmer 2019), .npy arrays",
            homepage="https://zenodo.org/records/3239543",
            files=(
                ReleasedFile(
                    name="mnist_c.zip",
                    urls=(_zenodo("3239543", "mnist_c.zip"),),
                    part="all",
                    size=246661575,
                    size_source=_TFDS.format("mnist_corrupted.txt"),
                    checksums=(
                        Checksum(
                            "sha256",
                            "af9ee8c6a815870c7fdde5af84c7bf8db0bcfa1f41056db83871037fba70e493",
                            _TFDS.format("mnist_corrupted.txt"),
                        ),
                        Checksum(
                            "md5",
                            "4b34b33045869ee6d424616cd3a65da3",
                            _OOD.format("mnistc.py line 77"),
                        ),
                    ),
                    zenodo_record="3239543",
                ),
                ReleasedFile(
                    name="mnist_c_leftovers.zip",
                    urls=(_zenodo("3239543", "mnist_c_leftovers.zip"),),
                    part="leftovers",
                    size_source="not published in a source found offline; the server tells it",
                    checksums=(
                        Checksum(
                            "md5",
                            "c365e9c25addd5c24454b19ac7101070",
                            _OOD.format("mnistc.py line 78"),
                        ),
                    ),
                    zenodo_record="3239543",
                    optional=True,
                ),
            ),
            layout="mnist-c",
            notes=(
                "mnist_c_leftovers.zip (part 'leftovers', optional) is a second archive of the record",
            ),
        ),
    )
}


def released_dataset(name: str) -> ReleasedDataset:
    """The table entry of ``name`` (``imagenet-c``, ``cifar10-c``, ...; ``_`` accepted for ``-``).

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    key = name.strip().lower().replace("_", "-")
    if key not in RELEASED:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(RELEASED)}")
    return RELEASED[key]
