"""``corruptbench download NAME DIR``: fetch, verify and extract a released dataset.

For each selected file of the table (:mod:`corruptbench.tables.released`):

1. what the file must match is decided first, for all files, before any transfer
   (:mod:`.checks`): a file without a known checksum is refused unless the user gives one
   (``checksums``) or accepts it unverified;
2. ``DIR/<name>`` already there is checked, never replaced: if it does not match, the run stops
   for that file and says what differs (the user's file is left as it is);
3. otherwise the file is fetched into ``DIR/<name>.part`` (resumed, retried, from each URL in turn:
   the publisher's, then the known mirrors, or only ``base_url`` when given), its size and digests
   are compared with the expectation, and only then is it renamed to ``DIR/<name>``; a mismatch
   keeps the bytes as ``DIR/<name>.mismatch`` and names the file, the expected and the actual
   values and their source (a later success removes that ``.mismatch``);
4. the archive is extracted safely into DIR (:mod:`.archive`), resumable, its members adding up
   to at most ``max_extract_bytes`` (default: :func:`extract_limit`), and removed afterwards
   unless ``keep_archives`` or the user put it there; ``DIR/.corruptbench/download/<name>.extracted``
   records its digests, so a re-run skips it.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Arg, ArgumentError, DownloadError
from ..tables.released import RELEASED, ZENODO_API, Checksum, ReleasedDataset, ReleasedFile
from .archive import DAMAGED, ExtractSummary, extract, read_extracted
from .checks import Expected, compare, expected_from_table, zenodo_files
from .http import RetryPolicy, fetch, get_json

__all__ = [
    "FilePlan",
    "DownloadPlan",
    "FileOutcome",
    "DownloadSummary",
    "plan_download",
    "format_plan",
    "download",
    "extract_limit",
    "stderr_log",
]

#: the most a plain tar may expand to, as a multiple of its size (its members are inside it)
PLAIN_EXPANSION = 1.05
#: the same for a compressed archive (gzip, xz, bzip2, zip): the released ones hold JPEGs and
#: arrays that compress by a few times at most
COMPRESSED_EXPANSION = 20.0
_MAGIC = (b"\x1f\x8b", b"\xfd7zXZ", b"BZh", b"PK\x03\x04")


def stderr_log(text: str) -> None:
    """The default log: one plain line on stderr."""
    print(text, file=sys.stderr, flush=True)


@dataclass
class FilePlan:
    """One file of a download: where it comes from, where it goes, what it must match."""

    entry: ReleasedFile
    urls: tuple[str, ...]
    target: Path
    state: str  #: "extracted", "archive present", "partial: N bytes", "to download"
    expected: Expected | None = None  #: None: not decided yet (Zenodo's record API is asked)

    @property
    def part(self) -> Path:
        return self.target.with_name(self.target.name + ".part")


@dataclass
class DownloadPlan:
    """The files of one dataset download (no network used to make it)."""

    dataset: ReleasedDataset
    dest: Path
    files: list[FilePlan]
    base_url: str | None = None


@dataclass
class FileOutcome:
    """What happened to one file."""

    name: str
    status: str  #: "extracted", "already extracted", "downloaded" (no extraction), "failed"
    detail: str = ""
    digests: dict[str, str] = field(default_factory=dict)
    extracted: ExtractSummary | None = None
    error: ArgumentError | None = None  #: why it failed (renders the CLI's flags)


@dataclass
class DownloadSummary:
    """What :func:`download` did, file by file."""

    dataset: str
    dest: Path
    files: list[FileOutcome] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(f.status != "failed" for f in self.files)

    def roots(self) -> list[str]:
        """The top-level folders the archives put into DEST (where the dataset now is)."""
        return list(
            dict.fromkeys(t for f in self.files if f.extracted for t in f.extracted.top_level)
        )


def _select(dataset: ReleasedDataset, parts: Sequence[str] | None) -> list[ReleasedFile]:
    if parts is None:
        wanted = list(dataset.default_parts)
    else:
        wanted = [p.strip() for p in parts if p.strip()]
        unknown = [p for p in wanted if p not in dataset.parts]
        if unknown or not wanted:
            raise ArgumentError(
                Arg("parts"),
                f" {','.join(unknown) or '(empty)'}: {dataset.name} has the parts "
                + ", ".join(dataset.parts),
            )
    return [f for f in dataset.files if f.part in wanted]


def _state(dest: Path, entry: ReleasedFile) -> str:
    target = dest / entry.name
    if read_extracted(dest, entry.name) is not None:
        return "extracted"
    if target.is_file():
        return "archive present"
    part = target.with_name(target.name + ".part")
    if part.is_file():
        return f"partial: {part.stat().st_size} bytes"
    return "to download"


def plan_download(
    name: str,
    dest: str | os.PathLike[str],
    *,
    parts: Sequence[str] | None = None,
    base_url: str | None = None,
    checksums: Mapping[str, Checksum] | None = None,
    table: Mapping[str, ReleasedDataset] | None = None,
) -> DownloadPlan:
    """The plan of a download, from the table and what is on disk (no network).

    Args:
        name: A dataset of the table (``imagenet-c``, ``cifar10-c``, ...).
        dest: The target folder DIR.
        parts: The parts to fetch (default: all but the optional ones).
        base_url: A mirror serving the same file names (``<base_url>/<name>``), used instead of
            the table's URLs; the table's checksums still decide what is accepted.
        checksums: ``{file name: checksum}`` given by the user, for files without one in the table.
        table: The dataset table (default :data:`corruptbench.tables.released.RELEASED`; tests
            pass their own).

    Raises:
        ArgumentError: an unknown dataset or part, or a user checksum for a file the table
            already has one for (or that is not part of the download).
    """
    table = RELEASED if table is None else table
    key = name.strip().lower().replace("_", "-")
    if key not in table:
        raise ArgumentError(f"unknown dataset {name!r}; known: {', '.join(table)}")
    dataset = table[key]
    dest = Path(dest)
    files = _select(dataset, parts)
    user = dict(checksums or {})
    names = {f.name for f in files}
    for fname in user:
        if fname not in names:
            raise ArgumentError(
                Arg("checksums"),
                f": {fname} is not a file of this download ({', '.join(sorted(names))})",
            )
    plans = []
    for f in files:
        urls = (base_url.rstrip("/") + "/" + f.name,) if base_url else f.urls
        expected = expected_from_table(f)
        if f.name in user:
            if expected is not None:
                raise ArgumentError(
                    Arg("checksums"),
                    f": the table already has a checksum for {f.name} ({expected.origin}); "
                    "a checksum you give is only used for a file the table has none for",
                )
            expected = Expected((user[f.name],))
        plans.append(FilePlan(f, urls, dest / f.name, _state(dest, f), expected))
    return DownloadPlan(dataset, dest, plans, base_url)


def _free_bytes(path: Path) -> int | None:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        return shutil.disk_usage(p).free
    except OSError:
        return None


def _gb(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 10**8 else f"{n / 1e6:.1f} MB"


def format_plan(plan: DownloadPlan) -> str:
    """The plan as text (``--dry-run``): per file its URLs, size, checksum and their sources."""
    d = plan.dataset
    lines = [f"{d.name}: {d.title}", f"  homepage: {d.homepage}", f"  into: {plan.dest}"]
    known = approx = 0
    for fp in plan.files:
        e = fp.entry
        if e.size:
            size = f"{e.size} bytes ({_gb(e.size)}; {e.size_source})"
        elif e.approx_gb:
            size = f"about {e.approx_gb} GB ({e.approx_source})"
        else:
            size = "unknown"
        known += e.size or 0
        approx += 0 if e.size else (e.approx_gb or 0) * 10**9
        lines.append(f"  {e.name} [part {e.part}]: {fp.state}")
        if e.contents:
            lines.append(f"    holds: {', '.join(e.contents)}")
        for u in fp.urls:
            lines.append(f"    url: {u}")
        lines.append(f"    size: {size}")
        if fp.expected is not None:
            for c in fp.expected.checksums:
                lines.append(f"    {c.algorithm}: {c.value} ({c.source})")
        elif e.zenodo_record and not plan.base_url:
            lines.append(
                f"    checksum: not in the table ({e.unknown}); Zenodo's record API is asked"
            )
        else:
            lines.append(f"    checksum: unknown ({e.unknown})")
    free = _free_bytes(plan.dest)
    unknown = sum(1 for f in plan.files if not f.entry.size and not f.entry.approx_gb)
    if known or approx:
        total = f"about {(known + approx) / 1e9:.0f} GB" if approx else f"{_gb(known)} known"
    else:
        total = "unknown (the server tells each size)"
    if (known or approx) and unknown:
        total += f" ({unknown} of {len(plan.files)} sizes unknown)"
    there = _gb(free) if free is not None else "unknown"
    lines.append(f"  total: {total}; free space there: {there}")
    lines.append(
        "  (extracting needs about as much space again; archives are removed afterwards "
        "unless --keep-archives)"
    )
    lines.extend(f"  note: {n}" for n in d.notes)
    return "\n".join(lines)


def _resolve_expected(
    plan: DownloadPlan,
    *,
    accept_unverified: bool,
    record_api: str,
    policy: RetryPolicy,
    log: Callable[[str], None],
) -> None:
    """Fill in each file's expectation; refuse (before any transfer) the files with none."""
    records: dict[str, dict[str, tuple[int | None, Checksum | None]]] = {}
    refused = []
    for fp in plan.files:
        if fp.expected is not None or fp.state == "extracted":
            continue
        rec = fp.entry.zenodo_record
        if rec and not plan.base_url:
            if rec not in records:
                url = record_api + rec
                log(
                    f"{fp.entry.name}: no checksum in the table; asking Zenodo's record API ({url})"
                )
                doc = get_json(url, policy=policy, log=log)
                records[rec] = zenodo_files(doc if isinstance(doc, dict) else {})
            size, md5 = records[rec].get(fp.entry.name, (None, None))
            if md5 is not None:
                fp.expected = Expected((md5,), size, f"Zenodo's record API (record {rec})")
                continue
        if accept_unverified:
            fp.expected = Expected((), unverified=True)
        else:
            refused.append(f"{fp.entry.name} ({fp.entry.unknown or 'no checksum known'})")
    if refused:
        raise ArgumentError(
            "no known checksum for " + "; ".join(refused) + ". Give ",
            Arg("checksums", "NAME=md5:HEX"),
            " (e.g. the MD5 the publisher's page shows) or ",
            Arg("accept_unverified"),
            " to accept the file as it arrives (its digests are then printed)",
        )


