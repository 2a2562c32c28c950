"""CCC runs on disk (WebDataset shards) and on the fly (a stream of batches).

:func:`generate` writes ``OUT/<run name>/serial_<5 digits>.tar`` (:mod:`corruptbench.ccc.generate`:
the same samples and member names as the original, readable with its recipe
``wds.WebDataset(url).decode("pil").to_tuple("input.jpg", "output.cls")``), each shard into a
temporary file renamed into place when complete, and ``ccc_run.json`` (the settings, each
shard's sha256). A run started again with the same settings keeps the finished shards (checked
against their recorded sha256) and makes the rest, so a run killed at any point (kill -9
included) ends with the same bytes. Shards are independent (each has its own seeds), so the
output is the same for any number of worker processes.

:class:`CCCStream` makes the same images without writing anything: the JPEG of each sample,
decoded (what a reader of the shards gets), in batches: the interface of
:class:`corruptbench.streams.Stream` (its :class:`~corruptbench.streams.core.Sample` and
:class:`~corruptbench.streams.core.Batch`; domain ``"c1+c2"``, severity ``"s1+s2"``). With
``backend="torch"`` it makes the same picks, crops, pairs and severities with the corruptions on
a torch device (:mod:`corruptbench.ccc.stream_torch`): statistically equivalent images, not the
same bytes.
"""

from __future__ import annotations

import bisect
import contextlib
import csv
import hashlib
import io
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np

from ..builders.lock import OutLock
from ..errors import Arg, ArgumentError
from ..fileio import TMP_SUFFIX, temp_path, write_text
from ..formats.webdataset import TarShardWriter, file_sha256, scan_samples
from ..processes import worker_pool
from ..streams.core import CSV_COLUMNS, Batch, Sample
from ..streams.protocol import Segment
from .feed import (
    check_count,
    decode,
    decode_in_order,
    made_jpegs,
    made_sample,
    read_jpegs,
    read_sample,
)
from .generate import (
    DRAWS,
    Source,
    check_out_outside,
    check_plan_source,
    scan_source,
    shard_file,
    shard_records,
    shard_samples,
)
from .plan import RunPlan, Shard, Step, group_shards, plan_run

__all__ = ["BACKENDS", "RUN_FILE", "CCCSamples", "CCCStream", "generate", "write_shard"]

#: where a stream made on the fly runs its corruptions: the NumPy functions (the shards' bytes)
#: or the torch backend (:mod:`corruptbench.ccc.stream_torch`)
BACKENDS = ("numpy", "torch")

#: a run folder's settings and shard checksums
RUN_FILE = "ccc_run.json"


def _settings(plan: RunPlan, source: Source, draws: str) -> dict[str, Any]:
    digest = hashlib.sha256("\n".join(f"{c}/{f}" for c, f in source.names).encode()).hexdigest()
    return {
        "format": "ccc-run/1",
        "name": plan.name,
        "baseline": plan.baseline,
        "speed": plan.speed,
        "seed": plan.seed,
        "images": plan.images,
        "images_per_shard": plan.images_per_shard,
        "draws": draws,
        "corruptions": list(plan.corruptions),
        "steps": [[s.n1, s.n2, s.s1, s.s2] for sh in plan.shards for s in sh.steps],
        "source_images": len(source),
        "source_listing_sha256": digest,
        "shards": len(plan.shards),
        "total_images": len(plan),
    }


def write_shard(job: tuple[Shard, Source, int, str, str]) -> tuple[int, str]:
    """Make one shard into a temporary file and rename it into place; ``(serial, sha256)``."""
    shard, source, seed, draws, folder = job
    final = os.path.join(folder, shard_file(shard.serial))
    tmp = temp_path(final)
    writer = TarShardWriter(tmp, shard_file(shard.serial))
    try:
        for rec, jpeg in shard_samples(shard, source, seed, draws):
            writer.add(
                rec.key,
                {
                    "info": rec.info.encode(),
                    "input.jpg": jpeg,
                    "output.cls": str(rec.label).encode(),
                },
            )
        stats = writer.close()
    except BaseException:
        writer.abort()
        raise
    os.replace(tmp, final)
    return shard.serial, stats.sha256


