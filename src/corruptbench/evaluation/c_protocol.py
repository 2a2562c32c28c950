"""eval-c's protocol checks: the grid a protocol evaluates, its fixed images, and the model input
size and data size it requires (:mod:`corruptbench.protocols`)."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import Arg, ArgumentError
from ..grid import Grid, check_suite, default_subset, select
from ..models import LoadedModel
from ..profiles import PROFILES
from ..protocols import EvalProtocol, resolve_protocol
from .common import EvalError
from .layouts import ImageIds, Layout

__all__ = [
    "checked_suite",
    "protocol_grid",
    "protocol_images",
    "check_protocol_model",
    "check_protocol_profile",
]


def checked_suite(suite: str) -> str:
    """``suite`` checked (:func:`corruptbench.grid.check_suite`), or :class:`EvalError`."""
    try:
        return check_suite("c", suite)
    except ArgumentError as exc:
        raise EvalError(*exc.parts) from None


def protocol_grid(
    protocol: str,
    corruptions: Sequence[str] | None,
    severities: Sequence[int] | None,
    suite: str = "imagenet_c",
    profile: str | None = None,
) -> tuple[EvalProtocol, Grid]:
    """The protocol and the grid it evaluates: its corruptions (for the ``cbar`` suite the
    benchmark of ``profile``) and severities by default; other ones are refused when the
    protocol fixes the benchmark (a subset of its cells is allowed)."""
    try:
        proto = resolve_protocol(protocol)
        if proto.fixed and suite != "imagenet_c":
            raise EvalError(
                f"protocol {proto.name} evaluates ImageNet-C's corruptions, not those of suite "
                f"{suite!r}: use ",
                Arg("protocol", "full", python='protocol="full"'),
            )
        default = (
            proto.corruption_names() if suite == "imagenet_c" else default_subset(suite, profile)
        )
        grid = select(
            "c",
            default if corruptions is None else corruptions,
            proto.severities if severities is None else severities,
            suite=suite,
        )
    except ArgumentError as exc:
        raise EvalError(*exc.parts) from None
    if proto.fixed:
        for arg, asked, allowed in (
            ("corruptions", grid.names, proto.corruption_names()),
            ("severities", grid.levels, proto.severities),
        ):
            outside = [str(x) for x in asked if x not in allowed]
            if outside:
                raise EvalError(
                    Arg(arg),
                    f": {', '.join(outside)} not in protocol {proto.name} (its {arg}: "
                    f"{', '.join(map(str, allowed))})",
                )
    return proto, grid


def protocol_images(proto: EvalProtocol) -> ImageIds | None:
    """The images the protocol fixes, as the layouts' selection (``None``: every image)."""
    if proto.image_ids is None:
        return None
    return ImageIds(frozenset(proto.image_ids()), f"protocol {proto.name}")


def check_protocol_model(proto: EvalProtocol, model: LoadedModel) -> None:
    """A protocol with an image size gives the model the images as stored at that size (no crop,
    no resize): a model of another input size is refused."""
    size, s = proto.image_size, model.preprocessing.input_size
    if size is not None and s != size:
        raise EvalError(
            f"protocol {proto.name} gives the model the {size} x {size} images as they are "
            f"(RobustBench's Resize([{size}, {size}]), no crop); this model takes {s} x {s}: give "
            f"it a {size} input size or use ",
            Arg("protocol", "full", python='protocol="full"'),
        )


def check_protocol_profile(proto: EvalProtocol, layout: Layout) -> None:
    """A protocol with an image size refuses data of another size."""
    size, prof = proto.image_size, PROFILES.get(layout.profile)
    if size is not None and (prof is None or prof.size != size):
        raise EvalError(
            f"{layout.root}: protocol {proto.name} evaluates {size} x {size} images; this data "
            f"has the {layout.profile!r} profile"
            + (f" ({prof.size} x {prof.size})" if prof is not None else "")
        )