def _verify(fp: FilePlan, path: Path, progress_mode: str | bool) -> dict[str, str]:
    """Compare ``path`` with the expectation; the digests, or a DownloadError naming the file."""
    assert fp.expected is not None
    bad, digests = compare(
        path, fp.expected, desc=f"verify {fp.entry.name}", progress_mode=progress_mode
    )
    if not bad:
        return digests
    what = "; ".join(str(m) for m in bad)
    if path == fp.target:  # the user's file: left alone
        raise DownloadError(
            f"{fp.entry.name}: {path} is already there but does not match: {what}. "
            "It was not changed; move or delete it to download the file again"
        )
    kept = fp.target.with_name(fp.target.name + ".mismatch")
    os.replace(path, kept)
    raise DownloadError(
        f"{fp.entry.name}: the downloaded file does not match: {what}. Kept as {kept} for "
        "inspection; a new run fetches the file afresh"
    )


def extract_limit(path: Path) -> int:
    """The most the members of the archive at ``path`` may add up to: its size (checked against
    the table's, where the table has one) times :data:`PLAIN_EXPANSION` for a plain tar or
    :data:`COMPRESSED_EXPANSION` for a compressed one, plus 1 MiB."""
    with open(path, "rb") as fh:
        head = fh.read(6)
    ratio = COMPRESSED_EXPANSION if head.startswith(_MAGIC) else PLAIN_EXPANSION
    return int(path.stat().st_size * ratio) + (1 << 20)