def _finished(folder: Path, settings: dict[str, Any], *, sweep: bool = True) -> dict[int, str]:
    """Shards already made by a run with these settings (sha256 checked); stale temporary files
    removed. Refuses a folder holding another run."""
    path = folder / RUN_FILE
    done: dict[int, str] = {}
    if path.is_file():
        recorded = _read_run_file(folder, Arg("out"))
        theirs = {k: v for k, v in recorded.items() if k != "shard_sha256"}
        if theirs != settings:
            diff = sorted(k for k in settings if settings[k] != theirs.get(k))
            raise ArgumentError(
                Arg("out"),
                f" {folder} holds a CCC run with other settings ({', '.join(diff)}); "
                "use another folder",
            )
        for serial, sha in recorded.get("shard_sha256", {}).items():
            f = folder / shard_file(int(serial))
            if f.is_file() and file_sha256(f) == sha:
                done[int(serial)] = sha
    for entry in folder.iterdir() if sweep and folder.is_dir() else []:
        if entry.name.endswith(TMP_SUFFIX):
            entry.unlink(missing_ok=True)
    return done


def _record(folder: Path, settings: dict[str, Any], done: Mapping[int, str]) -> None:
    body = {**settings, "shard_sha256": {str(k): v for k, v in sorted(done.items())}}
    write_text(folder / RUN_FILE, json.dumps(body, indent=1) + "\n", make_parents=True)


def _planned(
    data: Any,
    matrices: Any,
    baseline: float,
    speed: int,
    seed: int,
    images: int,
    images_per_shard: int,
    tolerance: float | None,
    corruptions: Sequence[str] | None,
    draws: str,
) -> tuple[RunPlan, Source]:
    """A run's plan and its source, every setting checked before anything is made or written
    (what :func:`generate` and :meth:`CCCStream.create` share)."""
    if draws not in DRAWS:
        raise ArgumentError(Arg("draws"), f" must be one of {', '.join(DRAWS)}, got {draws!r}")
    source = scan_source(data)
    plan = plan_run(
        matrices,
        baseline,
        speed,
        seed,
        images=images,
        images_per_shard=images_per_shard,
        tolerance=tolerance,
        corruptions=corruptions,
    )
    check_plan_source(plan, source)
    return plan, source


