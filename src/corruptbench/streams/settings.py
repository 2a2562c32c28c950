"""The test-time-adaptation stream settings as data: every name, order, schedule and default once.

Sources (MIT; read, not copied):

* mariodoebler/test-time-adaptation commit 8b2ed63, ``classification/test_time.py``
  (``valid_settings``, the domain loop, the gradual severities 1,2,3,4,5,4,3,2,1, when the model
  is reset), ``classification/conf.py`` (``RNG_SEED`` 1, ``NUM_EX`` -1, ``DELTA_DIRICHLET`` 0) and
  ``classification/cfgs/{cifar10_c,cifar100_c,imagenet_c}/*.yaml`` (severity 5, batch size 200 on
  CIFAR, 64 on ImageNet-C, the canonical order of the 15 corruptions).
* qinenergy/cotta commit c212a20, ``imagenet/cfgs/10orders/{tent,cotta}/*{0..9}.yaml``: the ten
  ImageNet-C domain orders (the tent and cotta files of one number list the same order).

``recurring`` is not in the reference: the continual stream repeated ``rounds`` times without a
reset between rounds (each round the same sequence), as recurring / "persistent" TTA
benchmarks run it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..grid import subsets

__all__ = [
    "Setting",
    "SETTINGS",
    "DatasetInfo",
    "DATASETS",
    "ORDERS",
    "CANONICAL",
    "GRADUAL_SEVERITIES",
    "DEFAULT_SEED",
    "DEFAULT_SEVERITIES",
    "DEFAULT_ROUNDS",
    "IMAGE_LISTS",
]


@dataclass(frozen=True)
class Setting:
    """How a setting orders its stream (test_time.py decides each by a substring of the name).

    Attributes:
        mixed: every domain in one shuffled block (``"mixed_domains" in setting``).
        correlated: each block sorted by label, or Dirichlet-sorted when delta > 0.
        gradual: each domain goes through :data:`GRADUAL_SEVERITIES` when one severity is given.
        reset_each_shift: the model is reset before each domain (else only before the first).
        recurring: the domain loop is repeated ``rounds`` times.
        help: one line for listings.
    """

    mixed: bool = False
    correlated: bool = False
    gradual: bool = False
    reset_each_shift: bool = False
    recurring: bool = False
    help: str = ""


#: the settings, by name (test_time.py ``valid_settings``, plus ``recurring``)
SETTINGS: dict[str, Setting] = {
    "continual": Setting(help="domains one after another, no reset"),
    "reset_each_shift": Setting(reset_each_shift=True, help="reset the model before each domain"),
    "gradual": Setting(gradual=True, help="each domain at severities 1,2,3,4,5,4,3,2,1"),
    "mixed_domains": Setting(mixed=True, help="all domains shuffled into one block"),
    "correlated": Setting(correlated=True, help="continual, each domain sorted by label"),
    "mixed_domains_correlated": Setting(
        mixed=True, correlated=True, help="mixed domains sorted by label"
    ),
    "gradual_correlated": Setting(
        gradual=True, correlated=True, help="gradual, each block sorted by label"
    ),
    "reset_each_shift_correlated": Setting(
        reset_each_shift=True, correlated=True, help="reset before each domain, sorted by label"
    ),
    "recurring": Setting(recurring=True, help="the continual order repeated `rounds` times"),
}

#: test_time.py: the severities of each domain in a gradual setting given one severity
GRADUAL_SEVERITIES: tuple[int, ...] = (1, 2, 3, 4, 5, 4, 3, 2, 1)
#: conf.py ``RNG_SEED``
DEFAULT_SEED = 1
#: cfgs/*/*.yaml ``CORRUPTION.SEVERITY``
DEFAULT_SEVERITIES: tuple[int, ...] = (5,)
#: ``recurring``: how many times the order is repeated
DEFAULT_ROUNDS = 20

#: the canonical order of the 15 ImageNet-C corruptions (cfgs/*/*.yaml ``CORRUPTION.TYPE``)
CANONICAL: tuple[str, ...] = subsets("c")["benchmark"]

_COTTA: tuple[str, ...] = (
    "brightness pixelate gaussian_noise motion_blur zoom_blur glass_blur impulse_noise "
    "jpeg_compression defocus_blur elastic_transform shot_noise frost snow fog contrast",
    "jpeg_compression shot_noise zoom_blur frost contrast fog defocus_blur elastic_transform "
    "gaussian_noise brightness glass_blur impulse_noise pixelate snow motion_blur",
    "contrast defocus_blur gaussian_noise shot_noise snow frost glass_blur zoom_blur "
    "elastic_transform jpeg_compression pixelate brightness impulse_noise motion_blur fog",
    "shot_noise fog glass_blur pixelate snow elastic_transform brightness impulse_noise "
    "defocus_blur frost contrast gaussian_noise motion_blur jpeg_compression zoom_blur",
    "pixelate glass_blur zoom_blur snow fog impulse_noise brightness motion_blur frost "
    "jpeg_compression gaussian_noise shot_noise contrast defocus_blur elastic_transform",
    "motion_blur snow fog shot_noise defocus_blur contrast zoom_blur brightness frost "
    "elastic_transform glass_blur gaussian_noise pixelate jpeg_compression impulse_noise",
    "frost impulse_noise jpeg_compression contrast zoom_blur glass_blur pixelate snow "
    "defocus_blur motion_blur brightness elastic_transform shot_noise fog gaussian_noise",
    "glass_blur zoom_blur impulse_noise fog snow jpeg_compression gaussian_noise frost "
    "shot_noise brightness contrast motion_blur pixelate defocus_blur elastic_transform",
    "defocus_blur motion_blur zoom_blur shot_noise gaussian_noise glass_blur jpeg_compression "
    "fog contrast pixelate frost snow brightness elastic_transform impulse_noise",
    "contrast gaussian_noise defocus_blur zoom_blur frost glass_blur jpeg_compression fog "
    "pixelate elastic_transform shot_noise impulse_noise snow motion_blur brightness",
)

#: domain orders by name: ``canonical`` (the 15) and CoTTA's ``cotta0`` .. ``cotta9``;
#: ``imagenet_c_bar`` / ``cifar10_c_bar``: the ten corruptions of each -bar benchmark
ORDERS: dict[str, tuple[str, ...]] = {
    "canonical": CANONICAL,
    **{f"cotta{i}": tuple(text.split()) for i, text in enumerate(_COTTA)},
    "imagenet_c_bar": subsets("c", "cbar")["imagenet_c_bar"],
    "cifar10_c_bar": subsets("c", "cbar")["cifar10_c_bar"],
}

#: which images of an ImageNet-C cell a stream takes (``reference``: the rule of
#: corruptions_datasets.py ``create_imagenetc_dataset``: the 50,000 list when ``num_examples``
#: is set or the setting is correlated, else RobustBench's 5,000)
IMAGE_LISTS = ("reference", "robustbench", "imagenet_50k", "data")


@dataclass(frozen=True)
class DatasetInfo:
    """A dataset a stream runs on.

    Attributes:
        family: ``cifar`` (``<corruption>.npy`` rows; ids are row numbers) or ``imagenet``
            (``<wnid>/<file>`` ids).
        num_classes: class count.
        batch_size: the reference's batch size (cfgs: 200 CIFAR, 64 ImageNet-C).
        order: the default domain order (a key of :data:`ORDERS`).
        image_lists: whether the ImageNet id lists apply (ImageNet-C itself).
        profile: the parameter profile its images are corrupted at (:mod:`corruptbench.profiles`:
            its size is the stream's image size; clean images corrupted on the fly must be of it).
    """

    family: str
    num_classes: int
    batch_size: int
    order: str = "canonical"
    image_lists: bool = False
    profile: str = "imagenet"


#: the datasets by name (the reference's ``CORRUPTION.DATASET`` names where it has one)
DATASETS: dict[str, DatasetInfo] = {
    "cifar10_c": DatasetInfo("cifar", 10, 200, profile="cifar"),
    "cifar100_c": DatasetInfo("cifar", 100, 200, profile="cifar"),
    "imagenet_c": DatasetInfo("imagenet", 1000, 64, image_lists=True),
    "tiny_imagenet_c": DatasetInfo("imagenet", 200, 64, profile="tiny"),
    "imagenet_c_bar": DatasetInfo("imagenet", 1000, 64, order="imagenet_c_bar"),
    "cifar10_c_bar": DatasetInfo("cifar", 10, 200, order="cifar10_c_bar", profile="cifar"),
}