def _fetch(
    fp: FilePlan, *, policy: RetryPolicy, log: Callable[[str], None], progress_mode: str | bool
) -> None:
    assert fp.expected is not None
    errors = []
    for url in fp.urls:
        try:
            fetch(
                url,
                fp.part,
                policy=policy,
                log=log,
                desc=f"download {fp.entry.name}",
                expected_size=fp.expected.size,
                size_source=fp.expected.size_source,
                progress_mode=progress_mode,
            )
            return
        except DownloadError as exc:
            errors.append(str(exc))
            if url != fp.urls[-1]:
                log(f"{exc}; trying the next source")
    raise DownloadError("; ".join(errors))


def _extract(
    fp: FilePlan, digests: dict[str, str], max_bytes: int | None, progress_mode: str | bool
) -> ExtractSummary:
    assert fp.expected is not None
    record: dict[str, Any] = {
        "size": fp.target.stat().st_size,
        **digests,
        "checksum": fp.expected.origin,
    }
    limit = extract_limit(fp.target) if max_bytes is None else max_bytes
    try:
        return extract(
            fp.target, fp.target.parent, record=record, max_bytes=limit, progress_mode=progress_mode
        )
    except DAMAGED as exc:
        raise DownloadError(
            f"{fp.entry.name}: {fp.target} is not a readable archive ({type(exc).__name__}: "
            f"{exc}); nothing of it was kept in {fp.target.parent}. Delete {fp.target.name} to "
            "download it again"
        ) from None