def generate(
    data: str | os.PathLike[str],
    matrices: Mapping[str, np.ndarray],
    out: str | os.PathLike[str],
    *,
    baseline: float,
    speed: int,
    seed: int,
    images: int = 7_500_000,
    images_per_shard: int = 25_000,
    draws: str = "independent",
    workers: int = 0,
    ray: str | None = None,
    tolerance: float | None = 5.0,
    corruptions: Sequence[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Write the run ``(baseline, speed, seed)`` as WebDataset shards; returns its folder.

    Args:
        data: the source images (ImageNet validation: class folders; or wnid-named files).
        matrices: accuracy matrices (:func:`corruptbench.ccc.matrices.load_matrices`).
        out: the destination; the run goes to ``OUT/<run name>/``.
        baseline, speed, seed: the run (40 / 20 / 0; 1000 / 2000 / 5000; 43 / 44 / 45).
        images, images_per_shard: the run's and a shard's size (7.5M and 25,000 in CCC).
        draws: ``"independent"`` or ``"reference"`` (:mod:`corruptbench.ccc.generate`).
        workers: processes making shards (0: this one); the bytes do not depend on it.
        ray: make the shards as Ray tasks: ``"auto"`` / ``"local"`` / a cluster address (as
            make-c's ``--ray``; DATA and OUT at the same path on every node). Same bytes.
        tolerance: refuse a pair whose walk misses the baseline by more (None: accept all).
        corruptions: draw pairs from these CCC names, not the baseline's list
            (:func:`~corruptbench.ccc.plan.plan_run`; a small run on a small matrix).
        progress: called with each finished shard's serial.

    Raises:
        ArgumentError: any bad setting, before anything is written.
    """
    plan, source = _planned(
        data,
        matrices,
        baseline,
        speed,
        seed,
        images,
        images_per_shard,
        tolerance,
        corruptions,
        draws,
    )
    check_out_outside(out, data)
    folder = Path(out) / plan.name
    settings = _settings(plan, source, draws)
    if (folder / RUN_FILE).is_file():
        _finished(folder, settings, sweep=False)  # another run's folder: refused before locking
    # one generate per run folder (make-c's lock): a second would sweep this one's temporary files
    with OutLock(folder, folder, "ccc generate"):
        done = _finished(folder, settings)
        _record(folder, settings, done)
        jobs = [
            (s, source, plan.seed, draws, str(folder)) for s in plan.shards if s.serial not in done
        ]
        with _executor(workers, ray, len(jobs)) as run:
            for serial, sha in run(jobs):
                done[serial] = sha
                _record(folder, settings, done)
                if progress:
                    progress(serial)
    return folder


@contextlib.contextmanager
def _executor(
    workers: int, ray_address: str | None, n_jobs: int
) -> Iterator[Callable[[list], Iterator[tuple[int, str]]]]:
    """How the shards are made: here, in a local process pool, or as Ray tasks (results in the
    order the shards finish; each shard's bytes depend on nothing else)."""
    if ray_address is not None:
        try:
            import ray
        except ImportError:  # pragma: no cover
            raise ArgumentError(
                Arg("ray"), " needs the 'ray' package: pip install 'corruptbench[ray]'"
            ) from None
        from ..builders.engine import ray_init_kwargs

        started = not ray.is_initialized()
        if started:
            ray.init(**ray_init_kwargs(ray_address, workers, None, os.environ))
        remote = ray.remote(num_cpus=1)(write_shard)

        def run_ray(jobs: list) -> Iterator[tuple[int, str]]:
            pending = [remote.remote(job) for job in jobs]
            while pending:
                finished, pending = ray.wait(pending, num_returns=1)
                yield ray.get(finished[0])

        try:
            yield run_ray
        finally:
            if started:
                ray.shutdown()
    elif workers > 0 and n_jobs > 1:
        with worker_pool(workers) as pool:
            yield lambda jobs: pool.map(write_shard, jobs)
    else:
        yield lambda jobs: map(write_shard, jobs)


# ---------------------------------------------------------------------------------------------
# The stream
# ---------------------------------------------------------------------------------------------


#: one shard's job: the shard, and its source and draws (made) or its tar file (read)
_Job = tuple[Shard, "Source | None", int, str, "str | None"]


@dataclass
class CCCStream:
    """A CCC run as a stream: the images :func:`generate` writes, decoded, in order; made on
    the fly (:meth:`create`) or read from a run folder :func:`generate` wrote (:meth:`open`).
    Made on the fly with ``backend="torch"``: the same samples, the corruptions on ``device``
    (statistically equivalent images; :mod:`corruptbench.ccc.stream_torch`).

    ``batches(batch_size, workers)`` yields :class:`Batch` es (:mod:`.feed`: ``workers``
    processes make that many shards side by side, a chunk of images per call, sent back as JPEG
    bytes and decoded here: memory ~ ``workers`` x a shard's JPEGs; a written run is read here and
    decoded by threads). It follows
    :class:`~corruptbench.streams.protocol.OnlineStream`, so
    :func:`corruptbench.streams.harness.evaluate_stream` evaluates it: never reset (CCC is one
    continual run), one block per walk step (``"c1+c2"`` at ``"s1+s2"``), domains the pairs.
    """

    plan: RunPlan
    source: Source | None
    draws: str = "independent"
    settings: dict[str, Any] = field(default_factory=dict)
    folder: Path | None = None  #: the run folder read (None: made on the fly)
    backend: str = "numpy"  #: :data:`BACKENDS` (made on the fly)
    device: str = "cpu"  #: the torch backend's device

    @classmethod
    def create(
        cls,
        data: str | os.PathLike[str],
        matrices: Mapping[str, np.ndarray],
        *,
        baseline: float,
        speed: int,
        seed: int,
        images: int = 7_500_000,
        images_per_shard: int = 25_000,
        draws: str = "independent",
        tolerance: float | None = 5.0,
        corruptions: Sequence[str] | None = None,
        backend: str = "numpy",
        device: str = "cpu",
    ) -> CCCStream:
        """The run :func:`generate` would write with these arguments, made on the fly.

        ``backend="torch"``: the corruptions on the torch backend on ``device`` (``"cpu"``,
        ``"cuda"``, ...): the same samples (picks, crops, pairs, severities), statistically
        equivalent images, not :func:`generate`'s bytes; the backend and the device type join
        the stream's :attr:`identity` (a resumed evaluation continues the same images).
        """
        dev = _check_backend(backend, device)
        plan, source = _planned(
            data, matrices, baseline, speed, seed, images, images_per_shard, tolerance,
            corruptions, draws,
        )  # fmt: skip
        settings = _settings(plan, source, draws)
        if backend == "torch":
            settings.update(backend="torch", device=dev)
        return cls(plan, source, draws, settings, backend=backend, device=device)

    @classmethod
    def open(cls, folder: str | os.PathLike[str]) -> CCCStream:
        """The run :func:`generate` wrote to ``folder`` (``OUT/<run name>``), read from its
        shards; the same samples, images and settings as :meth:`create` with its settings.

        Raises:
            ArgumentError: not a run folder, or an unfinished run (shards missing).
        """
        root = Path(folder)
        recorded = _read_run_file(root)
        try:
            settings = {k: v for k, v in recorded.items() if k != "shard_sha256"}
            speed, per_shard = int(settings["speed"]), int(settings["images_per_shard"])
            steps = [
                Step(i, str(n1), str(n2), float(s1), float(s2))
                for i, (n1, n2, s1, s2) in enumerate(settings["steps"])
            ]
            plan = RunPlan(
                float(settings["baseline"]),
                speed,
                int(settings["seed"]),
                int(settings["images"]),
                per_shard,
                tuple(settings["corruptions"]),
                group_shards(steps, speed, per_shard),
            )
            done = dict(recorded.get("shard_sha256", {}))
            draws = str(settings["draws"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ArgumentError(
                Arg("ccc", python="folder"), f" {root / RUN_FILE}: not a CCC run file ({exc})"
            ) from None
        missing = [
            sh.serial
            for sh in plan.shards
            if str(sh.serial) not in done or not (root / shard_file(sh.serial)).is_file()
        ]
        if missing:
            raise ArgumentError(
                Arg("ccc", python="folder"),
                f" {root}: unfinished run, {len(missing)} of {len(plan.shards)} shards missing "
                f"(first {shard_file(missing[0])}); run 'corruptbench ccc generate' again to finish it",
            )
        return cls(plan, None, draws, settings, root)

    def __len__(self) -> int:
        return len(self.plan)

    def __repr__(self) -> str:
        where = f"read from {self.folder}" if self.folder else "made on the fly"
        if self.backend == "torch":
            where += f", corruptions on torch ({self.device})"
        return f"CCCStream({self.plan.name}, {len(self):,} images in {len(self.blocks)} steps, {where})"

    def _jobs(self, first: int = 0) -> list[_Job]:
        return [
            (
                s,
                self.source,
                self.plan.seed,
                self.draws,
                None if self.folder is None else str(self.folder / shard_file(s.serial)),
            )
            for s in self.plan.shards[first:]
        ]

    def _samples(self, workers: int, first: int = 0) -> Iterator[tuple[Sample, np.ndarray]]:
        """The samples and decoded images from shard ``first`` on (:mod:`.feed`: made a chunk at
        a time in ``workers`` processes, or read; decoded by threads of this process)."""
        jobs = self._jobs(first)
        if self.backend == "torch":  # corruptions on the device; crops here or in workers
            yield from self._torch_samples(jobs, workers)
        elif self.folder is not None:
            yield from decode_in_order(read_jpegs((j[0], str(j[4])) for j in jobs), workers)
        else:
            source = self.source
            assert source is not None
            shards = [job[0] for job in jobs]
            made = made_jpegs(shards, source, self.plan.seed, self.draws, workers)
            for rec, image in decode_in_order(made, workers):
                yield made_sample(rec, source), image

    def _torch_samples(self, jobs: list[_Job], workers: int) -> Iterator[tuple[Sample, np.ndarray]]:
        import torch

        from .stream_torch import torch_shard_images

        source = self.source
        assert source is not None
        made = [(shard, source, seed, draws) for shard, _, seed, draws, _ in jobs]
        pool = worker_pool(workers) if workers > 0 else contextlib.nullcontext()
        with pool as p:
            for rec, img in torch_shard_images(made, torch.device(self.device), decode, p, workers):
                yield made_sample(rec, source), img

    @property
    def samples(self) -> CCCSamples:
        """The samples in order, made (or read) shard by shard on access (no image is made)."""
        return CCCSamples(self)

    # -- what the harness needs (corruptbench.streams.protocol.OnlineStream) -------------------

    @property
    def identity(self) -> dict[str, Any]:
        """The run's settings: the same for the run made on the fly and read from its shards."""
        return dict(self.settings)

    @property
    def dataset(self) -> str:
        return "imagenet_c"  # ImageNet images and classes: TENT's ImageNet optimiser

    @property
    def image_size(self) -> int:
        return 224

    @property
    def where(self) -> str | None:
        """The run folder read, else the clean images' folder."""
        if self.folder is not None:
            return str(self.folder)
        return str(self.source.root) if self.source is not None else None

    @property
    def kind(self) -> str:
        return "ccc-shards" if self.folder is not None else "ccc-on-the-fly"

    @property
    def domains(self) -> list[str]:
        """The corruption pairs ``"c1+c2"`` in the order they first come."""
        return list(dict.fromkeys(f"{s.n1}+{s.n2}" for sh in self.plan.shards for s in sh.steps))

    @property
    def blocks(self) -> list[Segment]:
        """One per walk step: ``speed`` images of the pair at its severities."""
        v = self.plan.speed
        return [
            Segment(f"{s.n1}+{s.n2}", f"{s.s1}+{s.s2}", s.index * v, (s.index + 1) * v)
            for sh in self.plan.shards
            for s in sh.steps
        ]

    def check_images(self) -> None:
        """A CCC stream always has images."""

    def sequence_sha256(self) -> str:
        """SHA-256 of the CSV export (:meth:`to_csv`)."""
        h = hashlib.sha256()
        for chunk in self._csv_chunks():
            h.update(chunk)
        return h.hexdigest()

    def num_batches(self, batch_size: int | None = None) -> int:
        return -(-len(self) // _batch_size(batch_size))

    def batches(
        self, batch_size: int | None = None, workers: int = 0, *, start: int = 0
    ) -> Iterator[Batch]:
        """Batches of ``batch_size`` (default 64, CCC's eval.py) images in the run's order (CCC
        is one continuous stream: ``reset`` is never set); ``start``: skip the first batches (a
        resumed evaluation; the shards before the first needed one are not made or read)."""
        size = _batch_size(batch_size)
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
            raise ArgumentError(Arg("workers"), f" must be a count >= 0, got {workers!r}")
        skip = start * size
        first = next(
            (k for k, sh in enumerate(self.plan.shards) if sh.first_image + len(sh) > skip),
            len(self.plan.shards),
        )
        pending: list[tuple[Sample, np.ndarray]] = []
        for item in self._samples(workers, first):
            if item[0].index < skip:
                continue
            pending.append(item)
            if len(pending) == size:
                yield _batch(pending)
                pending = []
        if pending:
            yield _batch(pending)

    def manifest(self) -> dict[str, Any]:
        """The settings (run, source listing digest, steps) and sizes."""
        return dict(self.settings)

    def _csv_chunks(self) -> Iterator[bytes]:
        """The CSV export (``\\n`` line ends, as a stream's) in chunks of UTF-8 bytes."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for k, s in enumerate(self.samples):
            w.writerow([s.index, s.domain, s.severity, s.id, s.label])
            if k % 65536 == 65535:
                yield buf.getvalue().encode("utf-8")
                buf.seek(0)
                buf.truncate()
        yield buf.getvalue().encode("utf-8")

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """One row per image (``index,domain,severity,id,label``), atomically, without making
        any image (a shard's picks come before its images' draws)."""
        tmp = temp_path(path)
        with open(tmp, "wb") as f:
            for chunk in self._csv_chunks():
                f.write(chunk)
        os.replace(tmp, path)


def _batch_size(batch_size: Any) -> int:
    """A stream's batch size (None: 64, CCC's eval.py), else one line."""
    size = 64 if batch_size is None else batch_size
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ArgumentError(Arg("batch_size"), f" must be an image count >= 1, got {size!r}")
    return int(size)


def _check_backend(backend: Any, device: Any) -> str:
    """The device type of a stream's backend (``"cpu"`` for NumPy), else one line."""
    if backend not in BACKENDS:
        raise ArgumentError(
            Arg("backend"), f" must be one of {', '.join(BACKENDS)}, got {backend!r}"
        )
    if backend == "numpy":
        if device != "cpu":
            raise ArgumentError(
                Arg("device"),
                f" applies to backend='torch' (the NumPy path runs on the CPU), got {device!r}",
            )
        return "cpu"
    from ..models.errors import require_modules

    require_modules("CCC's torch backend", "torch")
    from .stream_torch import check_device

    return check_device(device)


def _read_run_file(root: Path, arg: Arg | None = None) -> dict[str, Any]:
    """``root``'s run file, read and checked (a dict of format ccc-run/1 whose shard checksums
    are a mapping), else one line naming ``arg`` (default ``--ccc`` / ``folder``)."""
    arg = arg or Arg("ccc", python="folder")
    path = root / RUN_FILE
    if not path.is_file():
        raise ArgumentError(
            arg,
            f" {root} is not a CCC run folder (no {RUN_FILE}; 'corruptbench ccc generate' writes one)",
        )
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ArgumentError(arg, f" {path}: not readable ({exc})") from None
    if (
        not isinstance(doc, dict)
        or doc.get("format") != "ccc-run/1"
        or not isinstance(doc.get("shard_sha256", {}), dict)
    ):
        raise ArgumentError(arg, f" {path}: not a CCC run file (format ccc-run/1)")
    return doc


class CCCSamples(Sequence[Sample]):
    """A run's samples, made a shard at a time (the last shard's kept) on access."""

    def __init__(self, stream: CCCStream) -> None:
        self._stream = stream
        self._firsts = [sh.first_image for sh in stream.plan.shards]
        self._cached: tuple[int, list[Sample]] = (-1, [])

    def __len__(self) -> int:
        return len(self._stream)

    def _shard(self, k: int) -> list[Sample]:
        if self._cached[0] != k:
            self._cached = (k, _shard_samples(self._stream, k))
        return self._cached[1]

    @overload
    def __getitem__(self, i: int) -> Sample: ...
    @overload
    def __getitem__(self, i: slice) -> list[Sample]: ...
    def __getitem__(self, i: int | slice) -> Sample | list[Sample]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        k = bisect.bisect_right(self._firsts, i) - 1
        return self._shard(k)[i - self._firsts[k]]

    def __iter__(self) -> Iterator[Sample]:
        for k in range(len(self._firsts)):
            yield from self._shard(k)


def _batch(items: list[tuple[Sample, np.ndarray]]) -> Batch:
    return Batch(
        np.stack([im for _, im in items]),
        np.array([s.label for s, _ in items], dtype=np.int64),
        [s for s, _ in items],
    )


def _shard_samples(stream: CCCStream, k: int) -> list[Sample]:
    """Shard ``k``'s samples without its images: its picks (made), or its tar's ``info`` and
    ``output.cls`` members (read; the images are skipped)."""
    shard = stream.plan.shards[k]
    if stream.folder is None:
        assert stream.source is not None
        records, _ = shard_records(shard, stream.source, stream.plan.seed, stream.draws)
        return [made_sample(r, stream.source) for r in records]
    tar = str(stream.folder / shard_file(shard.serial))
    out = []
    for n, entry in enumerate(scan_samples(tar, read=("info", "output.cls"))):
        try:
            out.append(read_sample(shard.first_image + n, entry.small))
        except (KeyError, ValueError) as exc:
            raise ArgumentError(f"{tar}: sample {entry.key}: not a CCC sample ({exc})") from None
    check_count(tar, len(out), shard)
    return out
