"""Download, verify and extract the released corruption datasets (``corruptbench download``).

* :mod:`.http` — retried transfers on :mod:`urllib3`, resumed only with a validator, with a
  stall deadline and size limits;
* :mod:`.checks` — what a file must match (table, given checksum, Zenodo's record API) and the
  size / digest comparison;
* :mod:`.archive` — safe, resumable extraction of tar / tar.gz / zip archives;
* :mod:`.dataset` — the whole download of one dataset of :mod:`corruptbench.tables.released`.
"""

from __future__ import annotations

from .archive import ExtractSummary, UnsafeArchive, extract, safe_member_path
from .checks import Expected, Mismatch, parse_checksum
from .dataset import (
    DownloadPlan,
    DownloadSummary,
    FileOutcome,
    FilePlan,
    download,
    format_plan,
    plan_download,
)
from .http import DownloadError, RetryPolicy

__all__ = [
    "DownloadError",
    "DownloadPlan",
    "DownloadSummary",
    "Expected",
    "ExtractSummary",
    "FileOutcome",
    "FilePlan",
    "Mismatch",
    "RetryPolicy",
    "UnsafeArchive",
    "download",
    "extract",
    "format_plan",
    "parse_checksum",
    "plan_download",
    "safe_member_path",
]