def _one_file(
    fp: FilePlan,
    *,
    extract_files: bool,
    keep_archives: bool,
    max_extract_bytes: int | None,
    policy: RetryPolicy,
    log: Callable[[str], None],
    progress_mode: str | bool,
) -> FileOutcome:
    assert fp.expected is not None
    name = fp.entry.name
    supplied = fp.target.is_file()
    if supplied:
        log(f"{name}: {fp.target} is already there; checking it")
        digests = _verify(fp, fp.target, progress_mode)
    else:
        fp.target.parent.mkdir(parents=True, exist_ok=True)
        _fetch(fp, policy=policy, log=log, progress_mode=progress_mode)
        digests = _verify(fp, fp.part, progress_mode)
        os.replace(fp.part, fp.target)
        # an earlier run's rejected bytes are no longer of interest
        fp.target.with_name(fp.target.name + ".mismatch").unlink(missing_ok=True)
    if fp.expected.unverified:
        log(
            f"{name}: accepted WITHOUT a checksum (--accept-unverified): md5 {digests['md5']}, "
            f"sha256 {digests['sha256']}; compare them with the publisher's"
        )
    else:
        log(f"{name}: verified ({fp.expected.origin})")
    if not extract_files:
        return FileOutcome(name, "downloaded", str(fp.target), digests)
    summary = _extract(fp, digests, max_extract_bytes, progress_mode)
    if supplied:
        log(f"{name}: kept {fp.target} (it was there before this run)")
    elif not keep_archives:
        fp.target.unlink()
    more = f", {summary.skipped} done earlier" if summary.skipped else ""
    return FileOutcome(
        name, "extracted", f"{summary.written} members extracted{more}", digests, summary
    )


def _already(fp: FilePlan) -> FileOutcome | None:
    """The outcome of a file extracted by an earlier run (its recorded digests still match)."""
    done = read_extracted(fp.target.parent, fp.entry.name)
    if done is None:
        return None
    expected = fp.expected.checksums if fp.expected else ()
    if any(done.get(c.algorithm) != c.value for c in expected):
        return None  # the table changed since (or the record is damaged): do it again
    summary = ExtractSummary(fp.entry.name, int(done.get("members", 0)))
    summary.top_level = tuple(done.get("top_level", ()))
    return FileOutcome(fp.entry.name, "already extracted", "", {}, summary)


def download(
    name: str,
    dest: str | os.PathLike[str],
    *,
    parts: Sequence[str] | None = None,
    base_url: str | None = None,
    checksums: Mapping[str, Checksum] | None = None,
    accept_unverified: bool = False,
    extract_files: bool = True,
    keep_archives: bool = False,
    max_extract_bytes: int | None = None,
    table: Mapping[str, ReleasedDataset] | None = None,
    record_api: str = ZENODO_API,
    policy: RetryPolicy | None = None,
    progress: str | bool = "auto",
    log: Callable[[str], None] = stderr_log,
) -> DownloadSummary:
    """Download, verify and extract a released dataset into ``dest`` (see the module docstring).

    Args:
        name, parts, base_url, checksums, table: As :func:`plan_download`.
        accept_unverified: Accept files that have no known checksum as they arrive (their MD5
            and SHA-256 are logged).
        extract_files: Extract the archives (else only download and verify them).
        keep_archives: Keep the archives after extracting them (an archive that was in
            ``dest`` before the run is always kept).
        max_extract_bytes: The most one archive's members may add up to (default: from the
            archive's verified size, :func:`extract_limit`).
        record_api: Zenodo's record API prefix (``<record_api><record id>``).
        policy: Retries and timeouts (default :class:`~.http.RetryPolicy`).
        progress: Progress display mode, as :func:`corruptbench.progress.progress`.
        log: Where the plain messages go (default: stderr).

    Returns:
        What happened to each file; ``ok`` is False when a file failed (its outcome's
        ``detail`` says why; it is not logged).

    Raises:
        ArgumentError: usage errors, and files without a known checksum (before any transfer).
    """
    policy = policy or RetryPolicy()
    plan = plan_download(
        name, dest, parts=parts, base_url=base_url, checksums=checksums, table=table
    )
    summary = DownloadSummary(plan.dataset.name, plan.dest)
    _resolve_expected(
        plan, accept_unverified=accept_unverified, record_api=record_api, policy=policy, log=log
    )
    for fp in plan.files:
        done = _already(fp)
        if done is not None:
            log(f"{fp.entry.name}: already extracted into {plan.dest}")
            summary.files.append(done)
            continue
        try:
            summary.files.append(
                _one_file(
                    fp,
                    extract_files=extract_files,
                    keep_archives=keep_archives,
                    max_extract_bytes=max_extract_bytes,
                    policy=policy,
                    log=log,
                    progress_mode=progress,
                )
            )
        except DownloadError as exc:  # reported once, by the caller, from the summary
            summary.files.append(FileOutcome(fp.entry.name, "failed", str(exc), error=exc))
    return summary
