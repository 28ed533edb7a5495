"""Fetch dataset files over HTTP(S) with a progress bar, MD5 check and atomic writes.

A file is streamed into a temporary file in the destination directory and only
renamed (``os.replace``) to its final name once complete and its MD5 matches,
so a half-downloaded or corrupt file never sits under the final name. Files get
the permissions the umask allows (as ``open()`` would), and a download that
fails leaves no directory it created behind.

Mirrors are tried in order. The environment variable ``MINITORCH_DATASETS_MIRROR``
(comma-separated base URLs) replaces every dataset's built-in mirror list, e.g.
to use a local copy or a test server.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Iterable, Sequence

from tqdm.auto import tqdm

from ..files import atomic_write

__all__ = [
    "DownloadError",
    "ChecksumMismatchError",
    "MIRROR_ENV_VAR",
    "file_md5",
    "download_file",
    "download_resources",
    "resolve_mirrors",
]

MIRROR_ENV_VAR = "MINITORCH_DATASETS_MIRROR"
_CHUNK_BYTES = 1 << 16
_USER_AGENT = "minitorch-datasets/0.1 (+urllib)"


class DownloadError(RuntimeError):
    """A file could not be fetched from any mirror (a RuntimeError).

    >>> issubclass(mt.datasets.DownloadError, RuntimeError)
    True
    >>> mt.datasets.MNIST("data", download=True)  # doctest: +SKIP
    """


class ChecksumMismatchError(DownloadError):
    """Downloaded bytes do not have the expected MD5; the file was discarded (a DownloadError).

    >>> issubclass(mt.datasets.ChecksumMismatchError, mt.datasets.DownloadError)
    True
    """


def file_md5(path: str | os.PathLike) -> str:
    """The hex MD5 digest of the file at `path`, read in chunks.

    >>> _ = open("empty.bin", "wb").write(b"")
    >>> from minitorch.datasets.download import file_md5
    >>> file_md5("empty.bin")
    'd41d8cd98f00b204e9800998ecf8427e'
    """
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK_BYTES), b""):
            digest.update(chunk)
    return digest.hexdigest()


def resolve_mirrors(default_mirrors: Sequence[str]) -> list[str]:
    """The base URLs to try: ``$MINITORCH_DATASETS_MIRROR`` if set, else ``default_mirrors``."""
    override = os.environ.get(MIRROR_ENV_VAR, "").strip()
    if override:
        return [url.strip() for url in override.split(",") if url.strip()]
    return list(default_mirrors)


def _join_url(base: str, filename: str) -> str:
    return base if base.endswith(filename) else base.rstrip("/") + "/" + filename


def _missing_directories(directory: Path) -> list[Path]:
    """The directories ``directory.mkdir(parents=True)`` would create, deepest first."""
    missing = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    return missing


def download_file(
    url: str,
    destination: str | os.PathLike,
    md5: str | None = None,
    *,
    progress: bool = True,
    timeout: float = 60.0,
) -> Path:
    """Download ``url`` to ``destination`` atomically, checking ``md5`` when given.

    >>> from minitorch.datasets.download import download_file
    >>> download_file("file:///etc/passwd", "passwd")
    Traceback (most recent call last):
        ...
    minitorch.datasets.download.DownloadError: refusing to download 'file:///etc/passwd': only http and https URLs are allowed
    """
    destination = Path(destination)
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in ("http", "https"):
        # urllib would also open file:// and ftp:// URLs; datasets only come over HTTP(S).
        raise DownloadError(f"refusing to download {url!r}: only http and https URLs are allowed")
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
    try:
        # Connect before creating any directory, so that an unreachable server leaves nothing behind.
        with urllib.request.urlopen(request, timeout=timeout) as response:
            created = _missing_directories(destination.parent)
            destination.parent.mkdir(parents=True, exist_ok=True)
            try:
                _receive(response, url, destination, md5, progress)
            except BaseException:
                for directory in created:  # deepest first; stops at one that is not empty
                    try:
                        directory.rmdir()
                    except OSError:
                        break
                raise
        return destination
    except http.client.HTTPException as err:
        # e.g. IncompleteRead when the server drops the connection mid-body.
        raise DownloadError(f"{url}: transfer failed: {err!r}") from err


def _receive(response, url: str, destination: Path, md5: str | None, progress: bool) -> None:
    """Stream ``response`` into ``destination`` (atomically), refusing a short body or a wrong MD5."""
    declared = response.headers.get("Content-Length")
    total = int(declared) if declared and declared.isdigit() else None
    digest = hashlib.md5()
    received = 0
    with atomic_write(destination) as out, tqdm(
        total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=destination.name, disable=not progress
    ) as bar:
        for chunk in iter(lambda: response.read(_CHUNK_BYTES), b""):
            out.write(chunk)
            digest.update(chunk)
            received += len(chunk)
            bar.update(len(chunk))
        if total is not None and received != total:
            raise DownloadError(f"{url}: connection ended after {received} of {total} bytes")
        if md5 is not None and digest.hexdigest() != md5.lower():
            raise ChecksumMismatchError(
                f"{url}: MD5 mismatch for {destination.name}: got {digest.hexdigest()}, expected {md5.lower()}; "
                "the download was discarded"
            )


def download_resources(
    directory: str | os.PathLike,
    resources: Iterable[tuple[str, str | None]],
    mirrors: Sequence[str],
    *,
    progress: bool = True,
    timeout: float = 60.0,
) -> list[Path]:
    """Make sure every ``(filename, md5)`` of ``resources`` is in ``directory``, trying mirrors in order.

    A file already present with the right MD5 is not downloaded again.
    """
    directory = Path(directory)
    if not mirrors:
        raise DownloadError("no mirror URLs to download from")
    paths = []
    for filename, md5 in resources:
        destination = directory / filename
        if destination.is_file() and (md5 is None or file_md5(destination) == md5.lower()):
            paths.append(destination)
            continue
        failures = []
        for base in mirrors:
            url = _join_url(base, filename)
            try:
                paths.append(download_file(url, destination, md5, progress=progress, timeout=timeout))
                break
            except (DownloadError, OSError, http.client.HTTPException) as err:
                # URLError/HTTPError are OSErrors; IncompleteRead is an HTTPException.
                failures.append(f"{url}: {err}")
        else:
            raise DownloadError(f"could not download {filename} from any mirror: " + "; ".join(failures))
    return paths
